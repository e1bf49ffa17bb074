#include "model/index_query.h"

#include <algorithm>
#include <string_view>

namespace bloomroute {

namespace {

// Adds one value to the query's totals; InvalidArgument past a bound.
Status CountPredicateValue(std::string_view value, size_t* values,
                           size_t* bytes) {
  if (++*values > kMaxIndexPredicateValues) {
    return Status::InvalidArgument(
        "an index query has more than " +
        std::to_string(kMaxIndexPredicateValues) +
        " values in its predicates (kMaxIndexPredicateValues)");
  }
  *bytes += value.size();
  if (*bytes > kMaxIndexPredicateBytes) {
    return Status::InvalidArgument(
        "the values of an index query's predicates exceed " +
        std::to_string(kMaxIndexPredicateBytes) +
        " bytes (kMaxIndexPredicateBytes)");
  }
  return Status::OK();
}

Status ValidateRangeValues(const RangePredicate& r, size_t* values,
                           size_t* bytes) {
  BLOOMROUTE_RETURN_IF_ERROR(ValidateColumnName(r.column));
  if (r.lower) {
    BLOOMROUTE_RETURN_IF_ERROR(CountPredicateValue(*r.lower, values, bytes));
  }
  if (r.upper) {
    BLOOMROUTE_RETURN_IF_ERROR(CountPredicateValue(*r.upper, values, bytes));
  }
  return Status::OK();
}

}  // namespace

Status ValidateIndexPredicates(const IndexQuery& q) {
  const size_t predicates =
      q.equals.size() + q.in.size() + q.ranges.size() + (q.range ? 1 : 0);
  if (predicates == 0) {
    return Status::InvalidArgument("index query has no predicate");
  }
  if (predicates > kMaxIndexPredicates) {
    return Status::InvalidArgument("index query has more than " +
                                   std::to_string(kMaxIndexPredicates) +
                                   " predicates (kMaxIndexPredicates)");
  }
  size_t values = 0, bytes = 0;
  for (const EqualityPredicate& p : q.equals) {
    BLOOMROUTE_RETURN_IF_ERROR(ValidateColumnName(p.column));
    BLOOMROUTE_RETURN_IF_ERROR(CountPredicateValue(p.value, &values, &bytes));
  }
  for (const InPredicate& p : q.in) {
    BLOOMROUTE_RETURN_IF_ERROR(ValidateColumnName(p.column));
    if (p.values.empty()) {
      return Status::InvalidArgument("the IN list on " +
                                     QuoteForMessage(p.column) + " is empty");
    }
    for (const std::string& v : p.values) {
      BLOOMROUTE_RETURN_IF_ERROR(CountPredicateValue(v, &values, &bytes));
    }
    std::vector<std::string_view> sorted(p.values.begin(), p.values.end());
    std::sort(sorted.begin(), sorted.end());
    auto dup = std::adjacent_find(sorted.begin(), sorted.end());
    if (dup != sorted.end()) {
      return Status::InvalidArgument(
          "the IN list on " + QuoteForMessage(p.column) + " has the value " +
          QuoteForMessage(*dup) + " twice");
    }
  }
  if (q.range) {
    BLOOMROUTE_RETURN_IF_ERROR(ValidateRangeValues(*q.range, &values, &bytes));
  }
  for (const RangePredicate& r : q.ranges) {
    BLOOMROUTE_RETURN_IF_ERROR(ValidateRangeValues(r, &values, &bytes));
  }
  return Status::OK();
}

}  // namespace bloomroute
