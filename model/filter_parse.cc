// ParseFilter: HBase's filter language text to the Filter AST
// (model/filter_language.h), each filter built from its arguments as HBase's
// createFilterFromArguments reads them.
#include <algorithm>
#include <cctype>
#include <cstring>
#include <initializer_list>
#include <limits>
#include <memory>

#include "model/filter_language.h"

namespace bloomroute {
namespace {

// HBase filter names ParseFilter registers that we do not evaluate: named in
// the error so a client learns what to change.
constexpr const char* kUnsupportedFilters[] = {
    "ColumnValueFilter",   "FirstKeyValueMatchingQualifiersFilter",
    "MultiRowRangeFilter", "FuzzyRowFilter",
    "RandomRowFilter",     "WhileMatchFilter",
    "SkipFilter",
};
constexpr const char* kOtherComparators[] = {"null", "bit"};

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

std::string CountError(std::string_view name, std::string_view want,
                       size_t got) {
  return std::string(name) + " takes " + std::string(want) + ", got " +
         std::to_string(got);
}

StatusOr<std::string> StringArg(const Arg& arg) {
  if (!arg.quoted) return ErrorAt(arg.pos, "expected a quoted string");
  return arg.text;
}

StatusOr<bool> BoolArg(const Arg& arg) {
  std::string lower = arg.text;
  for (char& c : lower) c = std::tolower(static_cast<unsigned char>(c));
  if (!arg.quoted && lower == "true") return true;
  if (!arg.quoted && lower == "false") return false;
  return ErrorAt(
      arg.pos, "expected true or false, got " + QuoteFilterArgument(arg.text));
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
                     QuoteFilterArgument(arg.text));
}

// 'kind:operand' (split at the first ':'); a regexstring pattern compiled.
StatusOr<FilterComparator> ComparatorArg(const Arg& arg) {
  static const std::pair<const char*, FilterComparator::Kind> kKinds[] = {
      {"binary", FilterComparator::Kind::kBinary},
      {"binaryprefix", FilterComparator::Kind::kBinaryPrefix},
      {"substring", FilterComparator::Kind::kSubstring},
      {"regexstring", FilterComparator::Kind::kRegex}};
  size_t colon = arg.text.find(':');
  if (!arg.quoted || colon == std::string::npos) {
    return ErrorAt(arg.pos, "expected a comparator such as 'binary:value'");
  }
  std::string type = arg.text.substr(0, colon);
  for (const auto& [name, kind] : kKinds) {
    if (type != name) continue;
    FilterComparator c{kind, arg.text.substr(colon + 1)};
    if (kind == FilterComparator::Kind::kRegex) {
      StatusOr<JavaRegex> re = JavaRegex::Compile(c.operand, /*dot_all=*/true);
      if (!re.ok()) return ErrorAt(arg.pos, re.status().message());
      c.regex = std::make_shared<const JavaRegex>(std::move(re).value());
    }
    return c;
  }
  for (const char* other : kOtherComparators) {
    if (type == other) {
      return ErrorAt(arg.pos, "comparator " + type +
                                  " is not supported (binary, binaryprefix, "
                                  "substring and regexstring are)");
    }
  }
  return ErrorAt(arg.pos, "unknown comparator " + QuoteFilterArgument(type));
}

// A bare integer in [min, max] (HBase's convertByteArrayToLong/-Int, with
// the filter's own bound on the low side).
StatusOr<int64_t> IntegerArg(const Arg& arg, std::string_view what, int64_t min,
                             int64_t max) {
  std::string bad = std::string(what) + " must be an integer in [" +
                    std::to_string(min) + ", " + std::to_string(max) +
                    "], got ";
  if (arg.quoted) return ErrorAt(arg.pos, bad + "a quoted string");
  std::string_view digits = arg.text;
  const bool negative = !digits.empty() && digits[0] == '-';
  if (negative) digits.remove_prefix(1);
  uint64_t n = 0;
  const uint64_t kMax = std::numeric_limits<int64_t>::max();
  for (char c : digits) {
    if (c < '0' || c > '9' || n > (kMax - (c - '0')) / 10) {
      return ErrorAt(arg.pos, bad + QuoteFilterArgument(arg.text));
    }
    n = n * 10 + (c - '0');
  }
  const int64_t value = negative ? -static_cast<int64_t>(n) : n;
  if (digits.empty() || value < min || value > max) {
    return ErrorAt(arg.pos, bad + QuoteFilterArgument(arg.text));
  }
  return value;
}

constexpr int64_t kInt32Max = std::numeric_limits<int32_t>::max();
constexpr int64_t kInt64Max = std::numeric_limits<int64_t>::max();

Status ArgCount(const std::string& name, size_t pos, size_t got,
                std::initializer_list<size_t> allowed, const char* want) {
  for (size_t n : allowed) {
    if (got == n) return Status::OK();
  }
  return ErrorAt(pos, CountError(name, want, got));
}

// substring and regexstring go with = and != only (CompareFilter's check).
Status CheckComparatorOp(size_t pos, CompareOp op, FilterComparator::Kind k) {
  const bool text = k == FilterComparator::Kind::kSubstring ||
                    k == FilterComparator::Kind::kRegex;
  if (!text || op == CompareOp::kEqual || op == CompareOp::kNotEqual) {
    return Status::OK();
  }
  return ErrorAt(pos,
                 "a regexstring or substring comparator goes with = and != "
                 "only");
}

StatusOr<Filter> MakeScvf(const std::string& name, size_t pos,
                          const std::vector<Arg>& args) {
  BLOOMROUTE_RETURN_IF_ERROR(
      ArgCount(name, pos, args.size(), {4, 6}, "4 or 6 arguments"));
  SingleColumnValueFilter s;
  BLOOMROUTE_ASSIGN_OR_RETURN(s.family, StringArg(args[0]));
  BLOOMROUTE_ASSIGN_OR_RETURN(s.qualifier, StringArg(args[1]));
  BLOOMROUTE_ASSIGN_OR_RETURN(s.op, OpArg(args[2]));
  BLOOMROUTE_ASSIGN_OR_RETURN(FilterComparator c, ComparatorArg(args[3]));
  BLOOMROUTE_RETURN_IF_ERROR(CheckComparatorOp(args[3].pos, s.op, c.kind));
  s.value = std::move(c.operand);
  s.comparator = c.kind;
  s.regex = std::move(c.regex);
  s.exclude = name == "SingleColumnValueExcludeFilter";
  if (args.size() == 6) {
    BLOOMROUTE_ASSIGN_OR_RETURN(s.filter_if_missing, BoolArg(args[4]));
    BLOOMROUTE_ASSIGN_OR_RETURN(s.latest_version_only, BoolArg(args[5]));
  }
  return Filter{std::move(s)};
}

StatusOr<Filter> MakeCompareFilter(CompareFilter::Part part,
                                   const std::string& name, size_t pos,
                                   const std::vector<Arg>& args) {
  BLOOMROUTE_RETURN_IF_ERROR(
      ArgCount(name, pos, args.size(), {2}, "2 arguments"));
  CompareFilter f;
  f.part = part;
  BLOOMROUTE_ASSIGN_OR_RETURN(f.op, OpArg(args[0]));
  BLOOMROUTE_ASSIGN_OR_RETURN(f.comparator, ComparatorArg(args[1]));
  BLOOMROUTE_RETURN_IF_ERROR(
      CheckComparatorOp(args[1].pos, f.op, f.comparator.kind));
  return Filter{std::move(f)};
}

StatusOr<Filter> MakeDependentColumn(const std::string& name, size_t pos,
                                     const std::vector<Arg>& args) {
  BLOOMROUTE_RETURN_IF_ERROR(
      ArgCount(name, pos, args.size(), {2, 3, 5}, "2, 3 or 5 arguments"));
  DependentColumnFilter d;
  BLOOMROUTE_ASSIGN_OR_RETURN(d.family, StringArg(args[0]));
  BLOOMROUTE_ASSIGN_OR_RETURN(d.qualifier, StringArg(args[1]));
  if (args.size() >= 3) {
    BLOOMROUTE_ASSIGN_OR_RETURN(d.drop_dependent, BoolArg(args[2]));
  }
  if (args.size() == 5) {
    BLOOMROUTE_ASSIGN_OR_RETURN(d.op, OpArg(args[3]));
    BLOOMROUTE_ASSIGN_OR_RETURN(d.comparator, ComparatorArg(args[4]));
  }
  return Filter{std::move(d)};
}

StatusOr<Filter> MakeColumnRange(const std::string& name, size_t pos,
                                 const std::vector<Arg>& args) {
  BLOOMROUTE_RETURN_IF_ERROR(
      ArgCount(name, pos, args.size(), {4}, "4 arguments"));
  ColumnRangeFilter r;
  BLOOMROUTE_ASSIGN_OR_RETURN(std::string min, StringArg(args[0]));
  BLOOMROUTE_ASSIGN_OR_RETURN(r.min_inclusive, BoolArg(args[1]));
  BLOOMROUTE_ASSIGN_OR_RETURN(std::string max, StringArg(args[2]));
  BLOOMROUTE_ASSIGN_OR_RETURN(r.max_inclusive, BoolArg(args[3]));
  // An empty bound is no bound, as HBase's createFilterFromArguments.
  if (!min.empty()) r.min = std::move(min);
  if (!max.empty()) r.max = std::move(max);
  return Filter{std::move(r)};
}

// Filters of any number of arguments: prefixes or timestamps.
StatusOr<Filter> MakeListFilter(const std::string& name, size_t pos,
                                const std::vector<Arg>& args) {
  if (name == "TimestampsFilter") {
    TimestampsFilter t;
    for (const Arg& arg : args) {
      BLOOMROUTE_ASSIGN_OR_RETURN(int64_t ts,
                                  IntegerArg(arg, "a timestamp", 0, kInt64Max));
      t.timestamps.push_back(ts);
    }
    std::sort(t.timestamps.begin(), t.timestamps.end());
    t.timestamps.erase(std::unique(t.timestamps.begin(), t.timestamps.end()),
                       t.timestamps.end());
    return Filter{std::move(t)};
  }
  MultipleColumnPrefixFilter m;
  for (const Arg& arg : args) {
    BLOOMROUTE_ASSIGN_OR_RETURN(std::string prefix, StringArg(arg));
    m.prefixes.push_back(std::move(prefix));
  }
  std::sort(m.prefixes.begin(), m.prefixes.end());
  if (std::adjacent_find(m.prefixes.begin(), m.prefixes.end()) !=
      m.prefixes.end()) {
    return ErrorAt(pos, name + " prefixes must be distinct");
  }
  return Filter{std::move(m)};
}

// Filters of one or two integer arguments.
StatusOr<Filter> MakeCountFilter(const std::string& name, size_t pos,
                                 const std::vector<Arg>& args) {
  if (name == "PageFilter") {
    BLOOMROUTE_RETURN_IF_ERROR(
        ArgCount(name, pos, args.size(), {1}, "1 argument"));
    BLOOMROUTE_ASSIGN_OR_RETURN(int64_t n,
                                IntegerArg(args[0], "page size", 0, kInt64Max));
    return Filter{PageFilter{static_cast<uint64_t>(n)}};
  }
  if (name == "ColumnCountGetFilter") {
    BLOOMROUTE_RETURN_IF_ERROR(
        ArgCount(name, pos, args.size(), {1}, "1 argument"));
    BLOOMROUTE_ASSIGN_OR_RETURN(int64_t n,
                                IntegerArg(args[0], "the limit", 0, kInt32Max));
    return Filter{ColumnCountGetFilter{static_cast<int32_t>(n)}};
  }
  BLOOMROUTE_RETURN_IF_ERROR(
      ArgCount(name, pos, args.size(), {2}, "2 arguments"));
  BLOOMROUTE_ASSIGN_OR_RETURN(int64_t limit,
                              IntegerArg(args[0], "the limit", 0, kInt32Max));
  BLOOMROUTE_ASSIGN_OR_RETURN(int64_t offset,
                              IntegerArg(args[1], "the offset", 0, kInt32Max));
  return Filter{ColumnPaginationFilter{static_cast<int32_t>(limit),
                                       static_cast<int32_t>(offset)}};
}

// Filters of no argument or one string (or KeyOnlyFilter's boolean).
StatusOr<Filter> MakeSimpleFilter(const std::string& name, size_t pos,
                                  const std::vector<Arg>& args) {
  if (name == "KeyOnlyFilter") {
    BLOOMROUTE_RETURN_IF_ERROR(
        ArgCount(name, pos, args.size(), {0, 1}, "0 or 1 arguments"));
    KeyOnlyFilter k;
    if (args.size() == 1) {
      BLOOMROUTE_ASSIGN_OR_RETURN(k.length_as_value, BoolArg(args[0]));
    }
    return Filter{k};
  }
  if (name == "FirstKeyOnlyFilter") {
    BLOOMROUTE_RETURN_IF_ERROR(
        ArgCount(name, pos, args.size(), {0}, "0 arguments"));
    return Filter{FirstKeyOnlyFilter{}};
  }
  BLOOMROUTE_RETURN_IF_ERROR(
      ArgCount(name, pos, args.size(), {1}, "1 argument"));
  BLOOMROUTE_ASSIGN_OR_RETURN(std::string text, StringArg(args[0]));
  if (name == "PrefixFilter") return Filter{PrefixFilter{std::move(text)}};
  if (name == "ColumnPrefixFilter") {
    return Filter{ColumnPrefixFilter{std::move(text)}};
  }
  return Filter{InclusiveStopFilter{std::move(text)}};
}

using MakeFn = StatusOr<Filter> (*)(const std::string&, size_t,
                                    const std::vector<Arg>&);

StatusOr<Filter> MakeFilter(const std::string& name, size_t pos,
                            const std::vector<Arg>& args) {
  static const std::pair<const char*, MakeFn> kMakers[] = {
      {"SingleColumnValueFilter", MakeScvf},
      {"SingleColumnValueExcludeFilter", MakeScvf},
      {"DependentColumnFilter", MakeDependentColumn},
      {"ColumnRangeFilter", MakeColumnRange},
      {"TimestampsFilter", MakeListFilter},
      {"MultipleColumnPrefixFilter", MakeListFilter},
      {"PageFilter", MakeCountFilter},
      {"ColumnCountGetFilter", MakeCountFilter},
      {"ColumnPaginationFilter", MakeCountFilter},
      {"KeyOnlyFilter", MakeSimpleFilter},
      {"FirstKeyOnlyFilter", MakeSimpleFilter},
      {"PrefixFilter", MakeSimpleFilter},
      {"ColumnPrefixFilter", MakeSimpleFilter},
      {"InclusiveStopFilter", MakeSimpleFilter}};
  static const std::pair<const char*, CompareFilter::Part> kCompare[] = {
      {"RowFilter", CompareFilter::Part::kRow},
      {"FamilyFilter", CompareFilter::Part::kFamily},
      {"QualifierFilter", CompareFilter::Part::kQualifier},
      {"ValueFilter", CompareFilter::Part::kValue}};
  for (const auto& [n, make] : kMakers) {
    if (name == n) return make(name, pos, args);
  }
  for (const auto& [n, part] : kCompare) {
    if (name == n) return MakeCompareFilter(part, name, pos, args);
  }
  for (const char* unsupported : kUnsupportedFilters) {
    if (name == unsupported) return ErrorAt(pos, name + " is not supported");
  }
  return ErrorAt(pos, "unknown filter " + QuoteFilterArgument(name));
}

// Recursive descent over the grammar
//   expr := and ("OR" and)*     and := primary ("AND" primary)*
//   primary := "(" expr ")" | ("SKIP" | "WHILE") primary
//            | Name "(" [arg ("," arg)*] ")"
// Recursion depth is bounded by limits_.max_depth parentheses and unary
// operators.
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
    if (name == "SKIP" || name == "WHILE") return ParseUnary(name);
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

  // After SKIP or WHILE (at pos_): its operand.
  StatusOr<Filter> ParseUnary(const std::string& name) {
    if (depth_ >= limits_.max_depth) {
      return ErrorAt(pos_, "operators nested deeper than " +
                               std::to_string(limits_.max_depth) +
                               " (filter nesting depth limit)");
    }
    ++depth_;
    pos_ += name.size();
    BLOOMROUTE_ASSIGN_OR_RETURN(Filter operand, ParsePrimary());
    --depth_;
    UnaryFilter unary;
    unary.op =
        name == "SKIP" ? UnaryFilter::Op::kSkip : UnaryFilter::Op::kWhile;
    unary.operand.push_back(std::move(operand));
    return Filter{std::move(unary)};
  }

  std::string_view text_;
  FilterLimits limits_;
  size_t pos_ = 0;
  size_t depth_ = 0;
  size_t filters_ = 0;
};

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

}  // namespace bloomroute
