#include "lab/dcf_counter_vector.h"

#include <gtest/gtest.h>

#include <random>

#include "index/ddcf_counter_vector.h"

namespace bloomroute {
namespace {

uint64_t ExpectedMemory(uint64_t m, uint32_t x, uint32_t y) {
  return (m * x + 63) / 64 * 8 + (m * y + 63) / 64 * 8;
}

class DcfCounterVectorTest : public ::testing::Test {};

TEST_F(DcfCounterVectorTest, OverflowVectorIsRebuiltAtPowersOfTwo) {
  auto v = std::move(DcfCounterVector::Create(1000, 4)).value();
  uint32_t rebuilt_at[3] = {0, 0, 0};
  for (uint32_t value = 1; value <= 64; ++value) {
    const uint64_t before = v.rebuilds();
    ASSERT_TRUE(v.Increment(123).ok());
    ASSERT_EQ(v.Get(123), value);
    if (v.rebuilds() != before) {
      ASSERT_LT(v.overflow_bits(), 4u);
      rebuilt_at[v.overflow_bits() - 1] = value;
    }
    ASSERT_EQ(v.MemoryBytes(), ExpectedMemory(1000, 4, v.overflow_bits()));
  }
  EXPECT_EQ(rebuilt_at[0], 16u);  // 2^4: y = 1
  EXPECT_EQ(rebuilt_at[1], 32u);
  EXPECT_EQ(rebuilt_at[2], 64u);
  EXPECT_EQ(v.overflow_bits(), 3u);
  // Shrinks when no counter needs the top bit: 64 -> 63, 32 -> 31, 16 -> 15.
  for (uint32_t value = 64; value > 0; --value) {
    ASSERT_TRUE(v.Decrement(123).ok());
    const uint32_t now = value - 1;
    const uint32_t expected_y = now >= 32 ? 2 : now >= 16 ? 1 : 0;
    ASSERT_EQ(v.overflow_bits(), expected_y) << "after decrement to " << now;
  }
  EXPECT_EQ(v.rebuilds(), 6u);
  EXPECT_EQ(v.nonzero_count(), 0u);
  EXPECT_EQ(v.MemoryBytes(), ExpectedMemory(1000, 4, 0));
}

TEST_F(DcfCounterVectorTest, OtherCountersSurviveRebuilds) {
  auto v = std::move(DcfCounterVector::Create(70, 3)).value();
  for (uint64_t i = 0; i < 70; ++i) {
    for (uint64_t t = 0; t < i % 13; ++t) ASSERT_TRUE(v.Increment(i).ok());
  }
  for (int t = 0; t < 40; ++t) ASSERT_TRUE(v.Increment(5).ok());
  for (int t = 0; t < 40; ++t) ASSERT_TRUE(v.Decrement(5).ok());
  for (uint64_t i = 0; i < 70; ++i) ASSERT_EQ(v.Get(i), i % 13) << i;
  EXPECT_EQ(v.overflow_bits(), 1u);  // 12 still needs a fourth bit
}

TEST_F(DcfCounterVectorTest, AgreesWithDdcfOnRandomOperations) {
  // Seed 17; values stay below 2^10 so both grow and shrink many times.
  std::mt19937_64 rng(17);
  auto dcf = std::move(DcfCounterVector::Create(50, 2)).value();
  auto ddcf = std::move(DdcfCounterVector::Create(50, 2)).value();
  for (int op = 0; op < 200000; ++op) {
    const uint64_t i = rng() % 50;
    if (rng() % 2 == 0 && dcf.Get(i) < 1000) {
      ASSERT_TRUE(dcf.Increment(i).ok());
      ASSERT_TRUE(ddcf.Increment(i).ok());
    } else {
      ASSERT_EQ(dcf.Decrement(i).ok(), ddcf.Decrement(i).ok());
    }
    ASSERT_EQ(dcf.Get(i), ddcf.Get(i));
    ASSERT_EQ(dcf.overflow_bits(), ddcf.plane_count()) << "op " << op;
    ASSERT_EQ(dcf.nonzero_count(), ddcf.nonzero_count());
  }
}

TEST_F(DcfCounterVectorTest, LimitsAndBadArguments) {
  EXPECT_TRUE(DcfCounterVector::Create(0, 4).status().IsInvalidArgument());
  EXPECT_TRUE(DcfCounterVector::Create((uint64_t{1} << 32) + 1, 4)
                  .status()
                  .IsInvalidArgument());
  EXPECT_TRUE(DcfCounterVector::Create(10, 0).status().IsInvalidArgument());
  EXPECT_TRUE(DcfCounterVector::Create(10, 17).status().IsInvalidArgument());
  auto v = std::move(DcfCounterVector::Create(10, 4)).value();
  EXPECT_TRUE(v.Increment(10).IsInvalidArgument());
  EXPECT_TRUE(v.Decrement(10).IsInvalidArgument());
  EXPECT_TRUE(v.Decrement(3).IsInvalidArgument());  // zero never wraps
  EXPECT_EQ(v.Get(3), 0u);
}

}  // namespace
}  // namespace bloomroute
