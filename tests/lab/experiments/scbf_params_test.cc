#include <gtest/gtest.h>

#include <cmath>

#include "tests/lab/experiments/lab_test_util.h"

namespace bloomroute::lab {
namespace {

using testing::Cell;
using testing::Number;

class ScbfParamsTest : public ::testing::Test {};

TEST_F(ScbfParamsTest, GeometryAndMeasuredFill) {
  const LabReport r = testing::QuickReport(&RunScbfParams);
  ASSERT_EQ(r.tables.size(), 1u);
  const MarkdownTable& t = r.tables[0];
  ASSERT_EQ(t.rows().size(), 4u);
  const int k[4] = {10, 14, 17, 20};
  for (size_t i = 0; i < 4; ++i) {
    EXPECT_EQ(Number(Cell(t, i, "k")), k[i]);
    EXPECT_EQ(Number(Cell(t, i, "k")), Number(Cell(t, i, "k (paper)")));
    const double m = Number(Cell(t, i, "m"));
    EXPECT_EQ(m, std::floor(368640.0 / k[i]));
    // Filled to a mean fill of 1/2: about m ln 2 elements (sd ~ sqrt(m)/k).
    const double n = Number(Cell(t, i, "n = m ln 2"));
    EXPECT_NEAR(n, m * std::log(2.0), 1.0);
    EXPECT_NEAR(Number(Cell(t, i, "n measured")), n, 0.01 * n);
    // 200,000 probes (seed 1): FPR below 2^-k + 6 sigma.
    const double p = std::pow(0.5, k[i]);
    EXPECT_LE(Number(Cell(t, i, "FPR measured")),
              p + 6 * std::sqrt(p / 200000) + 1e-9);
  }
  // The paper's n is M (ln 2)^2 / |ln P| (truncated), not m ln 2.
  EXPECT_NEAR(Number(Cell(t, 1, "n (paper)")),
              Number(Cell(t, 1, "M (ln 2)^2 / |ln P|")), 1.0);
  EXPECT_GT(Number(Cell(t, 1, "n (paper)")) - Number(Cell(t, 1, "n = m ln 2")),
            900);
}

}  // namespace
}  // namespace bloomroute::lab
