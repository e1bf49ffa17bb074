// RegionStore support for the router's region moves and splits: staged
// regions (OpenRegion with `staging`) and SplitPoint.
#include <gtest/gtest.h>

#include <cstdio>
#include <memory>
#include <optional>
#include <random>
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

class RegionStoreReshapeTest : public ::testing::Test {
 protected:
  void SetUp() override { Reopen(); }
  void Reopen() {
    store_.reset();
    store_ = OpenStoreWithRegions(dir_.path(), options_, {});
    ASSERT_NE(store_, nullptr);
  }
  void Put(std::vector<Mutation> batch) {
    auto r = store_->Apply(batch);
    ASSERT_TRUE(r.ok()) << r.status().ToString();
  }
  std::vector<std::string> LookupKeys(const IndexQuery& q) {
    auto r = store_->Lookup(q);
    EXPECT_TRUE(r.ok()) << r.status().ToString();
    std::vector<std::string> keys;
    if (r.ok()) {
      for (const Row& row : r->rows) keys.push_back(row.key);
    }
    return keys;
  }
  // The state GetRegionStats reports for `region_id`; nullopt when absent.
  std::optional<RegionState> StateOf(uint64_t region_id) {
    auto page = store_->GetRegionStats(RegionStatsRequest());
    EXPECT_TRUE(page.ok()) << page.status().ToString();
    if (!page.ok()) return std::nullopt;
    for (const RegionStats& s : page->regions) {
      if (s.region_id == region_id) return s.state;
    }
    return std::nullopt;
  }
  // The rows of region `region_id` below and at-or-above `split`.
  std::pair<uint64_t, uint64_t> Halves(uint64_t region_id,
                                       const std::string& split) {
    ScanRequest scan;
    scan.region_id = region_id;
    scan.limit = kMaxRowsPerCall;
    std::pair<uint64_t, uint64_t> out{0, 0};
    while (true) {
      auto r = store_->Scan(scan);
      EXPECT_TRUE(r.ok()) << r.status().ToString();
      if (!r.ok()) return out;
      for (const Row& row : r->rows) {
        (row.key < split ? out.first : out.second) += 1;
      }
      if (!r->resume_row.has_value()) return out;
      scan.start_row = *r->resume_row;
    }
  }

  TempDir dir_;
  RegionStoreOptions options_;
  std::unique_ptr<RegionStore> store_;
};

TEST_F(RegionStoreReshapeTest, StagedDaughtersOverlapTheirServingParent) {
  ASSERT_TRUE(store_->OpenRegion(PlacesRegion(1, "", "")).ok());
  // A split's daughters, on the same server, while they are filled.
  ASSERT_TRUE(store_->OpenRegion(PlacesRegion(2, "", "m"), 0, true).ok());
  ASSERT_TRUE(store_->OpenRegion(PlacesRegion(3, "m", ""), 0, true).ok());
  // Staged regions are checked against each other.
  Status overlap = store_->OpenRegion(PlacesRegion(4, "k", "p"), 0, true);
  EXPECT_TRUE(overlap.IsInvalidArgument()) << overlap.ToString();
  // A serving region is still checked against serving ones only.
  overlap = store_->OpenRegion(PlacesRegion(5, "a", "b"));
  EXPECT_TRUE(overlap.IsInvalidArgument()) << overlap.ToString();

  // Promotion is refused while the parent serves, naming it.
  Status promote = store_->OpenRegion(PlacesRegion(2, "", "m"));
  EXPECT_TRUE(promote.IsInvalidArgument()) << promote.ToString();
  EXPECT_NE(promote.message().find("region 1"), std::string::npos)
      << promote.ToString();
  EXPECT_EQ(StateOf(2), RegionState::kStaged);
  EXPECT_EQ(StateOf(1), RegionState::kOpen);

  ASSERT_TRUE(store_->DropRegion(1).ok());
  ASSERT_TRUE(store_->OpenRegion(PlacesRegion(2, "", "m")).ok());
  ASSERT_TRUE(store_->OpenRegion(PlacesRegion(3, "m", "")).ok());
  EXPECT_EQ(StateOf(2), RegionState::kOpen);
  EXPECT_EQ(StateOf(3), RegionState::kOpen);
  EXPECT_EQ(store_->OpenRegionIds(), (std::vector<uint64_t>{2, 3}));
}

TEST_F(RegionStoreReshapeTest, StagedRegionsAnswerOnlyWhenNamed) {
  ASSERT_TRUE(store_->OpenRegion(PlacesRegion(1, "", "")).ok());
  ASSERT_TRUE(store_->OpenRegion(PlacesRegion(2, "", ""), 0, true).ok());
  // The copy: the same row in the source and in the staged region.
  Put({PutPlace(1, "r1", "FR", "city"), PutPlace(2, "r1", "FR", "city")});
  Put({PutPlace(2, "r2", "FR", "town")});

  // Every open region of the table: the serving one only.
  EXPECT_EQ(LookupKeys(Where({{"d:country", "FR"}})),
            std::vector<std::string>{"r1"});
  IndexQuery named = Where({{"d:country", "FR"}});
  named.region_ids = {2};
  EXPECT_EQ(LookupKeys(named), (std::vector<std::string>{"r1", "r2"}));

  auto got = store_->Get({GetRequest{2, "r2", {}}});
  ASSERT_TRUE(got.ok()) << got.status().ToString();
  EXPECT_TRUE((*got)[0].has_value());
  // Staged regions are not listed as serving.
  EXPECT_EQ(store_->OpenRegionIds(), std::vector<uint64_t>{1});
  ASSERT_EQ(store_->ListRegions().size(), 1u);
  EXPECT_EQ(store_->ListRegions()[0].region_id, 1u);
  EXPECT_EQ(StateOf(2), RegionState::kStaged);

  ASSERT_TRUE(store_->CloseRegion(2).ok());
  EXPECT_EQ(StateOf(2), RegionState::kClosed);
  EXPECT_TRUE(store_->Get({GetRequest{2, "r2", {}}}).status().IsNotFound());
}

TEST_F(RegionStoreReshapeTest, ServingIsNeverDemoted) {
  ASSERT_TRUE(store_->OpenRegion(PlacesRegion(1, "", "m")).ok());
  ASSERT_TRUE(store_->OpenRegion(PlacesRegion(1, "", "m"), 0, true).ok());
  EXPECT_EQ(StateOf(1), RegionState::kOpen);
  // Still serving: an overlapping serving region is refused, a staged one
  // accepted.
  EXPECT_TRUE(
      store_->OpenRegion(PlacesRegion(2, "a", "z")).IsInvalidArgument());
  EXPECT_TRUE(store_->OpenRegion(PlacesRegion(3, "a", "z"), 0, true).ok());
  // The same descriptor rules as for serving regions.
  EXPECT_TRUE(store_->OpenRegion(PlacesRegion(3, "a", "y"), 0, true)
                  .IsInvalidArgument());
  EXPECT_TRUE(
      store_->OpenRegion(PlacesRegion(4, "", ""), 12345, true).IsAborted());
}

TEST_F(RegionStoreReshapeTest, TheStagedFlagIsPersistedAndReopenedAsAsked) {
  ASSERT_TRUE(store_->OpenRegion(PlacesRegion(1, "", "")).ok());
  ASSERT_TRUE(store_->OpenRegion(PlacesRegion(2, "", ""), 0, true).ok());
  Put({PutPlace(2, "r1", "FR", "city")});
  Reopen();
  // A restart closes every region, staged ones too.
  EXPECT_EQ(StateOf(1), RegionState::kClosed);
  EXPECT_EQ(StateOf(2), RegionState::kClosed);
  ASSERT_TRUE(store_->OpenRegion(PlacesRegion(1, "", "")).ok());
  ASSERT_TRUE(store_->OpenRegion(PlacesRegion(2, "", ""), 0, true).ok());
  EXPECT_EQ(StateOf(2), RegionState::kStaged);
  Reopen();
  // Opened serving this time: the parent is closed, nothing overlaps.
  ASSERT_TRUE(store_->OpenRegion(PlacesRegion(2, "", "")).ok());
  EXPECT_EQ(StateOf(2), RegionState::kOpen);
  EXPECT_EQ(LookupKeys(Where({{"d:country", "FR"}})),
            std::vector<std::string>{"r1"});
  // And the parent can no longer serve beside it.
  EXPECT_TRUE(store_->OpenRegion(PlacesRegion(1, "", "")).IsInvalidArgument());
}

TEST_F(RegionStoreReshapeTest, SplitPointOfFewRows) {
  ASSERT_TRUE(store_->OpenRegion(PlacesRegion(1, "b", "x")).ok());
  auto none = store_->SplitPoint(1);
  ASSERT_TRUE(none.ok()) << none.status().ToString();
  EXPECT_FALSE(none->has_value());

  Put({PutPlace(1, "c", "FR", "city")});
  auto one = store_->SplitPoint(1);
  ASSERT_TRUE(one.ok()) << one.status().ToString();
  EXPECT_FALSE(one->has_value());

  Put({PutPlace(1, "d", "FR", "city")});
  auto two = store_->SplitPoint(1);
  ASSERT_TRUE(two.ok()) << two.status().ToString();
  ASSERT_TRUE(two->has_value());
  EXPECT_EQ(**two, "d");  // strictly after the first row, within the region
  EXPECT_EQ(Halves(1, **two), (std::pair<uint64_t, uint64_t>{1, 1}));

  EXPECT_TRUE(store_->SplitPoint(2).status().IsNotFound());
  ASSERT_TRUE(store_->CloseRegion(1).ok());
  EXPECT_TRUE(store_->SplitPoint(1).status().IsNotFound());
}

// 10,000 rows with uniformly drawn keys: the sample's median splits them
// within 10% (at most 1,000 rows apart; the sample's standard deviation is
// about 156 rows, so the bound is 3 deviations on each half).
TEST_F(RegionStoreReshapeTest, SplitPointHalvesManyRows) {
  ASSERT_TRUE(store_->OpenRegion(PlacesRegion(1, "", ""), 0, true).ok());
  std::mt19937_64 rng(42);  // seed: the test is deterministic
  for (int batch = 0; batch < 10; ++batch) {
    std::vector<Mutation> puts;
    for (int i = 0; i < 1000; ++i) {
      char key[32];
      std::snprintf(key, sizeof key, "%016llx-%05d",
                    static_cast<unsigned long long>(rng()), batch * 1000 + i);
      puts.push_back(PutPlace(1, key, "FR", "city"));
    }
    Put(std::move(puts));
  }
  auto split = store_->SplitPoint(1);
  ASSERT_TRUE(split.ok()) << split.status().ToString();
  ASSERT_TRUE(split->has_value());
  const auto [lower, upper] = Halves(1, **split);
  EXPECT_EQ(lower + upper, 10000u);
  EXPECT_LE(lower > upper ? lower - upper : upper - lower, 1000u)
      << lower << " below, " << upper << " from " << **split;
  // Deterministic: the same rows give the same key.
  auto again = store_->SplitPoint(1);
  ASSERT_TRUE(again.ok());
  EXPECT_EQ(*again, *split);
}

TEST_F(RegionStoreReshapeTest, SplitPointReadsAtMostTheExaminedRowsBound) {
  options_.max_examined_rows = 100;
  Reopen();
  ASSERT_TRUE(store_->OpenRegion(PlacesRegion(1, "", "")).ok());
  std::vector<Mutation> puts;
  for (int i = 0; i < 1000; ++i) {
    char key[16];
    std::snprintf(key, sizeof key, "k%04d", i);
    puts.push_back(PutPlace(1, key, "FR", "city"));
  }
  Put(std::move(puts));
  auto split = store_->SplitPoint(1);
  ASSERT_TRUE(split.ok()) << split.status().ToString();
  ASSERT_TRUE(split->has_value());
  // The middle of the first 100 keys read: k0000 .. k0099.
  EXPECT_EQ(**split, "k0050");
}

// A move's first copy: the rows of a range of a region leave as bulk files,
// in pages, and load into another server's staged region with every cell
// and timestamp as it was.
TEST_F(RegionStoreReshapeTest, ExportedRowsLoadElsewhereAsTheyWere) {
  ASSERT_TRUE(store_->OpenRegion(PlacesRegion(1, "b", "")).ok());
  std::vector<Mutation> batch;
  for (int i = 0; i < 50; ++i) {
    char key[8];
    std::snprintf(key, sizeof key, "k%02d", i);
    batch.push_back(PutPlace(1, key, i % 3 ? "NO" : "SE", "PPL"));
  }
  // A cell with a timestamp of its own, and one row with two of them.
  batch.push_back(Mutation::Put(1, "k07", {{"d:name", "old", 1234}}));
  Put(batch);

  TempDir other_dir;
  std::unique_ptr<RegionStore> other =
      OpenStoreWithRegions(other_dir.path(), options_, {});
  ASSERT_NE(other, nullptr);
  // The upper half of the range [k10, k40), as a split's daughter would.
  ASSERT_TRUE(other->OpenRegion(PlacesRegion(9, "k10", "k40"), 0, true).ok());
  ExportRequest request;
  request.region_id = 1;
  request.start_row = "k10";
  request.stop_row = "k40";
  request.max_rows = 7;
  uint64_t rows = 0, files = 0;
  for (;;) {
    StatusOr<ExportedRows> page = store_->ExportRows(request);
    ASSERT_TRUE(page.ok()) << page.status().ToString();
    ASSERT_LE(page->rows, 7u);
    if (page->rows > 0) {
      ++files;
      rows += page->rows;
      StatusOr<WriteResult> loaded = other->BulkLoadBytes(9, page->file);
      ASSERT_TRUE(loaded.ok()) << loaded.status().ToString();
    }
    if (!page->resume_row) break;
    ASSERT_GT(*page->resume_row, request.start_row);
    request.start_row = *page->resume_row;
  }
  EXPECT_EQ(rows, 30u);
  EXPECT_EQ(files, 5u);  // 7 + 7 + 7 + 7 + 2
  ScanRequest scan;
  scan.limit = 1000;
  scan.region_id = 1;
  scan.start_row = "k10";
  scan.stop_row = "k40";
  StatusOr<ScanResult> want = store_->Scan(scan);
  scan.region_id = 9;
  StatusOr<ScanResult> got = other->Scan(scan);
  ASSERT_TRUE(want.ok() && got.ok());
  ASSERT_EQ(got->rows.size(), 30u);
  for (size_t i = 0; i < want->rows.size(); ++i) {
    EXPECT_EQ(got->rows[i].key, want->rows[i].key);
    ASSERT_EQ(got->rows[i].cells.size(), want->rows[i].cells.size());
    for (size_t c = 0; c < want->rows[i].cells.size(); ++c) {
      EXPECT_EQ(got->rows[i].cells[c].column, want->rows[i].cells[c].column);
      EXPECT_EQ(got->rows[i].cells[c].value, want->rows[i].cells[c].value);
      EXPECT_EQ(got->rows[i].cells[c].timestamp,
                want->rows[i].cells[c].timestamp);
    }
  }
  // The index and value counts came along: verify is clean.
  StatusOr<IndexReport> verified = other->VerifyIndex(std::nullopt);
  ASSERT_TRUE(verified.ok()) << verified.status().ToString();
  EXPECT_TRUE(verified->ok());
}

TEST_F(RegionStoreReshapeTest, ExportRefusesBadRequestsAndAnswersEmptyRanges) {
  ASSERT_TRUE(store_->OpenRegion(PlacesRegion(1, "", "m")).ok());
  Put({PutPlace(1, "a", "NO", "PPL")});
  ExportRequest request;
  request.region_id = 1;
  request.max_rows = 0;
  EXPECT_TRUE(store_->ExportRows(request).status().IsInvalidArgument());
  request.max_rows = kMaxExportRows + 1;
  EXPECT_TRUE(store_->ExportRows(request).status().IsInvalidArgument());
  request.max_rows = 10;
  request.max_bytes = 0;
  EXPECT_TRUE(store_->ExportRows(request).status().IsInvalidArgument());
  request.max_bytes = options_.max_bulk_file_bytes + 1;
  EXPECT_TRUE(store_->ExportRows(request).status().IsInvalidArgument());
  request.max_bytes = 1 << 20;
  request.region_id = 7;
  EXPECT_TRUE(store_->ExportRows(request).status().IsNotFound());
  // A range with no row: no file, nothing left.
  request.region_id = 1;
  request.start_row = "b";
  StatusOr<ExportedRows> empty = store_->ExportRows(request);
  ASSERT_TRUE(empty.ok()) << empty.status().ToString();
  EXPECT_EQ(empty->rows, 0u);
  EXPECT_TRUE(empty->file.empty());
  EXPECT_FALSE(empty->resume_row.has_value());
  // The region bounds the range: nothing past its end.
  request.start_row = "";
  request.stop_row = "zz";
  StatusOr<ExportedRows> one = store_->ExportRows(request);
  ASSERT_TRUE(one.ok());
  EXPECT_EQ(one->rows, 1u);
  EXPECT_FALSE(one->resume_row.has_value());
}

}  // namespace
}  // namespace bloomroute
