// RegionBackoff: the regions the balancer skips after a failed split or
// move (Balancer's, balancer.h). A region whose operation failed for a
// reason of its own -- not Unavailable, which is the cluster's -- is
// skipped for a while that doubles with each failure in a row, so that a
// region that cannot split (one row past the split size) costs one failed
// plan an hour, not every run.
//
// Thread-safe: mu_ guards the entries.
#ifndef BLOOMROUTE_ROUTER_COORDINATOR_REGION_BACKOFF_H_
#define BLOOMROUTE_ROUTER_COORDINATOR_REGION_BACKOFF_H_

#include <chrono>
#include <cstdint>
#include <map>
#include <mutex>
#include <set>
#include <string>

#include "router/router_reports.h"

namespace bloomroute::router_internal {

class RegionBackoff {
 public:
  // The first backoff, doubled per failure in a row up to the last.
  static constexpr std::chrono::seconds kFirst{60};
  static constexpr std::chrono::seconds kMost{3600};
  // What ListRegions repeats of the error that started a backoff.
  static constexpr size_t kMaxReasonBytes = 1024;

  RegionBackoff() = default;
  RegionBackoff(const RegionBackoff&) = delete;
  RegionBackoff& operator=(const RegionBackoff&) = delete;

  // Notes a failed operation on `region_id` (`reason` cut to
  // kMaxReasonBytes); returns the backoff it gets.
  std::chrono::seconds NoteFailure(uint64_t region_id,
                                   const std::string& reason);
  // An operation on `region_id` succeeded: its failures are forgotten.
  void NoteSuccess(uint64_t region_id);
  // The regions skipped now, dropping the entries of regions not in
  // `existing` (those whose backoff ended are kept, with their count).
  std::set<uint64_t> Skipped(const std::set<uint64_t>& existing);
  // For ListRegions: fills the summary's balancer fields when its region
  // is skipped now.
  void Describe(router::RegionSummary* summary) const;

 private:
  // How often a region failed in a row, until when it is skipped and the
  // last error.
  struct Entry {
    uint32_t failures = 0;
    std::chrono::steady_clock::time_point until;
    std::string reason;
  };
  mutable std::mutex mu_;
  std::map<uint64_t, Entry> regions_;  // guarded by mu_
};

}  // namespace bloomroute::router_internal

#endif  // BLOOMROUTE_ROUTER_COORDINATOR_REGION_BACKOFF_H_
