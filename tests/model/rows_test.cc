// The model's printers, which test failures and logs use.
#include "model/rows.h"

#include <gtest/gtest.h>

#include <sstream>
#include <string>

namespace bloomroute {
namespace {

std::string Print(const Row& row) {
  std::ostringstream os;
  os << row;
  return os.str();
}

TEST(RowsTest, RowsPrintTheirCellsAndTimestamps) {
  Row row{"r1", {{"d:a", "v", 42}, {"d:b", std::string("x\0", 2)}}};
  EXPECT_EQ(Print(row), "'r1': {'d:a'='v'@42, 'd:b'=" +
                            QuoteForMessage(std::string("x\0", 2)) + "@now}");
  EXPECT_EQ(Print(Row{"k", {}}), "'k': {}");
}

}  // namespace
}  // namespace bloomroute
