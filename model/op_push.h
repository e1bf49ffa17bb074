// Many routers over one region server: whose a write fence token is, and
// the op subscriptions that keep every router's filter replica current
// (../shared/DESIGN.md, invariants 1 and 8).
//
// Router fence tokens. A fence token (RegionStore::Apply, RaiseFence)
// names the router that sent it: its top kFenceRouterBits bits are the
// router's id, the rest the router's own token. A region server keeps one
// fence per router id, so one router's catch-up never refuses another
// router's writes. Token 0 (a writer other than a router) is never fenced.
// Router id 0 is what tokens of routers that predate ids carry.
//
// Op subscriptions. A router subscribes to a region server's op stream
// with a lease (OpSubscribeRequest); the server then pushes every filter op
// it commits to the router (OpPush) and acknowledges a write only once each
// router holding an unexpired lease acknowledged the push of the write's
// ops, or that router's lease ended on the server's clock. Lease
// arithmetic (as ZooKeeper's sessions): the server counts lease L from
// when it received the request on its monotonic clock, the router from
// *before it sent* the request, minus a margin for clock-rate drift:
//   server end = t_recv + L,  router end = t_send + L - m,
//   m = max(L / 10, kLeaseMarginFloorMs).
// t_send <= t_recv in real time, so while the two monotonic clocks drift
// apart by less than m over L, the router's end comes first: once a server
// gives up on a router (its lease ended), that router already treats the
// server's replica as not current and asks the server.
#ifndef BLOOMROUTE_MODEL_OP_PUSH_H_
#define BLOOMROUTE_MODEL_OP_PUSH_H_

#include <algorithm>
#include <cstdint>
#include <string>

#include "model/region_protocol.h"

namespace bloomroute {

inline constexpr int kFenceRouterBits = 16;
inline constexpr int kFenceRouterShift = 64 - kFenceRouterBits;
inline constexpr uint64_t kMaxFenceRouterId =
    (uint64_t{1} << kFenceRouterBits) - 1;
inline constexpr uint64_t kFenceLocalMask =
    (uint64_t{1} << kFenceRouterShift) - 1;

// The router a fence token names.
constexpr uint64_t FenceRouterId(uint64_t token) {
  return token >> kFenceRouterShift;
}
// The token `local` (below 2^48) of router `router_id` (at most
// kMaxFenceRouterId); bits past either are dropped.
constexpr uint64_t MakeFenceToken(uint64_t router_id, uint64_t local) {
  return (router_id & kMaxFenceRouterId) << kFenceRouterShift |
         (local & kFenceLocalMask);
}

// The lease margin a router subtracts (see above).
inline constexpr int64_t kLeaseMarginFloorMs = 50;
constexpr int64_t LeaseMarginMs(int64_t lease_ms) {
  return std::max(lease_ms / 10, kLeaseMarginFloorMs);
}

// A router asks a region server to push it the ops it commits.
struct OpSubscribeRequest {
  uint64_t router_id = 0;  // as in its fence tokens; nonzero
  // Drawn at random per router process: a renewal continues a
  // subscription only when router id, session and address are the same.
  uint64_t session = 0;
  std::string address;   // where the server pushes (host:port, or a name)
  int64_t lease_ms = 0;  // in [kMinLeaseMs, kMaxLeaseMs]
  // Echoed in every push (the router's name for this server).
  uint64_t tag = 0;
  static constexpr int64_t kMinLeaseMs = 100;
  static constexpr int64_t kMaxLeaseMs = 600000;
};

// The server's answer. `renewed`: the subscription continued one whose
// every push the router acknowledged; otherwise it is new, starts at
// (incarnation, epoch, last_seq), and the router may have missed ops before
// it, so it must catch up before it trusts its replica.
struct OpSubscribeGrant {
  bool renewed = false;
  uint64_t incarnation = 0;
  uint64_t epoch = 0;
  uint64_t last_seq = 0;
  int64_t lease_ms = 0;  // what the server granted (the request's)
};

// One push: the ops of (incarnation, epoch) after `after_seq` up to
// result.last_seq, in order, as a WriteResult carries them. With no ops
// and an epoch or incarnation the router does not hold, it says that the
// router is behind (the server could not supply the ops: take a snapshot).
struct OpPush {
  uint64_t tag = 0;  // OpSubscribeRequest::tag
  uint64_t after_seq = 0;
  WriteResult result;
};

}  // namespace bloomroute

#endif  // BLOOMROUTE_MODEL_OP_PUSH_H_
