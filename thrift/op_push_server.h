// OpPushServer: a router's OpPushService (op_push_service.thrift), where
// the region servers it subscribed to push the filter ops they commit
// (router/op_subscriber.h). Each push is applied to the pushing server's
// filter replica (Router::ApplyOpPush) before it is answered: the region
// server acknowledges the write that made the ops only then.
//
// Its own port (router --op-push-listen), served by the same server core
// as every bloomroute service (thrift/server/thrift_server.h: bounded
// frames and decoding, timeouts, a worker per call, not per connection).
// Only region servers push: with TLS every call needs the node role, as
// RegionService calls do (a client certificate without it is refused).
//
// Example:
//   ServerOptions o;  o.port = 9190;
//   auto server = OpPushServer::Start(router, o);
//   options.op_push_address = "router1.example:9190";  // before Router::Open
//
// Thread-safety: Stop() and the accessors may be called from any thread.
#ifndef BLOOMROUTE_THRIFT_OP_PUSH_SERVER_H_
#define BLOOMROUTE_THRIFT_OP_PUSH_SERVER_H_

#include <functional>
#include <memory>

#include "common/statusor.h"
#include "thrift/server/thrift_server.h"

namespace bloomroute {

struct OpPush;

class OpPushServer : public ThriftServer {
 public:
  // Where pushes go once decoded (a Router's ApplyOpPush); its Status is
  // the call's answer.
  using Apply = std::function<Status(const OpPush&)>;

  // Binds host:port, then serves on a background thread. InvalidArgument
  // for bad options or no `apply`; IOError when the address cannot be
  // bound.
  static StatusOr<std::unique_ptr<OpPushServer>> Start(
      Apply apply, const ServerOptions& options);

 private:
  OpPushServer() = default;
};

}  // namespace bloomroute

#endif  // BLOOMROUTE_THRIFT_OP_PUSH_SERVER_H_
