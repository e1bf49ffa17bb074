// Guarantees every MembershipFilter gives, checked on each filter alike: no
// false negatives, a measured FPR that matches the filter's own estimate and
// stays within a stated bound, and remove where supported.
#include "lab/membership_filter.h"

#include <gtest/gtest.h>

#include <cmath>
#include <functional>
#include <memory>
#include <string>

#include "lab/balanced_matrix_bloom_filter.h"
#include "lab/bloom_filter.h"
#include "lab/counting_bloom_filter.h"
#include "lab/dynamic_count_bloom_filter.h"
#include "lab/dynamic_count_filter.h"
#include "lab/scalable_bloom_filter.h"
#include "lab/two_way_balanced_bloom_filter.h"
#include "tests/index/filter_test_util.h"

namespace bloomroute {
namespace {

using testing::Key;

// Every filter is sized so that kElements fill it to about 1/2 with k = 10,
// where the FPR of one Bloom filter is about 2^-10.
constexpr uint64_t kElements = 20000;
constexpr uint32_t kHashes = 10;
constexpr uint64_t kBits = 288540;  // ~ kElements * k / ln 2

template <typename T>
std::unique_ptr<MembershipFilter> Own(StatusOr<T> f) {
  return std::make_unique<T>(std::move(f).value());
}

struct FilterCase {
  std::string name;
  std::function<std::unique_ptr<MembershipFilter>()> make;
  // Upper bound on the FPR at kElements (the filter's design error with a
  // margin for a fill that ends a little above 1/2).
  double fpr_bound;
};

std::vector<FilterCase> Cases() {
  SscbfConfig sbf;
  sbf.target_fpr = 0.002;
  sbf.initial_capacity = 2000;
  BalancedMatrixBloomFilter::Options matrix;
  matrix.rows = 8;
  matrix.row_bits = 48000;  // 8 rows hold ~26,600 at fill 1/2
  matrix.hashes = kHashes;
  matrix.groups = 2;
  TwoWayBalancedBloomFilter::Options two_way;
  two_way.group_size = 4;
  two_way.max_groups = 2;
  two_way.vector_bits = 48000;
  two_way.hashes = kHashes;
  return {
      {"BF", [] { return Own(BloomFilter::Create(kBits, kHashes)); }, 0.0015},
      {"CBF", [] { return Own(CountingBloomFilter::Create(kBits, kHashes)); },
       0.0015},
      {"DCF", [] { return Own(DcfFilter::Create(kBits, kHashes)); }, 0.0015},
      {"DDCF", [] { return Own(DdcfFilter::Create(kBits, kHashes)); }, 0.0015},
      {"DCBF",
       [] { return Own(DynamicCountBloomFilter::Create(kBits, kHashes)); },
       0.0015},
      {"SBF", [=] { return Own(ScalableBloomFilter::Create(sbf)); }, 0.002},
      // Two candidate rows at fill <= 1/2: 1 - (1 - 2^-10)^2.
      {"M-BMBF", [=] { return Own(BalancedMatrixBloomFilter::Create(matrix)); },
       0.002},
      // Eight vectors at fill <= 1/2: 1 - (1 - 2^-10)^8.
      {"2BDBF", [=] { return Own(TwoWayBalancedBloomFilter::Create(two_way)); },
       0.0078},
  };
}

class MembershipFilterTest : public ::testing::TestWithParam<FilterCase> {};

TEST_P(MembershipFilterTest, NoFalseNegativesAndFprWithinBound) {
  std::unique_ptr<MembershipFilter> f = GetParam().make();
  for (uint64_t i = 0; i < kElements; ++i) ASSERT_TRUE(f->Insert(Key(i)).ok());
  for (uint64_t i = 0; i < kElements; ++i) ASSERT_TRUE(f->Contains(Key(i)));
  // 1M absent keys (seeded by Key's fixed hash): the measured rate must match
  // the filter's own estimate within 6 sigma and stay below the stated bound.
  constexpr uint64_t kProbes = 1000000;
  const double measured = testing::MeasuredFpr(*f, kProbes);
  const FilterStats stats = f->Stats();
  // M-BMBF does not insert an element it already finds in a candidate row (a
  // false positive of the rows it checks); every other filter counts all.
  EXPECT_LE(stats.elements, kElements);
  EXPECT_GE(stats.elements, kElements - kElements / 100);
  EXPECT_EQ(stats.memory_bytes, f->MemoryBytes());
  EXPECT_NEAR(measured, stats.estimated_fpr,
              testing::RateTolerance(stats.estimated_fpr, kProbes));
  EXPECT_LE(measured, GetParam().fpr_bound);
  EXPECT_GT(measured, 0.0);  // the bound is not vacuous at this load
}

TEST_P(MembershipFilterTest, RemoveWhereSupported) {
  std::unique_ptr<MembershipFilter> f = GetParam().make();
  for (uint64_t i = 0; i < 1000; ++i) ASSERT_TRUE(f->Insert(Key(i)).ok());
  if (!f->SupportsRemove()) {
    EXPECT_TRUE(f->Remove(Key(0)).IsInvalidArgument());
    EXPECT_TRUE(f->Contains(Key(0)));
    return;
  }
  for (uint64_t i = 0; i < 500; ++i) ASSERT_TRUE(f->Remove(Key(i)).ok());
  for (uint64_t i = 500; i < 1000; ++i) ASSERT_TRUE(f->Contains(Key(i)));
  for (uint64_t i = 500; i < 1000; ++i) ASSERT_TRUE(f->Remove(Key(i)).ok());
  EXPECT_EQ(f->Stats().elements, 0u);
  for (uint64_t i = 0; i < 1000; ++i) EXPECT_FALSE(f->Contains(Key(i)));
  EXPECT_TRUE(f->Remove(Key(1)).IsInvalidArgument());
}

INSTANTIATE_TEST_SUITE_P(AllFilters, MembershipFilterTest,
                         ::testing::ValuesIn(Cases()),
                         [](const ::testing::TestParamInfo<FilterCase>& info) {
                           std::string name = info.param.name;
                           for (char& c : name) {
                             if (c == '-') c = '_';
                           }
                           return name;
                         });

}  // namespace
}  // namespace bloomroute
