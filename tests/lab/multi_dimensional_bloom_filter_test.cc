#include "lab/multi_dimensional_bloom_filter.h"

#include <gtest/gtest.h>

#include <cmath>
#include <string>
#include <vector>

namespace bloomroute {
namespace {

std::string Value(const char* attribute, uint64_t i) {
  return std::string(attribute) + "-" + std::to_string(i);
}

class MultiDimensionalBloomFilterTest : public ::testing::Test {
 protected:
  // 3 attributes, 10,000 tuples, m = 100,000 bits and k = 3 per attribute.
  void SetUp() override {
    f_ = std::make_unique<MultiDimensionalBloomFilter>(
        std::move(MultiDimensionalBloomFilter::Create(3, 100000, 3)).value());
    for (uint64_t i = 0; i < 10000; ++i) {
      const std::string a = Value("a", i), b = Value("b", i), c = Value("c", i);
      ASSERT_TRUE(f_->Insert({a, b, c}).ok());
    }
  }
  std::unique_ptr<MultiDimensionalBloomFilter> f_;
};

TEST_F(MultiDimensionalBloomFilterTest, NoFalseNegatives) {
  for (uint64_t i = 0; i < 10000; ++i) {
    const std::string a = Value("a", i), b = Value("b", i), c = Value("c", i);
    ASSERT_TRUE(f_->Contains({a, b, c}));
    ASSERT_TRUE(f_->ContainsValue(1, b));
  }
  EXPECT_EQ(f_->tuple_count(), 10000u);
}

TEST_F(MultiDimensionalBloomFilterTest, AbsentTuplesMatchAtTheProductRate) {
  // Per attribute f = 1 - e^(-3 * 10^4 / 10^5) = 0.259, FPR_a = f^3 = 0.0174;
  // the tuple rate is their product, ~5.2e-6. Bound: 100,000 absent tuples
  // (deterministic names) match at most 6 sigma above the estimate.
  const double per_attribute = std::pow(1 - std::exp(-0.3), 3);
  EXPECT_NEAR(f_->filter(0).EstimatedFpr(), per_attribute, 0.002);
  uint64_t matches = 0, value_matches = 0;
  constexpr uint64_t kProbes = 100000;
  for (uint64_t i = 1000000; i < 1000000 + kProbes; ++i) {
    const std::string a = Value("a", i), b = Value("b", i), c = Value("c", i);
    matches += f_->Contains({a, b, c});
    value_matches += f_->ContainsValue(0, a);
  }
  const double estimate = f_->EstimatedFpr();
  EXPECT_LE(static_cast<double>(matches) / kProbes,
            estimate + 6 * std::sqrt(estimate / kProbes));
  EXPECT_NEAR(static_cast<double>(value_matches) / kProbes,
              f_->filter(0).EstimatedFpr(), 0.003);
}

TEST_F(MultiDimensionalBloomFilterTest, CrossTuplesAlwaysMatch) {
  // Values of different inserted tuples: the design cannot tell them apart.
  const std::string a = Value("a", 1), b = Value("b", 2), c = Value("c", 3);
  EXPECT_TRUE(f_->Contains({a, b, c}));
}

TEST_F(MultiDimensionalBloomFilterTest, ValidatesArity) {
  const std::string a = Value("a", 1);
  EXPECT_TRUE(f_->Insert({a}).IsInvalidArgument());
  EXPECT_FALSE(f_->Contains({a}));
  EXPECT_FALSE(f_->ContainsValue(3, a));
  EXPECT_EQ(f_->tuple_count(), 10000u);
  EXPECT_TRUE(MultiDimensionalBloomFilter::Create(0, 100, 3)
                  .status()
                  .IsInvalidArgument());
  EXPECT_TRUE(MultiDimensionalBloomFilter::Create(65, 100, 3)
                  .status()
                  .IsInvalidArgument());
  EXPECT_TRUE(MultiDimensionalBloomFilter::Create(2, 0, 3)
                  .status()
                  .IsInvalidArgument());
  EXPECT_EQ(f_->MemoryBytes(), 3u * ((100000 + 63) / 64) * 8);
}

}  // namespace
}  // namespace bloomroute
