// HttpFlags: the operators' HTTP endpoint of a server command
// (ops/ops_handler.h: /metrics, /healthz, /readyz, /status) as flags:
//   --http-listen HOST:PORT   where to serve it; "off" for nowhere; "auto"
//                             (the default) for the --listen host at the
//                             --listen port + 5 (a router on 9090 serves
//                             HTTP on 9095, HBase's Thrift server's info
//                             port; a region server on 9091 on 9096), or
//                             any free port when --listen's port is 0
//   --http-max-connections N  connections open at once (more get 503)
// Its other bounds are the Thrift port's: --request-timeout,
// --idle-timeout and --reply-timeout, as given to the same command. It
// serves HTTPS with the Thrift port's certificate when that port has TLS,
// and then asks for a client certificate or a token; off loopback without
// TLS it needs the command's --insecure, as the Thrift port does.
//
// Thread-safety: none needed (a command's flags).
#ifndef BLOOMROUTE_TOOLS_HTTP_FLAGS_H_
#define BLOOMROUTE_TOOLS_HTTP_FLAGS_H_

#include <boost/program_options.hpp>
#include <cstdint>
#include <memory>
#include <string>

#include "common/status.h"
#include "common/statusor.h"
#include "http/http_server.h"
#include "ops/ops_handler.h"
#include "regionstore/region_store.h"
#include "router/router.h"
#include "thrift/region_server.h"
#include "thrift/router_server.h"
#include "thrift/server/thrift_server.h"
#include "tools/option_table.h"

namespace bloomroute {

class HttpFlags {
 public:
  HttpFlags() = default;

  // The rows of the command's table (--http-max-connections in [1,
  // HttpServerOptions::kMaxConnections]).
  void Add(OptionTable* table);
  // After the table's check: checks the flags and fills the HTTP server's
  // options from them and from `thrift` (the command's Thrift server options,
  // already checked: address, timeouts and TLS files). InvalidArgument naming
  // the flag. False in *enabled for --http-listen off.
  Status ToOptions(const ServerOptions& thrift, bool insecure,
                   HttpServerOptions* out, bool* enabled) const;

 private:
  // The Thrift port's offset for --http-listen auto.
  static constexpr int kAutoPortOffset = 5;
  std::string listen_;
  uint32_t max_connections_ = 0;
};

// ", status on URL/status" for a server's start-up line; "" for null.
std::string StatusSuffix(const HttpServer* http);

// HttpServerOptions for a server of `bloomroute local`: loopback, any free
// port, TLS with `tls` when it is enabled.
HttpServerOptions LocalHttpOptions(const TlsOptions& tls);

// Starts a router's endpoint (ops/router_ops.h), requiring credentials when
// it has TLS: a client certificate or one of `server`'s tokens. `router`
// and `server` must outlive it. The caller prints its url().
StatusOr<std::unique_ptr<HttpServer>> StartRouterHttp(
    const HttpServerOptions& options, std::shared_ptr<router::Router> router,
    const RouterServer& server);

// Starts a region server's endpoint (ops/region_server_ops.h) serving
// `registry`, to which the store's metrics are added while
// *store_metrics lives (reset it before the store goes), and the process's.
StatusOr<std::unique_ptr<HttpServer>> StartRegionServerHttp(
    const HttpServerOptions& options, std::shared_ptr<RegionStore> store,
    const RegionServer& server, metrics::Registry* registry,
    metrics::Registry::CollectorHandle* store_metrics);

}  // namespace bloomroute

#endif  // BLOOMROUTE_TOOLS_HTTP_FLAGS_H_
