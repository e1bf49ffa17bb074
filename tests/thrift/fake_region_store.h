// A RegionStore double for adapter tests: records what it was asked, answers
// with canned results, or fails every call with a chosen Status (or throws,
// to test that nothing but the declared exceptions leaves a handler).
#ifndef BLOOMROUTE_TESTS_THRIFT_FAKE_REGION_STORE_H_
#define BLOOMROUTE_TESTS_THRIFT_FAKE_REGION_STORE_H_

#include <atomic>
#include <functional>
#include <mutex>
#include <optional>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include "regionstore/region_store.h"
#include "tests/thrift/handler_test_util.h"

namespace bloomroute {

// FailWith, ThrowOnCall and calls() come from FaultInjector.
class FakeRegionStore : public RegionStore, public testing::FaultInjector {
 public:
  FakeRegionStore() : FaultInjector("store exploded") {}

  std::vector<RegionDescriptor> opened() const {
    std::lock_guard<std::mutex> lock(mutex_);
    return opened_;
  }
  // The `staging` argument of each OpenRegion, in order.
  std::vector<bool> opened_staging() const {
    std::lock_guard<std::mutex> lock(mutex_);
    return opened_staging_;
  }
  // The region of the last SplitPoint.
  uint64_t last_split_region() const {
    std::lock_guard<std::mutex> lock(mutex_);
    return last_split_region_;
  }
  // The last ExportRows request.
  ExportRequest last_export() const {
    std::lock_guard<std::mutex> lock(mutex_);
    return last_export_;
  }
  std::vector<Mutation> last_batch() const {
    std::lock_guard<std::mutex> lock(mutex_);
    return last_batch_;
  }
  // The arguments of the last BulkLoadBytes.
  std::pair<uint64_t, std::string> last_bulk_load() const {
    std::lock_guard<std::mutex> lock(mutex_);
    return last_bulk_load_;
  }

  // Canned answers.
  WriteResult write_result;
  std::vector<std::optional<Row>> get_result;
  ScanResult scan_result;
  IndexQueryResult lookup_result;
  FilterSnapshot snapshot;
  FilterOpsSince ops_since;
  FilterImagePage image_page;
  // The (image id, offset) of the last SnapshotImagePage.
  std::pair<uint64_t, uint64_t> image_page_request;
  FilterStatus filter_status;
  std::vector<SscbfConfig> filter_configs_set;  // by SetFilterConfig
  std::atomic<int> wal_syncs{0};                // SyncWal calls
  IndexReport report;
  std::optional<std::string> split_point;  // the answer of SplitPoint
  ExportedRows exported;                   // the answer of ExportRows
  RegionStatsPage region_stats;            // the answer of GetRegionStats
  RegionStatsRequest last_stats_request;   // its last request
  // The index lifecycle: the last table given, the last chunk asked
  // (region, column, after row, max rows, fence token), and the answer.
  TableDescriptor indexes_table;
  std::tuple<uint64_t, uint32_t, std::string, uint32_t, uint64_t> last_chunk;
  IndexChunkResult chunk_result;
  // The arguments of the last OpsSince, Apply and RaiseFence.
  uint64_t ops_since_incarnation = 0;
  uint64_t ops_since_epoch = 0;
  uint64_t ops_since_seq = 0;
  uint64_t last_fence_token = 0;
  uint64_t fence = 0;

  // The coordinator epoch of each call run through RunAsCoordinator, in
  // order; a call with a nonzero epoch below `refuse_epochs_below` is
  // refused as a store refuses an older coordinator.
  std::vector<uint64_t> coordinator_epochs() const {
    std::lock_guard<std::mutex> lock(mutex_);
    return coordinator_epochs_;
  }
  uint64_t refuse_epochs_below = 0;
  Status RunAsCoordinator(CoordinatorEpoch epoch,
                          const std::function<Status()>& call) override {
    {
      std::lock_guard<std::mutex> lock(mutex_);
      coordinator_epochs_.push_back(epoch.value);
    }
    if (epoch.value != 0 && epoch.value < refuse_epochs_below) {
      return CoordinatorEpochRefused(epoch.value, refuse_epochs_below);
    }
    return call();
  }
  uint64_t CoordinatorEpochSeen() const override { return refuse_epochs_below; }
  using RegionStore::BackfillIndex;
  using RegionStore::CloseRegion;
  using RegionStore::DropIndexEntries;
  using RegionStore::DropRegion;
  using RegionStore::SetFilterConfig;
  using RegionStore::UpdateTableIndexes;

  using RegionStore::OpenRegion;
  Status OpenRegion(const RegionDescriptor& region, uint64_t,
                    bool staging) override {
    BLOOMROUTE_RETURN_IF_ERROR(Enter());
    std::lock_guard<std::mutex> lock(mutex_);
    opened_.push_back(region);
    opened_staging_.push_back(staging);
    return Status::OK();
  }
  StatusOr<ExportedRows> ExportRows(const ExportRequest& request) override {
    BLOOMROUTE_RETURN_IF_ERROR(Enter());
    std::lock_guard<std::mutex> lock(mutex_);
    last_export_ = request;
    return exported;
  }
  StatusOr<std::optional<std::string>> SplitPoint(
      uint64_t region_id) const override {
    BLOOMROUTE_RETURN_IF_ERROR(Enter());
    std::lock_guard<std::mutex> lock(mutex_);
    last_split_region_ = region_id;
    return split_point;
  }
  Status CloseRegion(uint64_t) override { return Enter(); }
  Status DropRegion(uint64_t) override { return Enter(); }
  std::vector<RegionDescriptor> ListRegions() const override {
    (void)Enter();
    return opened();
  }
  using RegionStore::Apply;
  using RegionStore::BulkLoad;
  using RegionStore::BulkLoadBytes;
  StatusOr<WriteResult> Apply(const std::vector<Mutation>& batch,
                              uint64_t fence_token) override {
    BLOOMROUTE_RETURN_IF_ERROR(Enter());
    std::lock_guard<std::mutex> lock(mutex_);
    last_batch_ = batch;
    last_fence_token = fence_token;
    return write_result;
  }
  using RegionStore::Get;
  StatusOr<std::vector<std::optional<Row>>> Get(const std::vector<GetRequest>&,
                                                uint64_t) const override {
    BLOOMROUTE_RETURN_IF_ERROR(Enter());
    return get_result;
  }
  StatusOr<ScanResult> Scan(const ScanRequest&) const override {
    BLOOMROUTE_RETURN_IF_ERROR(Enter());
    return scan_result;
  }
  StatusOr<IndexQueryResult> Lookup(const IndexQuery&) const override {
    BLOOMROUTE_RETURN_IF_ERROR(Enter());
    return lookup_result;
  }
  StatusOr<FilterSnapshot> Snapshot() const override {
    BLOOMROUTE_RETURN_IF_ERROR(Enter());
    return snapshot;
  }
  StatusOr<FilterOpsSince> OpsSince(uint64_t incarnation, uint64_t epoch,
                                    uint64_t seq) const override {
    BLOOMROUTE_RETURN_IF_ERROR(Enter());
    auto* self = const_cast<FakeRegionStore*>(this);
    self->ops_since_incarnation = incarnation;
    self->ops_since_epoch = epoch;
    self->ops_since_seq = seq;
    return ops_since;
  }
  StatusOr<FilterImagePage> SnapshotImagePage(uint64_t fence_token,
                                              uint64_t image_id,
                                              uint64_t offset) override {
    BLOOMROUTE_RETURN_IF_ERROR(Enter());
    std::lock_guard<std::mutex> lock(mutex_);
    last_fence_token = fence_token;
    image_page_request = {image_id, offset};
    return image_page;
  }
  FilterStatus GetFilterStatus() const override {
    (void)Enter();
    return filter_status;
  }
  void RaiseFence(uint64_t token) override {
    std::lock_guard<std::mutex> lock(mutex_);
    fence = std::max(fence, token);
  }
  Status CompactFilter() override { return Enter(); }
  Status SyncWal() override {
    BLOOMROUTE_RETURN_IF_ERROR(Enter());
    ++wal_syncs;
    return Status::OK();
  }
  Status UpdateTableIndexes(const TableDescriptor& table) override {
    BLOOMROUTE_RETURN_IF_ERROR(Enter());
    std::lock_guard<std::mutex> lock(mutex_);
    indexes_table = table;
    return Status::OK();
  }
  StatusOr<IndexChunkResult> BackfillIndex(uint64_t region, uint32_t column,
                                           std::string_view after,
                                           uint32_t max_rows,
                                           uint64_t token) override {
    BLOOMROUTE_RETURN_IF_ERROR(Enter());
    std::lock_guard<std::mutex> lock(mutex_);
    last_chunk = {region, column, std::string(after), max_rows, token};
    return chunk_result;
  }
  StatusOr<IndexChunkResult> DropIndexEntries(uint64_t region, uint32_t column,
                                              uint32_t max_entries,
                                              uint64_t token) override {
    BLOOMROUTE_RETURN_IF_ERROR(Enter());
    std::lock_guard<std::mutex> lock(mutex_);
    last_chunk = {region, column, "", max_entries, token};
    return chunk_result;
  }
  Status SetFilterConfig(const SscbfConfig& config) override {
    BLOOMROUTE_RETURN_IF_ERROR(Enter());
    std::lock_guard<std::mutex> lock(mutex_);
    filter_configs_set.push_back(config);
    return Status::OK();
  }
  StatusOr<WriteResult> BulkLoad(uint64_t, const std::string&,
                                 uint64_t) override {
    BLOOMROUTE_RETURN_IF_ERROR(Enter());
    return write_result;
  }
  StatusOr<WriteResult> BulkLoadBytes(uint64_t region_id, std::string_view file,
                                      uint64_t fence_token) override {
    BLOOMROUTE_RETURN_IF_ERROR(Enter());
    std::lock_guard<std::mutex> lock(mutex_);
    last_bulk_load_ = {region_id, std::string(file)};
    last_fence_token = fence_token;
    return write_result;
  }
  StatusOr<RegionStatsPage> GetRegionStats(
      const RegionStatsRequest& request) const override {
    BLOOMROUTE_RETURN_IF_ERROR(Enter());
    std::lock_guard<std::mutex> lock(mutex_);
    const_cast<FakeRegionStore*>(this)->last_stats_request = request;
    return region_stats;
  }
  StatusOr<IndexReport> VerifyIndex(
      std::optional<uint64_t> table_id) const override {
    BLOOMROUTE_RETURN_IF_ERROR(Enter());
    IndexReport out = report;
    out.table_id = table_id;
    return out;
  }

 private:
  mutable std::mutex mutex_;
  std::vector<RegionDescriptor> opened_;             // guarded by mutex_
  std::vector<bool> opened_staging_;                 // guarded by mutex_
  std::vector<uint64_t> coordinator_epochs_;         // guarded by mutex_
  mutable uint64_t last_split_region_ = 0;           // guarded by mutex_
  ExportRequest last_export_;                        // guarded by mutex_
  std::vector<Mutation> last_batch_;                 // guarded by mutex_
  std::pair<uint64_t, std::string> last_bulk_load_;  // guarded by mutex_
};

}  // namespace bloomroute

#endif  // BLOOMROUTE_TESTS_THRIFT_FAKE_REGION_STORE_H_
