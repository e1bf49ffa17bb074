// RouterMetrics as the router keeps it: lookups counted with the servers
// they asked, region operations shown while they run, probes of the
// servers, the balancer's runs. The router counts in the process's
// registry, which every test of this binary shares: each test compares
// before and after.
#include "router/internal/router_metrics.h"

#include <gtest/gtest.h>

#include <string>
#include <thread>

#include "common/call_context.h"
#include "common/metrics.h"
#include "tests/router/router_test_util.h"

namespace bloomroute::router {
namespace {

using testing::PutRow;
using testing::StoreCluster;

uint64_t CounterValue(const char* name) {
  return metrics::DefaultRegistry().GetCounter(name, "").value();
}

class RouterMetricsTest : public ::testing::Test {
 protected:
  void SetUp() override {
    router_ = testing::OpenRouter(cluster_);
    ASSERT_NE(router_, nullptr);
    TableSpec s;
    s.name = "places";
    s.indexed_columns = {"d:country", "d:feature"};
    s.split_keys = {"g", "n", "t"};
    ASSERT_TRUE(router_->CreateTable(s).ok());
    ASSERT_TRUE(router_
                    ->Mutate("places", {PutRow("apple", "NO", "PPL"),
                                        PutRow("oslo", "NO", "PPLC"),
                                        PutRow("paris", "FR", "PPLC")})
                    .ok());
  }

  StoreCluster cluster_{4};
  std::unique_ptr<Router> router_;
};

TEST_F(RouterMetricsTest, LookupsCountTheServersTheyAskedAndTheRows) {
  const uint64_t lookups = CounterValue("bloomroute_lookups_total");
  const uint64_t asked = CounterValue("bloomroute_lookup_servers_asked_total");
  const uint64_t with_rows =
      CounterValue("bloomroute_lookup_servers_with_rows_total");
  const uint64_t rows = CounterValue("bloomroute_lookup_rows_returned_total");
  CallContext call;
  ScopedCallContext scope(&call);
  StatusOr<LookupResult> no =
      router_->Lookup("places", testing::WhereEq({{"d:country", "NO"}}));
  ASSERT_TRUE(no.ok()) << no.status().ToString();
  StatusOr<CountResult> fr =
      router_->Count("places", testing::WhereEq({{"d:country", "FR"}}));
  ASSERT_TRUE(fr.ok());
  EXPECT_EQ(CounterValue("bloomroute_lookups_total") - lookups, 2u);
  EXPECT_EQ(CounterValue("bloomroute_lookup_servers_asked_total") - asked,
            no->routing.asked.size() + fr->routing.asked.size());
  EXPECT_EQ(
      CounterValue("bloomroute_lookup_servers_with_rows_total") - with_rows,
      no->routing.with_rows.size() + fr->routing.with_rows.size());
  EXPECT_EQ(CounterValue("bloomroute_lookup_rows_returned_total") - rows, 2u);
  // The call's context has them too, for the slow-call log.
  EXPECT_EQ(call.table, "places");
  EXPECT_EQ(call.servers_asked,
            no->routing.asked.size() + fr->routing.asked.size());
  EXPECT_EQ(call.rows, 2u);
}

TEST_F(RouterMetricsTest, ScrapeShowsReplicasProbesTablesAndIndexBytes) {
  router_->RunMaintenance();  // probes the servers
  const std::string text = metrics::DefaultRegistry().Render();
  for (int id = 1; id <= 4; ++id) {
    const std::string server = "server=\"" + std::to_string(id) + "\"";
    EXPECT_NE(text.find("bloomroute_replica_current{" + server + "} 1\n"),
              std::string::npos)
        << id << "\n"
        << text;
    EXPECT_NE(text.find("bloomroute_region_server_up{address="),
              std::string::npos);
  }
  EXPECT_NE(text.find("\nbloomroute_tables 1\n"), std::string::npos) << text;
  EXPECT_NE(text.find("\nbloomroute_regions 4\n"), std::string::npos);
  EXPECT_NE(text.find("\nbloomroute_router_index_bytes "), std::string::npos);
  EXPECT_NE(text.find("\nbloomroute_region_operations_running 0\n"),
            std::string::npos);
  const RouterActivity activity = router_->Activity();
  ASSERT_EQ(activity.probes.size(), 4u);
  for (const auto& p : activity.probes) EXPECT_TRUE(p.up) << p.error;
}

TEST_F(RouterMetricsTest, ProbeOfAStoppedServerSaysDown) {
  cluster_.Down(2);
  // Probes are at most every few seconds: a new router probes at once.
  router_.reset();
  router_ = testing::OpenRouter(cluster_);
  ASSERT_NE(router_, nullptr);
  const RouterActivity activity = router_->Activity();
  ASSERT_EQ(activity.probes.size(), 4u);
  for (const auto& p : activity.probes) {
    EXPECT_EQ(p.up, p.server.id != 3) << p.server.id << " " << p.error;
  }
}

TEST_F(RouterMetricsTest, BalancerRunsAndRegionOperationsAreCounted) {
  const uint64_t runs = CounterValue("bloomroute_balancer_runs_total");
  ASSERT_TRUE(router_->Balance(0).ok());
  EXPECT_EQ(CounterValue("bloomroute_balancer_runs_total") - runs, 1u);
  const RouterActivity activity = router_->Activity();
  EXPECT_EQ(activity.balancer_runs - runs, 1u);
  ASSERT_TRUE(activity.last_balance_splits.has_value());
  EXPECT_TRUE(activity.region_ops.empty());
}

TEST(RouterMetricsUnitTest, RunningOperationsHaveAPhaseAndAnAge) {
  metrics::Registry registry;
  router_internal::RouterMetrics m(
      [] { return router_internal::RouterMetrics::Snapshot{}; }, &registry);
  const uint64_t op = m.BeginOp("split", 7);
  m.SetPhase(op, "copying");
  std::this_thread::sleep_for(std::chrono::milliseconds(20));
  const std::string text = registry.Render();
  EXPECT_NE(text.find("bloomroute_region_operations_running 1\n"),
            std::string::npos)
      << text;
  EXPECT_NE(text.find("bloomroute_region_operation_age_seconds{operation="
                      "\"split\",phase=\"copying\",region=\"7\"} 0.0"),
            std::string::npos)
      << text;
  EXPECT_EQ(text.find("bloomroute_region_operation_oldest_age_seconds 0\n"),
            std::string::npos);
  m.EndOp(op);
  EXPECT_NE(registry.Render().find(
                "bloomroute_region_operation_oldest_age_seconds 0\n"),
            std::string::npos);
}

}  // namespace
}  // namespace bloomroute::router
