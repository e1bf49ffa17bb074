#include "router/coordinator/region_backoff.h"

#include <algorithm>

namespace bloomroute::router_internal {

std::chrono::seconds RegionBackoff::NoteFailure(uint64_t region_id,
                                                const std::string& reason) {
  std::lock_guard<std::mutex> lock(mu_);
  Entry& b = regions_[region_id];
  b.failures = std::min<uint32_t>(b.failures + 1, 32);
  // 60 s, 120 s, 240 s, ... up to an hour.
  std::chrono::seconds backoff = kFirst;
  for (uint32_t i = 1; i < b.failures && backoff < kMost; ++i) {
    backoff *= 2;
  }
  backoff = std::min(backoff, kMost);
  b.until = std::chrono::steady_clock::now() + backoff;
  b.reason = reason.size() > kMaxReasonBytes ? reason.substr(0, kMaxReasonBytes)
                                             : reason;
  return backoff;
}

void RegionBackoff::NoteSuccess(uint64_t region_id) {
  std::lock_guard<std::mutex> lock(mu_);
  regions_.erase(region_id);
}

std::set<uint64_t> RegionBackoff::Skipped(const std::set<uint64_t>& existing) {
  const auto now = std::chrono::steady_clock::now();
  std::set<uint64_t> out;
  std::lock_guard<std::mutex> lock(mu_);
  for (auto it = regions_.begin(); it != regions_.end();) {
    if (existing.count(it->first) == 0) {
      it = regions_.erase(it);
      continue;
    }
    if (it->second.until > now) out.insert(it->first);
    ++it;
  }
  return out;
}

void RegionBackoff::Describe(router::RegionSummary* summary) const {
  std::lock_guard<std::mutex> lock(mu_);
  auto it = regions_.find(summary->region_id);
  if (it == regions_.end()) return;
  const auto now = std::chrono::steady_clock::now();
  if (it->second.until <= now) return;
  summary->balancer_skipped = it->second.reason;
  // Rounded up: a region skipped for 0.4 s more says 1.
  summary->balancer_retry_seconds = static_cast<uint64_t>(
      std::chrono::ceil<std::chrono::seconds>(it->second.until - now).count());
}

}  // namespace bloomroute::router_internal
