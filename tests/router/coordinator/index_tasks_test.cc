// IndexTasks: index builds and drops recorded in the catalog and driven
// chunk by chunk on real stores.
#include "router/coordinator/index_tasks.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdio>
#include <string>
#include <utility>
#include <vector>

#include "router/coordinator/region_placement.h"
#include "tests/router/component_cluster.h"

namespace bloomroute::router_internal {
namespace {

using router::IndexState;

constexpr int kServers = 2;
constexpr int kRows = 20;  // r00 .. r19, split at r10: ten a region

std::string Key(int i) {
  char buf[8];
  std::snprintf(buf, sizeof buf, "r%02d", i);
  return buf;
}

class IndexTasksTest : public ::testing::Test {
 protected:
  IndexTasksTest()
      : c_(kServers),
        placement_(c_.ctx()),
        tasks_(c_.ctx(), IndexTasks::Hooks{[this](const CatalogTable&) {
                 return region_op_;
               }}) {
    c_.set_reopen([this](const ServerEntry& server) {
      return placement_.ReopenServer(server);
    });
  }

  void SetUp() override {
    c_.options().index_chunk_rows = 4;
    c_.options().index_chunks_per_pass = 1;
    router::TableSpec spec;
    spec.name = "t";
    spec.indexed_columns = {"d:country"};
    spec.split_keys = {Key(kRows / 2)};
    table_ = placement_.PlanTable(spec);
    c_.PutTable(table_);
    ASSERT_TRUE(placement_.OpenRegions(table_).ok());
    const TableState state(table_);
    for (size_t r = 0; r < table_.regions.size(); ++r) {
      std::vector<Mutation> rows;
      for (int i = 0; i < kRows; ++i) {
        if (state.RegionFor(Key(i)) != r) continue;
        rows.push_back(
            Mutation::Put(table_.regions[r].region_id, Key(i),
                          {{"d:country", "c" + std::to_string(i % 3)},
                           {"d:feature", "f" + std::to_string(i)}}));
      }
      ASSERT_TRUE(c_.write_path()
                      .ApplyBatches(c_.servers().Get(table_.regions[r].server),
                                    std::move(rows))
                      .ok());
    }
  }

  CatalogTable Record() const { return c_.Record(table_.descriptor.table_id); }
  // The state IndexStatus reports for `column` (kReady with no name when
  // it does not list it).
  IndexState StatusOf(const std::string& column) const {
    StatusOr<std::vector<IndexState>> all = tasks_.IndexStatus("t");
    EXPECT_TRUE(all.ok()) << all.status().ToString();
    for (const IndexState& s : all.value()) {
      if (s.column == column) return s;
    }
    return IndexState{};
  }
  // Runs maintenance passes until the table has no task (at most 50);
  // the largest row count a task reported before it ended.
  uint64_t RunToEnd() {
    uint64_t rows = 0;
    for (int pass = 0; pass < 50 && !Record().index_tasks.empty(); ++pass) {
      tasks_.MaintainIndexes();
      const CatalogTable t = Record();
      if (!t.index_tasks.empty()) rows = std::max(rows, t.index_tasks[0].rows);
    }
    EXPECT_TRUE(Record().index_tasks.empty());
    return rows;
  }

  testing::ComponentCluster c_;
  RegionPlacement placement_;
  Status region_op_;  // what the hook answers
  IndexTasks tasks_;
  CatalogTable table_;
};

TEST_F(IndexTasksTest, AddIndexRecordsABuildingColumnAndItsTask) {
  ASSERT_TRUE(tasks_.AddIndex("t", "d:feature").ok());
  const CatalogTable t = Record();
  const IndexedColumn* c = t.descriptor.FindIndexed("d:feature");
  ASSERT_NE(c, nullptr);
  EXPECT_TRUE(c->building);
  EXPECT_EQ(c->column_id, 2u);
  EXPECT_EQ(t.next_column_id, 3u);
  ASSERT_EQ(t.index_tasks.size(), 1u);
  EXPECT_EQ(t.index_tasks[0].kind, CatalogIndexTask::Kind::kBuild);
  // Published: the routers' tables have it.
  EXPECT_NE(
      c_.ctx().tables->FindAnyState("t").value()->record.descriptor.FindIndexed(
          "d:feature"),
      nullptr);
  const IndexState s = StatusOf("d:feature");
  EXPECT_EQ(s.state, IndexState::State::kBuilding);
  EXPECT_EQ(s.regions_done, 0u);
  EXPECT_EQ(s.regions_total, 2u);
  EXPECT_EQ(StatusOf("d:country").state, IndexState::State::kReady);
  const Status building = CheckIndexReady(t, "d:feature");
  EXPECT_TRUE(building.IsInvalidArgument());
  EXPECT_NE(building.ToString().find("0 of 2 regions done"), std::string::npos)
      << building.ToString();
  EXPECT_TRUE(CheckIndexReady(t, "d:country").ok());
  // Listed as clients see it: without the building column.
  EXPECT_EQ(ReadyDescriptor(t.descriptor).indexed_columns.size(), 1u);
}

TEST_F(IndexTasksTest, AddIndexRefusesAnIndexedColumnAndARegionOperation) {
  EXPECT_TRUE(tasks_.AddIndex("t", "d:country").IsInvalidArgument());
  EXPECT_TRUE(tasks_.AddIndex("none", "d:feature").IsNotFound());
  region_op_ = Status::Unavailable("a region operation is in flight");
  EXPECT_TRUE(tasks_.AddIndex("t", "d:feature").IsUnavailable());
  EXPECT_TRUE(tasks_.DropIndex("t", "d:country").IsUnavailable());
  EXPECT_TRUE(Record().index_tasks.empty());
  EXPECT_EQ(Record().descriptor.indexed_columns.size(), 1u);
}

TEST_F(IndexTasksTest, ABuildAdvancesAChunkAPassAndFinishes) {
  ASSERT_TRUE(tasks_.AddIndex("t", "d:feature").ok());
  const int wakes = c_.wakes();
  tasks_.MaintainIndexes();
  // One chunk of four rows on the first region, its resume row recorded.
  CatalogTable t = Record();
  ASSERT_EQ(t.index_tasks.size(), 1u);
  EXPECT_EQ(t.index_tasks[0].rows, 4u);
  ASSERT_EQ(t.index_tasks[0].regions.size(), 1u);
  EXPECT_EQ(t.index_tasks[0].regions[0].region_id, t.regions[0].region_id);
  EXPECT_FALSE(t.index_tasks[0].regions[0].done);
  EXPECT_EQ(t.index_tasks[0].regions[0].resume_after, Key(3));
  EXPECT_GT(c_.wakes(), wakes);  // the pass's budget is spent: work is left
  EXPECT_EQ(StatusOf("d:feature").rows, 4u);
  // Every row gets its entry once; then the column is ready everywhere.
  EXPECT_EQ(RunToEnd(), static_cast<uint64_t>(kRows));
  t = Record();
  ASSERT_NE(t.descriptor.FindIndexed("d:feature"), nullptr);
  EXPECT_FALSE(t.descriptor.FindIndexed("d:feature")->building);
  EXPECT_TRUE(CheckIndexReady(t, "d:feature").ok());
  EXPECT_EQ(StatusOf("d:feature").state, IndexState::State::kReady);
  EXPECT_EQ(StatusOf("d:feature").regions_done, 2u);
}

TEST_F(IndexTasksTest, ARoundSendsAChunkToEachServerAtOnce) {
  c_.options().index_chunks_per_pass = 2;
  ASSERT_NE(table_.regions[0].server, table_.regions[1].server);
  ASSERT_TRUE(tasks_.AddIndex("t", "d:feature").ok());
  tasks_.MaintainIndexes();
  // One chunk on each server's region (one chunk at a time, both went to
  // the first region), both resume rows recorded.
  const CatalogTable t = Record();
  ASSERT_EQ(t.index_tasks.size(), 1u);
  EXPECT_EQ(t.index_tasks[0].rows, 8u);
  ASSERT_EQ(t.index_tasks[0].regions.size(), 2u);
  for (const CatalogIndexTask::Region& p : t.index_tasks[0].regions) {
    EXPECT_FALSE(p.done);
    EXPECT_EQ(p.resume_after,
              Key(p.region_id == t.regions[0].region_id ? 3 : 13));
  }
  // A chunk a pass, so that RunToEnd sees the count before the task ends.
  c_.options().index_chunks_per_pass = 1;
  EXPECT_EQ(RunToEnd(), static_cast<uint64_t>(kRows));
  EXPECT_TRUE(CheckIndexReady(Record(), "d:feature").ok());
}

TEST_F(IndexTasksTest, AServerThatFailsHoldsUpOnlyItsOwnRegions) {
  c_.options().index_chunks_per_pass = 4;
  ASSERT_TRUE(tasks_.AddIndex("t", "d:feature").ok());
  const int node = 0;  // the first region's server (the lowest id)
  ASSERT_EQ(Record().regions[0].server, c_.id(node));
  c_.stores().Down(node);
  tasks_.MaintainIndexes();
  // The other server's region goes on in the same pass, three chunks of
  // its ten rows; the failed server is not asked again in the pass and
  // its region has no progress.
  const CatalogTable t = Record();
  ASSERT_EQ(t.index_tasks.size(), 1u);
  EXPECT_EQ(t.index_tasks[0].rows, 10u);
  for (const CatalogIndexTask::Region& p : t.index_tasks[0].regions) {
    EXPECT_EQ(p.done, p.region_id != t.regions[0].region_id);
    EXPECT_EQ(p.resume_after, "");
  }
  c_.stores().Up(node);
  ASSERT_TRUE(placement_.ReopenServer(c_.server(node)).ok());
  // A chunk a pass, so that RunToEnd sees the count before the task ends.
  c_.options().index_chunks_per_pass = 1;
  EXPECT_EQ(RunToEnd(), static_cast<uint64_t>(kRows));
  EXPECT_TRUE(CheckIndexReady(Record(), "d:feature").ok());
}

TEST_F(IndexTasksTest, AFailedChunkLeavesItsProgressAndTheBuildResumes) {
  ASSERT_TRUE(tasks_.AddIndex("t", "d:feature").ok());
  tasks_.MaintainIndexes();
  const CatalogTable before = Record();
  const int node = 0;  // the first region's server (the lowest id)
  ASSERT_EQ(before.regions[0].server, c_.id(node));
  c_.stores().Down(node);
  tasks_.MaintainIndexes();
  EXPECT_EQ(Record().index_tasks, before.index_tasks);
  // Back as a new run: its regions reopened, the build goes on from its
  // resume row (no row counted twice).
  c_.stores().Up(node);
  ASSERT_TRUE(placement_.ReopenServer(c_.server(node)).ok());
  EXPECT_EQ(RunToEnd(), static_cast<uint64_t>(kRows));
  EXPECT_TRUE(CheckIndexReady(Record(), "d:feature").ok());
}

TEST_F(IndexTasksTest, AChangeStandsWhenAServerDoesNotAnswer) {
  c_.stores().Down(1);
  const Status s = tasks_.AddIndex("t", "d:feature");
  EXPECT_TRUE(s.IsUnavailable()) << s.ToString();
  EXPECT_NE(s.ToString().find("is added and builds once every server"),
            std::string::npos)
      << s.ToString();
  EXPECT_NE(Record().descriptor.FindIndexed("d:feature"), nullptr);
  EXPECT_EQ(Record().index_tasks.size(), 1u);
  c_.stores().Up(1);
}

TEST_F(IndexTasksTest, ADropRemovesTheColumnAtOnceAndItsEntriesByChunks) {
  EXPECT_TRUE(tasks_.DropIndex("t", "d:feature").IsInvalidArgument());
  ASSERT_TRUE(tasks_.DropIndex("t", "d:country").ok());
  CatalogTable t = Record();
  EXPECT_EQ(t.descriptor.FindIndexed("d:country"), nullptr);
  EXPECT_EQ(t.NextColumnId(), 2u);  // not while its entries may linger
  ASSERT_EQ(t.index_tasks.size(), 1u);
  EXPECT_EQ(t.index_tasks[0].kind, CatalogIndexTask::Kind::kDrop);
  EXPECT_EQ(StatusOf("d:country").state, IndexState::State::kDropping);
  // Each row had one entry of the column; all are removed, then the task
  // is forgotten.
  EXPECT_EQ(RunToEnd(), static_cast<uint64_t>(kRows));
  EXPECT_TRUE(tasks_.IndexStatus("t").value().empty());
}

// Column ids are never reused: entries of a dropped column may linger on a
// server that was down during the drop, and a new column under the same id
// would inherit them. Before the fix, a table whose record had never been
// given a next id (created with its columns, no AddIndex since) forgot the
// dropped id once the drop ended, and the next AddIndex took it again.
TEST_F(IndexTasksTest, AColumnAddedAfterADropNeverTakesTheDroppedId) {
  const uint32_t dropped =
      Record().descriptor.FindIndexed("d:country")->column_id;
  ASSERT_TRUE(tasks_.DropIndex("t", "d:country").ok());
  RunToEnd();
  ASSERT_TRUE(tasks_.AddIndex("t", "d:feature").ok());
  const CatalogTable after = Record();
  const IndexedColumn* added = after.descriptor.FindIndexed("d:feature");
  ASSERT_NE(added, nullptr);
  EXPECT_GT(added->column_id, dropped);
}

TEST_F(IndexTasksTest, DroppingABuildingColumnEndsItsBuild) {
  ASSERT_TRUE(tasks_.AddIndex("t", "d:feature").ok());
  tasks_.MaintainIndexes();
  ASSERT_TRUE(tasks_.DropIndex("t", "d:feature").ok());
  const CatalogTable t = Record();
  ASSERT_EQ(t.index_tasks.size(), 1u);
  EXPECT_EQ(t.index_tasks[0].kind, CatalogIndexTask::Kind::kDrop);
  EXPECT_EQ(t.index_tasks[0].column.name, "d:feature");
  EXPECT_EQ(RunToEnd(), 4u);  // the entries the build had added
}

}  // namespace
}  // namespace bloomroute::router_internal
