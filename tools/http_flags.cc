#include "tools/http_flags.h"

#include <chrono>
#include <utility>

#include "ops/region_server_ops.h"
#include "ops/router_ops.h"
#include "thrift/server/security.h"
#include "tools/server_command_util.h"

namespace bloomroute {

void HttpFlags::Add(OptionTable* table) {
  table
      ->String("http-listen", &listen_,
               "serve /metrics, /healthz, /readyz and /status over HTTP at "
               "HOST:PORT (HTTPS with the Thrift port's certificate when it "
               "has TLS); auto: the --listen host at the --listen port + 5 "
               "(any free port when that is 0); off: none")
      .Default("auto")
      .ValueName("HOST:PORT");
  table
      ->Integer("http-max-connections", &max_connections_,
                HttpServerOptions().max_connections,
                "HTTP connections open at once; more are answered 503")
      .Range(1, HttpServerOptions::kMaxConnections);
}

Status HttpFlags::ToOptions(const ServerOptions& thrift, bool insecure,
                            HttpServerOptions* out, bool* enabled) const {
  *enabled = listen_ != "off";
  if (!*enabled) return Status::OK();
  if (listen_ == "auto") {
    out->host = thrift.host;
    out->port = thrift.port == 0 || thrift.port + kAutoPortOffset > 65535
                    ? 0
                    : thrift.port + kAutoPortOffset;
  } else {
    BLOOMROUTE_RETURN_IF_ERROR(
        ParseListenAddress(listen_, &out->host, &out->port)
            .WithContext("--http-listen"));
  }
  out->max_connections = max_connections_;
  out->idle_timeout_ms = thrift.idle_timeout_ms;
  out->request_timeout_ms = thrift.request_timeout_ms;
  out->reply_timeout_ms = thrift.reply_timeout_ms;
  if (thrift.tls.enabled()) {
    out->tls_ca_file = thrift.tls.ca_file;
    out->tls_cert_file = thrift.tls.cert_file;
    out->tls_key_file = thrift.tls.key_file;
    out->tls_crl_file = thrift.tls.crl_file;
  } else if (!insecure && !IsLoopbackHost(out->host)) {
    return Status::InvalidArgument(
        "--http-listen " + listen_ +
        ": off loopback the endpoint needs TLS (--tls-ca, --tls-cert and "
        "--tls-key) or --insecure, as the Thrift port");
  }
  return out->Validate();
}

std::string StatusSuffix(const HttpServer* http) {
  return http == nullptr ? "" : ", status on " + http->url() + "/status";
}

HttpServerOptions LocalHttpOptions(const TlsOptions& tls) {
  HttpServerOptions options;
  if (tls.enabled()) {
    options.tls_ca_file = tls.ca_file;
    options.tls_cert_file = tls.cert_file;
    options.tls_key_file = tls.key_file;
    options.tls_crl_file = tls.crl_file;
  }
  return options;
}

namespace {

StatusOr<std::unique_ptr<HttpServer>> StartOpsHttp(
    const HttpServerOptions& options, ops::OpsEndpoints endpoints) {
  endpoints.require_credentials = options.tls_enabled();
  return HttpServer::Start(options, ops::MakeOpsHandler(std::move(endpoints)));
}

}  // namespace

StatusOr<std::unique_ptr<HttpServer>> StartRouterHttp(
    const HttpServerOptions& options, std::shared_ptr<router::Router> router,
    const RouterServer& server) {
  metrics::DefaultRegistry().IncludeProcessMetrics();
  ops::RouterPageInfo info;
  info.address = FormatHostPort(server.host(), server.port());
  info.version = BLOOMROUTE_VERSION;
  info.started = std::chrono::system_clock::now();
  ops::OpsEndpoints endpoints;
  endpoints.readiness = [router] { return ops::RouterReadiness(*router); };
  endpoints.status_page = [router, info](uint32_t refresh) {
    return ops::RouterStatusPage(*router, info, static_cast<int>(refresh));
  };
  endpoints.token_accepted = [&server](const std::string& token) {
    return server.AcceptsToken(token);
  };
  return StartOpsHttp(options, std::move(endpoints));
}

StatusOr<std::unique_ptr<HttpServer>> StartRegionServerHttp(
    const HttpServerOptions& options, std::shared_ptr<RegionStore> store,
    const RegionServer& server, metrics::Registry* registry,
    metrics::Registry::CollectorHandle* store_metrics) {
  registry->IncludeProcessMetrics();
  *store_metrics = ops::AddRegionServerMetrics(store.get(), registry);
  ops::RegionServerPageInfo info;
  info.address = FormatHostPort(server.host(), server.port());
  info.version = BLOOMROUTE_VERSION;
  info.start_time = std::chrono::system_clock::now();
  ops::OpsEndpoints endpoints;
  endpoints.registry = registry;
  endpoints.readiness = [store] {
    return ops::RegionServerReadiness(store.get());
  };
  endpoints.status_page = [store, info](uint32_t refresh) {
    ops::RegionServerPageInfo page = info;
    page.refresh_seconds = static_cast<int>(refresh);
    return ops::RegionServerStatusPage(*store, page);
  };
  return StartOpsHttp(options, std::move(endpoints));
}

}  // namespace bloomroute
