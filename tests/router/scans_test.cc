// Scans: region scans in key order across regions with a resume row, index
// scans from the lookup hook merged and filtered on the router, scanners
// that end with their close or expiry, and region servers' scan replies
// checked as untrusted input.
#include "router/internal/scans.h"

#include <gtest/gtest.h>

#include <chrono>
#include <map>
#include <string>
#include <thread>
#include <vector>

#include "router/internal/row_calls.h"
#include "tests/router/component_cluster.h"

namespace bloomroute::router_internal {
namespace {

using router::LookupResult;
using router::LookupSpec;
using router::ScanSpec;

constexpr int kServers = 3;

constexpr const char* kSweden =
    "SingleColumnValueFilter('d', 'country', =, 'binary:SE', true, true)";

std::vector<std::string> Keys(const std::vector<Row>& rows) {
  std::vector<std::string> out;
  for (const Row& r : rows) out.push_back(r.key);
  return out;
}

class ScansTest : public ::testing::Test {
 protected:
  // Table "t": regions [, g) [g, p) [p, ) on servers 0, 1 and 2.
  void SetUp() override {
    cluster_.CreateTable("t", {"g", "p"}, {0, 1, 2});
    std::vector<Mutation> rows;
    for (const auto& [key, country] : kRows) {
      rows.push_back(Mutation::Put(0, key, {{"d:country", country}}));
    }
    ASSERT_TRUE(RowCalls(cluster_.ctx()).Mutate("t", std::move(rows)).ok());
    cluster_.ResetCalls();
  }

  // The lookup hook: the rows of kRows whose d:country is the value asked,
  // after the spec's after_row, at most its limit (then truncated).
  StatusOr<LookupResult> Lookup(std::string_view table,
                                const LookupSpec& spec) {
    ++lookups_;
    EXPECT_EQ(table, "t");
    LookupResult out;
    for (const auto& [key, country] : kRows) {
      if (spec.after_row && key <= *spec.after_row) continue;
      if (country != spec.equals.at(0).value) continue;
      if (spec.limit != 0 && out.rows.size() == spec.limit) {
        out.truncated = true;
        out.resume_after = out.rows.back().key;
        break;
      }
      out.rows.push_back(Row{key, {{"d:country", country}}});
    }
    return out;
  }

  const std::map<std::string, std::string> kRows = {
      {"a", "SE"}, {"b", "NO"}, {"h", "SE"}, {"i", "DK"}, {"q", "SE"}};
  testing::ComponentCluster cluster_{kServers};
  int lookups_ = 0;
  Scans scans_{cluster_.ctx(),
               Scans::Hooks{[this](std::string_view t, const LookupSpec& s) {
                 return Lookup(t, s);
               }}};
};

TEST_F(ScansTest, ScanReadsTheRegionsInKeyOrderAndResumes) {
  StatusOr<ScanResult> page = scans_.Scan("t", ScanSpec{}, 2);
  ASSERT_TRUE(page.ok()) << page.status().ToString();
  EXPECT_EQ(Keys(page->rows), (std::vector<std::string>{"a", "b"}));
  ASSERT_TRUE(page->resume_row.has_value());
  ScanSpec rest;
  rest.start_row = *page->resume_row;
  page = scans_.Scan("t", rest, 10);
  ASSERT_TRUE(page.ok()) << page.status().ToString();
  EXPECT_EQ(Keys(page->rows), (std::vector<std::string>{"h", "i", "q"}));
  EXPECT_FALSE(page->resume_row.has_value());
  EXPECT_EQ(lookups_, 0);
}

TEST_F(ScansTest, AFilterOnAnIndexedColumnScansFromTheLookups) {
  ScanSpec spec;
  spec.filter = kSweden;
  StatusOr<ScanResult> page = scans_.Scan("t", spec, 10);
  ASSERT_TRUE(page.ok()) << page.status().ToString();
  EXPECT_EQ(Keys(page->rows), (std::vector<std::string>{"a", "h", "q"}));
  EXPECT_GE(lookups_, 1);
  for (int node = 0; node < kServers; ++node) {
    EXPECT_EQ(cluster_.Calls(node, "Scan"), 0) << node;
  }
  // Within [b, p) only.
  spec.start_row = "b";
  spec.stop_row = "p";
  page = scans_.Scan("t", spec, 10);
  ASSERT_TRUE(page.ok()) << page.status().ToString();
  EXPECT_EQ(Keys(page->rows), std::vector<std::string>{"h"});
}

TEST_F(ScansTest, AFilterOnAnotherColumnIsSentToTheRegionServers) {
  ScanSpec spec;
  spec.filter = "PrefixFilter('h')";
  StatusOr<ScanResult> page = scans_.Scan("t", spec, 10);
  ASSERT_TRUE(page.ok()) << page.status().ToString();
  EXPECT_EQ(Keys(page->rows), std::vector<std::string>{"h"});
  EXPECT_EQ(lookups_, 0);
  EXPECT_GE(cluster_.Calls(1, "Scan"), 1);
}

// A reversed scan reads [start_row, stop_row) in descending key order,
// walking the regions (on servers 2, 1, 0) from the last; its resume_row is
// the next call's stop_row.
TEST_F(ScansTest, AReversedScanWalksTheRegionsDownwardAndResumes) {
  ScanSpec spec;
  spec.reversed = true;
  std::vector<std::vector<std::string>> pages;
  for (int call = 0; call < 10; ++call) {
    StatusOr<ScanResult> page = scans_.Scan("t", spec, 2);
    ASSERT_TRUE(page.ok()) << page.status().ToString();
    pages.push_back(Keys(page->rows));
    if (!page->resume_row) break;
    ASSERT_TRUE(spec.stop_row.empty() || *page->resume_row < spec.stop_row);
    spec.stop_row = *page->resume_row;
  }
  EXPECT_EQ(pages, (std::vector<std::vector<std::string>>{
                       {"q", "i"}, {"h", "b"}, {"a"}}));
  spec = ScanSpec{"b", "p", {}};
  spec.reversed = true;
  StatusOr<ScanResult> page = scans_.Scan("t", spec, 10);
  ASSERT_TRUE(page.ok()) << page.status().ToString();
  EXPECT_EQ(Keys(page->rows), (std::vector<std::string>{"i", "h", "b"}));
  spec.filter = "PageFilter(2)";
  page = scans_.Scan("t", spec, 10);
  ASSERT_TRUE(page.ok()) << page.status().ToString();
  EXPECT_EQ(Keys(page->rows), (std::vector<std::string>{"i", "h"}));
  EXPECT_FALSE(page->resume_row.has_value());
}

// A reversed scan with an indexed pin is the reversed region scan with the
// filter on the region servers, not the index's (ascending) candidates.
TEST_F(ScansTest, AReversedIndexedFilterScansTheRegions) {
  ScanSpec spec;
  spec.reversed = true;
  spec.filter = kSweden;
  StatusOr<ScanResult> page = scans_.Scan("t", spec, 10);
  ASSERT_TRUE(page.ok()) << page.status().ToString();
  EXPECT_EQ(Keys(page->rows), (std::vector<std::string>{"q", "h", "a"}));
  EXPECT_EQ(lookups_, 0);
}

// A reversed scanner pages across regions, and a repeated call (the same
// sequence number) returns the same rows again.
TEST_F(ScansTest, AReversedScannerPagesAndRepeats) {
  ScanSpec spec;
  spec.reversed = true;
  StatusOr<int64_t> id = scans_.OpenScanner("t", spec, 7, "");
  ASSERT_TRUE(id.ok()) << id.status().ToString();
  std::vector<std::string> seen;
  uint64_t seq = 1;
  for (;; ++seq) {
    StatusOr<std::vector<Row>> batch = scans_.ScannerNext(*id, 2, seq, 7);
    ASSERT_TRUE(batch.ok()) << batch.status().ToString();
    if (seq == 2) {  // its reply "lost": the call again
      batch = scans_.ScannerNext(*id, 2, seq, 7);
      ASSERT_TRUE(batch.ok()) << batch.status().ToString();
    }
    if (batch->empty()) break;
    for (const Row& r : *batch) seen.push_back(r.key);
  }
  EXPECT_EQ(seen, (std::vector<std::string>{"q", "i", "h", "b", "a"}));
  ASSERT_TRUE(scans_.CloseScanner(*id, 7).ok());
}

TEST_F(ScansTest, ABadScanIsRefusedBeforeAnyServerIsCalled) {
  EXPECT_TRUE(scans_.Scan("t", ScanSpec{}, 0).status().IsInvalidArgument());
  ScanSpec spec;
  spec.filter = "NoSuchFilter()";
  EXPECT_TRUE(scans_.Scan("t", spec, 1).status().IsInvalidArgument());
  EXPECT_TRUE(
      scans_.OpenScanner("t", spec, 1, "").status().IsInvalidArgument());
  spec.filter = std::string(cluster_.ctx().options->max_filter_bytes + 1, ' ');
  const Status too_long = scans_.Scan("t", spec, 1).status();
  EXPECT_NE(too_long.message().find("--max-filter-bytes"), std::string::npos)
      << too_long.ToString();
  ScanSpec projected;
  projected.columns = {"x:y"};  // a family the table does not declare
  EXPECT_TRUE(scans_.Scan("t", projected, 1).status().IsInvalidArgument());
  EXPECT_TRUE(scans_.Scan("none", ScanSpec{}, 1).status().IsNotFound());
  for (int node = 0; node < kServers; ++node) {
    EXPECT_EQ(cluster_.Calls(node, "Scan"), 0) << node;
  }
}

TEST_F(ScansTest, AScannerWalksTheTableAndFailsAfterItsClose) {
  StatusOr<int64_t> id = scans_.OpenScanner("t", ScanSpec{}, 7, "alice");
  ASSERT_TRUE(id.ok()) << id.status().ToString();
  EXPECT_EQ(scans_.ScannerTable(*id), "t");
  // Another client's call does not find it.
  EXPECT_TRUE(scans_.ScannerNext(*id, 2, 0, 8).status().IsNotFound());
  std::vector<std::string> seen;
  for (;;) {
    StatusOr<std::vector<Row>> batch = scans_.ScannerNext(*id, 2, 0, 7);
    ASSERT_TRUE(batch.ok()) << batch.status().ToString();
    if (batch->empty()) break;
    for (const Row& r : *batch) seen.push_back(r.key);
  }
  EXPECT_EQ(seen, (std::vector<std::string>{"a", "b", "h", "i", "q"}));
  ASSERT_TRUE(scans_.CloseScanner(*id, 7).ok());
  EXPECT_TRUE(scans_.ScannerNext(*id, 2, 0, 7).status().IsNotFound());
  EXPECT_TRUE(scans_.CloseScanner(*id, 7).IsNotFound());
  EXPECT_EQ(scans_.ScannerTable(*id), "");
}

TEST_F(ScansTest, ClosingAClientsScannersLeavesTheOthers) {
  StatusOr<int64_t> mine = scans_.OpenScanner("t", ScanSpec{}, 1, "");
  StatusOr<int64_t> theirs = scans_.OpenScanner("t", ScanSpec{}, 2, "");
  ASSERT_TRUE(mine.ok() && theirs.ok());
  scans_.CloseScanners(1);
  EXPECT_TRUE(scans_.ScannerNext(*mine, 1, 0, 1).status().IsNotFound());
  StatusOr<std::vector<Row>> batch = scans_.ScannerNext(*theirs, 1, 0, 2);
  ASSERT_TRUE(batch.ok()) << batch.status().ToString();
  EXPECT_EQ(Keys(*batch), std::vector<std::string>{"a"});
}

TEST_F(ScansTest, AnIdleScannerExpires) {
  cluster_.options().scanner_idle_timeout_ms = 1;
  Scans scans(cluster_.ctx(), Scans::Hooks{});
  StatusOr<int64_t> id = scans.OpenScanner("t", ScanSpec{}, 1, "");
  ASSERT_TRUE(id.ok()) << id.status().ToString();
  std::this_thread::sleep_for(std::chrono::milliseconds(20));
  scans.ExpireScanners();
  EXPECT_TRUE(scans.ScannerNext(*id, 1, 0, 1).status().IsNotFound());
}

TEST(CheckScanReplyTest,
     RefusesRowsOutOfRangeOrOrderAndResumesThatDoNotAdvance) {
  ScanRequest request;
  request.start_row = "c";
  request.stop_row = "m";
  request.limit = 3;
  ScanResult reply;
  reply.rows = {Row{"c", {}}, Row{"d", {}}};
  reply.resume_row = "e";
  EXPECT_TRUE(CheckScanReply(request, "", reply).ok());
  // The region ends at "d": a row at "d" is outside it.
  EXPECT_TRUE(CheckScanReply(request, "d", reply).IsCorruption());
  reply.resume_row.reset();
  reply.rows = {Row{"b", {}}};  // before the start
  EXPECT_TRUE(CheckScanReply(request, "", reply).IsCorruption());
  reply.rows = {Row{"m", {}}};  // at the stop row
  EXPECT_TRUE(CheckScanReply(request, "", reply).IsCorruption());
  reply.rows = {Row{"e", {}}, Row{"d", {}}};  // out of order
  EXPECT_TRUE(CheckScanReply(request, "", reply).IsCorruption());
  reply.rows = {Row{"c", {}}, Row{"d", {}}, Row{"e", {}}, Row{"f", {}}};
  EXPECT_TRUE(CheckScanReply(request, "", reply).IsCorruption());  // > limit
  reply.rows = {Row{"d", {}}};
  reply.resume_row = "d";  // not after the last row: no progress
  EXPECT_TRUE(CheckScanReply(request, "", reply).IsCorruption());
  reply.resume_row = "z";  // past the stop row
  EXPECT_TRUE(CheckScanReply(request, "", reply).IsCorruption());
}

}  // namespace
}  // namespace bloomroute::router_internal
