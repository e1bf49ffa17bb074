// What the router benchmarks share: region servers (RocksDB, Thrift on
// 127.0.0.1, in this process) and a router reaching them over Thrift.
#ifndef BLOOMROUTE_BENCHMARKS_ROUTER_BENCH_CLUSTER_H_
#define BLOOMROUTE_BENCHMARKS_ROUTER_BENCH_CLUSTER_H_

#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "regionstore/region_store.h"
#include "router/router.h"
#include "thrift/region_server.h"
#include "thrift/thrift_region_client.h"

namespace bloomroute::bench {

// `servers` region servers with their data under `dir`, and a router over
// them whose catalog is there too, opened with `options` (its data_dir and
// region_servers are set here). A benchmark aborts on a failure.
class BenchCluster {
 public:
  BenchCluster(const std::string& dir, int servers,
               router::RouterOptions options = {}) {
    for (int i = 0; i < servers; ++i) {
      std::shared_ptr<RegionStore> store =
          std::move(RegionStore::Open(dir + "/rs" + std::to_string(i), {}))
              .value();
      RegionServerOptions o;
      o.port = 0;
      servers_.push_back(std::move(RegionServer::Start(store, o)).value());
      addresses_.push_back("127.0.0.1:" +
                           std::to_string(servers_.back()->port()));
      options.region_servers.push_back(addresses_.back());
    }
    options.data_dir = dir + "/router";
    router_ =
        std::move(router::Router::Open(options, NewThriftRegionClientFactory(
                                                    ThriftClientOptions())))
            .value();
  }
  router::Router& router() { return *router_; }
  // Region server i's "host:port".
  const std::string& address(int i) const { return addresses_.at(i); }

 private:
  std::vector<std::string> addresses_;
  std::vector<std::unique_ptr<RegionServer>> servers_;
  std::unique_ptr<router::Router> router_;
};

}  // namespace bloomroute::bench

#endif  // BLOOMROUTE_BENCHMARKS_ROUTER_BENCH_CLUSTER_H_
