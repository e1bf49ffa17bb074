// RegionOps: moves, splits and merges run by the component itself against
// real stores (ComponentCluster); the router-level behaviour, with
// writes and faults during an operation, is router_reshape_test's.
#include "router/coordinator/region_ops.h"

#include <gtest/gtest.h>

#include <set>
#include <string>

#include "tests/router/component_cluster.h"

namespace bloomroute::router_internal {
namespace {

using testing::ComponentCluster;
using testing::RowKey;

constexpr int kRows = 100;

class RegionOpsTest : public ::testing::Test {
 protected:
  void SetUp() override {
    cluster_.CatchUp();
    // [, r0050) on store 0, [r0050, ) on store 1; store 2 holds none.
    table_ = cluster_.CreateTable("t", {RowKey(kRows / 2)}, {0, 1});
    cluster_.PutRows(table_.regions[0], 0, kRows / 2);
    cluster_.PutRows(table_.regions[1], kRows / 2, kRows);
  }

  CatalogTable Now() { return cluster_.Record(table_.descriptor.table_id); }

  // Every row is in the region of the catalog's record that holds it.
  void ExpectRows() {
    const CatalogTable t = Now();
    for (int i = 0; i < kRows; ++i) {
      const std::string key = RowKey(i);
      const CatalogRegion* holder = nullptr;
      for (const CatalogRegion& r : t.regions) {
        if (key >= r.start_key && (r.end_key.empty() || key < r.end_key)) {
          holder = &r;
        }
      }
      ASSERT_NE(holder, nullptr) << key;
      EXPECT_TRUE(cluster_.GetRow(*holder, key).has_value()) << key;
    }
  }

  ComponentCluster cluster_{3};
  RegionOps ops_{cluster_.ctx()};
  CatalogTable table_;
};

TEST_F(RegionOpsTest, CheckNoRegionOpNamesTheTableWithOneInFlight) {
  CatalogTable t = table_;
  EXPECT_TRUE(CheckNoRegionOp(t).ok());
  t.region_ops.push_back(CatalogRegionOp());
  const Status s = CheckNoRegionOp(t);
  EXPECT_TRUE(s.IsUnavailable());
  EXPECT_NE(s.ToString().find("table 't'"), std::string::npos) << s.ToString();
}

TEST_F(RegionOpsTest, APlanThatCannotBeIsRefusedAndChangesNothing) {
  const uint64_t low = table_.regions[0].region_id;
  const uint64_t high = table_.regions[1].region_id;
  EXPECT_TRUE(ops_.MoveRegion(99999, cluster_.id(2)).status().IsNotFound());
  EXPECT_TRUE(
      ops_.MoveRegion(low, cluster_.id(0)).status().IsInvalidArgument());
  EXPECT_TRUE(ops_.MoveRegion(low, 777).status().IsInvalidArgument());
  EXPECT_TRUE(ops_.SplitRegion(low, RowKey(kRows / 2 + 1))
                  .status()
                  .IsInvalidArgument());
  EXPECT_TRUE(
      ops_.SplitRegion(high, RowKey(kRows / 2)).status().IsInvalidArgument());
  EXPECT_TRUE(ops_.MergeRegions(low, 99999).status().IsNotFound());
  const CatalogTable other = cluster_.CreateTable("u", {}, {2});
  const Status apart =
      ops_.MergeRegions(low, other.regions[0].region_id).status();
  EXPECT_TRUE(apart.IsInvalidArgument());
  EXPECT_NE(apart.ToString().find("different tables"), std::string::npos);
  cluster_.ctx().servers->SetDraining(cluster_.id(2), true);
  const Status draining = ops_.MoveRegion(low, cluster_.id(2)).status();
  EXPECT_TRUE(draining.IsInvalidArgument());
  EXPECT_NE(draining.ToString().find("decommissioned"), std::string::npos);
  cluster_.ctx().servers->SetDraining(cluster_.id(2), false);

  EXPECT_EQ(Now(), table_);
  EXPECT_EQ(cluster_.StoreRegions(2),
            (std::set<uint64_t>{other.regions[0].region_id}));
}

TEST_F(RegionOpsTest, AMoveCopiesTheRowsSwitchesAndDropsTheSource) {
  const CatalogRegion source = table_.regions[0];
  StatusOr<router::RegionOpResult> moved =
      ops_.MoveRegion(source.region_id, cluster_.id(2));
  ASSERT_TRUE(moved.ok()) << moved.status().ToString();
  EXPECT_EQ(moved->rows_copied, static_cast<uint64_t>(kRows / 2));
  ASSERT_EQ(moved->regions.size(), 1u);
  EXPECT_EQ(moved->regions[0].server.id, cluster_.id(2));

  const CatalogTable t = Now();
  EXPECT_TRUE(t.region_ops.empty());
  ASSERT_EQ(t.regions.size(), 2u);
  EXPECT_EQ(t.regions[0].server, cluster_.id(2));
  EXPECT_NE(t.regions[0].region_id, source.region_id);
  EXPECT_EQ(t.regions[0].region_id, moved->regions[0].region.region_id);
  EXPECT_EQ(cluster_.StoreRegions(0).count(source.region_id), 0u);
  ExpectRows();
}

TEST_F(RegionOpsTest, ASplitAndAMergeOfItsDaughtersKeepEveryRow) {
  StatusOr<router::RegionOpResult> split =
      ops_.SplitRegion(table_.regions[1].region_id, RowKey(75));
  ASSERT_TRUE(split.ok()) << split.status().ToString();
  CatalogTable t = Now();
  ASSERT_EQ(t.regions.size(), 3u);
  EXPECT_EQ(t.regions[1].end_key, RowKey(75));
  EXPECT_EQ(t.regions[2].start_key, RowKey(75));
  ExpectRows();

  StatusOr<router::RegionOpResult> merged = ops_.MergeRegions(
      t.regions[2].region_id, t.regions[1].region_id);  // either order
  ASSERT_TRUE(merged.ok()) << merged.status().ToString();
  t = Now();
  ASSERT_EQ(t.regions.size(), 2u);
  EXPECT_EQ(t.regions[1].start_key, RowKey(kRows / 2));
  EXPECT_EQ(t.regions[1].end_key, "");
  ExpectRows();
  // Not adjacent: the first region and one past the second.
  const CatalogTable more =
      cluster_.CreateTable("w", {RowKey(10), RowKey(20)}, {0, 1, 2});
  EXPECT_TRUE(
      ops_.MergeRegions(more.regions[0].region_id, more.regions[2].region_id)
          .status()
          .IsInvalidArgument());
}

TEST_F(RegionOpsTest, MaintenanceUndoesAnOperationThatNoCallerRuns) {
  // A move recorded (kCopying) with its target staged, as a router that
  // stopped mid-copy leaves it.
  CatalogRegionOp op;
  op.kind = CatalogRegionOp::Kind::kMove;
  op.sources = {table_.regions[0]};
  CatalogRegion target = table_.regions[0];
  target.region_id = cluster_.ctx().catalog->NextRegionId();
  target.server = cluster_.id(2);
  op.targets = {target};
  CatalogTable recorded = table_;
  recorded.region_ops = {op};
  ASSERT_TRUE(cluster_.ctx().catalog->PutTable(recorded).ok());
  cluster_.ctx().PublishTables();
  ASSERT_TRUE(cluster_.server(2)
                  .client->OpenStagedRegion(DescriptorOf(recorded, target), 0)
                  .ok());
  // Another operation on the table waits for it.
  EXPECT_TRUE(ops_.MoveRegion(table_.regions[1].region_id, cluster_.id(2))
                  .status()
                  .IsUnavailable());

  const int wakes = cluster_.wakes();
  ops_.MaintainRegionOps();
  EXPECT_EQ(Now(), table_);
  EXPECT_EQ(cluster_.StoreRegions(2).count(target.region_id), 0u);
  EXPECT_GT(cluster_.wakes(), wakes);
  ExpectRows();
}

}  // namespace
}  // namespace bloomroute::router_internal
