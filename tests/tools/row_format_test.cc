#include "tools/row_format.h"

#include <gtest/gtest.h>

#include <sstream>
#include <string>
#include <vector>

namespace bloomroute {
namespace {

class RowFormatTest : public ::testing::Test {
 protected:
  std::string Print(RowFormat format,
                    const std::vector<std::string>& columns) const {
    std::ostringstream out;
    PrintRows(rows_, columns, format, out);
    return out.str();
  }

  std::vector<Row> rows_ = {
      Row{"lund", {{"d:cc", "SE"}, {"d:name", "Lund"}}},
      Row{"oslo", {{"d:cc", "NO"}, {"d:name", "Oslo, \"city\""}, {"e:x", "1"}}},
  };
};

TEST_F(RowFormatTest, ParsesFormatNames) {
  EXPECT_EQ(*ParseRowFormat("table"), RowFormat::kTable);
  EXPECT_EQ(*ParseRowFormat("csv"), RowFormat::kCsv);
  EXPECT_EQ(*ParseRowFormat("json"), RowFormat::kJson);
  EXPECT_TRUE(ParseRowFormat("xml").status().IsInvalidArgument());
  EXPECT_TRUE(ParseRowFormat("").status().IsInvalidArgument());
}

TEST_F(RowFormatTest, ColumnsFollowTheProjectionThenSortedOthers) {
  EXPECT_EQ(ColumnsToPrint(rows_, {}),
            (std::vector<std::string>{"d:cc", "d:name", "e:x"}));
  EXPECT_EQ(ColumnsToPrint(rows_, {"e:x", "d:zz", "d"}),
            (std::vector<std::string>{"e:x", "d:zz", "d:cc", "d:name"}));
  EXPECT_TRUE(ColumnsToPrint({}, {"d"}).empty());
}

TEST_F(RowFormatTest, TableAlignsColumnsAndCountsRows) {
  EXPECT_EQ(Print(RowFormat::kTable, {"d:cc", "e:x"}),
            " row  | d:cc | e:x\n"
            "------+------+-----\n"
            " lund | SE   |\n"
            " oslo | NO   | 1\n"
            "(2 rows)\n");
  rows_.resize(1);
  EXPECT_EQ(Print(RowFormat::kTable, {}),
            " row\n"
            "------\n"
            " lund\n"
            "(1 row)\n");
  rows_.clear();
  EXPECT_EQ(Print(RowFormat::kTable, {"d:cc"}),
            " row | d:cc\n-----+------\n(0 rows)\n");
}

TEST_F(RowFormatTest, TableShowsEveryByteOnOneLine) {
  EXPECT_EQ(TableField("plain"), "plain");
  EXPECT_EQ(TableField("a\nb\tc"), "a\\x0ab\\x09c");
  EXPECT_EQ(TableField("back\\slash"), "back\\\\slash");
  EXPECT_EQ(TableField("\xc3\xa6\xc3\xb8"), "\xc3\xa6\xc3\xb8");  // æø kept
  EXPECT_EQ(TableField(std::string("\xff\x00\x7f", 3)), "\\xff\\x00\\x7f");
  // Aligned by characters, not bytes.
  rows_ = {Row{"\xc3\xa6", {}}, Row{"ab", {}}};
  EXPECT_EQ(Print(RowFormat::kTable, {}),
            " row\n-----\n \xc3\xa6\n ab\n(2 rows)\n");
}

TEST_F(RowFormatTest, CsvQuotesAsRfc4180) {
  EXPECT_EQ(Print(RowFormat::kCsv, {"d:cc", "d:name", "e:x"}),
            "row,d:cc,d:name,e:x\r\n"
            "lund,SE,Lund,\r\n"
            "oslo,NO,\"Oslo, \"\"city\"\"\",1\r\n");
  EXPECT_EQ(CsvField("a\nb"), "\"a\nb\"");
  EXPECT_EQ(CsvField("a\rb"), "\"a\rb\"");
  EXPECT_EQ(CsvField(""), "");
  EXPECT_EQ(CsvField(std::string("\xff\x00", 2)), std::string("\xff\x00", 2));
}

TEST_F(RowFormatTest, JsonLinesOmitMissingColumns) {
  EXPECT_EQ(Print(RowFormat::kJson, {"d:name", "e:x"}),
            "{\"row\":\"lund\",\"d:name\":\"Lund\"}\n"
            "{\"row\":\"oslo\",\"d:name\":\"Oslo, \\\"city\\\"\","
            "\"e:x\":\"1\"}\n");
  rows_.clear();
  EXPECT_EQ(Print(RowFormat::kJson, {"d:cc"}), "");
}

TEST_F(RowFormatTest, JsonEscapesControlAndInvalidBytes) {
  EXPECT_EQ(JsonString("a\"b\\c"), "\"a\\\"b\\\\c\"");
  EXPECT_EQ(JsonString("\n\r\t"), "\"\\n\\r\\t\"");
  EXPECT_EQ(JsonString(std::string("\x00\x1f\x7f", 3)),
            "\"\\u0000\\u001f\\u007f\"");
  EXPECT_EQ(JsonString("\xe2\x82\xac"), "\"\xe2\x82\xac\"");  // € kept
  EXPECT_EQ(JsonString("\xff\xe2\x82"), "\"\\u00ff\\u00e2\\u0082\"");
}

TEST_F(RowFormatTest, Utf8ValidationRejectsMalformedSequences) {
  EXPECT_EQ(Utf8SequenceLength("a", 0), 1u);
  EXPECT_EQ(Utf8SequenceLength("\xc3\xa6", 0), 2u);
  EXPECT_EQ(Utf8SequenceLength("\xe2\x82\xac", 0), 3u);
  EXPECT_EQ(Utf8SequenceLength("\xf0\x9f\x98\x80", 0), 4u);
  EXPECT_EQ(Utf8SequenceLength("\x80", 0), 0u);              // continuation
  EXPECT_EQ(Utf8SequenceLength("\xc0\xaf", 0), 0u);          // overlong
  EXPECT_EQ(Utf8SequenceLength("\xe0\x80\xaf", 0), 0u);      // overlong
  EXPECT_EQ(Utf8SequenceLength("\xf0\x80\x80\xaf", 0), 0u);  // overlong
  EXPECT_EQ(Utf8SequenceLength("\xed\xa0\x80", 0), 0u);      // surrogate
  EXPECT_EQ(Utf8SequenceLength("\xf4\x90\x80\x80", 0), 0u);  // > U+10FFFF
  EXPECT_EQ(Utf8SequenceLength("\xe2\x82", 0), 0u);          // cut short
  EXPECT_EQ(Utf8SequenceLength("\xc3x", 0), 0u);
}

}  // namespace
}  // namespace bloomroute
