// Router::Lookup and Router::Count with every predicate kind: IN lists route
// to the union of their values' candidate servers, a conjunction to the
// intersection, a range or prefix alone to every server of the table (and
// says so); answers merge in row-key order and resume with after_row.
#include <gtest/gtest.h>

#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "model/index_predicate.h"
#include "router/router.h"
#include "tests/router/router_test_util.h"

namespace bloomroute {
namespace {

using router::CountResult;
using router::LookupResult;
using router::LookupSpec;
using router::Router;
using router::ServerId;
using router::TableInfo;
using router::TableSpec;
using testing::Ids;
using testing::Keys;
using testing::PutRow;
using testing::StoreCluster;

class RouterPredicateTest : public ::testing::Test {
 protected:
  void SetUp() override {
    router_ = testing::OpenRouter(cluster_);
    ASSERT_NE(router_, nullptr);
    TableSpec s;
    s.name = "places";
    s.indexed_columns = {"d:country", "d:feature"};
    s.split_keys = {"g", "n", "t"};
    StatusOr<TableInfo> t = router_->CreateTable(s);
    ASSERT_TRUE(t.ok()) << t.status().ToString();
    table_ = *t;
    ASSERT_TRUE(testing::WaitAllCurrent(*router_));
    ASSERT_TRUE(router_
                    ->Mutate("places", {PutRow("apple", "NO", "PPL"),
                                        PutRow("house", "SE", "PPL"),
                                        PutRow("pear", "SE", "PPLA"),
                                        PutRow("tree", "NL", "PPLC"),
                                        PutRow("zebra", "DK", "PPL")})
                    .ok());
  }
  ServerId ServerOf(const std::string& row) const {
    for (const router::RegionLocation& r : table_.regions) {
      if (r.region.ContainsRow(row)) return r.server.id;
    }
    return 0;
  }
  static LookupSpec Where(std::vector<IndexPredicate> where,
                          uint32_t limit = 0) {
    LookupSpec s;
    s.where = std::move(where);
    s.limit = limit;
    return s;
  }
  // Every key, asking again with after_row while truncated.
  std::vector<std::string> Drain(LookupSpec spec) {
    std::vector<std::string> keys;
    for (int call = 0; call < 1000; ++call) {
      StatusOr<LookupResult> r = router_->Lookup("places", spec);
      EXPECT_TRUE(r.ok()) << r.status().ToString();
      if (!r.ok()) break;
      for (const Row& row : r->rows) keys.push_back(row.key);
      if (!r->truncated) break;
      spec.after_row = r->resume_after;
    }
    return keys;
  }

  StoreCluster cluster_{4};
  std::unique_ptr<Router> router_;
  TableInfo table_;
};

TEST_F(RouterPredicateTest, InRoutesToTheUnionOfItsValuesServers) {
  StatusOr<LookupResult> r = router_->Lookup(
      "places", Where({{"d:country", IndexOp::kIn, {"NO", "DK", "XX"}}}));
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_EQ(Keys(r->rows), (std::vector<std::string>{"apple", "zebra"}));
  std::vector<ServerId> want = {ServerOf("apple"), ServerOf("zebra")};
  std::sort(want.begin(), want.end());
  EXPECT_EQ(Ids(r->routing.asked), want);  // "XX" is (almost surely) nowhere
  EXPECT_TRUE(r->routing.broadcast_reason.empty());
  EXPECT_EQ(Drain(Where({{"d:country", IndexOp::kIn, {"NO", "DK", "SE"}}}, 1)),
            (std::vector<std::string>{"apple", "house", "pear", "zebra"}));
}

TEST_F(RouterPredicateTest, ARangeAloneAsksEveryServerAndSaysSo) {
  StatusOr<LookupResult> r = router_->Lookup(
      "places", Where({{"d:country", IndexOp::kGreaterOrEqual, {"NO"}}}));
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_EQ(Keys(r->rows),
            (std::vector<std::string>{"apple", "house", "pear"}));
  EXPECT_EQ(r->routing.asked.size(), 4u);
  EXPECT_EQ(r->routing.broadcast_reason,
            "a range alone cannot be routed: asked every server of the table");
  EXPECT_EQ(Drain(Where({{"d:country", IndexOp::kLess, {"NO"}}}, 1)),
            (std::vector<std::string>{"tree", "zebra"}));
  EXPECT_EQ(Drain(Where({{"d:country", IndexOp::kGreater, {"NO"}}}, 1)),
            (std::vector<std::string>{"house", "pear"}));
  EXPECT_EQ(Drain(Where({{"d:country", IndexOp::kLessOrEqual, {"NO"}}})),
            (std::vector<std::string>{"apple", "tree", "zebra"}));
  EXPECT_EQ(
      Drain(Where({{"d:feature", IndexOp::kPrefix, {"PPL"}}}, 2)),
      (std::vector<std::string>{"apple", "house", "pear", "tree", "zebra"}));
  EXPECT_EQ(Drain(Where({{"d:feature", IndexOp::kPrefix, {"PPLA"}}})),
            (std::vector<std::string>{"pear"}));
  EXPECT_EQ(Drain(Where({{"d:country", IndexOp::kBetween, {"DK", "NL"}}})),
            (std::vector<std::string>{"tree", "zebra"}));
}

TEST_F(RouterPredicateTest, ARangeWithAnEqualityRoutesOnTheEquality) {
  LookupSpec spec = Where({{"d:feature", IndexOp::kGreater, {"PPL"}}});
  spec.equals = {{"d:country", "SE"}};
  StatusOr<LookupResult> r = router_->Lookup("places", spec);
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_EQ(Keys(r->rows), (std::vector<std::string>{"pear"}));
  std::vector<ServerId> want = {ServerOf("house"), ServerOf("pear")};
  std::sort(want.begin(), want.end());
  want.erase(std::unique(want.begin(), want.end()), want.end());
  EXPECT_EQ(Ids(r->routing.asked), want);
  EXPECT_TRUE(r->routing.broadcast_reason.empty());
}

TEST_F(RouterPredicateTest, CountAsksTheRoutedServersAndShipsNoRows) {
  StatusOr<CountResult> c = router_->Count(
      "places", Where({{"d:feature", IndexOp::kEqual, {"PPL"}}}));
  ASSERT_TRUE(c.ok()) << c.status().ToString();
  EXPECT_EQ(c->count, 3u);
  c = router_->Count("places",
                     Where({{"d:country", IndexOp::kIn, {"SE", "NL"}}}));
  ASSERT_TRUE(c.ok());
  EXPECT_EQ(c->count, 3u);
  EXPECT_TRUE(c->routing.broadcast_reason.empty());
  c = router_->Count("places", Where({{"d:country", IndexOp::kPrefix, {"N"}}}));
  ASSERT_TRUE(c.ok());
  EXPECT_EQ(c->count, 2u);
  EXPECT_EQ(c->routing.asked.size(), 4u);
  EXPECT_FALSE(c->routing.broadcast_reason.empty());
}

TEST_F(RouterPredicateTest, BadPredicatesAreRefusedByName) {
  auto error = [&](LookupSpec spec) {
    StatusOr<LookupResult> r = router_->Lookup("places", spec);
    EXPECT_FALSE(r.ok());
    return r.ok() ? std::string() : r.status().ToString();
  };
  EXPECT_NE(error(Where({{"d:name", IndexOp::kIn, {"x"}}})).find("not indexed"),
            std::string::npos);
  EXPECT_NE(error(Where({{"d:country", IndexOp::kIn, {}}})).find("empty"),
            std::string::npos);
  EXPECT_NE(
      error(Where({{"d:country", IndexOp::kIn, {"a", "a"}}})).find("twice"),
      std::string::npos);
  EXPECT_NE(error(Where({{"d:country", IndexOp::kLess, {"a", "b"}}}))
                .find("one value"),
            std::string::npos);
  EXPECT_NE(error(Where({{"d:country", IndexOp::kPrefix, {""}}}))
                .find("empty prefix"),
            std::string::npos);
  EXPECT_NE(error(Where({{"d:country", static_cast<IndexOp>(99), {"a"}}}))
                .find("operator"),
            std::string::npos);
  EXPECT_NE(error(LookupSpec()).find("predicate"), std::string::npos);
  // lower > upper is an empty answer, not an error.
  StatusOr<LookupResult> r = router_->Lookup(
      "places", Where({{"d:country", IndexOp::kBetween, {"SE", "DK"}}}));
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_TRUE(r->rows.empty());
}

}  // namespace
}  // namespace bloomroute
