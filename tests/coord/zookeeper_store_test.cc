// The real store against a three-node ensemble: what only a real ZooKeeper
// shows (losing a node, losing them all, connecting to none). The behaviour
// it shares with the fake is in znode_store_test.cc.
#include "coord/zk/zookeeper_store.h"

#include <gtest/gtest.h>

#include "tests/coord/znode_test_support.h"
#include "tests/coord/zookeeper_server.h"

namespace bloomroute::coord {
namespace {

using std::chrono::milliseconds;
using zktest::WaitFor;
using zktest::ZooKeeperTestEnsemble;

class ZooKeeperEnsembleStoreTest : public ::testing::Test {
 protected:
  void SetUp() override {
    auto started = ZooKeeperTestEnsemble::Start(3);
    ASSERT_TRUE(started.ok()) << started.status().ToString();
    zk_ = std::move(*started);
    ZooKeeperOptions options;
    options.hosts = zk_->ConnectString();
    options.chroot = "/bloomroute/ensemble";
    options.session_timeout = milliseconds(4000);  // 20 ticks: the maximum
    auto store = ConnectZooKeeper(options);
    ASSERT_TRUE(store.ok()) << store.status().ToString();
    store_ = std::move(*store);
  }
  void TearDown() override {
    if (zk_) zk_->DumpLogsIfFailed();
  }

  std::unique_ptr<ZooKeeperTestEnsemble> zk_;
  std::unique_ptr<ZnodeStore> store_;
};

TEST_F(ZooKeeperEnsembleStoreTest, CallsStillWorkWithOneNodeOfThreeKilled) {
  ASSERT_TRUE(store_->Create("/a", "before").ok());
  int64_t session = store_->SessionId();
  ASSERT_TRUE(zk_->KillNode(0).ok());
  // The client may have been on the killed node: it moves to another, and
  // a call may be Unavailable meanwhile.
  ASSERT_TRUE(WaitFor([&] { return store_->Set("/a", "after").ok(); },
                      milliseconds(8000)));
  EXPECT_EQ(store_->Get("/a")->data, "after");
  EXPECT_TRUE(store_->Create("/b", "", CreateOptions{true, false}).ok());
  EXPECT_EQ(store_->SessionId(), session);
  EXPECT_EQ(store_->State(), SessionState::kConnected);
}

TEST_F(ZooKeeperEnsembleStoreTest, StopAllIsUnavailableAndRestartKeepsData) {
  ASSERT_TRUE(store_->Create("/p", "persistent").ok());
  ASSERT_TRUE(store_->Create("/e", "", CreateOptions{true, false}).ok());
  int64_t session = store_->SessionId();
  ASSERT_TRUE(zk_->StopAll().ok());
  ASSERT_TRUE(
      WaitFor([&] { return store_->State() == SessionState::kDisconnected; }));
  Status down = store_->Get("/p").status();
  EXPECT_TRUE(down.IsUnavailable()) << down.ToString();
  EXPECT_FALSE(IsSessionExpired(down));
  ASSERT_TRUE(zk_->StartAll().ok());
  // The restarted servers give known sessions a whole timeout again: the
  // client resumes its session, or learns it expired.
  ASSERT_TRUE(
      WaitFor([&] { return store_->State() != SessionState::kDisconnected; },
              milliseconds(15000)));
  ZooKeeperOptions options;
  options.hosts = zk_->ConnectString();
  options.chroot = "/bloomroute/ensemble";
  auto fresh = ConnectZooKeeper(options);
  ASSERT_TRUE(fresh.ok()) << fresh.status().ToString();
  EXPECT_EQ((*fresh)->Get("/p")->data, "persistent");
  if (store_->State() == SessionState::kConnected) {
    EXPECT_EQ(store_->SessionId(), session);
    EXPECT_TRUE(*(*fresh)->Exists("/e"));  // its ephemeral lives on
    EXPECT_EQ(store_->Get("/p")->data, "persistent");
  } else {
    EXPECT_TRUE(WaitFor([&] { return !*(*fresh)->Exists("/e"); }));
  }
}

TEST(ZooKeeperPausedServerTest, StoreDisconnectsAndResumesItsSession) {
  auto started = ZooKeeperTestEnsemble::Start(1);
  ASSERT_TRUE(started.ok()) << started.status().ToString();
  std::unique_ptr<ZooKeeperTestEnsemble> zk = std::move(*started);
  ZooKeeperOptions options;
  options.hosts = zk->ConnectString();
  options.chroot = "/bloomroute/paused";
  options.session_timeout = milliseconds(4000);
  auto store = ConnectZooKeeper(options);
  ASSERT_TRUE(store.ok()) << store.status().ToString();
  ZnodeStore& s = **store;
  zktest::ZnodeEventLog log;
  s.AddSessionListener(log.Listen());
  ASSERT_TRUE(s.Create("/e", "", CreateOptions{true, false}).ok());
  int64_t session = s.SessionId();
  ASSERT_TRUE(zk->PauseNode(0).ok());
  // Two thirds of the timeout without an answer: the client gives up on
  // the connection, and calls fail fast rather than wait.
  ASSERT_TRUE(WaitFor([&] { return s.State() == SessionState::kDisconnected; },
                      milliseconds(4000)));
  auto before = std::chrono::steady_clock::now();
  EXPECT_TRUE(s.Get("/e").status().IsUnavailable());
  EXPECT_LT(std::chrono::steady_clock::now() - before, milliseconds(500));
  ASSERT_TRUE(zk->ResumeNode(0).ok());
  ASSERT_TRUE(WaitFor([&] { return s.State() == SessionState::kConnected; }));
  EXPECT_EQ(s.SessionId(), session);
  EXPECT_TRUE(*s.Exists("/e"));  // the session, and its ephemeral, held
  ASSERT_TRUE(WaitFor([&] { return log.states().size() >= 2; }));
  EXPECT_EQ(log.states(),
            (std::vector<SessionState>{SessionState::kDisconnected,
                                       SessionState::kConnected}));
  zk->DumpLogsIfFailed();
}

TEST(ZnodeConnectZooKeeperTest, NoServerIsUnavailableNamingTheHosts) {
  // A port nobody listens on: the harness's way of picking one, unstarted.
  ZooKeeperOptions options;
  options.hosts = "127.0.0.1:1";
  options.chroot = "/bloomroute/none";
  options.connect_timeout = milliseconds(300);
  auto store = ConnectZooKeeper(options);
  ASSERT_FALSE(store.ok());
  EXPECT_TRUE(store.status().IsUnavailable()) << store.status().ToString();
  EXPECT_NE(store.status().message().find("127.0.0.1:1"), std::string::npos);
  options.hosts = "";
  EXPECT_TRUE(ConnectZooKeeper(options).status().IsInvalidArgument());
  options.hosts = "127.0.0.1:1";
  options.chroot = "relative";
  EXPECT_TRUE(ConnectZooKeeper(options).status().IsInvalidArgument());
}

}  // namespace
}  // namespace bloomroute::coord
