// The flags of op subscriptions (model/op_push.h), which keep every
// router's filter replicas current when several routers write to one
// cluster: a region server pushes each router the ops it commits and
// acknowledges a write only once every subscribed router holds them.
//
// Region server:
//   --op-push                  accept subscriptions (subscribeOps) and push
//   --max-op-lease MS          the longest lease granted; after a start,
//                              writes wait this long plus a tenth before
//                              they are acknowledged (a router may still
//                              trust a lease the previous run granted)
// Router:
//   --op-push-listen HOST:PORT serve OpPushService there and subscribe to
//                              every region server (off: one router, whose
//                              replicas follow its own writes)
//   --op-push-advertise H:P    the address region servers push to (default:
//                              the listen address; required for a wildcard
//                              host)
//   --op-lease MS              the lease asked for (maintenance, which
//                              renews leases, then runs every quarter lease)
//   --router-id N              the router's id in its fence tokens; 0: 1
//                              alone, claimed in ZooKeeper with --zookeeper
//
// The push service is served with the router's TLS files and limits; only
// peers with the node role may push (as for RegionService calls).
//
// Thread-safety: one thread (the command's) uses these.
#ifndef BLOOMROUTE_TOOLS_OP_PUSH_FLAGS_H_
#define BLOOMROUTE_TOOLS_OP_PUSH_FLAGS_H_

#include <cstdint>
#include <memory>
#include <mutex>
#include <string>

#include "common/status.h"
#include "common/statusor.h"
#include "regionstore/region_store.h"
#include "router/router.h"
#include "router/router_options.h"
#include "thrift/op_push_server.h"
#include "thrift/server/thrift_server.h"
#include "tools/option_table.h"

namespace bloomroute {

class RegionServerOpPushFlags {
 public:
  void Add(OptionTable* table);
  // With --op-push, the store pushes over RPC with the server's TLS files
  // (its certificate as the client's) and a push timeout of the lease.
  [[nodiscard]] Status Apply(const ServerOptions& server,
                             RegionStoreOptions* store) const;
  bool enabled() const { return enabled_; }

 private:
  bool enabled_ = false;
  int64_t max_lease_ms_ = 0;
};

// Where a router's push service sends what it receives: the router once it
// is open (Unavailable before, and after Clear).
class OpPushTarget {
 public:
  void Set(std::shared_ptr<router::Router> router);
  void Clear() { Set(nullptr); }
  [[nodiscard]] Status Apply(const OpPush& push);
  OpPushServer::Apply AsFunction() {
    return [this](const OpPush& push) { return Apply(push); };
  }

 private:
  std::mutex mu_;
  std::shared_ptr<router::Router> router_;  // guarded by mu_
};

class RouterOpPushFlags {
 public:
  void Add(OptionTable* table);
  // InvalidArgument for a bad address or a wildcard listen host without
  // --op-push-advertise; sets the lease and the router id (0 stays 0).
  [[nodiscard]] Status Validate(router::RouterOptions* options) const;
  bool enabled() const { return !listen_.empty(); }
  uint32_t router_id() const { return router_id_; }

  // Binds the push service (with `server`'s TLS and limits, on the listen
  // address) and points options->op_push_address at it.
  [[nodiscard]] StatusOr<std::unique_ptr<OpPushServer>> Start(
      const ServerOptions& server, OpPushServer::Apply apply,
      router::RouterOptions* options) const;

 private:
  std::string listen_;
  std::string advertise_;
  int64_t lease_ms_ = 0;
  uint32_t router_id_ = 0;
};

}  // namespace bloomroute

#endif  // BLOOMROUTE_TOOLS_OP_PUSH_FLAGS_H_
