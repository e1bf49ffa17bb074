// RegionStore::GetRegionStats: exact row counts, approximate bytes, states,
// and the bounds of one page.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "regionstore/region_store.h"
#include "tests/regionstore/region_store_test_util.h"

namespace bloomroute {
namespace {

using testing::PlacesRegion;
using testing::PutPlace;
using testing::TempDir;

class RegionStoreStatsTest : public ::testing::Test {
 protected:
  void SetUp() override {
    Reopen({PlacesRegion(1, "", "m"), PlacesRegion(2, "m", "")});
  }
  void Reopen(const std::vector<RegionDescriptor>& regions) {
    store_.reset();
    store_ = testing::OpenStoreWithRegions(dir_.path(), RegionStoreOptions(),
                                           regions);
    ASSERT_NE(store_, nullptr);
  }
  // `n` rows "<prefix>000".. in region `region`.
  void PutRows(uint64_t region, const std::string& prefix, int n) {
    std::vector<Mutation> batch;
    for (int i = 0; i < n; ++i) {
      char key[16];
      snprintf(key, sizeof(key), "%03d", i);
      batch.push_back(
          PutPlace(region, prefix + key, "NO", "PPL", std::string(100, 'x')));
    }
    ASSERT_TRUE(store_->Apply(batch).ok());
  }
  RegionStatsPage Stats(RegionStatsRequest request = {}) {
    StatusOr<RegionStatsPage> page = store_->GetRegionStats(request);
    EXPECT_TRUE(page.ok()) << page.status().ToString();
    return page.ok() ? *page : RegionStatsPage();
  }

  TempDir dir_;
  std::unique_ptr<RegionStore> store_;
};

TEST_F(RegionStoreStatsTest, CountsRowsAndBytesOfEachRegion) {
  PutRows(1, "a", 30);
  PutRows(2, "p", 20);
  // Overwriting a row does not count it twice; a delete takes it out.
  PutRows(1, "a", 5);
  ASSERT_TRUE(store_->Apply({Mutation::Delete(2, "p000")}).ok());
  const RegionStatsPage page = Stats();
  ASSERT_EQ(page.regions.size(), 2u);
  EXPECT_FALSE(page.more);
  EXPECT_EQ(page.regions[0].region_id, 1u);
  EXPECT_EQ(page.regions[0].table_id, testing::PlacesTable().table_id);
  EXPECT_EQ(page.regions[0].state, RegionState::kOpen);
  EXPECT_EQ(page.regions[0].rows, 30u);
  EXPECT_EQ(page.regions[1].region_id, 2u);
  EXPECT_EQ(page.regions[1].rows, 19u);
  // Approximate: see BytesAreRocksDbsEstimate.
}

// The balancer's view: bytes without reading a row.
TEST_F(RegionStoreStatsTest, WithoutCountingOnlyTheBytesAreEstimated) {
  for (int i = 0; i < 5; ++i) PutRows(1, "c" + std::to_string(i), 100);
  RegionStatsRequest request;
  request.count_rows = false;
  const RegionStatsPage counted = Stats();
  const RegionStatsPage page = Stats(request);
  ASSERT_EQ(page.regions.size(), 2u);
  EXPECT_EQ(counted.regions[0].rows, 500u);
  EXPECT_EQ(page.regions[0].rows, 0u);
  EXPECT_EQ(page.regions[0].row_bytes, counted.regions[0].row_bytes);
  EXPECT_GT(page.regions[0].row_bytes, 0u);
  EXPECT_EQ(page.regions[0].state, RegionState::kOpen);
}

// RocksDB's estimate: of the memtable (its size in memory, sampled) before a
// flush. 2000 rows of > 100 bytes are about 250 KB of cells; the bounds
// are generous (a memtable entry costs more than its bytes).
TEST_F(RegionStoreStatsTest, BytesAreRocksDbsEstimate) {
  for (int i = 0; i < 20; ++i) PutRows(1, "b" + std::to_string(i), 100);
  const RegionStatsPage page = Stats();
  ASSERT_EQ(page.regions.size(), 2u);
  EXPECT_EQ(page.regions[0].rows, 2000u);
  EXPECT_GT(page.regions[0].row_bytes, 2000u * 100 / 4);
  EXPECT_LT(page.regions[0].row_bytes, 2000u * 100 * 16);
  EXPECT_GT(page.regions[0].index_bytes, 0u);
  EXPECT_EQ(page.regions[1].rows, 0u);
  EXPECT_LT(page.regions[1].row_bytes, page.regions[0].row_bytes / 10);
}

TEST_F(RegionStoreStatsTest, RowsWrittenBeforeARestartAreCountedWhileClosed) {
  PutRows(1, "a", 12);
  Reopen({});  // a restarted server serves no region until it is opened
  RegionStatsPage page = Stats();
  ASSERT_EQ(page.regions.size(), 2u);
  EXPECT_EQ(page.regions[0].state, RegionState::kClosed);
  EXPECT_EQ(page.regions[0].rows, 12u);
  ASSERT_TRUE(store_->OpenRegion(PlacesRegion(1, "", "m")).ok());
  page = Stats();
  EXPECT_EQ(page.regions[0].state, RegionState::kOpen);
  EXPECT_EQ(page.regions[1].state, RegionState::kClosed);
}

TEST_F(RegionStoreStatsTest, PagesByRegionIdAndFiltersByTable) {
  TableDescriptor other = testing::PlacesTable();
  other.table_id = 8;
  other.name = "other";
  ASSERT_TRUE(store_->OpenRegion(RegionDescriptor{3, other, "", ""}).ok());
  RegionStatsRequest request;
  request.max_regions = 1;
  RegionStatsPage page = Stats(request);
  ASSERT_EQ(page.regions.size(), 1u);
  EXPECT_EQ(page.regions[0].region_id, 1u);
  EXPECT_TRUE(page.more);
  request.after_region_id = 2;
  page = Stats(request);
  ASSERT_EQ(page.regions.size(), 1u);
  EXPECT_EQ(page.regions[0].region_id, 3u);
  EXPECT_EQ(page.regions[0].table_id, 8u);
  EXPECT_FALSE(page.more);

  RegionStatsRequest of_table;
  of_table.table_id = 8;
  page = Stats(of_table);
  ASSERT_EQ(page.regions.size(), 1u);
  EXPECT_EQ(page.regions[0].region_id, 3u);
}

TEST_F(RegionStoreStatsTest, DroppedRegionIsGone) {
  PutRows(2, "p", 3);
  ASSERT_TRUE(store_->DropRegion(2).ok());
  const RegionStatsPage page = Stats();
  ASSERT_EQ(page.regions.size(), 1u);
  EXPECT_EQ(page.regions[0].region_id, 1u);
}

TEST_F(RegionStoreStatsTest, RejectsPageSizesOutsideTheLimit) {
  for (uint32_t n : {0u, kMaxRegionStatsPerCall + 1}) {
    RegionStatsRequest request;
    request.max_regions = n;
    StatusOr<RegionStatsPage> page = store_->GetRegionStats(request);
    ASSERT_FALSE(page.ok());
    EXPECT_TRUE(page.status().IsInvalidArgument());
    EXPECT_NE(page.status().message().find("max_regions"), std::string::npos);
  }
}

}  // namespace
}  // namespace bloomroute
