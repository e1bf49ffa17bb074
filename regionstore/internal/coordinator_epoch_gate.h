// CoordinatorEpochGate: admits a region server's calls from coordinators
// by epoch (RegionStore, "Coordinator epochs").
//
// It keeps the highest epoch seen. A call with a lower epoch is refused
// (CoordinatorEpochRefused) before it runs; a call with a higher one first
// has the new epoch persisted (the `persist` callback, synchronously) and
// adopted, then waits until every call admitted with a lower epoch has
// returned, and only then runs. So once a call of epoch E has started, no
// call of a lower epoch runs or will ever run, also after a restart (the
// store reads the persisted epoch back into the gate). Equal epochs run
// concurrently; epoch 0 (not a coordinator) bypasses the gate.
//
// Thread-safety: every method may be called concurrently.
#ifndef BLOOMROUTE_REGIONSTORE_INTERNAL_COORDINATOR_EPOCH_GATE_H_
#define BLOOMROUTE_REGIONSTORE_INTERNAL_COORDINATOR_EPOCH_GATE_H_

#include <condition_variable>
#include <cstdint>
#include <functional>
#include <map>
#include <mutex>

#include "common/status.h"

namespace bloomroute::regionstore_internal {

class CoordinatorEpochGate {
 public:
  // `seen`: the epoch persisted before (0: none). `persist` stores a new
  // highest epoch durably; it is called with the gate's lock held, so
  // raises are stored in order.
  CoordinatorEpochGate(uint64_t seen,
                       std::function<Status(uint64_t epoch)> persist);
  CoordinatorEpochGate(const CoordinatorEpochGate&) = delete;
  CoordinatorEpochGate& operator=(const CoordinatorEpochGate&) = delete;

  // Runs `call` if `epoch` is admitted, and returns its status; otherwise
  // returns the refusal (Aborted, both epochs named) or the error of
  // persisting the new epoch, without running it.
  Status Run(uint64_t epoch, const std::function<Status()>& call);

  // The highest epoch seen (persisted).
  uint64_t seen() const;

 private:
  // Admits `epoch` (see Run): raises, then waits for older calls.
  Status Enter(uint64_t epoch);
  void Leave(uint64_t epoch);

  const std::function<Status(uint64_t)> persist_;
  mutable std::mutex mu_;
  std::condition_variable left_;  // a call left (running_ shrank)
  uint64_t seen_;                 // guarded by mu_
  // Calls running, by epoch; guarded by mu_.
  std::map<uint64_t, uint64_t> running_;
};

}  // namespace bloomroute::regionstore_internal

#endif  // BLOOMROUTE_REGIONSTORE_INTERNAL_COORDINATOR_EPOCH_GATE_H_
