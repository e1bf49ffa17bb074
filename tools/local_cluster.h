// LocalCluster: a router and N region servers in this process, on loopback,
// with all data under one directory -- what `bloomroute local` runs.
//
// Each region server is a RegionStore served by a RegionServer; the router
// reaches them over Thrift like remote ones (NewThriftRegionClientFactory),
// and a RouterServer serves the client API. Layout of the data directory:
//
//   DIR/regionserver-<i>/          region server i's RocksDB (i from 0)
//   DIR/router/                    the router's catalog
//   DIR/regionserver-addresses     the region servers' addresses
//                                  (tools/server_address_file.h)
//   DIR/certs/                     with `secure`: the CA, the node
//                                  certificate and the admin client "root"'s
//                                  (tools/certs.h: EnsureLocalCerts)
//
// Secure. With options.secure the certificates are made on the first start
// (kept on later ones; one that expired is made again under the same CA),
// and every port serves only TLS with the node certificate, which the
// router also presents to the region servers. Clients use client_tls().
//
// Addresses. The router's catalog names region servers by address, so they
// must not change between runs. On the first start every region server binds
// a free port, and the addresses are recorded before the router first opens
// its catalog; later starts bind the recorded addresses again. Start fails
// with IOError naming the address and the file when one is now taken. With
// more servers than recorded, the new ones get free ports and are appended;
// with fewer, the router refuses to start when a left-out server hosts
// regions (InvalidArgument saying which and how many servers to give).
//
// Restarting on the same directory brings back every table and row: the
// stores and the catalog are on disk, and the router reopens the regions and
// catches up its filter replicas from the servers.
//
// Thread-safety: Stop() and the accessors may be called from any thread.
#ifndef BLOOMROUTE_TOOLS_LOCAL_CLUSTER_H_
#define BLOOMROUTE_TOOLS_LOCAL_CLUSTER_H_

#include <cstdint>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "common/metrics.h"
#include "common/statusor.h"
#include "http/http_server.h"
#include "regionstore/region_store.h"
#include "router/router.h"
#include "thrift/hbase1_server.h"
#include "thrift/region_server.h"
#include "thrift/router_server.h"
#include "thrift/server/security.h"
#include "tools/certs.h"

namespace bloomroute {

// A local cluster's region store options: RegionStoreOptions' but for
// smaller memory bounds (local_cluster.cc says why), since a local
// cluster's N servers share one process on one machine.
RegionStoreOptions LocalStoreOptions();

struct LocalClusterOptions {
  static constexpr uint32_t kMaxServers = 64;

  std::string data_dir;  // created when missing
  uint32_t servers = 1;  // region servers, in [1, kMaxServers]
  int router_port = RouterServerOptions::kDefaultPort;  // 0 = a free port
  // HBase's Thrift1 API on 127.0.0.1 (thrift/hbase1_server.h): its port, 0
  // for a free one, kNoThrift1 for none.
  static constexpr int kNoThrift1 = -1;
  int thrift1_port = kNoThrift1;
  bool sync = false;    // region stores fsync every acknowledged write
  bool secure = false;  // TLS everywhere, certificates in data_dir/certs
  // The options of each region store but `sync`: `local` sets their
  // memory bounds (block_cache_bytes, memtable_bytes), which every store
  // has for itself -- N servers hold up to N times them.
  RegionStoreOptions store = LocalStoreOptions();
  // Each server's HTTP endpoint (ops/ops_handler.h) on a free loopback
  // port: the router's serves the process's metrics (its calls and the
  // region servers' calls, which share the process), each region server's
  // its store's and the process's.
  bool http = true;
  // The router's cluster filter config (RouterOptions::filter).
  router::ClusterFilterOptions filter;

  // InvalidArgument naming the first bad field.
  Status Validate() const;
};

class LocalCluster {
 public:
  static constexpr char kAddressFile[] = "regionserver-addresses";
  static constexpr char kHost[] = "127.0.0.1";

  // Starts the region servers, then the router and its server. On failure
  // whatever was started is stopped again.
  static StatusOr<std::unique_ptr<LocalCluster>> Start(
      const LocalClusterOptions& options);
  // Stops everything that still runs.
  ~LocalCluster();
  LocalCluster(const LocalCluster&) = delete;
  LocalCluster& operator=(const LocalCluster&) = delete;

  // Where the router serves the client API ("127.0.0.1:<port>").
  std::string router_address() const;
  int router_port() const;
  // Where the Thrift1 API is served; "" and 0 without options.thrift1_port.
  std::string thrift1_address() const;
  int thrift1_port() const;
  // The region servers' addresses, in server order.
  const std::vector<std::string>& region_server_addresses() const {
    return addresses_;
  }

  // With options.secure, where the certificates are and the files made by
  // this start (empty when all were kept); "" and empty otherwise.
  std::string certs_dir() const;
  const std::vector<std::string>& certs_written() const {
    return certs_.written;
  }
  // The node's TLS files (every server's) and an admin client's (what a
  // client gives as --tls-ca, --tls-cert, --tls-key); not enabled() unless
  // options.secure.
  const TlsOptions& node_tls() const { return certs_.node; }
  const TlsOptions& client_tls() const { return certs_.client; }
  // The TLS options the region servers, the router's server and the
  // router's region server client were started with.
  const TlsOptions& region_server_tls() const { return region_server_tls_; }
  const TlsOptions& router_server_tls() const { return router_server_tls_; }
  const TlsOptions& region_client_tls() const { return region_client_tls_; }
  // The HTTP endpoints' URLs ("http://127.0.0.1:PORT", or https with
  // options.secure); empty without options.http.
  std::string router_http_url() const;
  std::vector<std::string> region_server_http_urls() const;

  // Stops the router's server, then the router (its catalog closes), then
  // each region server and its store. Idempotent.
  void Stop();

 private:
  struct RegionNode {
    std::shared_ptr<RegionStore> store;
    std::unique_ptr<RegionServer> server;
    // Its own: the servers of one process would share the default one.
    std::unique_ptr<metrics::Registry> registry;
    metrics::Registry::CollectorHandle store_metrics;
    std::unique_ptr<HttpServer> http;
  };

  explicit LocalCluster(const LocalClusterOptions& options);
  Status StartRegionServers();
  Status StartRegionServer(uint32_t index, const std::string& recorded);
  Status StartRouter();
  // With options.thrift1_port: the Thrift1 server, with the router's TLS.
  Status StartThrift1(const RouterServerOptions& router_server);
  std::string AddressFilePath() const;

  const LocalClusterOptions options_;
  std::vector<std::string> recorded_;   // from the address file
  std::vector<std::string> addresses_;  // of the servers started
  LocalCerts certs_;                    // with options_.secure
  TlsOptions region_server_tls_;
  TlsOptions router_server_tls_;
  TlsOptions region_client_tls_;
  std::vector<RegionNode> nodes_;
  std::shared_ptr<router::Router> router_;
  std::unique_ptr<RouterServer> router_server_;
  std::unique_ptr<Hbase1Server> thrift1_server_;
  std::unique_ptr<HttpServer> router_http_;
  std::mutex stop_mutex_;
  bool stopped_ = false;  // guarded by stop_mutex_
};

}  // namespace bloomroute

#endif  // BLOOMROUTE_TOOLS_LOCAL_CLUSTER_H_
