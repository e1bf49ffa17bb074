#include <gtest/gtest.h>

#include <cmath>

#include "tests/lab/experiments/lab_test_util.h"

namespace bloomroute::lab {
namespace {

using testing::Cell;
using testing::Number;

class MbmbfTest : public ::testing::Test {};

TEST_F(MbmbfTest, FullMatricesAndFprsNearTheory) {
  const LabReport r = testing::QuickReport(&RunMbmbf);
  ASSERT_EQ(r.tables.size(), 1u);
  const MarkdownTable& t = r.tables[0];
  ASSERT_EQ(t.rows().size(), 18u);  // (7 M-BMBF + split + 2BDBF) x 2
  for (size_t i = 0; i < t.rows().size(); ++i) {
    const double rows = Number(Cell(t, i, "r"));
    // Full: close to r m ln 2 / k elements and to fill 1/2, never above.
    const double capacity = rows * 131072 * std::log(2.0) / 10;
    EXPECT_NEAR(Number(Cell(t, i, "elements")), capacity, 0.03 * capacity);
    EXPECT_LE(Number(Cell(t, i, "fill")), 0.5005);
    EXPECT_GT(Number(Cell(t, i, "fill")), 0.49);
    // 20,000 probes (seed 1): within 6 sigma of the full-matrix theory.
    const double p = Number(Cell(t, i, "FPR theory"));
    EXPECT_NEAR(Number(Cell(t, i, "FPR measured")), p,
                6 * std::sqrt(p / 20000));
  }
  EXPECT_EQ(Cell(t, 0, "filter"), "M-BMBF");
  EXPECT_EQ(Cell(t, 7, "filter"), "split BF (k slices)");
  EXPECT_EQ(Cell(t, 8, "filter"), "2BDBF");
}

}  // namespace
}  // namespace bloomroute::lab
