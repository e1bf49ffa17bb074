#include "lab/two_way_balanced_bloom_filter.h"

#include <gtest/gtest.h>

#include "tests/index/filter_test_util.h"

namespace bloomroute {
namespace {

using testing::Key;

TwoWayBalancedBloomFilter::Options Small(uint32_t max_groups) {
  TwoWayBalancedBloomFilter::Options o;
  o.group_size = 4;
  o.max_groups = max_groups;
  o.vector_bits = 2048;
  o.hashes = 5;
  return o;
}

class TwoWayBalancedBloomFilterTest : public ::testing::Test {};

TEST_F(TwoWayBalancedBloomFilterTest, GrowsByGroupsUntilTheBudget) {
  auto f = std::move(TwoWayBalancedBloomFilter::Create(Small(3))).value();
  EXPECT_EQ(f.group_count(), 1u);
  EXPECT_EQ(f.MemoryBytes(), 4u * 2048 / 8);
  uint64_t inserted = 0;
  while (f.TryInsert(Key(inserted)) == RowInsertOutcome::kInserted) {
    ++inserted;
    ASSERT_TRUE(f.Contains(Key(inserted - 1)));
  }
  EXPECT_EQ(f.group_count(), 3u);
  EXPECT_EQ(f.MemoryBytes(), 3u * 4 * 2048 / 8);
  for (uint32_t g = 0; g < 3; ++g) {
    for (uint32_t v = 0; v < 4; ++v) {
      EXPECT_LE(f.VectorSetBits(g, v), f.VectorLimit());
    }
  }
  // 12 vectors of 2048 bits hold about 12 * 2048 ln 2 / 5 = 3407 at fill 1/2.
  EXPECT_GT(inserted, 2500u);
  EXPECT_LT(inserted, 3500u);
  for (uint64_t i = 0; i < inserted; ++i) ASSERT_TRUE(f.Contains(Key(i)));
  EXPECT_TRUE(f.Insert(Key(inserted)).IsInvalidArgument());
}

TEST_F(TwoWayBalancedBloomFilterTest, InsertsIntoTheEmplierCandidate) {
  // One group of two vectors: both are always the candidates (or one twice),
  // so after every insert the two fills differ by at most one element's bits.
  TwoWayBalancedBloomFilter::Options o = Small(1);
  o.group_size = 2;
  auto f = std::move(TwoWayBalancedBloomFilter::Create(o)).value();
  for (uint64_t i = 0; i < 200; ++i) {
    ASSERT_EQ(f.TryInsert(Key(i)), RowInsertOutcome::kInserted);
    const int64_t diff = static_cast<int64_t>(f.VectorSetBits(0, 0)) -
                         static_cast<int64_t>(f.VectorSetBits(0, 1));
    // Not exact (both candidates may be the same vector) but bounded.
    ASSERT_LE(std::abs(diff), 40) << "after " << i;
  }
}

TEST_F(TwoWayBalancedBloomFilterTest, CreateValidatesOptions) {
  auto bad = [](auto edit) {
    TwoWayBalancedBloomFilter::Options o = Small(2);
    edit(o);
    return TwoWayBalancedBloomFilter::Create(o).status().IsInvalidArgument();
  };
  EXPECT_TRUE(bad([](auto& o) { o.group_size = 0; }));
  EXPECT_TRUE(bad([](auto& o) { o.max_groups = 0; }));
  EXPECT_TRUE(bad([](auto& o) { o.max_groups = 1u << 20; }));
  EXPECT_TRUE(bad([](auto& o) { o.vector_bits = 0; }));
  EXPECT_TRUE(bad([](auto& o) { o.hashes = 0; }));
  EXPECT_TRUE(bad([](auto& o) { o.full_fill = 0; }));
}

}  // namespace
}  // namespace bloomroute
