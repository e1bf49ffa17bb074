// A region move and a split while a writer writes to the region (issue 15):
// rows per second copied, and the writer's longest pause, in one run.
//
// Setup: two region servers (RocksDB, Thrift on 127.0.0.1, in this process)
// and a router reaching them over Thrift. One table whose first region holds
// every row: N rows (BLOOMROUTE_BENCH_ROWS, default 1,000,000) of about 170
// bytes, cities500-shaped as backfill_benchmark's (2 indexed columns of 250
// and 600 values, 7 plain ones), loaded through the router before timing.
//
// BM_MoveRegion moves that region to the other server; BM_SplitRegion then
// splits it at its median key. Meanwhile one writer thread puts single rows
// into the region, one after another, and times each put. Counters:
//   rows_per_s        rows copied / the time until the switch (when the
//                     new region took the reads and writes)
//   switched_s        that time; total_s: the whole operation, with the
//                     old region's drop on its server
//   switch_ms         how long the switch held writes (the router's figure)
//   writer_max_ms     the writer's longest put during the operation
//   writer_max_to_switch_ms  of those, the puts started before the switch
//                     ended (the later ones meet the old region's drop,
//                     which deletes its rows on its server)
//   writer_before_ms  its longest put over 2 s before the operation (the
//                     baseline: flushes and compactions pause it too)
//   writer_puts       puts made during the operation
// Both run again with a tenth of the rows (the _small runs): the switch
// pause should not grow with the region's size, the copy time should.
//
// Run: build/benchmarks/router/reshape_benchmark   (part of make bench)
#include <benchmark/benchmark.h>
#include <stdlib.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <memory>
#include <mutex>
#include <random>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "benchmarks/bench_util.h"
#include "benchmarks/router/bench_cluster.h"
#include "regionstore/region_store.h"
#include "router/router.h"
#include "thrift/region_server.h"
#include "thrift/thrift_region_client.h"

namespace bloomroute {
namespace {

using bench::TempDir;
using Clock = std::chrono::steady_clock;

constexpr const char* kIndexed[] = {"d:country", "d:feature"};
constexpr uint64_t kDomain[] = {250, 600};
constexpr const char* kPlain[] = {"d:admin1", "d:ascii", "d:elevation", "d:lat",
                                  "d:lon",    "d:name",  "d:population"};

int Rows() {
  const char* env = getenv("BLOOMROUTE_BENCH_ROWS");
  return env != nullptr ? std::max(1000, atoi(env)) : 1000000;
}

std::string Key(uint64_t i) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "r%08llu", static_cast<unsigned long long>(i));
  return buf;
}

std::vector<Cell> RowCells(std::mt19937_64& rng) {
  std::vector<Cell> cells;
  for (int c = 0; c < 2; ++c) {
    cells.push_back({kIndexed[c], "v" + std::to_string(rng() % kDomain[c])});
  }
  for (const char* col : kPlain) {
    cells.push_back({col, std::string(18, 'a' + rng() % 26)});
  }
  return cells;
}

double Millis(Clock::duration d) {
  return std::chrono::duration<double, std::milli>(d).count();
}

// Two region servers and a router; a table "bench" of `rows` rows, all in
// its first region (split at "z", the rows' keys start with "r").
class Cluster {
 public:
  explicit Cluster(int rows) : cluster_(TempDir(), 2, Options()), rows_(rows) {
    router::TableSpec spec;
    spec.name = "bench";
    spec.indexed_columns = {kIndexed[0], kIndexed[1]};
    spec.split_keys = {"z"};
    (void)router().CreateTable(spec).value();
    std::mt19937_64 rng(1);
    std::vector<Mutation> batch;
    for (int i = 0; i < rows; ++i) {
      batch.push_back(Mutation::Put(0, Key(i), RowCells(rng)));
      if (batch.size() == 1000 || i + 1 == rows) {
        if (!router().Mutate("bench", std::move(batch)).ok()) abort();
        batch.clear();
      }
    }
  }
  router::Router& router() { return cluster_.router(); }
  int rows() const { return rows_; }
  // The region holding the rows, and its server.
  router::RegionLocation First() {
    return router().DescribeTable("bench").value().regions.front();
  }

 private:
  static router::RouterOptions Options() {
    router::RouterOptions o;
    o.balancer_interval_ms = 0;
    o.region_split_bytes = 0;  // no automatic split during the run
    return o;
  }

  bench::BenchCluster cluster_;
  const int rows_;
};

Cluster& TheCluster(int rows) {
  static Cluster* big = nullptr;
  static Cluster* small = nullptr;
  Cluster*& c = rows == Rows() ? big : small;
  if (c == nullptr) c = new Cluster(rows);  // lives until exit
  return *c;
}

// Puts single rows of the region, one after another, until stopped,
// keeping when each started and how long it took.
class Writer {
 public:
  struct Put {
    Clock::time_point start;
    double ms;
  };
  Writer(router::Router* router, int rows) : router_(router), rows_(rows) {
    thread_ = std::thread([this] { Run(); });
  }
  // The puts since the last call.
  std::vector<Put> Take() {
    std::lock_guard<std::mutex> lock(mu_);
    return std::exchange(puts_, {});
  }
  ~Writer() {
    stop_ = true;
    thread_.join();
  }

 private:
  void Run() {
    std::mt19937_64 rng(7);
    while (!stop_) {
      const auto start = Clock::now();
      const Status s = router_->Mutate(
          "bench", {Mutation::Put(0, Key(rng() % rows_), RowCells(rng))});
      if (!s.ok()) abort();
      const double ms = Millis(Clock::now() - start);
      std::lock_guard<std::mutex> lock(mu_);
      puts_.push_back({start, ms});
    }
  }

  router::Router* const router_;
  const int rows_;
  std::atomic<bool> stop_{false};
  std::mutex mu_;
  std::vector<Put> puts_;  // guarded by mu_
  std::thread thread_;
};

// The longest of `puts` that started in [from, to).
double Longest(const std::vector<Writer::Put>& puts, Clock::time_point from,
               Clock::time_point to) {
  double longest = 0;
  for (const Writer::Put& p : puts) {
    if (p.start >= from && p.start < to) longest = std::max(longest, p.ms);
  }
  return longest;
}

// One operation on the region while the writer runs, with its counters.
template <typename Op>
void TimeOperation(benchmark::State& state, int rows, Op op) {
  Cluster& cluster = TheCluster(rows);
  for (auto _ : state) {
    Writer writer(&cluster.router(), cluster.rows());
    std::this_thread::sleep_for(std::chrono::seconds(2));
    const std::vector<Writer::Put> before = writer.Take();
    const auto start = Clock::now();
    StatusOr<router::RegionOpResult> done = op(cluster);
    const auto end = Clock::now();
    const double seconds = std::chrono::duration<double>(end - start).count();
    const std::vector<Writer::Put> during = writer.Take();
    if (!done.ok()) {
      state.SkipWithError(done.status().ToString().c_str());
      return;
    }
    state.SetIterationTime(seconds);
    state.counters["rows"] = static_cast<double>(done->rows_copied);
    // Moved once the new region serves; the old one's drop follows.
    state.counters["rows_per_s"] =
        static_cast<double>(done->rows_copied) / (done->switched_micros / 1e6);
    state.counters["switched_s"] = done->switched_micros / 1e6;
    state.counters["total_s"] = seconds;
    state.counters["switch_ms"] = done->switch_micros / 1000.0;
    state.counters["catch_up_rounds"] = done->catch_up_rounds;
    const auto switched =
        start + std::chrono::microseconds(done->switched_micros);
    state.counters["writer_max_ms"] = Longest(during, start, end);
    state.counters["writer_max_to_switch_ms"] =
        Longest(during, start, switched);
    state.counters["writer_before_ms"] =
        Longest(before, Clock::time_point::min(), start);
    state.counters["writer_puts"] = static_cast<double>(during.size());
  }
}

StatusOr<router::RegionOpResult> Move(Cluster& cluster) {
  const router::RegionLocation first = cluster.First();
  const router::ServerId to = first.server.id == 1 ? 2 : 1;
  return cluster.router().MoveRegion(first.region.region_id, to);
}

StatusOr<router::RegionOpResult> Split(Cluster& cluster) {
  return cluster.router().SplitRegion(cluster.First().region.region_id,
                                      std::nullopt);
}

void BM_MoveRegion(benchmark::State& state) {
  TimeOperation(state, Rows(), Move);
}
void BM_SplitRegion(benchmark::State& state) {
  TimeOperation(state, Rows(), Split);
}
void BM_MoveRegion_small(benchmark::State& state) {
  TimeOperation(state, Rows() / 10, Move);
}
void BM_SplitRegion_small(benchmark::State& state) {
  TimeOperation(state, Rows() / 10, Split);
}

BENCHMARK(BM_MoveRegion)
    ->Iterations(1)
    ->UseManualTime()
    ->Unit(benchmark::kMillisecond);
BENCHMARK(BM_SplitRegion)
    ->Iterations(1)
    ->UseManualTime()
    ->Unit(benchmark::kMillisecond);
BENCHMARK(BM_MoveRegion_small)
    ->Iterations(1)
    ->UseManualTime()
    ->Unit(benchmark::kMillisecond);
BENCHMARK(BM_SplitRegion_small)
    ->Iterations(1)
    ->UseManualTime()
    ->Unit(benchmark::kMillisecond);

}  // namespace
}  // namespace bloomroute

BENCHMARK_MAIN();
