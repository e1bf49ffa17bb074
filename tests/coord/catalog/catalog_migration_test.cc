// MigrateCatalog: an embedded catalog copied into ZooKeeper (the fake
// ensemble) is the same catalog -- ids, records, counters, key -- and a
// complete catalog is never overwritten, a half-made one is made again.
#include "coord/catalog/catalog_migration.h"

#include <gtest/gtest.h>

#include "coord/catalog/zk_catalog_store.h"
#include "coord/fake_znode_store.h"
#include "router/cluster_id.h"
#include "router/page_token.h"
#include "tests/regionstore/region_store_test_util.h"

namespace bloomroute::coord {
namespace {

using router::CatalogStore;
using router::CatalogTable;

class CatalogMigrationTest : public ::testing::Test {
 protected:
  void SetUp() override {
    source_ = std::move(router::OpenEmbeddedCatalog(dir_.path())).value();
    ASSERT_EQ(*source_->AddServer("a:1"), 1u);
    ASSERT_EQ(*source_->AddServer("b:2"), 2u);
    ASSERT_EQ(*source_->AddServer("c:3"), 3u);
    ASSERT_TRUE(source_->RemoveServer(2).ok());
    for (const char* name : {"geo", "people"}) {
      CatalogTable t;
      t.descriptor.table_id = source_->NextTableId();
      t.descriptor.name = name;
      t.descriptor.indexed_columns = {{1, "d:a"}};
      t.regions = {{source_->NextRegionId(), "", "m", 1},
                   {source_->NextRegionId(), "m", "", 3}};
      ASSERT_TRUE(source_->PutTable(t).ok());
    }
    router::Quota q;
    q.user = "alice";
    q.table = "geo";
    q.requests = {10, 1};
    ASSERT_TRUE(source_->PutQuota(q).ok());
    ASSERT_TRUE(source_->PutNamespace({"geo", {{"owner", "ops"}}}).ok());
    ASSERT_TRUE(source_
                    ->ChangeGrant(*router::MakeGrant("bob", "geo", "", "RW"),
                                  router::GrantChange::kGrant)
                    .ok());
    ASSERT_TRUE(source_->RecordRouterStart().ok());
    ASSERT_EQ(*source_->RecordRouterStart(), 2u);
    key_ = *source_->PageTokenKey(std::string(router::kPageTokenKeyBytes, 'k'));
    cluster_id_ = *source_->ClusterId(*router::NewClusterId());
  }

  std::unique_ptr<ZnodeStore> Session() {
    return std::move(ensemble_.Connect("/bloomroute/prod")).value();
  }
  StatusOr<std::unique_ptr<CatalogStore>> OpenTarget() {
    ZnodeCatalogOptions o;
    o.connect = [this] { return ensemble_.Connect("/bloomroute/prod"); };
    return OpenZnodeCatalog(std::move(o));
  }

  testing::TempDir dir_;
  std::unique_ptr<CatalogStore> source_;
  std::string key_;
  std::string cluster_id_;
  FakeEnsemble ensemble_;
};

TEST_F(CatalogMigrationTest, TheCopyIsTheSameCatalog) {
  auto session = Session();
  StatusOr<MigrationReport> report = MigrateCatalog(*source_, session.get());
  ASSERT_TRUE(report.ok()) << report.status().ToString();
  EXPECT_EQ(report->servers, 3u);
  EXPECT_EQ(report->tables, 2u);
  EXPECT_EQ(report->quotas, 1u);
  EXPECT_EQ(report->namespaces, 1u);
  EXPECT_EQ(report->grants, 1u);
  auto target = std::move(OpenTarget()).value();
  ASSERT_EQ(target->Servers().size(), 3u);
  for (size_t i = 0; i < 3; ++i) {
    EXPECT_EQ(target->Servers()[i].id, source_->Servers()[i].id);
    EXPECT_EQ(target->Servers()[i].address, source_->Servers()[i].address);
    EXPECT_EQ(target->Servers()[i].removed, source_->Servers()[i].removed);
  }
  EXPECT_EQ(*target->Tables(), *source_->Tables());
  EXPECT_EQ(*target->Quotas(), *source_->Quotas());
  EXPECT_EQ(*target->Namespaces(), *source_->Namespaces());
  EXPECT_EQ(*target->Grants(), *source_->Grants());
  EXPECT_EQ(*target->PageTokenKey(std::string(router::kPageTokenKeyBytes, 'x')),
            key_);
  EXPECT_EQ(*target->ClusterId(*router::NewClusterId()), cluster_id_);
  // Counters go on where the source's stood.
  EXPECT_EQ(target->GetCounters().next_table_id,
            source_->GetCounters().next_table_id);
  EXPECT_EQ(*target->RecordRouterStart(), 3u);
  EXPECT_EQ(*target->AddServer("d:4"), 4u);
}

TEST_F(CatalogMigrationTest, ACompleteCatalogIsNotOverwritten) {
  auto session = Session();
  ASSERT_TRUE(MigrateCatalog(*source_, session.get()).ok());
  EXPECT_TRUE(
      MigrateCatalog(*source_, session.get()).status().IsInvalidArgument());
}

TEST_F(CatalogMigrationTest, AHalfMadeCopyIsRefusedByRoutersAndMadeAgain) {
  auto session = Session();
  ASSERT_TRUE(session->Create("/catalog", "\x01migrating").ok());
  ASSERT_TRUE(session->Create("/catalog/tables", "").ok());
  EXPECT_TRUE(OpenTarget().status().IsUnavailable());
  ASSERT_TRUE(MigrateCatalog(*source_, session.get()).ok());
  auto target = std::move(OpenTarget()).value();
  EXPECT_EQ(target->Tables()->size(), 2u);
}

}  // namespace
}  // namespace bloomroute::coord
