#include "thrift/internal/region_stats_conversion.h"

#include <string>
#include <utility>
#include <vector>

#include "thrift/internal/checked_conversion.h"
#include "thrift/internal/enum_map.h"

namespace bloomroute::thrift_internal {
namespace {

constexpr EnumMap<RegionState, 4> kRegionStates(
    {{{RegionState::kClosed, rpc::TRegionState::CLOSED},
      {RegionState::kOpen, rpc::TRegionState::OPEN},
      {RegionState::kDropping, rpc::TRegionState::DROPPING},
      {RegionState::kStaged, rpc::TRegionState::STAGED}}},
    "{field} is not a region state ({value})");

Status OneFromThrift(const rpc::TRegionStats& in, const std::string& f,
                     RegionStats* out) {
  BLOOMROUTE_RETURN_IF_ERROR(RequireAll(
      kBadResult, f,
      {{in.__isset.regionId, ".regionId"}, {in.__isset.state, ".state"}}));
  BLOOMROUTE_RETURN_IF_ERROR(
      Narrow(in.regionId, kBadResult, f + ".regionId", &out->region_id));
  BLOOMROUTE_RETURN_IF_ERROR(
      Narrow(in.tableId, kBadResult, f + ".tableId", &out->table_id));
  BLOOMROUTE_ASSIGN_OR_RETURN(
      out->state, kRegionStates.FromThrift(in.state, kBadResult, f + ".state"));
  BLOOMROUTE_RETURN_IF_ERROR(
      Narrow(in.rows, kBadResult, f + ".rows", &out->rows));
  BLOOMROUTE_RETURN_IF_ERROR(
      Narrow(in.rowBytes, kBadResult, f + ".rowBytes", &out->row_bytes));
  return Narrow(in.indexBytes, kBadResult, f + ".indexBytes",
                &out->index_bytes);
}

}  // namespace

Status RegionStatsRequestFromThrift(int64_t table_id, int64_t after_region_id,
                                    int32_t max_regions,
                                    RegionStatsRequest* out) {
  BLOOMROUTE_RETURN_IF_ERROR(
      Narrow(table_id, kBadRequest, "tableId", &out->table_id));
  BLOOMROUTE_RETURN_IF_ERROR(Narrow(after_region_id, kBadRequest,
                                    "afterRegionId", &out->after_region_id));
  if (max_regions < 1 ||
      static_cast<uint32_t>(max_regions) > kMaxRegionStatsPerCall) {
    return Status::InvalidArgument("maxRegions must be in [1, " +
                                   std::to_string(kMaxRegionStatsPerCall) +
                                   "], not " + std::to_string(max_regions));
  }
  out->max_regions = static_cast<uint32_t>(max_regions);
  return Status::OK();
}

Status RegionStatsPageToThrift(const RegionStatsPage& in,
                               rpc::TRegionStatsPage* out) {
  std::vector<rpc::TRegionStats> regions(in.regions.size());
  for (size_t i = 0; i < regions.size(); ++i) {
    const RegionStats& r = in.regions[i];
    int64_t id = 0, table = 0, rows = 0, row_bytes = 0, index_bytes = 0;
    BLOOMROUTE_RETURN_IF_ERROR(Widen(r.region_id, "region_id", &id));
    BLOOMROUTE_RETURN_IF_ERROR(Widen(r.table_id, "table_id", &table));
    BLOOMROUTE_RETURN_IF_ERROR(Widen(r.rows, "rows", &rows));
    BLOOMROUTE_RETURN_IF_ERROR(Widen(r.row_bytes, "row_bytes", &row_bytes));
    BLOOMROUTE_RETURN_IF_ERROR(
        Widen(r.index_bytes, "index_bytes", &index_bytes));
    regions[i].__set_regionId(id);
    regions[i].__set_tableId(table);
    regions[i].__set_state(kRegionStates.ToThrift(r.state));
    regions[i].__set_rows(rows);
    regions[i].__set_rowBytes(row_bytes);
    regions[i].__set_indexBytes(index_bytes);
  }
  out->__set_regions(std::move(regions));
  out->__set_more(in.more);
  return Status::OK();
}

Status RegionStatsPageFromThrift(const rpc::TRegionStatsPage& in,
                                 const RegionStatsRequest& request,
                                 RegionStatsPage* out) {
  if (in.regions.size() > request.max_regions) {
    return Status::Corruption(
        "result.regions holds " + std::to_string(in.regions.size()) +
        " regions, over the " + std::to_string(request.max_regions) +
        " asked for");
  }
  out->regions.assign(in.regions.size(), RegionStats());
  uint64_t last = request.after_region_id;
  for (size_t i = 0; i < in.regions.size(); ++i) {
    const std::string f = At("result.regions", i);
    RegionStats& r = out->regions[i];
    BLOOMROUTE_RETURN_IF_ERROR(OneFromThrift(in.regions[i], f, &r));
    if (r.region_id <= last) {
      return Status::Corruption(f + ".regionId is not ascending above " +
                                std::to_string(last));
    }
    if (request.table_id != 0 && r.table_id != request.table_id) {
      return Status::Corruption(f + ".tableId is " +
                                std::to_string(r.table_id) + ", not " +
                                std::to_string(request.table_id));
    }
    last = r.region_id;
  }
  out->more = in.more;
  return Status::OK();
}

}  // namespace bloomroute::thrift_internal
