// Router::ListServers and ListRegions: the catalog's placement joined with
// what each server reports of its regions, over in-process region stores.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "tests/router/router_test_util.h"

namespace bloomroute {
namespace {

using ::bloomroute::testing::PutRow;
using ::bloomroute::testing::StoreCluster;

class RouterAdminTest : public ::testing::Test {
 protected:
  void SetUp() override {
    // No background maintenance: it would reopen a region a test closes.
    router::RouterOptions options = testing::RouterOptionsFor(cluster_);
    options.background_maintenance = false;
    auto opened = router::Router::Open(options, cluster_.Factory());
    ASSERT_TRUE(opened.ok()) << opened.status().ToString();
    router_ = std::move(opened).value();
    router::TableSpec spec;
    spec.name = "geo";
    spec.indexed_columns = {"d:country"};
    spec.split_keys = {"g", "p"};  // 3 regions over 2 servers
    ASSERT_TRUE(router_->CreateTable(spec).ok());
    // 4 rows before "g", 2 in [g, p), 3 from "p".
    std::vector<Mutation> rows;
    for (const char* key :
         {"a1", "b1", "c1", "d1", "h1", "i1", "q1", "r1", "s1"}) {
      rows.push_back(PutRow(key, "NO", "f"));
    }
    ASSERT_TRUE(router_->Mutate("geo", rows).ok());
  }

  StoreCluster cluster_{2};
  std::unique_ptr<router::Router> router_;
};

TEST_F(RouterAdminTest, RegionsShowTheirServerRowsAndBytes) {
  auto regions = router_->ListRegions("geo");
  ASSERT_TRUE(regions.ok()) << regions.status().ToString();
  ASSERT_EQ(regions->size(), 3u);
  const std::vector<uint64_t> rows = {4, 2, 3};
  const std::vector<std::string> starts = {"", "g", "p"};
  for (size_t i = 0; i < 3; ++i) {
    const router::RegionSummary& r = (*regions)[i];
    EXPECT_EQ(r.start_key, starts[i]);
    EXPECT_EQ(r.serving, router::RegionServing::kOpen) << i;
    EXPECT_EQ(r.rows, rows[i]) << i;
    EXPECT_FALSE(r.server.address.empty());
  }
  EXPECT_EQ((*regions)[0].end_key, "g");
  EXPECT_EQ((*regions)[2].end_key, "");
}

TEST_F(RouterAdminTest, ServersAddUpToTheTable) {
  const std::vector<router::ServerSummary> servers = router_->ListServers();
  ASSERT_EQ(servers.size(), 2u);
  uint64_t rows = 0, bytes = 0;
  uint32_t regions = 0;
  for (const router::ServerSummary& s : servers) {
    EXPECT_TRUE(s.reachable) << s.error;
    EXPECT_EQ(s.regions_not_served, 0u);
    rows += s.rows;
    bytes += s.bytes;
    regions += s.regions;
  }
  EXPECT_EQ(rows, 9u);
  EXPECT_EQ(regions, 3u);
  // The servers' bytes are their regions' (approximate, but the same
  // estimate of the same state both times).
  auto listed = router_->ListRegions("geo");
  ASSERT_TRUE(listed.ok());
  uint64_t region_bytes = 0;
  for (const router::RegionSummary& r : *listed) {
    region_bytes += r.row_bytes + r.index_bytes;
  }
  EXPECT_EQ(bytes, region_bytes);
  EXPECT_LT(servers[0].server.id, servers[1].server.id);
}

TEST_F(RouterAdminTest, ClosedRegionIsNotServedAndADownServerUnreachable) {
  auto regions = router_->ListRegions("geo");
  ASSERT_TRUE(regions.ok());
  const router::RegionSummary first = (*regions)[0];
  const int node = first.server.address == "server-0" ? 0 : 1;
  ASSERT_TRUE(cluster_.store(node)->CloseRegion(first.region_id).ok());
  regions = router_->ListRegions("geo");
  ASSERT_TRUE(regions.ok());
  EXPECT_EQ((*regions)[0].serving, router::RegionServing::kNotServed);
  EXPECT_EQ((*regions)[0].rows, 4u);  // still there, counted
  std::vector<router::ServerSummary> servers = router_->ListServers();
  EXPECT_EQ(servers[node].regions_not_served, 1u);
  // A maintenance pass notices and opens it again.
  router_->RunMaintenance();
  regions = router_->ListRegions("geo");
  ASSERT_TRUE(regions.ok());
  EXPECT_EQ((*regions)[0].serving, router::RegionServing::kOpen);

  cluster_.Down(node);
  regions = router_->ListRegions("geo");
  ASSERT_TRUE(regions.ok());
  EXPECT_EQ((*regions)[0].serving, router::RegionServing::kUnreachable);
  EXPECT_EQ((*regions)[0].rows, 0u);
  servers = router_->ListServers();
  EXPECT_FALSE(servers[node].reachable);
  EXPECT_NE(servers[node].error.find("server-"), std::string::npos)
      << servers[node].error;
  EXPECT_TRUE(servers[1 - node].reachable);
  cluster_.Up(node);
}

TEST_F(RouterAdminTest, UnknownTableIsNotFound) {
  auto regions = router_->ListRegions("nope");
  ASSERT_FALSE(regions.ok());
  EXPECT_TRUE(regions.status().IsNotFound());
}

}  // namespace
}  // namespace bloomroute
