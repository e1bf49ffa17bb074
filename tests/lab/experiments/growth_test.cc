#include <gtest/gtest.h>

#include "tests/lab/experiments/lab_test_util.h"

namespace bloomroute::lab {
namespace {

using testing::Cell;
using testing::Number;

class GrowthTest : public ::testing::Test {};

TEST_F(GrowthTest, BothFiltersStayBelowTheTargetAndAgree) {
  const LabReport r = testing::QuickReport(&RunGrowth);
  ASSERT_EQ(r.tables.size(), 1u);
  const MarkdownTable& t = r.tables[0];
  ASSERT_EQ(t.rows().size(), 12u);  // 3 r x 2 s x (SBF, SSCBF)
  for (size_t i = 0; i < t.rows().size(); i += 2) {
    EXPECT_EQ(Cell(t, i, "filter"), "SBF");
    EXPECT_EQ(Cell(t, i + 1, "filter"), "SSCBF");
    // Same geometry, same probes: identical answers and stages.
    EXPECT_EQ(Cell(t, i, "FPR measured"), Cell(t, i + 1, "FPR measured"));
    EXPECT_EQ(Cell(t, i, "stages"), Cell(t, i + 1, "stages"));
    EXPECT_LT(Number(Cell(t, i, "FPR measured")), 0.01);
    // 4 base bits plus the occupancy bit against one bit per slot.
    const double ratio = Number(Cell(t, i + 1, "bits / element")) /
                         Number(Cell(t, i, "bits / element"));
    EXPECT_NEAR(ratio, 5.0, 0.01);
  }
}

}  // namespace
}  // namespace bloomroute::lab
