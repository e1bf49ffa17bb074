#include "tools/shell/shell_output.h"

#include <gtest/gtest.h>

#include <sstream>

namespace bloomroute::shell {
namespace {

TEST(ShellOutputTest, TimestampsAreIsoUtcWithMilliseconds) {
  EXPECT_EQ(FormatTimestamp(0), "1970-01-01T00:00:00.000Z");
  EXPECT_EQ(FormatTimestamp(1700000000123), "2023-11-14T22:13:20.123Z");
  EXPECT_EQ(FormatTimestamp(-1), "1969-12-31T23:59:59.999Z");
  // Past year 9999 (or kLatestTimestamp): the number.
  EXPECT_EQ(FormatTimestamp(kLatestTimestamp),
            std::to_string(kLatestTimestamp));
  EXPECT_EQ(FormatTimestamp(253402300800000), "253402300800000");
}

TEST(ShellOutputTest, CellsAsHBaseShellPrintsThem) {
  std::ostringstream out;
  PrintRowCells(Row{"r", {{"d:cc", "NO", 0}, {"d:bin", "a\x01\xff", 5}}}, out);
  EXPECT_EQ(out.str(),
            "COLUMN                   CELL\n"
            " d:cc                    timestamp=1970-01-01T00:00:00.000Z, "
            "value=NO\n"
            " d:bin                   timestamp=1970-01-01T00:00:00.005Z, "
            "value=a\\x01\\xff\n");
  out.str("");
  PrintScanHeader(out);
  PrintScanRows({Row{std::string(30, 'k'), {{"d:a", "1", 0}}}}, out);
  EXPECT_EQ(out.str(), "ROW                      COLUMN+CELL\n " +
                           std::string(30, 'k') +
                           " column=d:a, timestamp=1970-01-01T00:00:00.000Z, "
                           "value=1\n");
  EXPECT_EQ(RowCountLine(3), "3 row(s)");
}

}  // namespace
}  // namespace bloomroute::shell
