// HBase's filter language (the strings HBase Thrift2 clients send in
// TScan.filterString / TGet.filterString): parsed into a plain AST, evaluated
// on one Row, and planned for the index.
//
//   StatusOr<Filter> f = ParseFilter(
//       "SingleColumnValueFilter('d', 'cc', =, 'binary:NO', true, true)"
//       " AND KeyOnlyFilter()");
//   if (!f.ok()) return f.status();  // InvalidArgument naming the position
//   FilterPlan plan = PlanFilter(*f, is_indexed);
//   // plan.lookups: candidate rows from the index; then, per row:
//   std::optional<Row> out = ApplyFilter(*f, row);
//
// Syntax (as HBase's ParseFilter): `Name(arg, ...)`; string arguments in
// single quotes, a quote inside written twice (''); booleans true/false (any
// case), integers and compare operators (<, <=, =, !=, >=, >) bare; `AND`
// binds tighter than `OR`; parentheses group. Supported filters:
//   SingleColumnValueFilter('family', 'qualifier', op, 'binary:value'
//                           [, filterIfMissing, latestVersionOnly])
//   PrefixFilter('rowprefix')    PageFilter(n)    KeyOnlyFilter()
//   FirstKeyOnlyFilter()         ColumnPrefixFilter('qualifierprefix')
// Other HBase filter names, the SKIP and WHILE operators and comparators
// other than `binary:` are rejected by name.
//
// Semantics (HBase's, on our one-version rows; ApplyFilter):
// - SingleColumnValueFilter: the row passes when the cell family:qualifier
//   exists and `cell value <op> operand` holds, comparing bytes as unsigned
//   lexicographic (HBase's BinaryComparator). A row MISSING the column passes
//   unless filterIfMissing is true. latestVersionOnly changes nothing (one
//   version per cell). All cells of a passing row stay.
// - PrefixFilter: the row passes when its key starts with the prefix (the
//   empty prefix passes every row).
// - PageFilter(n): passes every row in ApplyFilter; the limit is returned by
//   PlanFilter as FilterPlan::row_limit for the caller to apply to the rows
//   that pass the whole filter. HBase applies it per region server (and
//   counts rows in the order its FilterList evaluates), so an HBase client
//   may receive more than n rows; we return at most n.
// - KeyOnlyFilter: every cell stays, its value emptied.
// - FirstKeyOnlyFilter: only the row's first cell (by column) stays.
// - ColumnPrefixFilter('q'): only cells whose qualifier starts with q stay.
// - AND (HBase FilterList MUST_PASS_ALL): every operand passes the row; a
//   cell stays when every operand keeps it, with its value emptied when any
//   operand empties it. Every operand sees the original row.
// - OR (MUST_PASS_ONE): some operand passes the row; the cells are the union
//   of the cells the passing operands keep, a value emptied when any passing
//   operand that keeps the cell empties it (HBase 2 applies the transforms of
//   every operand that included the cell). The rules below keep cell-
//   transforming filters out of OR, so under ParseFilter every passing OR
//   operand keeps all cells and this never arises.
// - A row left with no cell is not returned (as HBase).
//
// The conservative rules (ValidateFilter, applied by ParseFilter). HBase
// evaluates filter lists cell by cell and a filter that skips cells hides them
// from the other operands, which the row-at-a-time model above does not
// reproduce in general. Where the two could differ, we reject the filter
// instead of answering differently:
// - inside an OR only SingleColumnValueFilter, PrefixFilter and AND/OR of
//   them are allowed: KeyOnlyFilter, FirstKeyOnlyFilter, ColumnPrefixFilter
//   and PageFilter inside an OR are "not supported inside OR" (in HBase an OR
//   operand that finally drops the row may still have included cells, and
//   PageFilter counts per operand);
// - FirstKeyOnlyFilter and ColumnPrefixFilter are not supported in the same
//   filter as a SingleColumnValueFilter (in HBase they make the scanner skip
//   the rest of the row, so the value filter may never see its column).
// Under these rules the model gives HBase's rows and cells for every filter
// ParseFilter accepts, PageFilter's per-region counting aside.
#ifndef BLOOMROUTE_MODEL_FILTER_LANGUAGE_H_
#define BLOOMROUTE_MODEL_FILTER_LANGUAGE_H_

#include <cstddef>
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

#include "common/status.h"
#include "common/statusor.h"
#include "model/index_query.h"
#include "model/rows.h"

namespace bloomroute {

// CompareOp is in model/rows.h (shared with RowCondition).

struct SingleColumnValueFilter {
  std::string family;     // non-empty, no ':'
  std::string qualifier;  // may be empty
  CompareOp op = CompareOp::kEqual;
  std::string value;  // the binary: comparator's operand
  bool filter_if_missing = false;
  bool latest_version_only = true;
  std::string column() const { return family + ":" + qualifier; }
  friend bool operator==(const SingleColumnValueFilter& a,
                         const SingleColumnValueFilter& b) {
    return a.family == b.family && a.qualifier == b.qualifier && a.op == b.op &&
           a.value == b.value && a.filter_if_missing == b.filter_if_missing &&
           a.latest_version_only == b.latest_version_only;
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

struct KeyOnlyFilter {
  friend bool operator==(const KeyOnlyFilter&, const KeyOnlyFilter&) {
    return true;
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

struct Filter;

// AND / OR of at least two operands. "A AND B AND C" is one list of three;
// parentheses make a nested list.
struct FilterList {
  enum class Op { kAnd, kOr };
  Op op = Op::kAnd;
  std::vector<Filter> operands;
  friend bool operator==(const FilterList& a, const FilterList& b);
};

struct Filter {
  std::variant<SingleColumnValueFilter, PrefixFilter, PageFilter, KeyOnlyFilter,
               FirstKeyOnlyFilter, ColumnPrefixFilter, FilterList>
      node;
  friend bool operator==(const Filter& a, const Filter& b) {
    return a.node == b.node;
  }
};

inline bool operator==(const FilterList& a, const FilterList& b) {
  return a.op == b.op && a.operands == b.operands;
}

// Bounds on what ParseFilter accepts; each error names the bound.
struct FilterLimits {
  size_t max_text_bytes = 64 * 1024;  // of the filter string
  size_t max_depth = 64;              // nested parentheses
  size_t max_filters = 1000;          // filters (leaves) in the expression
};

// Parses `text`. InvalidArgument, its message starting "at position N:" (N the
// 0-based byte offset) for a syntax error, naming the filter for an HBase
// filter we do not support, naming the comparator for one other than binary:,
// naming the limit when one of `limits` is exceeded, and ValidateFilter's
// errors. Never reads outside `text`; recursion is bounded by max_depth.
[[nodiscard]] StatusOr<Filter> ParseFilter(std::string_view text,
                                           const FilterLimits& limits = {});

// InvalidArgument when `filter` breaks one of the conservative rules above
// (or has a FilterList with fewer than two operands, or a family that is
// empty or holds ':'); OK otherwise.
[[nodiscard]] Status ValidateFilter(const Filter& filter);

// The filter in the language; ParseFilter(ToString(f)) == f for every f that
// ValidateFilter accepts. Optional SingleColumnValueFilter arguments are
// always written; nested lists are parenthesized.
std::string ToString(const Filter& filter);

// The row as the filter returns it (cells kept, values possibly emptied), or
// nullopt when the filter drops it. `row` must hold cells sorted by column
// (model/rows.h). Pure: PageFilter is not applied here (see FilterPlan).
std::optional<Row> ApplyFilter(const Filter& filter, const Row& row);

// How to answer a scan with `filter`.
struct FilterPlan {
  // Empty: a full scan, ApplyFilter on every row. Otherwise an index plan:
  // the candidate rows are those holding every equality of at least one
  // entry (a union of conjunctive lookups); every row the filter returns is
  // a candidate, so ApplyFilter on the candidates in key order gives exactly
  // the full scan's answer.
  std::vector<std::vector<EqualityPredicate>> lookups;
  // PageFilter's limit on the rows returned (the smallest of the ANDed
  // ones); nullopt: no limit. Applied after ApplyFilter.
  std::optional<uint64_t> row_limit;
  bool uses_index() const { return !lookups.empty(); }
};

// At most this many lookups in a union; a larger OR is planned as a scan.
inline constexpr size_t kMaxPlanLookups = 64;

// Plans `filter` (one ValidateFilter accepts). A SingleColumnValueFilter with
// op '=' and filterIfMissing true on a column for which `indexed` returns true
// pins the rows to that value; an AND is pinned by all its operands pinned
// to one conjunction (their equalities ANDed) or, when it has none, by its
// pinned union with the fewest lookups; an OR whose every operand is pinned
// is the union of their lookups (at most kMaxPlanLookups). Anything else is
// a full scan. row_limit: the smallest PageFilter reached through ANDs only.
FilterPlan PlanFilter(
    const Filter& filter,
    const std::function<bool(std::string_view column)>& indexed);

}  // namespace bloomroute

#endif  // BLOOMROUTE_MODEL_FILTER_LANGUAGE_H_
