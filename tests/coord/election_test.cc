#include "coord/election.h"

#include <gtest/gtest.h>

#include <mutex>
#include <utility>
#include <vector>

#include "coord/fake_znode_store.h"
#include "coord/zk/zookeeper_store.h"
#include "tests/coord/znode_test_support.h"
#include "tests/coord/zookeeper_server.h"

namespace bloomroute::coord {
namespace {

using zktest::WaitFor;

// Every on_change call of one candidate.
class ElectionChanges {
 public:
  std::function<void(bool, int64_t)> Record() {
    return [this](bool leading, int64_t epoch) {
      std::lock_guard<std::mutex> lock(mutex_);
      changes_.emplace_back(leading, epoch);
    };
  }
  std::vector<std::pair<bool, int64_t>> changes() const {
    std::lock_guard<std::mutex> lock(mutex_);
    return changes_;
  }

 private:
  mutable std::mutex mutex_;
  std::vector<std::pair<bool, int64_t>> changes_;  // guarded by mutex_
};

std::unique_ptr<Election> JoinAs(ZnodeStore* store, const std::string& data,
                                 ElectionChanges* changes) {
  Election::Options options;
  options.path = "/coordinator/election";
  options.data = data;
  options.on_change = changes->Record();
  StatusOr<std::unique_ptr<Election>> joined = Election::Join(store, options);
  EXPECT_TRUE(joined.ok()) << joined.status().ToString();
  return joined.ok() ? std::move(*joined) : nullptr;
}

class ElectionOnFakeTest : public ::testing::Test {
 protected:
  void SetUp() override {
    for (int i = 0; i < 3; ++i) {
      stores_.push_back(std::move(*zk_.Connect("/bloomroute/c1")));
      elections_.push_back(JoinAs(stores_[i].get(),
                                  "router-" + std::to_string(i), &changes_[i]));
      ASSERT_NE(elections_[i], nullptr);
    }
    zk_.DrainEvents();
  }

  FakeEnsemble zk_;
  std::vector<std::unique_ptr<ZnodeStore>> stores_;
  ElectionChanges changes_[3];
  std::vector<std::unique_ptr<Election>> elections_;
};

TEST_F(ElectionOnFakeTest, LowestLeadsAndExpiryHandsOverWithAHigherEpoch) {
  EXPECT_TRUE(elections_[0]->IsLeader());
  EXPECT_FALSE(elections_[1]->IsLeader());
  EXPECT_FALSE(elections_[2]->IsLeader());
  int64_t first_epoch = elections_[0]->epoch();
  EXPECT_LT(first_epoch, elections_[1]->epoch());
  StatusOr<LeaderInfo> leader = elections_[2]->Leader();
  ASSERT_TRUE(leader.ok()) << leader.status().ToString();
  EXPECT_EQ(leader->data, "router-0");
  EXPECT_EQ(leader->epoch, first_epoch);
  EXPECT_EQ(leader->node, elections_[0]->node());

  zk_.ExpireSession(stores_[0]->SessionId());
  EXPECT_FALSE(elections_[0]->IsLeader());  // at once, before any event
  zk_.DrainEvents();
  EXPECT_TRUE(elections_[1]->IsLeader());
  EXPECT_FALSE(elections_[2]->IsLeader());
  EXPECT_GT(elections_[1]->epoch(), first_epoch);
  EXPECT_EQ(elections_[2]->Leader()->data, "router-1");
  EXPECT_EQ(changes_[0].changes(),
            (std::vector<std::pair<bool, int64_t>>{{true, first_epoch},
                                                   {false, first_epoch}}));
  EXPECT_EQ(
      changes_[1].changes(),
      (std::vector<std::pair<bool, int64_t>>{{true, elections_[1]->epoch()}}));
  EXPECT_TRUE(changes_[2].changes().empty());  // no herd: not woken to lead
  // The expired store is dead; its owner joins again with a new one, last.
  elections_[0].reset();  // before its store
  stores_[0] = std::move(*zk_.Connect("/bloomroute/c1"));
  ElectionChanges again;
  auto rejoined = JoinAs(stores_[0].get(), "router-0", &again);
  ASSERT_NE(rejoined, nullptr);
  EXPECT_GT(rejoined->epoch(), elections_[2]->epoch());
  EXPECT_FALSE(rejoined->IsLeader());
}

TEST_F(ElectionOnFakeTest, MiddleCandidateLeavingRelinksTheWatch) {
  ASSERT_TRUE(elections_[1]->Resign().ok());
  zk_.DrainEvents();
  EXPECT_TRUE(elections_[0]->IsLeader());
  EXPECT_FALSE(elections_[2]->IsLeader());
  EXPECT_TRUE(changes_[2].changes().empty());
  EXPECT_FALSE(*stores_[0]->Exists(elections_[1]->node()));
  // The last candidate now watches the first: it leads once that goes.
  elections_[0].reset();
  zk_.DrainEvents();
  EXPECT_TRUE(elections_[2]->IsLeader());
  EXPECT_EQ(elections_[2]->Leader()->data, "router-2");
}

TEST_F(ElectionOnFakeTest, DisconnectionSuspendsAndReconnectionResumes) {
  int64_t epoch = elections_[0]->epoch();
  zk_.DisconnectSession(stores_[0]->SessionId());
  EXPECT_FALSE(elections_[0]->IsLeader());
  zk_.DrainEvents();
  EXPECT_FALSE(elections_[1]->IsLeader());  // the session still holds
  zk_.ReconnectSession(stores_[0]->SessionId());
  zk_.DrainEvents();
  EXPECT_TRUE(elections_[0]->IsLeader());
  EXPECT_EQ(changes_[0].changes(),
            (std::vector<std::pair<bool, int64_t>>{
                {true, epoch}, {false, epoch}, {true, epoch}}));
}

TEST_F(ElectionOnFakeTest, WholeEnsembleDownLeavesNoLeaderUntilBack) {
  zk_.Stop();
  EXPECT_FALSE(elections_[0]->IsLeader());
  EXPECT_TRUE(elections_[0]->Leader().status().IsUnavailable());
  zk_.Start();
  zk_.DrainEvents();
  EXPECT_TRUE(elections_[0]->IsLeader());
  EXPECT_FALSE(elections_[1]->IsLeader());
}

TEST(ElectionInputTest, BadPathsAndSequenceNames) {
  FakeEnsemble zk;
  auto store = std::move(*zk.Connect());
  Election::Options options;
  options.path = "/";
  EXPECT_TRUE(
      Election::Join(store.get(), options).status().IsInvalidArgument());
  options.path = "relative";
  EXPECT_TRUE(
      Election::Join(store.get(), options).status().IsInvalidArgument());
  options.path = "/e";
  options.data = std::string(kMaxNodeBytes + 1, 'x');
  EXPECT_TRUE(
      Election::Join(store.get(), options).status().IsInvalidArgument());
  EXPECT_EQ(SequenceOf("n_0000000042"), 42);
  EXPECT_EQ(SequenceOf("n_2147483647"), 2147483647);
  EXPECT_EQ(SequenceOf("n_00000042"), -1);
  EXPECT_EQ(SequenceOf("n_00000x0042"), -1);
  // No candidate: NotFound.
  options.data = "only";
  auto election = std::move(*Election::Join(store.get(), options));
  ASSERT_TRUE(election->Resign().ok());
  EXPECT_TRUE(election->Leader().status().IsNotFound());
  EXPECT_FALSE(election->IsLeader());
}

TEST(ElectionOnZooKeeperTest, ExpiredLeaderHandsOverToTheNext) {
  auto server = zktest::ZooKeeperTestEnsemble::Start(1);
  ASSERT_TRUE(server.ok()) << server.status().ToString();
  ZooKeeperOptions options;
  options.hosts = (*server)->ConnectString();
  options.chroot = "/bloomroute/election";
  options.session_timeout = std::chrono::milliseconds(2000);
  auto first_store = ConnectZooKeeper(options);
  auto second_store = ConnectZooKeeper(options);
  ASSERT_TRUE(first_store.ok() && second_store.ok());
  ElectionChanges first_changes, second_changes;
  auto first = JoinAs(first_store->get(), "router-a", &first_changes);
  auto second = JoinAs(second_store->get(), "router-b", &second_changes);
  ASSERT_TRUE(first && second);
  ASSERT_TRUE(WaitFor([&] { return first->IsLeader(); }));
  EXPECT_FALSE(second->IsLeader());
  EXPECT_EQ(second->Leader()->data, "router-a");

  ASSERT_TRUE(ExpireZooKeeperSessionForTest(first_store->get(),
                                            std::chrono::milliseconds(5000))
                  .ok());
  ASSERT_TRUE(WaitFor([&] { return second->IsLeader(); }));
  EXPECT_GT(second->epoch(), first->epoch());
  EXPECT_EQ(second->Leader()->data, "router-b");
  // Told it lost, last (the second connection that ends the session may
  // first make it lose and win back its connection: suspended, resumed).
  EXPECT_EQ((*first_store)->State(), SessionState::kExpired);
  ASSERT_TRUE(WaitFor([&] {
    auto changes = first_changes.changes();
    return changes.size() >= 2 && !changes.back().first;
  }));
  EXPECT_EQ(first_changes.changes().front(),
            std::make_pair(true, first->epoch()));
  EXPECT_FALSE(first->IsLeader());
  (*server)->DumpLogsIfFailed();
}

}  // namespace
}  // namespace bloomroute::coord
