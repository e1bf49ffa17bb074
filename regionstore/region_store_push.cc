// The store's side of op subscriptions: writes return only once the
// subscribed routers hold their ops (regionstore/op_subscriptions.h). Each
// public write below runs the write as it was (its *Unpushed twin, which
// takes and releases the regions and row locks), then waits with no lock
// of the store held, so that a slow router delays only the writes that
// wait for it, never other writers' locks.
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "regionstore/internal/rocks_region_store.h"

namespace bloomroute::regionstore_internal {

void RocksRegionStore::StartOpSubscriptions() {
  if (options_.op_push_sinks == nullptr) return;
  OpSubscriptions::Options o;
  o.sinks = options_.op_push_sinks;
  o.monotonic_ms = options_.monotonic_ms;
  o.max_subscribers = options_.max_op_subscribers;
  o.max_lease_ms = options_.max_op_lease_ms;
  RegionFilter* filter = filter_.get();
  subscriptions_ = std::make_unique<OpSubscriptions>(
      std::move(o),
      [filter](uint64_t incarnation, uint64_t epoch, uint64_t seq) {
        return filter->OpsSince(incarnation, epoch, seq);
      },
      [filter] { return filter->GetStatus(); });
}

StatusOr<OpSubscribeGrant> RocksRegionStore::SubscribeOps(
    const OpSubscribeRequest& request) {
  if (subscriptions_ == nullptr) return RegionStore::SubscribeOps(request);
  return subscriptions_->Subscribe(request);
}

size_t RocksRegionStore::OpSubscriberCount() const {
  return subscriptions_ == nullptr ? 0 : subscriptions_->Count();
}

void RocksRegionStore::AwaitPushed(uint64_t fence_token,
                                   const WriteResult& result) {
  // No subscriptions configured: one pointer test, the single router's
  // whole cost.
  if (subscriptions_ == nullptr) return;
  subscriptions_->AwaitDelivered(FenceRouterId(fence_token), result);
}

StatusOr<WriteResult> RocksRegionStore::Apply(
    const std::vector<Mutation>& batch, uint64_t fence_token) {
  StatusOr<WriteResult> result = ApplyUnpushed(batch, fence_token);
  if (result.ok()) AwaitPushed(fence_token, *result);
  return result;
}

StatusOr<WriteResult> RocksRegionStore::BulkLoad(uint64_t region_id,
                                                 const std::string& path,
                                                 uint64_t fence_token) {
  StatusOr<WriteResult> result = BulkLoadUnpushed(region_id, path, fence_token);
  if (result.ok()) AwaitPushed(fence_token, *result);
  return result;
}

StatusOr<IndexChunkResult> RocksRegionStore::BackfillIndex(
    uint64_t region_id, uint32_t column_id, std::string_view after_row,
    uint32_t max_rows, uint64_t fence_token) {
  StatusOr<IndexChunkResult> result = BackfillIndexUnpushed(
      region_id, column_id, after_row, max_rows, fence_token);
  if (result.ok()) AwaitPushed(fence_token, result->write);
  return result;
}

StatusOr<IndexChunkResult> RocksRegionStore::DropIndexEntries(
    uint64_t region_id, uint32_t column_id, uint32_t max_entries,
    uint64_t fence_token) {
  StatusOr<IndexChunkResult> result =
      DropIndexEntriesUnpushed(region_id, column_id, max_entries, fence_token);
  if (result.ok()) AwaitPushed(fence_token, result->write);
  return result;
}

}  // namespace bloomroute::regionstore_internal
