#include "thrift/server/internal/request_pool.h"

#include <algorithm>
#include <utility>

namespace bloomroute::thrift_internal {
namespace {

// Raises `peak` to `value` unless it is already higher; any thread.
void RaiseTo(std::atomic<uint64_t>& peak, uint64_t value) {
  uint64_t seen = peak.load();
  while (seen < value && !peak.compare_exchange_weak(seen, value)) {
  }
}

}  // namespace

RequestPool::RequestPool(const ServerOptions& options,
                         std::function<bool(Connection&)> run,
                         std::function<void()> done)
    : threads_(options.threads),
      max_request_bytes_(options.max_buffered_request_bytes),
      max_reply_bytes_(options.max_buffered_reply_bytes),
      workers_(
          options.threads,
          [run = std::move(run)](ConnectionPtr& c) { return run(*c); },
          std::move(done)) {}

bool RequestPool::Reserve(const ConnectionPtr& c) {
  if (pool_waiters_.empty() && TryReserve(*c)) return true;
  c->waiting_for_pool = true;
  pool_waiters_.push_back(c);
  pool_waits_.fetch_add(1);
  return false;
}

bool RequestPool::TryReserve(Connection& c) {
  const uint64_t more = c.frame_bytes - c.reserved;
  if (reserved_bytes_.load() + more > max_request_bytes_) return false;
  reserved_bytes_.fetch_add(more);
  c.reserved = c.frame_bytes;
  GrowFrame(c,
            std::min<size_t>(c.frame_bytes, c.frame.size() + kReadChunkBytes));
  return true;
}

void RequestPool::GrantWaiting() {
  // A granted connection is polled again from the next round (its bytes
  // wait in the kernel's buffers).
  while (!pool_waiters_.empty()) {
    Connection& c = *pool_waiters_.front();
    if (!c.closed) {
      if (!TryReserve(c)) return;
      c.waiting_for_pool = false;
    }
    pool_waiters_.pop_front();
  }
}

void RequestPool::GrowFrame(Connection& c, size_t need) {
  const size_t capacity = c.frame.capacity();
  if (need <= capacity) return;
  c.frame.reserve(
      std::min<size_t>(c.frame_bytes, std::max(need, 2 * capacity)));
  const uint64_t held = held_bytes_.fetch_add(c.frame.capacity() - capacity) +
                        (c.frame.capacity() - capacity);
  if (held > peak_held_bytes_.load()) peak_held_bytes_.store(held);
}

void RequestPool::FreeFrame(Connection& c) {
  held_bytes_.fetch_sub(c.frame.capacity());
  std::vector<uint8_t>().swap(c.frame);
  reserved_bytes_.fetch_sub(c.reserved);
  c.reserved = 0;
}

void RequestPool::HoldReply(Connection& c) {
  c.reply_held = c.reply->getBufferSize();
  RaiseTo(largest_reply_bytes_, c.reply_held);
  RaiseTo(peak_reply_bytes_,
          held_reply_bytes_.fetch_add(c.reply_held) + c.reply_held);
}

void RequestPool::ReleaseReply(Connection& c) {
  c.reply.reset();
  held_reply_bytes_.fetch_sub(c.reply_held);
  c.reply_held = 0;
}

void RequestPool::Enqueue(const ConnectionPtr& c) {
  if (held_reply_bytes_.load() > max_reply_bytes_) reply_waits_.fetch_add(1);
  c->waiting_for_call = true;
  call_waiters_.push_back(c);
  StartCalls();
}

bool RequestPool::ArmWakeUps(bool owner_waits) {
  return workers_.WakeOnEveryDone(owner_waits || !call_waiters_.empty() ||
                                  !pool_waiters_.empty());
}

void RequestPool::StartCalls() {
  // Replies are released by the I/O thread, which runs this once per
  // round, or by a worker that sent its reply whole, which wakes the I/O
  // thread while frames wait (ArmWakeUps); so a frame waits no longer than
  // the bytes held above the bound do.
  while (!call_waiters_.empty() && calls_in_flight_ < threads_ &&
         held_reply_bytes_.load() <= max_reply_bytes_) {
    ConnectionPtr c = std::move(call_waiters_.front());
    call_waiters_.pop_front();
    if (c->closed) continue;
    c->waiting_for_call = false;
    c->state = Connection::State::kRunning;
    c->NextRequest();
    ++calls_in_flight_;
    workers_.Submit(std::move(c));
  }
}

std::vector<ConnectionPtr> RequestPool::TakeFinished() {
  std::vector<ConnectionPtr> done = workers_.TakeDone();
  calls_in_flight_ -= static_cast<uint32_t>(done.size());
  return done;
}

void RequestPool::Stop() {
  workers_.Stop();
  pool_waiters_.clear();
  call_waiters_.clear();
}

RequestBufferStats RequestPool::request_stats() const {
  RequestBufferStats stats;
  stats.held_bytes = held_bytes_.load();
  stats.peak_held_bytes = peak_held_bytes_.load();
  stats.reserved_bytes = reserved_bytes_.load();
  stats.pool_waits = pool_waits_.load();
  return stats;
}

ReplyBufferStats RequestPool::reply_stats() const {
  ReplyBufferStats stats;
  stats.held_bytes = held_reply_bytes_.load();
  stats.peak_held_bytes = peak_reply_bytes_.load();
  stats.largest_reply_bytes = largest_reply_bytes_.load();
  stats.waits = reply_waits_.load();
  return stats;
}

}  // namespace bloomroute::thrift_internal
