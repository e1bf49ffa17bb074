// The gate and the written-row note of a running region operation
// (reshape_state.h).
#include "router/internal/reshape_state.h"

#include <algorithm>
#include <iterator>

namespace bloomroute::router_internal {

bool ReshapeState::Covers(uint64_t table, uint64_t region_id) const {
  if (table != table_id) return false;
  return std::any_of(
      sources.begin(), sources.end(),
      [&](const CatalogRegion& r) { return r.region_id == region_id; });
}

void ReshapeState::NoteWritten(const std::string& row) {
  std::lock_guard<std::mutex> lock(mu_);
  if (overflow_) return;
  // About what a set node costs besides the key.
  constexpr uint64_t kNodeBytes = 64;
  if (written_.insert(row).second) {
    written_bytes_ += row.size() + kNodeBytes;
    if (written_bytes_ > kMaxDirtyBytes) overflow_ = true;
  }
}

void ReshapeState::NoteInDoubt() {
  std::lock_guard<std::mutex> lock(mu_);
  in_doubt_ = true;
}

std::vector<std::string> ReshapeState::TakeWritten(bool* overflow,
                                                   bool* in_doubt) {
  std::lock_guard<std::mutex> lock(mu_);
  *overflow = overflow_;
  *in_doubt = in_doubt_;
  std::vector<std::string> out(std::make_move_iterator(written_.begin()),
                               std::make_move_iterator(written_.end()));
  written_.clear();
  written_bytes_ = 0;
  return out;
}

bool ReshapeState::Gate::Enter(std::chrono::steady_clock::time_point deadline) {
  std::unique_lock<std::mutex> lock(mu_);
  if (!cv_.wait_until(lock, deadline, [&] { return !closed_; })) return false;
  ++inside_;
  return true;
}

void ReshapeState::Gate::Leave() {
  std::lock_guard<std::mutex> lock(mu_);
  if (--inside_ == 0) cv_.notify_all();
}

void ReshapeState::Gate::Close() {
  std::unique_lock<std::mutex> lock(mu_);
  closed_ = true;
  cv_.wait(lock, [&] { return inside_ == 0; });
}

void ReshapeState::Gate::Open() {
  std::lock_guard<std::mutex> lock(mu_);
  closed_ = false;
  cv_.notify_all();
}

}  // namespace bloomroute::router_internal
