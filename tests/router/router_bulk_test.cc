// Router::BulkLoad over in-process region stores: a table loaded from bulk
// files answers lookups exactly as the same table written with Mutate, with
// the same routing, and a load is visible as soon as it returns.
#include <gtest/gtest.h>

#include <fstream>
#include <iterator>
#include <map>
#include <set>

#include "regionstore/bulk_file.h"
#include "router/router.h"
#include "tests/router/router_test_util.h"

namespace bloomroute::router {
namespace {

using testing::Ids;
using testing::Keys;
using testing::PutRow;
using testing::StoreCluster;
using testing::TempDir;
using testing::WhereEq;

constexpr int kCountries = 40;

TableSpec PlacesSpec() {
  TableSpec s;
  s.name = "places";
  s.indexed_columns = {"d:country", "d:feature"};
  s.split_keys = {"g", "n", "t"};
  return s;
}

// Rows over every region; a country's rows sit in a few regions only, so
// routing has servers to leave out.
std::vector<Mutation> Rows(const std::string& tag) {
  std::vector<Mutation> rows;
  for (int i = 0; i < 400; ++i) {
    const char first = static_cast<char>('a' + i % 26);
    const int country = (i % 26) * kCountries / 26 + (i / 26) % 2;
    rows.push_back(PutRow(std::string(1, first) + std::to_string(1000 + i),
                          "C" + std::to_string(country),
                          "F" + tag + std::to_string(i % 5)));
  }
  return rows;
}

class RouterBulkLoadTest : public ::testing::Test {
 protected:
  void SetUp() override {
    online_ = testing::OpenRouter(online_cluster_);
    bulk_ = testing::OpenRouter(bulk_cluster_);
    ASSERT_NE(online_, nullptr);
    ASSERT_NE(bulk_, nullptr);
    for (Router* r : {online_.get(), bulk_.get()}) {
      StatusOr<TableInfo> t = r->CreateTable(PlacesSpec());
      ASSERT_TRUE(t.ok()) << t.status().ToString();
      table_ = *t;
      ASSERT_TRUE(testing::WaitAllCurrent(*r));
    }
  }

  // One bulk file's bytes per region for `rows`, as the import tool makes
  // them: each region's rows sorted by key.
  std::map<uint64_t, std::string> Files(const std::vector<Mutation>& rows) {
    std::map<uint64_t, std::map<std::string, std::vector<Cell>>> by_region;
    for (const Mutation& m : rows) {
      for (const RegionLocation& r : table_.regions) {
        if (r.region.ContainsRow(m.row_key)) {
          by_region[r.region.region_id][m.row_key] = m.cells;
        }
      }
    }
    std::map<uint64_t, std::string> files;
    for (const auto& [region, sorted] : by_region) {
      const std::string path =
          dir_.path() + "/region-" + std::to_string(region) + ".sst";
      auto w = BulkFileWriter::Create(path);
      EXPECT_TRUE(w.ok()) << w.status().ToString();
      for (const auto& [key, cells] : sorted) {
        EXPECT_TRUE((*w)->Add(key, cells).ok());
      }
      EXPECT_TRUE((*w)->Finish().ok());
      std::ifstream in(path, std::ios::binary);
      files[region].assign(std::istreambuf_iterator<char>(in), {});
    }
    return files;
  }

  // Cells without a timestamp get one (the same for both clusters, later
  // each call), so that the clusters' rows compare equal with timestamps:
  // a bulk file gets the writer's clock, an online put the store's.
  void LoadBoth(std::vector<Mutation> rows) {
    ++load_time_;
    for (Mutation& m : rows) {
      for (Cell& c : m.cells) {
        if (c.timestamp == kLatestTimestamp) c.timestamp = load_time_;
      }
    }
    ASSERT_TRUE(online_->Mutate("places", rows).ok());
    for (const auto& [region, bytes] : Files(rows)) {
      Status s = bulk_->BulkLoad("places", region, bytes);
      ASSERT_TRUE(s.ok()) << s.ToString();
    }
  }

  // Every value: the same rows, the same servers asked, and the servers
  // with rows are exactly those holding the value.
  void ExpectSameAnswers(const std::vector<std::string>& tags) {
    std::vector<EqualityPredicate> predicates;
    for (int c = 0; c < kCountries; ++c) {
      predicates.push_back({"d:country", "C" + std::to_string(c)});
    }
    for (const std::string& tag : tags) {
      for (int f = 0; f < 5; ++f) {
        predicates.push_back({"d:feature", "F" + tag + std::to_string(f)});
      }
    }
    for (const EqualityPredicate& p : predicates) {
      SCOPED_TRACE(p.value);
      StatusOr<LookupResult> a = bulk_->Lookup("places", WhereEq({p}));
      StatusOr<LookupResult> b = online_->Lookup("places", WhereEq({p}));
      ASSERT_TRUE(a.ok() && b.ok());
      EXPECT_EQ(a->rows, b->rows);
      EXPECT_EQ(Ids(a->routing.asked), Ids(b->routing.asked));
      EXPECT_TRUE(a->routing.asked_not_current.empty());
      std::set<ServerId> holding;
      for (const Row& row : a->rows) holding.insert(ServerOf(row.key));
      EXPECT_EQ(Ids(a->routing.with_rows),
                std::vector<ServerId>(holding.begin(), holding.end()));
    }
  }

  const RegionLocation& Location(uint64_t region_id) const {
    for (const RegionLocation& r : table_.regions) {
      if (r.region.region_id == region_id) return r;
    }
    ADD_FAILURE() << "no region " << region_id;
    return table_.regions[0];
  }

  ServerId ServerOf(const std::string& row) const {
    for (const RegionLocation& r : table_.regions) {
      if (r.region.ContainsRow(row)) return r.server.id;
    }
    return 0;
  }

  TempDir dir_;
  StoreCluster online_cluster_{4};
  StoreCluster bulk_cluster_{4};
  std::unique_ptr<Router> online_;
  std::unique_ptr<Router> bulk_;
  TableInfo table_;  // the same placement in both clusters
  int64_t load_time_ = 1000;
};

TEST_F(RouterBulkLoadTest, ABulkLoadedTableAnswersAsAnOnlineOne) {
  LoadBoth(Rows("x"));
  ExpectSameAnswers({"x"});
  // Loading the same keys again with other values moves them.
  LoadBoth(Rows("y"));
  ExpectSameAnswers({"x", "y"});
  StatusOr<LookupResult> gone =
      bulk_->Lookup("places", WhereEq({{"d:feature", "Fx1"}}));
  ASSERT_TRUE(gone.ok());
  EXPECT_TRUE(gone->rows.empty());
}

TEST_F(RouterBulkLoadTest, ALoadIsVisibleAsSoonAsItReturns) {
  const std::map<uint64_t, std::string> files = Files(Rows("x"));
  const auto& [region, bytes] = *files.begin();
  ASSERT_TRUE(bulk_->BulkLoad("places", region, bytes).ok());
  // No wait for the background catch-up: the load's ops are in the replica.
  StatusOr<LookupResult> r =
      bulk_->Lookup("places", WhereEq({{"d:feature", "Fx0"}}));
  ASSERT_TRUE(r.ok());
  EXPECT_FALSE(r->rows.empty());
  EXPECT_TRUE(r->routing.asked_not_current.empty());
  for (const Row& row : r->rows) {
    EXPECT_TRUE(Location(region).region.ContainsRow(row.key)) << row.key;
  }
}

TEST_F(RouterBulkLoadTest, BadLoadsAreRefusedNamingTheProblem) {
  const std::map<uint64_t, std::string> files = Files(Rows("x"));
  const auto& [region, bytes] = *files.begin();
  EXPECT_TRUE(bulk_->BulkLoad("nosuch", region, bytes).IsNotFound());
  EXPECT_TRUE(bulk_->BulkLoad("places", 999, bytes).IsInvalidArgument());
  EXPECT_TRUE(bulk_->BulkLoad("places", region, "").IsInvalidArgument());
  // One region's file sent to another region: rows outside it.
  uint64_t other = 0;
  for (const RegionLocation& r : table_.regions) {
    if (r.region.region_id != region) other = r.region.region_id;
  }
  Status s = bulk_->BulkLoad("places", other, bytes);
  EXPECT_TRUE(s.IsInvalidArgument()) << s.ToString();
  EXPECT_NE(s.message().find("region server"), std::string::npos);
  EXPECT_TRUE(
      bulk_->Lookup("places", WhereEq({{"d:feature", "Fx0"}}))->rows.empty());
}

// bulkLoad skipped the column-family check that put applies: a write-role
// client could store cells in families the table was created without.
TEST_F(RouterBulkLoadTest, ACellOfAnUndeclaredFamilyIsRefused) {
  TableSpec spec = PlacesSpec();
  spec.name = "declared";
  spec.families = {"d"};
  StatusOr<TableInfo> t = bulk_->CreateTable(spec);
  ASSERT_TRUE(t.ok()) << t.status().ToString();
  table_ = *t;
  std::vector<Mutation> rows = Rows("x");
  rows.resize(1);
  rows[0].cells.push_back(Cell{"secret:c", "v", 1});
  const std::map<uint64_t, std::string> files = Files(rows);
  ASSERT_EQ(files.size(), 1u);
  const Status s =
      bulk_->BulkLoad("declared", files.begin()->first, files.begin()->second);
  EXPECT_TRUE(s.IsInvalidArgument()) << s.ToString();
  EXPECT_NE(s.message().find("secret"), std::string::npos) << s.ToString();
  // The same row through put is refused the same way.
  EXPECT_TRUE(bulk_->Mutate("declared", rows).IsInvalidArgument());
  rows[0].cells.pop_back();
  const std::map<uint64_t, std::string> good = Files(rows);
  EXPECT_TRUE(
      bulk_->BulkLoad("declared", good.begin()->first, good.begin()->second)
          .ok());
}

TEST_F(RouterBulkLoadTest, AServerThatDoesNotAnswerIsUnavailable) {
  const std::map<uint64_t, std::string> files = Files(Rows("x"));
  const auto& [region, bytes] = *files.begin();
  const ServerId server = Location(region).server.id;
  int node = -1;
  const std::vector<ServerRef> servers = bulk_->Servers();
  for (size_t i = 0; i < servers.size(); ++i) {
    if (servers[i].id == server) node = static_cast<int>(i);
  }
  ASSERT_GE(node, 0);
  bulk_cluster_.Down(node);
  Status s = bulk_->BulkLoad("places", region, bytes);
  EXPECT_TRUE(s.IsUnavailable()) << s.ToString();
  bulk_cluster_.Up(node);
  // Retried once the server is back, the load is complete and exact.
  ASSERT_TRUE(bulk_->BulkLoad("places", region, bytes).ok());
  ASSERT_TRUE(testing::WaitAllCurrent(*bulk_));
  StatusOr<LookupResult> r =
      bulk_->Lookup("places", WhereEq({{"d:feature", "Fx0"}}));
  ASSERT_TRUE(r.ok());
  EXPECT_FALSE(r->rows.empty());
  EXPECT_EQ(Ids(r->routing.with_rows), std::vector<ServerId>{server});
}

}  // namespace
}  // namespace bloomroute::router
