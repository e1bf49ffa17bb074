// The filter language's rules (ValidateFilter), its text (ToString) and its
// index plans (PlanFilter). Parsing is in filter_parse.cc, evaluation in
// internal/filter_eval.cc and internal/filter_lists.cc.
#include "model/filter_language.h"

#include <algorithm>

namespace bloomroute {

std::string QuoteFilterArgument(std::string_view s) {
  std::string out = "'";
  for (char c : s) {
    out += c;
    if (c == '\'') out += '\'';
  }
  return out + "'";
}

namespace {

// ------------------------------------------------------------ validation

// Where a node sits: under an OR, a SKIP or a WHILE (the innermost that
// matters to the rules), or only under ANDs from the top.
enum class Context { kTop, kOr, kSkip, kWhile };

const char* ContextName(Context c) {
  switch (c) {
    case Context::kOr:
      return "OR";
    case Context::kSkip:
      return "SKIP";
    case Context::kWhile:
      return "WHILE";
    default:
      return "";
  }
}

Status CheckTextComparator(const char* name, CompareOp op,
                           FilterComparator::Kind kind,
                           const std::string& operand) {
  const bool text = kind == FilterComparator::Kind::kSubstring ||
                    kind == FilterComparator::Kind::kRegex;
  if (text && op != CompareOp::kEqual && op != CompareOp::kNotEqual) {
    return Status::InvalidArgument(
        std::string(name) +
        ": a regexstring or substring comparator goes with = and != only");
  }
  if (kind == FilterComparator::Kind::kRegex) {
    BLOOMROUTE_RETURN_IF_ERROR(
        JavaRegex::Compile(operand, /*dot_all=*/true).status());
  }
  return Status::OK();
}

Status ValidateNode(const Filter& f, Context context);

Status ValidateComposite(const Filter& f, Context context) {
  if (const auto* list = std::get_if<FilterList>(&f.node)) {
    if (list->operands.size() < 2) {
      return Status::InvalidArgument(
          "a FilterList needs at least two operands");
    }
    const Context inner =
        list->op == FilterList::Op::kOr ? Context::kOr : context;
    for (const Filter& operand : list->operands) {
      BLOOMROUTE_RETURN_IF_ERROR(ValidateNode(operand, inner));
    }
    return Status::OK();
  }
  const auto& unary = std::get<UnaryFilter>(f.node);
  const bool is_while = unary.op == UnaryFilter::Op::kWhile;
  if (unary.operand.size() != 1) {
    return Status::InvalidArgument(std::string(is_while ? "WHILE" : "SKIP") +
                                   " takes one operand");
  }
  // WHILE ends the scan only on the path of ANDs and WHILEs from the top.
  if (is_while && (context == Context::kOr || context == Context::kSkip)) {
    return Status::InvalidArgument(
        std::string("WHILE is not supported inside ") + ContextName(context) +
        " (there HBase keeps its end across rows without ending the scan)");
  }
  return ValidateNode(
      unary.operand[0],
      is_while ? (context == Context::kTop ? Context::kWhile : context)
               : Context::kSkip);
}

Status ValidateNode(const Filter& f, Context context) {
  if (std::holds_alternative<FilterList>(f.node) ||
      std::holds_alternative<UnaryFilter>(f.node)) {
    return ValidateComposite(f, context);
  }
  if (const auto* s = std::get_if<SingleColumnValueFilter>(&f.node)) {
    const char* name = s->exclude ? "SingleColumnValueExcludeFilter"
                                  : "SingleColumnValueFilter";
    if (s->family.empty() || s->family.find(':') != std::string::npos) {
      return Status::InvalidArgument(
          std::string(name) + " family must be non-empty and hold no ':'");
    }
    return CheckTextComparator(name, s->op, s->comparator, s->value);
  }
  if (const auto* c = std::get_if<CompareFilter>(&f.node)) {
    return CheckTextComparator("CompareFilter", c->op, c->comparator.kind,
                               c->comparator.operand);
  }
  if (std::holds_alternative<PageFilter>(f.node) && context != Context::kTop) {
    // An OR, SKIP or WHILE operand counts rows on its own in HBase.
    return Status::InvalidArgument(
        std::string("PageFilter is not supported inside ") +
        ContextName(context));
  }
  if (const auto* d = std::get_if<DependentColumnFilter>(&f.node)) {
    if (d->op && d->comparator.kind == FilterComparator::Kind::kRegex) {
      BLOOMROUTE_RETURN_IF_ERROR(
          JavaRegex::Compile(d->comparator.operand, true).status());
    }
  }
  return Status::OK();
}

// ---------------------------------------------------------------- ToString

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

std::string ComparatorText(FilterComparator::Kind kind,
                           const std::string& operand) {
  static const char* kNames[] = {
      "binary:", "binaryprefix:", "substring:", "regexstring:"};
  return QuoteFilterArgument(kNames[static_cast<int>(kind)] + operand);
}

const char* Bool(bool b) { return b ? "true" : "false"; }

std::string ScvfText(const SingleColumnValueFilter& s) {
  return std::string(s.exclude ? "SingleColumnValueExcludeFilter("
                               : "SingleColumnValueFilter(") +
         QuoteFilterArgument(s.family) + ", " +
         QuoteFilterArgument(s.qualifier) + ", " + OpText(s.op) + ", " +
         ComparatorText(s.comparator, s.value) + ", " +
         Bool(s.filter_if_missing) + ", " + Bool(s.latest_version_only) + ")";
}

std::string CompositeText(const Filter& filter) {
  auto operand_text = [](const Filter& operand) {
    bool nested = std::holds_alternative<FilterList>(operand.node);
    return nested ? "(" + ToString(operand) + ")" : ToString(operand);
  };
  if (const auto* unary = std::get_if<UnaryFilter>(&filter.node)) {
    std::string out = unary->op == UnaryFilter::Op::kSkip ? "SKIP " : "WHILE ";
    return unary->operand.empty() ? out : out + operand_text(unary->operand[0]);
  }
  const auto& list = std::get<FilterList>(filter.node);
  std::string out;
  for (const Filter& operand : list.operands) {
    if (!out.empty()) out += list.op == FilterList::Op::kAnd ? " AND " : " OR ";
    out += operand_text(operand);
  }
  return out;
}

std::string ColumnFilterText(const Filter& filter) {
  if (const auto* m = std::get_if<MultipleColumnPrefixFilter>(&filter.node)) {
    std::string out;
    for (const std::string& p : m->prefixes) {
      out += (out.empty() ? "" : ", ") + QuoteFilterArgument(p);
    }
    return "MultipleColumnPrefixFilter(" + out + ")";
  }
  if (const auto* r = std::get_if<ColumnRangeFilter>(&filter.node)) {
    return "ColumnRangeFilter(" + QuoteFilterArgument(r->min.value_or("")) +
           ", " + Bool(r->min_inclusive) + ", " +
           QuoteFilterArgument(r->max.value_or("")) + ", " +
           Bool(r->max_inclusive) + ")";
  }
  if (const auto* t = std::get_if<TimestampsFilter>(&filter.node)) {
    std::string out;
    for (int64_t ts : t->timestamps) {
      out += (out.empty() ? "" : ", ") + std::to_string(ts);
    }
    return "TimestampsFilter(" + out + ")";
  }
  const auto& d = std::get<DependentColumnFilter>(filter.node);
  std::string out = "DependentColumnFilter(" + QuoteFilterArgument(d.family) +
                    ", " + QuoteFilterArgument(d.qualifier) + ", " +
                    Bool(d.drop_dependent);
  if (d.op) {
    out += std::string(", ") + OpText(*d.op) + ", " +
           ComparatorText(d.comparator.kind, d.comparator.operand);
  }
  return out + ")";
}

std::string LeafText(const Filter& filter) {
  if (const auto* c = std::get_if<CompareFilter>(&filter.node)) {
    static const char* kNames[] = {"RowFilter", "FamilyFilter",
                                   "QualifierFilter", "ValueFilter"};
    return std::string(kNames[static_cast<int>(c->part)]) + "(" +
           OpText(c->op) + ", " +
           ComparatorText(c->comparator.kind, c->comparator.operand) + ")";
  }
  if (const auto* p = std::get_if<PrefixFilter>(&filter.node)) {
    return "PrefixFilter(" + QuoteFilterArgument(p->prefix) + ")";
  }
  if (const auto* p = std::get_if<PageFilter>(&filter.node)) {
    return "PageFilter(" + std::to_string(p->page_size) + ")";
  }
  if (const auto* k = std::get_if<KeyOnlyFilter>(&filter.node)) {
    return std::string("KeyOnlyFilter(") + Bool(k->length_as_value) + ")";
  }
  if (std::holds_alternative<FirstKeyOnlyFilter>(filter.node)) {
    return "FirstKeyOnlyFilter()";
  }
  if (const auto* c = std::get_if<ColumnPrefixFilter>(&filter.node)) {
    return "ColumnPrefixFilter(" + QuoteFilterArgument(c->prefix) + ")";
  }
  if (const auto* s = std::get_if<InclusiveStopFilter>(&filter.node)) {
    return "InclusiveStopFilter(" + QuoteFilterArgument(s->stop_row) + ")";
  }
  if (const auto* c = std::get_if<ColumnCountGetFilter>(&filter.node)) {
    return "ColumnCountGetFilter(" + std::to_string(c->limit) + ")";
  }
  if (const auto* p = std::get_if<ColumnPaginationFilter>(&filter.node)) {
    return "ColumnPaginationFilter(" + std::to_string(p->limit) + ", " +
           std::to_string(p->offset) + ")";
  }
  return ColumnFilterText(filter);
}

// ---------------------------------------------------------------- planning

// One index lookup of a plan: equalities and prefixes, all ANDed.
struct Conjunction {
  std::vector<EqualityPredicate> equals;
  std::vector<IndexPredicate> prefixes;
  void Add(const Conjunction& other) {
    equals.insert(equals.end(), other.equals.begin(), other.equals.end());
    prefixes.insert(prefixes.end(), other.prefixes.begin(),
                    other.prefixes.end());
  }
};
using Lookups = std::vector<Conjunction>;

// The pin of a SingleColumnValue(Exclude)Filter, if it is one.
std::optional<Lookups> ScvfPins(
    const SingleColumnValueFilter& s,
    const std::function<bool(std::string_view)>& indexed) {
  if (s.op != CompareOp::kEqual || !s.filter_if_missing ||
      !indexed(s.column())) {
    return std::nullopt;
  }
  Conjunction c;
  if (s.comparator == FilterComparator::Kind::kBinary) {
    c.equals.push_back(EqualityPredicate{s.column(), s.value});
  } else if (s.comparator == FilterComparator::Kind::kBinaryPrefix &&
             !s.value.empty()) {
    // `=` with binaryprefix: the value's first |p| bytes equal p, so the
    // value starts with p.
    c.prefixes.push_back(
        IndexPredicate{s.column(), IndexOp::kPrefix, {s.value}});
  } else {
    return std::nullopt;
  }
  return Lookups{std::move(c)};
}

// The lookups a row must satisfy when `f`'s filterRow answers false (which
// a returned row's root does); nullopt when `f` implies none.
std::optional<Lookups> Pins(
    const Filter& f, const std::function<bool(std::string_view)>& indexed) {
  if (const auto* s = std::get_if<SingleColumnValueFilter>(&f.node)) {
    return ScvfPins(*s, indexed);
  }
  // SKIP's filterRow is its own (an excluded cell), not its operand's.
  const auto* list = std::get_if<FilterList>(&f.node);
  if (list == nullptr) return std::nullopt;
  Conjunction conjunction;
  bool pinned_alone = false;
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
      conjunction.Add((*pins)[0]);
      pinned_alone = true;
    } else if (pins && (!best || pins->size() < best->size())) {
      best = std::move(pins);
    }
  }
  if (pinned_alone) return Lookups{std::move(conjunction)};
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

}  // namespace

Status ValidateFilter(const Filter& filter) {
  return ValidateNode(filter, Context::kTop);
}

std::string ToString(const Filter& filter) {
  if (std::holds_alternative<FilterList>(filter.node) ||
      std::holds_alternative<UnaryFilter>(filter.node)) {
    return CompositeText(filter);
  }
  if (const auto* s = std::get_if<SingleColumnValueFilter>(&filter.node)) {
    return ScvfText(*s);
  }
  return LeafText(filter);
}

bool FilterEndsScans(const Filter& filter) {
  if (const auto* unary = std::get_if<UnaryFilter>(&filter.node)) {
    if (unary->op == UnaryFilter::Op::kWhile) return true;
    return !unary->operand.empty() && FilterEndsScans(unary->operand[0]);
  }
  const auto* list = std::get_if<FilterList>(&filter.node);
  if (list == nullptr) return false;
  return std::any_of(list->operands.begin(), list->operands.end(),
                     [](const Filter& f) { return FilterEndsScans(f); });
}

FilterPlan PlanFilter(
    const Filter& filter,
    const std::function<bool(std::string_view column)>& indexed) {
  FilterPlan plan;
  // A WHILE ends the scan at a row the index would not read.
  std::optional<Lookups> pins;
  if (!FilterEndsScans(filter)) pins = Pins(filter, indexed);
  if (pins) {
    for (Conjunction& c : *pins) {
      plan.lookups.push_back(std::move(c.equals));
      plan.prefixes.push_back(std::move(c.prefixes));
    }
  }
  plan.row_limit = RowLimit(filter);
  return plan;
}

}  // namespace bloomroute
