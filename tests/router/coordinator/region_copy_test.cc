// RegionCopy: the rows of an operation's sources into its targets, against
// real stores (ComponentCluster).
#include "router/coordinator/region_copy.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "tests/router/component_cluster.h"

namespace bloomroute::router_internal {
namespace {

using testing::ComponentCluster;
using testing::RowKey;

constexpr int kRows = 120;

class RegionCopyTest : public ::testing::Test {
 protected:
  void SetUp() override {
    cluster_.CatchUp();
    table_ = cluster_.CreateTable("t", {}, {0});
    cluster_.PutRows(table_.regions[0], 0, kRows);
    // A split of the table's one region (on store 0) into two regions on
    // store 1, as RegionOps plans one but without recording it.
    op_.kind = CatalogRegionOp::Kind::kSplit;
    op_.sources = table_.regions;
    op_.targets = {{1000, "", RowKey(kRows / 2), cluster_.id(1)},
                   {1001, RowKey(kRows / 2), "", cluster_.id(1)}};
    state_.table_id = table_.descriptor.table_id;
    state_.sources = op_.sources;
  }

  // Every row of [begin, end) is in the target holding it, with `country`
  // when given; missing when `present` is false.
  void ExpectInTargets(int begin, int end, bool present = true) {
    for (int i = begin; i < end; ++i) {
      const CatalogRegion& target = op_.targets[i < kRows / 2 ? 0 : 1];
      const std::optional<Row> row = cluster_.GetRow(target, RowKey(i));
      EXPECT_EQ(row.has_value(), present) << RowKey(i);
    }
  }

  ComponentCluster cluster_{2};
  RegionCopy copy_{cluster_.ctx()};
  CatalogTable table_;
  CatalogRegionOp op_;
  ReshapeState state_;
};

TEST_F(RegionCopyTest, CopiesEveryRowOfTheSourcesIntoTheTargetHoldingIt) {
  ASSERT_TRUE(copy_.OpenTargets(table_.descriptor.table_id, op_).ok());
  ASSERT_TRUE(copy_.FenceSources(op_).ok());
  router::RegionOpResult result;
  const Status s = copy_.CopyRegionRows(op_, &result);
  ASSERT_TRUE(s.ok()) << s.ToString();
  EXPECT_EQ(result.rows_copied, static_cast<uint64_t>(kRows));
  EXPECT_GT(result.bytes_copied, 0u);
  ExpectInTargets(0, kRows);
  // The targets are staged: the store knows them, the source keeps serving.
  EXPECT_EQ(cluster_.StoreRegions(1), (std::set<uint64_t>{1000, 1001}));
  EXPECT_TRUE(cluster_.GetRow(table_.regions[0], RowKey(0)).has_value());
  EXPECT_TRUE(copy_.SyncTargets(op_).ok());
}

TEST_F(RegionCopyTest, CopiesWrittenRowsAgainAndDeletesTheRemovedOnes) {
  ASSERT_TRUE(copy_.OpenTargets(table_.descriptor.table_id, op_).ok());
  router::RegionOpResult result;
  ASSERT_TRUE(copy_.CopyRegionRows(op_, &result).ok());
  // Written after the first copy: a new row, a changed row, a deleted row.
  cluster_.PutRows(table_.regions[0], kRows, kRows + 1);
  std::vector<Mutation> changes;
  changes.push_back(Mutation::Put(table_.regions[0].region_id, RowKey(3),
                                  {{"d:country", "c9"}}));
  changes.push_back(Mutation::Delete(table_.regions[0].region_id, RowKey(70)));
  ASSERT_TRUE(cluster_.ctx()
                  .write_path->ApplyBatches(cluster_.server(0), changes)
                  .ok());
  for (int i : {3, 70, kRows}) state_.NoteWritten(RowKey(i));

  size_t noted = 0;
  const Status s = copy_.CopyWrittenRows(op_, state_, &result, &noted);
  ASSERT_TRUE(s.ok()) << s.ToString();
  EXPECT_EQ(noted, 3u);
  EXPECT_EQ(result.catch_up_rounds, 1u);
  EXPECT_EQ(result.rows_copied, static_cast<uint64_t>(kRows + 3));
  const std::optional<Row> changed = cluster_.GetRow(op_.targets[0], RowKey(3));
  ASSERT_TRUE(changed.has_value());
  ASSERT_EQ(changed->cells.size(), 1u);
  EXPECT_EQ(changed->cells[0].value, "c9");
  EXPECT_FALSE(cluster_.GetRow(op_.targets[1], RowKey(70)).has_value());
  EXPECT_TRUE(cluster_.GetRow(op_.targets[1], RowKey(kRows)).has_value());
  // Nothing noted since: a round with nothing to copy.
  ASSERT_TRUE(copy_.CopyWrittenRows(op_, state_, &result, &noted).ok());
  EXPECT_EQ(noted, 0u);
  EXPECT_EQ(result.catch_up_rounds, 2u);
}

TEST_F(RegionCopyTest, AWriteInDoubtStopsEveryCatchUpRound) {
  ASSERT_TRUE(copy_.OpenTargets(table_.descriptor.table_id, op_).ok());
  router::RegionOpResult result;
  size_t noted = 0;
  state_.NoteWritten(RowKey(5));
  state_.NoteInDoubt();
  EXPECT_TRUE(
      copy_.CopyWrittenRows(op_, state_, &result, &noted).IsUnavailable());
  // It may still commit on the source: the operation must not switch.
  EXPECT_TRUE(
      copy_.CopyWrittenRows(op_, state_, &result, &noted).IsUnavailable());
  EXPECT_FALSE(cluster_.GetRow(op_.targets[0], RowKey(5)).has_value());
}

TEST_F(RegionCopyTest, ANotedRowOutsideTheSourcesIsCorruption) {
  ASSERT_TRUE(copy_.OpenTargets(table_.descriptor.table_id, op_).ok());
  CatalogRegionOp narrow = op_;
  narrow.sources[0].end_key = RowKey(10);
  state_.NoteWritten(RowKey(50));
  router::RegionOpResult result;
  size_t noted = 0;
  EXPECT_TRUE(
      copy_.CopyWrittenRows(narrow, state_, &result, &noted).IsCorruption());
}

TEST_F(RegionCopyTest, ATargetServerThatIsDownFailsNamingIt) {
  cluster_.stores().Down(1);
  const Status opened = copy_.OpenTargets(table_.descriptor.table_id, op_);
  EXPECT_TRUE(opened.IsUnavailable()) << opened.ToString();
  EXPECT_NE(opened.ToString().find("server-1"), std::string::npos)
      << opened.ToString();
  EXPECT_FALSE(copy_.SyncTargets(op_).ok());
  cluster_.stores().Up(1);
}

}  // namespace
}  // namespace bloomroute::router_internal
