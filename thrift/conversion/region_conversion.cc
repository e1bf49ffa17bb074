#include "thrift/conversion/region_conversion.h"

#include <string>
#include <tuple>
#include <utility>

#include "thrift/internal/checked_conversion.h"
#include "thrift/internal/enum_map.h"
#include "thrift/internal/filter_config_conversion.h"
#include "thrift/internal/region_timestamp_conversion.h"

namespace bloomroute {
namespace {

using thrift_internal::At;
using thrift_internal::FailFn;
using thrift_internal::kBadRequest;
using thrift_internal::kBadResult;
using thrift_internal::Narrow;
using thrift_internal::Require;
using thrift_internal::RequireAll;
using thrift_internal::Widen;

constexpr thrift_internal::EnumMap<Mutation::Kind, 4> kMutationKinds(
    {{{Mutation::Kind::kPut, rpc::TMutationType::PUT},
      {Mutation::Kind::kDelete, rpc::TMutationType::DELETE},
      {Mutation::Kind::kAppend, rpc::TMutationType::APPEND},
      {Mutation::Kind::kIncrement, rpc::TMutationType::INCREMENT}}},
    "{field} has no such value ({value})");

constexpr thrift_internal::EnumMap<CompareOp, 6> kCompareOps(
    {{{CompareOp::kLess, rpc::TCompareOp::LESS},
      {CompareOp::kLessOrEqual, rpc::TCompareOp::LESS_OR_EQUAL},
      {CompareOp::kEqual, rpc::TCompareOp::EQUAL},
      {CompareOp::kNotEqual, rpc::TCompareOp::NOT_EQUAL},
      {CompareOp::kGreaterOrEqual, rpc::TCompareOp::GREATER_OR_EQUAL},
      {CompareOp::kGreater, rpc::TCompareOp::GREATER}}},
    "{field} has no such value ({value})");

constexpr thrift_internal::EnumMap<FilterOp::Kind, 2> kFilterOpKinds(
    {{{FilterOp::Kind::kInsert, rpc::TFilterOpKind::INSERT},
      {FilterOp::Kind::kRemove, rpc::TFilterOpKind::REMOVE}}},
    "{field} has no such value ({value})");

// A scan's filter text within kMaxFilterTextBytes.
Status CheckFilterBytes(const std::string& filter, FailFn fail) {
  if (filter.size() <= kMaxFilterTextBytes) return Status::OK();
  return fail("scan.filter is " + std::to_string(filter.size()) +
              " bytes, over the limit of " +
              std::to_string(kMaxFilterTextBytes) + " (filter text bytes)");
}

// ---- Tables and regions (requests and ListRegions results) ----

Status RegionFromThrift(const rpc::TRegionDescriptor& in, FailFn fail,
                        const std::string& f, RegionDescriptor* out) {
  BLOOMROUTE_RETURN_IF_ERROR(RequireAll(
      fail, f,
      {{in.__isset.regionId, ".regionId"}, {in.__isset.table, ".table"}}));
  BLOOMROUTE_RETURN_IF_ERROR(
      Narrow(in.regionId, fail, f + ".regionId", &out->region_id));
  BLOOMROUTE_RETURN_IF_ERROR(
      TableFromThrift(in.table, fail, f + ".table", &out->table));
  out->start_key = in.startKey;
  out->end_key = in.endKey;
  return Status::OK();
}

Status RegionToThrift(const RegionDescriptor& in, rpc::TRegionDescriptor* out) {
  int64_t region_id = 0;
  BLOOMROUTE_RETURN_IF_ERROR(Widen(in.region_id, "region_id", &region_id));
  out->__set_regionId(region_id);
  rpc::TTableDescriptor table;
  BLOOMROUTE_RETURN_IF_ERROR(TableToThrift(in.table, &table));
  out->__set_table(std::move(table));
  out->__set_startKey(in.start_key);
  out->__set_endKey(in.end_key);
  return Status::OK();
}

// ---- Rows ----

using thrift_internal::CellsFromThrift;

std::vector<rpc::TColumnValue> CellsToThrift(const std::vector<Cell>& in) {
  return thrift_internal::CellsToThrift<rpc::TColumnValue>(in);
}

using thrift_internal::RowsFromThrift;
using thrift_internal::StageFromThrift;

// ---- Mutations ----

Status ConditionFromThrift(const rpc::TCondition& in, const std::string& f,
                           RowCondition* out) {
  BLOOMROUTE_RETURN_IF_ERROR(RequireAll(
      kBadRequest, f,
      {{in.__isset.column, ".column"}, {in.__isset.compareOp, ".compareOp"}}));
  BLOOMROUTE_ASSIGN_OR_RETURN(
      out->op,
      kCompareOps.FromThrift(in.compareOp, kBadRequest, f + ".compareOp"));
  out->column = in.column;
  out->value.reset();
  if (in.__isset.value) out->value = in.value;
  return Status::OK();
}

Status IncrementsFromThrift(const std::vector<rpc::TColumnIncrement>& in,
                            const std::string& f,
                            std::vector<ColumnIncrement>* out) {
  out->assign(in.size(), ColumnIncrement());
  for (size_t i = 0; i < in.size(); ++i) {
    const std::string fi = At(f, i);
    BLOOMROUTE_RETURN_IF_ERROR(RequireAll(kBadRequest, fi,
                                          {{in[i].__isset.column, ".column"},
                                           {in[i].__isset.amount, ".amount"}}));
    (*out)[i] = ColumnIncrement{in[i].column, in[i].amount};
  }
  return Status::OK();
}

// Each type carries only its own fields: a PUT with increments or an
// INCREMENT with cells is a client bug, not something to ignore.
Status MutationFieldsFromThrift(const rpc::TMutation& in, const std::string& f,
                                Mutation* out) {
  const bool cells = !in.columnValues.empty();
  const bool columns = !in.columns.empty();
  const bool increments = !in.increments.empty();
  // An i32 on the wire: any value may arrive.
  BLOOMROUTE_ASSIGN_OR_RETURN(
      out->kind, kMutationKinds.FromThrift(in.type, kBadRequest, f + ".type"));
  switch (out->kind) {
    case Mutation::Kind::kPut:
    case Mutation::Kind::kAppend: {
      const char* name =
          out->kind == Mutation::Kind::kPut ? " is a PUT" : " is an APPEND";
      if (columns)
        return Status::InvalidArgument(f + name + " with columns to delete");
      if (increments)
        return Status::InvalidArgument(f + name + " with increments");
      BLOOMROUTE_RETURN_IF_ERROR(CellsFromThrift(
          in.columnValues, kBadRequest, f + ".columnValues", &out->cells));
      BLOOMROUTE_RETURN_IF_ERROR(thrift_internal::CellTimestampsFromThrift(
          in.columnValues, f + ".columnValues", &out->cells));
      return thrift_internal::MutationTimestampsFromThrift(in, f, out);
    }
    case Mutation::Kind::kDelete:
      if (cells)
        return Status::InvalidArgument(f + " is a DELETE with cells to put");
      if (increments)
        return Status::InvalidArgument(f + " is a DELETE with increments");
      out->columns = in.columns;
      return thrift_internal::MutationTimestampsFromThrift(in, f, out);
    case Mutation::Kind::kIncrement:
      if (cells)
        return Status::InvalidArgument(f +
                                       " is an INCREMENT with cells to put");
      if (columns)
        return Status::InvalidArgument(
            f + " is an INCREMENT with columns to delete");
      BLOOMROUTE_RETURN_IF_ERROR(IncrementsFromThrift(
          in.increments, f + ".increments", &out->increments));
      return thrift_internal::MutationTimestampsFromThrift(in, f, out);
  }
  return Status::InvalidArgument(f + ".type has no such value (" +
                                 std::to_string(in.type) + ")");
}

Status MutationFromThrift(const rpc::TMutation& in, const std::string& f,
                          Mutation* out) {
  BLOOMROUTE_RETURN_IF_ERROR(RequireAll(kBadRequest, f,
                                        {{in.__isset.type, ".type"},
                                         {in.__isset.regionId, ".regionId"},
                                         {in.__isset.row, ".row"}}));
  BLOOMROUTE_RETURN_IF_ERROR(
      Narrow(in.regionId, kBadRequest, f + ".regionId", &out->region_id));
  out->row_key = in.row;
  out->condition.reset();
  if (in.__isset.condition) {
    BLOOMROUTE_RETURN_IF_ERROR(ConditionFromThrift(
        in.condition, f + ".condition", &out->condition.emplace()));
  }
  return MutationFieldsFromThrift(in, f, out);
}

rpc::TMutation MutationToThrift(const Mutation& in, int64_t region_id) {
  rpc::TMutation m;
  m.__set_regionId(region_id);
  m.__set_row(in.row_key);
  m.__set_type(kMutationKinds.ToThrift(in.kind));
  switch (in.kind) {
    case Mutation::Kind::kPut:
      m.__set_columnValues(CellsToThrift(in.cells));
      thrift_internal::CellTimestampsToThrift(in.cells, &m.columnValues);
      break;
    case Mutation::Kind::kDelete:
      m.__set_columns(in.columns);
      break;
    case Mutation::Kind::kAppend:
      m.__set_columnValues(CellsToThrift(in.cells));
      thrift_internal::CellTimestampsToThrift(in.cells, &m.columnValues);
      break;
    case Mutation::Kind::kIncrement: {
      std::vector<rpc::TColumnIncrement> increments(in.increments.size());
      for (size_t i = 0; i < in.increments.size(); ++i) {
        increments[i].__set_column(in.increments[i].column);
        increments[i].__set_amount(in.increments[i].amount);
      }
      m.__set_increments(std::move(increments));
      break;
    }
  }
  if (in.condition) {
    rpc::TCondition c;
    c.__set_column(in.condition->column);
    c.__set_compareOp(kCompareOps.ToThrift(in.condition->op));
    if (in.condition->value) c.__set_value(*in.condition->value);
    m.__set_condition(std::move(c));
  }
  thrift_internal::MutationTimestampsToThrift(in, &m);
  return m;
}

// ---- Filter ops ----

Status OpsToThrift(const std::vector<FilterOp>& in,
                   std::vector<rpc::TFilterOp>* out) {
  out->assign(in.size(), rpc::TFilterOp());
  for (size_t i = 0; i < in.size(); ++i) {
    rpc::TFilterOp& op = (*out)[i];
    int64_t seq = 0;
    int32_t stage = 0;
    BLOOMROUTE_RETURN_IF_ERROR(Widen(in[i].seq, "op seq", &seq));
    BLOOMROUTE_RETURN_IF_ERROR(Widen(in[i].stage, "op stage", &stage));
    op.__set_seq(seq);
    op.__set_kind(kFilterOpKinds.ToThrift(in[i].kind));
    // Bit patterns, not quantities: copied as they are.
    op.__set_hashLow(static_cast<int64_t>(in[i].hash.low));
    op.__set_hashHigh(static_cast<int64_t>(in[i].hash.high));
    op.__set_stage(stage);
    op.__set_mask(static_cast<int64_t>(in[i].mask));  // bits
  }
  return Status::OK();
}

Status OpFromThrift(const rpc::TFilterOp& in, const std::string& f,
                    FilterOp* out) {
  BLOOMROUTE_RETURN_IF_ERROR(RequireAll(kBadResult, f,
                                        {{in.__isset.seq, ".seq"},
                                         {in.__isset.kind, ".kind"},
                                         {in.__isset.hashLow, ".hashLow"},
                                         {in.__isset.hashHigh, ".hashHigh"},
                                         {in.__isset.stage, ".stage"},
                                         {in.__isset.mask, ".mask"}}));
  BLOOMROUTE_RETURN_IF_ERROR(Narrow(in.seq, kBadResult, f + ".seq", &out->seq));
  BLOOMROUTE_RETURN_IF_ERROR(
      Narrow(in.stage, kBadResult, f + ".stage", &out->stage));
  BLOOMROUTE_ASSIGN_OR_RETURN(
      out->kind, kFilterOpKinds.FromThrift(in.kind, kBadResult, f + ".kind"));
  out->hash.low = static_cast<uint64_t>(in.hashLow);
  out->hash.high = static_cast<uint64_t>(in.hashHigh);
  out->mask = static_cast<uint64_t>(in.mask);
  return Status::OK();
}

Status OpsFromThrift(const std::vector<rpc::TFilterOp>& in,
                     const std::string& f, std::vector<FilterOp>* out) {
  return thrift_internal::EachFromThrift(in, f, OpFromThrift, out);
}

}  // namespace

// ---- Requests: server side ----

Status FromThrift(const rpc::TRegionDescriptor& in, RegionDescriptor* out) {
  return RegionFromThrift(in, kBadRequest, "region", out);
}

Status FromThrift(const std::vector<rpc::TMutation>& in,
                  std::vector<Mutation>* out) {
  return thrift_internal::EachFromThrift(in, "mutations", MutationFromThrift,
                                         out);
}

Status FromThrift(const std::vector<rpc::TGet>& in,
                  std::vector<GetRequest>* out) {
  out->assign(in.size(), GetRequest());
  for (size_t i = 0; i < in.size(); ++i) {
    const std::string f = At("gets", i);
    GetRequest& get = (*out)[i];
    BLOOMROUTE_RETURN_IF_ERROR(RequireAll(
        kBadRequest, f,
        {{in[i].__isset.regionId, ".regionId"}, {in[i].__isset.row, ".row"}}));
    BLOOMROUTE_RETURN_IF_ERROR(
        Narrow(in[i].regionId, kBadRequest, f + ".regionId", &get.region_id));
    get.row_key = in[i].row;
    get.columns = in[i].columns;
    BLOOMROUTE_RETURN_IF_ERROR(thrift_internal::TimeRangeFromThrift(
        in[i].__isset.timeRange, in[i].timeRange, f + ".timeRange",
        &get.time_range));
  }
  return Status::OK();
}

Status FromThrift(const rpc::TScan& in, ScanRequest* out) {
  BLOOMROUTE_RETURN_IF_ERROR(RequireAll(
      kBadRequest, "scan",
      {{in.__isset.regionId, ".regionId"}, {in.__isset.limit, ".limit"}}));
  BLOOMROUTE_RETURN_IF_ERROR(
      Narrow(in.regionId, kBadRequest, "scan.regionId", &out->region_id));
  BLOOMROUTE_RETURN_IF_ERROR(
      Narrow(in.limit, kBadRequest, "scan.limit", &out->limit));
  out->start_row = in.startRow;
  out->stop_row = in.stopRow;
  out->columns = in.columns;
  out->max_bytes = 0;
  if (in.__isset.maxBytes) {
    BLOOMROUTE_RETURN_IF_ERROR(
        Narrow(in.maxBytes, kBadRequest, "scan.maxBytes", &out->max_bytes));
  }
  out->filter.clear();
  if (in.__isset.filter) {
    BLOOMROUTE_RETURN_IF_ERROR(CheckFilterBytes(in.filter, kBadRequest));
    out->filter = in.filter;
  }
  out->reversed = in.__isset.reversed && in.reversed;
  return thrift_internal::TimeRangeFromThrift(
      in.__isset.timeRange, in.timeRange, "scan.timeRange", &out->time_range);
}

Status UnsignedFromThrift(int64_t in, const char* field, uint64_t* out) {
  return Narrow(in, kBadRequest, field, out);
}

// ---- Requests: client side ----

Status UnsignedToThrift(uint64_t in, const char* field, int64_t* out) {
  return Widen(in, field, out);
}

Status ToThrift(const RegionDescriptor& in, rpc::TRegionDescriptor* out) {
  return RegionToThrift(in, out);
}

Status ToThrift(const std::vector<Mutation>& in,
                std::vector<rpc::TMutation>* out) {
  out->assign(in.size(), rpc::TMutation());
  for (size_t i = 0; i < in.size(); ++i) {
    int64_t region_id = 0;
    BLOOMROUTE_RETURN_IF_ERROR(
        Widen(in[i].region_id, At("mutations", i) + ".region_id", &region_id));
    (*out)[i] = MutationToThrift(in[i], region_id);
  }
  return Status::OK();
}

Status ToThrift(const std::vector<GetRequest>& in,
                std::vector<rpc::TGet>* out) {
  out->assign(in.size(), rpc::TGet());
  for (size_t i = 0; i < in.size(); ++i) {
    int64_t region_id = 0;
    BLOOMROUTE_RETURN_IF_ERROR(
        Widen(in[i].region_id, At("gets", i) + ".region_id", &region_id));
    (*out)[i].__set_regionId(region_id);
    (*out)[i].__set_row(in[i].row_key);
    (*out)[i].__set_columns(in[i].columns);
    if (auto range = thrift_internal::TimeRangeToThrift(in[i].time_range)) {
      (*out)[i].__set_timeRange(*range);
    }
  }
  return Status::OK();
}

Status ToThrift(const ScanRequest& in, rpc::TScan* out) {
  int64_t region_id = 0;
  int32_t limit = 0;
  BLOOMROUTE_RETURN_IF_ERROR(Widen(in.region_id, "scan.region_id", &region_id));
  BLOOMROUTE_RETURN_IF_ERROR(Widen(in.limit, "scan.limit", &limit));
  out->__set_regionId(region_id);
  out->__set_startRow(in.start_row);
  out->__set_stopRow(in.stop_row);
  out->__set_limit(limit);
  out->__set_columns(in.columns);
  if (in.max_bytes != 0) {
    int64_t max_bytes = 0;
    BLOOMROUTE_RETURN_IF_ERROR(
        Widen(in.max_bytes, "scan.max_bytes", &max_bytes));
    out->__set_maxBytes(max_bytes);
  }
  if (!in.filter.empty()) {
    BLOOMROUTE_RETURN_IF_ERROR(CheckFilterBytes(in.filter, kBadRequest));
    out->__set_filter(in.filter);
  }
  if (auto range = thrift_internal::TimeRangeToThrift(in.time_range)) {
    out->__set_timeRange(*range);
  }
  // Unset when false: the wire of a forward scan is what it was before.
  if (in.reversed) out->__set_reversed(true);
  return Status::OK();
}

// ---- Results: server side ----

Status ToThrift(const std::vector<RegionDescriptor>& in,
                std::vector<rpc::TRegionDescriptor>* out) {
  return thrift_internal::EachToThrift(in, RegionToThrift, out);
}

Status ToThrift(const WriteResult& in, rpc::TWriteResult* out) {
  int64_t epoch = 0;
  BLOOMROUTE_RETURN_IF_ERROR(Widen(in.epoch, "epoch", &epoch));
  out->__set_epoch(epoch);
  int64_t last_seq = 0;
  BLOOMROUTE_RETURN_IF_ERROR(Widen(in.last_seq, "lastSeq", &last_seq));
  out->__set_lastSeq(last_seq);
  out->__set_incarnation(static_cast<int64_t>(in.incarnation));
  if (!in.outcomes.empty()) {
    std::vector<rpc::TMutationOutcome> outcomes(in.outcomes.size());
    for (size_t i = 0; i < in.outcomes.size(); ++i) {
      outcomes[i].__set_applied(in.outcomes[i].applied);
      outcomes[i].__set_cells(CellsToThrift(in.outcomes[i].cells));
      thrift_internal::CellTimestampsToThrift(in.outcomes[i].cells,
                                              &outcomes[i].cells);
    }
    out->__set_outcomes(std::move(outcomes));
  }
  out->__isset.ops = true;
  return OpsToThrift(in.ops, &out->ops);
}

Status ToThrift(const std::vector<std::optional<Row>>& in,
                std::vector<rpc::TResult>* out) {
  *out = thrift_internal::OptionalRowsToThrift<rpc::TResult>(in);
  thrift_internal::ResultTimestampsToThrift(in, out);
  return Status::OK();
}

Status ToThrift(const ScanResult& in, rpc::TScanResult* out) {
  ScanResult copy = in;
  return ToThrift(std::move(copy), out);
}

Status ToThrift(ScanResult&& in, rpc::TScanResult* out) {
  thrift_internal::MoveResultRowsToThrift(std::move(in.rows), &out->rows);
  out->__isset.rows = true;
  if (in.resume_row) out->__set_resumeRow(*in.resume_row);
  return Status::OK();
}

Status ToThrift(const FilterSnapshot& in, rpc::TFilterSnapshot* out) {
  int64_t epoch = 0, last_seq = 0;
  BLOOMROUTE_RETURN_IF_ERROR(Widen(in.epoch, "epoch", &epoch));
  BLOOMROUTE_RETURN_IF_ERROR(Widen(in.last_seq, "last_seq", &last_seq));
  out->__set_epoch(epoch);
  out->__set_lastSeq(last_seq);
  out->__set_filter(in.filter);
  out->__set_incarnation(static_cast<int64_t>(in.incarnation));
  return Status::OK();
}

Status ToThrift(const FilterOpsSince& in, rpc::TFilterOpsSince* out) {
  int64_t epoch = 0, last_seq = 0;
  BLOOMROUTE_RETURN_IF_ERROR(Widen(in.epoch, "epoch", &epoch));
  BLOOMROUTE_RETURN_IF_ERROR(Widen(in.last_seq, "last_seq", &last_seq));
  out->__set_epoch(epoch);
  out->__set_tooOld(in.too_old);
  out->__set_lastSeq(last_seq);
  out->__set_incarnation(static_cast<int64_t>(in.incarnation));
  out->__isset.ops = true;
  return OpsToThrift(in.ops, &out->ops);
}

Status ToThrift(const FilterImagePage& in, rpc::TFilterImagePage* out) {
  int64_t epoch = 0, last_seq = 0, total = 0, offset = 0;
  BLOOMROUTE_RETURN_IF_ERROR(Widen(in.epoch, "epoch", &epoch));
  BLOOMROUTE_RETURN_IF_ERROR(Widen(in.last_seq, "last_seq", &last_seq));
  BLOOMROUTE_RETURN_IF_ERROR(Widen(in.total_bytes, "total_bytes", &total));
  BLOOMROUTE_RETURN_IF_ERROR(Widen(in.offset, "offset", &offset));
  out->__set_epoch(epoch);
  out->__set_lastSeq(last_seq);
  out->__set_incarnation(static_cast<int64_t>(in.incarnation));  // bits
  out->__set_imageId(static_cast<int64_t>(in.image_id));         // bits
  out->__set_totalBytes(total);
  out->__set_offset(offset);
  out->__set_bytes(in.bytes);
  return Status::OK();
}

Status ToThrift(const FilterStatus& in, rpc::TFilterStatus* out) {
  int64_t epoch = 0, last_seq = 0, elements = 0, memory = 0;
  BLOOMROUTE_RETURN_IF_ERROR(Widen(in.epoch, "epoch", &epoch));
  BLOOMROUTE_RETURN_IF_ERROR(Widen(in.last_seq, "last_seq", &last_seq));
  BLOOMROUTE_RETURN_IF_ERROR(Widen(in.stats.elements, "elements", &elements));
  BLOOMROUTE_RETURN_IF_ERROR(
      Widen(in.stats.memory_bytes, "memory_bytes", &memory));
  std::vector<rpc::TStageStats> stages;
  BLOOMROUTE_RETURN_IF_ERROR(
      thrift_internal::StagesToThrift(in.stats.stages, &stages));
  out->__set_incarnation(static_cast<int64_t>(in.incarnation));
  out->__set_epoch(epoch);
  out->__set_lastSeq(last_seq);
  out->__set_stages(std::move(stages));
  out->__set_elements(elements);
  out->__set_estimatedFpr(in.stats.estimated_fpr);
  out->__set_compoundedBound(in.stats.compounded_bound);
  out->__set_memoryBytes(memory);
  rpc::TFilterConfig config;
  BLOOMROUTE_RETURN_IF_ERROR(ToThrift(in.config, &config));
  out->__set_config(std::move(config));
  return Status::OK();
}

Status ToThrift(const IndexReport& in, rpc::TIndexReport* out) {
  int64_t v[8] = {};
  const uint64_t counts[8] = {in.rows,
                              in.index_entries_valid,
                              in.index_entries_missing,
                              in.index_entries_extra,
                              in.values,
                              in.value_counts_wrong,
                              in.values_not_in_filter,
                              in.table_id.value_or(0)};
  for (int i = 0; i < 8; ++i) {
    BLOOMROUTE_RETURN_IF_ERROR(Widen(counts[i], "index report count", &v[i]));
  }
  out->__set_rows(v[0]);
  out->__set_indexEntriesValid(v[1]);
  out->__set_indexEntriesMissing(v[2]);
  out->__set_indexEntriesExtra(v[3]);
  out->__set_values(v[4]);
  out->__set_valueCountsWrong(v[5]);
  out->__set_filterMatchesRebuild(in.filter_matches_rebuild);
  out->__set_problems(in.problems);
  out->__set_ok(in.ok());
  out->__set_valuesNotInFilter(v[6]);
  if (in.table_id.has_value()) out->__set_tableId(v[7]);
  int64_t building = 0;
  BLOOMROUTE_RETURN_IF_ERROR(
      Widen(in.building_columns, "index report count", &building));
  out->__set_buildingColumns(building);
  return Status::OK();
}

// ---- Results: client side ----

Status FromThrift(const std::vector<rpc::TRegionDescriptor>& in,
                  std::vector<RegionDescriptor>* out) {
  out->assign(in.size(), RegionDescriptor());
  for (size_t i = 0; i < in.size(); ++i) {
    BLOOMROUTE_RETURN_IF_ERROR(
        RegionFromThrift(in[i], kBadResult, At("regions", i), &(*out)[i]));
  }
  return Status::OK();
}

namespace {

// Where a filter result stands, which every one carries: the server's
// incarnation (bits, never 0), the filter's epoch and its last op's
// sequence number ("<f>.incarnation", "<f>.epoch", "<f>.lastSeq").
template <typename TFilterResult, typename Position>
Status PositionFromThrift(const TFilterResult& in, const std::string& f,
                          Position* out) {
  if (!in.__isset.incarnation || in.incarnation == 0) {
    return Status::Corruption(f + ".incarnation is missing");
  }
  out->incarnation = static_cast<uint64_t>(in.incarnation);
  BLOOMROUTE_RETURN_IF_ERROR(
      Narrow(in.epoch, kBadResult, f + ".epoch", &out->epoch));
  return Narrow(in.lastSeq, kBadResult, f + ".lastSeq", &out->last_seq);
}

}  // namespace

Status FromThrift(const rpc::TWriteResult& in, WriteResult* out) {
  BLOOMROUTE_RETURN_IF_ERROR(PositionFromThrift(in, "result", out));
  out->outcomes.assign(in.outcomes.size(), MutationOutcome());
  for (size_t i = 0; i < in.outcomes.size(); ++i) {
    const std::string f = At("result.outcomes", i);
    BLOOMROUTE_RETURN_IF_ERROR(
        Require(in.outcomes[i].__isset.applied, kBadResult, f + ".applied"));
    out->outcomes[i].applied = in.outcomes[i].applied;
    BLOOMROUTE_RETURN_IF_ERROR(CellsFromThrift(in.outcomes[i].cells, kBadResult,
                                               f + ".cells",
                                               &out->outcomes[i].cells));
    BLOOMROUTE_RETURN_IF_ERROR(thrift_internal::ResultCellTimestampsFromThrift(
        in.outcomes[i].cells, f + ".cells", &out->outcomes[i].cells));
  }
  return OpsFromThrift(in.ops, "result.ops", &out->ops);
}

Status FromThrift(const std::vector<rpc::TResult>& in,
                  std::vector<std::optional<Row>>* out) {
  BLOOMROUTE_RETURN_IF_ERROR(
      thrift_internal::OptionalRowsFromThrift(in, "results", out));
  return thrift_internal::ResultTimestampsFromThrift(in, "results", out);
}

Status FromThrift(const rpc::TScanResult& in, ScanResult* out) {
  rpc::TScanResult copy = in;
  return FromThrift(std::move(copy), out);
}

Status FromThrift(rpc::TScanResult&& in, ScanResult* out) {
  BLOOMROUTE_RETURN_IF_ERROR(
      RowsFromThrift(std::move(in.rows), "result.rows", &out->rows));
  // The moved-from cells keep their timestamps.
  BLOOMROUTE_RETURN_IF_ERROR(thrift_internal::ResultTimestampsFromThrift(
      in.rows, "result.rows", &out->rows));
  out->resume_row.reset();
  if (in.__isset.resumeRow) out->resume_row = in.resumeRow;
  return Status::OK();
}

Status FromThrift(const rpc::TFilterSnapshot& in, FilterSnapshot* out) {
  BLOOMROUTE_RETURN_IF_ERROR(PositionFromThrift(in, "snapshot", out));
  out->filter = in.filter;
  return Status::OK();
}

Status FromThrift(const rpc::TFilterOpsSince& in, FilterOpsSince* out) {
  BLOOMROUTE_RETURN_IF_ERROR(PositionFromThrift(in, "result", out));
  out->too_old = in.tooOld;
  return OpsFromThrift(in.ops, "result.ops", &out->ops);
}

Status FromThrift(const rpc::TFilterImagePage& in, FilterImagePage* out) {
  BLOOMROUTE_RETURN_IF_ERROR(
      RequireAll(kBadResult, "page",
                 {{in.__isset.epoch, ".epoch"},
                  {in.__isset.lastSeq, ".lastSeq"},
                  {in.__isset.incarnation, ".incarnation"},
                  {in.__isset.imageId, ".imageId"},
                  {in.__isset.totalBytes, ".totalBytes"},
                  {in.__isset.offset, ".offset"},
                  {in.__isset.bytes, ".bytes"}}));
  for (auto [wire, field, name] :
       {std::tuple{in.epoch, &out->epoch, "page.epoch"},
        {in.lastSeq, &out->last_seq, "page.lastSeq"},
        {in.totalBytes, &out->total_bytes, "page.totalBytes"},
        {in.offset, &out->offset, "page.offset"}}) {
    BLOOMROUTE_RETURN_IF_ERROR(Narrow(wire, kBadResult, name, field));
  }
  out->incarnation = static_cast<uint64_t>(in.incarnation);
  out->image_id = static_cast<uint64_t>(in.imageId);
  out->bytes = in.bytes;
  return Status::OK();
}

Status FromThrift(const rpc::TFilterStatus& in, FilterStatus* out) {
  BLOOMROUTE_RETURN_IF_ERROR(PositionFromThrift(in, "status", out));
  for (auto [wire, field, name] :
       {std::tuple{in.elements, &out->stats.elements, "status.elements"},
        {in.memoryBytes, &out->stats.memory_bytes, "status.memoryBytes"}}) {
    BLOOMROUTE_RETURN_IF_ERROR(Narrow(wire, kBadResult, name, field));
  }
  out->stats.stages.assign(in.stages.size(), StageStats());
  for (size_t i = 0; i < in.stages.size(); ++i) {
    BLOOMROUTE_RETURN_IF_ERROR(StageFromThrift(
        in.stages[i], At("status.stages", i), &out->stats.stages[i]));
  }
  out->stats.estimated_fpr = in.estimatedFpr;
  out->stats.compounded_bound = in.compoundedBound;
  if (in.__isset.config) {
    BLOOMROUTE_RETURN_IF_ERROR(thrift_internal::FilterConfigFromThrift(
        in.config, kBadResult, "status.config", &out->config));
  }
  return Status::OK();
}

Status FromThrift(const rpc::TIndexReport& in, IndexReport* out) {
  const std::pair<int64_t, uint64_t*> counts[] = {
      {in.rows, &out->rows},
      {in.indexEntriesValid, &out->index_entries_valid},
      {in.indexEntriesMissing, &out->index_entries_missing},
      {in.indexEntriesExtra, &out->index_entries_extra},
      {in.values, &out->values},
      {in.valueCountsWrong, &out->value_counts_wrong},
      {in.valuesNotInFilter, &out->values_not_in_filter},
      {in.buildingColumns, &out->building_columns}};
  for (const auto& [wire, field] : counts) {
    BLOOMROUTE_RETURN_IF_ERROR(
        Narrow(wire, kBadResult, "index report count", field));
  }
  out->table_id.reset();
  if (in.__isset.tableId) {
    uint64_t id = 0;
    BLOOMROUTE_RETURN_IF_ERROR(
        Narrow(in.tableId, kBadResult, "index report table id", &id));
    out->table_id = id;
  }
  out->filter_matches_rebuild = in.filterMatchesRebuild;
  out->problems = in.problems;
  return Status::OK();
}

}  // namespace bloomroute
