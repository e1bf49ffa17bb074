// CoordinatorStanding: this router's coordinator epoch and whether it still
// coordinates.
//
// Every call of the coordinator's duties to a region server that changes
// its regions or filter carries epoch() (router/region_client.h,
// "Coordinator epochs"). When a server refuses one because it has seen a
// newer coordinator (IsCoordinatorEpochRefused), the router is no longer the
// coordinator: NoteRefusal records that (logged once), and from then on the
// duties do not start (CheckCoordinating), an operation under way stops
// where it is without undoing anything (what it started belongs to the new
// coordinator, which finishes or undoes it), and nothing is retried.
// Serving rows, lookups and scans goes on: any router serves those.
//
// Today the epoch is the router's start count (Catalog::RecordRouterStart),
// fixed for the run; the coordinator's election will set it instead.
//
// Thread-safety: every method may be called concurrently.
#ifndef BLOOMROUTE_ROUTER_INTERNAL_COORDINATOR_STANDING_H_
#define BLOOMROUTE_ROUTER_INTERNAL_COORDINATOR_STANDING_H_

#include <atomic>
#include <cstdint>
#include <mutex>
#include <string>

#include "common/status.h"
#include "model/region_protocol.h"

namespace bloomroute::router_internal {

class CoordinatorStanding {
 public:
  // `epoch` > 0.
  explicit CoordinatorStanding(uint64_t epoch) : epoch_{epoch} {}
  CoordinatorStanding(const CoordinatorStanding&) = delete;
  CoordinatorStanding& operator=(const CoordinatorStanding&) = delete;

  // The epoch this router's coordinator calls carry.
  CoordinatorEpoch epoch() const { return epoch_; }

  // Whether a region server has refused this router's epoch.
  bool deposed() const { return deposed_.load(std::memory_order_acquire); }

  // Returns `status` unchanged. When it is a refusal of this router's epoch,
  // also marks the router deposed and, the first time, logs the refusal
  // with what an operator can do about it.
  Status NoteRefusal(const Status& status);

  // OK while this router coordinates; once deposed, Aborted naming the
  // refusal that deposed it ("this router no longer coordinates: ..."), for
  // a duty or admin call that must not start.
  Status CheckCoordinating() const;

 private:
  const CoordinatorEpoch epoch_;
  std::atomic<bool> deposed_{false};
  mutable std::mutex mu_;
  std::string refusal_;  // the first refusal; guarded by mu_
};

}  // namespace bloomroute::router_internal

#endif  // BLOOMROUTE_ROUTER_INTERNAL_COORDINATOR_STANDING_H_
