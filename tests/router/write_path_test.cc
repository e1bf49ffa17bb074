// WritePath: a write is routed, sent and its filter changes applied to the
// server's replica before the caller hears of it; a write in doubt fences
// the replica; a server that lost its regions has them reopened once.
#include "router/internal/write_path.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "index/element_hash.h"
#include "tests/router/component_cluster.h"

namespace bloomroute::router_internal {
namespace {

class WritePathTest : public ::testing::Test {
 protected:
  void SetUp() override {
    table_ = cluster_.CreateTable("t", {"m"}, {0, 1});
    cluster_.CatchUp();
  }
  // Whether the replica of store `node` may hold country `value` of t.
  bool ReplicaMayHold(int node, const std::string& value) {
    const router::CandidateServers c = cluster_.index().Candidates(
        {HashElement(table_.descriptor.table_id, 1, value)});
    for (ServerId id : c.servers) {
      if (id == cluster_.id(node)) return true;
    }
    return false;
  }
  Status WriteTo(int node, const std::string& row, const std::string& value) {
    const CatalogRegion& region = table_.regions[node];
    return cluster_.write_path().ApplyBatches(
        cluster_.servers().Get(region.server),
        {Mutation::Put(region.region_id, row, {{"d:country", value}})});
  }

  testing::ComponentCluster cluster_{2};
  CatalogTable table_;
};

TEST_F(WritePathTest, AWriteReachesTheReplicaBeforeItIsAcknowledged) {
  EXPECT_FALSE(ReplicaMayHold(0, "NO"));
  ASSERT_TRUE(WriteTo(0, "a1", "NO").ok());
  // No catch-up in between: the reply's ops were applied on the way back.
  EXPECT_TRUE(cluster_.index().IsCurrent(cluster_.id(0)));
  EXPECT_TRUE(ReplicaMayHold(0, "NO"));
  EXPECT_FALSE(ReplicaMayHold(1, "NO"));
}

TEST_F(WritePathTest, AWriteInDoubtLeavesTheReplicaNotCurrent) {
  const int wakes = cluster_.wakes();
  cluster_.Fail(0);
  const Status s = WriteTo(0, "a1", "NO");
  EXPECT_TRUE(s.IsUnavailable()) << s.ToString();
  // Named, fenced, and its regions to be reopened by maintenance.
  EXPECT_NE(s.ToString().find(cluster_.server(0).ref.address),
            std::string::npos)
      << s.ToString();
  EXPECT_FALSE(cluster_.index().IsCurrent(cluster_.id(0)));
  EXPECT_TRUE(cluster_.server(0).reopen);
  EXPECT_GT(cluster_.wakes(), wakes);
  EXPECT_TRUE(cluster_.index().IsCurrent(cluster_.id(1)));
}

TEST_F(WritePathTest, ARefusedWriteLeavesTheReplicaCurrent) {
  {
    std::lock_guard<std::mutex> lock(cluster_.hooks().mu);
    cluster_.hooks().before = [](int, const std::string& call, uint64_t) {
      return call == "Apply" ? Status::InvalidArgument("refused")
                             : Status::OK();
    };
  }
  EXPECT_TRUE(WriteTo(0, "a1", "NO").IsInvalidArgument());
  // Nothing was written: no doubt, no catch-up needed.
  EXPECT_TRUE(cluster_.index().IsCurrent(cluster_.id(0)));
}

TEST_F(WritePathTest, AServerThatLostItsRegionsHasThemReopenedOnce) {
  int reopened = 0;
  cluster_.set_reopen([&](const ServerEntry&) {
    ++reopened;
    return Status::OK();
  });
  int calls = 0;
  const StatusOr<int> r = cluster_.write_path().RetryIfRegionsClosed(
      cluster_.server(0), [&]() -> StatusOr<int> {
        if (++calls == 1) return Status::NotFound("no region 7");
        return calls;
      });
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_EQ(*r, 2);
  EXPECT_EQ(reopened, 1);
}

TEST_F(WritePathTest, RoutingNamesAMissingOrDisabledTable) {
  EXPECT_TRUE(
      cluster_.write_path().RouteWrite("none", {"a"}).status().IsNotFound());
  StatusOr<WriteRoute> route = cluster_.write_path().RouteWrite("t", {"a"});
  ASSERT_TRUE(route.ok()) << route.status().ToString();
  EXPECT_EQ(route->state->record.descriptor.name, "t");
  EXPECT_EQ(route->op, nullptr);  // no region operation runs
  CatalogTable disabled = table_;
  disabled.enabled = false;
  cluster_.PutTable(disabled);
  EXPECT_TRUE(cluster_.write_path()
                  .RouteWrite("t", {"a"})
                  .status()
                  .IsInvalidArgument());
}

}  // namespace
}  // namespace bloomroute::router_internal
