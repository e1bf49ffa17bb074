// `bloomroute router`: the cluster's front end. Opens the router's catalog,
// connects to the region servers over Thrift and serves the client API
// (thrift/router_service.thrift) until SIGTERM or SIGINT.
//
//   bloomroute router --data DIR --regionserver HOST:PORT [--regionserver ...]
//       [--listen 127.0.0.1:9090] [--thrift1-listen HOST:PORT]
//       [--threads N] [--max-frame-bytes N]
//       [--idle-timeout SECONDS] [--fanout-threads N]
//       [--long-call-timeout SECONDS] [--max-scanners N]
//       [--max-scanners-per-connection N] [--target-false-routes F]
//       [--filter-tightening-ratio R] [--filter-growth-factor S]
//       [--filter-initial-capacity N]
//       [--tls-ca FILE --tls-cert FILE --tls-key FILE [--token-file FILE]]
//       [--insecure] [--log-level LEVEL] [--log-file FILE]
//
// Security (thrift/server/security.h). With the three --tls-* files the router
// serves only TLS, and its connections to the region servers use the same
// files: its node certificate is its client certificate towards them.
// --token-file names the bearer tokens clients may authenticate with; it
// needs TLS. Off loopback the router needs TLS or --insecure
// (server_command_util.h).
//
// The router owns the region servers' filter config: from --target-false-
// routes F and the number of members N at start it derives each
// server's bound P = F / 2^ceil(log2 N) (router/cluster_filter_config.h)
// and sets it, with the --filter-* options, on every server, which rebuilds
// its filter with it when it had another.
//
// Region servers are members of the catalog, by id with their address: a
// restart connects every member, --regionserver flag or not, and a flag
// naming an address that is no member adds one (needed on the first start
// only; `bloomroute admin add-server` adds one to a running router). A
// start with no member at all is refused. Servers that do not
// answer at start are retried in the background, and lookups ask them (and
// fail, or report them missing) until they answer.
//
// On start it prints one line, e.g.
//   bloomroute router: serving 2 tables with 3 region servers from /data on
//   127.0.0.1:9090
// (port 0 picks a free port; the line shows the real one). With
// --thrift1-listen (tools/thrift1_flags.h) it also serves HBase's Thrift1
// API there, and says where in a second line, e.g.
//   bloomroute router: HBase Thrift1 API on 127.0.0.1:9095 On SIGTERM or
// SIGINT it stops accepting, lets calls in progress finish, closes the
// catalog and exits 0. SIGHUP reopens the log file (--log-file) and reloads
// the token file and the revocation lists. Bad usage exits 2 with a
// one-line reason.
#ifndef BLOOMROUTE_TOOLS_ROUTER_COMMAND_H_
#define BLOOMROUTE_TOOLS_ROUTER_COMMAND_H_

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "http/http_server.h"
#include "router/router.h"
#include "thrift/router_server.h"
#include "thrift/thrift_region_client.h"
#include "tools/cluster_flags.h"
#include "tools/command.h"
#include "tools/http_flags.h"
#include "tools/op_push_flags.h"
#include "tools/server_command_util.h"
#include "tools/thrift1_flags.h"

namespace bloomroute {

// The options of the router's connections to its region servers, from those
// of its own port: frames and decoded replies as large as its clients may
// send (a reply holds what a request may hold), its TLS files (the node
// certificate it serves with is the client certificate it presents), and
// `long_call_timeout_ms` for verify and region drops.
ThriftClientOptions RegionClientOptionsFor(const ServerOptions& server,
                                           int long_call_timeout_ms);

// The rows of a command that runs a router (router, local) for the
// cluster's filter config: --target-false-routes and --filter-*, bound to
// `filter`'s fields with their defaults and bounds (the table checks them;
// ClusterFilterConfig checks what depends on the number of servers).
void AddFilterOptions(OptionTable* table, router::ClusterFilterOptions* filter);

class RouterCommand : public Command {
 public:
  RouterCommand();

 protected:
  void DeclareOptions(OptionTable* table) override;
  bool ReadsConfigFile() const override { return true; }
  Status Validate() override;
  Status Execute() override;
  std::string HelpEpilog() const override;

 private:
  static constexpr int64_t kMaxLongCallTimeoutSeconds = 24 * 3600;
  static constexpr int64_t kMinFilterImageBytes = int64_t{1} << 20;
  static constexpr int64_t kMaxFilterImageBytes = int64_t{1} << 36;

  // DeclareOptions' rows after the server's and HTTP's, in --help's order:
  // fan-out and replies, the catalog, the balancer, scanners, then
  // principals' connections, filter images and tokens.
  void AddLimitRows(OptionTable* table);
  void AddCatalogRows(OptionTable* table);
  void AddBalancerRows(OptionTable* table);
  void AddScannerRows(OptionTable* table);
  void AddCredentialRows(OptionTable* table);

  std::string data_;
  std::vector<std::string> region_servers_;
  ServerFlags server_flags_;
  LogFlags log_flags_;
  HttpFlags http_flags_;
  Thrift1Flags thrift1_flags_;
  HttpServerOptions http_options_;
  bool http_enabled_ = false;
  int long_call_timeout_ms_ = 0;
  uint64_t max_filter_image_bytes_ = 0;
  std::string token_file_;
  ClusterFlags cluster_flags_;
  // This router's candidacy (--zookeeper): held while it serves.
  std::unique_ptr<coord::Election> election_;
  RouterOpPushFlags op_push_flags_;
  // With --op-push-listen: the push service, started before the router
  // opens (its address is the router's subscription address), and the
  // router it hands pushes to once open.
  OpPushTarget op_push_target_;
  std::unique_ptr<OpPushServer> op_push_server_;

  // The table sets their flags' fields; Validate() the rest.
  router::RouterOptions router_options_;
  RouterServerOptions server_options_;
  ThriftClientOptions client_options_;

  // Checks --token-file (needs TLS, a readable file) into server_options_.
  Status ValidateTokenFile();
  // What SIGHUP reloads after the log file is reopened: the token file and
  // the revocation lists (the HTTP endpoint's too, when there is one); says
  // what it did, or why it kept the old ones.
  void Reload(RouterServer* server, HttpServer* http) const;
  // The router over the embedded catalog, or (--zookeeper) once this router
  // leads its cluster; null when a stop signal came first (named in
  // `*stop_signal`).
  StatusOr<std::unique_ptr<router::Router>> OpenRouter(
      std::string* stop_signal);
  // With --op-push-listen: serves pushes and sets the router's address.
  Status StartOpPushes();
  // With --thrift1-listen: the Thrift1 server, announced; else null.
  StatusOr<std::unique_ptr<Hbase1Server>> StartThrift1(
      const std::shared_ptr<router::Router>& router,
      const RouterServer& server);
  // The HTTP endpoint (--http-listen), or null with --http-listen off.
  StatusOr<std::unique_ptr<HttpServer>> StartHttp(
      const std::shared_ptr<router::Router>& router,
      const RouterServer& server);
};

}  // namespace bloomroute

#endif  // BLOOMROUTE_TOOLS_ROUTER_COMMAND_H_
