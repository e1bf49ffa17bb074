// What only the fake does: disconnections, a stopped ensemble, draining
// events. What it shares with ZooKeeper is in znode_store_test.cc.
#include "coord/fake_znode_store.h"

#include <gtest/gtest.h>

#include "tests/coord/znode_test_support.h"

namespace bloomroute::coord {
namespace {

using zktest::ZnodeEventLog;

class ZnodeFakeEnsembleTest : public ::testing::Test {
 protected:
  void SetUp() override {
    a_ = std::move(*zk_.Connect("/bloomroute/c1"));
    b_ = std::move(*zk_.Connect("/bloomroute/c1"));
  }

  FakeEnsemble zk_;
  std::unique_ptr<ZnodeStore> a_;
  std::unique_ptr<ZnodeStore> b_;
};

TEST_F(ZnodeFakeEnsembleTest, DisconnectedSessionKeepsItsEphemeralsAndWatches) {
  ASSERT_TRUE(a_->Create("/e", "", CreateOptions{true, false}).ok());
  ASSERT_TRUE(b_->Create("/d", "").ok());
  ZnodeEventLog log;
  a_->AddSessionListener(log.Listen());
  ASSERT_TRUE(a_->Get("/d", log.Watch()).ok());
  zk_.DisconnectSession(a_->SessionId());
  EXPECT_EQ(a_->State(), SessionState::kDisconnected);
  Status refused = a_->Get("/d").status();
  EXPECT_TRUE(refused.IsUnavailable());
  EXPECT_FALSE(IsSessionExpired(refused));
  EXPECT_TRUE(*b_->Exists("/e"));  // the session lives on
  ASSERT_TRUE(b_->Set("/d", "changed").ok());
  zk_.DrainEvents();
  EXPECT_EQ(log.size(), 0u);  // missed, not lost
  zk_.ReconnectSession(a_->SessionId());
  zk_.DrainEvents();
  EXPECT_EQ(a_->State(), SessionState::kConnected);
  ASSERT_EQ(log.size(), 1u);
  EXPECT_EQ(log.events()[0].type, WatchEventType::kDataChanged);
  EXPECT_EQ(log.states(),
            (std::vector<SessionState>{SessionState::kDisconnected,
                                       SessionState::kConnected}));
  EXPECT_EQ(a_->Get("/d")->data, "changed");
}

TEST_F(ZnodeFakeEnsembleTest, StoppedEnsembleRefusesEverythingUntilStarted) {
  ASSERT_TRUE(a_->Create("/kept", "v").ok());
  ZnodeEventLog log;
  b_->AddSessionListener(log.Listen());
  zk_.Stop();
  EXPECT_TRUE(a_->Get("/kept").status().IsUnavailable());
  EXPECT_TRUE(b_->Create("/x", "").status().IsUnavailable());
  EXPECT_TRUE(zk_.Connect("/bloomroute/c1").status().IsUnavailable());
  EXPECT_EQ(b_->State(), SessionState::kDisconnected);
  zk_.Start();
  zk_.DrainEvents();
  EXPECT_EQ(b_->Get("/kept")->data, "v");
  EXPECT_EQ(log.states(),
            (std::vector<SessionState>{SessionState::kDisconnected,
                                       SessionState::kConnected}));
}

TEST_F(ZnodeFakeEnsembleTest, ExpiringADisconnectedSessionDropsWhatItMissed) {
  ASSERT_TRUE(b_->Create("/d", "").ok());
  ZnodeEventLog log;
  ASSERT_TRUE(a_->Get("/d", log.Watch()).ok());
  zk_.DisconnectSession(a_->SessionId());
  ASSERT_TRUE(b_->Set("/d", "x").ok());
  zk_.ExpireSession(a_->SessionId());
  zk_.ReconnectSession(a_->SessionId());  // too late: ignored
  zk_.DrainEvents();
  EXPECT_EQ(a_->State(), SessionState::kExpired);
  ASSERT_EQ(log.size(), 1u);
  EXPECT_EQ(log.events()[0].type, WatchEventType::kSessionExpired);
}

TEST_F(ZnodeFakeEnsembleTest, DrainEventsWaitsForCallbacksThatCallTheStore) {
  ASSERT_TRUE(a_->Create("/chain", "").ok());
  // Each event re-arms the watch from the callback and writes through b.
  int seen = 0;
  std::function<void(const WatchEvent&)> rearm = [&](const WatchEvent&) {
    if (++seen < 3) {
      ASSERT_TRUE(a_->Get("/chain", rearm).ok());
      ASSERT_TRUE(b_->Set("/chain", std::to_string(seen)).ok());
    }
  };
  ASSERT_TRUE(a_->Get("/chain", rearm).ok());
  ASSERT_TRUE(b_->Set("/chain", "0").ok());
  zk_.DrainEvents();
  EXPECT_EQ(seen, 3);
  EXPECT_EQ(a_->Get("/chain")->version, 3);
}

TEST_F(ZnodeFakeEnsembleTest, SessionIdsAreDeterministicAndNodesCounted) {
  FakeEnsemble other;
  auto first = std::move(*other.Connect());
  auto second = std::move(*other.Connect("/x/y"));
  FakeEnsemble again;
  auto first_again = std::move(*again.Connect());
  EXPECT_EQ(first->SessionId(), first_again->SessionId());
  EXPECT_NE(first->SessionId(), second->SessionId());
  // "/", "/zookeeper", "/x", "/x/y".
  EXPECT_EQ(other.NodeCount(), 4u);
  EXPECT_EQ(*first->Children("/"),
            (std::vector<std::string>{"x", "zookeeper"}));
}

}  // namespace
}  // namespace bloomroute::coord
