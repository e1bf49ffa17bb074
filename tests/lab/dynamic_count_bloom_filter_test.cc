#include "lab/dynamic_count_bloom_filter.h"

#include <gtest/gtest.h>

#include <vector>

#include "tests/index/filter_test_util.h"

namespace bloomroute {
namespace {

using testing::Key;

class DynamicCountBloomFilterTest : public ::testing::Test {};

TEST_F(DynamicCountBloomFilterTest, AddsAFilterEveryFifteenRepeats) {
  auto f = std::move(DynamicCountBloomFilter::Create(1000, 3, 4)).value();
  std::vector<uint32_t> added_at;
  for (uint32_t t = 1; t <= 46; ++t) {
    const uint32_t before = f.filter_count();
    ASSERT_TRUE(f.Insert(Key(4)).ok());
    if (f.filter_count() != before) added_at.push_back(t);
  }
  // Linear growth: 2^4 - 1 = 15 per 4-bit filter (the paper's 16, 31, 46).
  EXPECT_EQ(added_at, (std::vector<uint32_t>{16, 31, 46}));
  EXPECT_EQ(f.MemoryBytes(), 4 * f.filter(0).MemoryBytes());
  EXPECT_EQ(f.filter(0).overflow_events(), 0u);  // it never saturates
  std::vector<uint32_t> dropped_at;
  for (uint32_t t = 46; t >= 1; --t) {
    const uint32_t before = f.filter_count();
    ASSERT_TRUE(f.Remove(Key(4)).ok());
    if (f.filter_count() != before) dropped_at.push_back(t);
  }
  EXPECT_EQ(dropped_at, (std::vector<uint32_t>{46, 31, 16}));
  EXPECT_FALSE(f.Contains(Key(4)));
  EXPECT_EQ(f.filter_count(), 1u);
}

TEST_F(DynamicCountBloomFilterTest, RemoveAtValidatesTheFilterIndex) {
  auto f = std::move(DynamicCountBloomFilter::Create(1000, 3, 4)).value();
  auto at = f.InsertAt(Key(1));
  ASSERT_TRUE(at.ok());
  EXPECT_EQ(*at, 0u);
  EXPECT_TRUE(f.RemoveAt(Key(1), 1).IsInvalidArgument());
  ASSERT_FALSE(f.Contains(Key(2)));
  EXPECT_TRUE(f.RemoveAt(Key(2), 0).IsInvalidArgument());
  EXPECT_TRUE(f.Remove(Key(2)).IsInvalidArgument());
  EXPECT_TRUE(f.Contains(Key(1)));
  EXPECT_TRUE(f.RemoveAt(Key(1), 0).ok());
  EXPECT_EQ(f.Stats().elements, 0u);
}

TEST_F(DynamicCountBloomFilterTest, CreateValidatesArguments) {
  EXPECT_TRUE(
      DynamicCountBloomFilter::Create(0, 3).status().IsInvalidArgument());
  EXPECT_TRUE(
      DynamicCountBloomFilter::Create(10, 0).status().IsInvalidArgument());
  EXPECT_TRUE(
      DynamicCountBloomFilter::Create(10, 3, 17).status().IsInvalidArgument());
}

}  // namespace
}  // namespace bloomroute
