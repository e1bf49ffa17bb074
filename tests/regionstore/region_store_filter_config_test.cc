// RegionStore::SetFilterConfig: the router's cluster config replaces the
// store's own, by a rebuild under a new epoch, and persists.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "index/element_hash.h"
#include "index/scalable_split_counting_bloom_filter.h"
#include "regionstore/region_store.h"
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

constexpr int kRows = 300;

class RegionStoreFilterConfigTest : public ::testing::Test {
 protected:
  void SetUp() override {
    options_.filter.initial_capacity = 16;  // several stages for kRows
    options_.max_filter_stages = 16;        // no compaction of its own
    Reopen();
    for (int i = 0; i < kRows; ++i) Put(i);
    // What a router would send: another P, r and n0.
    cluster_.target_fpr = 0.05 / 8;
    cluster_.tightening_ratio = 0.8;
    cluster_.initial_capacity = 64;
  }
  void Reopen() {
    store_.reset();
    auto s = RegionStore::Open(dir_.path(), options_);
    ASSERT_TRUE(s.ok()) << s.status().ToString();
    store_ = std::move(*s);
    ASSERT_TRUE(store_->OpenRegion(PlacesRegion(1, "", "m")).ok());
    ASSERT_TRUE(store_->OpenRegion(PlacesRegion(2, "m", "")).ok());
  }
  void Put(int i) {
    const std::string row = "k" + std::to_string(i);
    auto w =
        store_->Apply({PutPlace(row < "m" ? 1 : 2, row, "C" + std::to_string(i),
                                "F" + std::to_string(i % 5))});
    ASSERT_TRUE(w.ok()) << w.status().ToString();
  }
  // Every stored value's element is in the server's filter, whose stages
  // are the config's ladder; index, counts and filter agree.
  void ExpectFilterOf(const SscbfConfig& config, int rows) {
    const FilterStatus status = store_->GetFilterStatus();
    EXPECT_TRUE(status.config == config);
    ASSERT_FALSE(status.stats.stages.empty());
    for (const StageStats& st : status.stats.stages) {
      const StageGeometry g =
          StageGeometryFor(config, st.geometry.stage).value();
      EXPECT_EQ(st.geometry.slices, g.slices);
      EXPECT_EQ(st.geometry.slice_length, g.slice_length);
    }
    auto snapshot = store_->Snapshot();
    ASSERT_TRUE(snapshot.ok()) << snapshot.status().ToString();
    auto filter =
        ScalableSplitCountingBloomFilter::Deserialize(snapshot->filter);
    ASSERT_TRUE(filter.ok()) << filter.status().ToString();
    EXPECT_TRUE(filter->config() == config);
    EXPECT_EQ(filter->element_count(), static_cast<uint64_t>(rows + 5));
    const uint64_t table = PlacesTable().table_id;
    for (int i = 0; i < rows; ++i) {
      EXPECT_TRUE(
          filter->Contains(HashElement(table, 1, "C" + std::to_string(i))))
          << i;
    }
    auto report = store_->VerifyIndex(std::nullopt);
    ASSERT_TRUE(report.ok()) << report.status().ToString();
    EXPECT_TRUE(report->ok())
        << (report->problems.empty() ? std::string("filter")
                                     : report->problems.front());
    EXPECT_EQ(report->values_not_in_filter, 0u);
    auto found = store_->Lookup(Where({{"d:country", "C42"}}));
    ASSERT_TRUE(found.ok()) << found.status().ToString();
    EXPECT_EQ(found->rows.size(), 1u);
  }

  TempDir dir_;
  RegionStoreOptions options_;
  SscbfConfig cluster_;
  std::unique_ptr<RegionStore> store_;
};

TEST_F(RegionStoreFilterConfigTest, ANewConfigRebuildsUnderANewEpoch) {
  const FilterStatus before = store_->GetFilterStatus();
  EXPECT_TRUE(before.config == options_.filter);
  ASSERT_TRUE(store_->SetFilterConfig(cluster_).ok());
  const FilterStatus after = store_->GetFilterStatus();
  EXPECT_GT(after.epoch, before.epoch);
  EXPECT_EQ(after.last_seq, before.last_seq);  // no op reused, none added
  ExpectFilterOf(cluster_, kRows);
  // A reader of the old epoch is told to take a snapshot.
  EXPECT_TRUE(
      store_->OpsSince(before.incarnation, before.epoch, before.last_seq)
          ->too_old);
  // Writes go on in the new filter.
  Put(kRows);
  ExpectFilterOf(cluster_, kRows + 1);
}

TEST_F(RegionStoreFilterConfigTest, TheConfigOutlivesARestart) {
  ASSERT_TRUE(store_->SetFilterConfig(cluster_).ok());
  Put(kRows);
  const uint64_t epoch = store_->GetFilterStatus().epoch;
  // options_.filter still says otherwise: it is only the config of a store
  // no router has configured.
  Reopen();
  EXPECT_EQ(store_->GetFilterStatus().epoch, epoch);  // restored, not rebuilt
  ExpectFilterOf(cluster_, kRows + 1);
  // Without a checkpoint the filter is rebuilt, with the persisted config.
  store_.reset();
  {
    auto surgery = StoreSurgery::Open(dir_.path());
    ASSERT_TRUE(surgery.ok()) << surgery.status().ToString();
    ASSERT_TRUE((*surgery)->DropFilterCheckpoint().ok());
  }
  Reopen();
  EXPECT_GT(store_->GetFilterStatus().epoch, epoch);
  ExpectFilterOf(cluster_, kRows + 1);
}

TEST_F(RegionStoreFilterConfigTest, TheSameConfigTwiceIsANoOp) {
  // The store's own config, before any router configured it.
  const FilterStatus first = store_->GetFilterStatus();
  ASSERT_TRUE(store_->SetFilterConfig(options_.filter).ok());
  EXPECT_EQ(store_->GetFilterStatus().epoch, first.epoch);

  ASSERT_TRUE(store_->SetFilterConfig(cluster_).ok());
  const FilterStatus set = store_->GetFilterStatus();
  ASSERT_TRUE(store_->SetFilterConfig(cluster_).ok());
  const FilterStatus again = store_->GetFilterStatus();
  EXPECT_EQ(again.epoch, set.epoch);
  EXPECT_EQ(again.last_seq, set.last_seq);
  auto snapshot = store_->Snapshot();
  ASSERT_TRUE(snapshot.ok());
  EXPECT_FALSE(store_->OpsSince(snapshot->incarnation, set.epoch, set.last_seq)
                   ->too_old);
}

TEST_F(RegionStoreFilterConfigTest, AnInvalidConfigChangesNothing) {
  const FilterStatus before = store_->GetFilterStatus();
  const std::string filter = store_->Snapshot()->filter;
  std::vector<SscbfConfig> bad(4, cluster_);
  bad[0].target_fpr = 1.5;
  bad[1].tightening_ratio = 0;
  bad[2].initial_capacity = 0;
  bad[3].target_fpr = 1e-300;  // stage 0 would need too many slices
  for (const SscbfConfig& config : bad) {
    const Status s = store_->SetFilterConfig(config);
    EXPECT_TRUE(s.IsInvalidArgument()) << s.ToString();
    const FilterStatus now = store_->GetFilterStatus();
    EXPECT_EQ(now.epoch, before.epoch);
    EXPECT_TRUE(now.config == options_.filter);
    EXPECT_EQ(store_->Snapshot()->filter, filter);
  }
  Reopen();
  EXPECT_EQ(store_->GetFilterStatus().epoch, before.epoch);
  ExpectFilterOf(options_.filter, kRows);
}

}  // namespace
}  // namespace bloomroute
