// Membership: the servers named at start checked before anything is
// persisted, and servers added, re-pointed and removed while the router runs.
#include "router/coordinator/membership.h"

#include <gtest/gtest.h>

#include <string>

#include "tests/regionstore/region_store_test_util.h"
#include "tests/router/component_cluster.h"

namespace bloomroute::router_internal {
namespace {

TEST(AddFlaggedServersTest, NoServerOrTooManyPersistNothing) {
  testing::TempDir dir;
  auto catalog = std::move(Catalog::Open(dir.path())).value();
  router::RouterOptions options;
  EXPECT_TRUE(
      AddFlaggedServers(catalog.get(), options).status().IsInvalidArgument());
  for (uint32_t i = 0; i <= router::RouterOptions::kMaxServers; ++i) {
    options.region_servers.push_back("h:" + std::to_string(1000 + i));
  }
  EXPECT_TRUE(
      AddFlaggedServers(catalog.get(), options).status().IsInvalidArgument());
  EXPECT_TRUE(catalog->Servers().empty());
}

TEST(AddFlaggedServersTest, NewFlagsArePersistedAndSizeTheFilterConfig) {
  testing::TempDir dir;
  auto catalog = std::move(Catalog::Open(dir.path())).value();
  router::RouterOptions options;
  options.region_servers = {"h:1", "h:2"};
  StatusOr<SscbfConfig> two = AddFlaggedServers(catalog.get(), options);
  ASSERT_TRUE(two.ok()) << two.status().ToString();
  EXPECT_EQ(catalog->Servers().size(), 2u);
  // Again with one more: the members are not added twice, and P shrinks
  // with the servers (F / N, N rounded up to a power of two).
  options.region_servers = {"h:1", "h:2", "h:3"};
  StatusOr<SscbfConfig> three = AddFlaggedServers(catalog.get(), options);
  ASSERT_TRUE(three.ok()) << three.status().ToString();
  EXPECT_EQ(catalog->Servers().size(), 3u);
  EXPECT_LT(three->target_fpr, two->target_fpr);
}

TEST(MembershipTest, AddingAKnownAddressAndRemovingAServerWithRegions) {
  testing::ComponentCluster cluster(2);
  RegionPlacement placement(cluster.ctx());
  Membership membership(cluster.ctx(), &placement);
  // A member's address: its own ref, nothing added.
  StatusOr<router::ServerRef> same =
      membership.AddServer(cluster.server(0).ref.address);
  ASSERT_TRUE(same.ok()) << same.status().ToString();
  EXPECT_EQ(same->id, cluster.id(0));
  EXPECT_TRUE(membership.AddServer("has space:1").status().IsInvalidArgument());
  cluster.CreateTable("t", {"m"}, {0, 1});
  EXPECT_TRUE(membership.RemoveServer(cluster.id(1)).IsInvalidArgument());
  EXPECT_TRUE(membership.RemoveServer(999).IsNotFound());
  EXPECT_TRUE(membership.SetServerAddress(cluster.id(0), "bad address")
                  .IsInvalidArgument());
}

}  // namespace
}  // namespace bloomroute::router_internal
