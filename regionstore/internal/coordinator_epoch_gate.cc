#include "regionstore/internal/coordinator_epoch_gate.h"

#include <utility>

#include "model/region_protocol.h"

namespace bloomroute::regionstore_internal {

CoordinatorEpochGate::CoordinatorEpochGate(
    uint64_t seen, std::function<Status(uint64_t epoch)> persist)
    : persist_(std::move(persist)), seen_(seen) {}

Status CoordinatorEpochGate::Run(uint64_t epoch,
                                 const std::function<Status()>& call) {
  if (epoch == 0) return call();
  const Status admitted = Enter(epoch);
  if (!admitted.ok()) return admitted;
  const Status s = call();
  Leave(epoch);
  return s;
}

uint64_t CoordinatorEpochGate::seen() const {
  std::lock_guard<std::mutex> lock(mu_);
  return seen_;
}

Status CoordinatorEpochGate::Enter(uint64_t epoch) {
  std::unique_lock<std::mutex> lock(mu_);
  for (;;) {
    // Checked again after each wait: a newer epoch may have come meanwhile.
    if (epoch < seen_) return CoordinatorEpochRefused(epoch, seen_);
    if (epoch > seen_) {
      // Durable before anything of the new epoch runs, so that a restarted
      // server still refuses the old coordinator.
      const Status stored = persist_(epoch);
      if (!stored.ok()) {
        return stored.WithContext("storing coordinator epoch " +
                                  std::to_string(epoch));
      }
      seen_ = epoch;
    }
    // Older calls admitted before the raise finish first.
    if (running_.empty() || running_.begin()->first >= epoch) break;
    left_.wait(lock);
  }
  ++running_[epoch];
  return Status::OK();
}

void CoordinatorEpochGate::Leave(uint64_t epoch) {
  std::lock_guard<std::mutex> lock(mu_);
  auto it = running_.find(epoch);
  if (--it->second == 0) running_.erase(it);
  left_.notify_all();
}

}  // namespace bloomroute::regionstore_internal
