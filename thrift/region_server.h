// RegionServer: a RegionStore served over Thrift (RegionService).
//
// Transport, limits and threads are those of every bloomroute server
// (thrift/server/thrift_server.h): framed binary protocol with bounded frames,
// a pool of `threads` workers running complete requests, each request and reply
// bounded in time, idle connections closed. Requests that decode but break a
// rule (missing field, negative id, empty row key, value over the limit, ...)
// are answered with TIllegalArgument and the connection stays open.
//
// Example:
//   RegionServerOptions options;
//   options.port = 0;  // any free port
//   auto server = RegionServer::Start(store, options);
//   if (!server.ok()) return server.status();
//   std::cout << "listening on port " << (*server)->port() << "\n";
//   ...
//   (*server)->Stop();
//
// Thread-safety: Stop() and the accessors may be called from any thread.
#ifndef BLOOMROUTE_THRIFT_REGION_SERVER_H_
#define BLOOMROUTE_THRIFT_REGION_SERVER_H_

#include <memory>

#include "common/statusor.h"
#include "regionstore/region_store.h"
#include "thrift/server/thrift_server.h"

namespace bloomroute {

// ServerOptions with the region server's default port.
struct RegionServerOptions : ServerOptions {
  static constexpr int kDefaultPort = 9091;
  RegionServerOptions() { port = kDefaultPort; }
};

// Serves a RegionStore; host(), port() and Stop() are ThriftServer's (Stop
// also releases the server's share of the store).
class RegionServer : public ThriftServer {
 public:
  // Binds host:port, then serves `store` (not null) on a background thread.
  // InvalidArgument for bad options, IOError when the address cannot be bound.
  static StatusOr<std::unique_ptr<RegionServer>> Start(
      std::shared_ptr<RegionStore> store, const RegionServerOptions& options);

 private:
  RegionServer() = default;
};

}  // namespace bloomroute

#endif  // BLOOMROUTE_THRIFT_REGION_SERVER_H_
