// Index queries: the predicates a lookup by indexed columns is made of, and
// the query a region server answers from its local inverted index (the
// router's LookupSpec is built from the same predicates).
#ifndef BLOOMROUTE_MODEL_INDEX_QUERY_H_
#define BLOOMROUTE_MODEL_INDEX_QUERY_H_

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "common/status.h"
#include "model/rows.h"

namespace bloomroute {

struct EqualityPredicate {
  std::string column;  // an indexed column
  std::string value;
};

// column in {values}: 1 to kMaxInValues distinct values.
struct InPredicate {
  std::string column;  // an indexed column
  std::vector<std::string> values;
};

// column in [lower, upper) in byte order; an unset bound is open. Other
// bounds map onto this form exactly (model/index_predicate.h): `> v` and
// `<= v` use v + '\0', the next value in byte order; a prefix P is
// [P, PrefixSuccessor(P)). lower >= upper matches nothing (not an error).
struct RangePredicate {
  std::string column;                // an indexed column
  std::optional<std::string> lower;  // inclusive
  std::optional<std::string> upper;  // exclusive
};

// A conjunction: every equality, IN list and range must hold. At least one
// predicate; at most kMaxIndexPredicates in all, whose values (equalities',
// IN lists', range bounds') hold at most kMaxIndexPredicateValues values
// and kMaxIndexPredicateBytes bytes.
//
// The region server drives the lookup from the most selective equality or
// IN list (fewest rows on the server; an IN's count is the sum of its
// values'), merging an IN's per-value index streams (each in row order), so
// the answer is in row-key order; the other predicates are checked by index
// point lookups (equalities) or on the row. A range (or ranges) alone is
// answered in row-key order too: per region its index entries are scanned
// keeping the `limit` smallest row keys, or, when the region's range holds
// more entries than half the work left, the region's rows are scanned in
// key order. Either way the answer is an exact prefix by row key.
struct IndexQuery {
  uint64_t table_id = 0;
  // Regions of the table to search; empty = every open region of the table
  // on this server.
  std::vector<uint64_t> region_ids;
  std::vector<EqualityPredicate> equals;
  std::optional<RangePredicate> range;
  uint32_t limit = 0;  // rows, in [1, kMaxRowsPerCall]
  Projection columns;
  // Only rows whose key sorts after this one (a lookup resumed where an
  // earlier answer stopped).
  std::optional<std::string> after_row;
  // Reply bytes, about, as ScanRequest::max_bytes. 0 = the server's own.
  uint64_t max_bytes = 0;
  // Only cells in the range count: a row matches when its cells in the
  // range satisfy every predicate (what a scan of the range, kept to rows
  // whose cells equal the values, returns), and only those are returned.
  TimeRange time_range = TimeRange();
  std::vector<InPredicate> in = {};
  // More ranges, ANDed with `range` (on the same or other columns).
  std::vector<RangePredicate> ranges = {};
  // Count the matching rows (IndexQueryResult::count) instead of returning
  // them: no rows, and neither `limit` nor the reply budget stops the
  // count (only the work bound does).
  bool count_only = false;
};

struct IndexQueryResult {
  // By row key (the regions are searched in key order), whatever the
  // predicates. A matching row is always returned, with the projected cells
  // it has (possibly none). Empty with count_only.
  std::vector<Row> rows;
  // The answer stopped early: the limit, the reply byte budget or the
  // server's work bound (rows examined, bytes read). `rows` are every match
  // up to and including resume_after, and the rest sort after it.
  bool truncated = false;
  // Set when truncated: the last row key the answer covers -- the last row
  // returned, or a later key examined when the work bound stopped the
  // search (possibly with no row). Pass it as IndexQuery::after_row to
  // continue.
  std::optional<std::string> resume_after;
  // count_only: the number of matching rows up to resume_after (all of
  // them when not truncated).
  uint64_t count = 0;
};

// One index query (IndexQuery, the router's LookupSpec): predicates, and
// values in them (an equality is one, an IN list its count, a range its
// bounds) and their bytes.
inline constexpr size_t kMaxIndexPredicates = 64;
inline constexpr size_t kMaxIndexPredicateValues = 1024;
inline constexpr size_t kMaxIndexPredicateBytes = 1 << 20;

// InvalidArgument, naming the limit, unless the query's predicates are 1 to
// kMaxIndexPredicates, each on a valid column name, every IN list has 1 to
// kMaxIndexPredicateValues distinct values, and the values and bounds of
// all predicates are at most kMaxIndexPredicateValues values and
// kMaxIndexPredicateBytes bytes. Whether the columns are indexed is the
// caller's to check.
Status ValidateIndexPredicates(const IndexQuery& query);

}  // namespace bloomroute

#endif  // BLOOMROUTE_MODEL_INDEX_QUERY_H_
