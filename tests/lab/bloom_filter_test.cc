#include "lab/bloom_filter.h"

#include <gtest/gtest.h>

#include <cmath>

#include "tests/index/filter_test_util.h"

namespace bloomroute {
namespace {

using testing::Key;

class BloomFilterTest : public ::testing::Test {};

TEST_F(BloomFilterTest, FillFollowsTheStandardFormula) {
  auto f = std::move(BloomFilter::Create(100000, 7)).value();
  for (uint64_t i = 0; i < 10000; ++i) ASSERT_TRUE(f.Insert(Key(i)).ok());
  // f = 1 - (1 - 1/m)^(kn); the fill of 100,000 bits has sd ~ 0.0016.
  const double expected = 1.0 - std::pow(1.0 - 1.0 / 100000, 7.0 * 10000);
  EXPECT_NEAR(f.Fill(), expected, 0.01);
  EXPECT_DOUBLE_EQ(f.EstimatedFpr(), std::pow(f.Fill(), 7));
  EXPECT_EQ(f.MemoryBytes(), (100000 + 63) / 64 * 8);
  EXPECT_EQ(f.Stats().elements, 10000u);
}

TEST_F(BloomFilterTest, CreateValidatesArguments) {
  EXPECT_TRUE(BloomFilter::Create(0, 3).status().IsInvalidArgument());
  EXPECT_TRUE(BloomFilter::Create((uint64_t{1} << 32) + 1, 3)
                  .status()
                  .IsInvalidArgument());
  EXPECT_TRUE(BloomFilter::Create(100, 0).status().IsInvalidArgument());
  EXPECT_TRUE(BloomFilter::Create(100, 65).status().IsInvalidArgument());
  EXPECT_TRUE(BloomFilter::Create(1, 64).ok());
}

TEST_F(BloomFilterTest, DoesNotSupportRemove) {
  auto f = std::move(BloomFilter::Create(64, 2)).value();
  ASSERT_TRUE(f.Insert(Key(1)).ok());
  EXPECT_FALSE(f.SupportsRemove());
  EXPECT_TRUE(f.Remove(Key(1)).IsInvalidArgument());
}

}  // namespace
}  // namespace bloomroute
