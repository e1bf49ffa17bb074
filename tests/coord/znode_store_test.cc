// The ZnodeStore conformance suite: the same tests against the in-process
// fake and a real standalone ZooKeeper (one server per test process; each
// test in its own chroot).
#include "coord/znode_store.h"

#include <gtest/gtest.h>

#include <memory>
#include <string>

#include "coord/fake_znode_store.h"
#include "coord/zk/zookeeper_store.h"
#include "tests/coord/znode_test_support.h"
#include "tests/coord/zookeeper_server.h"

namespace bloomroute::coord {
namespace {

using std::chrono::milliseconds;
using zktest::WaitFor;
using zktest::ZnodeEventLog;

struct ZnodeFakeBackend {
  static void SetUpSuite() {}
  static void TearDownSuite() {}
  Status Ready() const { return Status::OK(); }
  StatusOr<std::unique_ptr<ZnodeStore>> Connect(const std::string& chroot,
                                                milliseconds timeout) {
    return ensemble.Connect(chroot, timeout);
  }
  Status Expire(ZnodeStore* store) {
    ensemble.ExpireSession(store->SessionId());
    return Status::OK();
  }
  void DumpLogsIfFailed() const {}

  FakeEnsemble ensemble;
};

struct ZnodeZooKeeperBackend {
  static void SetUpSuite() {
    auto started = zktest::ZooKeeperTestEnsemble::Start(1);
    if (started.ok()) {
      server() = std::move(*started);
    } else {
      start_status() = started.status();
    }
  }
  static void TearDownSuite() { server().reset(); }
  static std::unique_ptr<zktest::ZooKeeperTestEnsemble>& server() {
    static auto* s = new std::unique_ptr<zktest::ZooKeeperTestEnsemble>();
    return *s;
  }
  static Status& start_status() {
    static auto* s = new Status();
    return *s;
  }
  Status Ready() const { return server() ? Status::OK() : start_status(); }
  StatusOr<std::unique_ptr<ZnodeStore>> Connect(const std::string& chroot,
                                                milliseconds timeout) {
    ZooKeeperOptions options;
    options.hosts = server()->ConnectString();
    options.chroot = chroot;
    options.session_timeout = timeout;
    return ConnectZooKeeper(options);
  }
  Status Expire(ZnodeStore* store) {
    return ExpireZooKeeperSessionForTest(store, milliseconds(5000));
  }
  void DumpLogsIfFailed() const {
    if (server()) server()->DumpLogsIfFailed();
  }
};

template <typename Backend>
class ZnodeStoreConformance : public ::testing::Test {
 protected:
  static void SetUpTestSuite() { Backend::SetUpSuite(); }
  static void TearDownTestSuite() { Backend::TearDownSuite(); }

  void SetUp() override {
    Status ready = backend_.Ready();
    ASSERT_TRUE(ready.ok()) << ready.ToString();
    const auto* info = ::testing::UnitTest::GetInstance()->current_test_info();
    chroot_ = std::string("/bloomroute/") + info->name();
    store_ = Connect();
    ASSERT_NE(store_, nullptr);
  }
  void TearDown() override { backend_.DumpLogsIfFailed(); }

  std::unique_ptr<ZnodeStore> Connect(const std::string& suffix = "") {
    auto store = backend_.Connect(chroot_ + suffix, milliseconds(4000));
    EXPECT_TRUE(store.ok()) << store.status().ToString();
    return store.ok() ? std::move(*store) : nullptr;
  }

  Backend backend_;
  std::string chroot_;
  std::unique_ptr<ZnodeStore> store_;
};

struct ZnodeBackendNames {
  template <typename T>
  static std::string GetName(int) {
    return std::is_same_v<T, ZnodeFakeBackend> ? "Fake" : "ZooKeeper";
  }
};

using ZnodeBackends = ::testing::Types<ZnodeFakeBackend, ZnodeZooKeeperBackend>;
TYPED_TEST_SUITE(ZnodeStoreConformance, ZnodeBackends, ZnodeBackendNames);

TYPED_TEST(ZnodeStoreConformance, CreateGetSetWithVersions) {
  ZnodeStore& s = *this->store_;
  ASSERT_EQ(*s.Create("/a", "one"), "/a");
  StatusOr<ZnodeData> got = s.Get("/a");
  ASSERT_TRUE(got.ok()) << got.status().ToString();
  EXPECT_EQ(got->data, "one");
  EXPECT_EQ(got->version, 0);
  EXPECT_FALSE(got->ephemeral());
  EXPECT_EQ(*s.Set("/a", "two", 0), 1);
  StatusOr<int32_t> stale = s.Set("/a", "three", 0);
  EXPECT_TRUE(IsBadVersion(stale.status())) << stale.status().ToString();
  EXPECT_EQ(s.Get("/a")->data, "two");
  EXPECT_EQ(*s.Set("/a", "", kAnyVersion), 2);
  EXPECT_EQ(s.Get("/a")->data, "");
  EXPECT_TRUE(IsNodeExists(s.Create("/a", "again").status()));
  EXPECT_TRUE(s.Get("/missing").status().IsNotFound());
  EXPECT_TRUE(s.Create("/missing/child", "").status().IsNotFound());
  EXPECT_TRUE(s.Set("/missing", "x").status().IsNotFound());
  EXPECT_TRUE(IsBadVersion(s.Delete("/a", 1)));
  EXPECT_TRUE(s.Delete("/a", 2).ok());
  EXPECT_TRUE(s.Get("/a").status().IsNotFound());
  EXPECT_TRUE(s.Delete("/a").IsNotFound());
  for (const char* bad : {"a", "/a/", "//a", "/a/./b", "/a/../b", ""}) {
    EXPECT_TRUE(s.Create(bad, "").status().IsInvalidArgument()) << bad;
    EXPECT_TRUE(s.Get(bad).status().IsInvalidArgument()) << bad;
  }
}

TYPED_TEST(ZnodeStoreConformance, SequentialNamesFollowTheParentsCounter) {
  ZnodeStore& s = *this->store_;
  ASSERT_TRUE(s.Create("/q", "").ok());
  CreateOptions sequential{false, true};
  EXPECT_EQ(*s.Create("/q/n_", "a", sequential), "/q/n_0000000000");
  EXPECT_EQ(*s.Create("/q/n_", "b", sequential), "/q/n_0000000001");
  ASSERT_TRUE(s.Create("/q/plain", "").ok());  // counts too
  ASSERT_TRUE(s.Delete("/q/plain").ok());      // a deletion does not
  EXPECT_EQ(*s.Create("/q/m_", "c", sequential), "/q/m_0000000003");
  EXPECT_EQ(s.Get("/q/n_0000000001")->data, "b");
  std::vector<std::string> children = *s.Children("/q");
  EXPECT_EQ(children, (std::vector<std::string>{"m_0000000003", "n_0000000000",
                                                "n_0000000001"}));
}

TYPED_TEST(ZnodeStoreConformance, EphemeralVanishesWhenItsStoreCloses) {
  ZnodeStore& s = *this->store_;
  std::unique_ptr<ZnodeStore> other = this->Connect();
  ASSERT_NE(other, nullptr);
  ASSERT_NE(other->SessionId(), s.SessionId());
  ASSERT_TRUE(other->Create("/e", "mine", CreateOptions{true, false}).ok());
  StatusOr<ZnodeData> seen = s.Get("/e");
  ASSERT_TRUE(seen.ok());
  EXPECT_EQ(seen->ephemeral_owner, other->SessionId());
  EXPECT_TRUE(other->Create("/e/child", "").status().IsInvalidArgument());
  ZnodeEventLog log;
  ASSERT_TRUE(*s.Exists("/e", log.Watch()));
  other.reset();
  ASSERT_TRUE(log.WaitEvents(1));
  EXPECT_EQ(log.events()[0].type, WatchEventType::kDeleted);
  EXPECT_EQ(log.events()[0].path, "/e");
  EXPECT_FALSE(*s.Exists("/e"));
}

TYPED_TEST(ZnodeStoreConformance, ExpiredSessionLosesEphemeralsAndStaysDead) {
  ZnodeStore& s = *this->store_;
  std::unique_ptr<ZnodeStore> doomed = this->Connect();
  ASSERT_NE(doomed, nullptr);
  ASSERT_TRUE(doomed->Create("/lease", "", CreateOptions{true, false}).ok());
  ASSERT_TRUE(s.Create("/watched", "").ok());
  ZnodeEventLog doomed_log;
  ASSERT_TRUE(doomed->Get("/watched", doomed_log.Watch()).ok());
  doomed->AddSessionListener(doomed_log.Listen());
  ZnodeEventLog log;
  ASSERT_TRUE(*s.Exists("/lease", log.Watch()));

  ASSERT_TRUE(this->backend_.Expire(doomed.get()).ok());
  ASSERT_TRUE(log.WaitEvents(1));
  EXPECT_EQ(log.events()[0].type, WatchEventType::kDeleted);
  EXPECT_FALSE(*s.Exists("/lease"));
  // The doomed store hears of it when it next reaches a server.
  ASSERT_TRUE(WaitFor([&] {
    (void)doomed->Exists("/watched");
    return doomed->State() == SessionState::kExpired;
  }));
  ASSERT_TRUE(doomed_log.WaitEvents(1));
  EXPECT_EQ(doomed_log.events()[0].type, WatchEventType::kSessionExpired);
  EXPECT_EQ(doomed_log.events()[0].path, "/watched");
  ASSERT_TRUE(WaitFor([&] { return !doomed_log.states().empty(); }));
  EXPECT_EQ(doomed_log.states().back(), SessionState::kExpired);
  Status refused = doomed->Create("/after", "").status();
  EXPECT_TRUE(IsSessionExpired(refused)) << refused.ToString();
  EXPECT_TRUE(IsSessionExpired(doomed->Get("/watched").status()));
  EXPECT_TRUE(s.Set("/watched", "still fine").ok());  // others unaffected
}

TYPED_TEST(ZnodeStoreConformance, MultiAppliesAllOrNothing) {
  ZnodeStore& s = *this->store_;
  ASSERT_TRUE(s.Create("/m", "v0").ok());
  size_t failed = 99;
  StatusOr<std::vector<std::string>> r =
      s.Multi({ZnodeOp::Create("/m/a", "x"), ZnodeOp::Set("/m", "v1", 0),
               ZnodeOp::Check("/m", 5)},
              &failed);
  EXPECT_TRUE(IsBadVersion(r.status())) << r.status().ToString();
  EXPECT_EQ(failed, 2u);
  EXPECT_FALSE(*s.Exists("/m/a"));
  EXPECT_EQ(s.Get("/m")->version, 0);
  r = s.Multi({ZnodeOp::Set("/m", "v1"), ZnodeOp::Delete("/m/none")}, &failed);
  EXPECT_TRUE(r.status().IsNotFound()) << r.status().ToString();
  EXPECT_EQ(failed, 1u);
  EXPECT_EQ(s.Get("/m")->data, "v0");
  r = s.Multi({ZnodeOp::Create("/m/b", ""), ZnodeOp::Create("/m/b", "")},
              &failed);
  EXPECT_TRUE(IsNodeExists(r.status())) << r.status().ToString();
  EXPECT_EQ(failed, 1u);

  r = s.Multi({ZnodeOp::Check("/m", 0),
               ZnodeOp::Create("/m/s_", "", CreateOptions{false, true}),
               ZnodeOp::Set("/m", "v1", 0)},
              &failed);
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_EQ(*r, (std::vector<std::string>{"", "/m/s_0000000000", ""}));
  EXPECT_EQ(s.Get("/m")->version, 1);
  EXPECT_TRUE(s.Multi({}, &failed).status().IsInvalidArgument());
}

TYPED_TEST(ZnodeStoreConformance, WatchesFireOnce) {
  ZnodeStore& s = *this->store_;
  ASSERT_TRUE(s.Create("/w", "").ok());
  ZnodeEventLog data, children, created, later;
  ASSERT_TRUE(s.Get("/w", data.Watch()).ok());
  ASSERT_TRUE(s.Children("/w", children.Watch()).ok());
  ASSERT_FALSE(*s.Exists("/new", created.Watch()));
  ASSERT_TRUE(s.Set("/w", "1").ok());
  ASSERT_TRUE(s.Set("/w", "2").ok());
  ASSERT_TRUE(s.Create("/w/c1", "").ok());
  ASSERT_TRUE(s.Create("/w/c2", "").ok());
  ASSERT_TRUE(s.Create("/new", "").ok());
  // Events arrive in order: once this last watch fired, the others have.
  ASSERT_TRUE(s.Get("/new", later.Watch()).ok());
  ASSERT_TRUE(s.Delete("/new").ok());
  ASSERT_TRUE(later.WaitEvents(1));
  ASSERT_EQ(data.size(), 1u);
  EXPECT_EQ(data.events()[0].type, WatchEventType::kDataChanged);
  EXPECT_EQ(data.events()[0].path, "/w");
  ASSERT_EQ(children.size(), 1u);
  EXPECT_EQ(children.events()[0].type, WatchEventType::kChildrenChanged);
  ASSERT_EQ(created.size(), 1u);
  EXPECT_EQ(created.events()[0].type, WatchEventType::kCreated);
  EXPECT_EQ(later.events()[0].type, WatchEventType::kDeleted);
  EXPECT_EQ(later.events()[0].path, "/new");
  // No watch is set by a read that fails.
  ZnodeEventLog none;
  EXPECT_TRUE(s.Get("/absent", none.Watch()).status().IsNotFound());
  EXPECT_TRUE(s.Children("/absent", none.Watch()).status().IsNotFound());
  ASSERT_TRUE(s.Create("/absent", "").ok());
  ASSERT_TRUE(s.Get("/absent", later.Watch()).ok());
  ASSERT_TRUE(s.Set("/absent", "x").ok());
  ASSERT_TRUE(later.WaitEvents(2));
  EXPECT_EQ(none.size(), 0u);
}

TYPED_TEST(ZnodeStoreConformance, WatchKindsFireOnTheirOwnChanges) {
  ZnodeStore& s = *this->store_;
  ASSERT_TRUE(s.Create("/k", "").ok());
  ASSERT_TRUE(s.Create("/k/child", "").ok());
  ZnodeEventLog exists, children_of_child, data_of_parent;
  ASSERT_TRUE(*s.Exists("/k/child", exists.Watch()));
  ASSERT_TRUE(s.Children("/k/child", children_of_child.Watch()).ok());
  ASSERT_TRUE(s.Get("/k", data_of_parent.Watch()).ok());
  ASSERT_TRUE(s.Set("/k/child", "x").ok());  // the exists watch only
  ASSERT_TRUE(exists.WaitEvents(1));
  EXPECT_EQ(exists.events()[0].type, WatchEventType::kDataChanged);
  ASSERT_TRUE(s.Delete("/k/child").ok());  // its children watch too
  ASSERT_TRUE(children_of_child.WaitEvents(1));
  EXPECT_EQ(children_of_child.events()[0].type, WatchEventType::kDeleted);
  EXPECT_EQ(children_of_child.events()[0].path, "/k/child");
  // A child's coming and going is no change of the parent's data.
  ASSERT_TRUE(s.Set("/k", "now").ok());
  ASSERT_TRUE(data_of_parent.WaitEvents(1));
  EXPECT_EQ(data_of_parent.events()[0].type, WatchEventType::kDataChanged);
  EXPECT_EQ(exists.size(), 1u);
}

TYPED_TEST(ZnodeStoreConformance, ChildrenAreSortedAndDeleteNeedsNone) {
  ZnodeStore& s = *this->store_;
  ASSERT_TRUE(s.Create("/c", "").ok());
  for (const char* name : {"/c/b", "/c/a", "/c/c", "/c/a0"}) {
    ASSERT_TRUE(s.Create(name, "").ok());
  }
  ASSERT_TRUE(s.Create("/c/a/deeper", "").ok());
  EXPECT_EQ(*s.Children("/c"), (std::vector<std::string>{"a", "a0", "b", "c"}));
  EXPECT_TRUE(s.Children("/nothing").status().IsNotFound());
  Status busy = s.Delete("/c");
  EXPECT_TRUE(busy.IsAborted()) << busy.ToString();
  EXPECT_FALSE(IsBadVersion(busy));
  EXPECT_TRUE(s.Children("/c/b")->empty());
}

TYPED_TEST(ZnodeStoreConformance, ChrootsIsolateClusters) {
  std::unique_ptr<ZnodeStore> x = this->Connect("-x");
  std::unique_ptr<ZnodeStore> y = this->Connect("-y");
  ASSERT_NE(x, nullptr);
  ASSERT_NE(y, nullptr);
  ASSERT_TRUE(x->Create("/only", "x").ok());
  EXPECT_FALSE(*y->Exists("/only"));
  EXPECT_EQ(*x->Children("/"), std::vector<std::string>{"only"});
  EXPECT_TRUE(y->Children("/")->empty());
  ASSERT_TRUE(y->Create("/only", "y").ok());
  EXPECT_EQ(x->Get("/only")->data, "x");
  EXPECT_TRUE(this->backend_.Connect(this->chroot_ + "/..", milliseconds(4000))
                  .status()
                  .IsInvalidArgument());
}

TYPED_TEST(ZnodeStoreConformance, SizeBoundRefusedBeforeSending) {
  ZnodeStore& s = *this->store_;
  std::string too_big(kMaxNodeBytes + 1, 'x');
  EXPECT_TRUE(s.Create("/big", too_big).status().IsInvalidArgument());
  ASSERT_TRUE(s.Create("/big", "").ok());
  EXPECT_TRUE(s.Set("/big", too_big).status().IsInvalidArgument());
  std::string half(kMaxNodeBytes / 2 + 1, 'h');
  size_t failed = 0;
  EXPECT_TRUE(
      s.Multi({ZnodeOp::Set("/big", half), ZnodeOp::Set("/big", half)}, &failed)
          .status()
          .IsInvalidArgument());
  // The bound itself fits ZooKeeper's default jute.maxbuffer, and data
  // larger than the first read's buffer comes back whole.
  std::string largest(kMaxNodeBytes, 'm');
  largest[12345] = 'z';
  ASSERT_TRUE(s.Set("/big", largest).ok());
  EXPECT_EQ(s.Get("/big")->data, largest);
}

TYPED_TEST(ZnodeStoreConformance, SessionIsConnectedWithItsTimeout) {
  ZnodeStore& s = *this->store_;
  EXPECT_EQ(s.State(), SessionState::kConnected);
  EXPECT_NE(s.SessionId(), 0);
  EXPECT_GT(s.SessionTimeout().count(), 0);
  EXPECT_LE(s.SessionTimeout().count(), 4000);
  std::unique_ptr<ZnodeStore> other = this->Connect();
  ASSERT_NE(other, nullptr);
  EXPECT_NE(other->SessionId(), s.SessionId());
}

}  // namespace
}  // namespace bloomroute::coord
