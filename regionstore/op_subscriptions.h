// OpSubscriptions: the routers subscribed to a region server's filter ops,
// and the pushes that keep their replicas current before a write is
// acknowledged (model/op_push.h has the protocol and the lease arithmetic;
// ../shared/DESIGN.md, invariant 8).
//
// The contract a write relies on. AwaitDelivered(sender, result), called
// after the write committed and before it is acknowledged, returns once,
// for every subscription other than the sender's that held an unexpired
// lease when it was called, either
//   (a) the router acknowledged a push holding every op up to
//       (result.epoch, result.last_seq) -- a write with no ops waits too: its
//       row may rely on an insert of a concurrent write -- or
//   (b) the subscription's lease ended on the server's clock (then it is
//       dropped; the router, whose own lease ended first, already asks the
//       server on every lookup).
// The sender needs no wait: the write's reply carries its ops (its
// subscription's stream still carries them, so that stream stays
// contiguous; the router skips ops it holds).
//
// Pushes. Each subscription has one thread that pushes the op log's ops
// after what the router acknowledged, read with the store's OpsSince (so a
// push may carry several writes' ops, and a router that fell behind gets
// every op in between), one push at a time: one router's pushes are in seq
// order and contiguous, so a router sees any gap. When the log cannot
// supply them (another epoch after a compaction, ops trimmed), the push
// carries the filter's (incarnation, epoch, last_seq) and no ops: the
// router's replica is then not current until it catches up. A push that
// fails marks the subscription failed: no more pushes, and writers wait for
// its lease to end (b). Subscriptions to different routers push in
// parallel.
//
// Where the waiting happens: a writer waits on this class's condition
// variable only, holding none of the store's locks (no row lock, no filter
// lock, no regions lock): the store calls AwaitDelivered after its write
// returned. Pushing threads read the op log without the filter lock held
// across the push. Lock order: mu_ before the filter lock (Subscribe reads
// the filter's status under mu_); nothing here is called under the filter
// lock.
//
// Restarts. Subscriptions live in memory, so a new run of the server knows
// none, while routers may still hold leases the previous run granted and
// trust their replicas. So for Options::max_lease_ms plus its margin after
// the subscriptions are created (the server's start), every write waits
// before it is acknowledged: by then every lease an earlier run granted
// has ended on its router's clock, and that router asks this server until
// it subscribed again and caught up.
//
// Cost with no subscriber: after that start-up wait, AwaitDelivered reads
// two atomics (seq_cst; see the .cc for why that suffices) and returns.
//
// Renewal. Subscribe with the same router id, session and address and an
// unexpired lease, on a subscription whose every push was acknowledged,
// extends the lease from now and answers renewed; anything else starts a
// new subscription at the filter's current (epoch, last_seq) (the old one,
// if any, keeps its lease end for the writers waiting on it). At most
// Options::max_subscribers subscriptions (Unavailable past it).
//
// Thread-safety: every method may be called concurrently. The destructor
// stops the pushing threads (a push under way finishes first: sinks bound
// their calls' time) and releases every waiting writer.
#ifndef BLOOMROUTE_REGIONSTORE_OP_SUBSCRIPTIONS_H_
#define BLOOMROUTE_REGIONSTORE_OP_SUBSCRIPTIONS_H_

#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "common/statusor.h"
#include "model/op_push.h"
#include "model/region_protocol.h"

namespace bloomroute {

// Where a region server pushes one router's ops. Owned by the region
// server's side: thrift/ implements it over RPC, tests in process.
class OpPushSink {
 public:
  virtual ~OpPushSink() = default;
  // Delivers one push. OK only once the router applied it to its replica
  // (or recorded that the replica is behind); any error means it may not
  // have. Must return within a bounded time (an RPC sink: its timeout).
  // Called by one thread at a time per sink.
  [[nodiscard]] virtual Status Push(const OpPush& push) = 0;

 protected:
  OpPushSink() = default;
};

class OpPushSinkFactory {
 public:
  virtual ~OpPushSinkFactory() = default;
  // A sink for router `router_id` at `address`; should connect lazily (then
  // errors show up in Push): it is called under the subscriptions' lock, so
  // it must not block for long. InvalidArgument for a malformed address.
  virtual StatusOr<std::unique_ptr<OpPushSink>> Connect(
      uint64_t router_id, const std::string& address) = 0;

 protected:
  OpPushSinkFactory() = default;
};

class OpSubscriptions {
 public:
  struct Options {
    std::shared_ptr<OpPushSinkFactory> sinks;  // required
    // The server's monotonic clock in ms; null = std::chrono::steady_clock.
    std::function<int64_t()> monotonic_ms;
    size_t max_subscribers = 64;
    // The longest lease granted (requests asking more are refused), and so
    // the start-up wait (see "Restarts").
    int64_t max_lease_ms = 15000;
    // How often a waiting writer or pushing thread looks at the clock again
    // when nothing wakes it (a test's clock moves without notice).
    int64_t poll_ms = 5;
  };
  // The store's op log and status (RegionStore::OpsSince, GetFilterStatus).
  using OpsSource = std::function<StatusOr<FilterOpsSince>(
      uint64_t incarnation, uint64_t epoch, uint64_t seq)>;
  using StatusSource = std::function<FilterStatus()>;

  OpSubscriptions(Options options, OpsSource ops, StatusSource status);
  ~OpSubscriptions();
  OpSubscriptions(const OpSubscriptions&) = delete;
  OpSubscriptions& operator=(const OpSubscriptions&) = delete;

  // Starts or renews a subscription (see "Renewal"). InvalidArgument for a
  // router id of 0 or above kMaxFenceRouterId, a lease outside
  // [kMinLeaseMs, Options::max_lease_ms], an empty address or one over
  // kMaxAddressBytes; Unavailable when max_subscribers are held; the sink
  // factory's error when it cannot connect.
  StatusOr<OpSubscribeGrant> Subscribe(const OpSubscribeRequest& request);
  static constexpr size_t kMaxAddressBytes = 1024;

  // See "The contract a write relies on". `sender_router`: the router id of
  // the write's fence token (0: none). Call with no store lock held.
  void AwaitDelivered(uint64_t sender_router, const WriteResult& result);

  // Subscriptions held now (expired ones may still count until the next
  // call notices).
  size_t Count() const { return count_.load(); }
  // Pushes made and failed since construction, for metrics and tests.
  uint64_t pushes() const { return pushes_.load(); }
  uint64_t failed_pushes() const { return failed_pushes_.load(); }

  struct Subscriber;  // defined in the .cc

 private:
  int64_t Now() const;
  // Waits out the start-up period (see "Restarts").
  void AwaitQuietPeriodOver();
  // A new subscription (Subscribe's second half). Under mu_.
  StatusOr<OpSubscribeGrant> StartLocked(const OpSubscribeRequest& request,
                                         int64_t received);
  // The subscriptions a write of `sender_router` waits for: every other
  // router's with an unexpired lease, of the write's incarnation. Under mu_.
  std::vector<std::shared_ptr<Subscriber>> WaitingLocked(
      uint64_t sender_router, uint64_t incarnation) const;
  void PushLoop(const std::shared_ptr<Subscriber>& sub);
  // One push of what `sub` lacks; false when it failed.
  bool PushOnce(Subscriber& sub, std::unique_lock<std::mutex>* lock);
  // Drops subscriptions whose lease ended. Under mu_.
  void DropExpiredLocked(int64_t now);
  void DropLocked(const std::shared_ptr<Subscriber>& sub);
  // Joins the threads of dropped subscriptions that have exited.
  void ReapLocked(bool all);

  const Options options_;
  const OpsSource ops_;
  const StatusSource status_;
  std::atomic<size_t> count_{0};
  int64_t quiet_until_ = 0;  // set by the constructor
  std::atomic<bool> quiet_over_{false};
  std::atomic<uint64_t> pushes_{0};
  std::atomic<uint64_t> failed_pushes_{0};

  mutable std::mutex mu_;
  std::condition_variable cv_;  // acks, failures, new targets, stop
  // Guarded by mu_.
  bool stopping_ = false;
  uint64_t target_epoch_ = 0;  // the newest (epoch, seq) a writer awaits
  uint64_t target_seq_ = 0;
  std::map<uint64_t, std::shared_ptr<Subscriber>> by_router_;
  std::vector<std::shared_ptr<Subscriber>> dropped_;  // threads to join
};

}  // namespace bloomroute

#endif  // BLOOMROUTE_REGIONSTORE_OP_SUBSCRIPTIONS_H_
