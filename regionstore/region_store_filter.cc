// RegionStore's filter calls: the store's RegionFilter answers them
// (internal/region_filter.h).
#include "regionstore/internal/rocks_region_store.h"

namespace bloomroute::regionstore_internal {

StatusOr<FilterSnapshot> RocksRegionStore::Snapshot() const {
  return filter_->Snapshot();
}

StatusOr<FilterImagePage> RocksRegionStore::SnapshotImagePage(
    uint64_t fence_token, uint64_t image_id, uint64_t offset) {
  return filter_->SnapshotImagePage(fence_token, image_id, offset);
}

StatusOr<FilterOpsSince> RocksRegionStore::OpsSince(uint64_t incarnation,
                                                    uint64_t epoch,
                                                    uint64_t seq) const {
  return filter_->OpsSince(incarnation, epoch, seq);
}

FilterStatus RocksRegionStore::GetFilterStatus() const {
  return filter_->GetStatus();
}

void RocksRegionStore::RaiseFence(uint64_t token) {
  filter_->RaiseFence(token);
}

Status RocksRegionStore::CompactFilter() { return filter_->Compact(); }

Status RocksRegionStore::SetFilterConfig(const SscbfConfig& config) {
  return filter_->SetConfig(config);
}

}  // namespace bloomroute::regionstore_internal
