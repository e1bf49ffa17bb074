// HBase's filter language (the strings HBase Thrift2 clients send in
// TScan.filterString / TGet.filterString): parsed into a plain AST, evaluated
// on rows with HBase's cell-level semantics, and planned for the index.
//
//   StatusOr<Filter> f = ParseFilter(
//       "SingleColumnValueFilter('d', 'cc', =, 'binary:NO', true, true)"
//       " AND KeyOnlyFilter()");
//   if (!f.ok()) return f.status();  // InvalidArgument naming the position
//   FilterPlan plan = PlanFilter(*f, is_indexed);
//   // plan.lookups: candidate rows from the index; then, per row in scan
//   // order (FilterScan stops at a WHILE that fails):
//   FilterScan scan(*f);
//   FilterScan::Result r = scan.Next(row);  // r.row, r.ends_scan
//
// Syntax (as HBase's ParseFilter): `Name(arg, ...)`; string arguments in
// single quotes, a quote inside written twice (''); booleans true/false (any
// case), integers and compare operators (<, <=, =, !=, >=, >) bare; the
// unary `SKIP` and `WHILE` bind tighter than `AND`, which binds tighter
// than `OR`; parentheses group. Filters served (HBase's argument forms):
//   SingleColumnValueFilter('family', 'qualifier', op, 'comparator'
//                           [, filterIfMissing, latestVersionOnly])
//   SingleColumnValueExcludeFilter(same arguments)
//   ValueFilter(op, 'c')  RowFilter(op, 'c')  QualifierFilter(op, 'c')
//   FamilyFilter(op, 'c')                      PrefixFilter('rowprefix')
//   PageFilter(n)         KeyOnlyFilter([lenAsValue])  FirstKeyOnlyFilter()
//   ColumnPrefixFilter('p')   MultipleColumnPrefixFilter('p1', 'p2', ...)
//   ColumnRangeFilter('min', minInclusive, 'max', maxInclusive)
//   ColumnCountGetFilter(n)   ColumnPaginationFilter(limit, offset)
//   InclusiveStopFilter('row')  TimestampsFilter(t1, t2, ...)
//   DependentColumnFilter('family', 'qualifier'
//                         [, dropDependentColumn [, op, 'comparator']])
// Comparators: 'binary:v' (bytes, unsigned lexicographic), 'binaryprefix:v'
// (the value's first |v| bytes against v), 'substring:s' (s found in the
// value, ASCII case-insensitive, as SubstringComparator lowercases both),
// 'regexstring:p' (p found in the value, Java syntax with DOTALL in the
// subset common/java_regex.h accepts; Java-only constructs are refused by
// name). substring and regexstring go with = and != only (as HBase).
// Refused by name: ColumnValueFilter, FirstKeyValueMatchingQualifiersFilter,
// MultiRowRangeFilter, FuzzyRowFilter, RandomRowFilter and the null and bit
// comparators (not implemented), and the placements ValidateFilter refuses.
//
// Semantics: HBase 2.x's, cell by cell, on our rows, which hold ONE version
// per cell (so NEXT_COL acts as SKIP and INCLUDE_AND_NEXT_COL as INCLUDE).
// Every filter answers HBase's Filter calls (filterRowKey, filterCell's
// ReturnCode: INCLUDE, SKIP, NEXT_COL, NEXT_ROW, INCLUDE_AND_NEXT_COL,
// INCLUDE_AND_SEEK_NEXT_ROW, SEEK_NEXT_USING_HINT; transformCell,
// filterRowCells, filterRow, filterAllRemaining, reset); AND and OR are
// HBase's FilterListWithAND / FilterListWithOR (AND: the largest step of its
// operands, stopping at the first operand that excludes the cell; OR: the
// smallest step, an operand that asked to skip the column, family or up to
// a hint not asked again until then; transforms of the operands that
// included the cell); SKIP is SkipFilter (the row is dropped when its
// operand excludes any cell), WHILE is WhileMatchFilter (the scan ends at
// the first row whose cell or row its operand excludes). A row is run as a
// region scanner runs it: filterAllRemaining ends the scan; filterRowKey;
// each cell of the row in column order through filterCell (NEXT_ROW and
// INCLUDE_AND_SEEK_NEXT_ROW skip the rest of the cell's family, a hint the
// family's cells before it); the included cells, transformed, through
// filterRowCells and, when some are left, filterRow. A row left with no
// cell is not returned. Filters see the row after the scan's projection and
// time range (a column not selected is missing to them). Where we differ:
// - PageFilter passes every row here; its limit is FilterPlan::row_limit,
//   applied by the caller to the rows the whole filter returns. HBase counts
//   per region server the rows that reach it in its list's order, so an
//   HBase client may receive more (or, with PageFilter before another
//   filter in an AND, fewer) rows; we return at most n.
// - ColumnCountGetFilter: once a row has more than n cells HBase's scanner
//   also stops reading that family for the rest of the region (HBase calls
//   the filter unsuitable for scans); we apply it to each row as a Get does.
// - Row state is per row except WHILE's: a scan ends after the first row
//   for which FilterScan::Next says ends_scan.
//
// The rules ValidateFilter applies (ParseFilter applies them):
// - PageFilter only at the top or inside ANDs (in HBase an OR or SKIP
//   operand counts rows on its own);
// - WHILE only where its end ends the whole scan: at the top, inside AND or
//   inside WHILE (under OR or SKIP HBase keeps its ended state across rows
//   without ending the scan, which per-row evaluation does not reproduce).
#ifndef BLOOMROUTE_MODEL_FILTER_LANGUAGE_H_
#define BLOOMROUTE_MODEL_FILTER_LANGUAGE_H_

#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

#include "common/java_regex.h"
#include "common/status.h"
#include "common/statusor.h"
#include "model/index_predicate.h"
#include "model/index_query.h"
#include "model/rows.h"

namespace bloomroute {

// CompareOp is in model/rows.h (shared with RowCondition).

// A comparator argument, 'kind:operand'. For kRegex ParseFilter also
// compiles the pattern (`regex`; not part of equality); evaluation compiles
// it when a hand-built filter left it unset.
struct FilterComparator {
  enum class Kind { kBinary, kBinaryPrefix, kSubstring, kRegex };
  Kind kind = Kind::kBinary;
  std::string operand;
  std::shared_ptr<const JavaRegex> regex = nullptr;
  friend bool operator==(const FilterComparator& a, const FilterComparator& b) {
    return a.kind == b.kind && a.operand == b.operand;
  }
};

// SingleColumnValueFilter, or SingleColumnValueExcludeFilter when
// `exclude` (the tested column's cells are then left out of the row).
struct SingleColumnValueFilter {
  std::string family;     // non-empty, no ':'
  std::string qualifier;  // may be empty
  CompareOp op = CompareOp::kEqual;
  std::string value;  // the comparator's operand
  bool filter_if_missing = false;
  bool latest_version_only = true;
  FilterComparator::Kind comparator = FilterComparator::Kind::kBinary;
  bool exclude = false;
  std::shared_ptr<const JavaRegex> regex = nullptr;  // as FilterComparator
  std::string column() const { return family + ":" + qualifier; }
  friend bool operator==(const SingleColumnValueFilter& a,
                         const SingleColumnValueFilter& b) {
    return a.family == b.family && a.qualifier == b.qualifier && a.op == b.op &&
           a.value == b.value && a.filter_if_missing == b.filter_if_missing &&
           a.latest_version_only == b.latest_version_only &&
           a.comparator == b.comparator && a.exclude == b.exclude;
  }
};

struct PrefixFilter {
  std::string prefix;
  friend bool operator==(const PrefixFilter& a, const PrefixFilter& b) {
    return a.prefix == b.prefix;
  }
};

struct PageFilter {
  uint64_t page_size = 0;  // at most INT64_MAX, as HBase's long
  friend bool operator==(const PageFilter& a, const PageFilter& b) {
    return a.page_size == b.page_size;
  }
};

// KeyOnlyFilter(lenAsValue): values emptied, or replaced by their length
// as a 4-byte big-endian integer.
struct KeyOnlyFilter {
  bool length_as_value = false;
  friend bool operator==(const KeyOnlyFilter& a, const KeyOnlyFilter& b) {
    return a.length_as_value == b.length_as_value;
  }
};

struct FirstKeyOnlyFilter {
  friend bool operator==(const FirstKeyOnlyFilter&, const FirstKeyOnlyFilter&) {
    return true;
  }
};

struct ColumnPrefixFilter {
  std::string prefix;  // of the qualifier
  friend bool operator==(const ColumnPrefixFilter& a,
                         const ColumnPrefixFilter& b) {
    return a.prefix == b.prefix;
  }
};

// RowFilter, FamilyFilter, QualifierFilter, ValueFilter: `part op
// comparator` decides (HBase's CompareFilter).
struct CompareFilter {
  enum class Part { kRow, kFamily, kQualifier, kValue };
  Part part = Part::kValue;
  CompareOp op = CompareOp::kEqual;
  FilterComparator comparator;
  friend bool operator==(const CompareFilter& a, const CompareFilter& b) {
    return a.part == b.part && a.op == b.op && a.comparator == b.comparator;
  }
};

struct MultipleColumnPrefixFilter {
  std::vector<std::string> prefixes;  // sorted, distinct
  friend bool operator==(const MultipleColumnPrefixFilter& a,
                         const MultipleColumnPrefixFilter& b) {
    return a.prefixes == b.prefixes;
  }
};

struct ColumnRangeFilter {
  std::optional<std::string> min;  // nullopt: unbounded ('' in the text)
  bool min_inclusive = true;
  std::optional<std::string> max;
  bool max_inclusive = false;
  friend bool operator==(const ColumnRangeFilter& a,
                         const ColumnRangeFilter& b) {
    return a.min == b.min && a.min_inclusive == b.min_inclusive &&
           a.max == b.max && a.max_inclusive == b.max_inclusive;
  }
};

struct ColumnCountGetFilter {
  int32_t limit = 0;  // >= 0
  friend bool operator==(const ColumnCountGetFilter& a,
                         const ColumnCountGetFilter& b) {
    return a.limit == b.limit;
  }
};

struct ColumnPaginationFilter {
  int32_t limit = 0;   // >= 0
  int32_t offset = 0;  // >= 0
  friend bool operator==(const ColumnPaginationFilter& a,
                         const ColumnPaginationFilter& b) {
    return a.limit == b.limit && a.offset == b.offset;
  }
};

struct InclusiveStopFilter {
  std::string stop_row;
  friend bool operator==(const InclusiveStopFilter& a,
                         const InclusiveStopFilter& b) {
    return a.stop_row == b.stop_row;
  }
};

struct TimestampsFilter {
  std::vector<int64_t> timestamps;  // sorted, distinct, each >= 0
  friend bool operator==(const TimestampsFilter& a, const TimestampsFilter& b) {
    return a.timestamps == b.timestamps;
  }
};

// Cells whose timestamp no cell of family:qualifier (passing `op
// comparator`, when set) shares are dropped; drop_dependent: that column's
// own cells too.
struct DependentColumnFilter {
  std::string family;
  std::string qualifier;
  bool drop_dependent = false;
  std::optional<CompareOp> op;  // with `comparator`; nullopt: no test
  FilterComparator comparator;
  friend bool operator==(const DependentColumnFilter& a,
                         const DependentColumnFilter& b) {
    return a.family == b.family && a.qualifier == b.qualifier &&
           a.drop_dependent == b.drop_dependent && a.op == b.op &&
           (!a.op || a.comparator == b.comparator);
  }
};

struct Filter;

// AND / OR of at least two operands. "A AND B AND C" is one list of three;
// parentheses make a nested list.
struct FilterList {
  enum class Op { kAnd, kOr };
  Op op = Op::kAnd;
  std::vector<Filter> operands;
  friend bool operator==(const FilterList& a, const FilterList& b);
};

// SKIP f (SkipFilter) or WHILE f (WhileMatchFilter); `operand` holds one.
struct UnaryFilter {
  enum class Op { kSkip, kWhile };
  Op op = Op::kSkip;
  std::vector<Filter> operand;
  friend bool operator==(const UnaryFilter& a, const UnaryFilter& b);
};

struct Filter {
  std::variant<SingleColumnValueFilter, PrefixFilter, PageFilter, KeyOnlyFilter,
               FirstKeyOnlyFilter, ColumnPrefixFilter, FilterList,
               CompareFilter, MultipleColumnPrefixFilter, ColumnRangeFilter,
               ColumnCountGetFilter, ColumnPaginationFilter,
               InclusiveStopFilter, TimestampsFilter, DependentColumnFilter,
               UnaryFilter>
      node;
  friend bool operator==(const Filter& a, const Filter& b) {
    return a.node == b.node;
  }
};

inline bool operator==(const FilterList& a, const FilterList& b) {
  return a.op == b.op && a.operands == b.operands;
}
inline bool operator==(const UnaryFilter& a, const UnaryFilter& b) {
  return a.op == b.op && a.operand == b.operand;
}

// Bounds on what ParseFilter accepts; each error names the bound.
struct FilterLimits {
  size_t max_text_bytes = 64 * 1024;  // of the filter string
  size_t max_depth = 64;              // nested parentheses, SKIP and WHILE
  size_t max_filters = 1000;          // filters (leaves) in the expression
};

// Parses `text`. InvalidArgument, its message starting "at position N:" (N the
// 0-based byte offset) for a syntax error or a bad argument, naming the
// filter or comparator for one we do not implement, naming the Java-only
// regex construct, naming the limit when one of `limits` is exceeded, and
// ValidateFilter's errors. Never reads outside `text`; recursion is bounded
// by max_depth.
[[nodiscard]] StatusOr<Filter> ParseFilter(std::string_view text,
                                           const FilterLimits& limits = {});

// InvalidArgument when `filter` breaks one of the rules above (or has a
// FilterList with fewer than two operands, a UnaryFilter without exactly
// one, a family that is empty or holds ':', a substring or regexstring
// comparator with an operator other than = and !=, or a regex outside the
// accepted subset); OK otherwise.
[[nodiscard]] Status ValidateFilter(const Filter& filter);

// The filter in the language; ParseFilter(ToString(f)) == f for every f that
// ValidateFilter accepts. Optional arguments are always written; nested
// lists are parenthesized.
std::string ToString(const Filter& filter);

// `s` as a string argument of the language: in single quotes, a quote inside
// written twice ("it's" -> 'it''s').
std::string QuoteFilterArgument(std::string_view s);

// Runs `filter` over the rows of one scan, given in scan order (descending
// keys when `reversed`, as HBase's reversed scan, which PrefixFilter and
// InclusiveStopFilter take into account). Each row must hold cells sorted
// by column (model/rows.h). Not thread-safe; cheap to construct.
class FilterScan {
 public:
  explicit FilterScan(const Filter& filter, bool reversed = false);
  ~FilterScan();
  FilterScan(const FilterScan&) = delete;
  FilterScan& operator=(const FilterScan&) = delete;

  struct Result {
    std::optional<Row> row;  // as the filter returns it; nullopt: dropped
    // The scan ends after this row (a WHILE failed, or a PrefixFilter or
    // InclusiveStopFilter on the scan's path was passed): no later row of
    // the scan is returned. Only WHILE makes this matter for the answer;
    // for the others every later row would be dropped anyway.
    bool ends_scan = false;
  };
  // `row` through the filter. After a result with ends_scan, the caller
  // stops (Next keeps answering per row regardless).
  Result Next(const Row& row);

 private:
  class Impl;
  std::unique_ptr<Impl> impl_;
};

// The row as the filter returns it for a Get of that row (cells kept,
// values possibly transformed), or nullopt when the filter drops it: one
// row through a FilterScan. PageFilter is not applied here (see FilterPlan).
std::optional<Row> ApplyFilter(const Filter& filter, const Row& row);

// Whether the filter holds a WHILE: a scan must then see every row of its
// range in order through one FilterScan (region servers cannot end the
// whole scan), so callers run it where the rows are merged.
bool FilterEndsScans(const Filter& filter);

// How to answer a scan with `filter`.
struct FilterPlan {
  // Empty: a full scan, the filter on every row. Otherwise an index plan:
  // the candidate rows are those holding every equality of at least one
  // entry (a union of conjunctive lookups); every row the filter returns is
  // a candidate, so the filter on the candidates in key order gives exactly
  // the full scan's answer.
  std::vector<std::vector<EqualityPredicate>> lookups;
  // The same size as `lookups`: prefix predicates (IndexOp::kPrefix) ANDed
  // with the equalities of the same entry, from binaryprefix pins. An entry
  // may hold prefixes and no equality: a lookup by prefix alone, which asks
  // every server holding regions of the table (the global index routes
  // equalities only).
  std::vector<std::vector<IndexPredicate>> prefixes;
  // PageFilter's limit on the rows returned (the smallest of the ANDed
  // ones); nullopt: no limit. Applied after the filter.
  std::optional<uint64_t> row_limit;
  bool uses_index() const { return !lookups.empty(); }
};

// At most this many lookups in a union; a larger OR is planned as a scan.
inline constexpr size_t kMaxPlanLookups = 64;

// Plans `filter` (one ValidateFilter accepts). A SingleColumnValueFilter or
// SingleColumnValueExcludeFilter with op '=', a binary comparator and
// filterIfMissing true on a column for which `indexed` returns true pins the
// rows to that value (its filterRow drops every row whose cell it did not
// see equal); with a non-empty binaryprefix comparator instead, to values
// with that prefix (a prefix predicate); an AND is pinned by all its operands
// pinned to one conjunction (their equalities ANDed) or, when it has none, by
// its pinned union with the fewest lookups; an OR whose every operand is pinned
// is the union of their lookups (at most kMaxPlanLookups). Anything else is a
// full scan, including a filter with WHILE (its end depends on rows the index
// would not read), a pin under SKIP (SkipFilter ignores its operand's
// filterRow, so a row missing the column passes) and the substring and
// regexstring comparators. row_limit: the smallest
// PageFilter reached through ANDs only.
FilterPlan PlanFilter(
    const Filter& filter,
    const std::function<bool(std::string_view column)>& indexed);

}  // namespace bloomroute

#endif  // BLOOMROUTE_MODEL_FILTER_LANGUAGE_H_
