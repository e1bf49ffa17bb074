// One predicate of an index query as users state it (the router's
// LookupSpec::where, the Thrift TIndexPredicate, the CLI's --where/--in/
// --prefix), and its exact translation to the region server's forms
// (model/index_query.h: EqualityPredicate, InPredicate, RangePredicate).
//
// Every kind maps onto [lower, upper) in byte order with no loss:
//   kLess v          [ , v)
//   kLessOrEqual v   [ , v + '\0')      v + '\0' is v's successor in byte order
//   kGreater v       [v + '\0', )
//   kGreaterOrEqual  [v, )
//   kBetween a b     [a, b + '\0')      both ends included, as SQL's BETWEEN
//   kPrefix P        [P, PrefixSuccessor(P)), or [P, ) when P is all 0xFF
// kEqual is an EqualityPredicate and kIn an InPredicate. A range whose lower
// bound is not below its upper (e.g. BETWEEN 'b' AND 'a') matches nothing.
//
// Usage:
//   IndexQuery q;
//   Status s = AddToQuery({"d:country", IndexOp::kIn, {"NO", "SE"}}, &q);
#ifndef BLOOMROUTE_MODEL_INDEX_PREDICATE_H_
#define BLOOMROUTE_MODEL_INDEX_PREDICATE_H_

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "common/status.h"
#include "model/index_query.h"

namespace bloomroute {

// The values are those of TIndexOperator on the router's wire; never
// renumber them.
enum class IndexOp : int32_t {
  kEqual = 0,
  kIn = 1,
  kLess = 2,
  kLessOrEqual = 3,
  kGreater = 4,
  kGreaterOrEqual = 5,
  kPrefix = 6,
  kBetween = 7,
};
inline constexpr int32_t kIndexOpCount = 8;

struct IndexPredicate {
  std::string column;  // "family:qualifier", an indexed column
  IndexOp op = IndexOp::kEqual;
  // kIn: 1 or more distinct values; kBetween: exactly 2 (low, high); every
  // other kind exactly 1 (kPrefix: a non-empty prefix).
  std::vector<std::string> values;
  friend bool operator==(const IndexPredicate& a, const IndexPredicate& b) {
    return a.column == b.column && a.op == b.op && a.values == b.values;
  }
};

// "=", "in", "<", "<=", ">", ">=", "prefix", "between"; "?" for a value
// outside the enum.
std::string_view IndexOpName(IndexOp op);

// Appends the predicate to `query` in the region server's forms (above).
// InvalidArgument naming the column for an operator outside the enum, or a
// wrong number of values for the operator, or an empty prefix. The limits
// on values and bytes are ValidateIndexPredicates' (model/index_query.h).
Status AddToQuery(const IndexPredicate& predicate, IndexQuery* query);

// The smallest string greater than every string with this prefix, or
// nullopt when there is none (all bytes 0xFF, or empty).
std::optional<std::string> PrefixUpperBound(std::string_view prefix);

}  // namespace bloomroute

#endif  // BLOOMROUTE_MODEL_INDEX_PREDICATE_H_
