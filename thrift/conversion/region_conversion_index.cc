// The region service's index queries and their results on the wire
// (declared in thrift/conversion/region_conversion.h).
#include <string>
#include <utility>
#include <vector>

#include "thrift/conversion/region_conversion.h"
#include "thrift/internal/checked_conversion.h"
#include "thrift/internal/region_timestamp_conversion.h"

namespace bloomroute {
namespace {

using thrift_internal::At;
using thrift_internal::kBadRequest;
using thrift_internal::kBadResult;
using thrift_internal::Narrow;
using thrift_internal::Require;
using thrift_internal::RequireAll;
using thrift_internal::Widen;

// The IN lists and ranges of fields 10 and 11, bounded before any copy: at
// most kMaxIndexPredicates predicates (with field 3's) and
// kMaxIndexPredicateValues values; the byte bound and the rest are checked
// by ValidateIndexPredicates.
Status MorePredicatesFromThrift(const rpc::TIndexQuery& in, IndexQuery* out) {
  out->in.clear();
  out->ranges.clear();
  if (in.equals.size() + in.inLists.size() + in.ranges.size() >
      kMaxIndexPredicates) {
    return Status::InvalidArgument("query has more than " +
                                   std::to_string(kMaxIndexPredicates) +
                                   " predicates (kMaxIndexPredicates)");
  }
  for (size_t i = 0; i < in.inLists.size(); ++i) {
    const std::string f = At("query.inLists", i);
    const rpc::TInPredicate& p = in.inLists[i];
    BLOOMROUTE_RETURN_IF_ERROR(
        Require(p.__isset.column, kBadRequest, f + ".column"));
    if (p.values.size() > kMaxIndexPredicateValues) {
      return Status::InvalidArgument(f + " has more than " +
                                     std::to_string(kMaxIndexPredicateValues) +
                                     " values (kMaxIndexPredicateValues)");
    }
    out->in.push_back(InPredicate{p.column, p.values});
  }
  for (size_t i = 0; i < in.ranges.size(); ++i) {
    const std::string f = At("query.ranges", i);
    const rpc::TRangePredicate& p = in.ranges[i];
    BLOOMROUTE_RETURN_IF_ERROR(
        Require(p.__isset.column, kBadRequest, f + ".column"));
    RangePredicate range;
    range.column = p.column;
    if (p.__isset.lower) range.lower = p.lower;
    if (p.__isset.upper) range.upper = p.upper;
    out->ranges.push_back(std::move(range));
  }
  out->count_only = in.__isset.countOnly && in.countOnly;
  if (out->in.empty() && out->ranges.empty()) return Status::OK();
  return ValidateIndexPredicates(*out);
}

}  // namespace

Status FromThrift(const rpc::TIndexQuery& in, IndexQuery* out) {
  BLOOMROUTE_RETURN_IF_ERROR(RequireAll(
      kBadRequest, "query",
      {{in.__isset.tableId, ".tableId"}, {in.__isset.limit, ".limit"}}));
  BLOOMROUTE_RETURN_IF_ERROR(
      Narrow(in.tableId, kBadRequest, "query.tableId", &out->table_id));
  BLOOMROUTE_RETURN_IF_ERROR(
      Narrow(in.limit, kBadRequest, "query.limit", &out->limit));
  out->region_ids.assign(in.regionIds.size(), 0);
  for (size_t i = 0; i < in.regionIds.size(); ++i) {
    BLOOMROUTE_RETURN_IF_ERROR(Narrow(in.regionIds[i], kBadRequest,
                                      At("query.regionIds", i),
                                      &out->region_ids[i]));
  }
  out->equals.clear();
  for (size_t i = 0; i < in.equals.size(); ++i) {
    const std::string f = At("query.equals", i);
    const rpc::TEqualityPredicate& p = in.equals[i];
    BLOOMROUTE_RETURN_IF_ERROR(RequireAll(
        kBadRequest, f,
        {{p.__isset.column, ".column"}, {p.__isset.value, ".value"}}));
    out->equals.push_back(EqualityPredicate{p.column, p.value});
  }
  out->range.reset();
  if (in.__isset.range) {
    BLOOMROUTE_RETURN_IF_ERROR(
        Require(in.range.__isset.column, kBadRequest, "query.range.column"));
    RangePredicate range;
    range.column = in.range.column;
    if (in.range.__isset.lower) range.lower = in.range.lower;
    if (in.range.__isset.upper) range.upper = in.range.upper;
    out->range = std::move(range);
  }
  BLOOMROUTE_RETURN_IF_ERROR(MorePredicatesFromThrift(in, out));
  out->columns = in.columns;
  out->after_row.reset();
  if (in.__isset.afterRow) out->after_row = in.afterRow;
  out->max_bytes = 0;
  if (in.__isset.maxBytes) {
    BLOOMROUTE_RETURN_IF_ERROR(
        Narrow(in.maxBytes, kBadRequest, "query.maxBytes", &out->max_bytes));
  }
  return thrift_internal::TimeRangeFromThrift(
      in.__isset.timeRange, in.timeRange, "query.timeRange", &out->time_range);
}

Status ToThrift(const IndexQuery& in, rpc::TIndexQuery* out) {
  int64_t table_id = 0;
  int32_t limit = 0;
  BLOOMROUTE_RETURN_IF_ERROR(Widen(in.table_id, "query.table_id", &table_id));
  BLOOMROUTE_RETURN_IF_ERROR(Widen(in.limit, "query.limit", &limit));
  out->__set_tableId(table_id);
  out->__set_limit(limit);
  std::vector<int64_t> region_ids(in.region_ids.size());
  for (size_t i = 0; i < in.region_ids.size(); ++i) {
    BLOOMROUTE_RETURN_IF_ERROR(
        Widen(in.region_ids[i], At("query.region_ids", i), &region_ids[i]));
  }
  out->__set_regionIds(std::move(region_ids));
  std::vector<rpc::TEqualityPredicate> equals(in.equals.size());
  for (size_t i = 0; i < in.equals.size(); ++i) {
    equals[i].__set_column(in.equals[i].column);
    equals[i].__set_value(in.equals[i].value);
  }
  out->__set_equals(std::move(equals));
  if (in.range) {
    rpc::TRangePredicate range;
    range.__set_column(in.range->column);
    if (in.range->lower) range.__set_lower(*in.range->lower);
    if (in.range->upper) range.__set_upper(*in.range->upper);
    out->__set_range(std::move(range));
  }
  if (!in.in.empty()) {
    std::vector<rpc::TInPredicate> lists(in.in.size());
    for (size_t i = 0; i < in.in.size(); ++i) {
      lists[i].__set_column(in.in[i].column);
      lists[i].__set_values(in.in[i].values);
    }
    out->__set_inLists(std::move(lists));
  }
  if (!in.ranges.empty()) {
    std::vector<rpc::TRangePredicate> ranges(in.ranges.size());
    for (size_t i = 0; i < in.ranges.size(); ++i) {
      ranges[i].__set_column(in.ranges[i].column);
      if (in.ranges[i].lower) ranges[i].__set_lower(*in.ranges[i].lower);
      if (in.ranges[i].upper) ranges[i].__set_upper(*in.ranges[i].upper);
    }
    out->__set_ranges(std::move(ranges));
  }
  if (in.count_only) out->__set_countOnly(true);
  out->__set_columns(in.columns);
  if (in.after_row) out->__set_afterRow(*in.after_row);
  if (in.max_bytes != 0) {
    int64_t max_bytes = 0;
    BLOOMROUTE_RETURN_IF_ERROR(
        Widen(in.max_bytes, "query.max_bytes", &max_bytes));
    out->__set_maxBytes(max_bytes);
  }
  if (auto range = thrift_internal::TimeRangeToThrift(in.time_range)) {
    out->__set_timeRange(*range);
  }
  return Status::OK();
}

Status ToThrift(const IndexQueryResult& in, rpc::TIndexQueryResult* out) {
  IndexQueryResult copy = in;
  return ToThrift(std::move(copy), out);
}

Status ToThrift(IndexQueryResult&& in, rpc::TIndexQueryResult* out) {
  thrift_internal::MoveResultRowsToThrift(std::move(in.rows), &out->rows);
  out->__isset.rows = true;
  out->__set_truncated(in.truncated);
  if (in.resume_after) out->__set_resumeAfter(*in.resume_after);
  if (in.count != 0) {
    int64_t count = 0;
    BLOOMROUTE_RETURN_IF_ERROR(Widen(in.count, "result.count", &count));
    out->__set_count(count);
  }
  return Status::OK();
}

Status FromThrift(const rpc::TIndexQueryResult& in, IndexQueryResult* out) {
  rpc::TIndexQueryResult copy = in;
  return FromThrift(std::move(copy), out);
}

Status FromThrift(rpc::TIndexQueryResult&& in, IndexQueryResult* out) {
  BLOOMROUTE_RETURN_IF_ERROR(thrift_internal::RowsFromThrift(
      std::move(in.rows), "result.rows", &out->rows));
  // The moved-from cells keep their timestamps.
  BLOOMROUTE_RETURN_IF_ERROR(thrift_internal::ResultTimestampsFromThrift(
      in.rows, "result.rows", &out->rows));
  out->truncated = in.truncated;
  out->resume_after.reset();
  if (in.__isset.resumeAfter) out->resume_after = in.resumeAfter;
  out->count = 0;
  if (in.__isset.count) {
    BLOOMROUTE_RETURN_IF_ERROR(
        Narrow(in.count, kBadResult, "result.count", &out->count));
  }
  return Status::OK();
}

}  // namespace bloomroute
