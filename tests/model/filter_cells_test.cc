// The filters and comparators ParseFilter refused before the cell-level
// engine, each against the answer HBase 2.x's classes give (worked out from
// their filterRowKey / filterCell / filterRow in the comments). Written
// against the text only, so the same tests run (and fail at the parse) on
// the row-predicate model that refused them.
#include <gtest/gtest.h>

#include <optional>
#include <string>
#include <vector>

#include "model/filter_language.h"

namespace bloomroute {
namespace {

Row MakeRow(std::string key, std::vector<Cell> cells) {
  return Row{std::move(key), std::move(cells)};
}

// r1: five cells in two families, timestamps 10/20/30.
const Row kRow = MakeRow("r1", {{"f:a", "apple", 10},
                                {"f:b", "Banana", 20},
                                {"f:c", "cherry", 10},
                                {"g:a", "", 30},
                                {"g:d", "date", 20}});

// The columns of what `text` returns for kRow; {"-"} when the row is
// dropped or the text does not parse.
std::vector<std::string> Columns(const std::string& text,
                                 const Row& row = kRow) {
  StatusOr<Filter> f = ParseFilter(text);
  EXPECT_TRUE(f.ok()) << text << ": " << f.status().ToString();
  if (!f.ok()) return {"-"};
  std::optional<Row> out = ApplyFilter(*f, row);
  if (!out) return {"-"};
  std::vector<std::string> columns;
  for (const Cell& c : out->cells) columns.push_back(c.column);
  return columns;
}

using V = std::vector<std::string>;

TEST(FilterCellsTest, ValueFilterKeepsMatchingCells) {
  EXPECT_EQ(Columns("ValueFilter(=, 'binary:apple')"), V({"f:a"}));
  EXPECT_EQ(Columns("ValueFilter(!=, 'binary:apple')"),
            V({"f:b", "f:c", "g:a", "g:d"}));
  EXPECT_EQ(Columns("ValueFilter(>, 'binary:c')"), V({"f:c", "g:d"}));
  EXPECT_EQ(Columns("ValueFilter(=, 'binary:none')"), V({"-"}));
}

TEST(FilterCellsTest, ComparatorsCompareAsHBase) {
  // substring: case-insensitive (SubstringComparator lowercases both).
  EXPECT_EQ(Columns("ValueFilter(=, 'substring:AN')"), V({"f:b"}));
  EXPECT_EQ(Columns("ValueFilter(!=, 'substring:a')"), V({"f:c", "g:a"}));
  // binaryprefix: the value's first |operand| bytes against the operand;
  // a shorter value compares whole ("" < "b", 'B' < 'b').
  EXPECT_EQ(Columns("ValueFilter(=, 'binaryprefix:ch')"), V({"f:c"}));
  EXPECT_EQ(Columns("ValueFilter(<, 'binaryprefix:b')"),
            V({"f:a", "f:b", "g:a"}));
  // regexstring: found anywhere (Matcher.find), '.' with DOTALL.
  EXPECT_EQ(Columns("ValueFilter(=, 'regexstring:^c.*y$')"), V({"f:c"}));
  EXPECT_EQ(Columns("ValueFilter(=, 'regexstring:an')"), V({"f:b"}));
  const Row lines = MakeRow("r", {{"f:a", "a\nb"}});
  EXPECT_EQ(Columns("ValueFilter(=, 'regexstring:a.b')", lines), V({"f:a"}));
  EXPECT_EQ(Columns("SingleColumnValueFilter('f', 'b', =, "
                    "'regexstring:^B[a-z]+$', true, true)"),
            V({"f:a", "f:b", "f:c", "g:a", "g:d"}));
}

TEST(FilterCellsTest, RowFamilyQualifierFilters) {
  EXPECT_EQ(Columns("RowFilter(=, 'binary:r1')").size(), 5u);
  EXPECT_EQ(Columns("RowFilter(!=, 'binary:r1')"), V({"-"}));
  EXPECT_EQ(Columns("RowFilter(=, 'regexstring:^r[0-9]$')").size(), 5u);
  EXPECT_EQ(Columns("FamilyFilter(=, 'binary:g')"), V({"g:a", "g:d"}));
  EXPECT_EQ(Columns("QualifierFilter(>=, 'binary:c')"), V({"f:c", "g:d"}));
  // An empty qualifier is never compared (QualifierFilter's length check).
  const Row empty_q = MakeRow("r", {{"f:", "x"}, {"f:z", "y"}});
  EXPECT_EQ(Columns("QualifierFilter(=, 'binary:q')", empty_q), V({"f:"}));
}

TEST(FilterCellsTest, ColumnFilters) {
  EXPECT_EQ(Columns("MultipleColumnPrefixFilter('a', 'd')"),
            V({"f:a", "g:a", "g:d"}));
  EXPECT_EQ(Columns("ColumnRangeFilter('b', true, 'c', true)"),
            V({"f:b", "f:c"}));
  EXPECT_EQ(Columns("ColumnRangeFilter('b', false, 'd', false)"), V({"f:c"}));
  EXPECT_EQ(Columns("ColumnRangeFilter('', true, 'b', false)"),
            V({"f:a", "g:a"}));
  // The third cell trips filterAllRemaining: nothing more of the row.
  EXPECT_EQ(Columns("ColumnCountGetFilter(2)"), V({"f:a", "f:b"}));
  EXPECT_EQ(Columns("ColumnCountGetFilter(0)"), V({"-"}));
  // Offset and limit count across families.
  EXPECT_EQ(Columns("ColumnPaginationFilter(2, 1)"), V({"f:b", "f:c"}));
  EXPECT_EQ(Columns("ColumnPaginationFilter(2, 4)"), V({"g:d"}));
}

TEST(FilterCellsTest, TimestampAndDependentColumnFilters) {
  EXPECT_EQ(Columns("TimestampsFilter(20, 30)"), V({"f:b", "g:a", "g:d"}));
  EXPECT_EQ(Columns("TimestampsFilter(5)"), V({"-"}));
  // Cells sharing a timestamp with f:a (10) stay.
  EXPECT_EQ(Columns("DependentColumnFilter('f', 'a')"), V({"f:a", "f:c"}));
  EXPECT_EQ(Columns("DependentColumnFilter('f', 'a', true)"), V({"f:c"}));
  EXPECT_EQ(Columns("DependentColumnFilter('f', 'a', false, =, "
                    "'binary:nope')"),
            V({"-"}));
}

TEST(FilterCellsTest, ExcludeStopAndKeyOnlyFilters) {
  EXPECT_EQ(Columns("SingleColumnValueExcludeFilter('f', 'a', =, "
                    "'binary:apple')"),
            V({"f:b", "f:c", "g:a", "g:d"}));
  EXPECT_EQ(Columns("SingleColumnValueExcludeFilter('f', 'a', =, "
                    "'binary:pear')"),
            V({"-"}));
  EXPECT_EQ(Columns("InclusiveStopFilter('r1')").size(), 5u);
  EXPECT_EQ(Columns("InclusiveStopFilter('r0')"), V({"-"}));
  StatusOr<Filter> f = ParseFilter("KeyOnlyFilter(true)");
  ASSERT_TRUE(f.ok());
  std::optional<Row> out = ApplyFilter(*f, kRow);
  ASSERT_TRUE(out);
  EXPECT_EQ(out->cells[0].value, std::string("\0\0\0\5", 4));
  EXPECT_EQ(out->cells[3].value, std::string("\0\0\0\0", 4));
}

TEST(FilterCellsTest, SkipDropsTheRowOfAnyExcludedCell) {
  EXPECT_EQ(Columns("SKIP ValueFilter(!=, 'binary:')"), V({"-"}));
  EXPECT_EQ(Columns("SKIP ValueFilter(!=, 'binary:x')").size(), 5u);
  // SKIP gives its operand no row key: RowFilter never excludes there,
  // and PrefixFilter, excluding cells until it has seen a key, always does.
  EXPECT_EQ(Columns("SKIP RowFilter(!=, 'binary:r1')").size(), 5u);
  EXPECT_EQ(Columns("SKIP PrefixFilter('r')"), V({"-"}));
  // ... and ignores its filterRow: a missing column does not drop the row.
  EXPECT_EQ(Columns("SKIP SingleColumnValueFilter('f', 'zz', =, "
                    "'binary:1', true, true)")
                .size(),
            5u);
}

TEST(FilterCellsTest, WhileEndsTheScanAtTheFirstFailure) {
  StatusOr<Filter> f = ParseFilter("WHILE RowFilter(<, 'binary:r3')");
  ASSERT_TRUE(f.ok());
  FilterScan scan(*f);
  for (const char* key : {"r1", "r2"}) {
    FilterScan::Result r = scan.Next(MakeRow(key, {{"f:a", "1"}}));
    EXPECT_TRUE(r.row) << key;
    EXPECT_FALSE(r.ends_scan) << key;
  }
  FilterScan::Result r3 = scan.Next(MakeRow("r3", {{"f:a", "1"}}));
  EXPECT_FALSE(r3.row);
  EXPECT_TRUE(r3.ends_scan);
  // Tripped mid-row: the cells before stay, and the scan ends after it.
  f = ParseFilter("WHILE ValueFilter(!=, 'binary:cherry')");
  ASSERT_TRUE(f.ok());
  FilterScan mid(*f);
  FilterScan::Result m = mid.Next(kRow);
  ASSERT_TRUE(m.row);
  EXPECT_EQ(m.row->cells.size(), 2u);
  EXPECT_TRUE(m.ends_scan);
}

TEST(FilterCellsTest, ReversedScansPassPrefixesDownwards) {
  StatusOr<Filter> f = ParseFilter("PrefixFilter('b')");
  ASSERT_TRUE(f.ok());
  FilterScan scan(*f, /*reversed=*/true);
  EXPECT_TRUE(scan.Next(MakeRow("c1", {{"f:a", "1"}})).row == std::nullopt);
  EXPECT_FALSE(scan.Next(MakeRow("c1", {{"f:a", "1"}})).ends_scan);
  EXPECT_TRUE(scan.Next(MakeRow("b2", {{"f:a", "1"}})).row);
  FilterScan::Result a = scan.Next(MakeRow("a9", {{"f:a", "1"}}));
  EXPECT_FALSE(a.row);
  EXPECT_TRUE(a.ends_scan);
}

TEST(FilterCellsTest, ListsAreCellLevel) {
  EXPECT_EQ(Columns("ValueFilter(=, 'binary:apple') OR "
                    "FamilyFilter(=, 'binary:g')"),
            V({"f:a", "g:a", "g:d"}));
  // Formerly refused inside OR: only the operands that included a cell
  // transform it (here KeyOnlyFilter empties every value).
  StatusOr<Filter> f = ParseFilter("PrefixFilter('x') OR KeyOnlyFilter()");
  ASSERT_TRUE(f.ok());
  std::optional<Row> out = ApplyFilter(*f, kRow);
  ASSERT_TRUE(out);
  for (const Cell& c : out->cells) EXPECT_EQ(c.value, "") << c.column;
  // Formerly refused with a SingleColumnValueFilter: FirstKeyOnlyFilter's
  // NEXT_ROW at f:b hides the column from a later operand, whose filterRow
  // then drops the row; in the other order the column is seen first.
  EXPECT_EQ(Columns("FirstKeyOnlyFilter() AND SingleColumnValueFilter('f', "
                    "'b', =, 'binary:Banana', true, true)"),
            V({"-"}));
  EXPECT_EQ(Columns("SingleColumnValueFilter('f', 'b', =, 'binary:Banana', "
                    "true, true) AND FirstKeyOnlyFilter()"),
            V({"f:a"}));
  // ColumnPrefixFilter's hint skips f:a and f:b for the whole OR only
  // when every operand hints.
  EXPECT_EQ(Columns("ColumnPrefixFilter('c') OR ColumnPrefixFilter('d')"),
            V({"f:c", "g:d"}));
}

}  // namespace
}  // namespace bloomroute
