// RegionFilter's contract (regionstore/internal/region_filter.h), on a RocksDB
// of its three column families and no region store: commits turn value
// counts crossing zero into ops, fences refuse writes before they happen,
// failed writes leave the filter as its records say, and a reopened filter
// restores or rebuilds itself without reusing an (epoch, seq).
#include "regionstore/internal/region_filter.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include "index/occupancy_image.h"
#include "model/op_push.h"
#include "regionstore/internal/keys.h"
#include "tests/regionstore/region_store_test_util.h"

namespace bloomroute::regionstore_internal {
namespace {

constexpr uint64_t kTable = 7;
constexpr uint32_t kColumn = 1;

class RegionFilterTest : public ::testing::Test {
 protected:
  void SetUp() override {
    rocksdb::DBOptions db_options;
    db_options.create_if_missing = true;
    db_options.create_missing_column_families = true;
    std::vector<rocksdb::ColumnFamilyDescriptor> cfs = {
        {rocksdb::kDefaultColumnFamilyName, {}},
        {"values", {}},
        {"oplog", {}},
        {"meta", {}}};
    rocksdb::DB* db = nullptr;
    ASSERT_TRUE(
        rocksdb::DB::Open(db_options, dir_.path(), cfs, &handles_, &db).ok());
    db_.reset(db);
    cfs_ = FilterColumnFamilies{handles_[1], handles_[2], handles_[3]};
    Reopen();
  }
  void TearDown() override {
    filter_.reset();
    for (auto* h : handles_) (void)db_->DestroyColumnFamilyHandle(h);
  }
  // A new RegionFilter over the same database: what a restart sees.
  void Reopen() {
    filter_.reset();
    auto opened = RegionFilter::Open(db_.get(), cfs_, options_, ++incarnation_);
    ASSERT_TRUE(opened.ok()) << opened.status().ToString();
    filter_ = std::move(opened).value();
  }
  // Commits `changes` (value of kColumn, change of its count) with a batch
  // written to the database; counts the writes in `writes_`.
  StatusOr<WriteResult> Commit(
      const std::vector<std::pair<std::string, int>>& changes,
      uint64_t fence_token = 0) {
    ValueDeltas deltas;
    for (const auto& [value, delta] : changes) {
      AddDelta(&deltas, kTable, kColumn, value, delta);
    }
    rocksdb::WriteBatch batch;
    return filter_->CommitWithValueChanges(
        &batch, deltas, fence_token, [this](rocksdb::WriteBatch* b) {
          ++writes_;
          return db_->Write(rocksdb::WriteOptions(), b).ok()
                     ? Status::OK()
                     : Status::IOError("write");
        });
  }
  // The record of `value` as storage holds it (its count the count
  // journal's when that has one); nullopt when there is none.
  std::optional<ValueRecord> Record(const std::string& value) {
    ValueRecords records;
    EXPECT_TRUE(filter_->ReadValueRecords(nullptr, &records).ok());
    for (const auto& [key, rec] : records) {
      if (key == ValueKey(kTable, kColumn, value)) return rec;
    }
    return std::nullopt;
  }
  // Entries in the count journal.
  int JournalEntries() {
    std::unique_ptr<rocksdb::Iterator> it(
        db_->NewIterator(rocksdb::ReadOptions(), cfs_.meta));
    int n = 0;
    for (it->Seek(kCountJournalPrefix);
         it->Valid() && it->key().starts_with(kCountJournalPrefix);
         it->Next()) {
      ++n;
    }
    return n;
  }
  std::string SerializedFilter() { return filter_->Snapshot().value().filter; }
  ScalableSplitCountingBloomFilter Filter() {
    return ScalableSplitCountingBloomFilter::Deserialize(SerializedFilter())
        .value();
  }
  // The filter the value records describe, at their recorded stages.
  ScalableSplitCountingBloomFilter RebuiltFromRecords() {
    ValueRecords records;
    EXPECT_TRUE(filter_->ReadValueRecords(nullptr, &records).ok());
    const ScalableSplitCountingBloomFilter f = Filter();
    return RegionFilter::RebuildAtRecordedStages(f.config(), f.first_stage(),
                                                 records)
        .value();
  }

  testing::TempDir dir_;
  std::unique_ptr<rocksdb::DB> db_;
  std::vector<rocksdb::ColumnFamilyHandle*> handles_;
  FilterColumnFamilies cfs_;
  RegionStoreOptions options_;
  uint64_t incarnation_ = 100;
  std::unique_ptr<RegionFilter> filter_;
  int writes_ = 0;
};

TEST_F(RegionFilterTest, ANewFilterStartsAtEpochOneWithACheckpoint) {
  const FilterStatus status = filter_->GetStatus();
  EXPECT_EQ(status.incarnation, incarnation_);
  EXPECT_EQ(status.epoch, 1u);
  EXPECT_EQ(status.last_seq, 0u);
  EXPECT_EQ(status.config, options_.filter);
  std::string bytes;
  EXPECT_TRUE(
      db_->Get(rocksdb::ReadOptions(), cfs_.meta, kFilterCheckpointKey, &bytes)
          .ok());
  EXPECT_TRUE(
      db_->Get(rocksdb::ReadOptions(), cfs_.meta, kFilterMarkKey, &bytes).ok());
}

// Only a count crossing zero touches the filter: 0 -> 2 inserts, 2 -> 1
// does nothing, 1 -> 0 removes from the recorded stage.
TEST_F(RegionFilterTest, CountsCrossingZeroBecomeOpsInTheSameBatch) {
  auto w = Commit({{"NO", +2}, {"SE", +1}});
  ASSERT_TRUE(w.ok()) << w.status().ToString();
  ASSERT_EQ(w->ops.size(), 2u);
  EXPECT_EQ(w->ops[0].kind, FilterOp::Kind::kInsert);
  EXPECT_EQ(w->ops[0].seq, 1u);
  EXPECT_EQ(w->ops[1].seq, 2u);
  EXPECT_EQ(w->last_seq, 2u);
  EXPECT_EQ(w->epoch, 1u);
  EXPECT_EQ(w->incarnation, incarnation_);
  EXPECT_EQ(Record("NO")->count, 2u);

  w = Commit({{"NO", -1}});
  ASSERT_TRUE(w.ok());
  EXPECT_TRUE(w->ops.empty());
  EXPECT_EQ(w->last_seq, 2u);  // the newest op, though not this write's
  EXPECT_EQ(Record("NO")->count, 1u);

  const uint32_t stage = Record("NO")->stage;
  w = Commit({{"NO", -1}});
  ASSERT_TRUE(w.ok());
  ASSERT_EQ(w->ops.size(), 1u);
  EXPECT_EQ(w->ops[0].kind, FilterOp::Kind::kRemove);
  EXPECT_EQ(w->ops[0].stage, stage);
  EXPECT_EQ(w->ops[0].hash, HashElement(kTable, kColumn, "NO"));
  EXPECT_FALSE(Record("NO").has_value());
  // The ops went into the batch: the op log serves them.
  auto since = filter_->OpsSince(incarnation_, 1, 0);
  ASSERT_TRUE(since.ok()) << since.status().ToString();
  EXPECT_EQ(since->ops.size(), 3u);
  EXPECT_TRUE(RebuiltFromRecords().EquivalentTo(Filter()));
}

TEST_F(RegionFilterTest, ACountBelowZeroIsCorruptionAndWritesNothing) {
  const ScalableSplitCountingBloomFilter before = Filter();
  auto w = Commit({{"NO", +1}, {"XX", -1}});
  EXPECT_TRUE(w.status().IsCorruption()) << w.status().ToString();
  EXPECT_EQ(writes_, 0);
  EXPECT_FALSE(Record("NO").has_value());
  EXPECT_EQ(filter_->GetStatus().last_seq, 0u);
  EXPECT_TRUE(Filter().EquivalentTo(before));
}

TEST_F(RegionFilterTest, AFencedCommitIsRefusedBeforeItsWrite) {
  filter_->RaiseFence(5);
  filter_->RaiseFence(3);  // the fence only rises
  auto w = Commit({{"NO", +1}}, 4);
  EXPECT_TRUE(w.status().IsAborted()) << w.status().ToString();
  EXPECT_EQ(writes_, 0);
  EXPECT_EQ(filter_->GetStatus().last_seq, 0u);
  EXPECT_TRUE(Commit({{"NO", +1}}, 5).ok());
  EXPECT_TRUE(Commit({{"SE", +1}}, 0).ok());  // token 0 is never fenced
  EXPECT_EQ(writes_, 2);
}

// Two routers over one server: router 2's catch-up after a write in doubt
// raises its own fence, which must not refuse router 1's writes (one fence
// per server did: router 1's tokens are smaller).
TEST_F(RegionFilterTest, OneRoutersFenceNeverRefusesAnotherRoutersWrites) {
  const uint64_t a_old = MakeFenceToken(2, 7);  // router 2's write in doubt
  const uint64_t a_new = MakeFenceToken(2, 8);
  const uint64_t b = MakeFenceToken(1, 1);
  filter_->RaiseFence(a_new);  // router 2 catches up
  EXPECT_TRUE(Commit({{"NO", +1}}, a_old).status().IsAborted());
  EXPECT_TRUE(Commit({{"NO", +1}}, a_new).ok());
  EXPECT_TRUE(Commit({{"SE", +1}}, b).ok()) << "router 1 refused";
  filter_->RaiseFence(MakeFenceToken(1, 3));
  EXPECT_TRUE(Commit({{"DK", +1}}, b).status().IsAborted());
  EXPECT_TRUE(Commit({{"DK", +1}}, a_new).ok());  // router 2 unaffected
  EXPECT_EQ(writes_, 3);
}

// Past kMaxRouters fences the lowest router id is retired: refused from
// then on, never silently unfenced.
TEST_F(RegionFilterTest, FencesAreBoundedAndRetireTheOldestRouter) {
  constexpr uint64_t kRouters = regionstore_internal::RouterFences::kMaxRouters;
  for (uint64_t id = 1; id <= kRouters + 1; ++id) {
    filter_->RaiseFence(MakeFenceToken(id, 10));
  }
  EXPECT_TRUE(Commit({{"NO", +1}}, MakeFenceToken(1, 99)).status().IsAborted());
  EXPECT_TRUE(Commit({{"NO", +1}}, MakeFenceToken(2, 9)).status().IsAborted());
  EXPECT_TRUE(Commit({{"NO", +1}}, MakeFenceToken(2, 10)).ok());
  EXPECT_TRUE(Commit({{"SE", +1}}, MakeFenceToken(kRouters + 1, 10)).ok());
}

// The writer fails: nothing is stored, and the filter is back where the
// records say, so the next commit hands out the same seq again.
TEST_F(RegionFilterTest, AFailedWriteLeavesTheFilterAsItsRecordsSay) {
  ASSERT_TRUE(Commit({{"NO", +1}}).ok());
  const ScalableSplitCountingBloomFilter before = Filter();
  ValueDeltas deltas;
  AddDelta(&deltas, kTable, kColumn, "SE", +1);
  AddDelta(&deltas, kTable, kColumn, "NO", -1);
  rocksdb::WriteBatch batch;
  auto w = filter_->CommitWithValueChanges(
      &batch, deltas, 0,
      [](rocksdb::WriteBatch*) { return Status::IOError("disk full"); });
  EXPECT_TRUE(w.status().IsIOError()) << w.status().ToString();
  EXPECT_EQ(filter_->GetStatus().last_seq, 1u);
  EXPECT_EQ(filter_->GetStatus().epoch, 1u);
  EXPECT_TRUE(Filter().EquivalentTo(before));
  auto next = Commit({{"SE", +1}});
  ASSERT_TRUE(next.ok());
  EXPECT_EQ(next->ops.at(0).seq, 2u);
}

// Counts live in the count journal and the records, and in memory in the
// journaled records and the record cache. With a cache smaller than the
// values in use (commits evict and re-read), a journal folded every few
// counts, and reopens with an unfolded journal (what a crash leaves; Open
// replays it), every count is the model's and the filter is what the
// records say.
TEST_F(RegionFilterTest, CountsStayExactThroughCacheMissesFoldsAndReopens) {
  options_.value_record_cache_entries = 3;
  options_.max_journaled_counts = 7;
  Reopen();
  std::map<std::string, int> model;
  std::mt19937_64 rng(7);  // fixed seed: the same commits every run
  int journaled_reopens = 0;
  for (int i = 0; i < 400; ++i) {
    if (i % 50 == 49) {
      journaled_reopens += JournalEntries() > 0;
      Reopen();
    }
    std::vector<std::pair<std::string, int>> changes;
    for (int j = 0; j < 3; ++j) {
      const std::string value = "v" + std::to_string(rng() % 10);
      // One change per value a commit, as the store's deltas are.
      if (std::any_of(changes.begin(), changes.end(),
                      [&](const auto& c) { return c.first == value; })) {
        continue;
      }
      const int delta = model[value] > 0 && rng() % 2 ? -1 : +1;
      changes.emplace_back(value, delta);
      model[value] += delta;
    }
    auto w = Commit(changes);
    ASSERT_TRUE(w.ok()) << w.status().ToString();
  }
  EXPECT_GT(journaled_reopens, 0);
  for (const auto& [value, count] : model) {
    const auto rec = Record(value);
    EXPECT_EQ(rec ? rec->count : 0u, static_cast<uint64_t>(count)) << value;
  }
  EXPECT_TRUE(RebuiltFromRecords().EquivalentTo(Filter()));
}

// A compaction folds the journal: the records alone hold the counts.
TEST_F(RegionFilterTest, ACompactionFoldsTheCountJournal) {
  ASSERT_TRUE(Commit({{"NO", +2}, {"SE", +1}}).ok());
  ASSERT_TRUE(Commit({{"NO", +1}}).ok());
  EXPECT_EQ(JournalEntries(), 2);
  ASSERT_TRUE(filter_->Compact().ok());
  EXPECT_EQ(JournalEntries(), 0);
  std::string bytes;
  ASSERT_TRUE(db_->Get(rocksdb::ReadOptions(), cfs_.values,
                       ValueKey(kTable, kColumn, "NO"), &bytes)
                  .ok());
  ValueRecord rec;
  ASSERT_TRUE(DecodeValueRecord(bytes, &rec).ok());
  EXPECT_EQ(rec.count, 3u);
  ASSERT_TRUE(Commit({{"NO", -3}}).ok());
  EXPECT_FALSE(Record("NO").has_value());
}

// A write that stored its batch but reported failure (as a WAL sync error
// after the write can) leaves records the commit did not expect: the next
// commit counts from what storage holds, not from a cached count.
TEST_F(RegionFilterTest, AfterAFailedWriteCountsComeFromStorage) {
  ASSERT_TRUE(Commit({{"NO", +1}}).ok());
  ValueDeltas deltas;
  AddDelta(&deltas, kTable, kColumn, "NO", +1);
  rocksdb::WriteBatch batch;
  auto w = filter_->CommitWithValueChanges(
      &batch, deltas, 0, [this](rocksdb::WriteBatch* b) {
        EXPECT_TRUE(db_->Write(rocksdb::WriteOptions(), b).ok());
        return Status::IOError("sync failed");
      });
  EXPECT_TRUE(w.status().IsIOError()) << w.status().ToString();
  EXPECT_EQ(Record("NO")->count, 2u);
  ASSERT_TRUE(Commit({{"NO", +1}}).ok());
  EXPECT_EQ(Record("NO")->count, 3u);
  auto down = Commit({{"NO", -3}});
  ASSERT_TRUE(down.ok()) << down.status().ToString();
  ASSERT_EQ(down->ops.size(), 1u);  // the last row left: the value goes
  EXPECT_EQ(down->ops[0].kind, FilterOp::Kind::kRemove);
  EXPECT_FALSE(Record("NO").has_value());
}

// A batch with more new values than the stages left can take (n0 = 1, s = 1:
// one element a stage) is rebuilt for them under a new epoch first; its
// result then has no ops (readers take a snapshot).
TEST_F(RegionFilterTest, ABatchThatOutgrowsTheStagesRebuildsUnderANewEpoch) {
  options_.filter.initial_capacity = 1;
  options_.filter.growth_factor = 1.0;
  Reopen();
  std::vector<std::pair<std::string, int>> changes;
  for (int i = 0; i < 80; ++i) changes.emplace_back("C" + std::to_string(i), 1);
  auto w = Commit(changes);
  ASSERT_TRUE(w.ok()) << w.status().ToString();
  EXPECT_GT(w->epoch, 1u);
  EXPECT_TRUE(w->ops.empty());
  EXPECT_EQ(filter_->GetStatus().stats.elements, 80u);
  EXPECT_EQ(writes_, 1);
}

// A commit checks whether a compaction is due only when the filter changed
// (a count crossed zero), but every such commit does: no commit returns
// with more stages than max_filter_stages, a filter that deletes left
// sparse is compacted, and commits that only move counts compact nothing.
TEST_F(RegionFilterTest, EveryCommitThatChangesTheFilterChecksForACompaction) {
  options_.filter.initial_capacity = 1;  // one element a stage
  options_.filter.growth_factor = 1.0;
  options_.max_filter_stages = 4;
  options_.sparse_factor = 2;
  Reopen();
  ASSERT_TRUE(Commit({{"held", +1}}).ok());
  auto commit_and_check =
      [&](const std::vector<std::pair<std::string, int>>& changes) {
        auto w = Commit(changes);
        ASSERT_TRUE(w.ok()) << w.status().ToString();
        EXPECT_LE(filter_->GetStatus().stats.stages.size(), 4u);
        // Counts only: the filter is the same one.
        auto bump = Commit({{"held", +1}});
        ASSERT_TRUE(bump.ok()) << bump.status().ToString();
        EXPECT_TRUE(bump->ops.empty());
        EXPECT_EQ(bump->epoch, w->epoch);
      };
  for (int i = 0; i < 40; ++i) {
    commit_and_check({{"C" + std::to_string(i), +1}});
  }
  const uint64_t grown = filter_->GetStatus().epoch;
  EXPECT_GT(grown, 1u);
  for (int i = 0; i < 38; ++i) {
    commit_and_check({{"C" + std::to_string(i), -1}});
  }
  EXPECT_GT(filter_->GetStatus().epoch, grown);  // compacted when sparse
  EXPECT_EQ(filter_->GetStatus().stats.elements, 3u);
  EXPECT_TRUE(RebuiltFromRecords().EquivalentTo(Filter()));
}

TEST_F(RegionFilterTest, AReopenedFilterIsTheCheckpointWithItsOpsReplayed) {
  options_.checkpoint_interval = 1000000;  // every op stays in the log
  Reopen();
  std::vector<FilterOp> ops;
  for (int i = 0; i < 300; ++i) {
    auto w = Commit({{"v" + std::to_string(i % 120), i < 200 ? 1 : -1}});
    ASSERT_TRUE(w.ok()) << w.status().ToString();
    ops.insert(ops.end(), w->ops.begin(), w->ops.end());
  }
  const FilterStatus before = filter_->GetStatus();
  const std::string filter = SerializedFilter();
  Reopen();
  const FilterStatus after = filter_->GetStatus();
  EXPECT_NE(after.incarnation, before.incarnation);
  EXPECT_EQ(after.epoch, before.epoch);
  EXPECT_EQ(after.last_seq, before.last_seq);
  EXPECT_EQ(SerializedFilter(), filter);
  auto since = filter_->OpsSince(after.incarnation, after.epoch, 0);
  ASSERT_TRUE(since.ok()) << since.status().ToString();
  EXPECT_EQ(since->ops, ops);
}

// Without a checkpoint the filter is rebuilt from the value records under
// the mark's epoch + 1, from a seq past every one handed out; without the
// mark too, no unused epoch can be chosen.
TEST_F(RegionFilterTest, ALostCheckpointIsRebuiltNeverReusingAnEpochOrASeq) {
  for (int i = 0; i < 20; ++i) {
    ASSERT_TRUE(Commit({{"v" + std::to_string(i), 1}}).ok());
  }
  ASSERT_TRUE(filter_->Compact().ok());  // epoch 2, the op log emptied
  const FilterStatus before = filter_->GetStatus();
  ASSERT_EQ(before.epoch, 2u);
  filter_.reset();
  ASSERT_TRUE(
      db_->Delete(rocksdb::WriteOptions(), cfs_.meta, kFilterCheckpointKey)
          .ok());
  Reopen();
  const FilterStatus after = filter_->GetStatus();
  EXPECT_EQ(after.epoch, 3u);
  EXPECT_GE(after.last_seq, before.last_seq);
  EXPECT_EQ(after.stats.elements, 20u);
  EXPECT_TRUE(RebuiltFromRecords().EquivalentTo(Filter()));

  filter_.reset();
  ASSERT_TRUE(
      db_->Delete(rocksdb::WriteOptions(), cfs_.meta, kFilterCheckpointKey)
          .ok());
  ASSERT_TRUE(
      db_->Delete(rocksdb::WriteOptions(), cfs_.meta, kFilterMarkKey).ok());
  auto reopened = RegionFilter::Open(db_.get(), cfs_, options_, 1);
  EXPECT_TRUE(reopened.status().IsCorruption()) << reopened.status().ToString();
}

// A checkpoint every 10 ops keeps the ops after the previous checkpoint.
TEST_F(RegionFilterTest, CheckpointsTrimTheOpsBeforeThePreviousOne) {
  options_.checkpoint_interval = 10;
  Reopen();
  for (int i = 0; i < 30; ++i) {
    ASSERT_TRUE(Commit({{"v" + std::to_string(i), 1}}).ok());
  }
  const FilterStatus status = filter_->GetStatus();
  ASSERT_EQ(status.last_seq, 30u);
  auto since = filter_->OpsSince(status.incarnation, status.epoch, 20);
  ASSERT_TRUE(since.ok()) << since.status().ToString();
  EXPECT_FALSE(since->too_old);
  EXPECT_EQ(since->ops.size(), 10u);
  since = filter_->OpsSince(status.incarnation, status.epoch, 19);
  ASSERT_TRUE(since.ok());
  EXPECT_TRUE(since->too_old);
}

TEST_F(RegionFilterTest, OpsSinceNamesWhatTheCallerMustDoInstead) {
  ASSERT_TRUE(Commit({{"NO", 1}, {"SE", 1}}).ok());
  const FilterStatus s = filter_->GetStatus();
  EXPECT_TRUE(filter_->OpsSince(s.incarnation + 1, s.epoch, 0)->too_old);
  EXPECT_TRUE(filter_->OpsSince(s.incarnation, s.epoch + 1, 0)->too_old);
  EXPECT_TRUE(filter_->OpsSince(s.incarnation, s.epoch, 3)
                  .status()
                  .IsInvalidArgument());
  auto since = filter_->OpsSince(s.incarnation, s.epoch, 1);
  ASSERT_TRUE(since.ok());
  ASSERT_EQ(since->ops.size(), 1u);
  EXPECT_EQ(since->ops[0].seq, 2u);
  EXPECT_EQ(since->last_seq, 2u);
}

// A new image raises the fence first; its pages assemble to the occupancy
// image of the filter; an image not kept is NotFound.
TEST_F(RegionFilterTest, ImagePagesRaiseTheFenceAndAssembleTheImage) {
  options_.filter_image_page_bytes =
      RegionStoreOptions::kMinFilterImagePageBytes;
  options_.filter.initial_capacity = 20000;  // an image of several pages
  Reopen();
  for (int i = 0; i < 50; ++i) {
    ASSERT_TRUE(Commit({{"v" + std::to_string(i), 1}}).ok());
  }
  EXPECT_TRUE(filter_->SnapshotImagePage(9, 0, 1).status().IsInvalidArgument());
  auto first = filter_->SnapshotImagePage(9, 0, 0);
  ASSERT_TRUE(first.ok()) << first.status().ToString();
  EXPECT_TRUE(Commit({{"late", 1}}, 8).status().IsAborted());
  std::string bytes = first->bytes;
  ASSERT_LT(bytes.size(), first->total_bytes);
  while (bytes.size() < first->total_bytes) {
    auto page = filter_->SnapshotImagePage(0, first->image_id, bytes.size());
    ASSERT_TRUE(page.ok()) << page.status().ToString();
    bytes += page->bytes;
  }
  EXPECT_EQ(bytes, OccupancyImage::Of(Filter()).Serialize());
  EXPECT_EQ(first->last_seq, 50u);
  // Served in full, the image is dropped.
  EXPECT_TRUE(
      filter_->SnapshotImagePage(0, first->image_id, 0).status().IsNotFound());
}

// TakeSnapshotAndFilter: the value records as of the snapshot are exactly
// those the filter copy holds, whatever commits after it.
TEST_F(RegionFilterTest, TheSnapshotAndFilterAreOfOneState) {
  ASSERT_TRUE(Commit({{"NO", 1}, {"SE", 1}}).ok());
  RegionFilter::SnapshotAndFilter taken = filter_->TakeSnapshotAndFilter();
  ASSERT_NE(taken.snapshot->snapshot(), nullptr);
  ASSERT_TRUE(Commit({{"DK", 1}, {"NO", -1}}).ok());
  ValueRecords records;
  ASSERT_TRUE(
      filter_->ReadValueRecords(taken.snapshot->snapshot(), &records).ok());
  ASSERT_EQ(records.size(), 2u);
  auto copy = ScalableSplitCountingBloomFilter::Deserialize(taken.filter);
  ASSERT_TRUE(copy.ok());
  auto rebuilt = RegionFilter::RebuildAtRecordedStages(
      copy->config(), copy->first_stage(), records);
  ASSERT_TRUE(rebuilt.ok()) << rebuilt.status().ToString();
  EXPECT_TRUE(rebuilt->EquivalentTo(*copy));
}

TEST_F(RegionFilterTest, ANewConfigIsPersistedAndOutlivesAReopen) {
  SscbfConfig config = options_.filter;
  config.initial_capacity = 4096;
  ASSERT_TRUE(Commit({{"NO", 1}}).ok());
  SscbfConfig invalid = config;
  invalid.target_fpr = 0;
  EXPECT_TRUE(filter_->SetConfig(invalid).IsInvalidArgument());
  EXPECT_EQ(filter_->GetStatus().epoch, 1u);
  ASSERT_TRUE(filter_->SetConfig(config).ok());
  EXPECT_EQ(filter_->GetStatus().config, config);
  EXPECT_EQ(filter_->GetStatus().epoch, 2u);
  Reopen();  // options_.filter is not the store's config any more
  EXPECT_EQ(filter_->GetStatus().config, config);
  EXPECT_EQ(filter_->GetStatus().epoch, 2u);
  EXPECT_EQ(filter_->GetStatus().stats.elements, 1u);
}

}  // namespace
}  // namespace bloomroute::regionstore_internal
