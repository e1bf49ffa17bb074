// The index lifecycle of a region store: UpdateTableIndexes, BackfillIndex
// and DropIndexEntries. The reference is a twin store whose column was
// indexed when its table was created, given the same writes.
#include <gtest/gtest.h>

#include <random>
#include <set>
#include <thread>

#include "regionstore/region_store.h"
#include "tests/regionstore/region_store_test_util.h"

namespace bloomroute::testing {
namespace {

constexpr uint64_t kTable = 7;

TableDescriptor Table(std::vector<IndexedColumn> columns) {
  TableDescriptor t;
  t.table_id = kTable;
  t.name = "places";
  t.indexed_columns = std::move(columns);
  return t;
}

const IndexedColumn kCountry{1, "d:country"};
IndexedColumn Feature(bool building) { return {2, "d:feature", building}; }

std::vector<RegionDescriptor> Regions(const TableDescriptor& t) {
  return {{1, t, "", "g"}, {2, t, "g", "p"}, {3, t, "p", ""}};
}

// Deterministic writes: puts of both columns (some without the feature),
// changes of the feature alone, deletes of the feature and of whole rows.
// Timestamps are explicit and rising, so two stores given the same
// mutations in the same order hold the same rows.
class Workload {
 public:
  explicit Workload(uint32_t seed) : rng_(seed) {}
  Mutation Next() {
    const std::string row = "r" + std::to_string(rng_() % 400);
    const uint64_t region = row < "g" ? 1 : row < "p" ? 2 : 3;
    ++ts_;
    const std::string feature = "f" + std::to_string(rng_() % 17);
    Mutation m;
    switch (rng_() % 6) {
      case 0:
        m = Mutation::Delete(region, row);
        break;
      case 1:
        m = Mutation::Delete(region, row, {"d:feature"});
        break;
      case 2:
        m = Mutation::Put(region, row, {{"d:feature", feature, ts_}});
        break;
      case 3:
        m = Mutation::Put(
            region, row,
            {{"d:country", "c" + std::to_string(rng_() % 5), ts_}});
        break;
      default:
        m = Mutation::Put(region, row,
                          {{"d:country", "c" + std::to_string(rng_() % 5), ts_},
                           {"d:feature", feature, ts_}});
    }
    m.timestamp = ts_;
    return m;
  }

 private:
  std::mt19937 rng_;
  int64_t ts_ = 1000;
};

class RegionStoreIndexTest : public ::testing::Test {
 protected:
  std::unique_ptr<RegionStore> Open(const std::string& name,
                                    const TableDescriptor& table) {
    RegionStoreOptions options;
    options.filter.initial_capacity = 64;  // several stages
    return OpenStoreWithRegions(dir_.path() + "/" + name, options,
                                Regions(table));
  }
  static void Apply(RegionStore& store, const Mutation& m) {
    auto r = store.Apply({m});
    ASSERT_TRUE(r.ok()) << r.status().ToString();
  }
  // Backfills column 2 of every region in chunks of `chunk` rows.
  static uint64_t Backfill(RegionStore& store, uint32_t chunk) {
    uint64_t added = 0;
    for (uint64_t region = 1; region <= 3; ++region) {
      std::string after;
      for (int calls = 0;; ++calls) {
        EXPECT_LT(calls, 10000) << "no progress";
        auto r = store.BackfillIndex(region, 2, after, chunk, 0);
        EXPECT_TRUE(r.ok()) << r.status().ToString();
        if (!r.ok()) return added;
        added += r->entries;
        if (r->done) break;
        EXPECT_GT(r->resume_after, after);
        after = r->resume_after;
      }
    }
    return added;
  }
  static std::vector<std::string> Rows(RegionStore& store,
                                       const std::string& feature) {
    IndexQuery q;
    q.table_id = kTable;
    q.equals = {{"d:feature", feature}};
    q.limit = 10000;
    auto r = store.Lookup(q);
    EXPECT_TRUE(r.ok()) << r.status().ToString();
    std::vector<std::string> keys;
    if (r.ok()) {
      for (const Row& row : r->rows) keys.push_back(row.key);
    }
    return keys;
  }
  static void ExpectClean(RegionStore& store) {
    auto report = store.VerifyIndex(kTable);
    ASSERT_TRUE(report.ok()) << report.status().ToString();
    std::string problems;
    for (const auto& p : report->problems) problems += p + "; ";
    EXPECT_TRUE(report->ok()) << problems;
    EXPECT_EQ(report->building_columns, 0u);
  }
  // Same rows, same lookup answers, same value records (their filter
  // elements) and, once both filters are rebuilt right-sized from them, the
  // same filter.
  static void ExpectSameIndex(RegionStore& a, RegionStore& b) {
    ExpectClean(a);
    ExpectClean(b);
    for (int f = 0; f < 17; ++f) {
      const std::string v = "f" + std::to_string(f);
      EXPECT_EQ(Rows(a, v), Rows(b, v)) << v;
    }
    auto ra = a.VerifyIndex(kTable);
    auto rb = b.VerifyIndex(kTable);
    ASSERT_TRUE(ra.ok() && rb.ok());
    EXPECT_EQ(ra->rows, rb->rows);
    EXPECT_EQ(ra->index_entries_valid, rb->index_entries_valid);
    EXPECT_EQ(ra->values, rb->values);
    EXPECT_EQ(a.GetFilterStatus().stats.elements,
              b.GetFilterStatus().stats.elements);
    ASSERT_TRUE(a.CompactFilter().ok());
    ASSERT_TRUE(b.CompactFilter().ok());
    auto sa = a.Snapshot();
    auto sb = b.Snapshot();
    ASSERT_TRUE(sa.ok() && sb.ok());
    EXPECT_TRUE(sa->filter == sb->filter) << "the filters differ";
  }

  TempDir dir_;
};

TEST_F(RegionStoreIndexTest, BackfillEqualsAnIndexDeclaredAtCreation) {
  auto created = Open("created", Table({kCountry, Feature(false)}));
  auto added = Open("added", Table({kCountry}));
  ASSERT_TRUE(created && added);
  Workload load(17);
  for (int i = 0; i < 600; ++i) {
    const Mutation m = load.Next();
    Apply(*created, m);
    Apply(*added, m);
  }
  ASSERT_TRUE(added->UpdateTableIndexes(Table({kCountry, Feature(true)})).ok());
  // Lookups refuse a building column; verification skips it.
  IndexQuery q;
  q.table_id = kTable;
  q.equals = {{"d:feature", "f1"}};
  q.limit = 10;
  auto refused = added->Lookup(q);
  ASSERT_FALSE(refused.ok());
  EXPECT_NE(refused.status().message().find("building"), std::string::npos)
      << refused.status().ToString();
  auto during = added->VerifyIndex(kTable);
  ASSERT_TRUE(during.ok());
  EXPECT_TRUE(during->ok());
  EXPECT_EQ(during->building_columns, 1u);

  EXPECT_GT(Backfill(*added, 7), 0u);
  EXPECT_EQ(Backfill(*added, 50), 0u) << "a second backfill adds nothing";
  ASSERT_TRUE(
      added->UpdateTableIndexes(Table({kCountry, Feature(false)})).ok());
  ExpectSameIndex(*created, *added);
}

// Writes run while the backfill does: changes of the column on rows the
// backfill has not reached yet must not count -1 for entries that do not
// exist, and every row ends with exactly its entry. Fixed seeds.
TEST_F(RegionStoreIndexTest, BackfillUnderConcurrentWritesEqualsCreation) {
  for (uint32_t seed : {3u, 29u, 71u}) {
    SCOPED_TRACE("seed " + std::to_string(seed));
    auto created = Open("created" + std::to_string(seed),
                        Table({kCountry, Feature(false)}));
    auto added = Open("added" + std::to_string(seed), Table({kCountry}));
    ASSERT_TRUE(created && added);
    Workload load(seed);
    std::vector<Mutation> later;
    for (int i = 0; i < 500; ++i) {
      const Mutation m = load.Next();
      Apply(*created, m);
      Apply(*added, m);
    }
    for (int i = 0; i < 800; ++i) later.push_back(load.Next());
    ASSERT_TRUE(
        added->UpdateTableIndexes(Table({kCountry, Feature(true)})).ok());
    std::thread writer([&] {
      for (const Mutation& m : later) Apply(*added, m);
    });
    Backfill(*added, 5);
    writer.join();
    // Rows the writer changed after the backfill passed them are indexed
    // by the writes themselves; a second pass finds nothing missing.
    EXPECT_EQ(Backfill(*added, 100), 0u);
    ASSERT_TRUE(
        added->UpdateTableIndexes(Table({kCountry, Feature(false)})).ok());
    for (const Mutation& m : later) Apply(*created, m);
    ExpectSameIndex(*created, *added);
  }
}

TEST_F(RegionStoreIndexTest, TheNewColumnSetSurvivesARestart) {
  {
    auto store = Open("s", Table({kCountry}));
    ASSERT_TRUE(store);
    ASSERT_TRUE(
        store->UpdateTableIndexes(Table({kCountry, Feature(true)})).ok());
  }
  RegionStoreOptions options;
  options.filter.initial_capacity = 64;
  auto reopened = RegionStore::Open(dir_.path() + "/s", options);
  ASSERT_TRUE(reopened.ok());
  // The router reopens with the descriptor it has now.
  for (const RegionDescriptor& r : Regions(Table({kCountry, Feature(true)}))) {
    EXPECT_TRUE((*reopened)->OpenRegion(r).ok());
  }
  // A router that has moved on (the build finished while this server was
  // down) gives its newer set first (OpenRegion refuses another table
  // descriptor), for every region of the table, open or closed.
  EXPECT_TRUE((*reopened)->CloseRegion(1).ok());
  const auto ready = Regions(Table({kCountry, Feature(false)}));
  EXPECT_TRUE((*reopened)->OpenRegion(ready[0]).IsInvalidArgument());
  ASSERT_TRUE((*reopened)->UpdateTableIndexes(ready[0].table).ok());
  ASSERT_TRUE((*reopened)->OpenRegion(ready[0]).ok());
  for (const RegionDescriptor& r : (*reopened)->ListRegions()) {
    EXPECT_EQ(r.table, ready[0].table) << r.region_id;
  }
  EXPECT_EQ((*reopened)->ListRegions().size(), 3u);
}

TEST_F(RegionStoreIndexTest, DropRemovesEntriesCountsAndFilterElements) {
  auto store = Open("s", Table({kCountry, Feature(false)}));
  auto bare = Open("bare", Table({kCountry}));
  ASSERT_TRUE(store && bare);
  Workload load(5);
  for (int i = 0; i < 500; ++i) {
    const Mutation m = load.Next();
    Apply(*store, m);
    Apply(*bare, m);
  }
  // Entries are removed only once the column left the descriptor.
  auto early = store->DropIndexEntries(1, 2, 100, 0);
  ASSERT_FALSE(early.ok());
  EXPECT_TRUE(early.status().IsInvalidArgument()) << early.status().ToString();
  ASSERT_TRUE(store->UpdateTableIndexes(Table({kCountry})).ok());
  uint64_t removed = 0;
  for (uint64_t region = 1; region <= 3; ++region) {
    for (int calls = 0; calls < 1000; ++calls) {
      auto r = store->DropIndexEntries(region, 2, 9, 0);
      ASSERT_TRUE(r.ok()) << r.status().ToString();
      removed += r->entries;
      if (r->done) break;
    }
  }
  EXPECT_GT(removed, 0u);
  ExpectClean(*store);
  EXPECT_EQ(store->GetFilterStatus().stats.elements,
            bare->GetFilterStatus().stats.elements);
  auto again = store->DropIndexEntries(1, 2, 9, 0);
  ASSERT_TRUE(again.ok());
  EXPECT_TRUE(again->done);
  EXPECT_EQ(again->entries, 0u);
}

// A chunk that finds nothing to do still answers as a write does: the
// router applies every chunk's reply to its replica, and a reply without the
// server's incarnation would not even decode on the wire.
TEST_F(RegionStoreIndexTest, AChunkOfAnEmptyRegionCarriesTheFiltersPosition) {
  auto store = Open("s", Table({kCountry}));
  ASSERT_TRUE(store);
  Apply(*store, Mutation::Put(1, "a", {{"d:feature", "x", 5}}));
  ASSERT_TRUE(store->UpdateTableIndexes(Table({kCountry, Feature(true)})).ok());
  const FilterStatus status = store->GetFilterStatus();
  auto empty = store->BackfillIndex(2, 2, "", 10, 0);  // region 2 has no row
  ASSERT_TRUE(empty.ok()) << empty.status().ToString();
  EXPECT_TRUE(empty->done);
  EXPECT_EQ(empty->write.incarnation, status.incarnation);
  EXPECT_EQ(empty->write.epoch, status.epoch);
  EXPECT_EQ(empty->write.last_seq, status.last_seq);
  ASSERT_TRUE(store->UpdateTableIndexes(Table({kCountry})).ok());
  auto dropped = store->DropIndexEntries(2, 2, 10, 0);
  ASSERT_TRUE(dropped.ok());
  EXPECT_EQ(dropped->write.incarnation, status.incarnation);
}

TEST_F(RegionStoreIndexTest, BadLifecycleCallsAreRefused) {
  auto store = Open("s", Table({kCountry}));
  ASSERT_TRUE(store);
  // Not building: nothing to backfill.
  EXPECT_TRUE(
      store->BackfillIndex(1, 1, "", 10, 0).status().IsInvalidArgument());
  EXPECT_TRUE(store->BackfillIndex(9, 1, "", 10, 0).status().IsNotFound());
  ASSERT_TRUE(store->UpdateTableIndexes(Table({kCountry, Feature(true)})).ok());
  EXPECT_TRUE(
      store->BackfillIndex(1, 2, "", 0, 0).status().IsInvalidArgument());
  // A table the server does not host, and a column id reused for another
  // name, are refused.
  TableDescriptor other = Table({kCountry});
  other.table_id = 99;
  EXPECT_TRUE(store->UpdateTableIndexes(other).IsNotFound());
  EXPECT_TRUE(
      store->UpdateTableIndexes(Table({{1, "d:other"}})).IsInvalidArgument());
}

}  // namespace
}  // namespace bloomroute::testing
