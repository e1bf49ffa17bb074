// RouterFences: a region server's write fences, one per router id
// (model/op_push.h, "Router fence tokens"; region_store.h, "Fencing").
//
// A token's router id (FenceRouterId) picks its fence; a write whose
// nonzero token is below its router's fence is refused, and raising one
// router's fence never refuses another router's writes.
//
// Bounded: at most kMaxRouters fences. Router ids only grow (the embedded
// catalog keeps one router; ZooKeeper hands out sequential ids, a new one
// per router process), so when a new id would pass the bound, the fence of
// the lowest id is dropped and every id at or below it is *retired*: its
// writes and raises are refused from then on. Dropping a fence could
// otherwise let a write in doubt of that router commit after its catch-up
// read the filter; refusing the retired id instead keeps the promise
// "once Raise returns no write with an older token of that router
// commits" for every router, and a retired router (one older than the
// kMaxRouters newest ones this server has heard from) takes a new id.
//
// In memory only, as the single fence before it: a write sent to an earlier
// run of the server died with that run (its connection closed), and a
// router takes a snapshot of a new incarnation anyway.
//
// Thread-safety: none; the caller guards it (RegionFilter under its filter
// lock, the lock that orders filter ops).
#ifndef BLOOMROUTE_REGIONSTORE_INTERNAL_ROUTER_FENCES_H_
#define BLOOMROUTE_REGIONSTORE_INTERNAL_ROUTER_FENCES_H_

#include <algorithm>
#include <cstdint>
#include <map>
#include <string>

#include "common/status.h"
#include "model/op_push.h"

namespace bloomroute::regionstore_internal {

class RouterFences {
 public:
  static constexpr size_t kMaxRouters = 4096;

  // OK when `token` may commit; Aborted (naming both) otherwise.
  Status Check(uint64_t token) const {
    if (token == 0) return Status::OK();
    const uint64_t router = FenceRouterId(token);
    if (retired_ && router <= retired_through_) {
      return Status::Aborted(
          "write fenced: router id " + std::to_string(router) +
          " is retired on this server (more than " +
          std::to_string(kMaxRouters) + " newer routers); nothing was written");
    }
    auto it = fences_.find(router);
    if (it == fences_.end() || token >= it->second) return Status::OK();
    return Status::Aborted("write fenced: its token " + std::to_string(token) +
                           " is below this server's fence " +
                           std::to_string(it->second) + " of router " +
                           std::to_string(router) + "; nothing was written");
  }

  // Raises the fence of `token`'s router to `token` (0: nothing).
  void Raise(uint64_t token) {
    if (token == 0) return;
    const uint64_t router = FenceRouterId(token);
    if (retired_ && router <= retired_through_) return;
    uint64_t& fence = fences_[router];
    fence = std::max(fence, token);
    if (fences_.size() > kMaxRouters) {
      retired_ = true;
      retired_through_ = fences_.begin()->first;
      fences_.erase(fences_.begin());
    }
  }

  // The fence of `router`; 0 when it has none.
  uint64_t FenceOf(uint64_t router) const {
    auto it = fences_.find(router);
    return it == fences_.end() ? 0 : it->second;
  }

 private:
  std::map<uint64_t, uint64_t> fences_;  // router id -> fence
  bool retired_ = false;
  uint64_t retired_through_ = 0;  // ids <= this are retired (when retired_)
};

}  // namespace bloomroute::regionstore_internal

#endif  // BLOOMROUTE_REGIONSTORE_INTERNAL_ROUTER_FENCES_H_
