// The region calls for moves and splits on the router's side: the
// RegionClient defaults that refuse them (test doubles that predate moves),
// and the in-process StoreRegionClient that router tests run clusters on.
#include <gtest/gtest.h>

#include <optional>
#include <string>

#include "router/region_client.h"
#include "tests/regionstore/region_store_test_util.h"
#include "tests/router/fake_region_client.h"
#include "tests/router/store_cluster.h"

namespace bloomroute {
namespace {

using testing::PlacesRegion;
using testing::PutPlace;

TEST(RegionClientReshapeTest, ClientsThatPredateMovesRefuseThem) {
  router::FakeRegionClient fake;
  const Status staged = fake.OpenStagedRegion(PlacesRegion(1, "", ""), 0);
  EXPECT_TRUE(staged.IsInvalidArgument()) << staged.ToString();
  EXPECT_NE(staged.message().find("not supported"), std::string::npos);
  EXPECT_TRUE(fake.SplitPoint(1).status().IsInvalidArgument());
}

TEST(RegionClientReshapeTest, StoreRegionClientReachesTheStore) {
  testing::StoreCluster cluster(1);
  auto client = cluster.Factory()->Connect(0, cluster.node(0).address);
  ASSERT_TRUE(client.ok()) << client.status().ToString();
  router::RegionClient& c = **client;
  ASSERT_TRUE(c.OpenRegion(PlacesRegion(1, "", ""), 0).ok());
  ASSERT_TRUE(c.OpenStagedRegion(PlacesRegion(2, "", "m"), 0).ok());
  auto ids = c.OpenRegionIds();
  ASSERT_TRUE(ids.ok());
  EXPECT_EQ(*ids, std::vector<uint64_t>{1});
  ASSERT_TRUE(
      c.Apply({PutPlace(2, "a", "NO", "PPLA"), PutPlace(2, "b", "NO", "PPLA")},
              0)
          .ok());
  auto split = c.SplitPoint(2);
  ASSERT_TRUE(split.ok()) << split.status().ToString();
  EXPECT_EQ(*split, std::optional<std::string>("b"));

  // Through the cluster's fault hooks: a server that is down answers
  // Unavailable, and only calls that reach a store are counted.
  const int64_t calls = cluster.node(0).calls.load();
  cluster.Down(0);
  EXPECT_TRUE(c.OpenStagedRegion(PlacesRegion(3, "m", ""), 0).IsUnavailable());
  EXPECT_TRUE(c.SplitPoint(2).status().IsUnavailable());
  EXPECT_EQ(cluster.node(0).calls.load(), calls);
  cluster.Up(0);
  EXPECT_TRUE(c.OpenStagedRegion(PlacesRegion(3, "m", ""), 0).ok());
  EXPECT_EQ(cluster.node(0).calls.load(), calls + 1);
}

}  // namespace
}  // namespace bloomroute
