// RegionStore reads are bounded per call: reply bytes (gets, scans,
// lookups) and work (rows and index entries examined, row bytes read), and
// a call stopped by a bound says where to resume.
#include <gtest/gtest.h>

#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "regionstore/region_store.h"
#include "tests/regionstore/region_store_test_util.h"

namespace bloomroute {
namespace {

using testing::OpenStoreWithRegions;
using testing::PlacesRegion;
using testing::PutPlace;
using testing::TempDir;
using testing::Where;

class RegionStoreReadBoundsTest : public ::testing::Test {
 protected:
  void Open(const RegionStoreOptions& options) {
    store_ = OpenStoreWithRegions(dir_.path() + "/db", options,
                                  {PlacesRegion(1, "", "")});
    ASSERT_NE(store_, nullptr);
  }
  void Put(std::vector<Mutation> batch) {
    ASSERT_TRUE(store_->Apply(batch).ok());
  }
  // Rows "r00000".. with country `country(i)` and feature `feature(i)`.
  template <typename CountryFn, typename FeatureFn>
  void PutRows(int n, CountryFn country, FeatureFn feature) {
    std::vector<Mutation> batch;
    for (int i = 0; i < n; ++i) {
      char key[16];
      snprintf(key, sizeof(key), "r%05d", i);
      batch.push_back(PutPlace(1, key, country(i), feature(i)));
      if (batch.size() == 5000) Put(std::exchange(batch, {}));
    }
    if (!batch.empty()) Put(std::move(batch));
  }

  TempDir dir_;
  std::unique_ptr<RegionStore> store_;
};

// Gets of one large row: the answer is a prefix of the requests, cut after
// the row that crossed the server's budget or the caller's, whichever is
// smaller; the first row is always there.
TEST_F(RegionStoreReadBoundsTest, GetsStopAfterTheRowThatCrossesTheBudget) {
  RegionStoreOptions o;
  o.max_result_bytes = 1 << 20;
  Open(o);
  Put({Mutation::Put(1, "big", {{"d:blob", std::string(600000, 'x')}})});
  std::vector<GetRequest> gets(10, GetRequest{1, "big", {}});
  StatusOr<std::vector<std::optional<Row>>> got = store_->Get(gets);
  ASSERT_TRUE(got.ok()) << got.status().ToString();
  EXPECT_EQ(got->size(), 2u);  // 600 KB, then 1.2 MB passes 1 MiB
  got = store_->Get(gets, /*max_bytes=*/1);
  ASSERT_TRUE(got.ok());
  ASSERT_EQ(got->size(), 1u);
  EXPECT_TRUE((*got)[0].has_value());
  got = store_->Get(gets, /*max_bytes=*/1300000);
  ASSERT_TRUE(got.ok());
  EXPECT_EQ(got->size(), 2u);  // the server's budget is the smaller one
}

TEST_F(RegionStoreReadBoundsTest, ScansStopAtTheCallersByteBudget) {
  Open(RegionStoreOptions());
  PutRows(
      100, [](int) { return "NO"; }, [](int) { return "A"; });
  ScanRequest scan{1, "", "", 1000, {}};
  scan.max_bytes = 1;
  StatusOr<ScanResult> r = store_->Scan(scan);
  ASSERT_TRUE(r.ok());
  ASSERT_EQ(r->rows.size(), 1u);
  EXPECT_EQ(r->resume_row, std::optional<std::string>("r00001"));
}

// A projection that matches no cell drops every row of a scan: the scan
// still stops after examining max_examined_rows rows, with a resume row, so
// that one call's work is bounded and a caller can go on.
TEST_F(RegionStoreReadBoundsTest, ScanWorkIsBoundedWhenTheProjectionDropsRows) {
  RegionStoreOptions o;
  o.max_examined_rows = 1000;
  Open(o);
  PutRows(
      5000, [](int) { return "NO"; }, [](int) { return "A"; });
  ScanRequest scan{1, "", "", 10, {"e"}};  // no family "e"
  int calls = 0;
  for (;;) {
    StatusOr<ScanResult> r = store_->Scan(scan);
    ASSERT_TRUE(r.ok()) << r.status().ToString();
    EXPECT_TRUE(r->rows.empty());
    ++calls;
    if (!r->resume_row) break;
    ASSERT_GT(*r->resume_row, scan.start_row);
    scan.start_row = *r->resume_row;
    ASSERT_LE(calls, 10);
  }
  EXPECT_EQ(calls, 5);
}

// Two equalities that hold on 2,500 rows each and on no row together: the
// lookup examines at most max_examined_rows index entries per call and
// returns an empty truncated answer with the row to resume after.
TEST_F(RegionStoreReadBoundsTest, LookupWorkIsBoundedWhenNothingMatches) {
  RegionStoreOptions o;
  o.max_examined_rows = 1000;
  Open(o);
  PutRows(
      5000, [](int i) { return i % 2 ? "NO" : "SE"; },
      [](int i) { return i % 2 ? "A" : "B"; });
  IndexQuery q = Where({{"d:country", "NO"}, {"d:feature", "B"}}, 10);
  int calls = 0;
  for (;;) {
    StatusOr<IndexQueryResult> r = store_->Lookup(q);
    ASSERT_TRUE(r.ok()) << r.status().ToString();
    EXPECT_TRUE(r->rows.empty());
    ++calls;
    if (!r->truncated) break;
    ASSERT_TRUE(r->resume_after.has_value());
    if (q.after_row) {
      ASSERT_GT(*r->resume_after, *q.after_row);
    }
    q.after_row = r->resume_after;
    ASSERT_LE(calls, 10);
  }
  EXPECT_EQ(calls, 3);  // 2,500 entries, 1,000 per call
}

// A projection lookup counts matching rows without projected cells, so its
// limit bounds it; rows read for the answer count against the byte bound.
TEST_F(RegionStoreReadBoundsTest, LookupWorkIsBoundedByBytesRead) {
  RegionStoreOptions o;
  o.max_examined_bytes = 1 << 20;
  Open(o);
  std::vector<Mutation> batch;
  for (int i = 0; i < 8; ++i) {
    batch.push_back(Mutation::Put(
        1, "r" + std::to_string(i),
        {{"d:country", "NO"}, {"d:blob", std::string(300000, 'x')}}));
  }
  Put(std::move(batch));
  IndexQuery q = Where({{"d:country", "NO"}}, 100);
  q.columns = {"d:country"};  // small answer, large rows read
  StatusOr<IndexQueryResult> r = store_->Lookup(q);
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_TRUE(r->truncated);
  EXPECT_EQ(r->rows.size(), 4u);  // 1.2 MB read passes 1 MiB
  EXPECT_EQ(r->resume_after, std::optional<std::string>("r3"));
  q.columns = {"e"};  // matching rows without projected cells count too
  q.limit = 2;
  r = store_->Lookup(q);
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(r->rows.size(), 2u);
  EXPECT_TRUE(r->truncated);
}

// A scan's filter (HBase's filter language) runs on each row after the
// projection: a SingleColumnValueFilter on a column the scan does not select
// sees it missing, as in HBase.
TEST_F(RegionStoreReadBoundsTest, ScanFilterRunsAfterTheProjection) {
  Open(RegionStoreOptions());
  PutRows(
      10, [](int i) { return i % 2 ? "NO" : "SE"; },
      [](int i) { return i < 5 ? "A" : "B"; });
  auto keys = [&](ScanRequest scan) {
    StatusOr<ScanResult> r = store_->Scan(scan);
    EXPECT_TRUE(r.ok()) << r.status().ToString();
    std::vector<std::string> out;
    if (r.ok()) {
      for (const Row& row : r->rows) out.push_back(row.key);
    }
    return out;
  };
  ScanRequest scan{1, "", "", 100, {}};
  scan.filter =
      "SingleColumnValueFilter('d', 'country', =, 'binary:NO', true, true)";
  EXPECT_EQ(keys(scan), (std::vector<std::string>{"r00001", "r00003", "r00005",
                                                  "r00007", "r00009"}));
  scan.filter +=
      " AND SingleColumnValueFilter('d', 'feature', =, 'binary:B', true, "
      "true)";
  EXPECT_EQ(keys(scan),
            (std::vector<std::string>{"r00005", "r00007", "r00009"}));
  // d:country not selected: missing, so filterIfMissing drops every row ...
  scan.columns = {"d:feature"};
  scan.filter =
      "SingleColumnValueFilter('d', 'country', =, 'binary:NO', true, true)";
  EXPECT_TRUE(keys(scan).empty());
  // ... and without filterIfMissing every row passes.
  scan.filter =
      "SingleColumnValueFilter('d', 'country', =, 'binary:NO', false, true)";
  EXPECT_EQ(keys(scan).size(), 10u);
  // Cell filters shape the returned cells.
  scan.columns = {};
  scan.filter = "PrefixFilter('r0000') AND KeyOnlyFilter()";
  StatusOr<ScanResult> r = store_->Scan(scan);
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  ASSERT_EQ(r->rows.size(), 10u);
  ASSERT_EQ(r->rows[0].cells.size(), 3u);
  for (const Cell& c : r->rows[0].cells) EXPECT_EQ(c.value, "");
}

// Rows the filter drops count as examined: a filter that matches nothing
// stops at the work bound with no row and moves on.
TEST_F(RegionStoreReadBoundsTest, ScanFilterWorkIsBoundedByRowsExamined) {
  RegionStoreOptions o;
  o.max_examined_rows = 1000;
  Open(o);
  PutRows(
      5000, [](int) { return "NO"; }, [](int) { return "A"; });
  ScanRequest scan{1, "", "", 10, {}};
  // Every row ("r...") sorts before the prefix: none passes, none ends it.
  scan.filter = "PrefixFilter('s')";
  int calls = 0;
  for (;;) {
    StatusOr<ScanResult> r = store_->Scan(scan);
    ASSERT_TRUE(r.ok()) << r.status().ToString();
    EXPECT_TRUE(r->rows.empty());
    ++calls;
    if (!r->resume_row) break;
    ASSERT_GT(*r->resume_row, scan.start_row);
    scan.start_row = *r->resume_row;
    ASSERT_LE(calls, 10);
  }
  EXPECT_EQ(calls, 5);
  // A row past the prefix ends the scan (HBase's filterAllRemaining): no
  // later row can pass, so the region answers at once, with no resume row.
  scan = ScanRequest{1, "", "", 10, {}};
  // (A key shorter than the prefix is filtered without passing it, as in
  // HBase's PrefixFilter: "n", not a longer prefix, against "r00000".)
  scan.filter = "PrefixFilter('n')";
  StatusOr<ScanResult> ended = store_->Scan(scan);
  ASSERT_TRUE(ended.ok()) << ended.status().ToString();
  EXPECT_TRUE(ended->rows.empty());
  EXPECT_FALSE(ended->resume_row.has_value());
  // The row limit counts rows returned, not rows examined.
  scan = ScanRequest{1, "", "", 3, {}};
  scan.filter = "SingleColumnValueFilter('d', 'name', =, 'binary:x')";
  StatusOr<ScanResult> r = store_->Scan(scan);
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(r->rows.size(), 3u);
  EXPECT_EQ(r->resume_row, std::optional<std::string>("r00003"));
}

TEST_F(RegionStoreReadBoundsTest, BadScanFiltersAreRefused) {
  Open(RegionStoreOptions());
  ScanRequest scan{1, "", "", 10, {}};
  scan.filter = "PrefixFilter('a'";
  StatusOr<ScanResult> r = store_->Scan(scan);
  ASSERT_TRUE(r.status().IsInvalidArgument()) << r.status().ToString();
  EXPECT_NE(r.status().message().find("position"), std::string::npos);
  scan.filter = "PrefixFilter('" + std::string(kMaxFilterTextBytes, 'a') + "')";
  r = store_->Scan(scan);
  ASSERT_TRUE(r.status().IsInvalidArgument());
  EXPECT_NE(r.status().message().find("bytes"), std::string::npos)
      << r.status().ToString();
  // Region servers do not filter gets: the router does.
  GetRequest get{1, "r00000", {}};
  get.filter = "KeyOnlyFilter()";
  EXPECT_TRUE(store_->Get({get}).status().IsInvalidArgument());
}

// A reversed scan returns the rows of [start_row, stop_row) of its region
// in descending key order; a scan stopped early resumes with resume_row as
// its next (exclusive) stop_row. Regions 1 ["", "m") and 2 ["m", "") share
// the store: neither region's scan reaches the other's rows.
TEST_F(RegionStoreReadBoundsTest, ReversedScansWalkTheRegionDownward) {
  store_ = OpenStoreWithRegions(
      dir_.path() + "/db", RegionStoreOptions(),
      {PlacesRegion(1, "", "m"), PlacesRegion(2, "m", "")});
  ASSERT_NE(store_, nullptr);
  for (const char* k : {"a", "c", "e", "g", "l"}) {
    Put({PutPlace(1, k, "NO", "A")});
  }
  for (const char* k : {"m", "p", "z"}) Put({PutPlace(2, k, "SE", "A")});
  auto keys = [&](const ScanRequest& scan, std::optional<std::string>* next) {
    StatusOr<ScanResult> r = store_->Scan(scan);
    EXPECT_TRUE(r.ok()) << r.status().ToString();
    std::vector<std::string> out;
    if (!r.ok()) return out;
    for (const Row& row : r->rows) out.push_back(row.key);
    *next = r->resume_row;
    return out;
  };
  std::optional<std::string> next;
  ScanRequest scan{1, "", "", 100, {}};
  scan.reversed = true;
  EXPECT_EQ(keys(scan, &next),
            (std::vector<std::string>{"l", "g", "e", "c", "a"}));
  EXPECT_FALSE(next.has_value());
  scan.region_id = 2;
  EXPECT_EQ(keys(scan, &next), (std::vector<std::string>{"z", "p", "m"}));
  // [c, g): g excluded, c included; two at a time, resuming below.
  scan = ScanRequest{1, "c", "g", 2, {}};
  scan.reversed = true;
  EXPECT_EQ(keys(scan, &next), (std::vector<std::string>{"e", "c"}));
  EXPECT_FALSE(next.has_value());
  scan = ScanRequest{1, "b", "", 2, {}};
  scan.reversed = true;
  EXPECT_EQ(keys(scan, &next), (std::vector<std::string>{"l", "g"}));
  ASSERT_EQ(next, std::optional<std::string>("g"));
  scan.stop_row = *next;
  // No row of [b, g) is left below c: no resume_row.
  EXPECT_EQ(keys(scan, &next), (std::vector<std::string>{"e", "c"}));
  EXPECT_FALSE(next.has_value());
  scan.limit = 1;
  scan.stop_row = "c";
  EXPECT_EQ(keys(scan, &next), std::vector<std::string>{});
  EXPECT_FALSE(next.has_value());
  // A filter and a projection run on the way down too.
  scan = ScanRequest{2, "", "", 100, {}};
  scan.reversed = true;
  scan.filter = "PrefixFilter('p')";
  EXPECT_EQ(keys(scan, &next), std::vector<std::string>{"p"});
}

TEST_F(RegionStoreReadBoundsTest, BoundsAreValidated) {
  RegionStoreOptions o;
  o.max_examined_rows = 0;
  EXPECT_NE(o.Validate().ToString().find("max examined rows"),
            std::string::npos);
  o = RegionStoreOptions();
  o.max_examined_bytes = 0;
  EXPECT_NE(o.Validate().ToString().find("max examined bytes"),
            std::string::npos);
}

}  // namespace
}  // namespace bloomroute
