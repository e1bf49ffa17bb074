// ZnodeCatalogStore: the CatalogStore contract over the fake ensemble and a
// real ZooKeeper (catalog survives reopen, ids never reused, records of any
// size), and what only a shared catalog has to do: two routers' changes
// both land and each sees the other's, reads go on while ZooKeeper is down,
// and an expired session is replaced.
#include "coord/catalog/zk_catalog_store.h"

#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <thread>

#include "coord/fake_znode_store.h"
#include "coord/zk/zookeeper_store.h"
#include "router/cluster_id.h"
#include "router/page_token.h"
#include "tests/coord/zookeeper_server.h"

namespace bloomroute::coord {
namespace {

using router::CatalogStore;
using router::CatalogTable;

CatalogTable Table(uint64_t id, std::string name, size_t regions = 2,
                   size_t key_bytes = 1) {
  CatalogTable t;
  t.descriptor.table_id = id;
  t.descriptor.name = std::move(name);
  t.descriptor.indexed_columns = {{1, "d:a"}};
  for (size_t i = 0; i < regions; ++i) {
    std::string start =
        i == 0 ? "" : std::string(key_bytes, 'a') + std::to_string(1000000 + i);
    std::string end = i + 1 == regions ? ""
                                       : std::string(key_bytes, 'a') +
                                             std::to_string(1000000 + i + 1);
    t.regions.push_back({id * 100000 + i, start, end, 1});
  }
  return t;
}

// Polls `done` for up to 10 s: a change made through one store reaches
// another by a watch, on its event thread.
template <typename F>
bool Eventually(F done) {
  for (int i = 0; i < 1000; ++i) {
    if (done()) return true;
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  return done();
}

// Stores over one fake ensemble, or over one real ZooKeeper server.
class ZnodeCatalogBackend {
 public:
  virtual ~ZnodeCatalogBackend() = default;
  virtual StatusOr<std::unique_ptr<ZnodeStore>> Connect() = 0;
  StatusOr<std::unique_ptr<CatalogStore>> Open(size_t chunk_bytes = 0) {
    ZnodeCatalogOptions options;
    options.connect = [this] { return Connect(); };
    if (chunk_bytes != 0) options.chunk_bytes = chunk_bytes;
    return OpenZnodeCatalog(std::move(options));
  }
};

class FakeBackend : public ZnodeCatalogBackend {
 public:
  StatusOr<std::unique_ptr<ZnodeStore>> Connect() override {
    StatusOr<std::unique_ptr<ZnodeStore>> s = ensemble.Connect("/bloomroute/c");
    if (s.ok()) last_session = (*s)->SessionId();
    return s;
  }
  FakeEnsemble ensemble;
  std::atomic<int64_t> last_session{0};
};

class RealBackend : public ZnodeCatalogBackend {
 public:
  StatusOr<std::unique_ptr<ZnodeStore>> Connect() override {
    ZooKeeperOptions o;
    o.hosts = server->ConnectString();
    o.chroot = "/bloomroute/c";
    o.session_timeout = std::chrono::milliseconds(4000);
    return ConnectZooKeeper(o);
  }
  std::unique_ptr<zktest::ZooKeeperTestEnsemble> server;
};

constexpr char kClusterId[] = "3f1c2a9e-7b4d-4e8f-9a01-23456789abcd";

// The contract every store keeps, run over the fake and the real store.
void ChecksPersistenceAndIds(ZnodeCatalogBackend& backend) {
  const std::string key(router::kPageTokenKeyBytes, 'k');
  uint64_t table_id = 0;
  {
    auto c = std::move(backend.Open()).value();
    EXPECT_EQ(*c->AddServer("a:1"), 1u);
    EXPECT_EQ(*c->AddServer("b:2"), 2u);
    EXPECT_EQ(*c->AddServer("a:1"), 1u);  // a member keeps its id
    ASSERT_TRUE(c->SetServerAddress(2, "c:3").ok());
    EXPECT_TRUE(c->SetServerAddress(2, "a:1").IsInvalidArgument());
    EXPECT_TRUE(c->RemoveServer(9).IsNotFound());
    table_id = c->NextTableId();
    ASSERT_TRUE(c->PutTable(Table(table_id, "t")).ok());
    EXPECT_TRUE(c->PutTable(Table(table_id + 1, "t")).IsInvalidArgument());
    EXPECT_EQ(*c->RecordRouterStart(), 1u);
    EXPECT_EQ(*c->PageTokenKey(key), key);
    EXPECT_EQ(*c->ClusterId(kClusterId), kClusterId);
    router::Quota q;
    q.user = "u";
    q.table = "t";
    q.requests = {5, 1};
    ASSERT_TRUE(c->PutQuota(q).ok());
  }
  auto c = std::move(backend.Open()).value();
  ASSERT_EQ(c->Servers().size(), 2u);
  EXPECT_EQ(c->Servers()[1].address, "c:3");
  ASSERT_EQ(c->Tables()->size(), 1u);
  EXPECT_EQ((*c->Tables())[0], Table(table_id, "t"));
  EXPECT_EQ(*c->RecordRouterStart(), 2u);
  EXPECT_EQ(*c->PageTokenKey(std::string(router::kPageTokenKeyBytes, 'x')),
            key);
  // The cluster id was stored once: a reopened store keeps it.
  EXPECT_EQ(*c->ClusterId(*router::NewClusterId()), kClusterId);
  EXPECT_TRUE(c->ClusterId("not-a-uuid").status().IsInvalidArgument());
  ASSERT_EQ(c->Quotas()->size(), 1u);
  EXPECT_EQ((*c->Quotas())[0].requests.amount, 5u);
  // Ids written before are never handed out again.
  EXPECT_GT(c->NextTableId(), table_id);
  EXPECT_EQ(*c->AddServer("d:4"), 3u);
  ASSERT_TRUE(c->DeleteTable(table_id).ok());
  EXPECT_TRUE(c->Tables()->empty());
}

class ZnodeCatalogFakeTest : public ::testing::Test {
 protected:
  FakeBackend backend_;
};

TEST_F(ZnodeCatalogFakeTest, KeepsTheContractAcrossReopen) {
  ChecksPersistenceAndIds(backend_);
}

// A record larger than one Multi is written as chunks of a new generation,
// then switched to; replacing it removes the old chunks.
TEST_F(ZnodeCatalogFakeTest, RecordsLargerThanOneMultiRoundTrip) {
  const CatalogTable big = Table(7, "big", 1024, 900);  // ~1.8 MB
  {
    auto c = std::move(backend_.Open(64 << 10)).value();
    ASSERT_TRUE(c->PutTable(big).ok());
  }
  auto c = std::move(backend_.Open(64 << 10)).value();
  ASSERT_EQ(c->Tables()->size(), 1u);
  EXPECT_EQ((*c->Tables())[0], big);
  const size_t nodes_big = backend_.ensemble.NodeCount();
  ASSERT_TRUE(c->PutTable(Table(7, "big")).ok());
  EXPECT_LT(backend_.ensemble.NodeCount(), nodes_big);
  auto again = std::move(backend_.Open()).value();
  EXPECT_EQ((*again->Tables())[0], Table(7, "big"));
}

// Two routers: each change lands (the ids' compare-and-set makes the later
// one reload and apply again), ids stay distinct, and each router sees the
// other's changes through the watch.
TEST_F(ZnodeCatalogFakeTest, TwoRoutersChangesBothLandAndAreSeen) {
  auto a = std::move(backend_.Open()).value();
  auto b = std::move(backend_.Open()).value();
  const StatusOr<router::ServerId> from_a = a->AddServer("a:1");
  const StatusOr<router::ServerId> from_b = b->AddServer("b:1");
  ASSERT_TRUE(from_a.ok() && from_b.ok());
  EXPECT_NE(*from_a, *from_b);
  ASSERT_TRUE(a->PutTable(Table(a->NextTableId(), "ta")).ok());
  ASSERT_TRUE(Eventually([&] { return b->Tables()->size() == 1; }));
  ASSERT_TRUE(b->PutTable(Table(b->NextTableId(), "tb")).ok());
  EXPECT_TRUE(Eventually([&] { return a->Tables()->size() == 2; }));
  EXPECT_TRUE(Eventually([&] { return a->Servers().size() == 2; }));
  EXPECT_TRUE(a->PutTable(Table(a->NextTableId(), "tb")).IsInvalidArgument());
  const uint64_t first = *a->RecordRouterStart();
  EXPECT_EQ(*b->RecordRouterStart(), first + 1);
}

// Two routers offering different fresh ids at once: both answer the one
// stored first (HBase's getClusterId names the cluster, not the router).
TEST_F(ZnodeCatalogFakeTest, TwoRoutersAgreeOnTheClusterId) {
  auto a = std::move(backend_.Open()).value();
  auto b = std::move(backend_.Open()).value();
  const std::string from_a = *a->ClusterId(*router::NewClusterId());
  EXPECT_TRUE(router::IsClusterId(from_a));
  EXPECT_EQ(*b->ClusterId(*router::NewClusterId()), from_a);
  EXPECT_EQ(*a->ClusterId(*router::NewClusterId()), from_a);
}

// Two routers that reserved the same table id: the second write is refused
// and the first table stays as written.
TEST_F(ZnodeCatalogFakeTest, ATableIdReservedTwiceIsNotOverwritten) {
  auto a = std::move(backend_.Open()).value();
  auto b = std::move(backend_.Open()).value();
  const uint64_t id_a = a->NextTableId();
  const uint64_t id_b = b->NextTableId();
  ASSERT_EQ(id_a, id_b);
  ASSERT_TRUE(a->PutTable(Table(id_a, "ta")).ok());
  EXPECT_TRUE(b->PutTable(Table(id_b, "tb")).IsAborted());
  auto c = std::move(backend_.Open()).value();
  ASSERT_EQ(c->Tables()->size(), 1u);
  EXPECT_EQ((*c->Tables())[0].descriptor.name, "ta");
}

// ZooKeeper down: the last catalog is still read; changes fail and are not
// applied; everything resumes when it is back.
TEST_F(ZnodeCatalogFakeTest, ReadsGoOnWhileTheEnsembleIsDown) {
  auto c = std::move(backend_.Open()).value();
  ASSERT_TRUE(c->PutTable(Table(c->NextTableId(), "t")).ok());
  backend_.ensemble.Stop();
  EXPECT_EQ(c->Tables()->size(), 1u);
  EXPECT_TRUE(c->PutTable(Table(c->NextTableId(), "u")).IsUnavailable());
  EXPECT_EQ(c->Tables()->size(), 1u);
  backend_.ensemble.Start();
  ASSERT_TRUE(c->PutTable(Table(c->NextTableId(), "u")).ok());
  EXPECT_EQ(c->Tables()->size(), 2u);
}

// An expired session is replaced: changes work again and the other
// router's changes made meanwhile are loaded.
TEST_F(ZnodeCatalogFakeTest, AnExpiredSessionIsReplaced) {
  auto a = std::move(backend_.Open()).value();
  const int64_t a_session = backend_.last_session;
  auto b = std::move(backend_.Open()).value();
  backend_.ensemble.ExpireSession(a_session);
  ASSERT_TRUE(b->PutTable(Table(b->NextTableId(), "from_b")).ok());
  EXPECT_TRUE(Eventually([&] { return a->Tables()->size() == 1; }));
  ASSERT_TRUE(a->PutTable(Table(a->NextTableId(), "from_a")).ok());
  EXPECT_TRUE(Eventually([&] { return b->Tables()->size() == 2; }));
}

// Namespaces: one chunked record, replaced atomically; kept across reopen,
// seen by a second router, forgotten by DeleteNamespace; bounded.
TEST_F(ZnodeCatalogFakeTest, NamespacesArePutDeletedAndSurviveReopen) {
  router::CatalogNamespace geo{"geo", {{"owner", "ops"}}};
  {
    auto a = std::move(backend_.Open()).value();
    auto b = std::move(backend_.Open()).value();
    EXPECT_TRUE(a->Namespaces()->empty());
    ASSERT_TRUE(a->PutNamespace(geo).ok());
    ASSERT_TRUE(a->PutNamespace({"apps", {}}).ok());
    geo.configuration["hbase.namespace.quota.maxtables"] = "5";
    ASSERT_TRUE(b->PutNamespace(geo).ok());  // b reloads, then applies
    EXPECT_TRUE(Eventually([&] {
      return a->Namespaces()->size() == 2 && (*a->Namespaces())[1] == geo;
    }));
    router::CatalogNamespace big{"big", {{"k", std::string(65 << 10, 'v')}}};
    EXPECT_TRUE(a->PutNamespace(big).IsInvalidArgument());
  }
  auto c = std::move(backend_.Open()).value();
  ASSERT_EQ(c->Namespaces()->size(), 2u);
  EXPECT_EQ((*c->Namespaces())[0].name, "apps");  // by name
  EXPECT_EQ((*c->Namespaces())[1], geo);
  ASSERT_TRUE(c->DeleteNamespace("apps").ok());
  ASSERT_TRUE(c->DeleteNamespace("never").ok());
  auto d = std::move(backend_.Open()).value();
  ASSERT_EQ(d->Namespaces()->size(), 1u);
  EXPECT_EQ((*d->Namespaces())[0], geo);
}

// A catalog made before namespaces has no /catalog/namespaces: it opens
// with none, and the first PutNamespace makes the node.
TEST_F(ZnodeCatalogFakeTest, ACatalogWithoutTheNamespaceNodeGainsIt) {
  {
    auto c = std::move(backend_.Open()).value();
    ASSERT_TRUE(c->PutTable(Table(c->NextTableId(), "t")).ok());
  }
  {
    auto session = std::move(backend_.Connect()).value();
    ASSERT_TRUE(session->Delete("/catalog/namespaces").ok());
  }
  auto c = std::move(backend_.Open()).value();
  EXPECT_TRUE(c->Namespaces()->empty());
  ASSERT_EQ(c->Tables()->size(), 1u);
  ASSERT_TRUE(c->PutNamespace({"ns", {}}).ok());
  auto again = std::move(backend_.Open()).value();
  ASSERT_EQ(again->Namespaces()->size(), 1u);
  EXPECT_EQ((*again->Namespaces())[0].name, "ns");
}

router::Grant MakeGrantOrDie(const std::string& user, const std::string& ns,
                             const std::string& table,
                             const std::string& actions) {
  return std::move(router::MakeGrant(user, ns, table, actions)).value();
}

// Grants: one chunked record; a grant merges letters, a revoke takes them
// away (all when it names none); kept across reopen, seen by a second
// router; a catalog made before grants gains the node on the first change.
TEST_F(ZnodeCatalogFakeTest, GrantsAreChangedAndSurviveReopen) {
  const router::Grant bob_t = MakeGrantOrDie("bob", "", "geo:t", "W");
  const router::Grant bob_geo = MakeGrantOrDie("bob", "geo", "", "A");
  {
    auto session = std::move(backend_.Connect()).value();
    auto a = std::move(backend_.Open()).value();
    ASSERT_TRUE(session->Delete("/catalog/grants").ok());  // an older one
    auto b = std::move(backend_.Open()).value();
    EXPECT_TRUE(b->Grants()->empty());
    ASSERT_TRUE(b->ChangeGrant(bob_t, router::GrantChange::kGrant).ok());
    ASSERT_TRUE(a->ChangeGrant(MakeGrantOrDie("bob", "", "geo:t", "RX"),
                               router::GrantChange::kGrant)
                    .ok());  // a reloads, then merges
    ASSERT_TRUE(a->ChangeGrant(bob_geo, router::GrantChange::kGrant).ok());
    ASSERT_TRUE(a->ChangeGrant(MakeGrantOrDie("amy", "", "t", "R"),
                               router::GrantChange::kGrant)
                    .ok());
    ASSERT_TRUE(a->ChangeGrant(MakeGrantOrDie("bob", "", "geo:t", "X"),
                               router::GrantChange::kRevoke)
                    .ok());
    ASSERT_TRUE(a->ChangeGrant(MakeGrantOrDie("amy", "", "t", ""),
                               router::GrantChange::kRevoke)
                    .ok());
    EXPECT_TRUE(Eventually([&] { return b->Grants()->size() == 2; }));
  }
  auto c = std::move(backend_.Open()).value();
  ASSERT_EQ(c->Grants()->size(), 2u);
  EXPECT_EQ((*c->Grants())[0], bob_geo);  // namespace grants first
  EXPECT_EQ((*c->Grants())[1].table, "geo:t");
  EXPECT_EQ((*c->Grants())[1].actions, "RW");
  ASSERT_TRUE(c->ChangeGrant(bob_geo, router::GrantChange::kRevoke).ok());
  auto d = std::move(backend_.Open()).value();
  ASSERT_EQ(d->Grants()->size(), 1u);
  EXPECT_EQ((*d->Grants())[0].actions, "RW");
}

TEST(ZnodeCatalogOptionsTest, BadOptionsAreRefused) {
  EXPECT_TRUE(OpenZnodeCatalog({}).status().IsInvalidArgument());
  FakeBackend backend;
  ZnodeCatalogOptions o;
  o.connect = [&] { return backend.Connect(); };
  o.chunk_bytes = 10;
  EXPECT_TRUE(OpenZnodeCatalog(o).status().IsInvalidArgument());
}

// The same contract and a chunked record over a real ZooKeeper server.
TEST(ZnodeCatalogOnZooKeeperTest, KeepsTheContractAndChunksLargeRecords) {
  RealBackend backend;
  auto server = zktest::ZooKeeperTestEnsemble::Start(1);
  ASSERT_TRUE(server.ok()) << server.status().ToString();
  backend.server = std::move(*server);
  ChecksPersistenceAndIds(backend);
  const CatalogTable big = Table(70, "big", 1024, 900);
  {
    auto c = std::move(backend.Open()).value();
    ASSERT_TRUE(c->PutTable(big).ok());
  }
  auto c = std::move(backend.Open()).value();
  ASSERT_EQ(c->Tables()->size(), 1u);
  EXPECT_EQ((*c->Tables())[0], big);
}

}  // namespace
}  // namespace bloomroute::coord
