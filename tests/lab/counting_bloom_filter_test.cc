#include "lab/counting_bloom_filter.h"

#include <gtest/gtest.h>

#include "tests/index/filter_test_util.h"

namespace bloomroute {
namespace {

using testing::Key;

class CountingBloomFilterTest : public ::testing::Test {};

TEST_F(CountingBloomFilterTest, CountersSaturateAndOverflowsAreCounted) {
  // One counter and one probe: every insert hits counter 0.
  auto f = std::move(CountingBloomFilter::Create(1, 1, 4)).value();
  for (int t = 0; t < 20; ++t) ASSERT_TRUE(f.Insert(Key(t)).ok());
  EXPECT_EQ(f.Get(0), 15u);
  EXPECT_EQ(f.overflow_events(), 5u);
  EXPECT_EQ(f.Stats().overflows, 5u);
  // A saturated counter is never decremented: its true value is unknown.
  for (int t = 0; t < 20; ++t) ASSERT_TRUE(f.Remove(Key(t)).ok());
  EXPECT_EQ(f.Get(0), 15u);
  EXPECT_EQ(f.stuck_decrements(), 20u);
  EXPECT_TRUE(f.Contains(Key(0)));
  EXPECT_TRUE(f.Remove(Key(0)).IsInvalidArgument());  // no elements left
}

TEST_F(CountingBloomFilterTest, AtMaximumIsExactUntilAnIncrementIsLost) {
  auto f = std::move(CountingBloomFilter::Create(1, 1, 2)).value();  // max 3
  for (int t = 0; t < 3; ++t) ASSERT_TRUE(f.Insert(Key(t)).ok());
  ASSERT_EQ(f.Get(0), 3u);
  ASSERT_TRUE(f.Remove(Key(0)).ok());  // no loss yet: 3 is the true value
  EXPECT_EQ(f.Get(0), 2u);
  EXPECT_EQ(f.stuck_decrements(), 0u);
}

TEST_F(CountingBloomFilterTest, ExactBelowSaturation) {
  auto f = std::move(CountingBloomFilter::Create(5000, 4, 4)).value();
  for (uint64_t i = 0; i < 300; ++i) ASSERT_TRUE(f.Insert(Key(i)).ok());
  ASSERT_EQ(f.overflow_events(), 0u);
  for (uint64_t i = 0; i < 300; i += 2) ASSERT_TRUE(f.Remove(Key(i)).ok());
  for (uint64_t i = 1; i < 300; i += 2) ASSERT_TRUE(f.Contains(Key(i)));
  for (uint64_t i = 1; i < 300; i += 2) ASSERT_TRUE(f.Remove(Key(i)).ok());
  EXPECT_EQ(f.nonzero_count(), 0u);
  for (uint64_t i = 0; i < 5000; ++i) ASSERT_EQ(f.Get(i), 0u);
}

TEST_F(CountingBloomFilterTest, RefusedRemoveChangesNothing) {
  auto f = std::move(CountingBloomFilter::Create(1000, 3)).value();
  ASSERT_TRUE(f.Insert(Key(1)).ok());
  const uint64_t nonzero = f.nonzero_count();
  ASSERT_FALSE(f.Contains(Key(2)));
  EXPECT_TRUE(f.Remove(Key(2)).IsInvalidArgument());
  EXPECT_EQ(f.nonzero_count(), nonzero);
  EXPECT_TRUE(f.Contains(Key(1)));
  EXPECT_EQ(f.Stats().elements, 1u);
}

TEST_F(CountingBloomFilterTest, FitsWithoutSaturatingCountsRepeatedProbes) {
  auto f = std::move(CountingBloomFilter::Create(1, 3, 2)).value();  // max 3
  // All three probes hit counter 0: the first insert takes it to 3.
  EXPECT_TRUE(f.FitsWithoutSaturating(Key(0)));
  ASSERT_TRUE(f.Insert(Key(0)).ok());
  EXPECT_EQ(f.Get(0), 3u);
  EXPECT_FALSE(f.FitsWithoutSaturating(Key(0)));
  ASSERT_TRUE(f.Remove(Key(0)).ok());  // nothing was lost: exact
  EXPECT_EQ(f.Get(0), 0u);
}

TEST_F(CountingBloomFilterTest, CreateValidatesArguments) {
  EXPECT_TRUE(CountingBloomFilter::Create(0, 3).status().IsInvalidArgument());
  EXPECT_TRUE(CountingBloomFilter::Create(10, 0).status().IsInvalidArgument());
  EXPECT_TRUE(CountingBloomFilter::Create(10, 65).status().IsInvalidArgument());
  EXPECT_TRUE(
      CountingBloomFilter::Create(10, 3, 0).status().IsInvalidArgument());
  EXPECT_TRUE(
      CountingBloomFilter::Create(10, 3, 17).status().IsInvalidArgument());
  auto f = CountingBloomFilter::Create(100, 3, 4);
  ASSERT_TRUE(f.ok());
  EXPECT_EQ(f->MemoryBytes(), (100 * 4 + 63) / 64 * 8);
}

}  // namespace
}  // namespace bloomroute
