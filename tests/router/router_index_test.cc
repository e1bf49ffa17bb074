// Router: the index lifecycle (AddIndex, DropIndex, IndexStatus) over real
// region stores in this process, against an exact model of the rows and a
// twin table created with the column indexed, given the same writes.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <atomic>
#include <map>
#include <random>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include "model/index_predicate.h"
#include "tests/router/router_test_util.h"

namespace bloomroute {
namespace {

using ::bloomroute::testing::RouterOptionsFor;
using ::bloomroute::testing::StoreCluster;
using router::IndexState;
using ::testing::HasSubstr;

constexpr int kCountries = 9;

// The rows of a table, as the model holds them: row -> country (rows
// without d:cc are absent).
using Model = std::map<std::string, std::string>;

class RouterIndexTest : public ::testing::Test {
 protected:
  router::RouterOptions Options() {
    router::RouterOptions o = RouterOptionsFor(cluster_);
    o.background_maintenance = false;  // passes only when the test asks
    o.index_chunk_rows = 11;
    o.index_chunks_per_pass = 7;
    return o;
  }
  std::unique_ptr<router::Router> Open() {
    auto r = router::Router::Open(Options(), cluster_.Factory());
    EXPECT_TRUE(r.ok()) << r.status().ToString();
    return r.ok() ? std::move(r).value() : nullptr;
  }
  void Create(router::Router& r, const std::string& name,
              std::vector<std::string> indexed) {
    router::TableSpec spec{name, std::move(indexed), {}, 6};
    auto created = r.CreateTable(spec);
    ASSERT_TRUE(created.ok()) << created.status().ToString();
  }
  // A put of d:name and (mostly) d:cc, a change of d:cc alone, or a
  // delete of the row or of d:cc: to every table in `tables`, and the model.
  void Write(router::Router& r, std::mt19937& rng,
             const std::vector<std::string>& tables, Model* model) {
    const std::string row = "row" + std::to_string(rng() % 300);
    const std::string cc = "c" + std::to_string(rng() % kCountries);
    Mutation m;
    switch (rng() % 5) {
      case 0:
        m = Mutation::Delete(0, row);
        model->erase(row);
        break;
      case 1:
        m = Mutation::Delete(0, row, {"d:cc"});
        model->erase(row);
        break;
      default:
        m = Mutation::Put(0, row, {{"d:name", "n" + row}, {"d:cc", cc}});
        (*model)[row] = cc;
    }
    for (const std::string& t : tables) {
      const Status s = r.Mutate(t, {m});
      ASSERT_TRUE(s.ok()) << s.ToString();
    }
  }
  static std::vector<std::string> Lookup(router::Router& r,
                                         const std::string& table,
                                         const std::string& cc) {
    router::LookupSpec spec;
    spec.equals = {{"d:cc", cc}};
    auto result = r.Lookup(table, spec);
    EXPECT_TRUE(result.ok()) << result.status().ToString();
    std::vector<std::string> keys;
    if (result.ok()) {
      EXPECT_FALSE(result->truncated);
      for (const Row& row : result->rows) keys.push_back(row.key);
    }
    return keys;
  }
  static std::vector<std::string> Expected(const Model& model,
                                           const std::string& cc) {
    std::vector<std::string> keys;
    for (const auto& [row, value] : model) {
      if (value == cc) keys.push_back(row);
    }
    return keys;
  }
  static IndexState StateOf(router::Router& r, const std::string& table,
                            const std::string& column) {
    auto status = r.IndexStatus(table);
    EXPECT_TRUE(status.ok()) << status.status().ToString();
    if (status.ok()) {
      for (const IndexState& s : *status) {
        if (s.column == column) return s;
      }
    }
    return IndexState{};
  }
  // Maintenance passes until the column's task is over (at most `passes`).
  static void RunUntilSettled(router::Router& r, const std::string& table,
                              int passes = 1000) {
    for (int i = 0; i < passes; ++i) {
      auto status = r.IndexStatus(table);
      ASSERT_TRUE(status.ok());
      bool busy = false;
      for (const IndexState& s : *status) {
        busy = busy || s.state != IndexState::State::kReady;
      }
      if (!busy) return;
      r.RunMaintenance();
    }
    FAIL() << "the index task did not finish";
  }
  // The router's check: every server's index clean against its rows, and
  // the router's replica equal to the server's filter.
  static uint64_t ExpectVerified(router::Router& r, const std::string& table) {
    auto report = r.VerifyIndex(table);
    EXPECT_TRUE(report.ok()) << report.status().ToString();
    if (!report.ok()) return 0;
    uint64_t values = 0;
    for (const auto& s : report->servers) {
      EXPECT_TRUE(s.ok()) << s.server.address << ": " << s.error << " "
                          << (s.index.problems.empty()
                                  ? ""
                                  : s.index.problems.front());
      EXPECT_EQ(s.index.building_columns, 0u);
      values += s.index.values;
    }
    return values;
  }

  StoreCluster cluster_{3};
};

// A writer runs on the table and its twin while the index builds.
TEST_F(RouterIndexTest, AnIndexAddedUnderWritesEqualsOneDeclaredAtCreation) {
  auto router = Open();
  ASSERT_NE(router, nullptr);
  Create(*router, "cities", {"d:name"});
  Create(*router, "twin", {"d:name", "d:cc"});
  std::mt19937 rng(11);
  Model model;
  for (int i = 0; i < 600; ++i) {
    Write(*router, rng, {"cities", "twin"}, &model);
  }
  ASSERT_TRUE(router->AddIndex("cities", "d:cc").ok());
  EXPECT_TRUE(router->AddIndex("cities", "d:cc").IsInvalidArgument());
  IndexState building = StateOf(*router, "cities", "d:cc");
  EXPECT_EQ(building.state, IndexState::State::kBuilding);
  EXPECT_EQ(building.regions_total, 6u);
  router::LookupSpec spec;
  spec.equals = {{"d:cc", "c1"}};
  auto refused = router->Lookup("cities", spec);
  ASSERT_FALSE(refused.ok());
  EXPECT_THAT(refused.status().message(), HasSubstr("is building (0 of 6"));
  // Every predicate kind, and counts, on the building column likewise.
  for (IndexOp op : {IndexOp::kIn, IndexOp::kPrefix, IndexOp::kGreater}) {
    router::LookupSpec where;
    where.where = {{"d:cc", op, {"c1"}}};
    EXPECT_THAT(router->Lookup("cities", where).status().message(),
                HasSubstr("is building (0 of 6"))
        << IndexOpName(op);
    EXPECT_THAT(router->Count("cities", where).status().message(),
                HasSubstr("is building (0 of 6"))
        << IndexOpName(op);
  }
  // A scan whose filter pins the column does not plan on its partial
  // index: it reads the regions and answers every matching row.
  router::ScanSpec scan;
  scan.filter =
      "SingleColumnValueFilter('d', 'cc', =, 'binary:c1', true, true)";
  auto scanned = router->Scan("cities", scan, 10000);
  ASSERT_TRUE(scanned.ok()) << scanned.status().ToString();
  std::vector<std::string> scanned_keys;
  for (const Row& row : scanned->rows) scanned_keys.push_back(row.key);
  EXPECT_EQ(scanned_keys, Expected(model, "c1"));
  // Clients see only ready columns.
  auto described = router->DescribeTable("cities");
  ASSERT_TRUE(described.ok());
  EXPECT_EQ(described->descriptor.FindIndexed("d:cc"), nullptr);

  std::atomic<bool> stop{false};
  Model during = model;
  std::thread writer([&] {
    std::mt19937 wrng(12);
    while (!stop) Write(*router, wrng, {"cities", "twin"}, &during);
  });
  for (int pass = 0; pass < 1000; ++pass) {
    if (StateOf(*router, "cities", "d:cc").state == IndexState::State::kReady)
      break;
    router->RunMaintenance();
  }
  stop = true;
  writer.join();
  const IndexState ready = StateOf(*router, "cities", "d:cc");
  ASSERT_EQ(ready.state, IndexState::State::kReady);
  EXPECT_NE(router->DescribeTable("cities")->descriptor.FindIndexed("d:cc"),
            nullptr);
  for (int c = 0; c < kCountries; ++c) {
    const std::string cc = "c" + std::to_string(c);
    EXPECT_EQ(Lookup(*router, "cities", cc), Expected(during, cc)) << cc;
    EXPECT_EQ(Lookup(*router, "twin", cc), Expected(during, cc)) << cc;
  }
  // Same values counted on the servers as the twin's (its regions sit on
  // other servers, so the sums are compared), every filter equal to its
  // rebuild and every replica to its server.
  EXPECT_EQ(ExpectVerified(*router, "cities"), ExpectVerified(*router, "twin"));
}

TEST_F(RouterIndexTest, ABuildResumesAfterARouterAndAServerRestart) {
  Model model;
  IndexState partial;
  {
    auto router = Open();
    ASSERT_NE(router, nullptr);
    Create(*router, "cities", {"d:name"});
    std::mt19937 rng(5);
    for (int i = 0; i < 500; ++i) Write(*router, rng, {"cities"}, &model);
    ASSERT_TRUE(router->AddIndex("cities", "d:cc").ok());
    router->RunMaintenance();  // 7 chunks of 11 rows: part of the build
    partial = StateOf(*router, "cities", "d:cc");
    ASSERT_EQ(partial.state, IndexState::State::kBuilding);
    ASSERT_GT(partial.rows, 0u);
    ASSERT_LT(partial.regions_done, 6u);
  }
  // A region server restarts too (its regions closed until reopened).
  cluster_.Down(1);
  cluster_.Up(1);
  auto router = Open();
  ASSERT_NE(router, nullptr);
  const IndexState resumed = StateOf(*router, "cities", "d:cc");
  EXPECT_EQ(resumed.state, IndexState::State::kBuilding);
  EXPECT_GE(resumed.rows, partial.rows);
  EXPECT_GE(resumed.regions_done, partial.regions_done);
  std::mt19937 rng(6);
  for (int i = 0; i < 100; ++i) Write(*router, rng, {"cities"}, &model);
  RunUntilSettled(*router, "cities");
  for (int c = 0; c < kCountries; ++c) {
    const std::string cc = "c" + std::to_string(c);
    EXPECT_EQ(Lookup(*router, "cities", cc), Expected(model, cc)) << cc;
  }
  ExpectVerified(*router, "cities");
}

TEST_F(RouterIndexTest, DropRemovesEntriesCountsAndElementsAndNeverReusesIds) {
  auto router = Open();
  ASSERT_NE(router, nullptr);
  Create(*router, "cities", {"d:name"});
  std::mt19937 rng(9);
  Model model;
  for (int i = 0; i < 400; ++i) Write(*router, rng, {"cities"}, &model);
  const uint64_t values_before = ExpectVerified(*router, "cities");
  ASSERT_TRUE(router->AddIndex("cities", "d:cc").ok());
  RunUntilSettled(*router, "cities");
  const uint32_t first_id = StateOf(*router, "cities", "d:cc").column_id;
  EXPECT_GT(ExpectVerified(*router, "cities"), values_before);

  ASSERT_TRUE(router->DropIndex("cities", "d:cc").ok());
  EXPECT_EQ(StateOf(*router, "cities", "d:cc").state,
            IndexState::State::kDropping);
  router::LookupSpec spec;
  spec.equals = {{"d:cc", "c1"}};
  auto refused = router->Lookup("cities", spec);
  ASSERT_FALSE(refused.ok());
  EXPECT_THAT(refused.status().message(), HasSubstr("not indexed"));
  EXPECT_TRUE(router->DropIndex("cities", "d:cc").IsInvalidArgument());
  RunUntilSettled(*router, "cities");
  auto status = router->IndexStatus("cities");
  ASSERT_TRUE(status.ok());
  ASSERT_EQ(status->size(), 1u);  // d:name alone
  // Entries, counts and filter elements of the column are gone.
  EXPECT_EQ(ExpectVerified(*router, "cities"), values_before);

  // Added again, under a new id.
  ASSERT_TRUE(router->AddIndex("cities", "d:cc").ok());
  EXPECT_GT(StateOf(*router, "cities", "d:cc").column_id, first_id);
  RunUntilSettled(*router, "cities");
  for (int c = 0; c < kCountries; ++c) {
    const std::string cc = "c" + std::to_string(c);
    EXPECT_EQ(Lookup(*router, "cities", cc), Expected(model, cc)) << cc;
  }
}

// Dropping a column while it builds stops the build and removes what it
// had added.
TEST_F(RouterIndexTest, DroppingABuildingIndexStopsTheBuild) {
  auto router = Open();
  ASSERT_NE(router, nullptr);
  Create(*router, "cities", {"d:name"});
  std::mt19937 rng(3);
  Model model;
  for (int i = 0; i < 400; ++i) Write(*router, rng, {"cities"}, &model);
  const uint64_t values_before = ExpectVerified(*router, "cities");
  ASSERT_TRUE(router->AddIndex("cities", "d:cc").ok());
  router->RunMaintenance();
  ASSERT_EQ(StateOf(*router, "cities", "d:cc").state,
            IndexState::State::kBuilding);
  ASSERT_TRUE(router->DropIndex("cities", "d:cc").ok());
  RunUntilSettled(*router, "cities");
  EXPECT_EQ(ExpectVerified(*router, "cities"), values_before);
  EXPECT_TRUE(router->AddIndex("cities", "x").IsInvalidArgument());
  EXPECT_TRUE(router->AddIndex("nosuch", "d:cc").IsNotFound());
}

}  // namespace
}  // namespace bloomroute
