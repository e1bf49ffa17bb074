// Put throughput of the region store with 0, 2 and 5 indexed columns, beside
// a raw RocksDB WriteBatch of the same rows (no index, no counts, no filter)
// in the same run. Target (issue 4): with 2 indexed columns >= 50 % of raw.
//
// Rows look like GeoNames places: 10 columns, ~170 bytes, random row keys;
// indexed values come from domains of realistic size (country 250, feature
// code 600, admin1 2,000, timezone 400, elevation 3,000), so most puts find
// their values already on the server (count n -> n+1, no filter op) and a
// few introduce new ones. Both sides write through the WAL without sync, in
// batches of `batch` rows (1 = one row per write, 100 = an import batch).
//
// Run: make bench   (or build/benchmarks/regionstore/put_benchmark)
//
// The raw baseline is the one place outside regionstore/ that includes
// RocksDB: it has to measure RocksDB itself.
#include <benchmark/benchmark.h>
#include <rocksdb/db.h>
#include <rocksdb/write_batch.h>
#include <stdlib.h>

#include <filesystem>
#include <random>
#include <string>
#include <vector>

#include "regionstore/region_store.h"

namespace bloomroute {
namespace {

constexpr const char* kIndexable[] = {"d:country", "d:feature", "d:admin1",
                                      "d:timezone", "d:elevation"};
constexpr uint64_t kDomain[] = {250, 600, 2000, 400, 3000};
constexpr const char* kPlain[] = {"d:name", "d:ascii", "d:lat", "d:lon",
                                  "d:population"};

std::string TempDir() {
  std::string tmpl =
      (std::filesystem::temp_directory_path() / "bloomroute-bench-XXXXXX")
          .string();
  return mkdtemp(tmpl.data());
}

// The next row of the stream; both sides draw the same rows.
std::vector<Cell> MakeRow(std::mt19937_64& rng) {
  std::vector<Cell> cells;
  for (int c = 0; c < 5; ++c) {
    cells.push_back({kIndexable[c], "v" + std::to_string(rng() % kDomain[c])});
  }
  for (const char* col : kPlain) {
    cells.push_back({col, std::string(20, 'a' + rng() % 26)});
  }
  std::sort(cells.begin(), cells.end(),
            [](const Cell& a, const Cell& b) { return a.column < b.column; });
  return cells;
}

std::string RowKey(std::mt19937_64& rng) {
  return "row" + std::to_string(rng());
}

void BM_RegionStorePut(benchmark::State& state) {
  const int indexed = static_cast<int>(state.range(0));
  const int batch_size = static_cast<int>(state.range(1));
  const std::string dir = TempDir();
  {
    TableDescriptor table{1, "places", {}};
    for (int c = 0; c < indexed; ++c) {
      table.indexed_columns.push_back(
          {static_cast<uint32_t>(c + 1), kIndexable[c]});
    }
    auto store =
        std::move(RegionStore::Open(dir, RegionStoreOptions())).value();
    if (!store->OpenRegion(RegionDescriptor{1, table, "", ""}).ok()) {
      state.SkipWithError("open region failed");
      return;
    }
    std::mt19937_64 rng(1);
    for (auto _ : state) {
      std::vector<Mutation> batch;
      for (int i = 0; i < batch_size; ++i) {
        batch.push_back(Mutation::Put(1, RowKey(rng), MakeRow(rng)));
      }
      if (!store->Apply(batch).ok()) {
        state.SkipWithError("apply failed");
        break;
      }
    }
    state.SetItemsProcessed(state.iterations() * batch_size);
  }
  std::filesystem::remove_all(dir);
}

void BM_RawRocksDbWriteBatch(benchmark::State& state) {
  const int batch_size = static_cast<int>(state.range(0));
  const std::string dir = TempDir();
  {
    rocksdb::Options options;
    options.create_if_missing = true;
    rocksdb::DB* raw = nullptr;
    if (!rocksdb::DB::Open(options, dir, &raw).ok()) {
      state.SkipWithError("open failed");
      return;
    }
    std::unique_ptr<rocksdb::DB> db(raw);
    std::mt19937_64 rng(1);
    for (auto _ : state) {
      rocksdb::WriteBatch wb;
      for (int i = 0; i < batch_size; ++i) {
        const std::string key = RowKey(rng);
        std::string value;  // the same cells, concatenated
        for (const Cell& c : MakeRow(rng)) value += c.column + c.value;
        wb.Put(key, value);
      }
      if (!db->Write(rocksdb::WriteOptions(), &wb).ok()) {
        state.SkipWithError("write failed");
        break;
      }
    }
    state.SetItemsProcessed(state.iterations() * batch_size);
  }
  std::filesystem::remove_all(dir);
}

BENCHMARK(BM_RawRocksDbWriteBatch)
    ->Arg(1)
    ->Arg(100)
    ->MinTime(2.0)
    ->UseRealTime();
BENCHMARK(BM_RegionStorePut)
    ->ArgsProduct({{0, 2, 5}, {1, 100}})
    ->ArgNames({"indexed", "batch"})
    ->MinTime(2.0)
    ->UseRealTime();

}  // namespace
}  // namespace bloomroute

BENCHMARK_MAIN();
