// `bloomroute regionserver`: serves one RocksDB-backed RegionStore over Thrift
// until SIGTERM or SIGINT.
//
//   bloomroute regionserver --data DIR [--listen 127.0.0.1:9091] [--sync]
//       [--max-value-bytes N] [--max-row-bytes N] [--threads N]
//       [--max-frame-bytes N] [--idle-timeout SECONDS]
//       [--block-cache-bytes N] [--memtable-bytes N]
//       [--tls-ca FILE --tls-cert FILE --tls-key FILE] [--insecure]
//       [--log-level LEVEL] [--log-file FILE]
//
// The server's filter takes its config from the router (setFilterConfig,
// kept across restarts); until a router has set one it uses the built-in
// defaults.
//
// With the three --tls-* files the server serves only TLS (to routers of
// the cluster: thrift/server/security.h); off loopback it needs them or
// --insecure (server_command_util.h).
//
// On start it prints one line saying what it serves and where, e.g.
//   bloomroute regionserver: serving 3 regions of 1 tables from /data on
//   127.0.0.1:40123 (sync on, max value 1048576 bytes)
// (port 0 picks a free port; the line shows the real one). On SIGTERM or
// SIGINT it stops accepting, lets calls in progress finish, closes the store
// and exits 0. SIGHUP reopens the log file (--log-file) and reloads the
// revocation list.
#ifndef BLOOMROUTE_TOOLS_REGIONSERVER_COMMAND_H_
#define BLOOMROUTE_TOOLS_REGIONSERVER_COMMAND_H_

#include <cstdint>
#include <memory>
#include <string>

#include "common/metrics.h"
#include "coord/cluster_members.h"
#include "http/http_server.h"
#include "regionstore/region_store.h"
#include "thrift/region_server.h"
#include "tools/cluster_flags.h"
#include "tools/command.h"
#include "tools/http_flags.h"
#include "tools/op_push_flags.h"
#include "tools/server_command_util.h"

namespace bloomroute {

class RegionServerCommand : public Command {
 public:
  RegionServerCommand();

 protected:
  void DeclareOptions(OptionTable* table) override;
  bool ReadsConfigFile() const override { return true; }
  Status Validate() override;
  Status Execute() override;
  std::string HelpEpilog() const override;

 private:
  // DeclareOptions' rows of the store's bounds: on writes and answers,
  // then on what one read examines and sends.
  void AddStoreRows(OptionTable* table);
  void AddReadRows(OptionTable* table);

  std::string data_;
  ServerFlags server_flags_;
  LogFlags log_flags_;
  HttpFlags http_flags_;
  HttpServerOptions http_options_;
  bool http_enabled_ = false;
  RegionServerOpPushFlags op_push_flags_;
  ClusterFlags cluster_flags_;

  // The table sets their flags' fields; Validate() the rest.
  RegionStoreOptions store_options_;
  RegionServerOptions server_options_;

  // With --zookeeper: this server's liveness node, kept while it serves.
  StatusOr<std::unique_ptr<coord::LivenessNode>> RegisterLive(
      const RegionStore& store, const RegionServer& server) const;
  // The HTTP endpoint (--http-listen), or null with --http-listen off; the
  // store's metrics are in the registry while *store_metrics lives.
  StatusOr<std::unique_ptr<HttpServer>> StartHttp(
      const std::shared_ptr<RegionStore>& store, const RegionServer& server,
      metrics::Registry::CollectorHandle* store_metrics);
};

// The rows of a region store's memory bounds (--block-cache-bytes,
// --memtable-bytes) into `options`, whose values are the defaults, with
// RegionStoreOptions' ranges; `regionserver` and `local` (for each of its
// stores) declare them.
void AddMemoryRows(OptionTable* table, RegionStoreOptions* options);

}  // namespace bloomroute

#endif  // BLOOMROUTE_TOOLS_REGIONSERVER_COMMAND_H_
