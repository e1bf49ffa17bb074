// The cost and precision of one routing decision at 1 to 1,024 region
// servers (issue 13): the bit-sliced layout (BM_Route/<servers>) against
// checking each server's filter in turn, as the router did before it
// (BM_RoutePerServer/<servers>), in the same run.
//
// Setup per server count N: N servers, each with 100,000 distinct values of
// one indexed column (elements HashElement(1, 1, "s<server>-<value>")). Each
// server's filter is built as a region server builds it when its values
// arrive by writes: an SSCBF from empty, one Insert per value (two threads,
// one server each at a time); the router keeps its occupancy bits only
// (OccupancyImage::Of), and the SSCBF is dropped. BM_Route is the router's
// GlobalIndex::Candidates, the replicas loaded by CatchUp from each server's
// snapshot into its bit-sliced layout; BM_RoutePerServer asks every
// image in turn (OccupancyImage::Contains reads exactly the occupancy bits
// SSCBF::Contains reads). The filter config is the cluster's for N servers
// (ClusterConfig below), so each N builds its own filters; the data of one N
// is freed before the next is built.
//
// One iteration is one routing decision for one predicate whose value is
// absent from every server, rotating through 4,096 such values
// (BM_RouteTwoPredicates: two such predicates, ANDed). Counters:
//   servers, values_per_server
//   false_routes            servers returned per lookup (all of them false),
//                           mean over the 4,096 values
//   router_bytes_per_value  the router's bytes (GlobalIndex::MemoryBytes,
//                           or the images' bytes) / (servers * values)
//
// Targets at 1,024 servers: BM_Route <= 5 us and >= 50x faster than
// BM_RoutePerServer; false_routes <= 0.1; router_bytes_per_value <= 4.
//
// Run: make bench   (or build/benchmarks/router/routing_benchmark)
#include <benchmark/benchmark.h>

#include <chrono>
#include <cmath>
#include <cstdio>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "benchmarks/bench_util.h"
#include "index/occupancy_image.h"
#include "index/scalable_split_counting_bloom_filter.h"
#include "router/cluster_filter_config.h"
#include "router/global_index.h"

namespace bloomroute {
namespace {

constexpr int kValuesPerServer = 100000;
constexpr int kAbsentValues = 4096;  // a power of two: the rotation masks
constexpr uint64_t kTable = 1;
constexpr uint64_t kColumn = 1;
constexpr int kServerCounts[] = {1, 8, 64, 256, 1024};

// The cluster's config for N servers, as the router derives it with its
// default options (router/cluster_filter_config.h).
SscbfConfig ClusterConfig(int servers) {
  return router::ClusterFilterConfig(router::ClusterFilterOptions(),
                                     static_cast<size_t>(servers))
      .value();
}

// What a region server's SSCBF holds after its values arrived by writes,
// as the router keeps it.
OccupancyImage BuildServer(const SscbfConfig& config, int server) {
  ScalableSplitCountingBloomFilter filter =
      std::move(ScalableSplitCountingBloomFilter::Create(config)).value();
  for (int v = 0; v < kValuesPerServer; ++v) {
    const std::string value = bench::Value(server, v);
    (void)filter.Insert(HashElement(kTable, kColumn, value)).value();
  }
  return OccupancyImage::Of(filter);
}

// A region server as the router's catch-up sees it: its bits-only snapshot
// and no ops since. Only the filter calls are served.
class ImageServer : public router::RegionClient {
 public:
  explicit ImageServer(const OccupancyImage& image)
      : image_(image.Serialize()) {}

  StatusOr<FilterImage> SnapshotImage(uint64_t) override {
    FilterImage out;
    out.incarnation = 1;
    out.epoch = 1;
    out.last_seq = 0;
    out.image = image_;
    return out;
  }
  StatusOr<FilterOpsSince> OpsSince(uint64_t, uint64_t, uint64_t,
                                    uint64_t) override {
    FilterOpsSince out;
    out.incarnation = 1;
    out.epoch = 1;
    return out;
  }
  StatusOr<FilterSnapshot> Snapshot(uint64_t) override { return None(); }
  StatusOr<FilterStatus> GetFilterStatus() override { return None(); }
  Status SetFilterConfig(const SscbfConfig&, CoordinatorEpoch) override {
    return None();
  }
  StatusOr<WriteResult> Apply(const std::vector<Mutation>&, uint64_t) override {
    return None();
  }
  StatusOr<std::vector<std::optional<Row>>> Get(const std::vector<GetRequest>&,
                                                uint64_t) override {
    return None();
  }
  StatusOr<ScanResult> Scan(const ScanRequest&) override { return None(); }
  StatusOr<IndexQueryResult> Lookup(const IndexQuery&) override {
    return None();
  }
  Status OpenRegion(const RegionDescriptor&, uint64_t,
                    CoordinatorEpoch) override {
    return None();
  }
  Status CloseRegion(uint64_t, CoordinatorEpoch) override { return None(); }
  Status DropRegion(uint64_t, CoordinatorEpoch) override { return None(); }
  Status SyncWal() override { return None(); }
  StatusOr<std::vector<RegionDescriptor>> ListRegions() override {
    return None();
  }
  StatusOr<WriteResult> BulkLoad(uint64_t, const std::string&,
                                 uint64_t) override {
    return None();
  }
  StatusOr<IndexReport> VerifyIndex(std::optional<uint64_t>) override {
    return None();
  }

 private:
  static Status None() { return Status::InvalidArgument("filter calls only"); }
  std::string image_;
};

// One server count's filters, built on first use; the previous count's are
// freed first (at 1,024 servers the images and the index take ~370 MB each).
class Cluster {
 public:
  static Cluster& Get(int servers) {
    static std::unique_ptr<Cluster> current;
    if (!current || current->servers_ != servers) {
      current.reset();
      current.reset(new Cluster(servers));
    }
    return *current;
  }

  int servers() const { return servers_; }
  const std::vector<OccupancyImage>& images() const { return images_; }
  const router::GlobalIndex& index() const { return *index_; }
  const ElementHash& Absent(uint64_t i) const {
    return absent_[i & (kAbsentValues - 1)];
  }

 private:
  explicit Cluster(int servers) : servers_(servers) {
    const auto start = std::chrono::steady_clock::now();
    const SscbfConfig config = ClusterConfig(servers);
    images_.resize(servers, OccupancyImage::Create(config, 0).value());
    std::vector<std::thread> threads;
    for (int t = 0; t < 2; ++t) {
      threads.emplace_back([&, t] {
        for (int s = t; s < servers; s += 2) {
          images_[s] = BuildServer(config, s);
        }
      });
    }
    for (std::thread& t : threads) t.join();
    // The router's own path: a GlobalIndex of the cluster config, each
    // replica loaded by a catch-up from the server's snapshot.
    index_ = std::move(router::GlobalIndex::Create(config)).value();
    for (int s = 0; s < servers; ++s) {
      ImageServer server(images_[s]);
      if (!index_->AddServer(s).ok() || !index_->CatchUp(s, server).ok() ||
          !index_->IsCurrent(s)) {
        std::abort();
      }
    }
    for (int i = 0; i < kAbsentValues; ++i) {
      absent_.push_back(
          HashElement(kTable, kColumn, "absent-" + std::to_string(i)));
    }
    const double seconds =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - start)
            .count();
    std::fprintf(stderr, "built %d servers x %d values in %.1f s\n", servers,
                 kValuesPerServer, seconds);
  }

  const int servers_;
  std::vector<OccupancyImage> images_;
  std::unique_ptr<router::GlobalIndex> index_;
  std::vector<ElementHash> absent_;
};

void SetCounters(benchmark::State& state, int servers, double false_routes,
                 uint64_t router_bytes) {
  state.counters["servers"] = servers;
  state.counters["values_per_server"] = kValuesPerServer;
  state.counters["false_routes"] = false_routes;
  state.counters["router_bytes_per_value"] =
      static_cast<double>(router_bytes) /
      (static_cast<double>(servers) * kValuesPerServer);
}

void BM_Route(benchmark::State& state) {
  const Cluster& c = Cluster::Get(static_cast<int>(state.range(0)));
  std::vector<ElementHash> predicate(1);
  uint64_t i = 0;
  for (auto _ : state) {
    predicate[0] = c.Absent(i++);
    router::CandidateServers servers = c.index().Candidates(predicate);
    benchmark::DoNotOptimize(servers.servers.data());
  }
  uint64_t routes = 0;
  for (int v = 0; v < kAbsentValues; ++v) {
    predicate[0] = c.Absent(v);
    routes += c.index().Candidates(predicate).servers.size();
  }
  SetCounters(state, c.servers(), static_cast<double>(routes) / kAbsentValues,
              c.index().MemoryBytes());
}

// Two predicates, both of values absent everywhere: an AND of two
// single-predicate decisions, which costs at most their sum (the second
// element is skipped once no server is left).
void BM_RouteTwoPredicates(benchmark::State& state) {
  const Cluster& c = Cluster::Get(static_cast<int>(state.range(0)));
  std::vector<ElementHash> predicates(2);
  uint64_t i = 0;
  for (auto _ : state) {
    predicates[0] = c.Absent(i);
    predicates[1] = c.Absent(i + kAbsentValues / 2);
    ++i;
    router::CandidateServers servers = c.index().Candidates(predicates);
    benchmark::DoNotOptimize(servers.servers.data());
  }
  uint64_t routes = 0;
  for (int v = 0; v < kAbsentValues; ++v) {
    predicates[0] = c.Absent(v);
    predicates[1] = c.Absent(v + kAbsentValues / 2);
    routes += c.index().Candidates(predicates).servers.size();
  }
  SetCounters(state, c.servers(), static_cast<double>(routes) / kAbsentValues,
              c.index().MemoryBytes());
}

// The reference: each server's bits in turn.
int RoutePerServer(const Cluster& c, const ElementHash& h,
                   std::vector<int>* servers) {
  servers->clear();
  for (int s = 0; s < c.servers(); ++s) {
    if (c.images()[s].Contains(h)) servers->push_back(s);
  }
  return static_cast<int>(servers->size());
}

void BM_RoutePerServer(benchmark::State& state) {
  const Cluster& c = Cluster::Get(static_cast<int>(state.range(0)));
  std::vector<int> servers;
  uint64_t i = 0;
  for (auto _ : state) {
    RoutePerServer(c, c.Absent(i++), &servers);
    benchmark::DoNotOptimize(servers.data());
  }
  uint64_t routes = 0;
  uint64_t bytes = 0;
  for (int v = 0; v < kAbsentValues; ++v) {
    routes += RoutePerServer(c, c.Absent(v), &servers);
  }
  for (const OccupancyImage& image : c.images()) bytes += image.MemoryBytes();
  SetCounters(state, c.servers(), static_cast<double>(routes) / kAbsentValues,
              bytes);
}

}  // namespace
}  // namespace bloomroute

int main(int argc, char** argv) {
  // Both benchmarks of one server count run back to back, so that each
  // count's filters are built once.
  for (int servers : bloomroute::kServerCounts) {
    benchmark::RegisterBenchmark("BM_Route", bloomroute::BM_Route)
        ->Arg(servers);
    benchmark::RegisterBenchmark("BM_RouteTwoPredicates",
                                 bloomroute::BM_RouteTwoPredicates)
        ->Arg(servers);
    benchmark::RegisterBenchmark("BM_RoutePerServer",
                                 bloomroute::BM_RoutePerServer)
        ->Arg(servers);
  }
  benchmark::Initialize(&argc, argv);
  if (benchmark::ReportUnrecognizedArguments(argc, argv)) return 1;
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  return 0;
}
