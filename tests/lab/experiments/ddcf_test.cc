#include <gtest/gtest.h>

#include <cmath>

#include "tests/lab/experiments/lab_test_util.h"

namespace bloomroute::lab {
namespace {

using testing::Cell;
using testing::Number;

class DdcfTest : public ::testing::Test {};

TEST_F(DdcfTest, MemoryFollowsEachOverflowScheme) {
  const LabReport r = testing::QuickReport(&RunDdcf);
  ASSERT_EQ(r.tables.size(), 3u);
  const MarkdownTable& inserts = r.tables[0];
  ASSERT_EQ(inserts.rows().size(), 6u);  // t = 15, 16, 31, 32, 46, 64
  // Quick geometry: m = 95,851 4-bit counters = 0.0457 MiB; DCF and DDCF add
  // one bit per counter at 16, 32 and 64, DCBF a whole filter every 15.
  const double base = Number(Cell(inserts, 0, "DCF MiB"));
  const double bit = base / 4;
  const double dcf[6] = {0, 1, 1, 2, 2, 3};   // extra bits at each t
  const double dcbf[6] = {1, 2, 3, 3, 4, 5};  // filters at each t
  for (size_t i = 0; i < 6; ++i) {
    EXPECT_NEAR(Number(Cell(inserts, i, "DCF MiB")), base + dcf[i] * bit,
                0.002);
    EXPECT_EQ(Cell(inserts, i, "DCF MiB"), Cell(inserts, i, "DDCF MiB"));
    EXPECT_NEAR(Number(Cell(inserts, i, "DCBF MiB")), dcbf[i] * base, 0.002);
  }
  // Removing the element back down frees everything again.
  const MarkdownTable& removes = r.tables[1];
  EXPECT_EQ(Cell(removes, 0, "DCF MiB"), Cell(inserts, 0, "DCF MiB"));
  EXPECT_EQ(Cell(removes, 0, "DCBF MiB"), Cell(inserts, 0, "DCBF MiB"));
  EXPECT_EQ(r.tables[2].rows().size(), 9u);
}

}  // namespace
}  // namespace bloomroute::lab
