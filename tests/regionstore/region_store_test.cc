#include "regionstore/region_store.h"

#include <gtest/gtest.h>
#include <rocksdb/db.h>

#include <algorithm>
#include <atomic>
#include <map>
#include <random>
#include <set>
#include <thread>

#include "index/scalable_split_counting_bloom_filter.h"
#include "tests/regionstore/region_store_test_util.h"
#include "tests/regionstore/store_surgery.h"

namespace bloomroute {
namespace {

using testing::PlacesRegion;
using testing::PlacesTable;
using testing::PutPlace;
using testing::StoreSurgery;
using testing::TempDir;
using testing::Where;

// The store's clock in these tests: the timestamp of every cell written.
constexpr int64_t kNow = 1700000000000;

class RegionStoreTest : public ::testing::Test {
 protected:
  RegionStoreTest() {
    options_.clock_ms = [] { return kNow; };
  }
  void SetUp() override { Reopen(); }

  void Reopen() {
    store_.reset();
    auto s = RegionStore::Open(dir_.path(), options_);
    ASSERT_TRUE(s.ok()) << s.status().ToString();
    store_ = std::move(*s);
  }
  void OpenTwoRegions() {
    ASSERT_TRUE(store_->OpenRegion(PlacesRegion(1, "", "m")).ok());
    ASSERT_TRUE(store_->OpenRegion(PlacesRegion(2, "m", "")).ok());
  }
  WriteResult Apply(std::vector<Mutation> batch) {
    auto r = store_->Apply(batch);
    EXPECT_TRUE(r.ok()) << r.status().ToString();
    return r.ok() ? *r : WriteResult();
  }
  std::vector<std::string> Keys(const IndexQuery& q) {
    auto r = store_->Lookup(q);
    EXPECT_TRUE(r.ok()) << r.status().ToString();
    std::vector<std::string> keys;
    if (r.ok()) {
      for (const auto& row : r->rows) keys.push_back(row.key);
    }
    return keys;
  }
  std::optional<Row> GetRow(uint64_t region, std::string key,
                            Projection columns = {}) {
    auto r = store_->Get({GetRequest{region, std::move(key), columns}});
    EXPECT_TRUE(r.ok()) << r.status().ToString();
    return r.ok() ? (*r)[0] : std::nullopt;
  }
  // Every stage of the server's filter, and of its snapshot, has the
  // geometry of the configured ladder at its index.
  void ExpectOnTheLadder() {
    const FilterStatus status = store_->GetFilterStatus();
    ASSERT_FALSE(status.stats.stages.empty());
    for (const StageStats& st : status.stats.stages) {
      const StageGeometry g =
          StageGeometryFor(options_.filter, st.geometry.stage).value();
      EXPECT_EQ(st.geometry.slices, g.slices) << st.geometry.stage;
      EXPECT_EQ(st.geometry.slice_length, g.slice_length) << st.geometry.stage;
      EXPECT_EQ(st.geometry.capacity, g.capacity) << st.geometry.stage;
    }
    auto snapshot = store_->Snapshot();
    ASSERT_TRUE(snapshot.ok()) << snapshot.status().ToString();
    auto filter =
        ScalableSplitCountingBloomFilter::Deserialize(snapshot->filter);
    ASSERT_TRUE(filter.ok()) << filter.status().ToString();
    EXPECT_TRUE(filter->config() == options_.filter);
    EXPECT_EQ(filter->first_stage(), status.stats.stages[0].geometry.stage);
  }

  void ExpectConsistent() {
    auto report = store_->VerifyIndex(std::nullopt);
    ASSERT_TRUE(report.ok()) << report.status().ToString();
    EXPECT_TRUE(report->ok())
        << (report->problems.empty() ? std::string("filter")
                                     : report->problems.front());
  }

  TempDir dir_;
  RegionStoreOptions options_;
  std::unique_ptr<RegionStore> store_;
};

TEST_F(RegionStoreTest, PutGetDeleteWithProjection) {
  OpenTwoRegions();
  Apply({PutPlace(2, "oslo", "NO", "PPLC", "Oslo")});
  Apply({Mutation::Put(2, "oslo", {{"d:pop", "700000"}})});  // adds a column
  auto row = GetRow(2, "oslo");
  ASSERT_TRUE(row);
  EXPECT_EQ(row->cells.size(), 4u);
  EXPECT_EQ(row->Find("d:pop")->value, "700000");
  EXPECT_EQ(GetRow(2, "oslo", {"d:name"})->cells,
            (std::vector<Cell>{{"d:name", "Oslo", kNow}}));
  EXPECT_EQ(GetRow(2, "oslo", {"d"})->cells.size(), 4u);
  EXPECT_FALSE(GetRow(2, "oslo", {"x"}));  // no column of family x

  Apply({Mutation::Delete(2, "oslo", {"d:pop", "d:name"})});
  EXPECT_EQ(GetRow(2, "oslo")->cells.size(), 2u);
  Apply({Mutation::Delete(2, "oslo")});
  EXPECT_FALSE(GetRow(2, "oslo"));
  Apply({Mutation::Delete(1, "absent")});  // a no-op, not an error
  ExpectConsistent();
}

// SyncWal makes unsynced writes durable (a region operation's target calls
// it before the switch); here: it succeeds on a store without sync, and
// what it synced is there after a reopen.
TEST_F(RegionStoreTest, SyncWalSyncsWhatWasWritten) {
  OpenTwoRegions();
  Apply({PutPlace(2, "oslo", "NO", "PPLC", "Oslo")});
  ASSERT_TRUE(store_->SyncWal().ok());
  ASSERT_TRUE(store_->SyncWal().ok());  // nothing new: still fine
  Reopen();
  OpenTwoRegions();
  ASSERT_TRUE(GetRow(2, "oslo"));
  ExpectConsistent();
}

TEST_F(RegionStoreTest, LookupIsExactAcrossRegionsAndFollowsUpdates) {
  OpenTwoRegions();
  Apply({PutPlace(1, "bergen", "NO", "PPLA2"),
         PutPlace(1, "lyon", "FR", "PPLA"), PutPlace(2, "oslo", "NO", "PPLC"),
         PutPlace(2, "tromso", "NO", "PPLA"),
         PutPlace(2, "paris", "FR", "PPLC")});
  EXPECT_EQ(Keys(Where({{"d:country", "NO"}})),
            (std::vector<std::string>{"bergen", "oslo", "tromso"}));
  EXPECT_EQ(Keys(Where({{"d:country", "NO"}, {"d:feature", "PPLA"}})),
            (std::vector<std::string>{"tromso"}));
  EXPECT_TRUE(Keys(Where({{"d:country", "SE"}})).empty());

  // An update moves the row from one value to another.
  Apply({Mutation::Put(2, "tromso", {{"d:country", "SE"}})});
  EXPECT_EQ(Keys(Where({{"d:country", "NO"}})),
            (std::vector<std::string>{"bergen", "oslo"}));
  EXPECT_EQ(Keys(Where({{"d:country", "SE"}, {"d:feature", "PPLA"}})),
            (std::vector<std::string>{"tromso"}));
  // Deleting the indexed column removes the row from the index.
  Apply({Mutation::Delete(1, "bergen", {"d:country"})});
  EXPECT_EQ(Keys(Where({{"d:country", "NO"}})),
            (std::vector<std::string>{"oslo"}));

  // Limit, truncation, projection and a chosen region.
  IndexQuery q = Where({{"d:feature", "PPLC"}}, 1);
  auto r = store_->Lookup(q);
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(r->rows.size(), 1u);
  EXPECT_TRUE(r->truncated);
  q.limit = 10;
  q.region_ids = {2, 2};
  EXPECT_TRUE(store_->Lookup(q).status().IsInvalidArgument());
  q.region_ids = {2};
  q.columns = {"d:name"};
  r = store_->Lookup(q);
  ASSERT_TRUE(r.ok());
  ASSERT_EQ(r->rows.size(), 2u);
  EXPECT_FALSE(r->truncated);
  EXPECT_EQ(r->rows[0].cells, (std::vector<Cell>{{"d:name", "x", kNow}}));
  ExpectConsistent();
}

// Exactness issue, item 4: a lookup's answer is every matching row in row-key
// order, also across regions named in another order and with none of the
// projected columns (the main line dropped such a row), and resumes after a
// given row.
TEST_F(RegionStoreTest, LookupAnswersEveryMatchInKeyOrderAndResumes) {
  OpenTwoRegions();
  Apply({PutPlace(1, "bergen", "NO", "PPLA"),
         Mutation::Put(1, "lofoten", {{"d:country", "NO"}}),
         PutPlace(2, "oslo", "NO", "PPLC"), PutPlace(2, "tromso", "NO", "P")});
  IndexQuery q = Where({{"d:country", "NO"}});
  q.region_ids = {2, 1};
  q.columns = {"d:feature"};
  auto r = store_->Lookup(q);
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  ASSERT_EQ(r->rows.size(), 4u);
  EXPECT_EQ(r->rows[0].key, "bergen");
  EXPECT_EQ(r->rows[1].key, "lofoten");
  EXPECT_TRUE(r->rows[1].cells.empty());
  EXPECT_EQ(r->rows[2].key, "oslo");
  EXPECT_EQ(r->rows[3].key, "tromso");
  // A get of the same projection has no result for that row, as in HBase.
  EXPECT_FALSE(GetRow(1, "lofoten", {"d:feature"}).has_value());

  q.after_row = "lofoten";
  EXPECT_EQ(Keys(q), (std::vector<std::string>{"oslo", "tromso"}));
  q.after_row = "lofot";
  q.limit = 1;
  r = store_->Lookup(q);
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(r->rows.size(), 1u);
  EXPECT_EQ(r->rows[0].key, "lofoten");
  EXPECT_TRUE(r->truncated);
  q.after_row = "tromso";
  EXPECT_TRUE(Keys(q).empty());
  // A range alone resumes too (its answer is in row-key order).
  IndexQuery range;
  range.table_id = PlacesTable().table_id;
  range.range = RangePredicate{"d:country", std::string("A"), std::nullopt};
  range.limit = 10;
  range.after_row = "lofoten";
  EXPECT_EQ(Keys(range), (std::vector<std::string>{"oslo", "tromso"}));
}

TEST_F(RegionStoreTest, RangePredicateUsesByteOrder) {
  OpenTwoRegions();
  Apply({PutPlace(1, "a", "AT", "P"), PutPlace(1, "b", "BE", "P"),
         PutPlace(2, "n", "NO", "P"),
         PutPlace(2, "o", std::string("N\0", 2), "Q"),
         PutPlace(2, "z", "ZW", "P")});
  IndexQuery q = Where({});
  q.range = RangePredicate{"d:country", std::string("B"), std::string("NO")};
  // "N\0" sorts between "N" and "NO"; the answer is by row key.
  EXPECT_EQ(Keys(q), (std::vector<std::string>{"b", "o"}));
  q.range->upper.reset();
  EXPECT_EQ(Keys(q), (std::vector<std::string>{"b", "n", "o", "z"}));
  q.equals = {{"d:feature", "P"}};  // equality drives, range filters
  EXPECT_EQ(Keys(q), (std::vector<std::string>{"b", "n", "z"}));
}

TEST_F(RegionStoreTest, ScanPagesThroughARegionWithResumeRows) {
  OpenTwoRegions();
  std::vector<Mutation> batch;
  for (char c = 'a'; c <= 'z'; ++c) {
    batch.push_back(Mutation::Put(c < 'm' ? 1 : 2, std::string(1, c),
                                  {{"d:v", std::string(1, c)}}));
  }
  Apply(batch);
  std::vector<std::string> seen;
  ScanRequest req{1, "", "", 5, {}};
  while (true) {
    auto r = store_->Scan(req);
    ASSERT_TRUE(r.ok()) << r.status().ToString();
    for (const auto& row : r->rows) seen.push_back(row.key);
    if (!r->resume_row) break;
    req.start_row = *r->resume_row;
  }
  ASSERT_EQ(seen.size(), 12u);  // a..l: clamped to region 1
  EXPECT_EQ(seen.front(), "a");
  EXPECT_EQ(seen.back(), "l");
  auto r = store_->Scan(ScanRequest{2, "p", "s", 100, {}});
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(r->rows.size(), 3u);  // p, q, r
}

TEST_F(RegionStoreTest, ScansAndLookupsStopAtTheResultByteBudget) {
  options_.max_result_bytes = 2500;
  Reopen();
  OpenTwoRegions();
  std::vector<Mutation> batch;
  for (int i = 0; i < 10; ++i) {  // ~1,000 bytes a row
    batch.push_back(Mutation::Put(
        1, "k" + std::to_string(i),
        {{"d:country", "NO"}, {"d:blob", std::string(1000, 'x')}}));
  }
  Apply(batch);
  auto scan = store_->Scan(ScanRequest{1, "", "", 100, {}});
  ASSERT_TRUE(scan.ok());
  EXPECT_EQ(scan->rows.size(), 3u);  // stops after the row that passes 2,500
  ASSERT_TRUE(scan->resume_row);
  EXPECT_EQ(*scan->resume_row, "k3");
  auto lookup = store_->Lookup(Where({{"d:country", "NO"}}));
  ASSERT_TRUE(lookup.ok());
  EXPECT_EQ(lookup->rows.size(), 3u);
  EXPECT_TRUE(lookup->truncated);
  // A projection that leaves the blob out fits.
  IndexQuery q = Where({{"d:country", "NO"}});
  q.columns = {"d:country"};
  lookup = store_->Lookup(q);
  ASSERT_TRUE(lookup.ok());
  EXPECT_EQ(lookup->rows.size(), 10u);
  EXPECT_FALSE(lookup->truncated);
}

TEST_F(RegionStoreTest, ValueCountsDriveFilterOpsAndRemovalsHitTheStage) {
  OpenTwoRegions();
  const ElementHash no = HashElement(7, 1, "NO");
  WriteResult w = Apply({PutPlace(1, "bergen", "NO", "A")});
  // Two new values, two inserts.
  ASSERT_EQ(w.ops.size(), 2u);
  EXPECT_EQ(w.ops[0].seq + 1, w.ops[1].seq);
  EXPECT_TRUE(std::any_of(w.ops.begin(), w.ops.end(), [&](const FilterOp& op) {
    return op.hash == no && op.kind == FilterOp::Kind::kInsert;
  }));
  EXPECT_EQ(w.last_seq, w.ops[1].seq);
  // The same values again, in another region of the same server: no ops,
  // but the write says which ops it relies on.
  const WriteResult again = Apply({PutPlace(2, "oslo", "NO", "A")});
  EXPECT_TRUE(again.ops.empty());
  EXPECT_EQ(again.last_seq, w.ops[1].seq);
  EXPECT_TRUE(Apply({Mutation::Delete(1, "bergen")}).ops.empty());
  w = Apply({Mutation::Delete(2, "oslo")});
  ASSERT_EQ(w.ops.size(), 2u);
  for (const auto& op : w.ops) EXPECT_EQ(op.kind, FilterOp::Kind::kRemove);

  auto status = store_->GetFilterStatus();
  EXPECT_EQ(status.stats.elements, 0u);
  EXPECT_EQ(status.last_seq, 4u);
  auto since = store_->OpsSince(status.incarnation, status.epoch, 0);
  ASSERT_TRUE(since.ok());
  ASSERT_EQ(since->ops.size(), 4u);
  EXPECT_FALSE(since->too_old);
  EXPECT_EQ(since->ops[2], w.ops[0]);
  EXPECT_TRUE(
      store_->OpsSince(status.incarnation, status.epoch + 1, 0)->too_old);
  EXPECT_TRUE(store_->OpsSince(status.incarnation, status.epoch, 99)
                  .status()
                  .IsInvalidArgument());
}

TEST_F(RegionStoreTest, AReplicaFedBySnapshotAndOpsEqualsTheServersFilter) {
  // What the router does: start from a snapshot, then apply every op.
  OpenTwoRegions();
  Apply({PutPlace(1, "a", "NO", "A")});
  auto snap = store_->Snapshot();
  ASSERT_TRUE(snap.ok());
  auto replica =
      std::move(ScalableSplitCountingBloomFilter::Deserialize(snap->filter))
          .value();
  uint64_t seq = snap->last_seq;
  std::mt19937_64 rng(11);
  for (int i = 0; i < 3000; ++i) {
    const std::string row = "r" + std::to_string(rng() % 500);
    const uint64_t region = row < "m" ? 1 : 2;
    WriteResult w =
        rng() % 4 == 0
            ? Apply({Mutation::Delete(region, row)})
            : Apply({PutPlace(region, row, "C" + std::to_string(rng() % 300),
                              "F" + std::to_string(rng() % 50))});
    ASSERT_EQ(w.epoch, snap->epoch);
    for (const FilterOp& op : w.ops) {
      ASSERT_EQ(op.seq, ++seq);
      if (op.kind == FilterOp::Kind::kInsert) {
        ASSERT_EQ(replica.Insert(op.hash).value(), op.stage);
      } else {
        ASSERT_TRUE(replica.Remove(op.hash, op.stage).ok());
      }
    }
  }
  auto now = store_->Snapshot();
  ASSERT_TRUE(now.ok());
  EXPECT_EQ(now->last_seq, seq);
  EXPECT_EQ(replica.Serialize(), now->filter);
  ExpectConsistent();
}

TEST_F(RegionStoreTest, BadInputIsRejectedWithAMessageAndWritesNothing) {
  options_.max_value_bytes = 100;
  options_.max_row_bytes = 300;
  Reopen();
  OpenTwoRegions();
  auto expect_invalid = [&](std::vector<Mutation> batch, const char* words) {
    auto r = store_->Apply(batch);
    ASSERT_FALSE(r.ok());
    EXPECT_TRUE(r.status().IsInvalidArgument()) << r.status().ToString();
    EXPECT_NE(r.status().message().find(words), std::string::npos)
        << r.status().message();
  };
  expect_invalid({PutPlace(1, "", "NO", "A")}, "empty row key");
  expect_invalid({PutPlace(1, "zebra", "NO", "A")}, "outside region 1");
  expect_invalid({Mutation::Put(1, "a", {{"d:v", std::string(101, 'x')}})},
                 "limit is 100");
  expect_invalid({Mutation::Put(1, "a",
                                {{"d:v", std::string(90, 'x')},
                                 {"d:w", std::string(90, 'x')},
                                 {"d:y", std::string(90, 'x')},
                                 {"d:z", std::string(90, 'x')}})},
                 "would be");
  expect_invalid({Mutation::Put(1, "a", {{"nocolon", "v"}})},
                 "family:qualifier");
  expect_invalid({Mutation::Put(1, "a", {})}, "no columns");
  // One bad mutation rejects the whole batch: the good one is not written.
  expect_invalid({PutPlace(1, "good", "NO", "A"), PutPlace(1, "", "NO", "A")},
                 "mutation 1: empty row key");
  EXPECT_FALSE(GetRow(1, "good"));

  auto unknown = store_->Apply({PutPlace(9, "a", "NO", "A")});
  EXPECT_TRUE(unknown.status().IsNotFound());
  EXPECT_NE(unknown.status().message().find("region 9"), std::string::npos);

  IndexQuery q = Where({{"d:name", "x"}});
  auto r = store_->Lookup(q);
  EXPECT_TRUE(r.status().IsInvalidArgument());
  EXPECT_NE(r.status().message().find("not indexed"), std::string::npos);
  q = Where({{"d:country", "NO"}}, 0);
  EXPECT_TRUE(store_->Lookup(q).status().IsInvalidArgument());
  q = Where({{"d:country", "NO"}});
  q.table_id = 99;
  EXPECT_TRUE(store_->Lookup(q).status().IsNotFound());
  EXPECT_TRUE(store_->Lookup(Where({})).status().IsInvalidArgument());
  EXPECT_EQ(store_->GetFilterStatus().last_seq, 0u);
  ExpectConsistent();
}

TEST_F(RegionStoreTest, RegionsAreValidatedPersistedAndReopened) {
  OpenTwoRegions();
  EXPECT_TRUE(store_->OpenRegion(PlacesRegion(1, "", "m")).ok());  // idempotent
  EXPECT_TRUE(
      store_->OpenRegion(PlacesRegion(3, "k", "p")).IsInvalidArgument());
  EXPECT_TRUE(store_->OpenRegion(PlacesRegion(1, "", "n")).IsInvalidArgument());
  RegionDescriptor other_table = PlacesRegion(4, "", "");
  other_table.table.indexed_columns.pop_back();
  EXPECT_TRUE(store_->OpenRegion(other_table).IsInvalidArgument());
  EXPECT_TRUE(
      store_->OpenRegion(PlacesRegion(5, "b", "a")).IsInvalidArgument());

  Apply({PutPlace(1, "bergen", "NO", "A"), PutPlace(2, "oslo", "NO", "B")});
  ASSERT_TRUE(store_->CloseRegion(2).ok());
  EXPECT_TRUE(store_->Get({GetRequest{2, "oslo", {}}}).status().IsNotFound());
  const auto before = store_->GetFilterStatus();
  Reopen();
  // A restarted server serves nothing until its regions are opened again,
  // but remembers them: another descriptor under a known id is refused.
  EXPECT_TRUE(store_->ListRegions().empty());
  EXPECT_TRUE(store_->Get({GetRequest{1, "bergen", {}}}).status().IsNotFound());
  EXPECT_TRUE(store_->OpenRegion(PlacesRegion(1, "", "n")).IsInvalidArgument());
  const auto after = store_->GetFilterStatus();
  EXPECT_NE(after.incarnation, before.incarnation);
  EXPECT_EQ(after.epoch, before.epoch);
  EXPECT_EQ(after.last_seq, before.last_seq);
  // Opening on an earlier run's incarnation is refused: the caller has not
  // seen this run yet.
  EXPECT_TRUE(store_->OpenRegion(PlacesRegion(1, "", "m"), before.incarnation)
                  .IsAborted());
  ASSERT_TRUE(
      store_->OpenRegion(PlacesRegion(1, "", "m"), after.incarnation).ok());
  ASSERT_EQ(store_->ListRegions().size(), 1u);
  EXPECT_EQ(store_->ListRegions()[0], PlacesRegion(1, "", "m"));
  EXPECT_TRUE(GetRow(1, "bergen"));
  ASSERT_TRUE(store_->OpenRegion(PlacesRegion(2, "m", "")).ok());
  EXPECT_TRUE(GetRow(2, "oslo"));  // a closed region keeps its rows
  ExpectConsistent();

  ASSERT_TRUE(store_->CloseRegion(2).ok());  // closed regions can be dropped
  ASSERT_TRUE(store_->DropRegion(2).ok());
  EXPECT_TRUE(store_->DropRegion(2).IsNotFound());
  EXPECT_EQ(store_->ListRegions().size(), 1u);
  EXPECT_EQ(Keys(Where({{"d:country", "NO"}})),
            (std::vector<std::string>{"bergen"}));
  EXPECT_EQ(store_->GetFilterStatus().stats.elements, 2u);  // NO, A
  ExpectConsistent();
}

TEST_F(RegionStoreTest, RestartRestoresTheFilterFromCheckpointAndOps) {
  options_.checkpoint_interval = 50;  // several checkpoints and trims
  Reopen();
  OpenTwoRegions();
  for (int i = 0; i < 400; ++i) {
    const std::string row = "k" + std::to_string(i % 150);
    Apply({PutPlace(row < "m" ? 1 : 2, row, "C" + std::to_string(i),
                    "F" + std::to_string(i % 7))});
  }
  const auto before = store_->Snapshot().value();
  // Ops before the previous checkpoint are trimmed; later ones are kept.
  EXPECT_TRUE(store_->OpsSince(before.incarnation, before.epoch, 0)->too_old);
  // The previous checkpoint is at least 50 ops before the newest op.
  const uint64_t kept_from = before.last_seq - 40;
  ASSERT_FALSE(
      store_->OpsSince(before.incarnation, before.epoch, kept_from)->too_old);

  // A restart keeps the filter, its epoch and its ops, but is a new
  // incarnation: a reader of the previous run is told to take a snapshot
  // (without sync, a power loss could have dropped ops it applied).
  for (bool sync : {true, false}) {
    options_.sync = sync;
    Reopen();
    auto after = store_->Snapshot().value();
    EXPECT_NE(after.incarnation, before.incarnation);
    EXPECT_EQ(after.epoch, before.epoch);
    EXPECT_EQ(after.last_seq, before.last_seq);
    EXPECT_EQ(after.filter, before.filter);
    EXPECT_TRUE(
        store_->OpsSince(before.incarnation, before.epoch, kept_from)->too_old);
    EXPECT_FALSE(
        store_->OpsSince(after.incarnation, after.epoch, kept_from)->too_old);
    ExpectConsistent();
  }

  // Sequence numbers continue after a restart.
  OpenTwoRegions();
  WriteResult w = Apply({PutPlace(1, "fresh", "NEW", "F0")});
  ASSERT_EQ(w.ops.size(), 1u);
  EXPECT_EQ(w.ops[0].seq, before.last_seq + 1);
}

TEST_F(RegionStoreTest, ManyStagesTriggerARightSizedRebuildUnderANewEpoch) {
  options_.filter.initial_capacity = 16;
  options_.max_filter_stages = 3;
  Reopen();
  OpenTwoRegions();
  const uint64_t epoch = store_->GetFilterStatus().epoch;
  for (int i = 0; i < 300; ++i) {
    Apply({PutPlace(1, "a" + std::to_string(i), "C" + std::to_string(i), "F")});
  }
  const FilterStatus s = store_->GetFilterStatus();
  EXPECT_GT(s.epoch, epoch);
  EXPECT_LE(s.stats.stages.size(), 3u);
  EXPECT_EQ(s.stats.elements, 301u);
  // DESIGN.md invariant 4: the rebuilt filter starts further up the same
  // ladder, so each of its stages has the geometry every server's stage of
  // that index has. (Before, compaction raised n0: its stage 0 held 238
  // elements in slices of 344 counters where every other server's holds 16
  // in slices of 24.)
  ExpectOnTheLadder();
  EXPECT_EQ(Keys(Where({{"d:country", "C123"}})),
            (std::vector<std::string>{"a123"}));
  ExpectConsistent();
  // The router sees the new epoch and takes a snapshot.
  EXPECT_TRUE(store_->OpsSince(s.incarnation, epoch, 0)->too_old);

  // Deleting most values leaves the filter sparse: rebuilt smaller.
  const uint64_t memory = s.stats.memory_bytes;
  for (int i = 0; i < 290; ++i) {
    Apply({Mutation::Delete(1, "a" + std::to_string(i))});
  }
  EXPECT_LT(store_->GetFilterStatus().stats.memory_bytes, memory);
  ExpectOnTheLadder();
  ExpectConsistent();
  Reopen();
  ExpectOnTheLadder();
  ExpectConsistent();
}

TEST_F(RegionStoreTest, RandomizedAgainstAnExactModel) {
  // 20,000 mixed puts, updates and deletes (seed 2026) over 2,000 rows and
  // small value domains; every 2,000 ops every value's lookup is compared
  // with the model.
  OpenTwoRegions();
  std::map<std::string, std::pair<std::string, std::string>> model;
  std::mt19937_64 rng(2026);
  for (int op = 1; op <= 20000; ++op) {
    const uint64_t n = rng() % 2000;
    const std::string row = (n % 2 ? "a" : "n") + std::to_string(n);
    const uint64_t region = row < "m" ? 1 : 2;
    if (rng() % 5 == 0) {
      Apply({Mutation::Delete(region, row)});
      model.erase(row);
    } else {
      const std::string c = "C" + std::to_string(rng() % 40);
      const std::string f = "F" + std::to_string(rng() % 10);
      Apply({PutPlace(region, row, c, f)});
      model[row] = {c, f};
    }
    if (op % 2000 != 0) continue;
    for (int c = 0; c < 40; ++c) {
      const std::string value = "C" + std::to_string(c);
      std::vector<std::string> expected;
      for (const auto& [k, v] : model) {
        if (v.first == value && v.second == "F3") expected.push_back(k);
      }
      ASSERT_EQ(Keys(Where({{"d:country", value}, {"d:feature", "F3"}},
                           kMaxRowsPerCall)),
                expected);
    }
  }
  ExpectConsistent();
}

TEST_F(RegionStoreTest, ConcurrentWritersKeepIndexCountsAndFilterExact) {
  // 8 threads, 2,500 batches each, on 64 overlapping rows whose indexed
  // values come from 6 countries: every row is rewritten by many threads and
  // every value's count goes up and down across threads. Afterwards the index
  // must equal the rows exactly and every lookup must match a scan.
  OpenTwoRegions();
  constexpr int kThreads = 8;
  std::vector<std::thread> threads;
  std::atomic<int> failures{0};
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&, t] {
      std::mt19937_64 rng(100 + t);
      for (int i = 0; i < 2500; ++i) {
        std::vector<Mutation> batch;
        for (int j = 0, n = 1 + rng() % 3; j < n; ++j) {
          const uint64_t k = rng() % 64;
          const std::string row = (k % 2 ? "b" : "p") + std::to_string(k);
          const uint64_t region = row < "m" ? 1 : 2;
          if (rng() % 6 == 0) {
            batch.push_back(Mutation::Delete(region, row));
          } else {
            batch.push_back(PutPlace(region, row,
                                     "C" + std::to_string(rng() % 6),
                                     "F" + std::to_string(rng() % 3)));
          }
        }
        if (!store_->Apply(batch).ok()) ++failures;
      }
    });
  }
  for (auto& th : threads) th.join();
  EXPECT_EQ(failures.load(), 0);
  ExpectConsistent();
  std::map<std::string, std::vector<std::string>> by_country;
  for (uint64_t region : {1, 2}) {
    auto scan = store_->Scan(ScanRequest{region, "", "", 1000, {}});
    ASSERT_TRUE(scan.ok());
    for (const auto& row : scan->rows) {
      by_country[row.Find("d:country")->value].push_back(row.key);
    }
  }
  for (int c = 0; c < 6; ++c) {
    const std::string country = "C" + std::to_string(c);
    EXPECT_EQ(Keys(Where({{"d:country", country}})), by_country[country]);
  }
}

// Puts of the same few values from several threads, with a value record
// cache that holds 2 of the 12 values in use and a count journal folded
// every 5 counts: counts come from memory, from RocksDB after an eviction
// or a fold, and after a reopen from the replayed journal; VerifyIndex
// finds every count exact throughout.
TEST_F(RegionStoreTest, ConcurrentPutsOfTheSameValuesKeepCountsExact) {
  options_.value_record_cache_entries = 2;
  options_.max_journaled_counts = 5;
  Reopen();
  OpenTwoRegions();
  auto write = [&](int seed) {
    std::mt19937_64 rng(seed);  // fixed seeds: the same batches every run
    int failures = 0;
    for (int i = 0; i < 400; ++i) {
      const uint64_t k = rng() % 32;
      const std::string row = (k % 2 ? "b" : "p") + std::to_string(k);
      const uint64_t region = row < "m" ? 1 : 2;
      const Mutation m =
          rng() % 5 == 0
              ? Mutation::Delete(region, row)
              : PutPlace(region, row, "C" + std::to_string(rng() % 6),
                         "F" + std::to_string(rng() % 6));
      if (!store_->Apply({m}).ok()) ++failures;
    }
    return failures;
  };
  for (int round = 0; round < 2; ++round) {
    std::atomic<int> failures{0};
    std::vector<std::thread> threads;
    for (int t = 0; t < 4; ++t) {
      threads.emplace_back([&, t] { failures += write(10 * round + t); });
    }
    for (auto& th : threads) th.join();
    EXPECT_EQ(failures.load(), 0);
    ExpectConsistent();
    Reopen();  // the cache starts empty; the records are what counts
    OpenTwoRegions();
    ExpectConsistent();
  }
}

// A batch with more new values than the filter's remaining stages can take
// (each stage holds one element with n0 = 1, s = 1) is valid input: the
// store rebuilds the filter sized for them and applies the batch.
TEST_F(RegionStoreTest, ABatchThatOutgrowsTheStageLimitIsApplied) {
  options_.filter.initial_capacity = 1;
  options_.filter.growth_factor = 1.0;
  options_.max_filter_stages = 8;
  Reopen();
  OpenTwoRegions();
  Apply({PutPlace(1, "a", "C-first", "F")});
  const auto before = store_->Snapshot().value();
  std::vector<Mutation> batch;
  for (int i = 0; i < 80; ++i) {
    batch.push_back(
        PutPlace(1, "b" + std::to_string(i), "C" + std::to_string(i), "F"));
  }
  auto r = store_->Apply(batch);
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_GT(r->epoch, before.epoch);  // rebuilt: readers take a snapshot
  EXPECT_TRUE(r->ops.empty());
  EXPECT_EQ(store_->GetFilterStatus().stats.elements, 1u + 1u + 80u);
  EXPECT_EQ(Keys(Where({{"d:country", "C42"}})),
            (std::vector<std::string>{"b42"}));
  ExpectConsistent();
}

// A checkpoint that does not decode (here: a newer format version) is
// rebuilt from the value records, under an epoch and from a sequence number
// the store never used, even after compactions emptied the op log. The test
// edits the database directly: only corruption can produce this.
TEST_F(RegionStoreTest, AnUnreadableCheckpointNeverReusesAnEpochOrASeq) {
  OpenTwoRegions();
  for (int i = 0; i < 20; ++i) {
    Apply({PutPlace(1, "a" + std::to_string(i), "C" + std::to_string(i), "F")});
  }
  ASSERT_TRUE(store_->CompactFilter().ok());  // op log now empty
  ASSERT_TRUE(store_->CompactFilter().ok());  // epoch 3
  const FilterStatus before = store_->GetFilterStatus();
  ASSERT_GE(before.epoch, 3u);
  store_.reset();
  {
    std::vector<rocksdb::ColumnFamilyDescriptor> cfs = {
        {rocksdb::kDefaultColumnFamilyName, {}},
        {"rows", {}},
        {"index", {}},
        {"values", {}},
        {"oplog", {}},
        {"meta", {}}};
    std::vector<rocksdb::ColumnFamilyHandle*> handles;
    rocksdb::DB* db = nullptr;
    ASSERT_TRUE(
        rocksdb::DB::Open(rocksdb::DBOptions(), dir_.path(), cfs, &handles, &db)
            .ok());
    std::string bytes;
    ASSERT_TRUE(
        db->Get(rocksdb::ReadOptions(), handles[5], "filter", &bytes).ok());
    bytes[0] = 2;  // e.g. a checkpoint written by a newer version
    ASSERT_TRUE(
        db->Put(rocksdb::WriteOptions(), handles[5], "filter", bytes).ok());
    for (auto* h : handles) ASSERT_TRUE(db->DestroyColumnFamilyHandle(h).ok());
    delete db;
  }
  Reopen();
  const FilterStatus after = store_->GetFilterStatus();
  EXPECT_GT(after.epoch, before.epoch) << "epoch reused";
  EXPECT_GE(after.last_seq, before.last_seq) << "sequence numbers repeat";
  ExpectConsistent();
}

// VerifyIndex over the damage only a bug or a disk fault could do: each test
// edits the closed store's database and expects exactly that damage reported.
class RegionStoreVerifyTest : public RegionStoreTest {
 protected:
  void SetUp() override {
    RegionStoreTest::SetUp();
    OpenTwoRegions();
    Apply({PutPlace(1, "bergen", "NO", "city"),
           PutPlace(1, "lyon", "FR", "city"),
           PutPlace(2, "oslo", "NO", "capital")});
    const IndexReport clean = Verify(std::nullopt);
    EXPECT_TRUE(clean.ok()) << Problems(clean);
    EXPECT_EQ(clean.rows, 3u);
    EXPECT_EQ(clean.index_entries_valid, 6u);
    EXPECT_EQ(clean.values, 4u);  // NO, FR, city, capital
  }
  // Closes the store, lets `edit` change its database, reopens it.
  template <typename Fn>
  void Damage(Fn&& edit) {
    store_.reset();
    auto surgery = StoreSurgery::Open(dir_.path());
    ASSERT_TRUE(surgery.ok()) << surgery.status().ToString();
    edit(**surgery);
    surgery->reset();
    Reopen();
  }
  IndexReport Verify(std::optional<uint64_t> table_id) {
    auto r = store_->VerifyIndex(table_id);
    EXPECT_TRUE(r.ok()) << r.status().ToString();
    return r.ok() ? *r : IndexReport();
  }
  static std::string Problems(const IndexReport& r) {
    std::string out;
    for (const auto& p : r.problems) out += p + "; ";
    return out;
  }
};

TEST_F(RegionStoreVerifyTest, ATableScopeCountsOnlyThatTable) {
  const IndexReport mine = Verify(PlacesTable().table_id);
  EXPECT_TRUE(mine.ok());
  EXPECT_EQ(mine.table_id, std::optional<uint64_t>(PlacesTable().table_id));
  EXPECT_EQ(mine.rows, 3u);
  const IndexReport other = Verify(PlacesTable().table_id + 1);
  EXPECT_TRUE(other.ok());
  EXPECT_EQ(other.rows, 0u);
  EXPECT_EQ(other.values, 0u);
  EXPECT_TRUE(other.filter_matches_rebuild);  // server-wide
}

TEST_F(RegionStoreVerifyTest, FindsAMissingIndexEntry) {
  std::string row;
  Damage([&](StoreSurgery& s) {
    auto dropped = s.DropFirstIndexEntry();
    ASSERT_TRUE(dropped.ok()) << dropped.status().ToString();
    row = *dropped;
  });
  const IndexReport r = Verify(std::nullopt);
  EXPECT_FALSE(r.ok());
  EXPECT_EQ(r.index_entries_missing, 1u);
  EXPECT_EQ(r.index_entries_valid, 5u);
  EXPECT_EQ(r.index_entries_extra, 0u);
  EXPECT_EQ(r.invalid(), 0u);
  EXPECT_TRUE(r.filter_matches_rebuild);
  ASSERT_FALSE(r.problems.empty());
  EXPECT_NE(r.problems[0].find(row), std::string::npos) << r.problems[0];
}

TEST_F(RegionStoreVerifyTest, FindsAnExtraIndexEntry) {
  Damage([](StoreSurgery& s) {
    ASSERT_TRUE(s.AddIndexEntryForRow("ghost").ok());
  });
  const IndexReport r = Verify(std::nullopt);
  EXPECT_FALSE(r.ok());
  EXPECT_EQ(r.index_entries_extra, 1u);
  EXPECT_EQ(r.index_entries_missing, 0u);
  EXPECT_EQ(r.index_entries_valid, 6u);
  EXPECT_EQ(r.invalid(), 0u);
  ASSERT_FALSE(r.problems.empty());
  EXPECT_NE(r.problems[0].find("ghost"), std::string::npos) << r.problems[0];
}

TEST_F(RegionStoreVerifyTest, FindsAValueMissingFromTheFilter) {
  Damage([](StoreSurgery& s) {
    Status st = s.DropFromFilter(PlacesTable().table_id, 1, "FR");
    ASSERT_TRUE(st.ok()) << st.ToString();
  });
  // The damaged filter was restored as it is: a lookup would skip FR.
  EXPECT_FALSE(
      store_->Snapshot().ok() &&
      ScalableSplitCountingBloomFilter::Deserialize(store_->Snapshot()->filter)
          ->Contains(HashElement(PlacesTable().table_id, 1, "FR")));
  const IndexReport r = Verify(std::nullopt);
  EXPECT_FALSE(r.ok());
  EXPECT_EQ(r.values_not_in_filter, 1u);
  EXPECT_EQ(r.value_counts_wrong, 0u);
  EXPECT_EQ(r.invalid(), 1u);
  EXPECT_FALSE(r.filter_matches_rebuild);
  EXPECT_EQ(r.index_entries_missing + r.index_entries_extra, 0u);
  ASSERT_FALSE(r.problems.empty());
  EXPECT_NE(r.problems[0].find("FR"), std::string::npos) << r.problems[0];
}

}  // namespace
}  // namespace bloomroute
