// Router::ModifyTable: HBase's online schema change -- families and
// attributes replaced, an index added through the bloomroute.index
// attribute built by the same online backfill as AddIndex, one left out
// dropped as DropIndex drops it, and a family holding cells not removed.
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
using IndexState = router::IndexState;

class RouterModifyTableTest : public ::testing::Test {
 protected:
  void SetUp() override {
    router_ = testing::OpenRouter(cluster_);
    ASSERT_NE(router_, nullptr);
    router::TableSpec spec = Schema("d:country");
    spec.split_keys = {"m"};
    ASSERT_TRUE(router_->CreateTable(spec).ok());
    ASSERT_TRUE(router_
                    ->Mutate("geo", {PutRow("a1", "NO", "city"),
                                     PutRow("q1", "SE", "town"),
                                     PutRow("z1", "NO", "town")})
                    .ok());
  }
  // geo's schema: families d and e, indexed columns `index` (attribute).
  static router::TableSpec Schema(const std::string& index) {
    router::TableSpec spec;
    spec.name = "geo";
    spec.families = {"d", "e"};
    spec.attributes = {{"owner", "ops"}};
    if (!index.empty()) spec.attributes["bloomroute.index"] = index;
    return spec;
  }
  std::vector<IndexState::State> States() {
    std::vector<IndexState::State> out;
    const StatusOr<std::vector<IndexState>> states =
        router_->IndexStatus("geo");
    EXPECT_TRUE(states.ok()) << states.status().ToString();
    if (!states.ok()) return out;
    for (const IndexState& s : *states) out.push_back(s.state);
    return out;
  }
  void RunUntilSettled() {
    for (int i = 0; i < 1000; ++i) {
      bool busy = false;
      for (IndexState::State s : States()) {
        busy = busy || s != IndexState::State::kReady;
      }
      if (!busy) return;
      router_->RunMaintenance();
    }
    FAIL() << "the index task did not finish";
  }

  StoreCluster cluster_{2};
  std::unique_ptr<router::Router> router_;
};

TEST_F(RouterModifyTableTest, AnIndexAddedByTheAttributeBackfillsOnline) {
  ASSERT_TRUE(router_->ModifyTable(Schema("d:country,d:feature")).ok());
  // Building: refused by lookups, named by IndexStatus, not described.
  auto early = router_->Lookup("geo", WhereEq({{"d:feature", "town"}}));
  EXPECT_TRUE(early.status().IsInvalidArgument());
  EXPECT_THAT(early.status().message(), HasSubstr("building"));
  EXPECT_EQ(router_->IndexStatus("geo")->size(), 2u);
  // Writes go on meanwhile and are found once it is built.
  ASSERT_TRUE(router_->Mutate("geo", {PutRow("b1", "DK", "town")}).ok());
  RunUntilSettled();
  auto found = router_->Lookup("geo", WhereEq({{"d:feature", "town"}}));
  ASSERT_TRUE(found.ok()) << found.status().ToString();
  EXPECT_THAT(Keys(found->rows), ElementsAre("b1", "q1", "z1"));
  const TableDescriptor d = router_->DescribeTable("geo")->descriptor;
  EXPECT_EQ(d.attributes.at("bloomroute.index"), "d:country,d:feature");
  EXPECT_EQ(d.attributes.at("owner"), "ops");
  EXPECT_TRUE(*router_->IsTableEnabled("geo"));
}

TEST_F(RouterModifyTableTest, AColumnLeftOutOfTheAttributeIsDropped) {
  ASSERT_TRUE(router_->ModifyTable(Schema("d:feature")).ok());
  auto gone = router_->Lookup("geo", WhereEq({{"d:country", "NO"}}));
  EXPECT_TRUE(gone.status().IsInvalidArgument());
  RunUntilSettled();
  ASSERT_EQ(router_->IndexStatus("geo")->size(), 1u);
  EXPECT_EQ((*router_->IndexStatus("geo"))[0].column, "d:feature");
  auto found = router_->Lookup("geo", WhereEq({{"d:feature", "city"}}));
  ASSERT_TRUE(found.ok()) << found.status().ToString();
  EXPECT_THAT(Keys(found->rows), ElementsAre("a1"));
}

TEST_F(RouterModifyTableTest, FamiliesAndAttributesAreReplaced) {
  router::TableSpec spec = Schema("d:country");
  spec.families = {"d", "e", "f"};
  spec.attributes["owner"] = "dev";
  ASSERT_TRUE(router_->ModifyTable(spec).ok());
  const TableDescriptor d = router_->DescribeTable("default:geo")->descriptor;
  EXPECT_THAT(d.families, ElementsAre("d", "e", "f"));
  EXPECT_EQ(d.attributes.at("owner"), "dev");
  ASSERT_TRUE(
      router_->Mutate("geo", {Mutation::Put(0, "f1", {{"f:x", "1"}})}).ok());
  // Family e holds no cell: it may go.
  spec.families = {"d", "f"};
  ASSERT_TRUE(router_->ModifyTable(spec).ok());
  EXPECT_THAT(router_->DescribeTable("geo")->descriptor.families,
              ElementsAre("d", "f"));
  EXPECT_TRUE(router_->Mutate("geo", {Mutation::Put(0, "e1", {{"e:x", "1"}})})
                  .IsInvalidArgument());
}

TEST_F(RouterModifyTableTest, AFamilyHoldingCellsIsNotRemoved) {
  ASSERT_TRUE(
      router_->Mutate("geo", {Mutation::Put(0, "e1", {{"e:x", "1"}})}).ok());
  router::TableSpec spec = Schema("d:country");
  spec.families = {"d"};
  Status s = router_->ModifyTable(spec);
  EXPECT_TRUE(s.IsInvalidArgument());
  EXPECT_THAT(s.message(), HasSubstr("holds cells of family 'e'"));
  EXPECT_THAT(router_->DescribeTable("geo")->descriptor.families,
              ElementsAre("d", "e"));
  // Its cells deleted, it goes.
  const Status deleted =
      router_->Mutate("geo", {Mutation::Delete(0, "e1", {"e:x"})});
  ASSERT_TRUE(deleted.ok()) << deleted.ToString();
  ASSERT_TRUE(router_->ModifyTable(spec).ok());
  // A family with an indexed column cannot go while the column is indexed.
  spec.families = {"e"};
  spec.attributes.erase("bloomroute.index");
  spec.indexed_columns = {"d:country"};
  EXPECT_TRUE(router_->ModifyTable(spec).IsInvalidArgument());
}

TEST_F(RouterModifyTableTest, BadRequestsAreRefused) {
  router::TableSpec spec = Schema("d:country");
  spec.name = "nope";
  EXPECT_TRUE(router_->ModifyTable(spec).IsNotFound());
  spec = Schema("d:country");
  spec.split_keys = {"k"};
  EXPECT_TRUE(router_->ModifyTable(spec).IsInvalidArgument());
  spec = Schema("x:y");  // family x is not declared
  EXPECT_TRUE(router_->ModifyTable(spec).IsInvalidArgument());
  EXPECT_EQ(router_->IndexStatus("geo")->size(), 1u);
}

}  // namespace
}  // namespace bloomroute
