// ListClusterMembers and LivenessNode over the fake ensemble: routers in
// election order with the ids they claimed, region servers' liveness
// nodes, re-registration after an expired session, and a crashed run's
// node replaced.
#include "coord/cluster_members.h"

#include <gtest/gtest.h>

#include <chrono>
#include <memory>
#include <string>
#include <vector>

#include "coord/election.h"
#include "coord/fake_znode_store.h"
#include "coord/member_id.h"
#include "tests/coord/znode_test_support.h"

namespace bloomroute::coord {
namespace {

using std::chrono::milliseconds;

class ClusterMembersTest : public ::testing::Test {
 protected:
  ZnodeStore* NewSession() {
    sessions_.push_back(std::move(*zk_.Connect("/bloomroute/c1")));
    return sessions_.back().get();
  }
  std::unique_ptr<LivenessNode> Live(const std::string& address,
                                     const std::string& data) {
    LivenessNode::Options o;
    o.connect = [this] { return zk_.Connect("/bloomroute/c1"); };
    o.path = std::string(kLiveRegionServersPath) + "/" + address;
    o.data = data;
    o.retry = milliseconds(10);
    StatusOr<std::unique_ptr<LivenessNode>> node = LivenessNode::Start(o);
    EXPECT_TRUE(node.ok()) << node.status().ToString();
    return node.ok() ? std::move(*node) : nullptr;
  }
  ClusterMembers List() {
    StatusOr<ClusterMembers> m = ListClusterMembers(reader_);
    EXPECT_TRUE(m.ok()) << m.status().ToString();
    return m.ok() ? *m : ClusterMembers();
  }

  FakeEnsemble zk_;
  std::vector<std::unique_ptr<ZnodeStore>> sessions_;
  ZnodeStore* reader_ = NewSession();
};

TEST_F(ClusterMembersTest, AnEmptyClusterHasNoMembers) {
  const ClusterMembers m = List();
  EXPECT_TRUE(m.routers.empty());
  EXPECT_TRUE(m.region_servers.empty());
}

TEST_F(ClusterMembersTest, RoutersInElectionOrderWithTheirIds) {
  std::vector<std::unique_ptr<Election>> elections;
  for (int i = 0; i < 3; ++i) {
    ZnodeStore* s = NewSession();
    Election::Options o;
    o.path = kRoutersPath;
    o.data = "r" + std::to_string(i) + ":9090";
    elections.push_back(std::move(*Election::Join(s, o)));
    if (i != 1) {  // the second has not claimed an id yet
      ASSERT_TRUE(ClaimMemberId(s, kRouterIdsPath, 100, o.data).ok());
    }
  }
  const ClusterMembers m = List();
  ASSERT_EQ(m.routers.size(), 3u);
  EXPECT_EQ(m.routers[0].address, "r0:9090");
  EXPECT_TRUE(m.routers[0].leading);
  EXPECT_EQ(m.routers[0].router_id, 1u);
  EXPECT_FALSE(m.routers[1].leading);
  EXPECT_EQ(m.routers[1].router_id, 0u);
  EXPECT_EQ(m.routers[2].router_id, 2u);
  EXPECT_LT(m.routers[0].epoch, m.routers[1].epoch);
  // The leader's session ends: the next one leads, and its id is free.
  zk_.ExpireSession(sessions_[1]->SessionId());
  zk_.DrainEvents();
  const ClusterMembers after = List();
  ASSERT_EQ(after.routers.size(), 2u);
  EXPECT_EQ(after.routers[0].address, "r1:9090");
  EXPECT_TRUE(after.routers[0].leading);
}

TEST_F(ClusterMembersTest, RegionServersAreListedWhileTheyLive) {
  std::unique_ptr<LivenessNode> a = Live("10.0.0.2:9091", "incarnation=aa");
  std::unique_ptr<LivenessNode> b = Live("10.0.0.1:9091", "incarnation=bb");
  ASSERT_TRUE(a->AwaitRegistered(milliseconds(5000)));
  ASSERT_TRUE(b->AwaitRegistered(milliseconds(5000)));
  ClusterMembers m = List();
  ASSERT_EQ(m.region_servers.size(), 2u);
  EXPECT_EQ(m.region_servers[0].address, "10.0.0.1:9091");
  EXPECT_EQ(m.region_servers[0].data, "incarnation=bb");
  b.reset();  // a clean stop: gone at once
  m = List();
  ASSERT_EQ(m.region_servers.size(), 1u);
  EXPECT_EQ(m.region_servers[0].address, "10.0.0.2:9091");
}

// A session that expires (a long pause) loses the node; the process
// registers again with a new session.
TEST_F(ClusterMembersTest, AnExpiredSessionRegistersAgain) {
  std::unique_ptr<LivenessNode> a = Live("10.0.0.1:9091", "x");
  ASSERT_TRUE(a->AwaitRegistered(milliseconds(5000)));
  const int64_t first = List().region_servers.at(0).session;
  zk_.ExpireSession(first);
  EXPECT_TRUE(zktest::WaitFor([&] {
    const ClusterMembers m = List();
    return m.region_servers.size() == 1 && m.region_servers[0].session != first;
  }));
}

// A restarted server finds its previous run's node (that session not yet
// expired) and replaces it.
TEST_F(ClusterMembersTest, ACrashedRunsNodeIsReplaced) {
  ZnodeStore* old_run = NewSession();
  ASSERT_TRUE(MakePath(old_run, kLiveRegionServersPath).ok());
  CreateOptions ephemeral;
  ephemeral.ephemeral = true;
  ASSERT_TRUE(
      old_run
          ->Create(std::string(kLiveRegionServersPath) + "/10.0.0.1:9091",
                   "old", ephemeral)
          .ok());
  std::unique_ptr<LivenessNode> a = Live("10.0.0.1:9091", "new");
  ASSERT_TRUE(a->AwaitRegistered(milliseconds(5000)));
  const ClusterMembers m = List();
  ASSERT_EQ(m.region_servers.size(), 1u);
  EXPECT_EQ(m.region_servers[0].data, "new");
}

TEST_F(ClusterMembersTest, ZooKeeperDownDelaysRegisteringOnly) {
  zk_.Stop();
  std::unique_ptr<LivenessNode> a = Live("10.0.0.1:9091", "x");
  EXPECT_FALSE(a->AwaitRegistered(milliseconds(100)));
  zk_.Start();
  EXPECT_TRUE(a->AwaitRegistered(milliseconds(5000)));
}

TEST_F(ClusterMembersTest, BadOptionsAreRefused) {
  LivenessNode::Options o;
  o.path = "/live/x";
  EXPECT_TRUE(LivenessNode::Start(o).status().IsInvalidArgument());
  o.connect = [this] { return zk_.Connect("/bloomroute/c1"); };
  o.path = "relative";
  EXPECT_TRUE(LivenessNode::Start(o).status().IsInvalidArgument());
}

}  // namespace
}  // namespace bloomroute::coord
