// RowCalls: writes split by region and chunk, each server's part sent once
// per chunk; the atomic row operations on one row's server; gets answered
// in request order across servers; bad input refused before any server is
// called.
#include "router/internal/row_calls.h"

#include <gtest/gtest.h>

#include <optional>
#include <string>
#include <vector>

#include "model/atomic_ops.h"
#include "router/internal/write_path.h"
#include "tests/router/component_cluster.h"

namespace bloomroute::router_internal {
namespace {

constexpr int kServers = 3;

Mutation Put(std::string row, std::string value) {
  return Mutation::Put(0, std::move(row), {{"d:country", std::move(value)}});
}

class RowCallsTest : public ::testing::Test {
 protected:
  // Table "t": regions [, g) [g, p) [p, ) on servers 0, 1 and 2.
  void SetUp() override {
    table_ = cluster_.CreateTable("t", {"g", "p"}, {0, 1, 2});
  }
  std::optional<Row> GetRow(const std::string& key) {
    GetRequest g;
    g.row_key = key;
    StatusOr<std::vector<std::optional<Row>>> rows = calls_.Get("t", {g});
    EXPECT_TRUE(rows.ok()) << rows.status().ToString();
    return rows.ok() && rows->size() == 1 ? (*rows)[0] : std::nullopt;
  }

  testing::ComponentCluster cluster_{kServers};
  RowCalls calls_{cluster_.ctx()};
  CatalogTable table_;
};

TEST_F(RowCallsTest, MutateReachesEachServerOncePerChunk) {
  // 1,500 rows in region [, g) (two chunks of kRowsPerRpc), 10 in [g, p),
  // none in [p, ).
  std::vector<Mutation> rows;
  for (size_t i = 0; i < kRowsPerRpc + 500; ++i) {
    rows.push_back(Put("a" + std::to_string(i), "SE"));
  }
  for (int i = 0; i < 10; ++i)
    rows.push_back(Put("h" + std::to_string(i), "NO"));
  ASSERT_TRUE(calls_.Mutate("t", std::move(rows)).ok());
  EXPECT_EQ(cluster_.Calls(0, "Apply"), 2);
  EXPECT_EQ(cluster_.Calls(1, "Apply"), 1);
  EXPECT_EQ(cluster_.Calls(2, "Apply"), 0);
  const std::optional<Row> row = GetRow("h3");
  ASSERT_TRUE(row.has_value());
  EXPECT_EQ(row->cells.front().value, "NO");
  EXPECT_TRUE(GetRow("a1499").has_value());
}

TEST_F(RowCallsTest, MutateRefusesWhatMustBeAtomicBeforeAnyServerIsCalled) {
  Mutation conditional = Put("b", "SE");
  conditional.condition = RowCondition{"d:country", CompareOp::kEqual, "NO"};
  EXPECT_TRUE(
      calls_.Mutate("t", {Put("a", "SE"), conditional}).IsInvalidArgument());
  EXPECT_TRUE(calls_.Mutate("t", {Mutation::Increment(0, "a", {{"d:n", 1}})})
                  .IsInvalidArgument());
  // A family the table does not declare.
  EXPECT_TRUE(calls_.Mutate("t", {Mutation::Put(0, "a", {{"x:y", "1"}})})
                  .IsInvalidArgument());
  EXPECT_TRUE(calls_.Mutate("none", {Put("a", "SE")}).IsNotFound());
  EXPECT_EQ(cluster_.Calls(0, "Apply"), 0);
  EXPECT_FALSE(GetRow("a").has_value());
}

TEST_F(RowCallsTest, AFailedServerFailsTheCallAndTheOthersAreWritten) {
  cluster_.Fail(1);
  const Status s = calls_.Mutate("t", {Put("a", "SE"), Put("h", "NO")});
  EXPECT_TRUE(s.IsUnavailable()) << s.ToString();
  EXPECT_NE(s.message().find("server-1"), std::string::npos) << s.ToString();
  cluster_.Fail(-1);
  EXPECT_TRUE(GetRow("a").has_value());
  EXPECT_FALSE(GetRow("h").has_value());
}

TEST_F(RowCallsTest, AtomicOperationsGoToTheRowsServerOnly) {
  StatusOr<Row> row = calls_.Increment("t", "q", {{"d:n", 41}});
  ASSERT_TRUE(row.ok()) << row.status().ToString();
  row = calls_.Increment("t", "q", {{"d:n", 1}});
  ASSERT_TRUE(row.ok()) << row.status().ToString();
  EXPECT_EQ(row->cells.front().value, EncodeLong(42));
  EXPECT_EQ(cluster_.Calls(2, "Apply"), 2);
  EXPECT_EQ(cluster_.Calls(0, "Apply") + cluster_.Calls(1, "Apply"), 0);

  const RowCondition is_se{"d:country", CompareOp::kEqual, "SE"};
  StatusOr<bool> applied =
      calls_.CheckAndMutate("t", "q", is_se, {Put("q", "DK")});
  ASSERT_TRUE(applied.ok()) << applied.status().ToString();
  EXPECT_FALSE(*applied);
  ASSERT_TRUE(calls_.MutateRow("t", "q", {Put("q", "SE")}).ok());
  applied = calls_.CheckAndMutate("t", "q", is_se, {Put("q", "DK")});
  ASSERT_TRUE(applied.ok()) << applied.status().ToString();
  EXPECT_TRUE(*applied);
  row = calls_.Append("t", "q", {{"d:country", "!"}});
  ASSERT_TRUE(row.ok()) << row.status().ToString();
  EXPECT_EQ(row->cells.front().value, "DK!");
}

TEST_F(RowCallsTest, AtomicOperationsRefuseAnotherRowOrAConditionInMutateRow) {
  EXPECT_TRUE(calls_.MutateRow("t", "q", {Put("r", "SE")}).IsInvalidArgument());
  Mutation conditional = Put("q", "SE");
  conditional.condition = RowCondition{"d:country", CompareOp::kEqual, "NO"};
  EXPECT_TRUE(calls_.MutateRow("t", "q", {conditional}).IsInvalidArgument());
  EXPECT_TRUE(calls_.Increment("t", "q", {}).status().IsInvalidArgument());
  EXPECT_TRUE(
      calls_.Append("t", "", {{"d:n", "x"}}).status().IsInvalidArgument());
  EXPECT_EQ(cluster_.Calls(2, "Apply"), 0);
}

TEST_F(RowCallsTest, GetAnswersInRequestOrderAcrossServers) {
  ASSERT_TRUE(
      calls_.Mutate("t", {Put("a", "1"), Put("h", "2"), Put("z", "3")}).ok());
  cluster_.ResetCalls();
  std::vector<GetRequest> gets(4);
  gets[0].row_key = "z";
  gets[1].row_key = "a";
  gets[2].row_key = "missing";
  gets[3].row_key = "h";
  StatusOr<std::vector<std::optional<Row>>> rows = calls_.Get("t", gets);
  ASSERT_TRUE(rows.ok()) << rows.status().ToString();
  ASSERT_EQ(rows->size(), 4u);
  EXPECT_EQ((*rows)[0]->key, "z");
  EXPECT_EQ((*rows)[1]->key, "a");
  EXPECT_FALSE((*rows)[2].has_value());
  EXPECT_EQ((*rows)[3]->cells.front().value, "2");
  for (int node = 0; node < kServers; ++node) {
    EXPECT_EQ(cluster_.Calls(node, "Get"), 1) << node;
  }
}

TEST_F(RowCallsTest, GetAppliesItsFilterOnTheRouter) {
  ASSERT_TRUE(calls_.Mutate("t", {Put("a", "SE"), Put("b", "NO")}).ok());
  std::vector<GetRequest> gets(2);
  gets[0].row_key = "a";
  gets[1].row_key = "b";
  for (GetRequest& g : gets) {
    g.filter = "SingleColumnValueFilter('d', 'country', =, 'binary:SE')";
  }
  StatusOr<std::vector<std::optional<Row>>> rows = calls_.Get("t", gets);
  ASSERT_TRUE(rows.ok()) << rows.status().ToString();
  EXPECT_TRUE((*rows)[0].has_value());
  EXPECT_FALSE((*rows)[1].has_value());
  gets[0].filter = "NoSuchFilter()";
  EXPECT_TRUE(calls_.Get("t", gets).status().IsInvalidArgument());
}

TEST_F(RowCallsTest, BulkLoadRefusesARegionOfAnotherTableOrAnEmptyFile) {
  EXPECT_TRUE(calls_.BulkLoad("t", 99, "bytes").IsInvalidArgument());
  EXPECT_TRUE(calls_.BulkLoad("t", table_.regions[0].region_id, "")
                  .IsInvalidArgument());
  // A region of the table reaches its server (which refuses the bytes).
  EXPECT_FALSE(
      calls_.BulkLoad("t", table_.regions[1].region_id, "not a bulk file")
          .ok());
  EXPECT_EQ(cluster_.Calls(1, "Apply"), 1);
  EXPECT_EQ(cluster_.Calls(0, "Apply") + cluster_.Calls(2, "Apply"), 0);
}

}  // namespace
}  // namespace bloomroute::router_internal
