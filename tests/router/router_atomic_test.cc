// Router: atomic row operations (checkAndMutate, increment, append,
// mutateRow) routed to the row's region over in-process region stores; their
// results are visible to lookups as soon as they return.
#include <gtest/gtest.h>

#include <atomic>
#include <thread>

#include "model/atomic_ops.h"
#include "router/router.h"
#include "tests/router/router_test_util.h"

namespace bloomroute::router {
namespace {

using testing::Keys;
using testing::PutRow;
using testing::StoreCluster;
using testing::WhereEq;

// The stores' clock: puts are stamped kNow; an increment or append of a
// cell stamped kNow or later is stamped one more than the cell.
constexpr int64_t kNow = 1700000000000;
RegionStoreOptions FixedClock() {
  RegionStoreOptions options;
  options.clock_ms = [] { return kNow; };
  return options;
}

TableSpec Places() {
  TableSpec s;
  s.name = "places";
  s.indexed_columns = {"d:country", "d:feature"};
  s.split_keys = {"g", "n", "t"};
  return s;
}

class RouterAtomicTest : public ::testing::Test {
 protected:
  void SetUp() override {
    router_ = testing::OpenRouter(cluster_);
    ASSERT_NE(router_, nullptr);
    ASSERT_TRUE(router_->CreateTable(Places()).ok());
  }
  // The keys of the rows whose `column` equals `value`, from the index.
  std::vector<std::string> Where(const std::string& column,
                                 const std::string& value) {
    StatusOr<LookupResult> r =
        router_->Lookup("places", WhereEq({{column, value}}));
    EXPECT_TRUE(r.ok()) << r.status().ToString();
    return r.ok() ? Keys(r->rows) : std::vector<std::string>{"<error>"};
  }
  std::optional<Row> GetRow(const std::string& key) {
    auto rows = router_->Get("places", {GetRequest{0, key, {}}});
    EXPECT_TRUE(rows.ok()) << rows.status().ToString();
    return rows.ok() ? (*rows)[0] : std::nullopt;
  }

  StoreCluster cluster_{4, FixedClock()};
  std::unique_ptr<Router> router_;
};

TEST_F(RouterAtomicTest, CheckAndPutAppliesOnlyWhenTheCheckHolds) {
  ASSERT_TRUE(router_->Mutate("places", {PutRow("oslo", "NO", "PPLC")}).ok());
  const RowCondition is_se{"d:country", CompareOp::kEqual, "SE"};
  StatusOr<bool> applied = router_->CheckAndMutate(
      "places", "oslo", is_se,
      {Mutation::Put(0, "oslo", {{"d:country", "DK"}})});
  ASSERT_TRUE(applied.ok()) << applied.status().ToString();
  EXPECT_FALSE(*applied);
  EXPECT_EQ(Where("d:country", "NO"), std::vector<std::string>{"oslo"});

  const RowCondition is_no{"d:country", CompareOp::kEqual, "NO"};
  applied =
      router_->CheckAndMutate("places", "oslo", is_no,
                              {Mutation::Put(0, "oslo", {{"d:country", "DK"}}),
                               Mutation::Delete(0, "oslo", {"d:feature"})});
  ASSERT_TRUE(applied.ok()) << applied.status().ToString();
  EXPECT_TRUE(*applied);
  // At once, through the index and its filters.
  EXPECT_EQ(Where("d:country", "DK"), std::vector<std::string>{"oslo"});
  EXPECT_TRUE(Where("d:country", "NO").empty());
  EXPECT_TRUE(Where("d:feature", "PPLC").empty());

  // Absent column with an unset value: the check of "put if absent".
  const RowCondition absent{"d:feature", CompareOp::kEqual, std::nullopt};
  applied =
      router_->CheckAndMutate("places", "oslo", absent,
                              {Mutation::Put(0, "oslo", {{"d:feature", "P"}})});
  ASSERT_TRUE(applied.ok());
  EXPECT_TRUE(*applied);
  applied =
      router_->CheckAndMutate("places", "oslo", absent,
                              {Mutation::Put(0, "oslo", {{"d:feature", "Q"}})});
  ASSERT_TRUE(applied.ok());
  EXPECT_FALSE(*applied);
  EXPECT_EQ(Where("d:feature", "P"), std::vector<std::string>{"oslo"});
}

TEST_F(RouterAtomicTest, ChecksAndMutationsMustNameTheSameRow) {
  const RowCondition c{"d:country", CompareOp::kEqual, std::nullopt};
  StatusOr<bool> applied = router_->CheckAndMutate(
      "places", "oslo", c, {Mutation::Put(0, "bergen", {{"d:country", "NO"}})});
  ASSERT_FALSE(applied.ok());
  EXPECT_TRUE(applied.status().IsInvalidArgument());
  EXPECT_NE(applied.status().message().find("bergen"), std::string::npos)
      << applied.status().ToString();
  EXPECT_TRUE(router_
                  ->MutateRow("places", "oslo",
                              {Mutation::Put(0, "oslo", {{"d:a", "1"}}),
                               Mutation::Delete(0, "bergen")})
                  .IsInvalidArgument());
  EXPECT_TRUE(router_->MutateRow("places", "oslo", {}).IsInvalidArgument());
  EXPECT_TRUE(
      router_->Increment("places", "oslo", {}).status().IsInvalidArgument());
  EXPECT_TRUE(
      router_->Append("nosuch", "oslo", {{"d:a", "x"}}).status().IsNotFound());
  EXPECT_FALSE(GetRow("oslo").has_value());
}

// Mutate may split a call into several writes and answers no outcomes.
TEST_F(RouterAtomicTest, MutateRefusesWhatMustBeAtomicOrAnswered) {
  Mutation conditional = PutRow("oslo", "NO", "PPLC");
  conditional.condition = RowCondition{"d:country", CompareOp::kEqual, "NO"};
  for (const Mutation& m :
       {conditional, Mutation::Increment(0, "oslo", {{"d:n", 1}}),
        Mutation::Append(0, "oslo", {{"d:n", "x"}})}) {
    Status s = router_->Mutate("places", {m});
    EXPECT_TRUE(s.IsInvalidArgument()) << s.ToString();
  }
  EXPECT_FALSE(GetRow("oslo").has_value());
}

TEST_F(RouterAtomicTest, IncrementReturnsTheNewValuesAndTheIndexFollows) {
  StatusOr<Row> row = router_->Increment("places", "umea",
                                         {{"d:country", 41}, {"d:visits", -2}});
  ASSERT_TRUE(row.ok()) << row.status().ToString();
  EXPECT_EQ(row->key, "umea");
  EXPECT_EQ(row->cells,
            (std::vector<Cell>{{"d:country", EncodeLong(41), kNow},
                               {"d:visits", EncodeLong(-2), kNow}}));
  // In the same millisecond: stamped after the cell it replaces.
  row = router_->Increment("places", "umea", {{"d:country", 1}});
  ASSERT_TRUE(row.ok()) << row.status().ToString();
  EXPECT_EQ(row->cells,
            (std::vector<Cell>{{"d:country", EncodeLong(42), kNow + 1}}));
  EXPECT_EQ(Where("d:country", EncodeLong(42)),
            std::vector<std::string>{"umea"});
  EXPECT_TRUE(Where("d:country", EncodeLong(41)).empty());

  ASSERT_TRUE(router_->Mutate("places", {PutRow("visby", "SE", "PPL")}).ok());
  row = router_->Increment("places", "visby", {{"d:country", 1}});
  ASSERT_FALSE(row.ok());
  EXPECT_TRUE(row.status().IsInvalidArgument());
  EXPECT_NE(row.status().message().find("Field is not a long, it's 2 bytes"),
            std::string::npos)
      << row.status().ToString();
  EXPECT_EQ(Where("d:country", "SE"), std::vector<std::string>{"visby"});
}

TEST_F(RouterAtomicTest, AppendReturnsTheNewValuesAndTheIndexFollows) {
  ASSERT_TRUE(router_->Mutate("places", {PutRow("tromso", "N", "PPL")}).ok());
  StatusOr<Row> row = router_->Append("places", "tromso", {{"d:country", "O"}});
  ASSERT_TRUE(row.ok()) << row.status().ToString();
  EXPECT_EQ(row->cells, (std::vector<Cell>{{"d:country", "NO", kNow + 1}}));
  EXPECT_EQ(Where("d:country", "NO"), std::vector<std::string>{"tromso"});
  EXPECT_TRUE(Where("d:country", "N").empty());
}

TEST_F(RouterAtomicTest, MutateRowAppliesInOrderAtOnce) {
  ASSERT_TRUE(router_->Mutate("places", {PutRow("hamar", "NO", "PPL")}).ok());
  ASSERT_TRUE(router_
                  ->MutateRow("places", "hamar",
                              {Mutation::Delete(0, "hamar"),
                               Mutation::Put(0, "hamar", {{"d:feature", "X"}}),
                               Mutation::Put(0, "hamar", {{"d:feature", "Y"}})})
                  .ok());
  EXPECT_TRUE(Where("d:country", "NO").empty());
  EXPECT_TRUE(Where("d:feature", "X").empty());
  EXPECT_EQ(Where("d:feature", "Y"), std::vector<std::string>{"hamar"});
  EXPECT_EQ(GetRow("hamar")->cells,
            (std::vector<Cell>{{"d:feature", "Y", kNow}}));
}

TEST_F(RouterAtomicTest, ConcurrentIncrementsThroughTheRouterAllCount) {
  constexpr int kThreads = 6;
  constexpr int kEach = 50;
  std::atomic<int> failed{0};
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&] {
      for (int i = 0; i < kEach; ++i) {
        if (!router_->Increment("places", "kiruna", {{"d:country", 1}}).ok()) {
          ++failed;
        }
      }
    });
  }
  for (auto& t : threads) t.join();
  EXPECT_EQ(failed.load(), 0);
  // One clock reading for all: each increment was stamped one more than the
  // one before it.
  EXPECT_EQ(GetRow("kiruna")->cells,
            (std::vector<Cell>{{"d:country", EncodeLong(kThreads * kEach),
                                kNow + kThreads * kEach - 1}}));
  EXPECT_EQ(Where("d:country", EncodeLong(kThreads * kEach)),
            std::vector<std::string>{"kiruna"});
}

// A region client whose replies to increments get lost after the store
// applied them: the router must not send the increment again.
class LosingClient : public testing::StoreRegionClient {
 public:
  LosingClient(std::shared_ptr<StoreCluster::Node> node,
               std::atomic<int>* applies)
      : StoreRegionClient(std::move(node)), applies_(applies) {}
  StatusOr<WriteResult> Apply(const std::vector<Mutation>& batch,
                              uint64_t fence_token) override {
    auto result = StoreRegionClient::Apply(batch, fence_token);
    if (batch.empty() || batch[0].kind != Mutation::Kind::kIncrement) {
      return result;
    }
    ++*applies_;
    return Status::Unavailable("connection reset: the reply was lost");
  }

 private:
  std::atomic<int>* const applies_;
};

TEST(RouterLostReplyTest, AnIncrementWhoseReplyIsLostIsNotSentTwice) {
  StoreCluster cluster(1, FixedClock());
  std::atomic<int> applies{0};
  class Factory : public RegionClientFactory {
   public:
    Factory(std::shared_ptr<StoreCluster::Node> node, std::atomic<int>* a)
        : node_(std::move(node)), a_(a) {}
    StatusOr<std::unique_ptr<RegionClient>> Connect(
        ServerId, const std::string&) override {
      return std::unique_ptr<RegionClient>(
          std::make_unique<LosingClient>(node_, a_));
    }

   private:
    std::shared_ptr<StoreCluster::Node> node_;
    std::atomic<int>* a_;
  };
  auto router =
      Router::Open(testing::RouterOptionsFor(cluster),
                   std::make_shared<Factory>(cluster.shared_node(0), &applies));
  ASSERT_TRUE(router.ok()) << router.status().ToString();
  ASSERT_TRUE((*router)->CreateTable(Places()).ok());
  StatusOr<Row> row = (*router)->Increment("places", "k", {{"d:n", 1}});
  ASSERT_FALSE(row.ok());
  EXPECT_TRUE(row.status().IsUnavailable()) << row.status().ToString();
  EXPECT_EQ(applies.load(), 1);
  // Applied once: the client sees an error and the count moved by one.
  uint64_t region_id = 0;
  StatusOr<TableInfo> info = (*router)->DescribeTable("places");
  ASSERT_TRUE(info.ok());
  for (const RegionLocation& r : info->regions) {
    if (r.region.ContainsRow("k")) region_id = r.region.region_id;
  }
  auto rows = cluster.store(0)->Get({GetRequest{region_id, "k", {}}});
  ASSERT_TRUE(rows.ok());
  ASSERT_TRUE((*rows)[0].has_value());
  EXPECT_EQ((*rows)[0]->cells,
            (std::vector<Cell>{{"d:n", EncodeLong(1), kNow}}));
}

}  // namespace
}  // namespace bloomroute::router
