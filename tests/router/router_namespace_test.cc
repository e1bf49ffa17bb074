// Router: HBase's namespaces -- the reserved ones, create / modify / get /
// list / delete with HBase's errors, tables living in a namespace ("ns:t",
// "default:t" is "t"), and what survives a restart -- over in-process
// region stores and the embedded catalog.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <map>
#include <string>
#include <vector>

#include "tests/router/router_test_util.h"

namespace bloomroute {
namespace {

using ::bloomroute::testing::Keys;
using ::bloomroute::testing::PutRow;
using ::bloomroute::testing::StoreCluster;
using ::bloomroute::testing::WhereEq;
using ::testing::ElementsAre;
using ::testing::HasSubstr;

std::vector<std::string> Names(
    const std::vector<router::NamespaceDescriptor>& list) {
  std::vector<std::string> out;
  for (const auto& ns : list) out.push_back(ns.name);
  return out;
}

std::vector<std::string> Names(const std::vector<TableDescriptor>& list) {
  std::vector<std::string> out;
  for (const auto& t : list) out.push_back(t.name);
  return out;
}

router::TableSpec Spec(const std::string& name) {
  router::TableSpec spec;
  spec.name = name;
  spec.indexed_columns = {"d:country"};
  return spec;
}

class RouterNamespaceTest : public ::testing::Test {
 protected:
  void SetUp() override {
    router_ = testing::OpenRouter(cluster_);
    ASSERT_NE(router_, nullptr);
  }
  void Reopen() {
    router_.reset();
    router_ = testing::OpenRouter(cluster_);
    ASSERT_NE(router_, nullptr);
  }

  StoreCluster cluster_{2};
  std::unique_ptr<router::Router> router_;
};

TEST_F(RouterNamespaceTest, DefaultAndHbaseAlwaysExist) {
  EXPECT_THAT(Names(router_->ListNamespaces()),
              ElementsAre("default", "hbase"));
  auto d = router_->GetNamespace("default");
  ASSERT_TRUE(d.ok()) << d.status().ToString();
  EXPECT_EQ(d->name, "default");
  EXPECT_TRUE(d->configuration.empty());
  EXPECT_TRUE(router_->GetNamespace("hbase").ok());
  auto missing = router_->GetNamespace("nope");
  EXPECT_TRUE(missing.status().IsNotFound());
  EXPECT_THAT(missing.status().message(),
              HasSubstr("NamespaceNotFoundException"));
  for (const char* reserved : {"default", "hbase"}) {
    Status s = router_->CreateNamespace({reserved, {}});
    EXPECT_TRUE(s.IsInvalidArgument()) << reserved;
    EXPECT_THAT(s.message(), HasSubstr("NamespaceExistException"));
    s = router_->DeleteNamespace(reserved);
    EXPECT_TRUE(s.IsInvalidArgument()) << reserved;
    EXPECT_THAT(s.message(), HasSubstr("Reserved namespace"));
  }
}

TEST_F(RouterNamespaceTest, CreateModifyGetListDeleteSurviveRestart) {
  ASSERT_TRUE(router_->CreateNamespace({"geo", {{"owner", "ops"}}}).ok());
  ASSERT_TRUE(router_->CreateNamespace({"apps", {}}).ok());
  Status again = router_->CreateNamespace({"geo", {}});
  EXPECT_TRUE(again.IsInvalidArgument());
  EXPECT_THAT(again.message(), HasSubstr("NamespaceExistException"));
  ASSERT_TRUE(router_->ModifyNamespace({"geo", {{"owner", "dev"}}}).ok());
  EXPECT_TRUE(router_->ModifyNamespace({"nope", {}}).IsNotFound());
  // default's configuration is kept too.
  ASSERT_TRUE(router_->ModifyNamespace({"default", {{"k", "v"}}}).ok());
  Reopen();
  EXPECT_THAT(Names(router_->ListNamespaces()),
              ElementsAre("apps", "default", "geo", "hbase"));
  auto geo = router_->GetNamespace("geo");
  ASSERT_TRUE(geo.ok());
  EXPECT_EQ(geo->configuration,
            (std::map<std::string, std::string>{{"owner", "dev"}}));
  EXPECT_EQ(router_->GetNamespace("default")->configuration.at("k"), "v");
  ASSERT_TRUE(router_->DeleteNamespace("apps").ok());
  EXPECT_TRUE(router_->DeleteNamespace("apps").IsNotFound());
  EXPECT_TRUE(router_->GetNamespace("apps").status().IsNotFound());
  // Deleting default's record does not happen: it is reserved.
  EXPECT_THAT(Names(router_->ListNamespaces()),
              ElementsAre("default", "geo", "hbase"));
}

// HBase checks the namespace quota settings on every create and modify
// (TableNamespaceManager.validateTableAndRegionCount), whether or not quotas
// are enforced: a value that is not a Java long, or one <= 0, is refused;
// an empty value is as if unset.
TEST_F(RouterNamespaceTest, QuotaSettingsMustBePositiveNumbers) {
  const std::string tables = "hbase.namespace.quota.maxtables";
  const std::string regions = "hbase.namespace.quota.maxregions";
  struct Case {
    std::map<std::string, std::string> configuration;
    const char* error;  // empty: accepted
  };
  const Case cases[] = {
      {{{tables, "5"}, {regions, "+20"}}, ""},
      {{{tables, ""}, {regions, "9223372036854775807"}}, ""},
      {{{tables, "0"}},
       "The max tables quota for 'q' is less than or equal "
       "to zero (ConstraintException)"},
      {{{regions, "-1"}},
       "The max region quota for 'q' is less than or "
       "equal to zero (ConstraintException)"},
      {{{tables, "five"}}, "NumberFormatException while getting max tables"},
      {{{tables, " 5"}}, "NumberFormatException while getting max tables"},
      {{{tables, "+-5"}}, "NumberFormatException while getting max tables"},
      {{{tables, "-"}}, "NumberFormatException while getting max tables"},
      {{{regions, "9223372036854775808"}},
       "NumberFormatException while getting max regions"},
      // Regions are read and checked first, then tables, as HBase does.
      {{{tables, "0"}, {regions, "x"}},
       "NumberFormatException while getting max regions"},
      {{{tables, "x"}, {regions, "0"}},
       "The max region quota for 'q' is less than or equal to zero"},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(::testing::PrintToString(c.configuration));
    Status created = router_->CreateNamespace({"q", c.configuration});
    if (*c.error == '\0') {
      EXPECT_TRUE(created.ok()) << created.ToString();
      ASSERT_TRUE(router_->DeleteNamespace("q").ok());
      continue;
    }
    EXPECT_TRUE(created.IsInvalidArgument()) << created.ToString();
    EXPECT_THAT(created.message(), HasSubstr(c.error));
    EXPECT_TRUE(router_->GetNamespace("q").status().IsNotFound());
    ASSERT_TRUE(router_->CreateNamespace({"q", {}}).ok());
    Status modified = router_->ModifyNamespace({"q", c.configuration});
    EXPECT_TRUE(modified.IsInvalidArgument()) << modified.ToString();
    EXPECT_THAT(modified.message(), HasSubstr(c.error));
    EXPECT_TRUE(router_->GetNamespace("q")->configuration.empty());
    ASSERT_TRUE(router_->DeleteNamespace("q").ok());
  }
}

TEST_F(RouterNamespaceTest, IllegalNamesAndLargeConfigurationsAreRefused) {
  for (const char* bad : {"", "geo-1", "a:b", "geo.x", "sp ace", "é"}) {
    Status s = router_->CreateNamespace({bad, {}});
    EXPECT_TRUE(s.IsInvalidArgument()) << "'" << bad << "': " << s.ToString();
  }
  EXPECT_TRUE(router_->CreateNamespace({std::string(129, 'n'), {}})
                  .IsInvalidArgument());
  EXPECT_TRUE(router_->CreateNamespace({"Under_score9", {}}).ok());
  Status big =
      router_->CreateNamespace({"big", {{"k", std::string(65 << 10, 'v')}}});
  EXPECT_TRUE(big.IsInvalidArgument());
  EXPECT_THAT(big.message(), HasSubstr("over the limit"));
  EXPECT_TRUE(router_->GetNamespace("big").status().IsNotFound());
}

TEST_F(RouterNamespaceTest, TablesLiveInTheirNamespace) {
  Status missing = router_->CreateTable(Spec("geo:cities")).status();
  EXPECT_TRUE(missing.IsNotFound()) << missing.ToString();
  EXPECT_THAT(missing.message(), HasSubstr("NamespaceNotFoundException"));
  EXPECT_TRUE(
      router_->CreateTable(Spec("hbase:mine")).status().IsInvalidArgument());
  EXPECT_TRUE(
      router_->CreateTable(Spec("bad-ns:t")).status().IsInvalidArgument());
  ASSERT_TRUE(router_->CreateNamespace({"geo", {}}).ok());
  auto created = router_->CreateTable(Spec("geo:cities"));
  ASSERT_TRUE(created.ok()) << created.status().ToString();
  EXPECT_EQ(created->descriptor.name, "geo:cities");
  // The same qualifier in another namespace is another table.
  ASSERT_TRUE(router_->CreateTable(Spec("cities")).ok());
  ASSERT_TRUE(router_->Mutate("geo:cities", {PutRow("r1", "NO", "f")}).ok());
  ASSERT_TRUE(router_->Mutate("cities", {PutRow("r2", "NO", "f")}).ok());
  auto in_geo = router_->Lookup("geo:cities", WhereEq({{"d:country", "NO"}}));
  ASSERT_TRUE(in_geo.ok()) << in_geo.status().ToString();
  EXPECT_THAT(Keys(in_geo->rows), ElementsAre("r1"));
  auto in_default =
      router_->Lookup("default:cities", WhereEq({{"d:country", "NO"}}));
  ASSERT_TRUE(in_default.ok()) << in_default.status().ToString();
  EXPECT_THAT(Keys(in_default->rows), ElementsAre("r2"));
  EXPECT_THAT(Names(*router_->ListTablesInNamespace("geo")),
              ElementsAre("geo:cities"));
  EXPECT_THAT(Names(*router_->ListTablesInNamespace("default")),
              ElementsAre("cities"));
  EXPECT_TRUE(router_->ListTablesInNamespace("hbase")->empty());
  EXPECT_TRUE(router_->ListTablesInNamespace("nope").status().IsNotFound());
}

// "t" and "default:t" are one table, made either way.
TEST_F(RouterNamespaceTest, DefaultPrefixNamesTheSameTable) {
  auto created = router_->CreateTable(Spec("default:t"));
  ASSERT_TRUE(created.ok()) << created.status().ToString();
  EXPECT_EQ(created->descriptor.name, "t");
  EXPECT_TRUE(router_->CreateTable(Spec("t")).status().IsInvalidArgument());
  ASSERT_TRUE(router_->DescribeTable("default:t").ok());
  ASSERT_TRUE(router_->DisableTable("default:t").ok());
  EXPECT_FALSE(*router_->IsTableEnabled("t"));
  ASSERT_TRUE(router_->DeleteTableIfDisabled("default:t").ok());
  EXPECT_TRUE(router_->DescribeTable("t").status().IsNotFound());
}

TEST_F(RouterNamespaceTest, ANonEmptyNamespaceIsNotDeleted) {
  ASSERT_TRUE(router_->CreateNamespace({"geo", {}}).ok());
  ASSERT_TRUE(router_->CreateTable(Spec("geo:a")).ok());
  ASSERT_TRUE(router_->CreateTable(Spec("geo:b")).ok());
  Status s = router_->DeleteNamespace("geo");
  EXPECT_TRUE(s.IsInvalidArgument());
  EXPECT_THAT(s.message(),
              HasSubstr("Only empty namespaces can be removed. Namespace "
                        "'geo' has 2 tables"));
  ASSERT_TRUE(router_->DeleteTable("geo:a").ok());
  ASSERT_TRUE(router_->DeleteTable("geo:b").ok());
  ASSERT_TRUE(router_->DeleteNamespace("geo").ok());
  EXPECT_TRUE(router_->CreateTable(Spec("geo:a")).status().IsNotFound());
}

}  // namespace
}  // namespace bloomroute
