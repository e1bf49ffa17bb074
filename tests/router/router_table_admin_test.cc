// Router: what HBase's table calls need -- column families and attributes
// (with the `bloomroute.index` attribute), enable / disable, truncate and
// region locations -- over in-process region stores.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <map>
#include <string>
#include <vector>

#include "model/table_attributes.h"
#include "tests/router/router_test_util.h"

namespace bloomroute {
namespace {

using ::bloomroute::testing::Keys;
using ::bloomroute::testing::PutRow;
using ::bloomroute::testing::StoreCluster;
using ::bloomroute::testing::WhereEq;
using ::testing::ElementsAre;
using ::testing::HasSubstr;

class RouterTableAdminTest : public ::testing::Test {
 protected:
  void SetUp() override {
    router_ = testing::OpenRouter(cluster_);
    ASSERT_NE(router_, nullptr);
  }
  // "geo": families d and e, d:country indexed through the attribute, split
  // at "g" and "p".
  router::TableSpec GeoSpec() {
    router::TableSpec spec;
    spec.name = "geo";
    spec.families = {"d", "e"};
    spec.attributes = {{"bloomroute.index", "d:country"}, {"owner", "ops"}};
    spec.split_keys = {"g", "p"};
    return spec;
  }
  void CreateGeoWithRows() {
    ASSERT_TRUE(router_->CreateTable(GeoSpec()).ok());
    ASSERT_TRUE(
        router_
            ->Mutate("geo", {PutRow("a1", "NO", "f"), PutRow("h1", "NO", "f"),
                             PutRow("q1", "SE", "f")})
            .ok());
  }
  std::vector<std::string> LookupKeys(const std::string& country) {
    auto r = router_->Lookup("geo", WhereEq({{"d:country", country}}));
    EXPECT_TRUE(r.ok()) << r.status().ToString();
    return r.ok() ? Keys(r->rows) : std::vector<std::string>{"error"};
  }
  std::vector<std::string> ScanKeys() {
    auto r = router_->Scan("geo", {}, 100);
    EXPECT_TRUE(r.ok()) << r.status().ToString();
    return r.ok() ? Keys(r->rows) : std::vector<std::string>{"error"};
  }

  StoreCluster cluster_{3};
  std::unique_ptr<router::Router> router_;
};

TEST_F(RouterTableAdminTest, FamiliesAndAttributesPersistAndComeBack) {
  auto created = router_->CreateTable(GeoSpec());
  ASSERT_TRUE(created.ok()) << created.status().ToString();
  const TableDescriptor& d = created->descriptor;
  EXPECT_THAT(d.families, ElementsAre("d", "e"));
  EXPECT_EQ(d.attributes.at("owner"), "ops");
  EXPECT_EQ(d.attributes.at("bloomroute.index"), "d:country");
  ASSERT_EQ(d.indexed_columns.size(), 1u);
  EXPECT_EQ(d.indexed_columns[0].name, "d:country");
  EXPECT_TRUE(created->enabled);
  router_.reset();
  router_ = testing::OpenRouter(cluster_);
  auto described = router_->DescribeTable("geo");
  ASSERT_TRUE(described.ok());
  EXPECT_EQ(described->descriptor, d);
  ASSERT_EQ(router_->ListTables().size(), 1u);
  EXPECT_EQ(router_->ListTables()[0], d);
}

TEST_F(RouterTableAdminTest, IndexAttributeAndExplicitColumnsMustAgree) {
  router::TableSpec spec = GeoSpec();
  spec.indexed_columns = {"d:country"};
  EXPECT_TRUE(router_->CreateTable(spec).ok());
  spec.name = "geo2";
  spec.indexed_columns = {"d:feature"};
  const auto r = router_->CreateTable(spec);
  EXPECT_TRUE(r.status().IsInvalidArgument());
  EXPECT_THAT(r.status().ToString(), HasSubstr("bloomroute.index"));
  // The attribute is kept formatted; a table created without it has none.
  spec.name = "geo3";
  spec.attributes = {{"bloomroute.index", " d:feature "}};
  auto made = router_->CreateTable(spec);
  ASSERT_TRUE(made.ok()) << made.status().ToString();
  EXPECT_EQ(made->descriptor.attributes.at("bloomroute.index"), "d:feature");
  spec.name = "geo5";
  spec.attributes.clear();
  made = router_->CreateTable(spec);
  ASSERT_TRUE(made.ok()) << made.status().ToString();
  EXPECT_TRUE(made->descriptor.attributes.empty());
  EXPECT_EQ(
      WithIndexAttribute(made->descriptor).attributes.at("bloomroute.index"),
      "d:feature");
  spec.name = "geo4";
  spec.attributes = {{"bloomroute.index", "d:a,,d:b"}};
  spec.indexed_columns.clear();
  EXPECT_THAT(router_->CreateTable(spec).status().ToString(),
              HasSubstr("entry 2 is empty"));
}

TEST_F(RouterTableAdminTest, SpecsWithBadFamiliesOrAttributesAreRefused) {
  router::TableSpec spec = GeoSpec();
  spec.attributes = {{"bloomroute.index", "x:country"}};
  EXPECT_THAT(router_->CreateTable(spec).status().ToString(),
              HasSubstr("column family 'x' does not exist in table 'geo'"));
  spec = GeoSpec();
  spec.families = {"d", "d"};
  EXPECT_THAT(router_->CreateTable(spec).status().ToString(),
              HasSubstr("declared twice"));
  // Attributes count in --max-table-bytes.
  spec = GeoSpec();
  spec.attributes["big"] = std::string(60 << 10, 'v');
  router::RouterOptions o = testing::RouterOptionsFor(cluster_);
  o.max_table_bytes = router::RouterOptions::kMinTableBytes;
  router_.reset();
  router_ = std::move(router::Router::Open(o, cluster_.Factory())).value();
  spec.split_keys = {std::string(8 << 10, 'k')};
  EXPECT_THAT(router_->CreateTable(spec).status().ToString(),
              HasSubstr("--max-table-bytes"));
}

TEST_F(RouterTableAdminTest, DescriptorsOfAllTablesAreBounded) {
  router::RouterOptions o = testing::RouterOptionsFor(cluster_);
  o.max_listed_descriptor_bytes = router::RouterOptions::kMinTableBytes;
  router_.reset();
  router_ = std::move(router::Router::Open(o, cluster_.Factory())).value();
  router::TableSpec spec;
  spec.attributes = {{"blob", std::string(30 << 10, 'v')}};
  spec.name = "t1";
  ASSERT_TRUE(router_->CreateTable(spec).ok());
  spec.name = "t2";
  ASSERT_TRUE(router_->CreateTable(spec).ok());
  spec.name = "t3";  // 3 x 30 KiB > 64 KiB
  const Status s = router_->CreateTable(spec).status();
  EXPECT_TRUE(s.IsInvalidArgument());
  EXPECT_THAT(s.ToString(), HasSubstr("max_listed_descriptor_bytes"));
  EXPECT_TRUE(router_->DescribeTable("t3").status().IsNotFound());
  o.max_listed_descriptor_bytes = router::RouterOptions::kMinTableBytes - 1;
  EXPECT_THAT(o.Validate().ToString(),
              HasSubstr("max_listed_descriptor_bytes must be in"));
}

TEST_F(RouterTableAdminTest, EveryDataCallRejectsUndeclaredFamilies) {
  CreateGeoWithRows();
  const std::string msg = "column family 'x' does not exist in table 'geo'";
  EXPECT_THAT(router_->Mutate("geo", {Mutation::Put(0, "r", {{"x:a", "1"}})})
                  .ToString(),
              HasSubstr(msg));
  EXPECT_THAT(
      router_->Mutate("geo", {Mutation::Delete(0, "a1", {"x:a"})}).ToString(),
      HasSubstr(msg));
  EXPECT_THAT(
      router_->Get("geo", {GetRequest{0, "a1", {"x"}}}).status().ToString(),
      HasSubstr(msg));
  router::ScanSpec scan;
  scan.columns = {"x:q"};
  EXPECT_THAT(router_->Scan("geo", scan, 10).status().ToString(),
              HasSubstr(msg));
  EXPECT_THAT(router_->OpenScanner("geo", scan).status().ToString(),
              HasSubstr(msg));
  router::LookupSpec lookup = WhereEq({{"d:country", "NO"}});
  lookup.columns = {"x"};
  EXPECT_THAT(router_->Lookup("geo", lookup).status().ToString(),
              HasSubstr(msg));
  EXPECT_THAT(router_->LookupMultiple("geo", {lookup}).status().ToString(),
              HasSubstr(msg));
  // Declared families work; nothing of the refused calls was written.
  EXPECT_TRUE(
      router_->Mutate("geo", {Mutation::Put(0, "r", {{"e:a", "1"}})}).ok());
  EXPECT_THAT(ScanKeys(), ElementsAre("a1", "h1", "q1", "r"));
  // A table without declared families accepts any.
  router::TableSpec open;
  open.name = "open";
  ASSERT_TRUE(router_->CreateTable(open).ok());
  EXPECT_TRUE(
      router_->Mutate("open", {Mutation::Put(0, "r", {{"x:a", "1"}})}).ok());
}

TEST_F(RouterTableAdminTest, DisabledTablesRefuseDataCallsAndPersist) {
  CreateGeoWithRows();
  auto scanner = router_->OpenScanner("geo", {});
  ASSERT_TRUE(scanner.ok());
  ASSERT_TRUE(router_->DisableTable("geo").ok());
  EXPECT_FALSE(*router_->IsTableEnabled("geo"));
  const std::string msg = "table 'geo' is disabled";
  EXPECT_THAT(router_->Mutate("geo", {PutRow("b", "NO", "f")}).ToString(),
              HasSubstr(msg));
  EXPECT_THAT(
      router_->Get("geo", {GetRequest{0, "a1", {}}}).status().ToString(),
      HasSubstr(msg));
  EXPECT_THAT(router_->Scan("geo", {}, 10).status().ToString(), HasSubstr(msg));
  EXPECT_THAT(router_->OpenScanner("geo", {}).status().ToString(),
              HasSubstr(msg));
  EXPECT_THAT(router_->ScannerNext(*scanner, 10).status().ToString(),
              HasSubstr(msg));
  EXPECT_THAT(router_->Lookup("geo", WhereEq({{"d:country", "NO"}}))
                  .status()
                  .ToString(),
              HasSubstr(msg));
  const uint64_t region =
      router_->DescribeTable("geo")->regions[0].region.region_id;
  EXPECT_THAT(router_->BulkLoad("geo", region, "x").ToString(), HasSubstr(msg));
  // Still described and listed, as disabled.
  EXPECT_FALSE(router_->DescribeTable("geo")->enabled);
  EXPECT_EQ(router_->ListTables().size(), 1u);
  router_.reset();
  router_ = testing::OpenRouter(cluster_);
  EXPECT_FALSE(*router_->IsTableEnabled("geo"));
  ASSERT_TRUE(router_->EnableTable("geo").ok());
  EXPECT_TRUE(*router_->IsTableEnabled("geo"));
  EXPECT_THAT(LookupKeys("NO"), ElementsAre("a1", "h1"));
}

TEST_F(RouterTableAdminTest, EnableAndDisableFollowHBasesStateMachine) {
  CreateGeoWithRows();
  Status s = router_->EnableTable("geo");
  EXPECT_TRUE(s.IsInvalidArgument());
  EXPECT_THAT(s.ToString(), HasSubstr("table 'geo' is not disabled"));
  ASSERT_TRUE(router_->DisableTable("geo").ok());
  s = router_->DisableTable("geo");
  EXPECT_TRUE(s.IsInvalidArgument());
  EXPECT_THAT(s.ToString(), HasSubstr("table 'geo' is not enabled"));
  EXPECT_TRUE(router_->EnableTable("nope").IsNotFound());
  EXPECT_TRUE(router_->DisableTable("nope").IsNotFound());
  EXPECT_TRUE(router_->IsTableEnabled("nope").status().IsNotFound());
}

TEST_F(RouterTableAdminTest, DeleteTableIfDisabledNeedsItDisabled) {
  CreateGeoWithRows();
  const Status s = router_->DeleteTableIfDisabled("geo");
  EXPECT_THAT(s.ToString(), HasSubstr("table 'geo' is not disabled"));
  ASSERT_TRUE(router_->DescribeTable("geo").ok());
  ASSERT_TRUE(router_->DisableTable("geo").ok());
  ASSERT_TRUE(router_->DeleteTableIfDisabled("geo").ok());
  EXPECT_TRUE(router_->DescribeTable("geo").status().IsNotFound());
  // bloomroute's own DeleteTable takes an enabled table, as before.
  CreateGeoWithRows();
  EXPECT_TRUE(router_->DeleteTable("geo").ok());
  EXPECT_TRUE(router_->DescribeTable("geo").status().IsNotFound());
}

TEST_F(RouterTableAdminTest, TruncatePreservingSplitsEmptiesTableAndIndex) {
  CreateGeoWithRows();
  const auto before = *router_->DescribeTable("geo");
  EXPECT_THAT(router_->TruncateTable("geo", true).ToString(),
              HasSubstr("table 'geo' is not disabled"));
  ASSERT_TRUE(router_->DisableTable("geo").ok());
  ASSERT_TRUE(router_->TruncateTable("geo", true).ok());
  const auto after = *router_->DescribeTable("geo");
  EXPECT_TRUE(after.enabled);  // as HBase: enabled again
  EXPECT_EQ(after.descriptor, before.descriptor);
  ASSERT_EQ(after.regions.size(), before.regions.size());
  for (size_t i = 0; i < after.regions.size(); ++i) {
    EXPECT_EQ(after.regions[i].region.start_key,
              before.regions[i].region.start_key);
    EXPECT_EQ(after.regions[i].region.end_key,
              before.regions[i].region.end_key);
    EXPECT_NE(after.regions[i].region.region_id,
              before.regions[i].region.region_id);
  }
  EXPECT_TRUE(ScanKeys().empty());
  EXPECT_TRUE(LookupKeys("NO").empty());
  ASSERT_TRUE(testing::WaitAllCurrent(*router_));
  auto verify = router_->VerifyIndex("geo");
  ASSERT_TRUE(verify.ok());
  EXPECT_TRUE(verify->ok());
  for (const auto& s : verify->servers) {
    EXPECT_EQ(s.index.rows, 0u);
    EXPECT_EQ(s.index.values, 0u);
  }
  // The filters lost the elements: once current, no replica routes to a
  // server for the old value.
  auto routed = router_->Lookup("geo", WhereEq({{"d:country", "NO"}}));
  ASSERT_TRUE(routed.ok());
  EXPECT_TRUE(routed->routing.asked.empty());
  // The table works as new.
  ASSERT_TRUE(router_->Mutate("geo", {PutRow("z1", "NO", "f")}).ok());
  EXPECT_THAT(LookupKeys("NO"), ElementsAre("z1"));
}

TEST_F(RouterTableAdminTest, TruncateWithoutSplitsLeavesOneRegion) {
  CreateGeoWithRows();
  ASSERT_TRUE(router_->DisableTable("geo").ok());
  ASSERT_TRUE(router_->TruncateTable("geo", false).ok());
  const auto after = *router_->DescribeTable("geo");
  ASSERT_EQ(after.regions.size(), 1u);
  EXPECT_EQ(after.regions[0].region.start_key, "");
  EXPECT_EQ(after.regions[0].region.end_key, "");
  EXPECT_TRUE(ScanKeys().empty());
  EXPECT_TRUE(LookupKeys("SE").empty());
  auto verify = router_->VerifyIndex("geo");
  ASSERT_TRUE(verify.ok());
  EXPECT_TRUE(verify->ok());
  router_.reset();
  router_ = testing::OpenRouter(cluster_);
  EXPECT_EQ(router_->DescribeTable("geo")->regions.size(), 1u);
  EXPECT_TRUE(ScanKeys().empty());
}

TEST_F(RouterTableAdminTest, TruncateFinishesDropsWhenAServerAnswersAgain) {
  CreateGeoWithRows();
  ASSERT_TRUE(router_->DisableTable("geo").ok());
  cluster_.Down(1);  // holds region [g, p) with row h1
  const Status s = router_->TruncateTable("geo", true);
  EXPECT_TRUE(s.IsUnavailable()) << s.ToString();
  EXPECT_THAT(s.ToString(), HasSubstr("truncated"));
  // The router restarts before the server answers again: the catalog
  // holds the old regions as retired, and the next run drops them.
  router_.reset();
  cluster_.Up(1);
  router_ = testing::OpenRouter(cluster_);
  router_->RunMaintenance();
  ASSERT_TRUE(testing::WaitAllCurrent(*router_));
  EXPECT_TRUE(*router_->IsTableEnabled("geo"));
  EXPECT_TRUE(ScanKeys().empty());
  EXPECT_TRUE(LookupKeys("NO").empty());
  for (int i = 0; i < 3; ++i) {
    // Only the new regions remain on the servers.
    EXPECT_EQ(cluster_.store(i)->ListRegions().size(), 1u) << i;
  }
  auto verify = router_->VerifyIndex("geo");
  ASSERT_TRUE(verify.ok());
  EXPECT_TRUE(verify->ok());
  for (const auto& s : verify->servers) EXPECT_EQ(s.index.rows, 0u);
}

TEST_F(RouterTableAdminTest, LocateRegionGivesTheRegionOfARow) {
  CreateGeoWithRows();
  const auto info = *router_->DescribeTable("geo");
  auto a = router_->LocateRegion("geo", "a");
  ASSERT_TRUE(a.ok());
  EXPECT_EQ(a->region.region_id, info.regions[0].region.region_id);
  EXPECT_EQ(a->server, info.regions[0].server);
  auto g = router_->LocateRegion("geo", "g");
  ASSERT_TRUE(g.ok());
  EXPECT_EQ(g->region.start_key, "g");
  EXPECT_EQ(g->region.end_key, "p");
  auto z = router_->LocateRegion("geo", "zzz");
  ASSERT_TRUE(z.ok());
  EXPECT_EQ(z->region.start_key, "p");
  EXPECT_EQ(router_->LocateRegion("geo", "")->region.start_key, "");
  EXPECT_TRUE(router_->LocateRegion("nope", "a").status().IsNotFound());
  // Located on a disabled table too (HBase answers from meta).
  ASSERT_TRUE(router_->DisableTable("geo").ok());
  EXPECT_TRUE(router_->LocateRegion("geo", "a").ok());
}

}  // namespace
}  // namespace bloomroute
