// Balancing: the balancer's runs and decommissioning, through the component
// over real stores (ComponentCluster) with its hooks faked: region
// statistics asked of the stores directly, and the removal of a member
// recorded (and refused when a test says so).
#include "router/coordinator/balancing.h"

#include <gtest/gtest.h>

#include <map>
#include <string>
#include <vector>

#include "tests/router/component_cluster.h"

namespace bloomroute::router_internal {
namespace {

using testing::ComponentCluster;
using testing::RowKey;

class BalancingTest : public ::testing::Test {
 protected:
  void SetUp() override {
    cluster_.CatchUp();
    // Three regions on store 0, one on store 1; store 2 holds none.
    table_ = cluster_.CreateTable("t", {RowKey(10), RowKey(20), RowKey(30)},
                                  {0, 0, 0, 1});
    for (int r = 0; r < 4; ++r) {
      cluster_.PutRows(table_.regions[r], r * 10, r * 10 + 10);
    }
  }

  Balancing::Hooks FakeHooks() {
    Balancing::Hooks hooks;
    hooks.region_stats =
        [](const ServerEntry& server, uint64_t table_id, size_t,
           bool count_rows) -> StatusOr<std::map<uint64_t, RegionStats>> {
      RegionStatsRequest request;
      request.table_id = table_id;
      request.count_rows = count_rows;
      BLOOMROUTE_ASSIGN_OR_RETURN(RegionStatsPage page,
                                  server.client->GetRegionStats(request));
      std::map<uint64_t, RegionStats> out;
      for (const RegionStats& r : page.regions) out[r.region_id] = r;
      return out;
    };
    hooks.remove_server = [this](ServerId id) {
      removed_.push_back(id);
      return remove_status_;
    };
    return hooks;
  }

  // Regions of the table on each member, by the catalog now.
  std::map<ServerId, int> Load() {
    std::map<ServerId, int> load;
    for (const CatalogRegion& r :
         cluster_.Record(table_.descriptor.table_id).regions) {
      ++load[r.server];
    }
    return load;
  }

  ComponentCluster cluster_{3};
  RegionOps ops_{cluster_.ctx()};
  Balancing balancing_{cluster_.ctx(), &ops_, FakeHooks()};
  CatalogTable table_;
  std::vector<ServerId> removed_;
  Status remove_status_;
};

TEST_F(BalancingTest, ABalanceMovesRegionsUntilTheCountsAreEven) {
  StatusOr<router::BalanceReport> report = balancing_.Balance(0);
  ASSERT_TRUE(report.ok()) << report.status().ToString();
  EXPECT_TRUE(report->balanced) << report->stopped;
  EXPECT_FALSE(report->failed);
  ASSERT_EQ(report->steps.size(), 1u);
  EXPECT_EQ(report->steps[0].kind, router::BalanceReport::Step::Kind::kMove);
  EXPECT_EQ(report->steps[0].from.id, cluster_.id(0));
  EXPECT_EQ(report->steps[0].to.id, cluster_.id(2));
  const std::map<ServerId, int> load = Load();
  EXPECT_EQ(load.at(cluster_.id(0)), 2);
  EXPECT_EQ(load.at(cluster_.id(1)), 1);
  EXPECT_EQ(load.at(cluster_.id(2)), 1);
  // Balanced: another run makes no step.
  report = balancing_.Balance(0);
  ASSERT_TRUE(report.ok());
  EXPECT_TRUE(report->steps.empty());
  EXPECT_TRUE(report->balanced);
}

TEST_F(BalancingTest, DecommissioningMovesEveryRegionOffThenRemovesTheMember) {
  StatusOr<std::vector<router::BalanceReport::Step>> moves =
      balancing_.DecommissionServer(cluster_.id(0));
  ASSERT_TRUE(moves.ok()) << moves.status().ToString();
  EXPECT_EQ(moves->size(), 3u);
  for (const router::BalanceReport::Step& step : *moves) {
    EXPECT_EQ(step.from.id, cluster_.id(0));
    EXPECT_NE(step.to.id, cluster_.id(0));
  }
  const std::map<ServerId, int> load = Load();
  EXPECT_EQ(load.count(cluster_.id(0)), 0u);
  EXPECT_EQ(load.at(cluster_.id(1)), 2);  // to the fewest each time
  EXPECT_EQ(load.at(cluster_.id(2)), 2);
  EXPECT_EQ(removed_, std::vector<ServerId>{cluster_.id(0)});
  EXPECT_FALSE(cluster_.ctx().servers->Draining(cluster_.id(0)));
}

TEST_F(BalancingTest, DecommissioningAnUnknownOrUnremovableServerFails) {
  EXPECT_TRUE(balancing_.DecommissionServer(777).status().IsNotFound());
  EXPECT_TRUE(removed_.empty());

  remove_status_ = Status::InvalidArgument("refused");
  const Status s = balancing_.DecommissionServer(cluster_.id(1)).status();
  EXPECT_TRUE(s.IsInvalidArgument());
  EXPECT_NE(s.ToString().find("stopped after 1 region moves"),
            std::string::npos)
      << s.ToString();
  EXPECT_EQ(removed_, std::vector<ServerId>{cluster_.id(1)});
  EXPECT_FALSE(cluster_.ctx().servers->Draining(cluster_.id(1)));
  EXPECT_EQ(Load().count(cluster_.id(1)), 0u);
}

}  // namespace
}  // namespace bloomroute::router_internal
