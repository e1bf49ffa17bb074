// Hbase1Server: HBase's Thrift1 API (thrift/hbase1_service.thrift, service
// Hbase) served over a router::Router on a port of its own, for happybase
// and the other clients of HBase's older Thrift server.
//
// The server machinery is every bloomroute server's (thrift/server/
// thrift_server.h): the transport and protocol chosen per connection from
// its first bytes (framed or buffered, binary or compact, or HTTP), bounded
// frames, request and idle timeouts, worker threads. With TLS, every method
// needs the role its Thrift2 counterpart needs (read, write, admin; a method
// not listed needs admin); the identity comes from the client certificate,
// since the Thrift1 API has no call to present a token with. Quotas are
// enforced as on the router's port, in the router port's buckets when
// given (RouterServer::throttle()).
//
// Example:
//   ServerOptions options;
//   options.port = 0;  // any free port
//   auto server = Hbase1Server::Start(router, options);
//   if (!server.ok()) return server.status();
//   std::cout << "Thrift1 on port " << (*server)->port() << "\n";
//   ...
//   (*server)->Stop();
//
// Thread-safety: Stop() and the accessors may be called from any thread.
#ifndef BLOOMROUTE_THRIFT_HBASE1_SERVER_H_
#define BLOOMROUTE_THRIFT_HBASE1_SERVER_H_

#include <memory>

#include "common/statusor.h"
#include "router/router.h"
#include "thrift/server/thrift_server.h"

namespace bloomroute {

class Hbase1Server : public ThriftServer {
 public:
  // HBase's Thrift server's default port.
  static constexpr int kDefaultPort = 9090;

  // Binds options.host:options.port, then serves `router` (not null) on a
  // background thread. With TLS, calls are throttled by `throttle` (the
  // router port's; null: buckets of this port's own). InvalidArgument for
  // bad options, IOError when the address cannot be bound.
  static StatusOr<std::unique_ptr<Hbase1Server>> Start(
      std::shared_ptr<router::Router> router, const ServerOptions& options,
      std::shared_ptr<thrift_internal::CallThrottle> throttle = nullptr);

 private:
  Hbase1Server() = default;
};

}  // namespace bloomroute

#endif  // BLOOMROUTE_THRIFT_HBASE1_SERVER_H_
