// OpSubscriber: one router's op subscriptions to the region servers, and
// the pushes they bring (model/op_push.h; regionstore/op_subscriptions.h is
// the server's side). Keeps invariant 1 across routers: a replica counts as
// current only while its lease is valid on this router's clock and no push
// was missed (GlobalIndex, "Leases").
//
// Renew(server, client) subscribes or renews. The lease is counted from
// before the request is sent, minus the margin:
//   until = t_send + L - LeaseMarginMs(L)  <=  the server's t_recv + L.
// A grant that is not a renewal (a new subscription: the first, one after
// the lease lapsed, after a failed push, or after a server restart) may
// follow missed ops, so the replica is first marked stale (GlobalIndex::
// MarkStale: current again only after a catch-up that begins after the
// grant) and only then given its lease. A renewal extends the lease: every
// push of the subscription was acknowledged, so the replica holds every op
// the server acknowledged writes with.
//
// OnPush(push) applies a push to the replica exactly as a write's reply
// (GlobalIndex::ApplyWriteResult: ops already held are skipped, a gap or
// another epoch leaves the replica not current until it catches up) and
// returns OK: the server may then acknowledge the write. Pushes are
// untrusted: a tag naming no server is NotFound (not applied), ops out of
// order stop at the first that does not follow (ApplyWriteResult), and a
// push with more than kMaxOpsPerPush ops is InvalidArgument.
//
// Thread-safety: every method may be called concurrently; Renew calls of
// one server should not overlap (maintenance makes them one at a time).
//
//   OpSubscriber subscriber(index, {router_id, "host:9190", 10000, clock});
//   if (subscriber.RenewalDue(server)) (void)subscriber.Renew(server, client);
//   (void)index->CatchUp(server, client);  // after a new subscription
#ifndef BLOOMROUTE_ROUTER_OP_SUBSCRIBER_H_
#define BLOOMROUTE_ROUTER_OP_SUBSCRIBER_H_

#include <cstdint>
#include <functional>
#include <map>
#include <mutex>
#include <string>

#include "common/status.h"
#include "model/op_push.h"
#include "router/global_index.h"
#include "router/region_client.h"

namespace bloomroute::router {

class OpSubscriber {
 public:
  struct Options {
    uint64_t router_id = 0;    // as in the fence tokens; nonzero
    std::string push_address;  // where servers push to
    int64_t lease_ms = 10000;  // L
    // The router's monotonic clock in ms (non-null): the index's lease
    // clock.
    std::function<int64_t()> clock;
    // Per process; 0 draws one at random.
    uint64_t session = 0;
  };
  static constexpr size_t kMaxOpsPerPush = 1000000;

  // `index` (created with leases, the same clock) must outlive this.
  OpSubscriber(GlobalIndex* index, Options options);
  OpSubscriber(const OpSubscriber&) = delete;
  OpSubscriber& operator=(const OpSubscriber&) = delete;

  // Subscribes to or renews with `server` (see above). The client's error
  // when the call fails (the lease is left to lapse); Corruption for a
  // grant of another lease than asked.
  [[nodiscard]] Status Renew(ServerId server, RegionClient& client);
  // Whether a third of the lease has passed since it was last granted (or
  // none was): renewing then leaves two thirds for the call.
  bool RenewalDue(ServerId server) const;
  // Applies a push (see above).
  [[nodiscard]] Status OnPush(const OpPush& push);

  uint64_t session() const { return options_.session; }
  const Options& options() const { return options_; }

 private:
  GlobalIndex* const index_;
  Options options_;
  mutable std::mutex mu_;
  std::map<ServerId, int64_t> granted_at_;  // guarded by mu_: t_send
};

}  // namespace bloomroute::router

#endif  // BLOOMROUTE_ROUTER_OP_SUBSCRIBER_H_
