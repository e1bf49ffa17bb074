// What a region server's count of one value costs (countByIndex: an
// IndexQuery with count_only), when the index entries decide it and when a
// time range makes it read each matching row, in one run.
//
// Setup: one region of 100,000 rows of GeoNames-like width (10 columns,
// ~170 bytes), d:country indexed with 100 values (1,000 rows each). Each
// count asks for one random value.
//   BM_Count/index: equalities only; the index entries decide
//                   (LookupRun::IndexDecides), no row is read.
//   BM_Count/rows:  the same with a time range (every timestamp but 0): the
//                   index holds values whatever their timestamps, so each
//                   matching row is read and its cells checked -- what every
//                   count cost before.
// Counters: rows_counted per count (both must agree).
//
// Run: build/benchmarks/regionstore/count_benchmark
#include <benchmark/benchmark.h>

#include <memory>
#include <random>
#include <string>
#include <vector>

#include "benchmarks/bench_util.h"
#include "regionstore/region_store.h"

namespace bloomroute {
namespace {

constexpr int kRows = 100000;
constexpr int kValues = 100;

TableDescriptor Table() {
  return TableDescriptor{1, "places", {{1, "d:country"}}};
}

// The store with its rows, built once for every benchmark in the process.
RegionStore& Store() {
  static RegionStore* store = [] {
    auto s =
        std::move(RegionStore::Open(bench::TempDir(), RegionStoreOptions()))
            .value();
    if (!s->OpenRegion(RegionDescriptor{1, Table(), "", ""}).ok()) abort();
    std::mt19937_64 rng(1);
    std::vector<Mutation> batch;
    for (int i = 0; i < kRows; ++i) {
      std::vector<Cell> cells = {
          {"d:admin1", std::string(18, 'a')},
          {"d:country", "c" + std::to_string(i % kValues)},
          {"d:name", std::string(40, 'n')},
          {"d:population", std::to_string(rng() % 1000000)}};
      batch.push_back(
          Mutation::Put(1, "row" + std::to_string(rng()), std::move(cells)));
      if (batch.size() == 1000) {
        if (!s->Apply(batch).ok()) abort();
        batch.clear();
      }
    }
    return s.release();  // lives until exit
  }();
  return *store;
}

void BM_Count(benchmark::State& state, bool time_range) {
  RegionStore& store = Store();
  std::mt19937_64 rng(2);
  uint64_t counted = 0;
  for (auto _ : state) {
    IndexQuery q;
    q.table_id = 1;
    q.limit = 1;
    q.count_only = true;
    q.equals = {{"d:country", "c" + std::to_string(rng() % kValues)}};
    if (time_range) q.time_range = TimeRange{1, kLatestTimestamp};
    StatusOr<IndexQueryResult> r = store.Lookup(q);
    if (!r.ok() || r->truncated) {
      state.SkipWithError(r.ok() ? "truncated" : r.status().ToString().c_str());
      break;
    }
    counted += r->count;
  }
  state.SetItemsProcessed(state.iterations());
  state.counters["rows_counted"] = benchmark::Counter(
      static_cast<double>(counted), benchmark::Counter::kAvgIterations);
}

BENCHMARK_CAPTURE(BM_Count, index, false)->MinTime(1.0);
BENCHMARK_CAPTURE(BM_Count, rows, true)->MinTime(1.0);

}  // namespace
}  // namespace bloomroute

BENCHMARK_MAIN();
