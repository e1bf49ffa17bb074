#include "thrift/thrift_region_client.h"

#include <algorithm>
#include <limits>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "thrift/conversion/op_push_conversion.h"
#include "thrift/conversion/region_conversion.h"
#include "thrift/gen-cpp/RegionService.h"
#include "thrift/internal/checked_conversion.h"
#include "thrift/internal/client_pool.h"
#include "thrift/internal/region_stats_conversion.h"
#include "thrift/server/thrift_server.h"

namespace bloomroute {
namespace {

using Service = rpc::RegionServiceClient;
using Pool = thrift_internal::ClientPool<Service>;
using thrift_internal::Unsendable;
using thrift_internal::Widen;

// A coordinator's epoch as sent (RegionService: a u64 as a non-negative
// i64).
Status EpochToThrift(CoordinatorEpoch epoch, int64_t* out) {
  return UnsignedToThrift(epoch.value, "coordinator_epoch", out);
}

// A lookup sent on a connection of `pool` (or the Status its send failed
// with): Finish reads and converts its answer.
class ThriftPendingLookup final : public router::RegionClient::PendingLookup {
 public:
  ThriftPendingLookup(Pool* pool, StatusOr<Pool::InFlight> flight)
      : pool_(pool), flight_(std::move(flight)) {}

  StatusOr<IndexQueryResult> Finish() override {
    if (!flight_.ok()) return flight_.status();
    return pool_
        ->template ReceiveReply<IndexQueryResult, rpc::TIndexQueryResult>(
            std::move(flight_).value(),
            [](Service& s, rpc::TIndexQueryResult& r) { s.recv_lookup(r); },
            [](rpc::TIndexQueryResult& r, IndexQueryResult* out) {
              return FromThrift(std::move(r), out);
            });
  }

 private:
  Pool* const pool_;
  StatusOr<Pool::InFlight> flight_;
};

class ThriftRegionClient final : public router::RegionClient {
 public:
  ThriftRegionClient(std::string address, std::string host, int port,
                     const ThriftClientOptions& options)
      : address_(std::move(address)),
        options_(options),
        pool_(std::move(host), port, options) {}
  ThriftRegionClient(const ThriftRegionClient&) = delete;
  ThriftRegionClient& operator=(const ThriftRegionClient&) = delete;

  StatusOr<WriteResult> Apply(const std::vector<Mutation>& batch,
                              uint64_t fence_token) override {
    std::vector<rpc::TMutation> request;
    BLOOMROUTE_RETURN_IF_ERROR(Unsendable(ToThrift(batch, &request)));
    const auto token = static_cast<int64_t>(fence_token);  // bits
    return Fetch<WriteResult, rpc::TWriteResult>(
        "mutateRows", [&](Service& s, rpc::TWriteResult& r) {
          s.mutateRows(r, request, token);
        });
  }

  StatusOr<std::vector<std::optional<Row>>> Get(
      const std::vector<GetRequest>& requests, uint64_t max_bytes) override {
    std::vector<rpc::TGet> request;
    BLOOMROUTE_RETURN_IF_ERROR(Unsendable(ToThrift(requests, &request)));
    int64_t budget = 0;
    BLOOMROUTE_RETURN_IF_ERROR(
        Unsendable(Widen(max_bytes, "max_bytes", &budget)));
    return Fetch<std::vector<std::optional<Row>>, std::vector<rpc::TResult>>(
        "getMultiple", [&](Service& s, std::vector<rpc::TResult>& r) {
          s.getMultiple(r, request, budget);
        });
  }

  StatusOr<ScanResult> Scan(const ScanRequest& scan) override {
    rpc::TScan request;
    BLOOMROUTE_RETURN_IF_ERROR(Unsendable(ToThrift(scan, &request)));
    return Fetch<ScanResult, rpc::TScanResult>(
        "scan", [&](Service& s, rpc::TScanResult& r) { s.scan(r, request); });
  }

  StatusOr<IndexQueryResult> Lookup(const IndexQuery& query) override {
    rpc::TIndexQuery request;
    BLOOMROUTE_RETURN_IF_ERROR(Unsendable(ToThrift(query, &request)));
    return Fetch<IndexQueryResult, rpc::TIndexQueryResult>(
        "lookup",
        [&](Service& s, rpc::TIndexQueryResult& r) { s.lookup(r, request); });
  }

  std::unique_ptr<PendingLookup> StartLookup(const IndexQuery& query) override {
    rpc::TIndexQuery request;
    Status unsendable = Unsendable(ToThrift(query, &request));
    StatusOr<Pool::InFlight> flight =
        unsendable.ok()
            ? pool_.Send(Where("lookup"),
                         [&](Service& s) { s.send_lookup(request); })
            : StatusOr<Pool::InFlight>(unsendable);
    return std::make_unique<ThriftPendingLookup>(&pool_, std::move(flight));
  }

  StatusOr<FilterSnapshot> Snapshot(uint64_t fence_token) override {
    const auto token = static_cast<int64_t>(fence_token);  // bits
    return Fetch<FilterSnapshot, rpc::TFilterSnapshot>(
        "getFilterSnapshot", [&](Service& s, rpc::TFilterSnapshot& r) {
          s.getFilterSnapshot(r, token);
        });
  }

  StatusOr<FilterImage> SnapshotImage(uint64_t fence_token) override {
    const auto token = static_cast<int64_t>(fence_token);  // bits
    router::FilterImageLimits limits;
    limits.max_image_bytes = options_.max_filter_image_bytes;
    return router::AssembleFilterImage(
        [&](uint64_t image_id, uint64_t offset) -> StatusOr<FilterImagePage> {
          int64_t wire_offset = 0;
          BLOOMROUTE_RETURN_IF_ERROR(
              Unsendable(UnsignedToThrift(offset, "offset", &wire_offset)));
          const auto id = static_cast<int64_t>(image_id);  // bits
          return Fetch<FilterImagePage, rpc::TFilterImagePage>(
              "getFilterImagePage", [&](Service& s, rpc::TFilterImagePage& r) {
                s.getFilterImagePage(r, token, id, wire_offset);
              });
        },
        limits);
  }

  StatusOr<FilterOpsSince> OpsSince(uint64_t incarnation, uint64_t epoch,
                                    uint64_t seq,
                                    uint64_t fence_token) override {
    int64_t wire_epoch = 0;
    int64_t wire_seq = 0;
    BLOOMROUTE_RETURN_IF_ERROR(
        Unsendable(UnsignedToThrift(epoch, "epoch", &wire_epoch)));
    BLOOMROUTE_RETURN_IF_ERROR(
        Unsendable(UnsignedToThrift(seq, "seq", &wire_seq)));
    // Bit patterns, as the hash halves.
    const auto wire_incarnation = static_cast<int64_t>(incarnation);
    const auto token = static_cast<int64_t>(fence_token);
    return Fetch<FilterOpsSince, rpc::TFilterOpsSince>(
        "getFilterOpsSince", [&](Service& s, rpc::TFilterOpsSince& r) {
          s.getFilterOpsSince(r, wire_epoch, wire_seq, wire_incarnation, token);
        });
  }

  StatusOr<FilterStatus> GetFilterStatus() override {
    return Fetch<FilterStatus, rpc::TFilterStatus>(
        "getFilterStatus",
        [](Service& s, rpc::TFilterStatus& r) { s.getFilterStatus(r); });
  }

  void ReleaseConnections() override { pool_.Retire(); }

  Status SyncWal() override {
    return Call("syncWal", [&](Service& s) { s.syncWal(); });
  }

  StatusOr<OpSubscribeGrant> SubscribeOps(
      const OpSubscribeRequest& request) override {
    rpc::TOpSubscribeRequest wire;
    BLOOMROUTE_RETURN_IF_ERROR(Unsendable(ToThrift(request, &wire)));
    return Fetch<OpSubscribeGrant, rpc::TOpSubscribeGrant>(
        "subscribeOps", [&](Service& s, rpc::TOpSubscribeGrant& r) {
          s.subscribeOps(r, wire);
        });
  }

  using router::RegionClient::CloseRegion;
  using router::RegionClient::DropRegion;
  using router::RegionClient::OpenRegion;
  using router::RegionClient::OpenStagedRegion;
  using router::RegionClient::SetFilterConfig;

  Status SetFilterConfig(const SscbfConfig& config,
                         CoordinatorEpoch epoch) override {
    rpc::TFilterConfig request;
    int64_t wire_epoch = 0;
    BLOOMROUTE_RETURN_IF_ERROR(Unsendable(ToThrift(config, &request)));
    BLOOMROUTE_RETURN_IF_ERROR(Unsendable(EpochToThrift(epoch, &wire_epoch)));
    // A rebuild of the whole filter: as long as a compaction.
    return pool_.Call(
        Where("setFilterConfig"),
        [&](Service& s) { s.setFilterConfig(request, wire_epoch); },
        options_.long_call_timeout_ms);
  }

  Status OpenRegion(const RegionDescriptor& region, uint64_t incarnation,
                    CoordinatorEpoch epoch) override {
    return SendOpenRegion(region, incarnation, false, epoch);
  }

  Status OpenStagedRegion(const RegionDescriptor& region, uint64_t incarnation,
                          CoordinatorEpoch epoch) override {
    return SendOpenRegion(region, incarnation, true, epoch);
  }

  StatusOr<std::optional<std::string>> SplitPoint(uint64_t region_id) override {
    int64_t id = 0;
    BLOOMROUTE_RETURN_IF_ERROR(
        Unsendable(UnsignedToThrift(region_id, "region_id", &id)));
    rpc::TSplitPoint reply;
    // Long: the server reads up to --max-examined-rows keys of the region.
    BLOOMROUTE_RETURN_IF_ERROR(pool_.Call(
        Where("splitPoint"), [&](Service& s) { s.splitPoint(reply, id); },
        options_.long_call_timeout_ms));
    if (!reply.__isset.key) return std::optional<std::string>();
    // Untrusted: a row key of the region, so never empty (it sorts after
    // the region's first row) and within the row key bound.
    if (reply.key.empty() || reply.key.size() > kMaxRowKeyBytes) {
      return Status::Corruption(Where("splitPoint") + "split point of " +
                                std::to_string(reply.key.size()) +
                                " bytes is not a row key (1 to " +
                                std::to_string(kMaxRowKeyBytes) + " bytes)");
    }
    return std::optional<std::string>(std::move(reply.key));
  }

  StatusOr<ExportedRows> ExportRows(const ExportRequest& request) override {
    int64_t id = 0, max_bytes = 0;
    BLOOMROUTE_RETURN_IF_ERROR(
        Unsendable(UnsignedToThrift(request.region_id, "region_id", &id)));
    BLOOMROUTE_RETURN_IF_ERROR(Unsendable(
        UnsignedToThrift(request.max_bytes, "max_bytes", &max_bytes)));
    if (request.max_rows < 1 || request.max_rows > kMaxExportRows) {
      return Status::InvalidArgument("max_rows must be in [1, " +
                                     std::to_string(kMaxExportRows) + "]");
    }
    rpc::TExportedRows reply;
    BLOOMROUTE_RETURN_IF_ERROR(pool_.Call(Where("exportRows"), [&](Service& s) {
      s.exportRows(reply, id, request.start_row, request.stop_row,
                   static_cast<int32_t>(request.max_rows), max_bytes);
    }));
    ExportedRows out;
    const bool resumes_inside =
        !reply.__isset.resumeRow ||
        (!reply.resumeRow.empty() &&
         reply.resumeRow.size() <= kMaxRowKeyBytes &&
         reply.resumeRow > request.start_row &&
         (request.stop_row.empty() || reply.resumeRow < request.stop_row));
    if (reply.rows < 0 ||
        static_cast<uint64_t>(reply.rows) > request.max_rows ||
        (reply.rows == 0) != reply.file.empty() || !resumes_inside ||
        (reply.rows == 0 && reply.__isset.resumeRow)) {
      return Status::Corruption(Where("exportRows") + "an export of " +
                                std::to_string(reply.rows) + " rows in " +
                                std::to_string(reply.file.size()) +
                                " bytes does not fit the request");
    }
    out.file = std::move(reply.file);
    out.rows = static_cast<uint64_t>(reply.rows);
    if (reply.__isset.resumeRow) out.resume_row = std::move(reply.resumeRow);
    return out;
  }

  Status CloseRegion(uint64_t region_id, CoordinatorEpoch epoch) override {
    int64_t id = 0, wire_epoch = 0;
    BLOOMROUTE_RETURN_IF_ERROR(
        Unsendable(UnsignedToThrift(region_id, "region_id", &id)));
    BLOOMROUTE_RETURN_IF_ERROR(Unsendable(EpochToThrift(epoch, &wire_epoch)));
    return Call("closeRegion",
                [&](Service& s) { s.closeRegion(id, wire_epoch); });
  }

  Status DropRegion(uint64_t region_id, CoordinatorEpoch epoch) override {
    int64_t id = 0, wire_epoch = 0;
    BLOOMROUTE_RETURN_IF_ERROR(
        Unsendable(UnsignedToThrift(region_id, "region_id", &id)));
    BLOOMROUTE_RETURN_IF_ERROR(Unsendable(EpochToThrift(epoch, &wire_epoch)));
    return pool_.Call(
        Where("dropRegion"), [&](Service& s) { s.dropRegion(id, wire_epoch); },
        options_.long_call_timeout_ms);
  }

  StatusOr<IndexReport> VerifyIndex(std::optional<uint64_t> table_id) override {
    int64_t id = 0;
    if (table_id.has_value()) {
      if (*table_id == 0) {
        return Status::InvalidArgument(
            "verifyIndex: table id 0 is not a table");
      }
      BLOOMROUTE_RETURN_IF_ERROR(
          Unsendable(UnsignedToThrift(*table_id, "table_id", &id)));
    }
    return Fetch<IndexReport, rpc::TIndexReport>(
        "verifyIndex",
        [&](Service& s, rpc::TIndexReport& r) { s.verifyIndex(r, id); },
        options_.long_call_timeout_ms);
  }

  StatusOr<std::vector<RegionDescriptor>> ListRegions() override {
    return Fetch<std::vector<RegionDescriptor>,
                 std::vector<rpc::TRegionDescriptor>>(
        "listRegions", [](Service& s, std::vector<rpc::TRegionDescriptor>& r) {
          s.listRegions(r);
        });
  }

  StatusOr<std::vector<uint64_t>> OpenRegionIds() override {
    std::vector<int64_t> reply;
    BLOOMROUTE_RETURN_IF_ERROR(
        Call("listRegionIds", [&](Service& s) { s.listRegionIds(reply); }));
    // Untrusted: ids are positive and ascending.
    std::vector<uint64_t> ids;
    for (int64_t id : reply) {
      if (id <= 0 ||
          (!ids.empty() && static_cast<uint64_t>(id) <= ids.back())) {
        return Status::Corruption(Where("listRegionIds") +
                                  "region ids are not positive and ascending");
      }
      ids.push_back(static_cast<uint64_t>(id));
    }
    return ids;
  }

  StatusOr<RegionStatsPage> GetRegionStats(
      const RegionStatsRequest& request) override {
    int64_t table = 0, after = 0;
    BLOOMROUTE_RETURN_IF_ERROR(Unsendable(
        thrift_internal::Widen(request.table_id, "table_id", &table)));
    BLOOMROUTE_RETURN_IF_ERROR(Unsendable(thrift_internal::Widen(
        request.after_region_id, "after_region_id", &after)));
    if (request.max_regions < 1 ||
        request.max_regions > kMaxRegionStatsPerCall) {
      return Status::InvalidArgument("max_regions must be in [1, " +
                                     std::to_string(kMaxRegionStatsPerCall) +
                                     "]");
    }
    rpc::TRegionStatsPage reply;
    // Long: the server counts the rows of every region on the page.
    BLOOMROUTE_RETURN_IF_ERROR(pool_.Call(
        Where("getRegionStats"),
        [&](Service& s) {
          s.getRegionStats(reply, table, after,
                           static_cast<int32_t>(request.max_regions),
                           !request.count_rows);
        },
        options_.long_call_timeout_ms));
    RegionStatsPage page;
    Status converted =
        thrift_internal::RegionStatsPageFromThrift(reply, request, &page);
    if (!converted.ok()) {
      return Status::Corruption(Where("getRegionStats") + converted.message());
    }
    return page;
  }

  Status UpdateTableIndexes(const TableDescriptor& table,
                            CoordinatorEpoch epoch) override {
    rpc::TTableDescriptor t;
    int64_t wire_epoch = 0;
    BLOOMROUTE_RETURN_IF_ERROR(Unsendable(TableToThrift(table, &t)));
    BLOOMROUTE_RETURN_IF_ERROR(Unsendable(EpochToThrift(epoch, &wire_epoch)));
    return Call("updateTableIndexes",
                [&](Service& s) { s.updateTableIndexes(t, wire_epoch); });
  }

  StatusOr<IndexChunkResult> BackfillIndex(uint64_t region_id,
                                           uint32_t column_id,
                                           const std::string& after_row,
                                           uint32_t max_rows,
                                           uint64_t fence_token,
                                           CoordinatorEpoch epoch) override {
    int64_t id = 0, wire_epoch = 0;
    BLOOMROUTE_RETURN_IF_ERROR(
        Unsendable(UnsignedToThrift(region_id, "region_id", &id)));
    BLOOMROUTE_RETURN_IF_ERROR(Unsendable(EpochToThrift(epoch, &wire_epoch)));
    const auto column = static_cast<int32_t>(column_id);  // bits
    const auto rows = static_cast<int32_t>(
        std::min<uint32_t>(max_rows, std::numeric_limits<int32_t>::max()));
    const auto token = static_cast<int64_t>(fence_token);  // bits
    return Fetch<IndexChunkResult, rpc::TIndexChunkResult>(
        "backfillIndex", [&](Service& s, rpc::TIndexChunkResult& r) {
          s.backfillIndex(r, id, column, after_row, rows, token, wire_epoch);
        });
  }

  StatusOr<IndexChunkResult> DropIndexEntries(uint64_t region_id,
                                              uint32_t column_id,
                                              uint32_t max_entries,
                                              uint64_t fence_token,
                                              CoordinatorEpoch epoch) override {
    int64_t id = 0, wire_epoch = 0;
    BLOOMROUTE_RETURN_IF_ERROR(
        Unsendable(UnsignedToThrift(region_id, "region_id", &id)));
    BLOOMROUTE_RETURN_IF_ERROR(Unsendable(EpochToThrift(epoch, &wire_epoch)));
    const auto column = static_cast<int32_t>(column_id);  // bits
    const auto entries = static_cast<int32_t>(
        std::min<uint32_t>(max_entries, std::numeric_limits<int32_t>::max()));
    const auto token = static_cast<int64_t>(fence_token);  // bits
    return Fetch<IndexChunkResult, rpc::TIndexChunkResult>(
        "dropIndexEntries", [&](Service& s, rpc::TIndexChunkResult& r) {
          s.dropIndexEntries(r, id, column, entries, token, wire_epoch);
        });
  }

  StatusOr<WriteResult> BulkLoad(uint64_t region_id, const std::string& file,
                                 uint64_t fence_token) override {
    int64_t id = 0;
    BLOOMROUTE_RETURN_IF_ERROR(
        Unsendable(UnsignedToThrift(region_id, "region_id", &id)));
    const auto token = static_cast<int64_t>(fence_token);  // bits
    return Fetch<WriteResult, rpc::TWriteResult>(
        "bulkLoad", [&](Service& s, rpc::TWriteResult& r) {
          s.bulkLoad(r, id, file, token);
        });
  }

 private:
  // openRegion, staged or serving, with the coordinator's epoch.
  Status SendOpenRegion(const RegionDescriptor& region, uint64_t incarnation,
                        bool staging, CoordinatorEpoch epoch) {
    rpc::TRegionDescriptor request;
    int64_t wire_epoch = 0;
    BLOOMROUTE_RETURN_IF_ERROR(Unsendable(ToThrift(region, &request)));
    BLOOMROUTE_RETURN_IF_ERROR(Unsendable(EpochToThrift(epoch, &wire_epoch)));
    const auto wire_incarnation = static_cast<int64_t>(incarnation);  // bits
    return Call("openRegion", [&](Service& s) {
      s.openRegion(request, wire_incarnation, staging, wire_epoch);
    });
  }

  std::string Where(const char* method) const {
    return "region server " + address_ + ": " + method + ": ";
  }

  template <typename CallFn>
  Status Call(const char* method, CallFn&& call) {
    return pool_.Call(Where(method), std::forward<CallFn>(call));
  }

  // Call() for a method with a result: `call(service, reply)` fills the
  // Thrift reply, which is converted to Result.
  // `timeout_ms`: as ClientPool::Call.
  template <typename Result, typename Reply, typename CallFn>
  StatusOr<Result> Fetch(const char* method, CallFn&& call,
                         int timeout_ms = 0) {
    return pool_.template Fetch<Result, Reply>(
        Where(method), std::forward<CallFn>(call),
        [](Reply& reply, Result* result) {
          // A reply with an rvalue FromThrift (rows) is moved from.
          return FromThrift(std::move(reply), result);
        },
        timeout_ms);
  }

  const std::string address_;  // as given to Connect, for messages
  const ThriftClientOptions options_;
  Pool pool_;
};

class ThriftRegionClientFactory final : public router::RegionClientFactory {
 public:
  explicit ThriftRegionClientFactory(const ThriftClientOptions& options)
      : options_(options) {}

  StatusOr<std::unique_ptr<router::RegionClient>> Connect(
      router::ServerId /*server*/, const std::string& address) override {
    BLOOMROUTE_RETURN_IF_ERROR(options_.Validate());
    std::string host;
    int port = 0;
    BLOOMROUTE_RETURN_IF_ERROR(
        ParseDialAddress(address, "region server address", &host, &port));
    return std::unique_ptr<router::RegionClient>(
        std::make_unique<ThriftRegionClient>(address, std::move(host), port,
                                             options_));
  }

 private:
  const ThriftClientOptions options_;
};

}  // namespace

std::shared_ptr<router::RegionClientFactory> NewThriftRegionClientFactory(
    const ThriftClientOptions& options) {
  return std::make_shared<ThriftRegionClientFactory>(options);
}

void ReloadClientTlsFiles() { thrift_internal::ReloadClientTls(); }

}  // namespace bloomroute
