#include "lab/experiments/report.h"

#include <gtest/gtest.h>

namespace bloomroute::lab {
namespace {

class MarkdownTableTest : public ::testing::Test {};

TEST_F(MarkdownTableTest, RendersHeaderRuleAndRows) {
  MarkdownTable t({"a", "b"});
  t.AddRow({"1", "2"});
  EXPECT_EQ(t.ToMarkdown(), "| a | b |\n|---|---|\n| 1 | 2 |\n");
}

TEST_F(MarkdownTableTest, ReportListsNotesCaptionsAndTables) {
  LabReport r;
  r.title = "x: y";
  r.notes = {"n1"};
  r.table_captions = {"cap"};
  r.tables.push_back(MarkdownTable({"c"}));
  EXPECT_EQ(r.ToMarkdown(), "## x: y\n\n- n1\n\ncap\n\n| c |\n|---|\n\n");
}

TEST_F(MarkdownTableTest, FormatsNumbers) {
  EXPECT_EQ(FormatCount(0), "0");
  EXPECT_EQ(FormatCount(999), "999");
  EXPECT_EQ(FormatCount(1234567), "1,234,567");
  EXPECT_EQ(FormatFixed(1.23456, 2), "1.23");
  EXPECT_EQ(FormatSci(0.000123456), "1.23e-04");
  EXPECT_EQ(FormatSci(0), "0");
  EXPECT_EQ(Median({3, 1, 2}), 2);
  EXPECT_EQ(Median({4, 1, 2, 3}), 2.5);
}

TEST_F(MarkdownTableTest, LabKeysDependOnSeedStreamAndIndex) {
  EXPECT_EQ(LabKey(1, 1, 5), LabKey(1, 1, 5));
  EXPECT_NE(LabKey(1, 1, 5), LabKey(2, 1, 5));
  EXPECT_NE(LabKey(1, 1, 5), LabKey(1, 2, 5));
  EXPECT_NE(LabKey(1, 1, 5), LabKey(1, 1, 6));
}

}  // namespace
}  // namespace bloomroute::lab
