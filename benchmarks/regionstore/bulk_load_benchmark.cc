// Bulk load throughput of the region store beside Apply of the same rows in
// batches of 1000 (the router's chunk size), 2 indexed columns. Each
// iteration loads `rows` rows with new random keys into a store that keeps
// growing, as files of kRowsPerFile rows (bulk files are uncompressed: 25,000
// of these rows make about 9 MB, under the import tool's 16 MiB files);
// writing the files (the import tool's work) is not timed.
// Rows look like put_benchmark's GeoNames places (10 columns, ~170 bytes).
//
// Run: build/benchmarks/regionstore/bulk_load_benchmark
#include <benchmark/benchmark.h>
#include <stdlib.h>

#include <algorithm>
#include <filesystem>
#include <map>
#include <random>
#include <string>
#include <vector>

#include "benchmarks/bench_util.h"
#include "regionstore/bulk_file.h"
#include "regionstore/region_store.h"

namespace bloomroute {
namespace {

using bench::TempDir;

constexpr int kRowsPerFile = 25000;
constexpr const char* kIndexed[] = {"d:country", "d:feature"};
constexpr uint64_t kDomain[] = {250, 600};
constexpr const char* kPlain[] = {"d:admin1",     "d:ascii",   "d:elevation",
                                  "d:lat",        "d:lon",     "d:name",
                                  "d:population", "d:timezone"};

// `n` rows with random keys, sorted by key.
std::map<std::string, std::vector<Cell>> MakeRows(std::mt19937_64& rng, int n) {
  std::map<std::string, std::vector<Cell>> rows;
  while (static_cast<int>(rows.size()) < n) {
    std::vector<Cell> cells;
    for (int c = 0; c < 2; ++c) {
      cells.push_back({kIndexed[c], "v" + std::to_string(rng() % kDomain[c])});
    }
    for (const char* col : kPlain) {
      cells.push_back({col, std::string(18, 'a' + rng() % 26)});
    }
    std::sort(cells.begin(), cells.end(),
              [](const Cell& a, const Cell& b) { return a.column < b.column; });
    rows["row" + std::to_string(rng())] = std::move(cells);
  }
  return rows;
}

std::unique_ptr<RegionStore> OpenStore(const std::string& dir) {
  TableDescriptor table{1, "places", {{1, kIndexed[0]}, {2, kIndexed[1]}}};
  auto store = std::move(RegionStore::Open(dir, RegionStoreOptions())).value();
  if (!store->OpenRegion(RegionDescriptor{1, table, "", ""}).ok()) {
    return nullptr;
  }
  return store;
}

void BM_BulkLoad(benchmark::State& state) {
  const int rows = static_cast<int>(state.range(0));
  const std::string dir = TempDir();
  {
    auto store = OpenStore(dir + "/store");
    std::mt19937_64 rng(1);
    for (auto _ : state) {
      state.PauseTiming();
      std::vector<std::string> files;
      for (int done = 0; done < rows; done += kRowsPerFile) {
        files.push_back(dir + "/rows" + std::to_string(files.size()) + ".sst");
        auto writer = std::move(BulkFileWriter::Create(files.back())).value();
        for (auto& [key, cells] :
             MakeRows(rng, std::min(kRowsPerFile, rows - done))) {
          if (!writer->Add(key, cells).ok()) state.SkipWithError("add failed");
        }
        if (!writer->Finish().ok()) state.SkipWithError("finish failed");
      }
      state.ResumeTiming();
      for (const std::string& file : files) {
        auto loaded = store->BulkLoad(1, file);
        if (!loaded.ok()) {
          state.SkipWithError(loaded.status().ToString().c_str());
          break;
        }
      }
    }
    state.SetItemsProcessed(state.iterations() * rows);
  }
  std::filesystem::remove_all(dir);
}

void BM_ApplyInBatchesOf1000(benchmark::State& state) {
  const int rows = static_cast<int>(state.range(0));
  const std::string dir = TempDir();
  {
    auto store = OpenStore(dir + "/store");
    std::mt19937_64 rng(1);
    for (auto _ : state) {
      state.PauseTiming();
      std::vector<std::vector<Mutation>> batches(1);
      for (auto& [key, cells] : MakeRows(rng, rows)) {
        if (batches.back().size() == 1000) batches.emplace_back();
        batches.back().push_back(Mutation::Put(1, key, std::move(cells)));
      }
      state.ResumeTiming();
      for (const auto& batch : batches) {
        if (!store->Apply(batch).ok()) state.SkipWithError("apply failed");
      }
    }
    state.SetItemsProcessed(state.iterations() * rows);
  }
  std::filesystem::remove_all(dir);
}

BENCHMARK(BM_BulkLoad)
    ->Arg(100000)
    ->Iterations(5)
    ->UseRealTime()
    ->Unit(benchmark::kMillisecond);
BENCHMARK(BM_ApplyInBatchesOf1000)
    ->Arg(100000)
    ->Iterations(5)
    ->UseRealTime()
    ->Unit(benchmark::kMillisecond);

}  // namespace
}  // namespace bloomroute

BENCHMARK_MAIN();
