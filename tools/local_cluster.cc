#include "tools/local_cluster.h"

#include <filesystem>
#include <utility>

#include "thrift/thrift_region_client.h"
#include "tools/http_flags.h"
#include "tools/server_address_file.h"

namespace bloomroute {

// RegionStoreOptions' defaults (a 32 MiB block cache, 64 MiB of memtables)
// are one region server's on a machine of its own; a local cluster runs N of
// them in one process. A run like the PostgreSQL comparison's (`local
// --servers 4`, GeoNames cities500 imported with 3 indexes and again with
// --bulk, an index added, both tables verified, 14 lookups) ended at 403 MiB
// resident (VmRSS) with RocksDB's own defaults (six 8 MiB caches and a 64
// MiB memtable per column family a store) and at 455 MiB with 32 + 64 MiB a
// store (verify fills the caches); PostgreSQL 15 with its defaults holds 168
// MiB. Per store, cache + memtables: 16 + 16 MiB ended at 300 MiB, 8 + 16 at
// 269 (Pss 255), 8 + 8 at 241-246 (Pss 229-231), within 1.5x of PostgreSQL.
// So 8 + 8: four servers hold a lone server's cache and half its memtables.
// The import (3 indexes, 199,568 rows; a memtable now flushes at 4 MiB)
// took 18-53 s before and 22-31 s after, 4 and 3 runs in one session with
// builds running beside them: no change that noise would show.
RegionStoreOptions LocalStoreOptions() {
  RegionStoreOptions options;
  options.block_cache_bytes = 8 << 20;
  options.memtable_bytes = 8 << 20;
  return options;
}

Status LocalClusterOptions::Validate() const {
  if (data_dir.empty())
    return Status::InvalidArgument("the data directory is empty");
  if (servers < 1 || servers > kMaxServers) {
    return Status::InvalidArgument("servers must be in [1, " +
                                   std::to_string(kMaxServers) + "], not " +
                                   std::to_string(servers));
  }
  if (router_port < 0 || router_port > 65535) {
    return Status::InvalidArgument(
        "router port " + std::to_string(router_port) + " is not in [0, 65535]");
  }
  if (thrift1_port < kNoThrift1 || thrift1_port > 65535) {
    return Status::InvalidArgument("Thrift1 port " +
                                   std::to_string(thrift1_port) +
                                   " is not in [-1, 65535]");
  }
  BLOOMROUTE_RETURN_IF_ERROR(store.Validate());
  return router::ClusterFilterConfig(filter, servers).status();
}

LocalCluster::LocalCluster(const LocalClusterOptions& options)
    : options_(options) {}

LocalCluster::~LocalCluster() { Stop(); }

StatusOr<std::unique_ptr<LocalCluster>> LocalCluster::Start(
    const LocalClusterOptions& options) {
  BLOOMROUTE_RETURN_IF_ERROR(options.Validate());
  std::error_code error;
  std::filesystem::create_directories(options.data_dir, error);
  if (error) {
    return Status::IOError("cannot create " + options.data_dir + ": " +
                           error.message());
  }
  std::unique_ptr<LocalCluster> cluster(new LocalCluster(options));
  if (options.secure) {
    BLOOMROUTE_ASSIGN_OR_RETURN(cluster->certs_,
                                EnsureLocalCerts(cluster->certs_dir()));
  }
  Status s = cluster->StartRegionServers();
  if (s.ok()) s = cluster->StartRouter();
  if (!s.ok()) {
    cluster->Stop();
    return s;
  }
  return cluster;
}

std::string LocalCluster::AddressFilePath() const {
  return options_.data_dir + "/" + kAddressFile;
}

Status LocalCluster::StartRegionServers() {
  StatusOr<std::vector<std::string>> recorded =
      ReadServerAddresses(AddressFilePath());
  if (recorded.ok()) {
    recorded_ = std::move(recorded).value();
  } else if (!recorded.status().IsNotFound()) {
    return recorded.status();
  }
  for (uint32_t i = 0; i < options_.servers; ++i) {
    BLOOMROUTE_RETURN_IF_ERROR(
        StartRegionServer(i, i < recorded_.size() ? recorded_[i] : ""));
  }
  if (addresses_.size() <= recorded_.size()) return Status::OK();
  // New servers: record their addresses before the router's catalog does.
  std::vector<std::string> all = recorded_;
  all.insert(all.end(), addresses_.begin() + recorded_.size(),
             addresses_.end());
  return WriteServerAddresses(AddressFilePath(), all);
}

Status LocalCluster::StartRegionServer(uint32_t index,
                                       const std::string& recorded) {
  RegionStoreOptions store_options = options_.store;
  store_options.sync = options_.sync;
  const std::string dir =
      options_.data_dir + "/regionserver-" + std::to_string(index);
  BLOOMROUTE_ASSIGN_OR_RETURN(std::unique_ptr<RegionStore> opened,
                              RegionStore::Open(dir, store_options));
  std::shared_ptr<RegionStore> store = std::move(opened);
  RegionServerOptions server_options;
  server_options.host = kHost;
  server_options.port = 0;  // first start: any free port
  server_options.tls = certs_.node;
  region_server_tls_ = server_options.tls;
  if (!recorded.empty()) {
    BLOOMROUTE_RETURN_IF_ERROR(ParseListenAddress(
        recorded, &server_options.host, &server_options.port));
  }
  StatusOr<std::unique_ptr<RegionServer>> server =
      RegionServer::Start(store, server_options);
  if (!server.ok() && !recorded.empty()) {
    return Status::IOError(
        "region server " + std::to_string(index) + " cannot listen on " +
        recorded + " again (recorded in " + AddressFilePath() +
        "): " + server.status().message() +
        "; the router's catalog names region servers by address, so that "
        "port must be free");
  }
  if (!server.ok()) return server.status();
  addresses_.push_back(FormatHostPort((*server)->host(), (*server)->port()));
  RegionNode node;
  node.store = std::move(store);
  node.server = std::move(server).value();
  node.registry = std::make_unique<metrics::Registry>();
  if (options_.http) {
    BLOOMROUTE_ASSIGN_OR_RETURN(
        node.http, StartRegionServerHttp(
                       LocalHttpOptions(certs_.node), node.store, *node.server,
                       node.registry.get(), &node.store_metrics));
  }
  nodes_.push_back(std::move(node));
  return Status::OK();
}

Status LocalCluster::StartRouter() {
  // Its recorded servers are members of the router's catalog: the router
  // would connect to those not started, and find them down.
  if (options_.servers < recorded_.size()) {
    std::string missing;
    for (size_t i = options_.servers; i < recorded_.size(); ++i) {
      missing += (missing.empty() ? "" : ", ") + recorded_[i];
    }
    return Status::InvalidArgument(
        "cannot start with " + std::to_string(options_.servers) +
        " region servers: " + options_.data_dir + " has " +
        std::to_string(recorded_.size()) + ", and " + missing +
        " is a member of the router's catalog (start with --servers " +
        std::to_string(recorded_.size()) + ")");
  }
  router::RouterOptions router_options;
  router_options.data_dir = options_.data_dir + "/router";
  router_options.region_servers = addresses_;
  router_options.filter = options_.filter;
  // The router presents the node certificate to the region servers.
  ThriftClientOptions client_options;
  client_options.tls = certs_.node;
  region_client_tls_ = client_options.tls;
  StatusOr<std::unique_ptr<router::Router>> router = router::Router::Open(
      router_options, NewThriftRegionClientFactory(client_options));
  if (!router.ok()) return router.status();
  router_ = std::move(router).value();
  RouterServerOptions server_options;
  server_options.host = kHost;
  server_options.port = options_.router_port;
  server_options.tls = certs_.node;
  router_server_tls_ = server_options.tls;
  BLOOMROUTE_ASSIGN_OR_RETURN(router_server_,
                              RouterServer::Start(router_, server_options));
  BLOOMROUTE_RETURN_IF_ERROR(StartThrift1(server_options));
  if (options_.http) {
    BLOOMROUTE_ASSIGN_OR_RETURN(
        router_http_, StartRouterHttp(LocalHttpOptions(certs_.node), router_,
                                      *router_server_));
  }
  return Status::OK();
}

Status LocalCluster::StartThrift1(const RouterServerOptions& router_server) {
  if (options_.thrift1_port == LocalClusterOptions::kNoThrift1) {
    return Status::OK();
  }
  ServerOptions options = router_server;
  options.port = options_.thrift1_port;
  BLOOMROUTE_ASSIGN_OR_RETURN(
      thrift1_server_,
      Hbase1Server::Start(router_, options, router_server_->throttle()));
  return Status::OK();
}

std::string LocalCluster::thrift1_address() const {
  return thrift1_server_ == nullptr ? ""
                                    : FormatHostPort(kHost, thrift1_port());
}

int LocalCluster::thrift1_port() const {
  return thrift1_server_ == nullptr ? 0 : thrift1_server_->port();
}

std::string LocalCluster::certs_dir() const {
  return options_.secure ? options_.data_dir + "/certs" : "";
}

std::string LocalCluster::router_address() const {
  return FormatHostPort(kHost, router_port());
}

int LocalCluster::router_port() const {
  return router_server_ == nullptr ? 0 : router_server_->port();
}

std::string LocalCluster::router_http_url() const {
  return router_http_ == nullptr ? "" : router_http_->url();
}

std::vector<std::string> LocalCluster::region_server_http_urls() const {
  std::vector<std::string> urls;
  for (const RegionNode& node : nodes_) {
    if (node.http != nullptr) urls.push_back(node.http->url());
  }
  return urls;
}

void LocalCluster::Stop() {
  std::lock_guard<std::mutex> lock(stop_mutex_);
  if (stopped_) return;
  stopped_ = true;
  if (router_http_ != nullptr) router_http_->Stop();
  for (RegionNode& node : nodes_) {
    if (node.http != nullptr) node.http->Stop();
    node.store_metrics.Reset();
  }
  if (thrift1_server_ != nullptr) thrift1_server_->Stop();
  if (router_server_ != nullptr) router_server_->Stop();
  router_.reset();  // the server released its share: closes the catalog
  for (RegionNode& node : nodes_) {
    node.server->Stop();
    node.server.reset();
    node.store.reset();  // the last owner: closes the store
  }
}

}  // namespace bloomroute
