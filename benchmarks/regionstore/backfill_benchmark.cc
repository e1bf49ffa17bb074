// Index backfill rate of the region store beside the two ways `import`
// writes the same rows (bulk files, and Apply in batches of 1000), in one
// run. cities500-sized: 200,000 rows of 10 columns, ~170 bytes, 2 indexed
// columns as put_benchmark's GeoNames places. The backfill adds a third
// indexed column (d:timezone, 400 values) to the loaded rows in chunks of
// 1000 rows (the router's --index-chunk-rows), under the rows' locks, as
// the router drives it (without the router's catalog write per chunk and
// the RPC). Loading the rows before a backfill is not timed.
//
// BM_DropRegion drops the loaded region, at a quarter of the rows and at
// all of them (its time per row must not grow with the region).
//
// Run: build/benchmarks/regionstore/backfill_benchmark
//      (BLOOMROUTE_BENCH_ROWS=N for another size)
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
constexpr uint32_t kChunkRows = 1000;
constexpr const char* kIndexed[] = {"d:country", "d:feature", "d:timezone"};
constexpr uint64_t kDomain[] = {250, 600, 400};
constexpr const char* kPlain[] = {"d:admin1", "d:ascii", "d:elevation", "d:lat",
                                  "d:lon",    "d:name",  "d:population"};

int Rows() {
  const char* env = getenv("BLOOMROUTE_BENCH_ROWS");
  return env != nullptr ? std::max(1, atoi(env)) : 200000;
}

// `n` rows with random keys, sorted by key.
std::map<std::string, std::vector<Cell>> MakeRows(int n) {
  std::mt19937_64 rng(1);
  std::map<std::string, std::vector<Cell>> rows;
  while (static_cast<int>(rows.size()) < n) {
    std::vector<Cell> cells;
    for (int c = 0; c < 3; ++c) {
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

TableDescriptor Table(bool with_timezone) {
  TableDescriptor t{1, "places", {{1, kIndexed[0]}, {2, kIndexed[1]}}};
  if (with_timezone) t.indexed_columns.push_back({3, kIndexed[2], true});
  return t;
}

std::unique_ptr<RegionStore> OpenStore(const std::string& dir) {
  auto store = std::move(RegionStore::Open(dir, RegionStoreOptions())).value();
  if (!store->OpenRegion(RegionDescriptor{1, Table(false), "", ""}).ok()) {
    return nullptr;
  }
  return store;
}

std::vector<std::string> WriteFiles(
    const std::string& dir, const std::map<std::string, std::vector<Cell>>& r) {
  std::vector<std::string> files;
  std::unique_ptr<BulkFileWriter> writer;
  int in_file = 0;
  for (const auto& [key, cells] : r) {
    if (writer == nullptr) {
      files.push_back(dir + "/rows" + std::to_string(files.size()) + ".sst");
      writer = std::move(BulkFileWriter::Create(files.back())).value();
    }
    (void)writer->Add(key, cells);
    if (++in_file == kRowsPerFile) {
      (void)writer->Finish();
      writer.reset();
      in_file = 0;
    }
  }
  if (writer != nullptr) (void)writer->Finish();
  return files;
}

Status Load(RegionStore& store, const std::vector<std::string>& files) {
  for (const std::string& f : files) {
    BLOOMROUTE_RETURN_IF_ERROR(store.BulkLoad(1, f).status());
  }
  return Status::OK();
}

void BM_ImportBulkFiles(benchmark::State& state) {
  const auto rows = MakeRows(Rows());
  const std::string dir = TempDir();
  const std::vector<std::string> files = WriteFiles(dir, rows);
  int run = 0;
  for (auto _ : state) {
    auto store = OpenStore(dir + "/store" + std::to_string(run++));
    const Status s = Load(*store, files);
    if (!s.ok()) state.SkipWithError(s.ToString().c_str());
  }
  state.SetItemsProcessed(state.iterations() * rows.size());
  std::filesystem::remove_all(dir);
}

void BM_ImportApplyBatchesOf1000(benchmark::State& state) {
  const auto rows = MakeRows(Rows());
  std::vector<std::vector<Mutation>> batches(1);
  for (const auto& [key, cells] : rows) {
    if (batches.back().size() == 1000) batches.emplace_back();
    batches.back().push_back(Mutation::Put(1, key, cells));
  }
  const std::string dir = TempDir();
  int run = 0;
  for (auto _ : state) {
    auto store = OpenStore(dir + "/store" + std::to_string(run++));
    for (const auto& batch : batches) {
      if (!store->Apply(batch).ok()) state.SkipWithError("apply failed");
    }
  }
  state.SetItemsProcessed(state.iterations() * rows.size());
  std::filesystem::remove_all(dir);
}

void BM_BackfillChunksOf1000(benchmark::State& state) {
  const auto rows = MakeRows(Rows());
  const std::string dir = TempDir();
  const std::vector<std::string> files = WriteFiles(dir, rows);
  int run = 0;
  uint64_t entries = 0;
  for (auto _ : state) {
    state.PauseTiming();
    auto store = OpenStore(dir + "/store" + std::to_string(run++));
    if (!Load(*store, files).ok() ||
        !store->UpdateTableIndexes(Table(true)).ok()) {
      state.SkipWithError("setup failed");
      break;
    }
    state.ResumeTiming();
    std::string after;
    while (true) {
      auto chunk = store->BackfillIndex(1, 3, after, kChunkRows, 0);
      if (!chunk.ok()) {
        state.SkipWithError(chunk.status().ToString().c_str());
        break;
      }
      entries += chunk->entries;
      if (chunk->done) break;
      after = chunk->resume_after;
    }
  }
  state.SetItemsProcessed(state.iterations() * rows.size());
  state.counters["entries_added"] = static_cast<double>(entries);
  std::filesystem::remove_all(dir);
}

// Dropping a region (the end of a region move, split or merge, and of a
// table's deletion): its rows, index entries and value counts deleted in
// batches. At a quarter of the rows and at all of them: the time per row
// must not grow with the region's size.
void BM_DropRegion(benchmark::State& state) {
  const auto rows = MakeRows(static_cast<int>(state.range(0)));
  const std::string dir = TempDir();
  const std::vector<std::string> files = WriteFiles(dir, rows);
  int run = 0;
  for (auto _ : state) {
    state.PauseTiming();
    auto store = OpenStore(dir + "/store" + std::to_string(run++));
    if (!Load(*store, files).ok()) {
      state.SkipWithError("setup failed");
      break;
    }
    state.ResumeTiming();
    const Status s = store->DropRegion(1);
    if (!s.ok()) state.SkipWithError(s.ToString().c_str());
  }
  state.SetItemsProcessed(state.iterations() * rows.size());
  std::filesystem::remove_all(dir);
}

BENCHMARK(BM_ImportBulkFiles)
    ->Iterations(3)
    ->UseRealTime()
    ->Unit(benchmark::kMillisecond);
BENCHMARK(BM_ImportApplyBatchesOf1000)
    ->Iterations(3)
    ->UseRealTime()
    ->Unit(benchmark::kMillisecond);
BENCHMARK(BM_BackfillChunksOf1000)
    ->Iterations(3)
    ->UseRealTime()
    ->Unit(benchmark::kMillisecond);
BENCHMARK(BM_DropRegion)
    ->Arg(Rows() / 4)
    ->Arg(Rows())
    ->Iterations(1)
    ->UseRealTime()
    ->Unit(benchmark::kMillisecond);

}  // namespace
}  // namespace bloomroute

BENCHMARK_MAIN();
