#include "router/internal/coordinator_standing.h"

#include "common/log.h"

namespace bloomroute::router_internal {

Status CoordinatorStanding::NoteRefusal(const Status& status) {
  if (!IsCoordinatorEpochRefused(status)) return status;
  {
    std::lock_guard<std::mutex> lock(mu_);
    if (!refusal_.empty()) return status;
    refusal_ = status.message();
    deposed_.store(true, std::memory_order_release);
  }
  // Once: the duties stop, so no stream of refusals follows.
  Log(LogLevel::kError, "coordinator",
      "coordinator epoch " + std::to_string(epoch_.value) +
          " was refused, this router stops coordinating (region operations, "
          "index tasks, region placement, the balancer) and keeps serving: " +
          status.message() +
          ". If no other router runs (this router's catalog was wiped or "
          "restored from an old copy), restart it with "
          "--min-coordinator-epoch above the epoch the server named");
  return status;
}

Status CoordinatorStanding::CheckCoordinating() const {
  if (!deposed()) return Status::OK();
  std::lock_guard<std::mutex> lock(mu_);
  return Status::Aborted("this router no longer coordinates: " + refusal_);
}

}  // namespace bloomroute::router_internal
