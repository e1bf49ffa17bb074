// Index lookup throughput, routed through the SSCBF replicas vs broadcast to
// every region server, in the same run. Target (issue 5): routed >= 5x
// broadcast for selective values with 8 region servers.
//
// Setup: 8 region servers (RocksDB, Thrift on 127.0.0.1, in this process) and
// a router reaching them over Thrift. One table with one region per server;
// 2,000 rows per server, each with a selective value present on that server
// only (500 distinct values per server, 4 rows each). Each lookup asks for a
// random selective value and returns its 4 rows. Routed lookups ask the
// servers whose filters say "maybe" (the one holding the value, plus a false
// positive at the filters' 1 % target now and then); broadcast lookups ask all
// 8. The benchmark runs with 1 client thread (latency-bound) and with 8
// (capacity-bound: the machine's cores are the limit).
//
// Run: make bench   (or build/benchmarks/router/lookup_benchmark)
#include <benchmark/benchmark.h>
#include <stdlib.h>

#include <filesystem>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include "benchmarks/bench_util.h"
#include "benchmarks/router/bench_cluster.h"
#include "regionstore/region_store.h"
#include "router/router.h"
#include "thrift/region_server.h"
#include "thrift/thrift_region_client.h"

namespace bloomroute {
namespace {

constexpr int kServers = 8;
constexpr int kValuesPerServer = 500;
constexpr int kRowsPerValue = 4;

using bench::TempDir;
using bench::Value;

// The cluster, built once for every benchmark in the process.
class Cluster {
 public:
  static Cluster& Get() {
    static Cluster* cluster = new Cluster();  // lives until exit
    return *cluster;
  }
  router::Router& router() { return cluster_.router(); }

 private:
  Cluster() : cluster_(TempDir(), kServers) { Load(); }

  void Load() {
    router::TableSpec spec;
    spec.name = "bench";
    spec.indexed_columns = {"d:sel"};
    for (int i = 1; i < kServers; ++i) {
      spec.split_keys.push_back("r" + std::to_string(i));
    }
    // Regions go one per server, in server order.
    router::TableInfo t = std::move(router().CreateTable(spec)).value();
    for (const router::RegionLocation& r : t.regions) {
      const int region = static_cast<int>(&r - t.regions.data());
      std::vector<Mutation> rows;
      for (int v = 0; v < kValuesPerServer; ++v) {
        for (int k = 0; k < kRowsPerValue; ++k) {
          rows.push_back(Mutation::Put(
              0,
              "r" + std::to_string(region) + "-" + std::to_string(v) + "-" +
                  std::to_string(k),
              {{"d:name", std::string(40, 'n')}, {"d:sel", Value(region, v)}}));
        }
      }
      Status s = router().Mutate("bench", std::move(rows));
      if (!s.ok()) abort();
    }
  }

  bench::BenchCluster cluster_;
};

void BM_GetByIndex(benchmark::State& state, bool broadcast) {
  router::Router& router = Cluster::Get().router();
  std::mt19937_64 rng(state.thread_index() + 1);
  uint64_t asked = 0;
  uint64_t rows = 0;
  for (auto _ : state) {
    router::LookupSpec q;
    q.equals = {{"d:sel", Value(static_cast<int>(rng() % kServers),
                                static_cast<int>(rng() % kValuesPerServer))}};
    q.broadcast = broadcast;
    StatusOr<router::LookupResult> r = router.Lookup("bench", q);
    if (!r.ok()) {
      state.SkipWithError(r.status().ToString().c_str());
      break;
    }
    asked += r->routing.asked.size();
    rows += r->rows.size();
  }
  state.SetItemsProcessed(state.iterations());
  state.counters["servers_asked"] = benchmark::Counter(
      static_cast<double>(asked), benchmark::Counter::kAvgIterations);
  state.counters["rows"] = benchmark::Counter(
      static_cast<double>(rows), benchmark::Counter::kAvgIterations);
}

BENCHMARK_CAPTURE(BM_GetByIndex, routed, false)
    ->Threads(1)
    ->Threads(8)
    ->UseRealTime()
    ->MinTime(2.0);
BENCHMARK_CAPTURE(BM_GetByIndex, broadcast, true)
    ->Threads(1)
    ->Threads(8)
    ->UseRealTime()
    ->MinTime(2.0);

}  // namespace
}  // namespace bloomroute

BENCHMARK_MAIN();
