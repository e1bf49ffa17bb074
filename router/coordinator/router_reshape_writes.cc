// How writes meet a running region operation (router_reshape.cc has the
// operation itself). A write to rows of the operation's sources enters the
// operation's gate while it routes and writes, and notes its rows; the
// switch closes the gate, copies the noted rows a last time and switches
// the table, and the writes that waited route again, to the new regions.
//
// Which writes take part is decided from the table state a write routes
// with (TableState::reshape, set while the state's record has the
// operation copying), never from a second look at the router: a write that
// took a state naming the sources must either be waited for by the copy
// (a state from before the operation was recorded: the copy starts once
// all of those are let go) or go through the gate (a state that has the
// operation). A second look could find the operation already ended and
// let the write reach a source that is about to be dropped.
#include <algorithm>
#include <chrono>
#include <utility>

#include "common/sync_point.h"
#include "router/internal/router_impl.h"

namespace bloomroute::router_internal {

namespace {

// How long a write waits at a closed gate. A switch closes it for its last
// catch-up round and one catalog write (and at most kSwitchLockWait for
// the catalog lock): far below this. A switch whose catalog write failed
// keeps it closed until maintenance has written it; writes then fail
// (Unavailable, nothing written) rather than hold a worker.
constexpr auto kGateWaitLimit = std::chrono::seconds(30);

// Whether a write failure leaves the write in doubt (it may still commit):
// anything but a refusal that wrote nothing (RouterImpl::WriteFailed).
bool InDoubt(const Status& s) {
  return !s.ok() && !s.IsInvalidArgument() && !s.IsNotFound() && !s.IsAborted();
}

}  // namespace

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

void WriteRoute::Note(const std::string& row, size_t region,
                      const Status& status) const {
  if (op == nullptr) return;
  if (!op->Covers(state->record.descriptor.table_id,
                  state->record.regions[region].region_id)) {
    return;
  }
  op->NoteWritten(row);
  if (InDoubt(status)) op->NoteInDoubt();
}

WriteRoute::WriteRoute(WriteRoute&& other) noexcept
    : state(std::move(other.state)), op(std::move(other.op)) {}

WriteRoute::~WriteRoute() {
  if (op != nullptr) op->gate.Leave();
}

StatusOr<WriteRoute> RouterImpl::RouteWrite(
    std::string_view table, const std::vector<std::string_view>& rows) {
  const auto deadline = std::chrono::steady_clock::now() + kGateWaitLimit;
  for (;;) {
    WriteRoute route;
    BLOOMROUTE_ASSIGN_OR_RETURN(route.state, FindTable(table));
    BLOOMROUTE_SYNC_POINT("RouteWrite:StateTaken");
    const std::shared_ptr<ReshapeState>& op = route.state->reshape;
    if (op == nullptr) return route;
    const uint64_t id = route.state->record.descriptor.table_id;
    const bool touches = std::any_of(rows.begin(), rows.end(), [&](auto row) {
      const size_t r = route.state->RegionFor(row);
      return op->Covers(id, route.state->record.regions[r].region_id);
    });
    if (!touches) return route;
    if (!op->gate.Enter(deadline)) {
      return Status::Unavailable(
          "writes to a region of table " + QuoteForMessage(table) +
          " wait for the switch of a region operation, which did not end "
          "within 30 s; nothing was written, try again");
    }
    route.op = op;  // left by ~WriteRoute
    // Switched while we waited: the switch published the table with the
    // new regions before it opened the gate; route again with it.
    if (!route.op->switched) return route;
  }
}

}  // namespace bloomroute::router_internal
