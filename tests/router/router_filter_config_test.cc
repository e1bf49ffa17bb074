// The router owns the cluster's filter config: it sets it on every region
// server before it loads the server's replica, and again when a server
// shows another config.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "router/cluster_filter_config.h"
#include "router/router.h"
#include "tests/router/router_test_util.h"
#include "tests/router/store_cluster.h"

namespace bloomroute::router {
namespace {

using testing::Keys;
using testing::PutRow;
using testing::StoreCluster;
using testing::WhereEq;

constexpr int kServers = 3;
constexpr int kRows = 200;

class RouterFilterConfigTest : public ::testing::Test {
 protected:
  void SetUp() override {
    options_ = testing::RouterOptionsFor(cluster_);
    options_.background_maintenance = false;  // the test drives it
    options_.filter.target_false_routes = 0.1;
    options_.filter.tightening_ratio = 0.7;
    options_.filter.initial_capacity = 128;
    for (int i = 0; i < kServers; ++i)
      configs_before_.push_back(StoreConfig(i));
    StatusOr<std::unique_ptr<Router>> r =
        Router::Open(options_, cluster_.Factory());
    ASSERT_TRUE(r.ok()) << r.status().ToString();
    router_ = std::move(r).value();
    TableSpec spec;
    spec.name = "places";
    spec.indexed_columns = {"d:country", "d:feature"};
    spec.split_keys = {"k1", "k2"};
    ASSERT_TRUE(router_->CreateTable(spec).ok());
    std::vector<Mutation> rows;
    for (int i = 0; i < kRows; ++i) {
      rows.push_back(PutRow("k" + std::to_string(i), "C" + std::to_string(i),
                            "F" + std::to_string(i % 3)));
    }
    ASSERT_TRUE(router_->Mutate("places", rows).ok());
  }

  SscbfConfig Expected() const {
    return ClusterFilterConfig(options_.filter, kServers).value();
  }
  SscbfConfig StoreConfig(int i) {
    return cluster_.store(i)->GetFilterStatus().config;
  }
  // Every value's lookup finds exactly its row.
  void ExpectExactLookups() {
    for (int i = 0; i < kRows; i += 7) {
      const std::string key = "k" + std::to_string(i);
      auto r = router_->Lookup(
          "places", WhereEq({{"d:country", "C" + std::to_string(i)}}));
      ASSERT_TRUE(r.ok()) << r.status().ToString();
      EXPECT_EQ(Keys(r->rows), std::vector<std::string>{key});
    }
    auto none = router_->Lookup("places", WhereEq({{"d:country", "absent"}}));
    ASSERT_TRUE(none.ok()) << none.status().ToString();
    EXPECT_TRUE(none->rows.empty());
  }

  StoreCluster cluster_{kServers};
  RouterOptions options_;
  std::vector<SscbfConfig> configs_before_;  // before the router started
  std::unique_ptr<Router> router_;
};

TEST_F(RouterFilterConfigTest, TheRouterGivesEveryServerItsConfig) {
  const SscbfConfig expected = Expected();
  EXPECT_DOUBLE_EQ(expected.target_fpr, 0.1 / 4);  // 3 servers round to 4
  EXPECT_TRUE(router_->filter_config() == expected);
  // The stores were opened with their own config (StoreCluster's n0 64).
  for (const SscbfConfig& c : configs_before_) EXPECT_FALSE(c == expected);
  ExpectExactLookups();

  router_->RunMaintenance();
  for (int i = 0; i < kServers; ++i) {
    EXPECT_TRUE(StoreConfig(i) == expected) << i;
    auto report = cluster_.store(i)->VerifyIndex(std::nullopt);
    ASSERT_TRUE(report.ok()) << report.status().ToString();
    EXPECT_TRUE(report->ok()) << i;
  }
  const std::vector<ServerIndexStats> stats = router_->IndexStats();
  ASSERT_EQ(stats.size(), static_cast<size_t>(kServers));
  for (const ServerIndexStats& s : stats) {
    EXPECT_TRUE(s.replica.current) << s.server.address;
    EXPECT_TRUE(s.has_cluster_config) << s.server.address;
    EXPECT_TRUE(s.cluster_config == expected);
    EXPECT_DOUBLE_EQ(s.target_false_routes, 0.1);
  }
  ExpectExactLookups();
  // Now routed by the replicas: an absent value asks no server, or a few.
  auto none = router_->Lookup("places", WhereEq({{"d:country", "absent"}}));
  ASSERT_TRUE(none.ok());
  EXPECT_TRUE(none->routing.asked_not_current.empty());
}

TEST_F(RouterFilterConfigTest, AServerShowingAnotherConfigIsSetAgain) {
  router_->RunMaintenance();
  const SscbfConfig expected = Expected();
  // Someone changes server 1's config behind the router's back.
  SscbfConfig other = expected;
  other.initial_capacity = 32;
  ASSERT_TRUE(cluster_.store(1)->SetFilterConfig(other).ok());
  ExpectExactLookups();  // the new epoch shows with the next write or status
  (void)router_->GetClusterStatus();  // the status shows the other config
  router_->RunMaintenance();
  EXPECT_TRUE(StoreConfig(1) == expected);
  EXPECT_TRUE(router_->IndexStats()[1].replica.current);
  ExpectExactLookups();

  // A restart keeps the config: no rebuild, the same epoch.
  const uint64_t epoch = cluster_.store(2)->GetFilterStatus().epoch;
  cluster_.Down(2);
  cluster_.Up(2);
  router_->RunMaintenance();
  router_->RunMaintenance();
  EXPECT_TRUE(StoreConfig(2) == expected);
  EXPECT_EQ(cluster_.store(2)->GetFilterStatus().epoch, epoch);
  EXPECT_TRUE(router_->IndexStats()[2].has_cluster_config);
  ExpectExactLookups();
}

TEST(RouterFilterOptionsTest, InvalidOptionsNameTheFlag) {
  StoreCluster cluster(1);
  RouterOptions o = testing::RouterOptionsFor(cluster);
  o.filter.target_false_routes = 0;
  auto r = Router::Open(o, cluster.Factory());
  ASSERT_FALSE(r.ok());
  EXPECT_TRUE(r.status().IsInvalidArgument());
  EXPECT_NE(r.status().message().find("--target-false-routes"),
            std::string::npos)
      << r.status().ToString();
  o.filter.target_false_routes = 2;  // P = 2 for one server
  r = Router::Open(o, cluster.Factory());
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.status().message().find("--target-false-routes"),
            std::string::npos)
      << r.status().ToString();
}

}  // namespace
}  // namespace bloomroute::router
