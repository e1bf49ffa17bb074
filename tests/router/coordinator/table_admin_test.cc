// TableAdmin: a table's DDL recorded in the catalog, published, and carried
// out on the region servers (through RegionPlacement), with the errors
// HBase clients expect.
#include "router/coordinator/table_admin.h"

#include <gtest/gtest.h>

#include <set>
#include <string>

#include "tests/router/component_cluster.h"

namespace bloomroute::router_internal {
namespace {

class TableAdminTest : public ::testing::Test {
 protected:
  TableAdminTest()
      : placement_(cluster_.ctx()), admin_(cluster_.ctx(), &placement_) {}

  router::TableSpec Spec(const std::string& name) {
    router::TableSpec spec;
    spec.name = name;
    spec.families = {"d"};
    spec.indexed_columns = {"d:country"};
    spec.split_keys = {"m"};
    return spec;
  }
  // The region ids the stores hold, over both.
  std::set<uint64_t> StoreRegions() {
    std::set<uint64_t> out = cluster_.StoreRegions(0);
    for (uint64_t id : cluster_.StoreRegions(1)) out.insert(id);
    return out;
  }

  testing::ComponentCluster cluster_{2};
  RegionPlacement placement_;
  TableAdmin admin_;
};

TEST_F(TableAdminTest, CreateRecordsPublishesAndOpensTheRegions) {
  StatusOr<router::TableInfo> info = admin_.CreateTable(Spec("t"));
  ASSERT_TRUE(info.ok()) << info.status().ToString();
  ASSERT_EQ(info->regions.size(), 2u);
  std::set<uint64_t> ids;
  for (const router::RegionLocation& r : info->regions) {
    ids.insert(r.region.region_id);
  }
  EXPECT_EQ(StoreRegions(), ids);
  EXPECT_TRUE(cluster_.ctx().tables->Find("t").ok());
  ASSERT_EQ(admin_.ListTables().size(), 1u);
  EXPECT_EQ(admin_.ListTables()[0].name, "t");
  // One name once; a bad name never.
  EXPECT_TRUE(admin_.CreateTable(Spec("t")).status().IsInvalidArgument());
  EXPECT_TRUE(admin_.CreateTable(Spec("a b")).status().IsInvalidArgument());
  EXPECT_EQ(admin_.ListTables().size(), 1u);
}

TEST_F(TableAdminTest, LocateRegionNamesTheRegionHoldingARow) {
  ASSERT_TRUE(admin_.CreateTable(Spec("t")).ok());
  StatusOr<router::RegionLocation> low = admin_.LocateRegion("t", "a");
  StatusOr<router::RegionLocation> high = admin_.LocateRegion("t", "x");
  ASSERT_TRUE(low.ok() && high.ok());
  EXPECT_EQ(low->region.end_key, "m");
  EXPECT_EQ(high->region.start_key, "m");
  EXPECT_TRUE(admin_.LocateRegion("none", "a").status().IsNotFound());
}

TEST_F(TableAdminTest, DisabledTablesRefuseDataAndOnlyThenDeleteOrTruncate) {
  ASSERT_TRUE(admin_.CreateTable(Spec("t")).ok());
  EXPECT_TRUE(admin_.DeleteTableIfDisabled("t").IsInvalidArgument());
  EXPECT_TRUE(admin_.TruncateTable("t", true).IsInvalidArgument());
  EXPECT_TRUE(admin_.EnableTable("t").IsInvalidArgument());  // not disabled
  ASSERT_TRUE(admin_.DisableTable("t").ok());
  EXPECT_FALSE(admin_.IsTableEnabled("t").value());
  EXPECT_TRUE(cluster_.ctx().tables->Find("t").status().IsInvalidArgument());
  ASSERT_TRUE(admin_.EnableTable("t").ok());
  EXPECT_TRUE(admin_.IsTableEnabled("t").value());
  ASSERT_TRUE(admin_.DisableTable("t").ok());
  ASSERT_TRUE(admin_.DeleteTableIfDisabled("t").ok());
  EXPECT_TRUE(admin_.DescribeTable("t").status().IsNotFound());
  EXPECT_TRUE(StoreRegions().empty());
}

TEST_F(TableAdminTest, TruncateReplacesTheRegionsAndEnablesTheTable) {
  StatusOr<router::TableInfo> before = admin_.CreateTable(Spec("t"));
  ASSERT_TRUE(before.ok());
  ASSERT_TRUE(admin_.DisableTable("t").ok());
  ASSERT_TRUE(admin_.TruncateTable("t", /*preserve_splits=*/true).ok());
  StatusOr<router::TableInfo> after = admin_.DescribeTable("t");
  ASSERT_TRUE(after.ok());
  EXPECT_TRUE(after->enabled);
  ASSERT_EQ(after->regions.size(), 2u);
  EXPECT_EQ(after->regions[1].region.start_key, "m");
  std::set<uint64_t> ids;
  for (const router::RegionLocation& r : after->regions) {
    ids.insert(r.region.region_id);
    for (const router::RegionLocation& old : before->regions) {
      EXPECT_NE(r.region.region_id, old.region.region_id);  // never reused
    }
  }
  EXPECT_EQ(StoreRegions(), ids);  // the old ones dropped
}

}  // namespace
}  // namespace bloomroute::router_internal
