#include "tools/import/progress.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <sstream>
#include <string>

namespace bloomroute {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;

class ProgressReporterTest : public ::testing::Test {};

TEST_F(ProgressReporterTest, BarShowsRowsRateShareAndEta) {
  EXPECT_EQ(GroupThousands(0), "0");
  EXPECT_EQ(GroupThousands(999), "999");
  EXPECT_EQ(GroupThousands(1234567), "1,234,567");
  // A quarter of the input in 10 s: 30 s to go.
  const std::string bar = FormatProgressBar({50000, 10, 250, 1000}, 80);
  EXPECT_THAT(bar, HasSubstr(" 25%  50,000 rows  5,000 rows/s  ETA 0:30"));
  EXPECT_EQ(bar.size(), 80u);
  EXPECT_EQ(bar.substr(0, 6), "[#####");
  // No size known: no share, no ETA.
  EXPECT_EQ(FormatProgressBar({7, 1, 5, 0}), "7 rows  7 rows/s");
  EXPECT_THAT(FormatProgressBar({1, 3700, 1, 2}), HasSubstr("ETA 1:01:40"));
}

TEST_F(ProgressReporterTest, PlainLine) {
  EXPECT_EQ(FormatProgressLine({50000, 10, 250, 1000}),
            "bloomroute import: 50000 rows, 5000 rows/s, 25% of the input");
  EXPECT_EQ(FormatProgressLine({3, 0, 0, 0}),
            "bloomroute import: 3 rows, 0 rows/s");
}

TEST_F(ProgressReporterTest, TerminalRedrawsInPlaceAndEndsTheLine) {
  std::ostringstream out;
  ProgressReporter progress(&out, /*terminal=*/true, 100);
  progress.Update(1, 10);  // within the first interval: nothing drawn
  EXPECT_EQ(out.str(), "");
  progress.Finish(5, 100);
  progress.Finish(6, 100);  // idempotent
  EXPECT_THAT(out.str(), HasSubstr("\r[####"));
  EXPECT_THAT(out.str(), HasSubstr("100%  5 rows"));
  EXPECT_EQ(out.str().back(), '\n');
  EXPECT_THAT(out.str(), Not(HasSubstr("6 rows")));
}

TEST_F(ProgressReporterTest, PlainOutputHasNoCarriageReturns) {
  std::ostringstream out;
  ProgressReporter progress(&out, /*terminal=*/false, 100);
  progress.Update(1, 10);
  progress.Finish(5, 100);
  EXPECT_EQ(out.str(), "");  // quicker than one interval; the summary follows
}

}  // namespace
}  // namespace bloomroute
