#include <gtest/gtest.h>

#include <cmath>
#include <string>

#include "tests/lab/experiments/lab_test_util.h"

namespace bloomroute::lab {
namespace {

using testing::Cell;
using testing::Number;

class OverflowTest : public ::testing::Test {};

TEST_F(OverflowTest, ExactTailsAndMeasuredFrequencies) {
  const LabReport r = testing::QuickReport(&RunOverflow);
  ASSERT_EQ(r.tables.size(), 3u);
  const MarkdownTable& theory = r.tables[0];
  ASSERT_EQ(theory.rows().size(), 5u);
  // Poisson(ln 2): P(X >= 2) = 1 - (1 + ln 2) / 2 = 0.1534 for both filters.
  const double p2 = 1 - (1 + std::log(2.0)) / 2;
  EXPECT_NEAR(Number(Cell(theory, 0, "SCBF exact P(c >= j)")), p2, 0.0005);
  EXPECT_NEAR(Number(Cell(theory, 0, "CBF exact P(c >= j)")), p2, 0.0005);
  // The paper's CBF formula in doubles bottoms out at 2.2e-16 for b = 4.
  EXPECT_EQ(Cell(theory, 3, "CBF paper formula evaluated"), "2.22e-16");
  EXPECT_LT(Number(Cell(theory, 3, "CBF exact P(c >= j)")), 1e-16);
  // Measured over 3 quick fills (1.1M counters, seed 1): b = 1 and 2 within
  // 6 sigma of the exact tail.
  const MarkdownTable& measured = r.tables[1];
  const double n = 3 * 368640.0;
  const double p4 = Number(Cell(theory, 1, "SCBF exact P(c >= j)"));
  for (const char* column :
       {"SCBF counters >= j (count)", "CBF counters >= j (count)"}) {
    EXPECT_NEAR(Number(Cell(measured, 0, column)), p2, 6 * std::sqrt(p2 / n));
    EXPECT_NEAR(Number(Cell(measured, 1, column)), p4, 6 * std::sqrt(p4 / n));
  }
  EXPECT_EQ(Cell(measured, 4, "CBF counters >= j (count)"), "not visible");
  EXPECT_EQ(r.tables[2].rows().size(), 2u);
}

// The SCBF paper's tables 2-3 print 0.03388, 1.80e-4, ... for b = 1..5. They
// are its Stirling bound (e ln 2 / j)^j / sqrt(2 pi j) evaluated without the
// factor e; the bound as printed is e^j times larger. If the "without e"
// column stops matching, or the "formula evaluated" column starts to, one of
// the two functions was changed.
TEST_F(OverflowTest, PublishedScbfColumnIsTheBoundWithoutE) {
  const LabReport r = testing::QuickReport(&RunOverflow);
  const MarkdownTable& theory = r.tables[0];
  ASSERT_EQ(theory.rows().size(), 5u);
  const double published[] = {0.03388, 1.80e-4, 4.48e-10, 1.54e-23, 3.89e-55};
  for (size_t row = 0; row < 5; ++row) {
    SCOPED_TRACE("b = " + std::to_string(row + 1));
    const double j = std::pow(2.0, row + 1);
    const std::string without_e =
        Cell(theory, row, "SCBF paper formula without e");
    EXPECT_EQ(without_e, FormatSci(published[row]));
    EXPECT_NEAR(Number(without_e) / published[row], 1, 0.005);
    const double as_printed =
        Number(Cell(theory, row, "SCBF paper formula evaluated"));
    EXPECT_NEAR(as_printed / Number(without_e) / std::exp(j), 1, 0.02);
    // Hence below the exact tail, which the bound should be above.
    EXPECT_LT(Number(without_e),
              Number(Cell(theory, row, "SCBF exact P(c >= j)")));
  }
}

}  // namespace
}  // namespace bloomroute::lab
