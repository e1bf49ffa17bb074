// Two runs of a router over the same region servers: run N, and a later
// run N+1 with a higher coordinator epoch (regionstore/region_store.h,
// "Coordinator epochs"). Once run N+1 has acted, everything run N's
// coordinator tries -- a move, a split, an index build, a table created or
// deleted -- is refused by the servers and changes nothing, and the rows
// stay exactly as run N+1 left them. A router whose catalog was wiped is
// refused too, until started with --min-coordinator-epoch above the
// servers' epoch.
#include <gtest/gtest.h>

#include <filesystem>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "router/router.h"
#include "tests/router/router_test_util.h"

namespace bloomroute::router {
namespace {

using testing::PutRow;
using testing::StoreCluster;
using testing::WhereEq;

constexpr int kServers = 3;
constexpr int kRows = 60;

std::string Key(int i) {
  char buf[16];
  std::snprintf(buf, sizeof buf, "k%03d", i);
  return buf;
}

class CoordinatorEpochRouterTest : public ::testing::Test {
 protected:
  void SetUp() override {
    // Run 1 creates the table and writes the rows, then its catalog is
    // copied: the two copies are the catalogs of run N (epoch 2) and run
    // N+1 (epoch 3, its copy having counted one more start).
    {
      std::unique_ptr<Router> first = Open(Dir("n"));
      ASSERT_NE(first, nullptr);
      TableSpec spec;
      spec.name = "t";
      spec.indexed_columns = {"d:country"};
      spec.split_keys = {"k020", "k040"};
      ASSERT_TRUE(first->CreateTable(spec).ok());
      std::vector<Mutation> rows;
      for (int i = 0; i < kRows; ++i) {
        rows.push_back(PutRow(Key(i), i % 2 ? "NO" : "SE", "PPL"));
      }
      ASSERT_TRUE(first->Mutate("t", rows).ok());
      BeforeCopy(*first);
    }
    std::filesystem::copy(Dir("n"), Dir("n1"),
                          std::filesystem::copy_options::recursive);
    ASSERT_NE(Open(Dir("n1")), nullptr);  // one more start: epoch 2 there
    run_n_ = Open(Dir("n"));              // epoch 2
    ASSERT_NE(run_n_, nullptr);
    run_n1_ = Open(Dir("n1"));  // epoch 3: its first pass reopens regions
    ASSERT_NE(run_n1_, nullptr);
    for (int i = 0; i < kServers; ++i) {
      ASSERT_EQ(stores_.store(i)->CoordinatorEpochSeen(), 3u);
    }
  }

  // What run 1 does last, before its catalog is copied.
  virtual void BeforeCopy(Router& first) { (void)first; }

  std::string Dir(const std::string& name) const {
    return stores_.router_dir() + "-" + name;
  }
  std::unique_ptr<Router> Open(const std::string& dir,
                               uint64_t min_coordinator_epoch = 0) {
    RouterOptions o = testing::RouterOptionsFor(stores_);
    o.data_dir = dir;
    o.background_maintenance = false;  // passes only when a test asks
    o.min_coordinator_epoch = min_coordinator_epoch;
    if (index_chunk_rows_ != 0) {
      o.index_chunk_rows = index_chunk_rows_;
      o.index_chunks_per_pass = 1;
    }
    StatusOr<std::unique_ptr<Router>> r = Router::Open(o, stores_.Factory());
    EXPECT_TRUE(r.ok()) << r.status().ToString();
    return r.ok() ? std::move(r).value() : nullptr;
  }

  // What every store hosts: "server/region:state" in order.
  std::vector<std::string> Hosted() {
    std::vector<std::string> out;
    for (int i = 0; i < kServers; ++i) {
      for (const HostedRegion& r : stores_.store(i)->HostedRegions()) {
        out.push_back(
            std::to_string(i) + "/" + std::to_string(r.descriptor.region_id) +
            ":" + RegionStateName(r.state) + ":" +
            std::to_string(r.descriptor.table.indexed_columns.size()));
      }
    }
    return out;
  }

  // The rows as `router` reads them: every row by get, and the keys a
  // lookup of country NO answers.
  void ExpectExactRows(Router& router) {
    std::vector<GetRequest> gets;
    for (int i = 0; i < kRows; ++i) gets.push_back({0, Key(i), {}});
    StatusOr<std::vector<std::optional<Row>>> got = router.Get("t", gets);
    ASSERT_TRUE(got.ok()) << got.status().ToString();
    for (int i = 0; i < kRows; ++i) {
      ASSERT_TRUE((*got)[i].has_value()) << Key(i);
      EXPECT_EQ((*got)[i]->key, Key(i));
    }
    StatusOr<LookupResult> no =
        router.Lookup("t", WhereEq({{"d:country", "NO"}}));
    ASSERT_TRUE(no.ok()) << no.status().ToString();
    std::vector<std::string> expected;
    for (int i = 1; i < kRows; i += 2) expected.push_back(Key(i));
    EXPECT_EQ(testing::Keys(no->rows), expected);
  }

  // The region of table `t` in `router`'s catalog holding `row`.
  static RegionLocation RegionOf(Router& router, const std::string& row) {
    StatusOr<TableInfo> t = router.DescribeTable("t");
    EXPECT_TRUE(t.ok()) << t.status().ToString();
    RegionLocation found;
    for (const RegionLocation& r :
         t.ok() ? t->regions : std::vector<RegionLocation>()) {
      if (row >= r.region.start_key &&
          (r.region.end_key.empty() || row < r.region.end_key)) {
        found = r;
      }
    }
    return found;
  }
  // A member other than the one `where` names.
  static ServerId OtherServer(Router& router, const RegionLocation& where) {
    for (const ServerRef& s : router.Servers()) {
      if (s.id != where.server.id) return s.id;
    }
    return 0;
  }

  StoreCluster stores_{kServers};
  uint32_t index_chunk_rows_ = 0;  // 0: the default; else one chunk a pass
  std::unique_ptr<Router> run_n_;
  std::unique_ptr<Router> run_n1_;
};

TEST_F(CoordinatorEpochRouterTest, OlderRunIsRefusedAndChangesNothing) {
  // Run N+1 moves a region.
  const RegionLocation first = RegionOf(*run_n1_, Key(5));
  StatusOr<RegionOpResult> moved =
      run_n1_->MoveRegion(first.region.region_id, OtherServer(*run_n1_, first));
  ASSERT_TRUE(moved.ok()) << moved.status().ToString();
  ExpectExactRows(*run_n1_);
  const std::vector<std::string> before = Hosted();

  // Run N's coordinator: a move, a split, a merge, an index build, a table
  // created and one deleted. Each is refused; the servers change nothing.
  const RegionLocation middle = RegionOf(*run_n_, Key(25));
  const RegionLocation last = RegionOf(*run_n_, Key(45));
  std::map<std::string, Status> tried;
  tried["move"] =
      run_n_->MoveRegion(middle.region.region_id, OtherServer(*run_n_, middle))
          .status();
  tried["split"] =
      run_n_->SplitRegion(last.region.region_id, std::string("k050")).status();
  tried["merge"] =
      run_n_->MergeRegions(middle.region.region_id, last.region.region_id)
          .status();
  tried["add index"] = run_n_->AddIndex("t", "d:feature");
  TableSpec other;
  other.name = "u";
  tried["create table"] = run_n_->CreateTable(other).status();
  tried["delete table"] = run_n_->DeleteTable("t");
  run_n_->RunMaintenance();  // would finish or retry them: it must not
  for (const auto& [what, s] : tried) {
    EXPECT_TRUE(IsCoordinatorEpochRefused(s)) << what << ": " << s.ToString();
  }
  EXPECT_EQ(Hosted(), before);
  for (int i = 0; i < kServers; ++i) {
    EXPECT_EQ(stores_.store(i)->CoordinatorEpochSeen(), 3u);
  }
  ExpectExactRows(*run_n1_);

  // Run N+1 still coordinates: another move works.
  const RegionLocation again = RegionOf(*run_n1_, Key(45));
  StatusOr<RegionOpResult> moved_again =
      run_n1_->MoveRegion(again.region.region_id, OtherServer(*run_n1_, again));
  ASSERT_TRUE(moved_again.ok()) << moved_again.status().ToString();
  ExpectExactRows(*run_n1_);
}

// A router whose catalog was wiped starts again at epoch 1: the servers
// (at 3) refuse it, and it changes nothing. Started with its epochs above
// the servers' (the documented remedy), it coordinates.
TEST_F(CoordinatorEpochRouterTest, WipedCatalogIsRefusedUntilStartedAbove) {
  run_n_.reset();
  run_n1_.reset();
  const std::vector<std::string> before = Hosted();
  {
    std::unique_ptr<Router> wiped = Open(Dir("wiped"));
    ASSERT_NE(wiped, nullptr);
    TableSpec spec;
    spec.name = "u";
    const Status created = wiped->CreateTable(spec).status();
    EXPECT_TRUE(IsCoordinatorEpochRefused(created)) << created.ToString();
    EXPECT_EQ(Hosted(), before);
  }
  std::unique_ptr<Router> restarted = Open(Dir("wiped"), 4);
  ASSERT_NE(restarted, nullptr);
  TableSpec spec;
  spec.name = "u";
  const StatusOr<TableInfo> created = restarted->CreateTable(spec);
  ASSERT_TRUE(created.ok()) << created.status().ToString();
  for (int i = 0; i < kServers; ++i) {
    EXPECT_EQ(stores_.store(i)->CoordinatorEpochSeen(), 4u);
  }
  // Run N's catalog (epoch 3 now) is the stale one.
  std::unique_ptr<Router> old = Open(Dir("n"));
  ASSERT_NE(old, nullptr);
  const Status deleted = old->DeleteTable("t");
  EXPECT_TRUE(IsCoordinatorEpochRefused(deleted)) << deleted.ToString();
}

// An index build both catalogs hold, backfilled a chunk per maintenance
// pass: run N's next chunk is refused and deposes it (its next admin call
// is refused before it starts), and run N+1 finishes the build exactly.
class CoordinatorEpochBackfillTest : public CoordinatorEpochRouterTest {
 protected:
  void SetUp() override {
    index_chunk_rows_ = 10;
    CoordinatorEpochRouterTest::SetUp();
  }
  void BeforeCopy(Router& first) override {
    ASSERT_TRUE(first.AddIndex("t", "d:feature").ok());
  }
};

TEST_F(CoordinatorEpochBackfillTest, OlderRunsBackfillIsRefused) {
  const std::vector<std::string> before = Hosted();
  run_n_->RunMaintenance();  // its next backfill chunk: refused
  const RegionLocation middle = RegionOf(*run_n_, Key(25));
  const Status moved =
      run_n_->MoveRegion(middle.region.region_id, OtherServer(*run_n_, middle))
          .status();
  EXPECT_TRUE(IsCoordinatorEpochRefused(moved)) << moved.ToString();
  EXPECT_EQ(moved.message().rfind("this router no longer coordinates: ", 0), 0u)
      << moved.ToString();
  EXPECT_EQ(Hosted(), before);

  // Run N+1 finishes the build; the index answers exactly.
  StatusOr<LookupResult> ppl = Status::Unavailable("no pass yet");
  for (int pass = 0; pass < 100; ++pass) {
    run_n1_->RunMaintenance();
    ppl = run_n1_->Lookup("t", WhereEq({{"d:feature", "PPL"}}));
    if (ppl.ok()) break;
  }
  ASSERT_TRUE(ppl.ok()) << ppl.status().ToString();
  EXPECT_EQ(ppl->rows.size(), static_cast<size_t>(kRows));
  ExpectExactRows(*run_n1_);
}

}  // namespace
}  // namespace bloomroute::router
