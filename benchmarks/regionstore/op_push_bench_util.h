// What the op push benchmarks share (regionstore/op_push_benchmark, pushes
// in process; thrift/op_push_rpc_benchmark, pushes over RPC): a store whose
// put pays for its subscribers and nothing else, and the subscriptions.
#ifndef BLOOMROUTE_BENCHMARKS_REGIONSTORE_OP_PUSH_BENCH_UTIL_H_
#define BLOOMROUTE_BENCHMARKS_REGIONSTORE_OP_PUSH_BENCH_UTIL_H_

#include <atomic>
#include <chrono>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "benchmarks/bench_util.h"
#include "model/op_push.h"
#include "regionstore/op_subscriptions.h"
#include "regionstore/region_store.h"

namespace bloomroute::bench {

// A store in a new directory with region 1 of a 2-indexed-column table
// open, pushing through `sinks` (null: subscriptions not configured). Its
// clock is moved past the start-up wait (OpSubscriptions, "Restarts") once
// it is open, so that no put waits for that. Null (with `*error`) when it
// cannot be opened.
inline std::unique_ptr<RegionStore> OpenPushingStore(
    std::shared_ptr<OpPushSinkFactory> sinks, std::string* error) {
  RegionStoreOptions options;
  options.op_push_sinks = std::move(sinks);
  auto skip = std::make_shared<std::atomic<int64_t>>(0);
  options.monotonic_ms = [skip] {
    return skip->load() +
           std::chrono::duration_cast<std::chrono::milliseconds>(
               std::chrono::steady_clock::now().time_since_epoch())
               .count();
  };
  options.max_op_lease_ms = OpSubscribeRequest::kMaxLeaseMs;
  StatusOr<std::unique_ptr<RegionStore>> store =
      RegionStore::Open(TempDir(), options);
  if (!store.ok()) {
    *error = store.status().ToString();
    return nullptr;
  }
  *skip = 2 * OpSubscribeRequest::kMaxLeaseMs;
  TableDescriptor table{1, "places", {{1, "d:country"}, {2, "d:feature"}}};
  const Status opened =
      (*store)->OpenRegion(RegionDescriptor{1, table, "", ""});
  if (!opened.ok()) {
    *error = opened.ToString();
    return nullptr;
  }
  return std::move(store).value();
}

// Subscribes router ids 2, 3, ... at `addresses` (one each) for the
// longest lease; the benchmarks write as router 1. False when one fails.
inline bool SubscribeRouters(RegionStore* store,
                             const std::vector<std::string>& addresses) {
  for (size_t r = 0; r < addresses.size(); ++r) {
    OpSubscribeRequest req;
    req.router_id = static_cast<uint64_t>(r + 2);
    req.session = 1;
    req.address = addresses[r];
    req.lease_ms = OpSubscribeRequest::kMaxLeaseMs;
    if (!store->SubscribeOps(req).ok()) return false;
  }
  return true;
}

}  // namespace bloomroute::bench

#endif  // BLOOMROUTE_BENCHMARKS_REGIONSTORE_OP_PUSH_BENCH_UTIL_H_
