#include "index/theory.h"

#include <gtest/gtest.h>

#include <cmath>

namespace bloomroute::theory {
namespace {

TEST(TheoryTest, OptimalSliceCountMatchesTheScbfPaper) {
  // Table 1 of the SCBF paper (M = 45 KB): P = 0.1 %, 0.01 %, 0.001 %,
  // 0.0001 % give k = 10, 14, 17, 20.
  EXPECT_EQ(OptimalSliceCount(1e-3), 10u);
  EXPECT_EQ(OptimalSliceCount(1e-4), 14u);
  EXPECT_EQ(OptimalSliceCount(1e-5), 17u);
  EXPECT_EQ(OptimalSliceCount(1e-6), 20u);
  // Exact powers are not rounded up by log() noise.
  EXPECT_EQ(OptimalSliceCount(std::ldexp(1.0, -10)), 10u);
  EXPECT_EQ(OptimalSliceCount(0.5), 1u);
  EXPECT_EQ(OptimalSliceCount(0.9), 1u);
  EXPECT_EQ(OptimalSliceCount(0.01, 0.25), 4u);  // 0.25^4 = 0.0039
  EXPECT_EQ(OptimalSliceCount(0.0), 0u);
  EXPECT_EQ(OptimalSliceCount(1.0), 0u);
  // A fill near 1 needs billions of slices: refused, not converted out of
  // range.
  EXPECT_EQ(OptimalSliceCount(1e-300, 1 - 1e-15), 0u);
}

TEST(TheoryTest, CapacityAndSliceLengthAreInverse) {
  EXPECT_NEAR(CapacityAtFill(36864), 36864 * std::log(2.0), 1e-9);
  EXPECT_EQ(SliceLengthForCapacity(1000), 1443u);  // ceil(1000 / ln 2)
  for (double n : {1.0, 999.0, 25639.0, 1e6}) {
    const uint64_t m = SliceLengthForCapacity(n);
    EXPECT_GE(CapacityAtFill(static_cast<double>(m)), n);
    EXPECT_LT(CapacityAtFill(static_cast<double>(m - 1)), n);
  }
  EXPECT_NEAR(ExpectedFill(CapacityAtFill(1e6), 1e6), 0.5, 1e-6);
  EXPECT_EQ(SliceLengthForCapacity(10, 1.0), 0u);
  EXPECT_EQ(SliceLengthForCapacity(1e300, 1e-300), 0u);  // beyond 2^64
  EXPECT_TRUE(std::isnan(CapacityAtFill(10, 0.0)));
}

TEST(TheoryTest, StageFprIsFillToTheK) {
  EXPECT_DOUBLE_EQ(StageFalsePositiveRate(0.5, 10), std::ldexp(1.0, -10));
  EXPECT_DOUBLE_EQ(StageFalsePositiveRate(0.0, 3), 0.0);
  EXPECT_TRUE(std::isnan(StageFalsePositiveRate(1.5, 3)));
}

TEST(TheoryTest, CompoundedBoundConvergesBelowTheLimit) {
  EXPECT_DOUBLE_EQ(SbfCompoundedBound(0.005, 0.5, 1), 0.005);
  double previous = 0;
  for (uint32_t l = 1; l < 40; ++l) {
    const double b = SbfCompoundedBound(0.005, 0.5, l);
    EXPECT_GT(b, previous);
    EXPECT_LE(b, SbfCompoundedLimit(0.005, 0.5));
    previous = b;
  }
  EXPECT_DOUBLE_EQ(SbfCompoundedLimit(0.005, 0.5), 0.01);
  EXPECT_NEAR(SbfCompoundedBound(0.005, 0.5, 60), 0.01, 1e-4);
}

TEST(TheoryTest, BinomialTailIsExact) {
  // Against a direct sum for a small case: n = 10, p = 0.3, P(X >= 4).
  double direct = 0;
  for (int t = 4; t <= 10; ++t) {
    direct += std::tgamma(11) / (std::tgamma(t + 1) * std::tgamma(11 - t)) *
              std::pow(0.3, t) * std::pow(0.7, 10 - t);
  }
  EXPECT_NEAR(BinomialTailAtLeast(10, 0.3, 4), direct, 1e-14);
  EXPECT_DOUBLE_EQ(BinomialTailAtLeast(10, 0.3, 0), 1.0);
  EXPECT_DOUBLE_EQ(BinomialTailAtLeast(10, 0.3, 11), 0.0);
  EXPECT_NEAR(BinomialTailAtLeast(10, 0.5, 10), std::pow(0.5, 10), 1e-16);
  // A filter slice at fill 1/2: n = m ln 2 elements, p = 1/m. The exact tail
  // is close to the Poisson(ln 2) tail, and far below 1 - head for large j,
  // which a subtraction could not compute.
  const uint64_t m = 1 << 20;
  const uint64_t n = static_cast<uint64_t>(m * std::log(2.0));
  for (uint64_t j : {2, 4, 8, 16, 32}) {
    const double exact = BinomialTailAtLeast(n, 1.0 / m, j);
    const double poisson = PoissonTailAtLeast(std::log(2.0), j);
    EXPECT_GT(exact, 0.0) << j;
    EXPECT_NEAR(exact / poisson, 1.0, 1e-3) << j;
  }
  EXPECT_LT(BinomialTailAtLeast(n, 1.0 / m, 32), 1e-40);
}

TEST(TheoryTest, TailsStayExactAndFastAtExtremeLoads) {
  // n = 1e12 trials at p = 1e-12 is Poisson(1): P(X >= 3) = 1 - 2.5/e. A
  // difference of lgamma values would lose two digits here.
  const double poisson1 = 1 - 2.5 * std::exp(-1.0);
  EXPECT_NEAR(BinomialTailAtLeast(1000000000000ull, 1e-12, 3), poisson1, 1e-9);
  EXPECT_NEAR(BinomialTailAtLeast(UINT64_MAX, 1.0 / 18446744073709551616.0, 3),
              poisson1, 1e-9);
  // j at or below the mean: the answer is near 1, computed as 1 - head.
  EXPECT_NEAR(BinomialTailAtLeast(100000000, 0.5, 1), 1.0, 1e-15);
  EXPECT_NEAR(BinomialTailAtLeast(100000000, 0.5, 50000000), 0.5, 1e-4);
  // Loads far beyond exp()'s range (the first pmf term underflows).
  EXPECT_NEAR(PoissonTailAtLeast(800, 1), 1.0, 1e-15);
  EXPECT_NEAR(PoissonTailAtLeast(1e4, 5000), 1.0, 1e-15);
  EXPECT_NEAR(PoissonTailAtLeast(1e6, 1), 1.0, 1e-15);
  EXPECT_NEAR(PoissonTailAtLeast(1e4, 10000), 0.5, 0.01);
  EXPECT_LT(PoissonTailAtLeast(1e4, 20000), 1e-300);
  EXPECT_TRUE(std::isnan(BinomialTailAtLeast(UINT64_MAX, 0.5, 1)));
}

TEST(TheoryTest, PoissonTailKnownValues) {
  const double l = std::log(2.0);
  // P(X >= 1) = 1 - e^-l = 1/2; P(X >= 2) = 1 - e^-l (1 + l).
  EXPECT_NEAR(PoissonTailAtLeast(l, 1), 0.5, 1e-15);
  EXPECT_NEAR(PoissonTailAtLeast(l, 2), 1 - 0.5 * (1 + l), 1e-15);
  EXPECT_DOUBLE_EQ(PoissonTailAtLeast(l, 0), 1.0);
  EXPECT_DOUBLE_EQ(PoissonTailAtLeast(0.0, 1), 0.0);
  EXPECT_TRUE(std::isnan(PoissonTailAtLeast(-1.0, 1)));
  EXPECT_TRUE(std::isnan(PoissonTailAtLeast(1e13, 1)));
}

TEST(TheoryTest, AnyCounterReaches) {
  EXPECT_NEAR(AnyCounterReaches(1e-12, 1000), 1e-9, 1e-15);
  EXPECT_NEAR(AnyCounterReaches(0.5, 2), 0.75, 1e-15);
  EXPECT_DOUBLE_EQ(AnyCounterReaches(0.0, 1000), 0.0);
  EXPECT_DOUBLE_EQ(AnyCounterReaches(1.0, 3), 1.0);
}

}  // namespace
}  // namespace bloomroute::theory
