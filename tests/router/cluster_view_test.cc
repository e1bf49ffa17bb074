// ClusterView: what operators see of servers, regions, replicas and probes,
// joined from the catalog, the replicas and the servers' own reports -- on
// real region stores, without a router.
#include "router/internal/cluster_view.h"

#include <gtest/gtest.h>

#include <atomic>
#include <string>
#include <vector>

#include "tests/router/component_cluster.h"

namespace bloomroute::router_internal {
namespace {

using router::RegionServing;

// Four stores; table "t" has regions [, b) and [b, c) on store 0, [c, d)
// on store 1, [d, ) on store 2; store 3 holds none. Rows: a1, b1 on store
// 0, c1 on store 1, d1 and d2 on store 2.
class ClusterViewTest : public ::testing::Test {
 protected:
  void SetUp() override {
    table_ = cluster_.CreateTable("t", {"b", "c", "d"}, {0, 0, 1, 2});
    cluster_.Put("t", {{"a1", "NO", "city"},
                       {"b1", "SE", "city"},
                       {"c1", "DK", "lake"},
                       {"d1", "NO", "city"},
                       {"d2", "FI", "lake"}});
    cluster_.CatchUp();
  }

  ClusterView View() {
    return ClusterView(
        cluster_.ctx(),
        {[this](const CatalogTable&, const CatalogRegion& region) {
           return region.region_id == staged_;
         },
         [this](router::RegionSummary* summary) {
           ++described_;
           summary->balancer_skipped = "skipped " + std::to_string(described_);
         }});
  }
  uint64_t Region(size_t i) const { return table_.regions[i].region_id; }

  testing::ComponentCluster cluster_{4};
  CatalogTable table_;
  uint64_t staged_ = 0;  // the region is_staged_target names
  int described_ = 0;    // describe_region calls
};

TEST_F(ClusterViewTest, ListServersReportsEachServersRegionsAndRows) {
  const std::vector<router::ServerSummary> servers = View().ListServers();
  ASSERT_EQ(servers.size(), 4u);
  const uint32_t regions[] = {2, 1, 1, 0};
  const uint64_t rows[] = {2, 1, 2, 0};
  for (int i = 0; i < 4; ++i) {
    SCOPED_TRACE(i);
    EXPECT_EQ(servers[i].server.id, cluster_.id(i));
    EXPECT_TRUE(servers[i].reachable) << servers[i].error;
    EXPECT_TRUE(servers[i].replica_current);
    EXPECT_EQ(servers[i].regions, regions[i]);
    EXPECT_EQ(servers[i].regions_not_served, 0u);
    EXPECT_EQ(servers[i].rows, rows[i]);
    EXPECT_EQ(servers[i].bytes > 0, rows[i] > 0);
  }
}

TEST_F(ClusterViewTest, ListServersNamesAnUnreachableServerAndUnservedRegions) {
  ASSERT_TRUE(cluster_.server(2).client->CloseRegion(Region(3)).ok());
  cluster_.stores().Down(1);
  const std::vector<router::ServerSummary> servers = View().ListServers();
  ASSERT_EQ(servers.size(), 4u);
  EXPECT_FALSE(servers[1].reachable);
  EXPECT_NE(servers[1].error.find("server-1"), std::string::npos)
      << servers[1].error;
  EXPECT_EQ(servers[1].regions, 1u);
  EXPECT_EQ(servers[1].rows, 0u);
  EXPECT_TRUE(servers[2].reachable);
  EXPECT_EQ(servers[2].regions_not_served, 1u);
  EXPECT_EQ(servers[0].regions_not_served, 0u);
}

TEST_F(ClusterViewTest, ListRegionsSaysHowEachRegionIsServed) {
  ASSERT_TRUE(cluster_.server(0).client->CloseRegion(Region(1)).ok());
  cluster_.stores().Down(2);
  StatusOr<std::vector<router::RegionSummary>> regions =
      View().ListRegions("t");
  ASSERT_TRUE(regions.ok()) << regions.status().ToString();
  ASSERT_EQ(regions->size(), 4u);
  const RegionServing serving[] = {
      RegionServing::kOpen, RegionServing::kNotServed, RegionServing::kOpen,
      RegionServing::kUnreachable};
  // A closed region still has its rows, as its server counts them.
  const uint64_t rows[] = {1, 1, 1, 0};
  for (size_t i = 0; i < 4; ++i) {
    SCOPED_TRACE(i);
    const router::RegionSummary& r = (*regions)[i];
    EXPECT_EQ(r.region_id, Region(i));
    EXPECT_EQ(r.start_key, table_.regions[i].start_key);
    EXPECT_EQ(r.server.id, table_.regions[i].server);
    EXPECT_EQ(r.serving, serving[i]);
    EXPECT_EQ(r.rows, rows[i]);
    EXPECT_EQ(r.balancer_skipped, "skipped " + std::to_string(i + 1));
  }
  EXPECT_TRUE(View().ListRegions("nope").status().IsNotFound());
}

TEST_F(ClusterViewTest, ClusterStatusCountsRegionsNotServedButNotStaged) {
  ASSERT_TRUE(cluster_.server(0).client->CloseRegion(Region(0)).ok());
  router::ClusterStatus status = View().GetClusterStatus();
  EXPECT_EQ(status.tables, 1u);
  EXPECT_EQ(status.regions, 4u);
  ASSERT_EQ(status.servers.size(), 4u);
  EXPECT_TRUE(status.servers[0].reachable);
  EXPECT_TRUE(status.servers[0].replica_current);
  EXPECT_EQ(status.servers[0].regions, 2u);
  EXPECT_EQ(status.servers[0].regions_not_served, 1u);
  EXPECT_EQ(status.servers[3].regions, 0u);

  // A staged target is placed, but no server lists it as open.
  staged_ = Region(0);
  status = View().GetClusterStatus();
  EXPECT_EQ(status.servers[0].regions, 2u);
  EXPECT_EQ(status.servers[0].regions_not_served, 0u);

  cluster_.stores().Down(1);
  status = View().GetClusterStatus();
  EXPECT_FALSE(status.servers[1].reachable);
  EXPECT_FALSE(status.servers[1].error.empty());
}

TEST_F(ClusterViewTest, VerifyIndexComparesEachServerWithItsReplica) {
  StatusOr<router::VerifyReport> report = View().VerifyIndex("t");
  ASSERT_TRUE(report.ok()) << report.status().ToString();
  EXPECT_EQ(report->table.name, "t");
  ASSERT_EQ(report->servers.size(), 3u);  // the servers holding regions
  EXPECT_TRUE(report->ok());
  EXPECT_EQ(report->servers[0].regions, 2u);
  for (const router::ServerVerifyReport& s : report->servers) {
    EXPECT_EQ(s.replica.agreement, router::ReplicaAgreement::kMatches)
        << s.replica.detail;
  }

  cluster_.stores().Down(1);
  report = View().VerifyIndex("t");
  ASSERT_TRUE(report.ok()) << report.status().ToString();
  EXPECT_FALSE(report->ok());
  EXPECT_NE(report->servers[1].error.find("server-1"), std::string::npos)
      << report->servers[1].error;
  EXPECT_TRUE(report->servers[0].ok());
  EXPECT_TRUE(View().VerifyIndex("nope").status().IsNotFound());
}

TEST_F(ClusterViewTest, FetchRegionStatsRefusesStatsThatDoNotEnd) {
  ClusterView view = View();
  StatusOr<std::map<uint64_t, RegionStats>> stats =
      view.FetchRegionStats(cluster_.server(0), 0, 10);
  ASSERT_TRUE(stats.ok()) << stats.status().ToString();
  EXPECT_EQ(stats->size(), 2u);

  // A server that always says there is more.
  cluster_.hooks().region_stats_page = [](int, RegionStatsPage* page) {
    page->more = true;
  };
  stats = view.FetchRegionStats(cluster_.server(0), 0, 10);
  EXPECT_TRUE(stats.status().IsCorruption()) << stats.status().ToString();
  EXPECT_NE(stats.status().ToString().find("do not end"), std::string::npos);
  // More regions than the catalog could place there.
  stats = view.FetchRegionStats(cluster_.server(0), 0, 1);
  EXPECT_TRUE(stats.status().IsCorruption()) << stats.status().ToString();
}

TEST_F(ClusterViewTest, ProbeServersNotesWhichServersAnswered) {
  cluster_.stores().Down(3);
  ClusterView view = View();
  view.ProbeServers();
  const router::RouterActivity activity = view.Activity();
  ASSERT_EQ(activity.probes.size(), 4u);
  for (const router::RouterActivity::ServerProbe& p : activity.probes) {
    SCOPED_TRACE(p.server.address);
    EXPECT_EQ(p.up, p.server.id != cluster_.id(3));
    EXPECT_EQ(p.error.empty(), p.up);
  }
}

TEST_F(ClusterViewTest, IndexStatsAndTheMetricsSnapshotShowEveryReplica) {
  ClusterView view = View();
  const std::vector<router::ServerIndexStats> stats = view.IndexStats();
  ASSERT_EQ(stats.size(), 4u);
  for (int i = 0; i < 4; ++i) {
    SCOPED_TRACE(i);
    EXPECT_EQ(stats[i].server.id, cluster_.id(i));
    EXPECT_TRUE(stats[i].replica.current);
    EXPECT_TRUE(stats[i].has_cluster_config);
    EXPECT_EQ(stats[i].cluster_config, cluster_.ctx().filter_config);
    EXPECT_EQ(stats[i].ops_behind, 0u);
  }
  const RouterMetrics::Snapshot snapshot = view.MetricsSnapshot();
  EXPECT_EQ(snapshot.replicas.size(), 4u);
  EXPECT_EQ(snapshot.tables, 1u);
  EXPECT_EQ(snapshot.regions, 4u);
  EXPECT_EQ(snapshot.index_bytes, cluster_.index().MemoryBytes());
}

}  // namespace
}  // namespace bloomroute::router_internal
