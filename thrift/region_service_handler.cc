#include "thrift/region_service_handler.h"

#include <optional>
#include <string>
#include <utility>

#include "thrift/conversion/op_push_conversion.h"
#include "thrift/conversion/region_conversion.h"
#include "thrift/internal/region_stats_conversion.h"
#include "thrift/internal/serve_call.h"

namespace bloomroute {
namespace {

// Every call leaves through ServeCall: see serve_call.h.
using thrift_internal::ServeCall;

// A call's coordinator epoch (u64 on the wire as i64; 0: not a
// coordinator's call).
Status EpochFromThrift(int64_t epoch, CoordinatorEpoch* out) {
  return UnsignedFromThrift(epoch, "coordinatorEpoch", &out->value);
}

}  // namespace

RegionServiceHandler::RegionServiceHandler(std::shared_ptr<RegionStore> store)
    : store_(std::move(store)) {}

void RegionServiceHandler::openRegion(const rpc::TRegionDescriptor& region,
                                      int64_t incarnation, bool staging,
                                      int64_t coordinator_epoch) {
  ServeCall("openRegion", [&]() -> Status {
    RegionDescriptor descriptor;
    CoordinatorEpoch epoch;
    BLOOMROUTE_RETURN_IF_ERROR(FromThrift(region, &descriptor));
    BLOOMROUTE_RETURN_IF_ERROR(EpochFromThrift(coordinator_epoch, &epoch));
    return store_->OpenRegion(descriptor, static_cast<uint64_t>(incarnation),
                              staging, epoch);
  });
}

void RegionServiceHandler::splitPoint(rpc::TSplitPoint& result,
                                      int64_t region_id) {
  ServeCall("splitPoint", [&]() -> Status {
    uint64_t id = 0;
    BLOOMROUTE_RETURN_IF_ERROR(UnsignedFromThrift(region_id, "regionId", &id));
    BLOOMROUTE_ASSIGN_OR_RETURN(std::optional<std::string> key,
                                store_->SplitPoint(id));
    if (key.has_value()) result.__set_key(*key);
    return Status::OK();
  });
}

void RegionServiceHandler::exportRows(rpc::TExportedRows& result,
                                      int64_t region_id,
                                      const std::string& start_row,
                                      const std::string& stop_row,
                                      int32_t max_rows, int64_t max_bytes) {
  ServeCall("exportRows", [&]() -> Status {
    ExportRequest request;
    BLOOMROUTE_RETURN_IF_ERROR(
        UnsignedFromThrift(region_id, "regionId", &request.region_id));
    uint64_t bytes = 0;
    BLOOMROUTE_RETURN_IF_ERROR(
        UnsignedFromThrift(max_bytes, "maxBytes", &bytes));
    if (max_rows < 1) {
      return Status::InvalidArgument("maxRows must be at least 1");
    }
    request.start_row = start_row;
    request.stop_row = stop_row;
    request.max_rows = static_cast<uint32_t>(max_rows);
    request.max_bytes = bytes;
    BLOOMROUTE_ASSIGN_OR_RETURN(ExportedRows exported,
                                store_->ExportRows(request));
    result.__set_file(std::move(exported.file));
    result.__set_rows(static_cast<int64_t>(exported.rows));
    if (exported.resume_row) result.__set_resumeRow(*exported.resume_row);
    return Status::OK();
  });
}

void RegionServiceHandler::closeRegion(int64_t region_id,
                                       int64_t coordinator_epoch) {
  ServeCall("closeRegion", [&]() -> Status {
    uint64_t id = 0;
    CoordinatorEpoch epoch;
    BLOOMROUTE_RETURN_IF_ERROR(UnsignedFromThrift(region_id, "regionId", &id));
    BLOOMROUTE_RETURN_IF_ERROR(EpochFromThrift(coordinator_epoch, &epoch));
    return store_->CloseRegion(id, epoch);
  });
}

void RegionServiceHandler::dropRegion(int64_t region_id,
                                      int64_t coordinator_epoch) {
  ServeCall("dropRegion", [&]() -> Status {
    uint64_t id = 0;
    CoordinatorEpoch epoch;
    BLOOMROUTE_RETURN_IF_ERROR(UnsignedFromThrift(region_id, "regionId", &id));
    BLOOMROUTE_RETURN_IF_ERROR(EpochFromThrift(coordinator_epoch, &epoch));
    return store_->DropRegion(id, epoch);
  });
}

void RegionServiceHandler::listRegions(
    std::vector<rpc::TRegionDescriptor>& result) {
  ServeCall("listRegions", [&]() -> Status {
    return ToThrift(store_->ListRegions(), &result);
  });
}

void RegionServiceHandler::listRegionIds(std::vector<int64_t>& result) {
  ServeCall("listRegionIds", [&]() -> Status {
    for (uint64_t id : store_->OpenRegionIds()) {
      result.push_back(static_cast<int64_t>(id));  // ids are below 2^63
    }
    return Status::OK();
  });
}

void RegionServiceHandler::getRegionStats(rpc::TRegionStatsPage& result,
                                          int64_t table_id,
                                          int64_t after_region_id,
                                          int32_t max_regions,
                                          bool skip_row_count) {
  ServeCall("getRegionStats", [&]() -> Status {
    RegionStatsRequest request;
    BLOOMROUTE_RETURN_IF_ERROR(thrift_internal::RegionStatsRequestFromThrift(
        table_id, after_region_id, max_regions, &request));
    request.count_rows = !skip_row_count;
    BLOOMROUTE_ASSIGN_OR_RETURN(RegionStatsPage page,
                                store_->GetRegionStats(request));
    return thrift_internal::RegionStatsPageToThrift(page, &result);
  });
}

void RegionServiceHandler::mutateRows(
    rpc::TWriteResult& result, const std::vector<rpc::TMutation>& mutations,
    int64_t fence_token) {
  ServeCall("mutateRows", [&]() -> Status {
    std::vector<Mutation> batch;
    BLOOMROUTE_RETURN_IF_ERROR(FromThrift(mutations, &batch));
    BLOOMROUTE_ASSIGN_OR_RETURN(
        WriteResult written,
        store_->Apply(batch, static_cast<uint64_t>(fence_token)));
    return ToThrift(written, &result);
  });
}

void RegionServiceHandler::getMultiple(std::vector<rpc::TResult>& result,
                                       const std::vector<rpc::TGet>& gets,
                                       int64_t max_bytes) {
  ServeCall("getMultiple", [&]() -> Status {
    std::vector<GetRequest> requests;
    BLOOMROUTE_RETURN_IF_ERROR(FromThrift(gets, &requests));
    uint64_t budget = 0;
    BLOOMROUTE_RETURN_IF_ERROR(
        UnsignedFromThrift(max_bytes, "maxBytes", &budget));
    BLOOMROUTE_ASSIGN_OR_RETURN(auto rows, store_->Get(requests, budget));
    return ToThrift(rows, &result);
  });
}

void RegionServiceHandler::scan(rpc::TScanResult& result,
                                const rpc::TScan& scan) {
  ServeCall("scan", [&]() -> Status {
    ScanRequest request;
    BLOOMROUTE_RETURN_IF_ERROR(FromThrift(scan, &request));
    BLOOMROUTE_ASSIGN_OR_RETURN(ScanResult rows, store_->Scan(request));
    return ToThrift(std::move(rows), &result);
  });
}

void RegionServiceHandler::lookup(rpc::TIndexQueryResult& result,
                                  const rpc::TIndexQuery& query) {
  ServeCall("lookup", [&]() -> Status {
    IndexQuery request;
    BLOOMROUTE_RETURN_IF_ERROR(FromThrift(query, &request));
    BLOOMROUTE_ASSIGN_OR_RETURN(IndexQueryResult rows, store_->Lookup(request));
    return ToThrift(std::move(rows), &result);
  });
}

void RegionServiceHandler::getFilterSnapshot(rpc::TFilterSnapshot& result,
                                             int64_t fence_token) {
  ServeCall("getFilterSnapshot", [&]() -> Status {
    // Fence first: the snapshot then holds every write an older token may
    // ever commit (region_store.h, "Fencing").
    store_->RaiseFence(static_cast<uint64_t>(fence_token));
    BLOOMROUTE_ASSIGN_OR_RETURN(FilterSnapshot snapshot, store_->Snapshot());
    return ToThrift(snapshot, &result);
  });
}

void RegionServiceHandler::getFilterImagePage(rpc::TFilterImagePage& result,
                                              int64_t fence_token,
                                              int64_t image_id,
                                              int64_t offset) {
  ServeCall("getFilterImagePage", [&]() -> Status {
    uint64_t at = 0;
    BLOOMROUTE_RETURN_IF_ERROR(UnsignedFromThrift(offset, "offset", &at));
    // The store raises the fence itself, under the lock it reads the
    // filter with. Token and image id are bits.
    BLOOMROUTE_ASSIGN_OR_RETURN(
        FilterImagePage page,
        store_->SnapshotImagePage(static_cast<uint64_t>(fence_token),
                                  static_cast<uint64_t>(image_id), at));
    return ToThrift(page, &result);
  });
}

void RegionServiceHandler::getFilterOpsSince(rpc::TFilterOpsSince& result,
                                             int64_t epoch, int64_t seq,
                                             int64_t incarnation,
                                             int64_t fence_token) {
  ServeCall("getFilterOpsSince", [&]() -> Status {
    uint64_t e = 0;
    uint64_t s = 0;
    BLOOMROUTE_RETURN_IF_ERROR(UnsignedFromThrift(epoch, "epoch", &e));
    BLOOMROUTE_RETURN_IF_ERROR(UnsignedFromThrift(seq, "seq", &s));
    store_->RaiseFence(static_cast<uint64_t>(fence_token));
    BLOOMROUTE_ASSIGN_OR_RETURN(
        FilterOpsSince ops,
        store_->OpsSince(static_cast<uint64_t>(incarnation), e, s));
    return ToThrift(ops, &result);
  });
}

void RegionServiceHandler::getFilterStatus(rpc::TFilterStatus& result) {
  ServeCall("getFilterStatus", [&]() -> Status {
    return ToThrift(store_->GetFilterStatus(), &result);
  });
}

void RegionServiceHandler::compactFilter() {
  ServeCall("compactFilter",
            [&]() -> Status { return store_->CompactFilter(); });
}

void RegionServiceHandler::syncWal() {
  ServeCall("syncWal", [&]() -> Status { return store_->SyncWal(); });
}

void RegionServiceHandler::subscribeOps(
    rpc::TOpSubscribeGrant& result, const rpc::TOpSubscribeRequest& request) {
  ServeCall("subscribeOps", [&]() -> Status {
    OpSubscribeRequest r;
    BLOOMROUTE_RETURN_IF_ERROR(FromThrift(request, &r));
    BLOOMROUTE_ASSIGN_OR_RETURN(OpSubscribeGrant grant,
                                store_->SubscribeOps(r));
    return ToThrift(grant, &result);
  });
}

void RegionServiceHandler::setFilterConfig(const rpc::TFilterConfig& config,
                                           int64_t coordinator_epoch) {
  ServeCall("setFilterConfig", [&]() -> Status {
    SscbfConfig c;
    CoordinatorEpoch epoch;
    BLOOMROUTE_RETURN_IF_ERROR(FromThrift(config, &c));
    BLOOMROUTE_RETURN_IF_ERROR(EpochFromThrift(coordinator_epoch, &epoch));
    return store_->SetFilterConfig(c, epoch);
  });
}

void RegionServiceHandler::verifyIndex(rpc::TIndexReport& result,
                                       int64_t table_id) {
  ServeCall("verifyIndex", [&]() -> Status {
    uint64_t id = 0;
    BLOOMROUTE_RETURN_IF_ERROR(UnsignedFromThrift(table_id, "tableId", &id));
    BLOOMROUTE_ASSIGN_OR_RETURN(
        IndexReport report,
        store_->VerifyIndex(id == 0 ? std::nullopt : std::optional(id)));
    return ToThrift(report, &result);
  });
}

void RegionServiceHandler::bulkLoad(rpc::TWriteResult& result,
                                    int64_t region_id, const std::string& file,
                                    int64_t fence_token) {
  ServeCall("bulkLoad", [&]() -> Status {
    uint64_t id = 0;
    BLOOMROUTE_RETURN_IF_ERROR(UnsignedFromThrift(region_id, "regionId", &id));
    BLOOMROUTE_ASSIGN_OR_RETURN(
        WriteResult written,
        store_->BulkLoadBytes(id, file, static_cast<uint64_t>(fence_token)));
    return ToThrift(written, &result);
  });
}

namespace {

// A u32 passed as an i32 (a column id, bits) or a positive count.
Status ChunkSizeFromThrift(int32_t in, const char* field, uint32_t* out) {
  if (in <= 0) {
    return Status::InvalidArgument(std::string(field) + " must be >= 1");
  }
  *out = static_cast<uint32_t>(in);
  return Status::OK();
}

}  // namespace

void RegionServiceHandler::updateTableIndexes(
    const rpc::TTableDescriptor& table, int64_t coordinator_epoch) {
  ServeCall("updateTableIndexes", [&]() -> Status {
    TableDescriptor t;
    CoordinatorEpoch epoch;
    BLOOMROUTE_RETURN_IF_ERROR(
        TableFromThrift(table, thrift_internal::kBadRequest, "table", &t));
    BLOOMROUTE_RETURN_IF_ERROR(EpochFromThrift(coordinator_epoch, &epoch));
    return store_->UpdateTableIndexes(t, epoch);
  });
}

void RegionServiceHandler::backfillIndex(rpc::TIndexChunkResult& result,
                                         int64_t region_id, int32_t column_id,
                                         const std::string& after_row,
                                         int32_t max_rows, int64_t fence_token,
                                         int64_t coordinator_epoch) {
  ServeCall("backfillIndex", [&]() -> Status {
    uint64_t id = 0;
    uint32_t rows = 0;
    CoordinatorEpoch epoch;
    BLOOMROUTE_RETURN_IF_ERROR(UnsignedFromThrift(region_id, "regionId", &id));
    BLOOMROUTE_RETURN_IF_ERROR(EpochFromThrift(coordinator_epoch, &epoch));
    BLOOMROUTE_RETURN_IF_ERROR(ChunkSizeFromThrift(max_rows, "maxRows", &rows));
    if (after_row.size() > kMaxRowKeyBytes) {
      return Status::InvalidArgument("afterRow is longer than a row key");
    }
    BLOOMROUTE_ASSIGN_OR_RETURN(
        IndexChunkResult chunk,
        store_->BackfillIndex(id, static_cast<uint32_t>(column_id), after_row,
                              rows, static_cast<uint64_t>(fence_token), epoch));
    return ToThrift(chunk, &result);
  });
}

void RegionServiceHandler::dropIndexEntries(
    rpc::TIndexChunkResult& result, int64_t region_id, int32_t column_id,
    int32_t max_entries, int64_t fence_token, int64_t coordinator_epoch) {
  ServeCall("dropIndexEntries", [&]() -> Status {
    uint64_t id = 0;
    uint32_t entries = 0;
    CoordinatorEpoch epoch;
    BLOOMROUTE_RETURN_IF_ERROR(UnsignedFromThrift(region_id, "regionId", &id));
    BLOOMROUTE_RETURN_IF_ERROR(EpochFromThrift(coordinator_epoch, &epoch));
    BLOOMROUTE_RETURN_IF_ERROR(
        ChunkSizeFromThrift(max_entries, "maxEntries", &entries));
    BLOOMROUTE_ASSIGN_OR_RETURN(
        IndexChunkResult chunk,
        store_->DropIndexEntries(id, static_cast<uint32_t>(column_id), entries,
                                 static_cast<uint64_t>(fence_token), epoch));
    return ToThrift(chunk, &result);
  });
}

}  // namespace bloomroute
