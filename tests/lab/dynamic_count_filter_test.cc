#include "lab/dynamic_count_filter.h"

#include <gtest/gtest.h>

#include <random>
#include <vector>

#include "lab/dynamic_count_bloom_filter.h"
#include "tests/index/filter_test_util.h"

namespace bloomroute {
namespace {

using testing::Key;

class DynamicCountFilterTest : public ::testing::Test {
 protected:
  static constexpr uint64_t kCounters = 2000;
  static constexpr uint32_t kHashes = 4;

  void SetUp() override {
    dcf_ = std::make_unique<DcfFilter>(
        std::move(DcfFilter::Create(kCounters, kHashes, 4)).value());
    ddcf_ = std::make_unique<DdcfFilter>(
        std::move(DdcfFilter::Create(kCounters, kHashes, 4)).value());
    dcbf_ = std::make_unique<DynamicCountBloomFilter>(
        std::move(DynamicCountBloomFilter::Create(kCounters, kHashes, 4))
            .value());
  }

  // Every counter of the three filters, DCBF's summed over its filters.
  void ExpectSameCounters() {
    for (uint64_t i = 0; i < kCounters; ++i) {
      const uint32_t v = dcf_->counters().Get(i);
      ASSERT_EQ(ddcf_->counters().Get(i), v) << "counter " << i;
      ASSERT_EQ(dcbf_->Get(i), v) << "counter " << i;
    }
  }

  std::unique_ptr<DcfFilter> dcf_;
  std::unique_ptr<DdcfFilter> ddcf_;
  std::unique_ptr<DynamicCountBloomFilter> dcbf_;
};

TEST_F(DynamicCountFilterTest, DcfDdcfAndDcbfAgreeOnEveryCounter) {
  // Seed 5: 20 hot elements inserted up to 100 times each (so counters pass
  // 16, 32 and 64 and fall back) among 300 cold ones. Removes pick a present
  // element, newest insertion first for the DCBF.
  std::mt19937_64 rng(5);
  std::vector<std::vector<uint32_t>> dcbf_stack(320);
  std::vector<uint64_t> present;
  for (int op = 0; op < 6000; ++op) {
    const bool insert = present.empty() || rng() % 100 < 55;
    if (insert) {
      const uint64_t key = rng() % 4 == 0 ? 300 + rng() % 20 : rng() % 300;
      ASSERT_TRUE(dcf_->Insert(Key(key)).ok());
      ASSERT_TRUE(ddcf_->Insert(Key(key)).ok());
      auto at = dcbf_->InsertAt(Key(key));
      ASSERT_TRUE(at.ok());
      dcbf_stack[key].push_back(*at);
      present.push_back(key);
    } else {
      const size_t pick = rng() % present.size();
      const uint64_t key = present[pick];
      present[pick] = present.back();
      present.pop_back();
      ASSERT_TRUE(dcf_->Remove(Key(key)).ok());
      ASSERT_TRUE(ddcf_->Remove(Key(key)).ok());
      ASSERT_TRUE(dcbf_->RemoveAt(Key(key), dcbf_stack[key].back()).ok());
      dcbf_stack[key].pop_back();
    }
    if (op % 50 == 0) ExpectSameCounters();
    ASSERT_EQ(dcf_->counters().overflow_bits(),
              ddcf_->counters().plane_count());
  }
  ExpectSameCounters();
  for (uint64_t key : present) {
    ASSERT_TRUE(dcf_->Contains(Key(key)));
    ASSERT_TRUE(ddcf_->Contains(Key(key)));
    ASSERT_TRUE(dcbf_->Contains(Key(key)));
  }
}

TEST_F(DynamicCountFilterTest, DcfRebuildAndDdcfPlaneAddTriggerAtSameCounts) {
  std::vector<uint32_t> dcf_growth, ddcf_growth, dcf_shrink, ddcf_shrink;
  for (uint32_t t = 1; t <= 128; ++t) {
    const uint32_t y0 = dcf_->Stats().parts, p0 = ddcf_->Stats().parts;
    ASSERT_TRUE(dcf_->Insert(Key(9)).ok());
    ASSERT_TRUE(ddcf_->Insert(Key(9)).ok());
    if (dcf_->Stats().parts != y0) dcf_growth.push_back(t);
    if (ddcf_->Stats().parts != p0) ddcf_growth.push_back(t);
  }
  for (uint32_t t = 128; t >= 1; --t) {
    const uint32_t y0 = dcf_->Stats().parts, p0 = ddcf_->Stats().parts;
    ASSERT_TRUE(dcf_->Remove(Key(9)).ok());
    ASSERT_TRUE(ddcf_->Remove(Key(9)).ok());
    if (dcf_->Stats().parts != y0) dcf_shrink.push_back(t);
    if (ddcf_->Stats().parts != p0) ddcf_shrink.push_back(t);
  }
  const std::vector<uint32_t> growth = {16, 32, 64, 128};
  const std::vector<uint32_t> shrink = {128, 64, 32, 16};  // the t-th removal
  EXPECT_EQ(dcf_growth, growth);
  EXPECT_EQ(ddcf_growth, growth);
  EXPECT_EQ(dcf_shrink, shrink);
  EXPECT_EQ(ddcf_shrink, shrink);
  EXPECT_EQ(dcf_->counters().rebuilds(), 8u);
  // Same memory at every step: one bit per counter per growth.
  EXPECT_EQ(dcf_->MemoryBytes(), ddcf_->MemoryBytes());
}

TEST_F(DynamicCountFilterTest, RefusedRemoveChangesNothing) {
  ASSERT_TRUE(ddcf_->Insert(Key(1)).ok());
  ASSERT_FALSE(ddcf_->Contains(Key(2)));
  EXPECT_TRUE(ddcf_->Remove(Key(2)).IsInvalidArgument());
  EXPECT_TRUE(dcf_->Remove(Key(2)).IsInvalidArgument());
  EXPECT_TRUE(ddcf_->Contains(Key(1)));
  EXPECT_EQ(ddcf_->Stats().elements, 1u);
  EXPECT_EQ(ddcf_->counters().Sum(), kHashes);
}

TEST_F(DynamicCountFilterTest, CreateValidatesArguments) {
  EXPECT_TRUE(DcfFilter::Create(0, 3).status().IsInvalidArgument());
  EXPECT_TRUE(DdcfFilter::Create(10, 0).status().IsInvalidArgument());
  EXPECT_TRUE(DdcfFilter::Create(10, 65).status().IsInvalidArgument());
  EXPECT_TRUE(DcfFilter::Create(10, 3, 0).status().IsInvalidArgument());
  EXPECT_STREQ(dcf_->name(), "DCF");
  EXPECT_STREQ(ddcf_->name(), "DDCF");
}

}  // namespace
}  // namespace bloomroute
