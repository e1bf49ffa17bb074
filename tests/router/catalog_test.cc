// Catalog: persistence across reopen, ids never reused, and records that do
// not decode.
#include "router/internal/catalog.h"

#include <gtest/gtest.h>

#include "common/coding.h"
#include "router/cluster_id.h"
#include "tests/regionstore/region_store_test_util.h"

namespace bloomroute::router_internal {
namespace {

CatalogTable Table(uint64_t id, std::string name) {
  CatalogTable t;
  t.descriptor.table_id = id;
  t.descriptor.name = std::move(name);
  t.descriptor.indexed_columns = {{1, "d:a"}, {2, "d:b"}};
  t.regions = {{10, "", "m", 1}, {11, "m", "", 2}};
  return t;
}

class CatalogTest : public ::testing::Test {
 protected:
  testing::TempDir dir_;
};

TEST_F(CatalogTest, PageTokenKeyIsCreatedOnceAndSurvivesReopen) {
  const std::string first(32, 'a');
  {
    auto c = std::move(Catalog::Open(dir_.path())).value();
    StatusOr<std::string> key = c->PageTokenKey(first);
    ASSERT_TRUE(key.ok()) << key.status().ToString();
    EXPECT_EQ(*key, first);
    // Later calls keep the stored key, whatever fresh key they offer.
    EXPECT_EQ(*c->PageTokenKey(std::string(32, 'b')), first);
  }
  auto c = std::move(Catalog::Open(dir_.path())).value();
  EXPECT_EQ(*c->PageTokenKey(std::string(32, 'c')), first);
  EXPECT_TRUE(c->PageTokenKey("short").status().IsInvalidArgument());
}

TEST_F(CatalogTest, ClusterIdIsCreatedOnceAndSurvivesReopen) {
  const std::string first = *router::NewClusterId();
  {
    auto c = std::move(Catalog::Open(dir_.path())).value();
    StatusOr<std::string> id = c->ClusterId(first);
    ASSERT_TRUE(id.ok()) << id.status().ToString();
    EXPECT_EQ(*id, first);
    // Later calls keep the stored id, whatever fresh id they offer.
    EXPECT_EQ(*c->ClusterId(*router::NewClusterId()), first);
  }
  auto c = std::move(Catalog::Open(dir_.path())).value();
  EXPECT_EQ(*c->ClusterId(*router::NewClusterId()), first);
  EXPECT_TRUE(c->ClusterId("short").status().IsInvalidArgument());
  EXPECT_TRUE(c->ClusterId(std::string(36, 'x')).status().IsInvalidArgument());
}

TEST_F(CatalogTest, SurvivesReopenAndNeverReusesIds) {
  uint64_t table_id = 0;
  {
    auto c = std::move(Catalog::Open(dir_.path())).value();
    EXPECT_EQ(*c->AddServer("a:1"), 1u);
    EXPECT_EQ(*c->AddServer("b:2"), 2u);
    EXPECT_EQ(*c->AddServer("a:1"), 1u);
    table_id = c->NextTableId();
    CatalogTable t = Table(table_id, "geo");
    t.regions[0].region_id = c->NextRegionId();
    t.regions[1].region_id = c->NextRegionId();
    ASSERT_TRUE(c->PutTable(t).ok());
    EXPECT_TRUE(c->PutTable(Table(table_id + 100, "geo")).IsInvalidArgument());
  }
  auto c = std::move(Catalog::Open(dir_.path())).value();
  ASSERT_EQ(c->Servers().size(), 2u);
  EXPECT_EQ(c->Servers()[1].address, "b:2");
  ASSERT_EQ(c->Tables()->size(), 1u);
  EXPECT_EQ((*c->Tables())[0].descriptor.name, "geo");
  EXPECT_GT(c->NextTableId(), table_id);
  EXPECT_GT(c->NextRegionId(), (*c->Tables())[0].regions[1].region_id);
  EXPECT_EQ(*c->AddServer("c:3"), 3u);
  ASSERT_TRUE(c->DeleteTable(table_id).ok());
  EXPECT_TRUE(c->DeleteTable(table_id).ok());
  EXPECT_TRUE(c->Tables()->empty());
  // A deleted table's id stays used.
  EXPECT_GT(c->NextTableId(), table_id);
}

TEST_F(CatalogTest, StateChangesAreReplacedInPlace) {
  auto c = std::move(Catalog::Open(dir_.path())).value();
  CatalogTable t = Table(c->NextTableId(), "geo");
  ASSERT_TRUE(c->PutTable(t).ok());
  t.state = CatalogTable::State::kDeleting;
  ASSERT_TRUE(c->PutTable(t).ok());
  ASSERT_EQ(c->Tables()->size(), 1u);
  EXPECT_EQ((*c->Tables())[0].state, CatalogTable::State::kDeleting);
}

// Version 3: the building flag, the next column id and the index tasks.
// The format before families and attributes (version 1), written byte by
// byte: such records still read, as enabled tables without families.
TEST_F(CatalogTest, FamiliesAttributesAndStateSurviveReopen) {
  CatalogTable t;
  {
    auto c = std::move(Catalog::Open(dir_.path())).value();
    t = Table(c->NextTableId(), "geo");
    t.descriptor.families = {"d"};
    t.descriptor.attributes = {{"owner", "ops"}};
    t.enabled = false;
    ASSERT_TRUE(c->PutTable(t).ok());
  }
  auto c = std::move(Catalog::Open(dir_.path())).value();
  ASSERT_EQ(c->Tables()->size(), 1u);
  EXPECT_EQ((*c->Tables())[0], t);
}

}  // namespace
}  // namespace bloomroute::router_internal

namespace bloomroute::router_internal {
namespace {

TEST_F(CatalogTest, ServersAreReAddressedAndRemovedByIdAcrossReopen) {
  {
    auto c = std::move(Catalog::Open(dir_.path())).value();
    ASSERT_EQ(*c->AddServer("a:1"), 1u);
    ASSERT_EQ(*c->AddServer("b:2"), 2u);
    ASSERT_EQ(*c->AddServer("c:3"), 3u);
    ASSERT_TRUE(c->SetServerAddress(1, "a:9").ok());
    // An address may belong to one member only.
    Status taken = c->SetServerAddress(1, "b:2");
    EXPECT_TRUE(taken.IsInvalidArgument()) << taken.ToString();
    EXPECT_NE(taken.message().find("b:2"), std::string::npos);
    EXPECT_TRUE(c->SetServerAddress(1, "a:9").ok());  // its own: no change
    EXPECT_TRUE(c->SetServerAddress(7, "x:1").IsNotFound());
    ASSERT_TRUE(c->RemoveServer(2).ok());
    EXPECT_TRUE(c->RemoveServer(2).IsNotFound());
    EXPECT_TRUE(c->RemoveServer(9).IsNotFound());
    EXPECT_TRUE(c->SetServerAddress(2, "y:1").IsNotFound());
    // The old address of 1 is free again; a removed server's address too,
    // under a new id (ids are never reused).
    EXPECT_EQ(*c->AddServer("a:1"), 4u);
    EXPECT_EQ(*c->AddServer("a:9"), 1u);
  }
  auto c = std::move(Catalog::Open(dir_.path())).value();
  const std::vector<CatalogServer> servers = c->Servers();
  ASSERT_EQ(servers.size(), 4u);
  EXPECT_EQ(servers[0].address, "a:9");
  EXPECT_FALSE(servers[0].removed);
  EXPECT_EQ(servers[1].address, "b:2");
  EXPECT_TRUE(servers[1].removed);
  EXPECT_FALSE(servers[2].removed);
  EXPECT_EQ(servers[3].address, "a:1");
  EXPECT_EQ(*c->AddServer("b:2"), 5u);
  EXPECT_EQ(*c->AddServer("c:3"), 3u);
}

router::Quota Quota(std::string user, std::string table, uint64_t requests,
                    uint64_t bytes) {
  router::Quota q;
  q.user = std::move(user);
  q.table = std::move(table);
  if (requests != 0) q.requests = {requests, 1};
  if (bytes != 0) q.bytes = {bytes, 60};
  return q;
}

// Quotas are set, replaced and removed by user and table, each change
// persisted before it returns and published as a new snapshot.
TEST_F(CatalogTest, NamespacesAreReplacedRemovedAndSurviveReopen) {
  const router::CatalogNamespace geo{"geo", {{"owner", "ops"}}};
  {
    auto c = std::move(Catalog::Open(dir_.path())).value();
    EXPECT_TRUE(c->Namespaces()->empty());
    ASSERT_TRUE(c->PutNamespace({"geo", {}}).ok());
    ASSERT_TRUE(c->PutNamespace({"apps", {}}).ok());
    ASSERT_TRUE(c->PutNamespace(geo).ok());  // replaces
    ASSERT_TRUE(c->PutNamespace({"gone", {}}).ok());
    ASSERT_TRUE(c->DeleteNamespace("gone").ok());
    ASSERT_TRUE(c->DeleteNamespace("never").ok());
    // 64 KiB of configuration each at most.
    EXPECT_TRUE(c->PutNamespace({"big", {{"k", std::string(65 << 10, 'v')}}})
                    .IsInvalidArgument());
  }
  auto c = std::move(Catalog::Open(dir_.path())).value();
  ASSERT_EQ(c->Namespaces()->size(), 2u);
  EXPECT_EQ((*c->Namespaces())[0].name, "apps");  // by name
  EXPECT_EQ((*c->Namespaces())[1], geo);
}

// Grants: merged by a grant, taken away by a revoke, one record that
// survives a reopen.
TEST_F(CatalogTest, GrantsAreMergedRevokedAndSurviveReopen) {
  auto grant = [](const char* user, const char* ns, const char* table,
                  const char* actions) {
    return std::move(router::MakeGrant(user, ns, table, actions)).value();
  };
  {
    auto c = std::move(Catalog::Open(dir_.path())).value();
    EXPECT_TRUE(c->Grants()->empty());
    ASSERT_TRUE(
        c->ChangeGrant(grant("bob", "", "t", "W"), router::GrantChange::kGrant)
            .ok());
    ASSERT_TRUE(c->ChangeGrant(grant("bob", "", "default:t", "AR"),
                               router::GrantChange::kGrant)
                    .ok());
    ASSERT_TRUE(c->ChangeGrant(grant("bob", "geo", "", "C"),
                               router::GrantChange::kGrant)
                    .ok());
    ASSERT_TRUE(
        c->ChangeGrant(grant("bob", "", "t", "A"), router::GrantChange::kRevoke)
            .ok());
    ASSERT_TRUE(c->ChangeGrant(grant("amy", "geo", "", "W"),
                               router::GrantChange::kGrant)
                    .ok());
    ASSERT_TRUE(c->ChangeGrant(grant("amy", "geo", "", ""),
                               router::GrantChange::kRevoke)
                    .ok());
  }
  auto c = std::move(Catalog::Open(dir_.path())).value();
  ASSERT_EQ(c->Grants()->size(), 2u);
  EXPECT_EQ((*c->Grants())[0], grant("bob", "", "t", "RW"));
  EXPECT_EQ((*c->Grants())[1], grant("bob", "geo", "", "C"));
}

TEST_F(CatalogTest, QuotasAreReplacedRemovedAndSurviveReopen) {
  const router::Quota alice = Quota("alice", "", 100, 0);
  const router::Quota alice_geo = Quota("alice", "geo", 10, 1 << 20);
  const router::Quota bob = Quota("bob", "", 0, 5000);
  {
    auto c = std::move(Catalog::Open(dir_.path())).value();
    EXPECT_TRUE(c->Quotas()->empty());
    ASSERT_TRUE(c->PutQuota(bob).ok());
    ASSERT_TRUE(c->PutQuota(alice_geo).ok());
    const auto before = c->Quotas();
    ASSERT_TRUE(c->PutQuota(Quota("alice", "", 7, 0)).ok());
    EXPECT_NE(c->Quotas(), before);        // a new snapshot
    EXPECT_EQ(before->size(), 2u);         // the old one is unchanged
    ASSERT_TRUE(c->PutQuota(alice).ok());  // replaces alice's
    // Removing one that is not there changes nothing.
    ASSERT_TRUE(c->PutQuota(Quota("carol", "", 0, 0)).ok());
    EXPECT_EQ(*c->Quotas(),
              (std::vector<router::Quota>{alice, alice_geo, bob}));
    // Refused, and nothing written.
    EXPECT_TRUE(c->PutQuota(Quota("", "", 1, 0)).IsInvalidArgument());
    router::Quota bad = alice;
    bad.requests.seconds = 0;
    EXPECT_TRUE(c->PutQuota(bad).IsInvalidArgument());
  }
  {
    auto c = std::move(Catalog::Open(dir_.path())).value();
    EXPECT_EQ(*c->Quotas(),
              (std::vector<router::Quota>{alice, alice_geo, bob}));
    ASSERT_TRUE(c->PutQuota(Quota("alice", "geo", 0, 0)).ok());  // removes
  }
  auto c = std::move(Catalog::Open(dir_.path())).value();
  EXPECT_EQ(*c->Quotas(), (std::vector<router::Quota>{alice, bob}));
}

// The coordinator's epoch is the start count; a floor (router
// --min-coordinator-epoch) lifts it, durably, and later starts go on above.
TEST_F(CatalogTest, RouterStartsJumpToAFloorAndGoOnAboveIt) {
  {
    auto c = std::move(Catalog::Open(dir_.path())).value();
    EXPECT_EQ(*c->RecordRouterStart(), 1u);
    EXPECT_EQ(*c->RecordRouterStart(8), 8u);
    EXPECT_EQ(*c->RecordRouterStart(3), 9u);  // a floor below: no effect
  }
  auto c = std::move(Catalog::Open(dir_.path())).value();
  EXPECT_EQ(*c->RecordRouterStart(), 10u);
}

}  // namespace
}  // namespace bloomroute::router_internal
