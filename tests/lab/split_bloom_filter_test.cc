#include "lab/split_bloom_filter.h"

#include <gtest/gtest.h>

#include <cmath>

#include "tests/index/filter_test_util.h"

namespace bloomroute {
namespace {

using testing::kAbsentBase;
using testing::Key;

TEST(SplitBloomFilterTest, NoFalseNegativesAndFprMatchesFill) {
  auto f = std::move(SplitBloomFilter::Create(8, 20000)).value();
  const uint64_t n = static_cast<uint64_t>(20000 * std::log(2.0));
  for (uint64_t i = 0; i < n; ++i) f.Insert(Key(i));
  for (uint64_t i = 0; i < n; ++i) ASSERT_TRUE(f.Contains(Key(i)));
  for (uint32_t j = 0; j < 8; ++j) EXPECT_NEAR(f.SliceFill(j), 0.5, 0.02);
  constexpr uint64_t kProbes = 1000000;
  uint64_t positives = 0;
  for (uint64_t i = 0; i < kProbes; ++i) {
    positives += f.Contains(Key(kAbsentBase + i));
  }
  const double measured = static_cast<double>(positives) / kProbes;
  EXPECT_NEAR(measured, f.EstimatedFpr(),
              testing::RateTolerance(f.EstimatedFpr(), kProbes));
}

TEST(SplitBloomFilterTest, MemoryIsExact) {
  auto f = std::move(SplitBloomFilter::Create(3, 65)).value();
  EXPECT_EQ(f.MemoryBytes(), 3u * 2 * 8);
  EXPECT_EQ(f.slice_count(), 3u);
  EXPECT_EQ(f.slice_length(), 65u);
}

TEST(SplitBloomFilterTest, CreateValidatesArguments) {
  EXPECT_TRUE(SplitBloomFilter::Create(0, 10).status().IsInvalidArgument());
  EXPECT_TRUE(SplitBloomFilter::Create(65, 10).status().IsInvalidArgument());
  EXPECT_TRUE(SplitBloomFilter::Create(4, 0).status().IsInvalidArgument());
  EXPECT_TRUE(SplitBloomFilter::Create(4, (uint64_t{1} << 32) + 1)
                  .status()
                  .IsInvalidArgument());
  EXPECT_TRUE(SplitBloomFilter::Create(4, 10, UINT32_MAX - 2)
                  .status()
                  .IsInvalidArgument());
}

}  // namespace
}  // namespace bloomroute
