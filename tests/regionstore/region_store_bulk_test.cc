// RegionStore::BulkLoad: a bulk-loaded file must leave the store exactly as
// Apply of the same puts does (rows, index, counts, filter and its ops), and
// a bad file must leave it untouched.
#include <gtest/gtest.h>
#include <rocksdb/options.h>
#include <rocksdb/sst_file_writer.h>
#include <rocksdb/table.h>

#include <filesystem>
#include <fstream>
#include <iterator>
#include <thread>

#include "regionstore/bulk_file.h"
#include "regionstore/region_store.h"
#include "tests/regionstore/bulk_file_v2_fixture.h"
#include "tests/regionstore/region_store_test_util.h"

namespace bloomroute {
namespace {

using testing::OpenStoreWithRegions;
using testing::PlacesRegion;
using testing::PutPlace;
using testing::TempDir;
using testing::Where;

// A store with regions 1 [.., "m") and 2 ["m", ..) of PlacesTable().
std::unique_ptr<RegionStore> OpenStore(const std::string& dir,
                                       const RegionStoreOptions& options) {
  return OpenStoreWithRegions(
      dir, options, {PlacesRegion(1, "", "m"), PlacesRegion(2, "m", "")});
}

// Puts of one region, keys ascending.
std::vector<Mutation> Places(uint64_t region, const std::string& prefix, int n,
                             int countries, const std::string& tag) {
  std::vector<Mutation> puts;
  for (int i = 0; i < n; ++i) {
    char key[16];
    std::snprintf(key, sizeof(key), "%04d", i);
    puts.push_back(PutPlace(region, prefix + key,
                            "C" + std::to_string(i % countries),
                            "F" + tag + std::to_string(i % 3), "n" + tag));
  }
  return puts;
}

class RegionStoreBulkLoadTest : public ::testing::Test {
 protected:
  // Online writes without a timestamp get this clock: older than the
  // timestamps LoadBoth gives, as if they came first.
  RegionStoreBulkLoadTest() {
    options_.clock_ms = [] { return int64_t{500}; };
  }

  // The puts with `ts` for every cell without a timestamp: a bulk file
  // gets the writer's clock, an online put the store's.
  static std::vector<Mutation> Stamped(std::vector<Mutation> puts, int64_t ts) {
    for (Mutation& m : puts) {
      for (Cell& c : m.cells) {
        if (c.timestamp == kLatestTimestamp) c.timestamp = ts;
      }
    }
    return puts;
  }

  void SetUp() override {
    online_ = OpenStore(online_dir_.path(), options_);
    bulk_ = OpenStore(bulk_dir_.path(), options_);
    ASSERT_NE(online_, nullptr);
    ASSERT_NE(bulk_, nullptr);
  }

  // Writes the puts (one region, ascending keys) to a bulk file.
  std::string WriteFile(const std::vector<Mutation>& puts) {
    const std::string path =
        files_.path() + "/f" + std::to_string(++files_written_) + ".sst";
    auto w = BulkFileWriter::Create(path);
    EXPECT_TRUE(w.ok()) << w.status().ToString();
    for (const Mutation& m : puts) {
      Status s = (*w)->Add(m.row_key, m.cells);
      EXPECT_TRUE(s.ok()) << s.ToString();
    }
    EXPECT_TRUE((*w)->Finish().ok());
    return path;
  }

  // Applies the puts online to one store and bulk-loads them into the other;
  // both must report the same filter changes. Cells without a timestamp get
  // one (the same for both stores, later each call), so that the stores'
  // rows compare equal timestamps included.
  void LoadBoth(uint64_t region, std::vector<Mutation> puts) {
    puts = Stamped(std::move(puts), ++load_time_);
    auto online = online_->Apply(puts);
    ASSERT_TRUE(online.ok()) << online.status().ToString();
    auto bulk = bulk_->BulkLoad(region, WriteFile(puts));
    ASSERT_TRUE(bulk.ok()) << bulk.status().ToString();
    EXPECT_EQ(bulk->epoch, online->epoch);
    EXPECT_EQ(bulk->last_seq, online->last_seq);
    EXPECT_EQ(bulk->ops, online->ops);
  }

  static std::vector<Row> AllRows(RegionStore& store) {
    std::vector<Row> rows;
    for (uint64_t region : {1, 2}) {
      auto r = store.Scan(ScanRequest{region, "", "", kMaxRowsPerCall, {}});
      EXPECT_TRUE(r.ok()) << r.status().ToString();
      if (r.ok()) rows.insert(rows.end(), r->rows.begin(), r->rows.end());
    }
    return rows;
  }

  static std::vector<std::string> Keys(RegionStore& store,
                                       const IndexQuery& q) {
    auto r = store.Lookup(q);
    EXPECT_TRUE(r.ok()) << r.status().ToString();
    std::vector<std::string> keys;
    if (r.ok()) {
      for (const Row& row : r->rows) keys.push_back(row.key);
    }
    return keys;
  }

  static void ExpectConsistent(RegionStore& store) {
    auto report = store.VerifyIndex(std::nullopt);
    ASSERT_TRUE(report.ok()) << report.status().ToString();
    EXPECT_TRUE(report->ok())
        << (report->problems.empty() ? std::string("filter")
                                     : report->problems.front());
  }

  // Rows, index, counts (VerifyIndex) and the filter agree between stores.
  void ExpectSameStores(int countries, const std::vector<std::string>& tags) {
    EXPECT_EQ(AllRows(*bulk_), AllRows(*online_));
    for (int c = 0; c < countries; ++c) {
      const auto q = Where({{"d:country", "C" + std::to_string(c)}}, 100000);
      EXPECT_EQ(Keys(*bulk_, q), Keys(*online_, q)) << c;
    }
    for (const std::string& tag : tags) {
      for (int f = 0; f < 3; ++f) {
        const auto q = Where({{"d:feature", "F" + tag + std::to_string(f)}});
        EXPECT_EQ(Keys(*bulk_, q), Keys(*online_, q)) << tag << f;
      }
    }
    ExpectConsistent(*bulk_);
    ExpectConsistent(*online_);
    auto a = bulk_->Snapshot();
    auto b = online_->Snapshot();
    ASSERT_TRUE(a.ok() && b.ok());
    EXPECT_EQ(a->epoch, b->epoch);
    EXPECT_EQ(a->last_seq, b->last_seq);
    EXPECT_EQ(a->filter, b->filter);  // byte for byte: same elements, stages
  }

  // Nothing written: same rows, filter at the same seq, index consistent.
  void ExpectUnchanged(const std::vector<Row>& rows, uint64_t seq) {
    EXPECT_EQ(AllRows(*bulk_), rows);
    EXPECT_EQ(bulk_->GetFilterStatus().last_seq, seq);
    ExpectConsistent(*bulk_);
    EXPECT_TRUE(std::filesystem::is_empty(bulk_dir_.path() + "/bulk-staging"));
  }

  TempDir online_dir_;
  TempDir bulk_dir_;
  TempDir files_;
  int files_written_ = 0;
  int64_t load_time_ = 1000;
  RegionStoreOptions options_;
  std::unique_ptr<RegionStore> online_;
  std::unique_ptr<RegionStore> bulk_;
};

TEST_F(RegionStoreBulkLoadTest, ABulkLoadEqualsApplyOfTheSamePuts) {
  // Rows already there (online in both) are overwritten column by column.
  for (RegionStore* s : {online_.get(), bulk_.get()}) {
    ASSERT_TRUE(s->Apply({PutPlace(1, "a0003", "OLD", "FOLD"),
                          Mutation::Put(1, "a0004", {{"d:other", "kept"}})})
                    .ok());
  }
  LoadBoth(1, Places(1, "a", 500, 40, "x"));
  LoadBoth(2, Places(2, "p", 300, 60, "y"));
  ExpectSameStores(60, {"x", "y", "OLD"});
  auto row = bulk_->Get({GetRequest{1, "a0004", {}}});
  ASSERT_TRUE(row.ok() && (*row)[0].has_value());
  EXPECT_EQ((*row)[0]->Find("d:other")->value, "kept");
  EXPECT_TRUE(Keys(*bulk_, Where({{"d:country", "OLD"}})).empty());
}

// A region opened with its table's families refuses bulk-loaded cells of
// other families; one stored before families were sent (none) takes a new
// open that adds them, without "exists with another descriptor".
TEST_F(RegionStoreBulkLoadTest, CellsOfUndeclaredFamiliesAreRefused) {
  RegionDescriptor declared = PlacesRegion(1, "", "m");
  declared.table.families = {"d"};
  ASSERT_TRUE(bulk_->OpenRegion(declared).ok());
  for (const RegionDescriptor& r : bulk_->ListRegions()) {
    if (r.region_id == 1) {
      EXPECT_EQ(r.table.families, declared.table.families);
    }
  }
  const Status refused =
      bulk_->BulkLoad(1, WriteFile({Mutation::Put(1, "a", {{"x:y", "v", 1}})}))
          .status();
  EXPECT_TRUE(refused.IsInvalidArgument()) << refused.ToString();
  EXPECT_NE(refused.message().find("column family 'x'"), std::string::npos)
      << refused.ToString();
  EXPECT_TRUE(
      bulk_->BulkLoad(1, WriteFile({Mutation::Put(1, "a", {{"d:y", "v", 1}})}))
          .ok());
  // Region 2 was opened without families (as by a router before this
  // version): opening it again with them is no "other descriptor".
  RegionDescriptor upgraded = PlacesRegion(2, "m", "");
  upgraded.table.families = {"d"};
  const Status reopened = bulk_->OpenRegion(upgraded);
  EXPECT_TRUE(reopened.ok()) << reopened.ToString();
  EXPECT_TRUE(
      bulk_->BulkLoad(2, WriteFile({Mutation::Put(2, "n", {{"x:y", "v", 1}})}))
          .status()
          .IsInvalidArgument());
}

TEST_F(RegionStoreBulkLoadTest, LoadedCellsFollowTimestampsAsPutsDo) {
  // A stored cell newer than the file's stays; an older one is replaced.
  ASSERT_TRUE(bulk_
                  ->Apply({Mutation::Put(1, "a", {{"d:country", "DK", 5000}}),
                           Mutation::Put(1, "b", {{"d:country", "FI", 10}})})
                  .ok());
  auto loaded = bulk_->BulkLoad(
      1, WriteFile({Mutation::Put(1, "a", {{"d:country", "NO", 100}}),
                    Mutation::Put(1, "b", {{"d:country", "SE", 100}})}));
  ASSERT_TRUE(loaded.ok()) << loaded.status().ToString();
  EXPECT_EQ(AllRows(*bulk_),
            (std::vector<Row>{Row{"a", {{"d:country", "DK", 5000}}},
                              Row{"b", {{"d:country", "SE", 100}}}}));
  EXPECT_EQ(Keys(*bulk_, Where({{"d:country", "NO"}})),
            std::vector<std::string>{});
  EXPECT_EQ(Keys(*bulk_, Where({{"d:country", "SE"}})),
            std::vector<std::string>{"b"});
  ExpectConsistent(*bulk_);
}

TEST_F(RegionStoreBulkLoadTest, AVersion2FileIsPutWithTheLoadingServersClock) {
  RegionStoreOptions options = options_;
  options.clock_ms = [] { return int64_t{777}; };
  TempDir dir;
  auto store = OpenStore(dir.path(), options);
  ASSERT_NE(store, nullptr);
  auto loaded = store->BulkLoadBytes(1, testing::Version2File());
  ASSERT_TRUE(loaded.ok()) << loaded.status().ToString();
  EXPECT_EQ(AllRows(*store),
            (std::vector<Row>{
                Row{"a", {{"d:country", "NO", 777}, {"d:name", "x", 777}}},
                Row{"b", {{"d:country", "SE", 777}}}}));
  ExpectConsistent(*store);
}

TEST_F(RegionStoreBulkLoadTest, ReloadingChangedValuesMovesIndexAndCounts) {
  LoadBoth(1, Places(1, "a", 200, 20, "x"));
  // The same keys, other values: entries move, old values leave the filter.
  LoadBoth(1, Places(1, "a", 200, 7, "z"));
  ExpectSameStores(20, {"x", "z"});
  EXPECT_TRUE(Keys(*bulk_, Where({{"d:country", "C15"}})).empty());
  EXPECT_EQ(Keys(*bulk_, Where({{"d:country", "C6"}}, 1000)).size(), 28u);

  // The ingested op log and counts survive a restart: the filter comes back
  // from checkpoint plus ops and still matches a rebuild.
  const auto before = bulk_->Snapshot().value();
  bulk_.reset();
  bulk_ = OpenStore(bulk_dir_.path(), options_);
  ASSERT_NE(bulk_, nullptr);
  const auto after = bulk_->Snapshot().value();
  EXPECT_EQ(after.epoch, before.epoch);
  EXPECT_EQ(after.last_seq, before.last_seq);
  EXPECT_EQ(after.filter, before.filter);
  ExpectSameStores(20, {"x", "z"});
}

TEST_F(RegionStoreBulkLoadTest, ALoadThatOutgrowsTheStageLimitIsApplied) {
  options_.filter.initial_capacity = 1;
  options_.filter.growth_factor = 1.0;
  options_.max_filter_stages = 8;
  TempDir online_dir, bulk_dir;
  online_ = OpenStore(online_dir.path(), options_);
  bulk_ = OpenStore(bulk_dir.path(), options_);
  LoadBoth(1, Places(1, "a", 100, 80, "x"));
  EXPECT_GT(bulk_->GetFilterStatus().epoch, 1u);
  ExpectSameStores(80, {"x"});
  online_.reset();
  bulk_.reset();
}

TEST_F(RegionStoreBulkLoadTest, BadFilesAreRejectedAndWriteNothing) {
  options_.max_value_bytes = 64;
  options_.max_bulk_rows = 50;
  bulk_.reset();
  bulk_ = OpenStore(bulk_dir_.path(), options_);
  ASSERT_TRUE(bulk_->BulkLoad(1, WriteFile(Places(1, "a", 20, 5, "x"))).ok());
  const std::vector<Row> rows = AllRows(*bulk_);
  const uint64_t seq = bulk_->GetFilterStatus().last_seq;

  // A row outside the region, after rows that are inside.
  auto outside = Places(1, "a", 10, 5, "y");
  outside.push_back(PutPlace(1, "zz", "C1", "F"));
  auto s = bulk_->BulkLoad(1, WriteFile(outside));
  EXPECT_TRUE(s.status().IsInvalidArgument()) << s.status().ToString();
  EXPECT_NE(s.status().message().find("outside region 1"), std::string::npos);
  ExpectUnchanged(rows, seq);

  // A value over the server's limit.
  auto big = Places(1, "a", 10, 5, "y");
  big[5].cells[2].value.assign(65, 'v');
  s = bulk_->BulkLoad(1, WriteFile(big));
  EXPECT_TRUE(s.status().IsInvalidArgument()) << s.status().ToString();
  ExpectUnchanged(rows, seq);

  // More rows than a file may hold.
  s = bulk_->BulkLoad(1, WriteFile(Places(1, "a", 51, 5, "y")));
  EXPECT_TRUE(s.status().IsInvalidArgument()) << s.status().ToString();
  ExpectUnchanged(rows, seq);

  // Corrupt bytes in the middle of a block.
  const std::string path = WriteFile(Places(1, "a", 20, 5, "y"));
  std::string bytes;
  {
    std::ifstream in(path, std::ios::binary);
    bytes.assign(std::istreambuf_iterator<char>(in), {});
  }
  bytes[bytes.size() / 4] ^= 0x5a;
  s = bulk_->BulkLoadBytes(1, bytes);
  EXPECT_TRUE(s.status().IsInvalidArgument()) << s.status().ToString();
  ExpectUnchanged(rows, seq);
  // Not a file at all.
  s = bulk_->BulkLoadBytes(1, "not an sst file");
  EXPECT_TRUE(s.status().IsInvalidArgument()) << s.status().ToString();
  ExpectUnchanged(rows, seq);

  // An SST file without the bulk format version: not ours.
  {
    rocksdb::SstFileWriter raw{rocksdb::EnvOptions(), rocksdb::Options()};
    ASSERT_TRUE(raw.Open(files_.path() + "/raw.sst").ok());
    ASSERT_TRUE(raw.Put("a1", "x").ok());
    ASSERT_TRUE(raw.Finish().ok());
  }
  s = bulk_->BulkLoad(1, files_.path() + "/raw.sst");
  EXPECT_TRUE(s.status().IsInvalidArgument()) << s.status().ToString();
  ExpectUnchanged(rows, seq);

  // The same with a valid trailer (a client can compute the checksum).
  const auto seal = [&](const std::string& path) {
    std::string bytes;
    {
      std::ifstream in(path, std::ios::binary);
      bytes.assign(std::istreambuf_iterator<char>(in), {});
    }
    std::ofstream(path, std::ios::binary | std::ios::trunc)
        << SealBulkFile(bytes);
    return path;
  };
  s = bulk_->BulkLoad(1, seal(files_.path() + "/raw.sst"));
  EXPECT_TRUE(s.status().IsInvalidArgument()) << s.status().ToString();
  ExpectUnchanged(rows, seq);

  // A compressed SST file in the bulk files' table format, sealed: a few
  // bytes could stand for gigabytes.
  {
    rocksdb::Options compressed;
    compressed.compression = rocksdb::kSnappyCompression;
    rocksdb::BlockBasedTableOptions table;
    table.format_version = 2;
    table.checksum = rocksdb::kCRC32c;
    compressed.table_factory.reset(rocksdb::NewBlockBasedTableFactory(table));
    rocksdb::SstFileWriter raw{rocksdb::EnvOptions(), compressed};
    ASSERT_TRUE(raw.Open(files_.path() + "/snappy.sst").ok());
    ASSERT_TRUE(raw.Put("a1", std::string(100000, 'x')).ok());
    ASSERT_TRUE(raw.Finish().ok());
  }
  s = bulk_->BulkLoad(1, seal(files_.path() + "/snappy.sst"));
  EXPECT_TRUE(s.status().IsInvalidArgument()) << s.status().ToString();
  EXPECT_NE(s.status().message().find("compressed"), std::string::npos)
      << s.status().ToString();
  ExpectUnchanged(rows, seq);

  // A region that is not open; a file that does not exist.
  s = bulk_->BulkLoad(9, WriteFile(Places(1, "a", 3, 5, "y")));
  EXPECT_TRUE(s.status().IsNotFound()) << s.status().ToString();
  EXPECT_TRUE(
      bulk_->BulkLoad(1, files_.path() + "/none.sst").status().IsIOError());
  ExpectUnchanged(rows, seq);
}

TEST_F(RegionStoreBulkLoadTest, ALoadWithMoreOpsThanAReplyCarriesReturnsNone) {
  options_.max_ops_per_call = 10;
  online_.reset();  // reopen both stores with the option
  bulk_.reset();
  SetUp();
  const auto puts = Stamped(Places(1, "a", 100, 40, "x"), 1000);
  auto online = online_->Apply(puts);
  ASSERT_TRUE(online.ok()) << online.status().ToString();
  ASSERT_GT(online->ops.size(), 10u);  // Apply is not limited
  auto bulk = bulk_->BulkLoad(1, WriteFile(puts));
  ASSERT_TRUE(bulk.ok()) << bulk.status().ToString();
  EXPECT_TRUE(bulk->ops.empty());
  EXPECT_EQ(bulk->epoch, online->epoch);
  EXPECT_EQ(bulk->last_seq, online->last_seq);  // a reader knows it is behind
  auto ops = bulk_->OpsSince(bulk->incarnation, bulk->epoch,
                             0);  // and catches up in pages
  ASSERT_TRUE(ops.ok()) << ops.status().ToString();
  EXPECT_EQ(ops->ops.size(), 10u);
  ExpectSameStores(40, {"x"});
}

TEST_F(RegionStoreBulkLoadTest, LoadingBytesUsesAStagingFileAndRemovesIt) {
  const auto puts = Stamped(Places(2, "q", 100, 10, "x"), 1000);
  std::string bytes;
  {
    std::ifstream in(WriteFile(puts), std::ios::binary);
    bytes.assign(std::istreambuf_iterator<char>(in), {});
  }
  auto online = online_->Apply(puts);
  auto bulk = bulk_->BulkLoadBytes(2, bytes);
  ASSERT_TRUE(bulk.ok()) << bulk.status().ToString();
  EXPECT_EQ(bulk->ops, online->ops);
  EXPECT_TRUE(std::filesystem::is_empty(bulk_dir_.path() + "/bulk-staging"));
  ExpectSameStores(10, {"x"});

  // Past the file limit only a file of one row (what a region copy makes
  // of a large row) is taken, up to the row limit.
  options_.max_bulk_file_bytes = bytes.size() - 1;
  bulk_.reset();
  bulk_ = OpenStore(bulk_dir_.path(), options_);
  const Status refused = bulk_->BulkLoadBytes(2, bytes).status();
  EXPECT_TRUE(refused.IsInvalidArgument()) << refused.ToString();
  EXPECT_NE(refused.message().find("is not one row"), std::string::npos)
      << refused.ToString();
  const std::vector<Mutation> one(puts.begin(), puts.begin() + 1);
  std::string one_row;
  {
    std::ifstream in(WriteFile(one), std::ios::binary);
    one_row.assign(std::istreambuf_iterator<char>(in), {});
  }
  options_.max_bulk_file_bytes = one_row.size() - 1;
  bulk_.reset();
  bulk_ = OpenStore(bulk_dir_.path(), options_);
  EXPECT_TRUE(bulk_->BulkLoadBytes(2, one_row).ok());
  options_.max_value_bytes = 1 << 20;
  options_.max_row_bytes = 1 << 20;  // the row limit bounds it still
  options_.max_bulk_file_bytes = 1024;
  bulk_.reset();
  bulk_ = OpenStore(bulk_dir_.path(), options_);
  EXPECT_TRUE(bulk_->BulkLoadBytes(2, std::string((2 << 20), 'x'))
                  .status()
                  .IsInvalidArgument());
}

// Online writes and bulk loads of the same rows, concurrently: every write
// is atomic under the row locks, so the index stays exact.
TEST_F(RegionStoreBulkLoadTest, ConcurrentWritesAndLoadsKeepTheIndexExact) {
  std::vector<std::string> files;
  for (int i = 0; i < 6; ++i) {
    files.push_back(WriteFile(Places(1, "a", 150, 10 + i, std::to_string(i))));
  }
  std::thread loader([&] {
    for (const std::string& f : files) {
      auto r = bulk_->BulkLoad(1, f);
      EXPECT_TRUE(r.ok()) << r.status().ToString();
    }
  });
  for (int i = 0; i < 30; ++i) {
    auto r = bulk_->Apply(Places(1, "a", 150, 13, "w" + std::to_string(i)));
    EXPECT_TRUE(r.ok()) << r.status().ToString();
  }
  loader.join();
  ExpectConsistent(*bulk_);
}

}  // namespace
}  // namespace bloomroute
