#include "lab/balanced_matrix_bloom_filter.h"

#include <gtest/gtest.h>

#include <cmath>

#include "tests/index/filter_test_util.h"

namespace bloomroute {
namespace {

using testing::Key;

BalancedMatrixBloomFilter::Options SmallMatrix(uint32_t rows, uint32_t groups) {
  BalancedMatrixBloomFilter::Options o;
  o.rows = rows;
  o.row_bits = 4096;
  o.hashes = 6;
  o.groups = groups;
  return o;
}

class BalancedMatrixBloomFilterTest
    : public ::testing::TestWithParam<uint32_t> {};

TEST_P(BalancedMatrixBloomFilterTest, LongestBitMatchAndNeverAboveHalf) {
  const uint32_t s = GetParam();
  auto f =
      std::move(BalancedMatrixBloomFilter::Create(SmallMatrix(8, s))).value();
  uint64_t inserted = 0, present = 0;
  for (uint64_t i = 0;; ++i) {
    const ElementHash h = Key(i);
    // Before the insert: each candidate's match count and whether it fits.
    int64_t best_row = -1;
    uint32_t best = 0;
    bool any_full_match = false;
    for (uint32_t d = 0; d < s; ++d) {
      const uint32_t row = f.CandidateRow(h, d);
      ASSERT_GE(row, d * 8 / s);
      ASSERT_LT(row, (d + 1) * 8 / s);
      const uint32_t match = f.MatchCount(row, h);
      any_full_match |= match == 6;
      const bool fits = f.RowSetBits(row) + (6 - match) <= f.RowLimit();
      if (fits && (best_row < 0 || match > best)) best_row = row, best = match;
    }
    const uint64_t before =
        best_row >= 0 ? f.RowSetBits(static_cast<uint32_t>(best_row)) : 0;
    const RowInsertOutcome outcome = f.TryInsert(h);
    if (any_full_match) {
      ASSERT_EQ(outcome, RowInsertOutcome::kAlreadyPresent);
      ++present;
      continue;
    }
    if (best_row < 0) {
      ASSERT_EQ(outcome, RowInsertOutcome::kFull);
      break;
    }
    ASSERT_EQ(outcome, RowInsertOutcome::kInserted);
    ++inserted;
    // The element went into the longest-match row: exactly 6 - match new
    // bits there (fewer only if two probes coincide), and it is found.
    const uint32_t row = static_cast<uint32_t>(best_row);
    ASSERT_EQ(f.MatchCount(row, h), 6u);
    ASSERT_LE(f.RowSetBits(row) - before, 6u - best);
    ASSERT_TRUE(f.Contains(h));
  }
  for (uint32_t row = 0; row < 8; ++row) {
    EXPECT_LE(f.RowSetBits(row), f.RowLimit());
    EXPECT_LE(f.RowFill(row), 0.5);
  }
  // A full matrix is close to half full overall: each row holds about
  // m ln 2 / k = 473 elements.
  EXPECT_GT(f.Fill(), 0.45);
  EXPECT_EQ(f.Stats().elements, inserted);
  for (uint64_t i = 0; i < inserted + present; ++i) {
    ASSERT_TRUE(f.Contains(Key(i)));
  }
}

INSTANTIATE_TEST_SUITE_P(Groups, BalancedMatrixBloomFilterTest,
                         ::testing::Values(1u, 2u, 3u, 8u));

TEST(BalancedMatrixBloomFilterFprTest, FprMatchesCandidateRowsFormula) {
  BalancedMatrixBloomFilter::Options o;
  o.rows = 8;
  o.row_bits = 32768;
  o.hashes = 8;
  o.groups = 4;
  auto f = std::move(BalancedMatrixBloomFilter::Create(o)).value();
  for (uint64_t i = 0; f.TryInsert(Key(i)) != RowInsertOutcome::kFull; ++i) {
  }
  // 1 - (1 - 2^-8)^4 = 0.0155 at fill 1/2; the estimate uses the real fills.
  // Bound: measured within 6 sigma of it over 1M absent keys (Key's hashes).
  constexpr uint64_t kProbes = 1000000;
  const double measured = testing::MeasuredFpr(f, kProbes);
  EXPECT_NEAR(measured, f.EstimatedFpr(),
              testing::RateTolerance(f.EstimatedFpr(), kProbes));
  EXPECT_LE(measured, 1.0 - std::pow(1.0 - std::pow(0.5, 8), 4) + 0.001);
}

TEST(BalancedMatrixBloomFilterCreateTest, ValidatesOptions) {
  auto bad = [](auto edit) {
    BalancedMatrixBloomFilter::Options o = SmallMatrix(8, 2);
    edit(o);
    return BalancedMatrixBloomFilter::Create(o).status().IsInvalidArgument();
  };
  EXPECT_TRUE(bad([](auto& o) { o.rows = 0; }));
  EXPECT_TRUE(bad([](auto& o) { o.groups = 0; }));
  EXPECT_TRUE(bad([](auto& o) { o.groups = 9; }));
  EXPECT_TRUE(bad([](auto& o) { o.row_bits = 0; }));
  EXPECT_TRUE(bad([](auto& o) { o.hashes = 65; }));
  EXPECT_TRUE(bad([](auto& o) { o.full_fill = 1.0; }));
  EXPECT_TRUE(BalancedMatrixBloomFilter::Create(SmallMatrix(8, 8)).ok());
}

}  // namespace
}  // namespace bloomroute
