// RegionPlacement: where a table's regions go, and opening, dropping and
// reopening them on real stores.
#include "router/coordinator/region_placement.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <string>
#include <vector>

#include "tests/router/component_cluster.h"

namespace bloomroute::router_internal {
namespace {

constexpr int kServers = 3;

class RegionPlacementTest : public ::testing::Test {
 protected:
  RegionPlacementTest() : c_(kServers), placement_(c_.ctx()) {
    c_.set_reopen([this](const ServerEntry& server) {
      return placement_.ReopenServer(server);
    });
  }

  // A ready table "t" of two regions split at "m", planned and opened.
  CatalogTable OpenTable() {
    router::TableSpec spec;
    spec.name = "t";
    spec.split_keys = {"m"};
    CatalogTable t = placement_.PlanTable(spec);
    c_.PutTable(t);
    EXPECT_TRUE(placement_.OpenRegions(t).ok());
    return t;
  }
  // The store that server `id` is.
  int Node(ServerId id) const {
    for (int i = 0; i < kServers; ++i) {
      if (c_.id(i) == id) return i;
    }
    return -1;
  }
  bool Serves(int node, uint64_t region) {
    const std::vector<uint64_t> open = c_.OpenIds(node);
    return std::find(open.begin(), open.end(), region) != open.end();
  }

  testing::ComponentCluster c_;
  RegionPlacement placement_;
};

TEST_F(RegionPlacementTest, PlanTableSplitsEvenlyOverEveryMember) {
  router::TableSpec spec;
  spec.name = "t";
  spec.indexed_columns = {"d:a", "d:b"};
  CatalogTable t = placement_.PlanTable(spec);
  EXPECT_EQ(t.descriptor.name, "t");
  ASSERT_EQ(t.descriptor.indexed_columns.size(), 2u);
  EXPECT_EQ(t.descriptor.indexed_columns[0].column_id, 1u);
  EXPECT_EQ(t.descriptor.indexed_columns[1].name, "d:b");
  EXPECT_EQ(t.descriptor.indexed_columns[1].column_id, 2u);
  // One region a member (region_count 0), the first key byte split evenly.
  ASSERT_EQ(t.regions.size(), 3u);
  EXPECT_EQ(t.regions[0].start_key, "");
  EXPECT_EQ(t.regions[1].start_key, std::string("\x55"));  // 256/3
  EXPECT_EQ(t.regions[2].start_key, std::string("\xaa"));  // 512/3
  EXPECT_EQ(t.regions[2].end_key, "");
  std::vector<ServerId> servers;
  for (const CatalogRegion& r : t.regions) servers.push_back(r.server);
  std::sort(servers.begin(), servers.end());
  EXPECT_EQ(servers, (std::vector<ServerId>{c_.id(0), c_.id(1), c_.id(2)}));
}

TEST_F(RegionPlacementTest, PlacesOnTheServersWithFewestAndSkipsDraining) {
  CatalogTable other;
  other.descriptor.table_id = c_.catalog().NextTableId();
  other.descriptor.name = "other";
  other.regions = {{c_.catalog().NextRegionId(), "", "m", c_.id(0)},
                   {c_.catalog().NextRegionId(), "m", "", c_.id(0)}};
  c_.PutTable(other);
  c_.servers().SetDraining(c_.id(2), true);
  // Server 0 holds two regions, server 2 is draining: both go to server 1.
  std::vector<CatalogRegion> placed = placement_.PlaceRegions({"k"}, 0);
  ASSERT_EQ(placed.size(), 2u);
  EXPECT_EQ(placed[0].server, c_.id(1));
  EXPECT_EQ(placed[1].server, c_.id(1));
  EXPECT_EQ(placed[0].end_key, "k");
  EXPECT_EQ(placed[1].start_key, "k");
  EXPECT_NE(placed[0].region_id, placed[1].region_id);
  // The skipped table's regions do not count: ties go to the lowest id.
  placed = placement_.PlaceRegions({"k"}, other.descriptor.table_id);
  EXPECT_EQ(placed[0].server, c_.id(0));
  EXPECT_EQ(placed[1].server, c_.id(1));
  // Every member draining: they take the regions anyway.
  c_.servers().SetDraining(c_.id(0), true);
  c_.servers().SetDraining(c_.id(1), true);
  placed = placement_.PlaceRegions({}, 0);
  ASSERT_EQ(placed.size(), 1u);
  EXPECT_EQ(placed[0].server, c_.id(1));  // the lowest of those holding none
}

TEST_F(RegionPlacementTest, OpenRegionsOpensEachOnItsServer) {
  const CatalogTable t = OpenTable();
  for (const CatalogRegion& r : t.regions) {
    EXPECT_TRUE(Serves(Node(r.server), r.region_id)) << r.region_id;
  }
}

TEST_F(RegionPlacementTest, OpenRegionsFailsNamingADownServerAndFlagsIt) {
  router::TableSpec spec;
  spec.name = "t";
  spec.region_count = kServers;
  CatalogTable t = placement_.PlanTable(spec);
  c_.server(1).reopen = false;
  c_.stores().Down(1);
  const int wakes = c_.wakes();
  const Status s = placement_.OpenRegions(t);
  EXPECT_TRUE(s.IsUnavailable()) << s.ToString();
  EXPECT_NE(s.ToString().find("server-1"), std::string::npos) << s.ToString();
  EXPECT_TRUE(c_.server(1).reopen);  // ServerFailed: to be reopened
  EXPECT_GT(c_.wakes(), wakes);
}

TEST_F(RegionPlacementTest, DropRegionsCountsNotFoundAsDropped) {
  CatalogTable t = OpenTable();
  // A retired region that was never opened (NotFound) goes too.
  t.retired_regions = {{c_.catalog().NextRegionId(), "", "", c_.id(2)}};
  c_.write_path().CatchUpReplicas();
  ASSERT_TRUE(c_.index().IsCurrent(t.regions[0].server));
  ASSERT_TRUE(placement_.DropRegions(t).ok());
  for (const CatalogRegion& r : t.regions) {
    EXPECT_FALSE(Serves(Node(r.server), r.region_id));
  }
  // The drops changed the filters without ops: the replicas catch up.
  EXPECT_FALSE(c_.index().IsCurrent(t.regions[0].server));
  // Dropped already: NotFound everywhere, still OK.
  EXPECT_TRUE(placement_.DropRegions(t).ok());
}

TEST_F(RegionPlacementTest, DropRegionsFailsWhenAServerDoesNotAnswer) {
  const CatalogTable t = OpenTable();
  const int node = Node(t.regions[0].server);
  c_.stores().Down(node);
  EXPECT_TRUE(placement_.DropRegions(t).IsUnavailable());
  c_.stores().Up(node);
}

TEST_F(RegionPlacementTest, DropRetiredRegionsForgetsThemOnceDropped) {
  CatalogTable t = OpenTable();
  const CatalogRegion old = t.regions[1];
  t.retired_regions = {old};
  t.regions[1] = {c_.catalog().NextRegionId(), "m", "", old.server};
  c_.PutTable(t);
  ASSERT_TRUE(placement_.DropRetiredRegions(&t).ok());
  EXPECT_TRUE(t.retired_regions.empty());
  EXPECT_TRUE(c_.Record(t.descriptor.table_id).retired_regions.empty());
  EXPECT_FALSE(Serves(Node(old.server), old.region_id));
  EXPECT_TRUE(Serves(Node(t.regions[0].server), t.regions[0].region_id));
}

TEST_F(RegionPlacementTest, DropRetiredRegionsKeepsThemWhileAServerIsDown) {
  CatalogTable t = OpenTable();
  t.retired_regions = {t.regions[0]};
  t.regions[0] = {c_.catalog().NextRegionId(), "", "m", t.regions[0].server};
  c_.PutTable(t);
  const int node = Node(t.retired_regions[0].server);
  c_.stores().Down(node);
  EXPECT_FALSE(placement_.DropRetiredRegions(&t).ok());
  EXPECT_EQ(t.retired_regions.size(), 1u);
  EXPECT_EQ(c_.Record(t.descriptor.table_id).retired_regions.size(), 1u);
  c_.stores().Up(node);
}

TEST_F(RegionPlacementTest, ReopenServerOpensTheRegionsOfANewRun) {
  const CatalogTable t = OpenTable();
  const int node = Node(t.regions[0].server);
  c_.stores().Down(node);
  c_.stores().Up(node);  // a new run serves none of its regions
  EXPECT_FALSE(Serves(node, t.regions[0].region_id));
  const ServerEntry& server = c_.server(node);
  ASSERT_TRUE(placement_.ReopenServer(server).ok());
  EXPECT_TRUE(Serves(node, t.regions[0].region_id));
  EXPECT_EQ(server.opened_incarnation,
            c_.stores().store(node)->GetFilterStatus().incarnation);
}

TEST_F(RegionPlacementTest, ReopenServerFailsWhileTheServerIsDown) {
  const CatalogTable t = OpenTable();
  const int node = Node(t.regions[0].server);
  c_.server(node).reopen = false;
  c_.stores().Down(node);
  EXPECT_TRUE(placement_.ReopenServer(c_.server(node)).IsUnavailable());
  EXPECT_TRUE(c_.server(node).reopen);
  c_.stores().Up(node);
}

TEST_F(RegionPlacementTest, FlagsOnlyServersMissingARegion) {
  const CatalogTable t = OpenTable();
  for (int i = 0; i < kServers; ++i) c_.server(i).reopen = false;
  const int node = Node(t.regions[1].server);
  // Closed behind the router's back: no call of ours failed.
  ASSERT_TRUE(
      c_.stores().store(node)->CloseRegion(t.regions[1].region_id).ok());
  placement_.FlagServersMissingRegions(*c_.catalog().Tables());
  for (int i = 0; i < kServers; ++i) {
    EXPECT_EQ(c_.server(i).reopen.load(), i == node) << i;
  }
}

}  // namespace
}  // namespace bloomroute::router_internal
