// The router passes cell timestamps, delete specs and time ranges through
// unchanged: what a client gives comes back on get, scan, scanners and
// lookups, over in-process region stores (tests/router/store_cluster.h).
#include <gtest/gtest.h>

#include "router/router.h"
#include "tests/router/router_test_util.h"

namespace bloomroute::router {
namespace {

using testing::Keys;
using testing::StoreCluster;
using testing::WhereEq;

class RouterTimestampTest : public ::testing::Test {
 protected:
  void SetUp() override {
    router_ = testing::OpenRouter(cluster_);
    ASSERT_NE(router_, nullptr);
    TableSpec spec;
    spec.name = "places";
    spec.indexed_columns = {"d:country"};
    spec.split_keys = {"m"};
    ASSERT_TRUE(router_->CreateTable(spec).ok());
    // "bergen" and "oslo" on different regions (and servers).
    ASSERT_TRUE(
        router_
            ->Mutate("places",
                     {Mutation::Put(0, "bergen", {{"d:country", "NO", 100}}),
                      Mutation::Put(
                          0, "oslo",
                          {{"d:country", "NO", 200}, {"d:name", "Oslo", 50}})})
            .ok());
  }

  std::optional<Row> GetRow(const std::string& key, TimeRange range = {}) {
    GetRequest g;
    g.row_key = key;
    g.time_range = range;
    auto got = router_->Get("places", {g});
    EXPECT_TRUE(got.ok()) << got.status().ToString();
    return got.ok() ? (*got)[0] : std::nullopt;
  }

  StoreCluster cluster_{2};
  std::unique_ptr<Router> router_;
};

TEST_F(RouterTimestampTest, AClientsTimestampComesBackOnGet) {
  EXPECT_EQ(GetRow("bergen"), (Row{"bergen", {{"d:country", "NO", 100}}}));
  EXPECT_EQ(GetRow("oslo", {100, 300}),
            (Row{"oslo", {{"d:country", "NO", 200}}}));
  EXPECT_EQ(GetRow("oslo", {0, 50}), std::nullopt);
  // An older put is ignored; a delete spec with a timestamp applies.
  ASSERT_TRUE(router_
                  ->Mutate("places", {Mutation::Put(0, "bergen",
                                                    {{"d:country", "SE", 99}})})
                  .ok());
  EXPECT_EQ(GetRow("bergen"), (Row{"bergen", {{"d:country", "NO", 100}}}));
  Mutation del = Mutation::Delete(0, "oslo");
  del.deletes = {{DeleteSpec::Kind::kColumns, "d:name", 50}};
  ASSERT_TRUE(router_->Mutate("places", {del}).ok());
  EXPECT_EQ(GetRow("oslo"), (Row{"oslo", {{"d:country", "NO", 200}}}));
}

TEST_F(RouterTimestampTest, ScansScannersAndLookupsTakeTheTimeRange) {
  ScanSpec spec;
  spec.time_range = {150, 250};
  auto scanned = router_->Scan("places", spec, 10);
  ASSERT_TRUE(scanned.ok()) << scanned.status().ToString();
  EXPECT_EQ(scanned->rows,
            (std::vector<Row>{Row{"oslo", {{"d:country", "NO", 200}}}}));
  auto id = router_->OpenScanner("places", spec);
  ASSERT_TRUE(id.ok()) << id.status().ToString();
  auto page = router_->ScannerNext(*id, 10);
  ASSERT_TRUE(page.ok()) << page.status().ToString();
  EXPECT_EQ(Keys(*page), std::vector<std::string>{"oslo"});
  ASSERT_TRUE(router_->CloseScanner(*id).ok());

  LookupSpec q = WhereEq({{"d:country", "NO"}});
  EXPECT_EQ(Keys(router_->Lookup("places", q)->rows),
            (std::vector<std::string>{"bergen", "oslo"}));
  q.time_range = {0, 150};
  auto found = router_->Lookup("places", q);
  ASSERT_TRUE(found.ok()) << found.status().ToString();
  EXPECT_EQ(found->rows,
            (std::vector<Row>{Row{"bergen", {{"d:country", "NO", 100}}}}));
}

TEST_F(RouterTimestampTest, NegativeTimestampsAreRefusedByTheRouter) {
  Status s = router_->Mutate(
      "places", {Mutation::Put(0, "bergen", {{"d:country", "SE", -1}})});
  EXPECT_TRUE(s.IsInvalidArgument()) << s.ToString();
  Mutation del = Mutation::Delete(0, "bergen");
  del.timestamp = -1;
  EXPECT_TRUE(router_->Mutate("places", {del}).IsInvalidArgument());
  ScanSpec spec;
  spec.time_range = {5, 4};
  EXPECT_TRUE(router_->Scan("places", spec, 10).status().IsInvalidArgument());
  LookupSpec q = WhereEq({{"d:country", "NO"}});
  q.time_range = {-1, 4};
  EXPECT_TRUE(router_->Lookup("places", q).status().IsInvalidArgument());
}

}  // namespace
}  // namespace bloomroute::router
