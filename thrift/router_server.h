// RouterServer: a router::Router served over Thrift (RouterService), the
// client API of bloomroute (thrift/router_service.thrift).
//
// Transport, limits and threads are those of every bloomroute server
// (thrift/server/thrift_server.h): framed binary protocol with bounded frames,
// a pool of `threads` workers running complete requests, each request and reply
// bounded in time, idle connections closed. Requests that decode but break a
// rule (missing field, negative limit, unknown table, ...) are answered with
// TIllegalArgument and the connection stays open.
//
// Example:
//   RouterServerOptions options;
//   options.port = 0;  // any free port
//   auto server = RouterServer::Start(router, options);
//   if (!server.ok()) return server.status();
//   std::cout << "router on port " << (*server)->port() << "\n";
//   ...
//   (*server)->Stop();
//
// Thread-safety: Stop() and the accessors may be called from any thread.
#ifndef BLOOMROUTE_THRIFT_ROUTER_SERVER_H_
#define BLOOMROUTE_THRIFT_ROUTER_SERVER_H_

#include <memory>
#include <string>

#include "common/statusor.h"
#include "coord/cluster_members.h"
#include "router/router.h"
#include "thrift/server/thrift_server.h"

namespace bloomroute {

namespace thrift_internal {
class AccessControl;
class CallThrottle;
}  // namespace thrift_internal

// ServerOptions with the router's default port (HBase's Thrift server's).
struct RouterServerOptions : ServerOptions {
  static constexpr int kDefaultPort = 9090;
  static constexpr uint32_t kDefaultMaxConnectionsPerPrincipal = 128;
  RouterServerOptions() {
    port = kDefaultPort;
    // A quarter of the default max_connections: four principals at their
    // bound still leave slots to an admin.
    max_connections_per_principal = kDefaultMaxConnectionsPerPrincipal;
  }
  // The bearer tokens clients may authenticate with (thrift/server/security.h
  // has the format); empty for none. Needs TLS: a token must not cross the
  // network in the clear.
  std::string token_file;
  // The cluster's live members (getClusterMembers), for a router of a
  // ZooKeeper cluster; empty for one that keeps its catalog alone.
  coord::ClusterMembersSource cluster_members;
};

// Serves a Router; host(), port() and Stop() are ThriftServer's (Stop also
// releases the server's share of the router).
class RouterServer : public ThriftServer {
 public:
  // Binds host:port, then serves `router` (not null) on a background thread.
  // InvalidArgument for bad options, IOError when the address cannot be bound.
  static StatusOr<std::unique_ptr<RouterServer>> Start(
      std::shared_ptr<router::Router> router,
      const RouterServerOptions& options);

  // Reads options.token_file again (`bloomroute router` does on SIGHUP):
  // its tokens replace the old ones, so a new token works at once and a
  // connection authenticated by a removed one is refused and closed at its
  // next call. A bad file changes nothing (InvalidArgument naming the file
  // and line); without TLS or a token file there is nothing to reload (OK).
  // How many tokens are in force afterwards.
  StatusOr<size_t> ReloadTokenFile();

  // Whether `token` is one of the token file's now (any role): what the
  // router's HTTP endpoint accepts as a bearer token (ops/ops_handler.h).
  // False without TLS or a token file.
  bool AcceptsToken(const std::string& token) const;

  // The quotas' buckets this server enforces (null without TLS): another
  // port of the same router (the Thrift1 one) shares them, so that a user's
  // calls count against one quota whichever port they reach.
  std::shared_ptr<thrift_internal::CallThrottle> throttle() const {
    return throttle_;
  }

 private:
  RouterServer() = default;

  std::shared_ptr<thrift_internal::AccessControl> access_;
  std::string token_file_;
  std::shared_ptr<thrift_internal::CallThrottle> throttle_;
};

}  // namespace bloomroute

#endif  // BLOOMROUTE_THRIFT_ROUTER_SERVER_H_
