#include "lab/scalable_bloom_filter.h"

#include <gtest/gtest.h>

#include "index/scalable_split_counting_bloom_filter.h"
#include "tests/index/filter_test_util.h"

namespace bloomroute {
namespace {

using testing::kAbsentBase;
using testing::Key;

class ScalableBloomFilterTest : public ::testing::Test {};

TEST_F(ScalableBloomFilterTest, SetsTheSameBitsAsTheSscbf) {
  SscbfConfig c;
  c.target_fpr = 0.01;
  c.tightening_ratio = 0.8;
  c.growth_factor = 2;
  c.initial_capacity = 500;
  auto sbf = std::move(ScalableBloomFilter::Create(c)).value();
  auto sscbf = std::move(ScalableSplitCountingBloomFilter::Create(c)).value();
  for (uint64_t i = 0; i < 20000; ++i) {
    ASSERT_TRUE(sbf.Insert(Key(i)).ok());
    ASSERT_TRUE(sscbf.Insert(Key(i)).ok());
  }
  ASSERT_EQ(sbf.stage_count(), sscbf.stage_count());
  EXPECT_GE(sbf.stage_count(), 5u);
  for (uint32_t s = 0; s < sbf.stage_count(); ++s) {
    ASSERT_EQ(sbf.stage(s).slice_count(), sscbf.stage(s).slice_count());
    ASSERT_EQ(sbf.stage(s).slice_length(), sscbf.stage(s).slice_length());
    ASSERT_DOUBLE_EQ(sbf.stage(s).EstimatedFpr(),
                     sscbf.stage(s).EstimatedFpr());
  }
  for (uint64_t i = 0; i < 200000; ++i) {
    const ElementHash h = Key(kAbsentBase + i);
    ASSERT_EQ(sbf.Contains(h), sscbf.Contains(h));
  }
  // One bit per slot against 4 base bits plus the occupancy bit.
  EXPECT_LT(sbf.MemoryBytes() * 4, sscbf.MemoryBytes());
}

TEST_F(ScalableBloomFilterTest, FprStaysBelowTargetWhileGrowing) {
  SscbfConfig c;
  c.target_fpr = 0.01;
  c.initial_capacity = 1000;
  auto f = std::move(ScalableBloomFilter::Create(c)).value();
  for (uint64_t i = 0; i < 100000; ++i) ASSERT_TRUE(f.Insert(Key(i)).ok());
  for (uint64_t i = 0; i < 100000; ++i) ASSERT_TRUE(f.Contains(Key(i)));
  EXPECT_EQ(f.Stats().parts, f.stage_count());
  // Bound P = 0.01 (P0 / (1 - r)); seed: Key's fixed hashes, 6 sigma margin
  // around the estimate.
  constexpr uint64_t kProbes = 1000000;
  const double measured = testing::MeasuredFpr(f, kProbes);
  EXPECT_LT(measured, c.target_fpr);
  EXPECT_NEAR(measured, f.EstimatedFpr(),
              testing::RateTolerance(f.EstimatedFpr(), kProbes));
}

TEST_F(ScalableBloomFilterTest, CreateValidatesTheConfig) {
  SscbfConfig c;
  c.target_fpr = 1.5;
  EXPECT_TRUE(ScalableBloomFilter::Create(c).status().IsInvalidArgument());
  c = SscbfConfig();
  c.tightening_ratio = 0;
  EXPECT_TRUE(ScalableBloomFilter::Create(c).status().IsInvalidArgument());
  c = SscbfConfig();
  c.initial_capacity = 0;
  EXPECT_TRUE(ScalableBloomFilter::Create(c).status().IsInvalidArgument());
}

}  // namespace
}  // namespace bloomroute
