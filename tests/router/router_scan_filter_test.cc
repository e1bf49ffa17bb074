// Filtered scans and gets through the router (internal/scans.cc): HBase
// filter strings on ScanSpec and GetRequest, answered from the index when
// the filter pins an indexed column (PlanFilter) and by region server scans
// otherwise, with the same rows, cells and order either way.
#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <map>
#include <memory>
#include <optional>
#include <random>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include "model/filter_language.h"
#include "router/router.h"
#include "tests/router/hook_client.h"
#include "tests/router/router_test_util.h"
#include "tests/router/store_cluster.h"

namespace bloomroute {
namespace {

using router::Router;
using router::RouterOptions;
using router::ScanSpec;
using router::TableSpec;
using testing::OpenRouter;
using testing::RouterOptionsFor;
using testing::StoreCluster;

// f:a and f:b are indexed in table "ti"; "tp" holds the same rows with no
// index, so every filter is a full scan there. g:c and g:d are never indexed.
constexpr const char* kColumns[] = {"f:a", "f:b", "g:c", "g:d"};
constexpr const char* kKeyBytes =
    "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz";

bool IndexedAB(std::string_view column) {
  return column == "f:a" || column == "f:b";
}

std::string RandomValue(std::mt19937_64& rng) {
  return std::string(1, "0123"[rng() % 4]);
}

std::string RandomKey(std::mt19937_64& rng, int i) {
  return std::string(1, kKeyBytes[rng() % 52]) + std::to_string(i);
}

TableSpec SplitSpec(std::string name, std::vector<std::string> indexed) {
  TableSpec spec;
  spec.name = std::move(name);
  spec.indexed_columns = std::move(indexed);
  spec.split_keys = {"D", "H", "L", "P", "T", "X", "d", "h", "l", "p", "t"};
  return spec;
}

Filter Scvf(std::string column, CompareOp op, std::string value,
            bool if_missing) {
  SingleColumnValueFilter s;
  s.family = column.substr(0, column.find(':'));
  s.qualifier = column.substr(column.find(':') + 1);
  s.op = op;
  s.value = std::move(value);
  s.filter_if_missing = if_missing;
  return Filter{s};
}

// Filters of the cell-level engine beyond the indexable shapes.
Filter RandomCellLeaf(std::mt19937_64& rng) {
  switch (rng() % 6) {
    case 0:
      return Filter{CompareFilter{
          CompareFilter::Part::kValue, static_cast<CompareOp>(rng() % 6),
          FilterComparator{FilterComparator::Kind::kBinary, RandomValue(rng)}}};
    case 1:
      return Filter{CompareFilter{
          CompareFilter::Part::kQualifier, CompareOp::kNotEqual,
          FilterComparator{FilterComparator::Kind::kSubstring, "b"}}};
    case 2:
      return Filter{ColumnCountGetFilter{static_cast<int32_t>(rng() % 3)}};
    case 3:
      return Filter{ColumnPaginationFilter{static_cast<int32_t>(rng() % 3),
                                           static_cast<int32_t>(rng() % 2)}};
    case 4:
      return Filter{KeyOnlyFilter{true}};
    default:
      return Filter{InclusiveStopFilter{std::string(1, kKeyBytes[rng() % 52])}};
  }
}

Filter RandomLeaf(std::mt19937_64& rng) {
  static const char* kFilterColumns[] = {"f:a", "f:b", "g:c", "g:d", "f:zz"};
  switch (rng() % 14) {
    case 12:
    case 13:
      return RandomCellLeaf(rng);
    case 0:
      return Filter{PrefixFilter{std::string(1, kKeyBytes[rng() % 52])}};
    case 1:
      return Filter{PageFilter{1 + rng() % 300}};
    case 2:
      return Filter{KeyOnlyFilter{}};
    case 3:
      return Filter{FirstKeyOnlyFilter{}};
    case 4:
      return Filter{ColumnPrefixFilter{rng() % 2 ? "a" : "c"}};
    default: {
      CompareOp op =
          rng() % 4 ? CompareOp::kEqual : static_cast<CompareOp>(rng() % 6);
      Filter f =
          Scvf(kFilterColumns[rng() % 5], op, RandomValue(rng), rng() % 5 != 0);
      auto& s = std::get<SingleColumnValueFilter>(f.node);
      s.exclude = rng() % 6 == 0;
      // '=' with binaryprefix: a prefix lookup, every server asked.
      if (rng() % 6 == 0) s.comparator = FilterComparator::Kind::kBinaryPrefix;
      return f;
    }
  }
}

Filter RandomFilter(std::mt19937_64& rng, int depth) {
  if (depth == 0 || rng() % 3 == 0) return RandomLeaf(rng);
  if (rng() % 6 == 0) {
    // WHILE runs at the router over the regions' rows; SKIP anywhere.
    UnaryFilter u{rng() % 2 ? UnaryFilter::Op::kSkip : UnaryFilter::Op::kWhile,
                  {RandomFilter(rng, depth - 1)}};
    return Filter{std::move(u)};
  }
  FilterList list;
  if (rng() % 4 == 0) {
    // An OR of equalities on indexed columns: a union of lookups (with
    // filterIfMissing sometimes false, which must not be planned).
    list.op = FilterList::Op::kOr;
    for (int i = 0, n = 2 + rng() % 2; i < n; ++i) {
      list.operands.push_back(Scvf(rng() % 2 ? "f:a" : "f:b", CompareOp::kEqual,
                                   RandomValue(rng), rng() % 8 != 0));
    }
    return Filter{std::move(list)};
  }
  list.op = rng() % 2 ? FilterList::Op::kAnd : FilterList::Op::kOr;
  for (int i = 0, n = 2 + rng() % 2; i < n; ++i) {
    list.operands.push_back(RandomFilter(rng, depth - 1));
  }
  return Filter{std::move(list)};
}

Projection RandomProjection(std::mt19937_64& rng) {
  static const Projection kProjections[] = {
      {}, {}, {"f"}, {"g"}, {"f:a", "g:c"}, {"f:b"}, {"f:a", "f:b", "g:d"}};
  return kProjections[rng() % 7];
}

std::string RandomBound(std::mt19937_64& rng,
                        const std::map<std::string, Row>& rows) {
  switch (rng() % 4) {
    case 0:
      return "";
    case 1:
      return std::string(1, kKeyBytes[rng() % 52]);
    default: {
      auto it = rows.begin();
      std::advance(it, rng() % rows.size());
      return it->first;
    }
  }
}

// The answer by definition: the rows of [start, stop) in key order, each
// projected, then filtered (one FilterScan, to the row that ends it), at
// most the PageFilter's limit.
std::vector<Row> ModelScan(const std::map<std::string, Row>& rows,
                           const ScanSpec& spec, const Filter& filter,
                           std::optional<uint64_t> row_limit) {
  std::vector<Row> out;
  FilterScan scan(filter);
  for (auto it = rows.lower_bound(spec.start_row); it != rows.end(); ++it) {
    if (!spec.stop_row.empty() && it->first >= spec.stop_row) break;
    if (row_limit && out.size() >= *row_limit) break;
    Row projected{it->first, {}};
    for (const Cell& c : it->second.cells) {
      if (Selected(spec.columns, c.column)) projected.cells.push_back(c);
    }
    if (projected.cells.empty()) continue;
    FilterScan::Result r = scan.Next(projected);
    if (r.row) out.push_back(std::move(*r.row));
    if (r.ends_scan) break;
  }
  return out;
}

// The stores' clock: the timestamp of every cell written.
constexpr int64_t kNow = 1700000000000;
RegionStoreOptions FixedClock() {
  RegionStoreOptions options;
  options.clock_ms = [] { return kNow; };
  return options;
}

class RouterScanFilterTest : public ::testing::Test {
 protected:
  void SetUp() override {
    router_ = OpenRouter(cluster_);
    ASSERT_NE(router_, nullptr);
  }

  // Every row of a scanner over `spec`, in batches of random sizes, each
  // call sequenced and now and then repeated (it must return the same rows).
  std::vector<Row> ScanAll(const std::string& table, const ScanSpec& spec,
                           std::mt19937_64& rng) {
    const router::ScannerClient client = router::NewScannerClient();
    StatusOr<int64_t> id = router_->OpenScanner(table, spec, client);
    EXPECT_TRUE(id.ok()) << id.status().ToString();
    if (!id.ok()) return {};
    std::vector<Row> out;
    for (uint64_t seq = 1;; ++seq) {
      const uint32_t batch = 1 + rng() % (rng() % 2 ? 20 : 700);
      StatusOr<std::vector<Row>> rows =
          router_->ScannerNext(*id, batch, seq, client);
      EXPECT_TRUE(rows.ok()) << rows.status().ToString();
      if (!rows.ok()) break;
      EXPECT_LE(rows->size(), batch);
      if (rng() % 8 == 0) {
        StatusOr<std::vector<Row>> again =
            router_->ScannerNext(*id, batch, seq, client);
        EXPECT_TRUE(again.ok() && *again == *rows) << "repeat of call " << seq;
      }
      if (rows->empty()) break;
      out.insert(out.end(), rows->begin(), rows->end());
    }
    EXPECT_TRUE(router_->CloseScanner(*id, client).ok());
    return out;
  }

  // Replaces the router with one of `options` over `factory` (default: the
  // cluster's own clients).
  void Reopen(const RouterOptions& options,
              std::shared_ptr<router::RegionClientFactory> factory = nullptr) {
    router_.reset();
    StatusOr<std::unique_ptr<Router>> opened = Router::Open(
        options, factory != nullptr ? factory : cluster_.Factory());
    ASSERT_TRUE(opened.ok()) << opened.status().ToString();
    router_ = std::move(opened).value();
  }

  StoreCluster cluster_{4, FixedClock()};
  std::unique_ptr<Router> router_;
};

// Seed 1616; 10,000 rows (BLOOMROUTE_SCAN_FILTER_ROWS=N for more) over 4
// servers and 12 regions, values from {0,1,2,3} on two indexed and two
// unindexed columns, each present with probability 3/4; 120 random filters
// (BLOOMROUTE_SCAN_FILTER_CASES=N) with random ranges and projections. The
// indexed table's scanner, the unindexed table's (full scans) and the model
// must agree row for row and cell for cell.
TEST_F(RouterScanFilterTest, IndexPlanEqualsFullScanEqualsModel) {
  const char* rows_env = std::getenv("BLOOMROUTE_SCAN_FILTER_ROWS");
  const char* cases_env = std::getenv("BLOOMROUTE_SCAN_FILTER_CASES");
  const int n_rows = rows_env ? std::atoi(rows_env) : 10000;
  const int n_cases = cases_env ? std::atoi(cases_env) : 120;
  ASSERT_TRUE(router_->CreateTable(SplitSpec("ti", {"f:a", "f:b"})).ok());
  ASSERT_TRUE(router_->CreateTable(SplitSpec("tp", {})).ok());
  std::mt19937_64 rng(1616);
  std::map<std::string, Row> model;
  std::vector<Mutation> batch;
  for (int i = 0; i < n_rows; ++i) {
    Row row{RandomKey(rng, i), {}};
    for (const char* column : kColumns) {
      if (rng() % 4 != 0) row.cells.push_back({column, RandomValue(rng)});
    }
    if (row.cells.empty()) row.cells.push_back({"g:d", "3"});
    batch.push_back(Mutation::Put(0, row.key, row.cells));
    for (Cell& c : row.cells) c.timestamp = kNow;  // as the store stamps them
    model[row.key] = row;
    if (batch.size() == 5000 || i + 1 == n_rows) {
      ASSERT_TRUE(router_->Mutate("ti", batch).ok());
      ASSERT_TRUE(router_->Mutate("tp", std::move(batch)).ok());
      batch.clear();
    }
  }
  int planned = 0, unions = 0, nonempty = 0, limited = 0, whiles = 0;
  for (int accepted = 0; accepted < n_cases;) {
    Filter filter = RandomFilter(rng, 3);
    if (!ValidateFilter(filter).ok()) continue;
    ++accepted;
    const FilterPlan plan = PlanFilter(filter, IndexedAB);
    ScanSpec spec;
    spec.filter = ToString(filter);
    spec.columns = RandomProjection(rng);
    if (rng() % 2) {
      spec.start_row = RandomBound(rng, model);
      spec.stop_row = RandomBound(rng, model);
      if (spec.stop_row < spec.start_row)
        std::swap(spec.start_row, spec.stop_row);
    }
    const std::vector<Row> want =
        ModelScan(model, spec, filter, plan.row_limit);
    const std::string what =
        spec.filter + " over [" + spec.start_row + ", " + spec.stop_row + ")";
    ASSERT_EQ(ScanAll("tp", spec, rng), want) << "full scan: " << what;
    ASSERT_EQ(ScanAll("ti", spec, rng), want) << "indexed: " << what;
    planned += plan.uses_index();
    unions += plan.lookups.size() > 1;
    nonempty += !want.empty();
    limited += plan.row_limit.has_value();
    whiles += FilterEndsScans(filter);
  }
  // Meaningful only if index plans, unions and row limits were exercised.
  EXPECT_GE(planned, n_cases / 6);
  EXPECT_GE(unions, n_cases / 30);
  EXPECT_GE(nonempty, n_cases / 3);
  EXPECT_GE(limited, n_cases / 30);
  EXPECT_GE(whiles, n_cases / 30);  // run at the router across regions
}

// An index-planned scan asks only the servers the global index does not rule
// out; the same filter on an unindexed column asks every server.
TEST_F(RouterScanFilterTest, IndexPlanAsksOnlyCandidateServers) {
  RouterOptions options = RouterOptionsFor(cluster_);
  options.background_maintenance = false;  // no calls but the scan's
  ASSERT_NO_FATAL_FAILURE(Reopen(options));
  ASSERT_TRUE(router_->CreateTable(SplitSpec("tc", {"f:a"})).ok());
  std::vector<Mutation> rows;
  for (int i = 0; i < 2000; ++i) {
    std::string key = std::string(1, kKeyBytes[i % 52]) + std::to_string(i);
    rows.push_back(Mutation::Put(0, key, {{"f:a", "common"}, {"g:c", "x"}}));
  }
  rows.push_back(Mutation::Put(0, "M1", {{"f:a", "rare"}, {"g:c", "rare"}}));
  ASSERT_TRUE(router_->Mutate("tc", std::move(rows)).ok());
  router_->RunMaintenance();
  for (const auto& s : router_->IndexStats()) ASSERT_TRUE(s.replica.current);
  StatusOr<router::LookupResult> routed =
      router_->Lookup("tc", testing::WhereEq({{"f:a", "rare"}}));
  ASSERT_TRUE(routed.ok());
  const std::vector<router::ServerId> candidates =
      testing::Ids(routed->routing.asked);
  ASSERT_LT(candidates.size(), 4u);

  auto servers_called = [&](const std::string& filter) {
    std::vector<int64_t> before;
    for (int i = 0; i < 4; ++i) before.push_back(cluster_.node(i).calls);
    ScanSpec spec;
    spec.filter = filter;
    std::mt19937_64 rng(7);
    std::vector<Row> got = ScanAll("tc", spec, rng);
    EXPECT_EQ(testing::Keys(got), std::vector<std::string>{"M1"}) << filter;
    std::set<std::string> called;
    for (int i = 0; i < 4; ++i) {
      if (cluster_.node(i).calls != before[i]) {
        called.insert(cluster_.node(i).address);
      }
    }
    return called;
  };
  std::set<std::string> want;
  for (const router::ServerRef& s : routed->routing.asked) {
    want.insert(s.address);
  }
  EXPECT_EQ(servers_called("SingleColumnValueFilter('f', 'a', =, "
                           "'binary:rare', true, true)"),
            want);
  EXPECT_EQ(servers_called("SingleColumnValueFilter('g', 'c', =, "
                           "'binary:rare', true, true)")
                .size(),
            4u);
}

// getScannerRows(id, 1) on a scan whose index pin matches every row and
// whose other filter matches none fetched candidates one at a time (the
// caller's numRows was the lookup limit): 7 s of lookups on 20,000 rows, a
// worker held all along. Candidates now come in pages that grow while the
// filter drops them, whatever numRows is.
TEST_F(RouterScanFilterTest, ACandidateFetchDoesNotDependOnTheBatchSize) {
  RouterOptions options = RouterOptionsFor(cluster_);
  options.background_maintenance = false;  // no calls but the scan's
  ASSERT_NO_FATAL_FAILURE(Reopen(options));
  ASSERT_TRUE(router_->CreateTable(SplitSpec("tc", {"f:a"})).ok());
  std::vector<Mutation> rows;
  for (int i = 0; i < 4000; ++i) {
    std::string key = std::string(1, kKeyBytes[i % 52]) + std::to_string(i);
    rows.push_back(Mutation::Put(0, key, {{"f:a", "common"}, {"g:c", "x"}}));
  }
  ASSERT_TRUE(router_->Mutate("tc", std::move(rows)).ok());
  router_->RunMaintenance();
  auto calls = [&] {
    int64_t n = 0;
    for (int i = 0; i < 4; ++i) n += cluster_.node(i).calls;
    return n;
  };
  ScanSpec spec;
  spec.filter =
      "SingleColumnValueFilter('f', 'a', =, 'binary:common', true, true) AND "
      "SingleColumnValueFilter('g', 'c', =, 'binary:none', true, true)";
  const router::ScannerClient client = router::NewScannerClient();
  StatusOr<int64_t> id = router_->OpenScanner("tc", spec, client);
  ASSERT_TRUE(id.ok()) << id.status().ToString();
  const int64_t before = calls();
  StatusOr<std::vector<Row>> batch = router_->ScannerNext(*id, 1, 1, client);
  ASSERT_TRUE(batch.ok()) << batch.status().ToString();
  EXPECT_TRUE(batch->empty());  // the scan is over: no row matches
  // One lookup per candidate asked up to 4 servers 4,000 times. Pages of
  // 1, 4, 16, ... 1,024 candidates take a few dozen calls.
  EXPECT_LT(calls() - before, 200) << "store calls for one batch";
  EXPECT_TRUE(router_->CloseScanner(*id, client).ok());
}

// A scanner keeps its candidate page across batches: past a stretch the
// filter dropped, the page had grown to 1,024, and every later batch of one
// row fetched 1,024 candidates to keep one. A batch that filled now leaves
// the next a page a quarter the size, down to the rows it needs.
TEST_F(RouterScanFilterTest, APageThatHeldEnoughShrinksForTheNextBatch) {
  RouterOptions options = RouterOptionsFor(cluster_);
  options.background_maintenance = false;  // no calls but the scan's
  auto hooks = std::make_shared<testing::Hooks>();
  ASSERT_NO_FATAL_FAILURE(Reopen(
      options, std::make_shared<testing::HookFactory>(&cluster_, hooks)));
  ASSERT_TRUE(router_->CreateTable(SplitSpec("tc", {"f:a"})).ok());
  // 3,000 rows the filter drops, then 3,000 it keeps, in key order.
  std::vector<Mutation> rows;
  for (int i = 0; i < 6000; ++i) {
    char key[16];
    std::snprintf(key, sizeof(key), "r%05d", i);
    rows.push_back(Mutation::Put(
        0, key, {{"f:a", "common"}, {"g:c", i < 3000 ? "drop" : "keep"}}));
  }
  ASSERT_TRUE(router_->Mutate("tc", std::move(rows)).ok());
  ScanSpec spec;
  spec.filter =
      "SingleColumnValueFilter('f', 'a', =, 'binary:common', true, true) AND "
      "SingleColumnValueFilter('g', 'c', =, 'binary:keep', true, true)";
  const router::ScannerClient client = router::NewScannerClient();
  StatusOr<int64_t> id = router_->OpenScanner("tc", spec, client);
  ASSERT_TRUE(id.ok()) << id.status().ToString();
  std::vector<uint64_t> fetched;  // candidates per batch
  for (uint64_t seq = 1; seq <= 10; ++seq) {
    const uint64_t before = hooks->lookup_rows.load();
    StatusOr<std::vector<Row>> batch =
        router_->ScannerNext(*id, 1, seq, client);
    ASSERT_TRUE(batch.ok()) << batch.status().ToString();
    ASSERT_EQ(batch->size(), 1u);
    char want[16];
    std::snprintf(want, sizeof(want), "r%05d",
                  3000 + static_cast<int>(seq) - 1);
    EXPECT_EQ(batch->front().key, want);
    fetched.push_back(hooks->lookup_rows.load() - before);
  }
  // The first batch crossed the dropped stretch in growing pages; the next
  // ones fetch a quarter as many each time, then one.
  EXPECT_GT(fetched[0], 3000u);
  for (size_t i = 1; i < fetched.size(); ++i) {
    EXPECT_LE(fetched[i], 256u) << "batch " << i;
  }
  EXPECT_LE(fetched.back(), 1u) << "the last batch";
  EXPECT_TRUE(router_->CloseScanner(*id, client).ok());
}

// Past RouterOptions::call_work_budget_ms a batch that has rows returns
// them, fewer than asked, and the scan goes on from there: every row comes
// exactly once.
TEST_F(RouterScanFilterTest, ABatchPastItsWorkBudgetAnswersWhatItHas) {
  RouterOptions options = RouterOptionsFor(cluster_);
  options.call_work_budget_ms = 1;
  // Every region server call takes 2 ms: past the budget after one.
  auto hooks = std::make_shared<testing::Hooks>();
  hooks->before = [](int, const std::string& call, uint64_t) {
    if (call == "Lookup" || call == "Scan") {
      std::this_thread::sleep_for(std::chrono::milliseconds(2));
    }
    return Status::OK();
  };
  ASSERT_NO_FATAL_FAILURE(Reopen(
      options, std::make_shared<testing::HookFactory>(&cluster_, hooks)));
  ASSERT_TRUE(router_->CreateTable(SplitSpec("tc", {"f:a"})).ok());
  std::vector<Mutation> rows;
  std::set<std::string> want;
  for (int i = 0; i < 4000; ++i) {
    std::string key = std::string(1, kKeyBytes[i % 52]) + std::to_string(i);
    const bool match = i % 10 == 0;
    if (match) want.insert(key);
    rows.push_back(
        Mutation::Put(0, key, {{"f:a", "common"}, {"g:c", match ? "x" : "y"}}));
  }
  ASSERT_TRUE(router_->Mutate("tc", std::move(rows)).ok());
  for (const char* filter :
       {"SingleColumnValueFilter('f', 'a', =, 'binary:common', true, true) "
        "AND SingleColumnValueFilter('g', 'c', =, 'binary:x', true, true)",
        "SingleColumnValueFilter('g', 'c', =, 'binary:x', true, true)"}) {
    SCOPED_TRACE(filter);
    ScanSpec spec;
    spec.filter = filter;
    const router::ScannerClient client = router::NewScannerClient();
    StatusOr<int64_t> id = router_->OpenScanner("tc", spec, client);
    ASSERT_TRUE(id.ok()) << id.status().ToString();
    std::vector<std::string> got;
    size_t batches = 0;
    for (uint64_t seq = 1;; ++seq) {
      StatusOr<std::vector<Row>> batch =
          router_->ScannerNext(*id, 1000, seq, client);
      ASSERT_TRUE(batch.ok()) << batch.status().ToString();
      if (batch->empty()) break;
      ++batches;
      for (const Row& r : *batch) got.push_back(r.key);
    }
    // Without the budget the first batch held all 400 rows.
    EXPECT_GT(batches, 1u);
    EXPECT_TRUE(std::is_sorted(got.begin(), got.end()));
    EXPECT_EQ(std::set<std::string>(got.begin(), got.end()), want);
    EXPECT_EQ(got.size(), want.size());
    EXPECT_TRUE(router_->CloseScanner(*id, client).ok());
  }
}

// PageFilter's limit holds across the scanner's batches; Router::Scan
// applies it to its one answer.
TEST_F(RouterScanFilterTest, PageFilterLimitsTheWholeScan) {
  ASSERT_TRUE(router_->CreateTable(SplitSpec("t", {"f:a"})).ok());
  std::vector<Mutation> rows;
  for (int i = 0; i < 500; ++i) {
    std::string key = std::string(1, kKeyBytes[i % 52]) + std::to_string(i);
    rows.push_back(Mutation::Put(0, key, {{"f:a", i % 2 ? "1" : "0"}}));
  }
  ASSERT_TRUE(router_->Mutate("t", std::move(rows)).ok());
  for (const char* filter :
       {"PageFilter(37)",
        "SingleColumnValueFilter('f', 'a', =, 'binary:1', true, true) AND "
        "PageFilter(37)"}) {
    ScanSpec spec;
    spec.filter = filter;
    std::mt19937_64 rng(3);
    EXPECT_EQ(ScanAll("t", spec, rng).size(), 37u) << filter;
    StatusOr<ScanResult> one = router_->Scan("t", spec, 1000);
    ASSERT_TRUE(one.ok()) << one.status().ToString();
    EXPECT_EQ(one->rows.size(), 37u) << filter;
    EXPECT_FALSE(one->resume_row.has_value()) << filter;
  }
}

// The reply byte budget holds on both paths: each batch stops after the row
// that passes RouterOptions::max_reply_bytes, and the scan still returns
// every row once, in order.
TEST_F(RouterScanFilterTest, FilteredBatchesKeepTheReplyByteBudget) {
  RouterOptions options = RouterOptionsFor(cluster_);
  options.max_reply_bytes = 100000;
  ASSERT_NO_FATAL_FAILURE(Reopen(options));
  ASSERT_TRUE(router_->CreateTable(SplitSpec("t", {"f:a"})).ok());
  std::vector<Mutation> rows;
  std::vector<std::string> want;
  for (int i = 0; i < 120; ++i) {
    std::string key = std::string(1, kKeyBytes[i % 52]) + std::to_string(i);
    const bool match = i % 3 != 0;
    rows.push_back(Mutation::Put(
        0, key,
        {{"f:a", match ? "1" : "0"}, {"g:c", std::string(20000, 'v')}}));
    if (match) want.push_back(key);
  }
  std::sort(want.begin(), want.end());
  ASSERT_TRUE(router_->Mutate("t", std::move(rows)).ok());
  for (const char* filter :
       {"SingleColumnValueFilter('f', 'a', =, 'binary:1', true, true)",
        "SingleColumnValueFilter('f', 'a', =, 'binary:1', false, true)"}) {
    ScanSpec spec;
    spec.filter = filter;
    StatusOr<int64_t> id = router_->OpenScanner("t", spec);
    ASSERT_TRUE(id.ok());
    std::vector<std::string> got;
    for (;;) {
      StatusOr<std::vector<Row>> batch = router_->ScannerNext(*id, 1000);
      ASSERT_TRUE(batch.ok()) << batch.status().ToString();
      if (batch->empty()) break;
      // 100 KB passed after the 5th row of about 20 KB.
      EXPECT_LE(batch->size(), 5u) << filter;
      for (const Row& r : *batch) got.push_back(r.key);
    }
    EXPECT_EQ(got, want) << filter;
  }
}

// Gets: the filter runs on the router on each projected row; a row it drops
// is a missing row.
TEST_F(RouterScanFilterTest, GetsApplyTheFilterToTheProjectedRow) {
  ASSERT_TRUE(router_->CreateTable(SplitSpec("t", {"f:a"})).ok());
  ASSERT_TRUE(
      router_
          ->Mutate("t", {Mutation::Put(0, "A1", {{"f:a", "1"}, {"g:c", "x"}}),
                         Mutation::Put(0, "b2", {{"f:a", "2"}})})
          .ok());
  const std::string pins =
      "SingleColumnValueFilter('f', 'a', =, 'binary:1', true, true)";
  std::vector<GetRequest> gets(4);
  gets[0] = {0, "A1", {}};
  gets[0].filter = pins + " AND KeyOnlyFilter()";
  gets[1] = {0, "b2", {}};
  gets[1].filter = pins;
  gets[2] = {0, "A1", {"g"}};  // f:a not selected: missing, dropped
  gets[2].filter = pins;
  gets[3] = {0, "A1", {"g"}};
  StatusOr<std::vector<std::optional<Row>>> got = router_->Get("t", gets);
  ASSERT_TRUE(got.ok()) << got.status().ToString();
  ASSERT_EQ(got->size(), 4u);
  ASSERT_TRUE((*got)[0].has_value());
  EXPECT_EQ((*got)[0]->cells,
            (std::vector<Cell>{{"f:a", "", kNow}, {"g:c", "", kNow}}));
  EXPECT_FALSE((*got)[1].has_value());
  EXPECT_FALSE((*got)[2].has_value());
  ASSERT_TRUE((*got)[3].has_value());
  EXPECT_EQ((*got)[3]->cells, (std::vector<Cell>{{"g:c", "x", kNow}}));
}

// Bad filters are refused before any server is asked: a syntax error names
// the position, an unsupported filter its name, a long text the limit and
// the flag that sets it.
TEST_F(RouterScanFilterTest, BadFiltersAreRefusedByName) {
  ASSERT_TRUE(router_->CreateTable(SplitSpec("t", {"f:a"})).ok());
  ScanSpec spec;
  spec.filter = "PrefixFilter('a') AND";
  StatusOr<int64_t> id = router_->OpenScanner("t", spec);
  ASSERT_TRUE(id.status().IsInvalidArgument()) << id.status().ToString();
  EXPECT_NE(id.status().message().find("at position"), std::string::npos);
  spec.filter = "ColumnValueFilter('f', 'a', =, 'binary:1')";
  StatusOr<ScanResult> scan = router_->Scan("t", spec, 10);
  ASSERT_TRUE(scan.status().IsInvalidArgument());
  EXPECT_NE(scan.status().message().find("ColumnValueFilter"),
            std::string::npos);
  spec.filter = "PrefixFilter('" +
                std::string(RouterOptions().max_filter_bytes, 'a') + "')";
  scan = router_->Scan("t", spec, 10);
  ASSERT_TRUE(scan.status().IsInvalidArgument());
  EXPECT_NE(scan.status().message().find("--max-filter-bytes"),
            std::string::npos)
      << scan.status().ToString();
  std::vector<GetRequest> gets(1, GetRequest{0, "a", {}});
  gets[0].filter = "KeyOnlyFilter(";
  EXPECT_TRUE(router_->Get("t", gets).status().IsInvalidArgument());
  RouterOptions options = RouterOptionsFor(cluster_);
  options.max_filter_bytes = 0;
  EXPECT_NE(options.Validate().ToString().find("max_filter_bytes"),
            std::string::npos);
}

}  // namespace
}  // namespace bloomroute
