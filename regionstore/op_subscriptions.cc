#include "regionstore/op_subscriptions.h"

#include <algorithm>
#include <chrono>
#include <tuple>
#include <utility>

namespace bloomroute {

struct OpSubscriptions::Subscriber {
  uint64_t router_id = 0;
  uint64_t session = 0;
  uint64_t tag = 0;
  std::string address;
  std::unique_ptr<OpPushSink> sink;  // used by the pushing thread only
  std::thread thread;
  // Guarded by OpSubscriptions::mu_.
  int64_t lease_end = 0;  // on the server's clock
  bool failed = false;    // a push failed: no more pushes
  bool dropped = false;   // out of by_router_; the thread exits
  bool exited = false;    // the thread returned (it can be joined)
  uint64_t incarnation = 0;
  uint64_t acked_epoch = 0;  // what the router acknowledged holding
  uint64_t acked_seq = 0;

  bool Holds(uint64_t epoch, uint64_t seq) const {
    return std::tie(acked_epoch, acked_seq) >= std::tie(epoch, seq);
  }
};

OpSubscriptions::OpSubscriptions(Options options, OpsSource ops,
                                 StatusSource status)
    : options_(std::move(options)),
      ops_(std::move(ops)),
      status_(std::move(status)) {
  quiet_until_ =
      Now() + options_.max_lease_ms + LeaseMarginMs(options_.max_lease_ms);
}

OpSubscriptions::~OpSubscriptions() {
  std::unique_lock<std::mutex> lock(mu_);
  stopping_ = true;
  for (auto& entry : by_router_) {
    entry.second->dropped = true;
    dropped_.push_back(entry.second);
  }
  by_router_.clear();
  count_ = 0;
  cv_.notify_all();
  lock.unlock();
  // The threads exit after the push under way; joined without mu_.
  for (auto& sub : dropped_) {
    if (sub->thread.joinable()) sub->thread.join();
  }
}

int64_t OpSubscriptions::Now() const {
  if (options_.monotonic_ms) return options_.monotonic_ms();
  return std::chrono::duration_cast<std::chrono::milliseconds>(
             std::chrono::steady_clock::now().time_since_epoch())
      .count();
}

namespace {

Status ValidateRequest(const OpSubscribeRequest& r, size_t max_address,
                       int64_t max_lease_ms) {
  if (r.router_id == 0 || r.router_id > kMaxFenceRouterId) {
    return Status::InvalidArgument("router id " + std::to_string(r.router_id) +
                                   " is outside [1, " +
                                   std::to_string(kMaxFenceRouterId) + "]");
  }
  if (r.lease_ms < OpSubscribeRequest::kMinLeaseMs ||
      r.lease_ms > max_lease_ms) {
    return Status::InvalidArgument(
        "lease of " + std::to_string(r.lease_ms) + " ms is outside [" +
        std::to_string(OpSubscribeRequest::kMinLeaseMs) + ", " +
        std::to_string(max_lease_ms) + "]");
  }
  if (r.address.empty() || r.address.size() > max_address) {
    return Status::InvalidArgument("push address must be 1 to " +
                                   std::to_string(max_address) + " bytes");
  }
  return Status::OK();
}

}  // namespace

StatusOr<OpSubscribeGrant> OpSubscriptions::Subscribe(
    const OpSubscribeRequest& request) {
  BLOOMROUTE_RETURN_IF_ERROR(
      ValidateRequest(request, kMaxAddressBytes, options_.max_lease_ms));
  // The lease counts from when the request arrived, before anything that
  // may take time (model/op_push.h: server end = t_recv + L).
  const int64_t received = Now();
  std::unique_lock<std::mutex> lock(mu_);
  if (stopping_) return Status::Unavailable("the server is stopping");
  DropExpiredLocked(received);
  ReapLocked(false);
  auto it = by_router_.find(request.router_id);
  if (it != by_router_.end()) {
    Subscriber& old = *it->second;
    if (!old.failed && old.session == request.session &&
        old.address == request.address && old.tag == request.tag) {
      old.lease_end = std::max(old.lease_end, received + request.lease_ms);
      return OpSubscribeGrant{true, old.incarnation, old.acked_epoch,
                              old.acked_seq, request.lease_ms};
    }
    // Another process of that router, or one that missed a push: the old
    // subscription keeps its lease end for the writers waiting on it.
    DropLocked(it->second);
  }
  return StartLocked(request, received);
}

StatusOr<OpSubscribeGrant> OpSubscriptions::StartLocked(
    const OpSubscribeRequest& request, int64_t received) {
  if (by_router_.size() >= options_.max_subscribers) {
    return Status::Unavailable("this server holds " +
                               std::to_string(options_.max_subscribers) +
                               " op subscriptions, its limit");
  }
  BLOOMROUTE_ASSIGN_OR_RETURN(
      std::unique_ptr<OpPushSink> sink,
      options_.sinks->Connect(request.router_id, request.address));
  auto sub = std::make_shared<Subscriber>();
  sub->router_id = request.router_id;
  sub->session = request.session;
  sub->tag = request.tag;
  sub->address = request.address;
  sub->sink = std::move(sink);
  sub->lease_end = received + request.lease_ms;
  // Read under mu_, after every commit whose writer found no subscriber:
  // the router's catch-up after this grant covers those (see
  // AwaitDelivered); later commits are pushed.
  const FilterStatus status = status_();
  sub->incarnation = status.incarnation;
  sub->acked_epoch = status.epoch;
  sub->acked_seq = status.last_seq;
  by_router_[request.router_id] = sub;
  count_ = by_router_.size();
  sub->thread = std::thread([this, sub] { PushLoop(sub); });
  return OpSubscribeGrant{false, status.incarnation, status.epoch,
                          status.last_seq, request.lease_ms};
}

void OpSubscriptions::DropLocked(const std::shared_ptr<Subscriber>& sub) {
  // A copy first: `sub` may be the map's own entry, which the erase below
  // destroys (ASan saw the read after it).
  const std::shared_ptr<Subscriber> kept = sub;
  kept->dropped = true;
  auto it = by_router_.find(kept->router_id);
  if (it != by_router_.end() && it->second == kept) by_router_.erase(it);
  count_ = by_router_.size();
  dropped_.push_back(kept);
  cv_.notify_all();
}

void OpSubscriptions::DropExpiredLocked(int64_t now) {
  std::vector<std::shared_ptr<Subscriber>> expired;
  for (const auto& entry : by_router_) {
    if (entry.second->lease_end <= now) expired.push_back(entry.second);
  }
  for (const auto& sub : expired) DropLocked(sub);
}

void OpSubscriptions::ReapLocked(bool all) {
  auto done = std::partition(dropped_.begin(), dropped_.end(),
                             [all](const std::shared_ptr<Subscriber>& s) {
                               return !all && !s->exited;
                             });
  for (auto it = done; it != dropped_.end(); ++it) {
    // An exited thread only has to return: joining it is immediate.
    if ((*it)->thread.joinable()) (*it)->thread.join();
  }
  dropped_.erase(done, dropped_.end());
}

void OpSubscriptions::AwaitQuietPeriodOver() {
  std::unique_lock<std::mutex> lock(mu_);
  while (!stopping_ && Now() < quiet_until_) {
    cv_.wait_for(lock, std::chrono::milliseconds(options_.poll_ms));
  }
  quiet_over_ = true;
}

void OpSubscriptions::AwaitDelivered(uint64_t sender_router,
                                     const WriteResult& result) {
  // No subscriber: nothing to wait for. seq_cst pairs with Subscribe's
  // store of the count: a writer that reads 0 read it before that store, so
  // the grant was answered after this write committed, and the router's
  // catch-up after the grant holds the write.
  if (!quiet_over_.load()) AwaitQuietPeriodOver();
  if (count_.load() == 0) return;
  std::unique_lock<std::mutex> lock(mu_);
  if (std::tie(result.epoch, result.last_seq) >
      std::tie(target_epoch_, target_seq_)) {
    target_epoch_ = result.epoch;
    target_seq_ = result.last_seq;
  }
  cv_.notify_all();
  std::vector<std::shared_ptr<Subscriber>> waiting =
      WaitingLocked(sender_router, result.incarnation);
  while (!stopping_ && !waiting.empty()) {
    const int64_t now = Now();
    for (size_t i = 0; i < waiting.size();) {
      Subscriber& s = *waiting[i];
      if (s.Holds(result.epoch, result.last_seq)) {
        waiting[i] = waiting.back();
        waiting.pop_back();
      } else if (s.lease_end <= now) {
        // (b): the router's own lease ended first; it asks this server.
        if (!s.dropped) DropLocked(waiting[i]);
        waiting[i] = waiting.back();
        waiting.pop_back();
      } else {
        ++i;
      }
    }
    if (waiting.empty()) break;
    cv_.wait_for(lock, std::chrono::milliseconds(options_.poll_ms));
  }
}

std::vector<std::shared_ptr<OpSubscriptions::Subscriber>>
OpSubscriptions::WaitingLocked(uint64_t sender_router,
                               uint64_t incarnation) const {
  std::vector<std::shared_ptr<Subscriber>> waiting;
  const int64_t now = Now();
  for (const auto& entry : by_router_) {
    const Subscriber& s = *entry.second;
    if (s.router_id == sender_router || s.lease_end <= now) continue;
    if (s.incarnation != incarnation) continue;  // another run
    waiting.push_back(entry.second);
  }
  return waiting;
}

void OpSubscriptions::PushLoop(const std::shared_ptr<Subscriber>& sub) {
  std::unique_lock<std::mutex> lock(mu_);
  while (!sub->dropped && !sub->failed) {
    if (sub->Holds(target_epoch_, target_seq_)) {
      cv_.wait_for(lock, std::chrono::milliseconds(options_.poll_ms));
      continue;
    }
    const uint64_t epoch = sub->acked_epoch, seq = sub->acked_seq;
    if (!PushOnce(*sub, &lock)) {
      sub->failed = true;
      cv_.notify_all();
    } else if (sub->acked_epoch == epoch && sub->acked_seq == seq) {
      // The log had nothing newer yet (a target of a later epoch than
      // the ops read): look again shortly instead of spinning.
      cv_.wait_for(lock, std::chrono::milliseconds(options_.poll_ms));
    }
  }
  sub->exited = true;
}

bool OpSubscriptions::PushOnce(Subscriber& sub,
                               std::unique_lock<std::mutex>* lock) {
  const uint64_t epoch = sub.acked_epoch;
  const uint64_t seq = sub.acked_seq;
  const uint64_t incarnation = sub.incarnation;
  lock->unlock();
  OpPush push;
  push.tag = sub.tag;
  push.after_seq = seq;
  StatusOr<FilterOpsSince> ops = ops_(incarnation, epoch, seq);
  if (ops.ok() && !ops->too_old && ops->epoch == epoch &&
      ops->incarnation == incarnation) {
    push.result.incarnation = incarnation;
    push.result.epoch = epoch;
    push.result.last_seq =
        ops->ops.empty() ? ops->last_seq : ops->ops.back().seq;
    push.result.ops = std::move(ops->ops);
  } else {
    // The log cannot say what happened since: tell the router where the
    // filter is; it takes a snapshot.
    const FilterStatus status = status_();
    push.result.incarnation = status.incarnation;
    push.result.epoch = status.epoch;
    push.result.last_seq = status.last_seq;
  }
  const Status delivered = sub.sink->Push(push);
  ++pushes_;
  lock->lock();
  if (!delivered.ok()) {
    ++failed_pushes_;
    return false;
  }
  if (!sub.Holds(push.result.epoch, push.result.last_seq)) {
    sub.acked_epoch = push.result.epoch;
    sub.acked_seq = push.result.last_seq;
  }
  cv_.notify_all();
  return true;
}

}  // namespace bloomroute
