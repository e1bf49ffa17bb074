// Coordinator epochs (region_store.h, "Coordinator epochs"): the
// coordinator's calls with their epoch, and the store's persisted epoch.
#include <string>
#include <utility>

#include "regionstore/internal/keys.h"
#include "regionstore/internal/records.h"
#include "regionstore/internal/rocks_region_store.h"
#include "regionstore/internal/rocks_status.h"

namespace bloomroute {

namespace {

// Runs `call`, which answers a StatusOr, through RunAsCoordinator.
template <typename T, typename Call>
StatusOr<T> RunWithResult(RegionStore& store, CoordinatorEpoch epoch,
                          Call&& call) {
  StatusOr<T> result = Status::Aborted("not run");
  const Status s = store.RunAsCoordinator(epoch, [&] {
    result = call();
    return result.status();
  });
  if (!s.ok()) return s;
  return result;
}

}  // namespace

Status RegionStore::OpenRegion(const RegionDescriptor& region,
                               uint64_t incarnation, bool staging,
                               CoordinatorEpoch epoch) {
  return RunAsCoordinator(
      epoch, [&] { return OpenRegion(region, incarnation, staging); });
}

Status RegionStore::CloseRegion(uint64_t region_id, CoordinatorEpoch epoch) {
  return RunAsCoordinator(epoch, [&] { return CloseRegion(region_id); });
}

Status RegionStore::DropRegion(uint64_t region_id, CoordinatorEpoch epoch) {
  return RunAsCoordinator(epoch, [&] { return DropRegion(region_id); });
}

Status RegionStore::SetFilterConfig(const SscbfConfig& config,
                                    CoordinatorEpoch epoch) {
  return RunAsCoordinator(epoch, [&] { return SetFilterConfig(config); });
}

Status RegionStore::UpdateTableIndexes(const TableDescriptor& table,
                                       CoordinatorEpoch epoch) {
  return RunAsCoordinator(epoch, [&] { return UpdateTableIndexes(table); });
}

StatusOr<IndexChunkResult> RegionStore::BackfillIndex(
    uint64_t region_id, uint32_t column_id, std::string_view after_row,
    uint32_t max_rows, uint64_t fence_token, CoordinatorEpoch epoch) {
  return RunWithResult<IndexChunkResult>(*this, epoch, [&] {
    return BackfillIndex(region_id, column_id, after_row, max_rows,
                         fence_token);
  });
}

StatusOr<IndexChunkResult> RegionStore::DropIndexEntries(
    uint64_t region_id, uint32_t column_id, uint32_t max_entries,
    uint64_t fence_token, CoordinatorEpoch epoch) {
  return RunWithResult<IndexChunkResult>(*this, epoch, [&] {
    return DropIndexEntries(region_id, column_id, max_entries, fence_token);
  });
}

namespace regionstore_internal {

Status RocksRegionStore::LoadCoordinatorEpoch() {
  std::string value;
  const rocksdb::Status got =
      db_->Get(rocksdb::ReadOptions(), meta_cf_, kCoordinatorEpochKey, &value);
  uint64_t seen = 0;
  if (!got.IsNotFound()) {
    BLOOMROUTE_RETURN_IF_ERROR(FromRocks(got));
    BLOOMROUTE_ASSIGN_OR_RETURN(seen, DecodeCoordinatorEpoch(value));
  }
  coordinator_gate_ =
      std::make_unique<CoordinatorEpochGate>(seen, [this](uint64_t epoch) {
        // Synced whatever Options::sync says: a restart (even after a power
        // loss) must still refuse the older coordinator.
        rocksdb::WriteOptions synced = write_options_;
        synced.sync = true;
        return FromRocks(db_->Put(synced, meta_cf_, kCoordinatorEpochKey,
                                  EncodeCoordinatorEpoch(epoch)));
      });
  return Status::OK();
}

Status RocksRegionStore::RunAsCoordinator(CoordinatorEpoch epoch,
                                          const std::function<Status()>& call) {
  return coordinator_gate_->Run(epoch.value, call);
}

uint64_t RocksRegionStore::CoordinatorEpochSeen() const {
  return coordinator_gate_->seen();
}

}  // namespace regionstore_internal
}  // namespace bloomroute
