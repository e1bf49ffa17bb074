#include "tools/import/progress.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <sstream>
#include <string>

namespace bloomroute {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;

class ProgressReporterTest : public ::testing::Test {
 protected:
  // A clock that moves only when the test says.
  ProgressReporter::Clock clock() {
    return [this] { return std::chrono::steady_clock::time_point() + now_; };
  }
  void Advance(double seconds) {
    now_ += std::chrono::duration_cast<std::chrono::steady_clock::duration>(
        std::chrono::duration<double>(seconds));
  }

  std::chrono::steady_clock::duration now_{};
};

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
  ProgressReporter progress(&out, /*terminal=*/true, 100, clock());
  Advance(0.1);
  progress.Update(1, 10);  // within the first interval: nothing drawn
  EXPECT_EQ(out.str(), "");
  Advance(0.2);
  progress.Update(2, 20);  // past it: drawn in place
  EXPECT_THAT(out.str(), HasSubstr("\r[####"));
  EXPECT_THAT(out.str(), HasSubstr("2 rows"));
  progress.Finish(5, 100);
  progress.Finish(6, 100);  // idempotent
  EXPECT_THAT(out.str(), HasSubstr("\r[####"));
  EXPECT_THAT(out.str(), HasSubstr("100%  5 rows"));
  EXPECT_EQ(out.str().back(), '\n');
  EXPECT_THAT(out.str(), Not(HasSubstr("100%  6 rows")));
}

TEST_F(ProgressReporterTest, PlainOutputHasNoCarriageReturns) {
  std::ostringstream out;
  ProgressReporter progress(&out, /*terminal=*/false, 100, clock());
  Advance(4);
  progress.Update(1, 10);
  EXPECT_EQ(out.str(), "");  // within the 5 s interval
  Advance(2);
  progress.Update(3, 50);
  EXPECT_EQ(out.str(),
            "bloomroute import: 3 rows, 0 rows/s, 50% of the input\n");
  progress.Finish(5, 100);  // nothing more: the summary follows
}

}  // namespace
}  // namespace bloomroute
