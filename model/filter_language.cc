#include "model/filter_language.h"

#include <algorithm>
#include <cctype>
#include <cstring>
#include <limits>

namespace bloomroute {
namespace {

// HBase filter names ParseFilter registers that we do not evaluate: named in
// the error so a client learns what to change.
constexpr const char* kUnsupportedFilters[] = {
    "ValueFilter",
    "RowFilter",
    "FamilyFilter",
    "QualifierFilter",
    "ColumnCountGetFilter",
    "ColumnPaginationFilter",
    "InclusiveStopFilter",
    "TimestampsFilter",
    "ColumnRangeFilter",
    "ColumnValueFilter",
    "SingleColumnValueExcludeFilter",
    "DependentColumnFilter",
    "MultipleColumnPrefixFilter",
    "FirstKeyValueMatchingQualifiersFilter",
    "MultiRowRangeFilter",
    "FuzzyRowFilter",
    "RandomRowFilter",
    "WhileMatchFilter",
    "SkipFilter",
};
constexpr const char* kOtherComparators[] = {"binaryprefix", "regexstring",
                                             "substring", "null", "bit"};

struct Arg {
  bool quoted = false;
  std::string text;
  size_t pos = 0;
};

bool IsWordChar(char c) {
  return !std::isspace(static_cast<unsigned char>(c)) && c != '(' && c != ')' &&
         c != ',' && c != '\'';
}

Status ErrorAt(size_t pos, std::string_view what) {
  return Status::InvalidArgument("at position " + std::to_string(pos) + ": " +
                                 std::string(what));
}

std::string Quoted(std::string_view s) {
  std::string out = "'";
  for (char c : s) {
    out += c;
    if (c == '\'') out += '\'';
  }
  return out + "'";
}

std::string CountError(std::string_view name, std::string_view want,
                       size_t got) {
  return std::string(name) + " takes " + std::string(want) + ", got " +
         std::to_string(got);
}

// Recursive descent over the grammar
//   expr := and ("OR" and)*     and := primary ("AND" primary)*
//   primary := "(" expr ")" | Name "(" [arg ("," arg)*] ")"
// Recursion depth is bounded by limits_.max_depth parentheses.
class Parser {
 public:
  Parser(std::string_view text, const FilterLimits& limits)
      : text_(text), limits_(limits) {}

  StatusOr<Filter> ParseAll() {
    BLOOMROUTE_ASSIGN_OR_RETURN(Filter f, ParseList(FilterList::Op::kOr));
    SkipSpace();
    if (pos_ < text_.size()) {
      return ErrorAt(pos_, "expected AND, OR or the end");
    }
    return f;
  }

 private:
  void SkipSpace() {
    while (pos_ < text_.size() &&
           std::isspace(static_cast<unsigned char>(text_[pos_]))) {
      ++pos_;
    }
  }
  std::string_view PeekWord() {
    size_t end = pos_;
    while (end < text_.size() && IsWordChar(text_[end])) ++end;
    return text_.substr(pos_, end - pos_);
  }

  // An OR list of AND lists, or an AND list of primaries.
  StatusOr<Filter> ParseList(FilterList::Op op) {
    const bool is_or = op == FilterList::Op::kOr;
    FilterList list{op, {}};
    for (;;) {
      StatusOr<Filter> operand =
          is_or ? ParseList(FilterList::Op::kAnd) : ParsePrimary();
      if (!operand.ok()) return operand.status();
      list.operands.push_back(std::move(operand).value());
      SkipSpace();
      if (PeekWord() != (is_or ? "OR" : "AND")) break;
      pos_ += is_or ? 2 : 3;
    }
    if (list.operands.size() == 1) return std::move(list.operands[0]);
    return Filter{std::move(list)};
  }

  StatusOr<Filter> ParsePrimary() {
    SkipSpace();
    if (pos_ == text_.size()) {
      return ErrorAt(pos_, "expected a filter, got the end");
    }
    if (text_[pos_] == '(') {
      if (depth_ >= limits_.max_depth) {
        return ErrorAt(pos_, "parentheses nested deeper than " +
                                 std::to_string(limits_.max_depth) +
                                 " (filter nesting depth limit)");
      }
      ++depth_;
      ++pos_;
      BLOOMROUTE_ASSIGN_OR_RETURN(Filter f, ParseList(FilterList::Op::kOr));
      SkipSpace();
      if (pos_ == text_.size() || text_[pos_] != ')') {
        return ErrorAt(pos_, "expected ')'");
      }
      ++pos_;
      --depth_;
      return f;
    }
    const size_t name_pos = pos_;
    std::string name(PeekWord());
    if (name.empty()) return ErrorAt(pos_, "expected a filter");
    if (name == "SKIP" || name == "WHILE") {
      return ErrorAt(pos_, "the " + name + " operator is not supported");
    }
    if (++filters_ > limits_.max_filters) {
      return ErrorAt(pos_, "more than " + std::to_string(limits_.max_filters) +
                               " filters (filter count limit)");
    }
    pos_ += name.size();
    SkipSpace();
    if (pos_ == text_.size() || text_[pos_] != '(') {
      return ErrorAt(pos_, "expected '('");
    }
    ++pos_;
    BLOOMROUTE_ASSIGN_OR_RETURN(std::vector<Arg> args, ParseArgs());
    return MakeFilter(name, name_pos, args);
  }

  // After "(": the arguments up to and including ")".
  StatusOr<std::vector<Arg>> ParseArgs() {
    std::vector<Arg> args;
    SkipSpace();
    if (pos_ < text_.size() && text_[pos_] == ')') {
      ++pos_;
      return args;
    }
    for (;;) {
      BLOOMROUTE_ASSIGN_OR_RETURN(Arg arg, ParseArg());
      args.push_back(std::move(arg));
      SkipSpace();
      if (pos_ < text_.size() && text_[pos_] == ',') {
        ++pos_;
        continue;
      }
      if (pos_ < text_.size() && text_[pos_] == ')') {
        ++pos_;
        return args;
      }
      return ErrorAt(pos_, "expected ',' or ')'");
    }
  }

  StatusOr<Arg> ParseArg() {
    SkipSpace();
    Arg arg;
    arg.pos = pos_;
    if (pos_ < text_.size() && text_[pos_] == '\'') {
      arg.quoted = true;
      for (size_t i = pos_ + 1; i < text_.size(); ++i) {
        if (text_[i] != '\'') {
          arg.text += text_[i];
        } else if (i + 1 < text_.size() && text_[i + 1] == '\'') {
          arg.text += '\'';
          ++i;
        } else {
          pos_ = i + 1;
          return arg;
        }
      }
      return ErrorAt(arg.pos, "unterminated quoted string");
    }
    arg.text = std::string(PeekWord());
    if (arg.text.empty()) return ErrorAt(pos_, "expected an argument");
    pos_ += arg.text.size();
    return arg;
  }

  StatusOr<Filter> MakeFilter(const std::string& name, size_t pos,
                              const std::vector<Arg>& args);
  StatusOr<Filter> MakeScvf(size_t pos, const std::vector<Arg>& args);

  std::string_view text_;
  FilterLimits limits_;
  size_t pos_ = 0;
  size_t depth_ = 0;
  size_t filters_ = 0;
};

StatusOr<std::string> StringArg(const Arg& arg) {
  if (!arg.quoted) return ErrorAt(arg.pos, "expected a quoted string");
  return arg.text;
}

StatusOr<bool> BoolArg(const Arg& arg) {
  std::string lower = arg.text;
  for (char& c : lower) c = std::tolower(static_cast<unsigned char>(c));
  if (!arg.quoted && lower == "true") return true;
  if (!arg.quoted && lower == "false") return false;
  return ErrorAt(arg.pos, "expected true or false, got " + Quoted(arg.text));
}

StatusOr<CompareOp> OpArg(const Arg& arg) {
  static const std::pair<const char*, CompareOp> kOps[] = {
      {"<", CompareOp::kLess},
      {"<=", CompareOp::kLessOrEqual},
      {"=", CompareOp::kEqual},
      {"!=", CompareOp::kNotEqual},
      {">=", CompareOp::kGreaterOrEqual},
      {">", CompareOp::kGreater}};
  for (const auto& [text, op] : kOps) {
    if (!arg.quoted && arg.text == text) return op;
  }
  return ErrorAt(arg.pos,
                 "expected a compare operator (<, <=, =, !=, >=, >), got " +
                     Quoted(arg.text));
}

// 'binary:value' -> value.
StatusOr<std::string> ComparatorArg(const Arg& arg) {
  size_t colon = arg.text.find(':');
  if (!arg.quoted || colon == std::string::npos) {
    return ErrorAt(arg.pos, "expected a comparator such as 'binary:value'");
  }
  std::string type = arg.text.substr(0, colon);
  if (type == "binary") return arg.text.substr(colon + 1);
  for (const char* other : kOtherComparators) {
    if (type == other) {
      return ErrorAt(arg.pos,
                     "comparator " + type + " is not supported (only binary)");
    }
  }
  return ErrorAt(arg.pos, "unknown comparator " + Quoted(type));
}

StatusOr<Filter> Parser::MakeScvf(size_t pos, const std::vector<Arg>& args) {
  if (args.size() != 4 && args.size() != 6) {
    return ErrorAt(pos, CountError("SingleColumnValueFilter",
                                   "4 or 6 arguments", args.size()));
  }
  SingleColumnValueFilter s;
  BLOOMROUTE_ASSIGN_OR_RETURN(s.family, StringArg(args[0]));
  BLOOMROUTE_ASSIGN_OR_RETURN(s.qualifier, StringArg(args[1]));
  BLOOMROUTE_ASSIGN_OR_RETURN(s.op, OpArg(args[2]));
  BLOOMROUTE_ASSIGN_OR_RETURN(s.value, ComparatorArg(args[3]));
  if (args.size() == 6) {
    BLOOMROUTE_ASSIGN_OR_RETURN(s.filter_if_missing, BoolArg(args[4]));
    BLOOMROUTE_ASSIGN_OR_RETURN(s.latest_version_only, BoolArg(args[5]));
  }
  return Filter{std::move(s)};
}

StatusOr<uint64_t> PageSizeArg(const Arg& arg) {
  constexpr uint64_t kMax = std::numeric_limits<int64_t>::max();
  std::string bad =
      "page size must be an integer in [0, " + std::to_string(kMax) + "], got ";
  if (arg.quoted) return ErrorAt(arg.pos, bad + "a quoted string");
  uint64_t n = 0;
  for (char c : arg.text) {
    if (c < '0' || c > '9' || n > (kMax - (c - '0')) / 10) {
      return ErrorAt(arg.pos, bad + Quoted(arg.text));
    }
    n = n * 10 + (c - '0');
  }
  return n;
}

StatusOr<Filter> Parser::MakeFilter(const std::string& name, size_t pos,
                                    const std::vector<Arg>& args) {
  auto want = [&](size_t n) -> Status {
    if (args.size() == n) return Status::OK();
    return ErrorAt(pos, CountError(name,
                                   std::to_string(n) +
                                       (n == 1 ? " argument" : " arguments"),
                                   args.size()));
  };
  if (name == "SingleColumnValueFilter") return MakeScvf(pos, args);
  if (name == "KeyOnlyFilter" || name == "FirstKeyOnlyFilter") {
    BLOOMROUTE_RETURN_IF_ERROR(want(0));
    if (name == "KeyOnlyFilter") return Filter{KeyOnlyFilter{}};
    return Filter{FirstKeyOnlyFilter{}};
  }
  if (name == "PrefixFilter" || name == "ColumnPrefixFilter" ||
      name == "PageFilter") {
    BLOOMROUTE_RETURN_IF_ERROR(want(1));
    if (name == "PageFilter") {
      BLOOMROUTE_ASSIGN_OR_RETURN(uint64_t n, PageSizeArg(args[0]));
      return Filter{PageFilter{n}};
    }
    BLOOMROUTE_ASSIGN_OR_RETURN(std::string prefix, StringArg(args[0]));
    if (name == "PrefixFilter") return Filter{PrefixFilter{std::move(prefix)}};
    return Filter{ColumnPrefixFilter{std::move(prefix)}};
  }
  for (const char* unsupported : kUnsupportedFilters) {
    if (name == unsupported) return ErrorAt(pos, name + " is not supported");
  }
  return ErrorAt(pos, "unknown filter " + Quoted(name));
}

// ------------------------------------------------------------ validation

const char* LeafName(const Filter& f) {
  switch (f.node.index()) {
    case 0:
      return "SingleColumnValueFilter";
    case 1:
      return "PrefixFilter";
    case 2:
      return "PageFilter";
    case 3:
      return "KeyOnlyFilter";
    case 4:
      return "FirstKeyOnlyFilter";
    case 5:
      return "ColumnPrefixFilter";
    default:
      return "FilterList";
  }
}

struct LeafCensus {
  bool scvf = false;
  const char* skipper = nullptr;  // FirstKeyOnly or ColumnPrefix, if any
};

Status ValidateNode(const Filter& f, bool in_or, LeafCensus* census) {
  if (const auto* list = std::get_if<FilterList>(&f.node)) {
    if (list->operands.size() < 2) {
      return Status::InvalidArgument(
          "a FilterList needs at least two operands");
    }
    bool or_here = in_or || list->op == FilterList::Op::kOr;
    for (const Filter& operand : list->operands) {
      BLOOMROUTE_RETURN_IF_ERROR(ValidateNode(operand, or_here, census));
    }
    return Status::OK();
  }
  if (const auto* s = std::get_if<SingleColumnValueFilter>(&f.node)) {
    if (s->family.empty() || s->family.find(':') != std::string::npos) {
      return Status::InvalidArgument(
          "SingleColumnValueFilter family must be non-empty and hold no ':'");
    }
    census->scvf = true;
    return Status::OK();
  }
  if (std::holds_alternative<PrefixFilter>(f.node)) return Status::OK();
  if (in_or) {
    return Status::InvalidArgument(std::string(LeafName(f)) +
                                   " is not supported inside OR");
  }
  if (std::holds_alternative<FirstKeyOnlyFilter>(f.node) ||
      std::holds_alternative<ColumnPrefixFilter>(f.node)) {
    census->skipper = LeafName(f);
  }
  return Status::OK();
}

// ------------------------------------------------------------- evaluation

// Per cell of the row: kDrop, kKeep or kKeepKeyOnly (value emptied).
enum Mark : uint8_t { kDrop = 0, kKeep = 1, kKeepKeyOnly = 2 };
using Marks = std::vector<uint8_t>;

bool Compare(std::string_view cell, CompareOp op, std::string_view operand) {
  // Unsigned byte order, as HBase's Bytes.compareTo.
  size_t n = std::min(cell.size(), operand.size());
  int c = n == 0 ? 0 : std::memcmp(cell.data(), operand.data(), n);
  if (c == 0)
    c = cell.size() < operand.size() ? -1 : cell.size() > operand.size();
  switch (op) {
    case CompareOp::kLess:
      return c < 0;
    case CompareOp::kLessOrEqual:
      return c <= 0;
    case CompareOp::kEqual:
      return c == 0;
    case CompareOp::kNotEqual:
      return c != 0;
    case CompareOp::kGreaterOrEqual:
      return c >= 0;
    case CompareOp::kGreater:
      return c > 0;
  }
  return false;
}

bool StartsWith(std::string_view s, std::string_view prefix) {
  return s.substr(0, prefix.size()) == prefix;
}

std::optional<Marks> Eval(const Filter& f, const Row& row);

std::optional<Marks> EvalList(const FilterList& list, const Row& row) {
  const bool is_and = list.op == FilterList::Op::kAnd;
  Marks out(row.cells.size(), is_and ? kKeep : kDrop);
  bool any_pass = false;
  for (const Filter& operand : list.operands) {
    std::optional<Marks> m = Eval(operand, row);
    if (!m) {
      if (is_and) return std::nullopt;
      continue;
    }
    any_pass = true;
    for (size_t i = 0; i < out.size(); ++i) {
      if (is_and) {
        bool dropped = (*m)[i] == kDrop || out[i] == kDrop;
        out[i] = dropped ? uint8_t{kDrop} : std::max(out[i], (*m)[i]);
      } else if ((*m)[i] != kDrop) {
        out[i] = std::max(out[i], (*m)[i]);
      }
    }
  }
  if (!any_pass) return std::nullopt;
  return out;
}

std::optional<Marks> Eval(const Filter& f, const Row& row) {
  const size_t n = row.cells.size();
  if (const auto* list = std::get_if<FilterList>(&f.node)) {
    return EvalList(*list, row);
  }
  if (const auto* s = std::get_if<SingleColumnValueFilter>(&f.node)) {
    const Cell* cell = row.Find(s->column());
    bool pass = cell == nullptr ? !s->filter_if_missing
                                : Compare(cell->value, s->op, s->value);
    if (!pass) return std::nullopt;
    return Marks(n, kKeep);
  }
  if (const auto* p = std::get_if<PrefixFilter>(&f.node)) {
    if (!StartsWith(row.key, p->prefix)) return std::nullopt;
    return Marks(n, kKeep);
  }
  if (std::holds_alternative<KeyOnlyFilter>(f.node)) {
    return Marks(n, kKeepKeyOnly);
  }
  Marks m(n, kDrop);
  if (std::holds_alternative<FirstKeyOnlyFilter>(f.node)) {
    if (n > 0) m[0] = kKeep;
  } else if (const auto* c = std::get_if<ColumnPrefixFilter>(&f.node)) {
    for (size_t i = 0; i < n; ++i) {
      std::string_view column = row.cells[i].column;
      size_t colon = column.find(':');
      std::string_view qualifier =
          colon == std::string_view::npos ? "" : column.substr(colon + 1);
      if (StartsWith(qualifier, c->prefix)) m[i] = kKeep;
    }
  } else {
    m.assign(n, kKeep);  // PageFilter: applied by the caller
  }
  return m;
}

// ---------------------------------------------------------------- planning

using Lookups = std::vector<std::vector<EqualityPredicate>>;

std::optional<Lookups> Pins(
    const Filter& f, const std::function<bool(std::string_view)>& indexed) {
  if (const auto* s = std::get_if<SingleColumnValueFilter>(&f.node)) {
    if (s->op != CompareOp::kEqual || !s->filter_if_missing ||
        !indexed(s->column())) {
      return std::nullopt;
    }
    return Lookups{{EqualityPredicate{s->column(), s->value}}};
  }
  const auto* list = std::get_if<FilterList>(&f.node);
  if (list == nullptr) return std::nullopt;
  std::vector<EqualityPredicate> conjunction;
  std::optional<Lookups> best;
  for (const Filter& operand : list->operands) {
    std::optional<Lookups> pins = Pins(operand, indexed);
    if (list->op == FilterList::Op::kOr) {
      // Every operand must be pinned, or rows matching none may pass.
      if (!pins) return std::nullopt;
      if (!best) best.emplace();
      best->insert(best->end(), pins->begin(), pins->end());
      if (best->size() > kMaxPlanLookups) return std::nullopt;
    } else if (pins && pins->size() == 1) {
      conjunction.insert(conjunction.end(), (*pins)[0].begin(),
                         (*pins)[0].end());
    } else if (pins && (!best || pins->size() < best->size())) {
      best = std::move(pins);
    }
  }
  if (!conjunction.empty()) return Lookups{std::move(conjunction)};
  return best;
}

std::optional<uint64_t> RowLimit(const Filter& f) {
  if (const auto* p = std::get_if<PageFilter>(&f.node)) return p->page_size;
  const auto* list = std::get_if<FilterList>(&f.node);
  if (list == nullptr || list->op != FilterList::Op::kAnd) return std::nullopt;
  std::optional<uint64_t> limit;
  for (const Filter& operand : list->operands) {
    std::optional<uint64_t> l = RowLimit(operand);
    if (l && (!limit || *l < *limit)) limit = l;
  }
  return limit;
}

const char* OpText(CompareOp op) {
  switch (op) {
    case CompareOp::kLess:
      return "<";
    case CompareOp::kLessOrEqual:
      return "<=";
    case CompareOp::kEqual:
      return "=";
    case CompareOp::kNotEqual:
      return "!=";
    case CompareOp::kGreaterOrEqual:
      return ">=";
    case CompareOp::kGreater:
      return ">";
  }
  return "?";
}

}  // namespace

StatusOr<Filter> ParseFilter(std::string_view text,
                             const FilterLimits& limits) {
  if (text.size() > limits.max_text_bytes) {
    return Status::InvalidArgument(
        "filter text is " + std::to_string(text.size()) +
        " bytes, over the limit of " + std::to_string(limits.max_text_bytes) +
        " (filter text byte limit)");
  }
  BLOOMROUTE_ASSIGN_OR_RETURN(Filter f, Parser(text, limits).ParseAll());
  BLOOMROUTE_RETURN_IF_ERROR(ValidateFilter(f));
  return f;
}

Status ValidateFilter(const Filter& filter) {
  LeafCensus census;
  BLOOMROUTE_RETURN_IF_ERROR(ValidateNode(filter, false, &census));
  if (census.scvf && census.skipper != nullptr) {
    return Status::InvalidArgument(
        std::string(census.skipper) +
        " is not supported together with SingleColumnValueFilter");
  }
  return Status::OK();
}

std::string ToString(const Filter& filter) {
  if (const auto* list = std::get_if<FilterList>(&filter.node)) {
    std::string out;
    for (const Filter& operand : list->operands) {
      if (!out.empty()) {
        out += list->op == FilterList::Op::kAnd ? " AND " : " OR ";
      }
      bool nested = std::holds_alternative<FilterList>(operand.node);
      out += nested ? "(" + ToString(operand) + ")" : ToString(operand);
    }
    return out;
  }
  if (const auto* s = std::get_if<SingleColumnValueFilter>(&filter.node)) {
    return "SingleColumnValueFilter(" + Quoted(s->family) + ", " +
           Quoted(s->qualifier) + ", " + OpText(s->op) + ", " +
           Quoted("binary:" + s->value) + ", " +
           (s->filter_if_missing ? "true" : "false") + ", " +
           (s->latest_version_only ? "true" : "false") + ")";
  }
  if (const auto* p = std::get_if<PrefixFilter>(&filter.node)) {
    return "PrefixFilter(" + Quoted(p->prefix) + ")";
  }
  if (const auto* p = std::get_if<PageFilter>(&filter.node)) {
    return "PageFilter(" + std::to_string(p->page_size) + ")";
  }
  if (const auto* c = std::get_if<ColumnPrefixFilter>(&filter.node)) {
    return "ColumnPrefixFilter(" + Quoted(c->prefix) + ")";
  }
  return std::string(LeafName(filter)) + "()";
}

std::optional<Row> ApplyFilter(const Filter& filter, const Row& row) {
  std::optional<Marks> marks = Eval(filter, row);
  if (!marks) return std::nullopt;
  Row out;
  out.key = row.key;
  for (size_t i = 0; i < row.cells.size(); ++i) {
    if ((*marks)[i] == kDrop) continue;
    out.cells.push_back(row.cells[i]);
    if ((*marks)[i] == kKeepKeyOnly) out.cells.back().value.clear();
  }
  if (out.cells.empty()) return std::nullopt;  // as HBase: no empty rows
  return out;
}

FilterPlan PlanFilter(
    const Filter& filter,
    const std::function<bool(std::string_view column)>& indexed) {
  FilterPlan plan;
  std::optional<Lookups> pins = Pins(filter, indexed);
  if (pins) plan.lookups = std::move(*pins);
  plan.row_limit = RowLimit(filter);
  return plan;
}

}  // namespace bloomroute
