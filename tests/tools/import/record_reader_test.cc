#include "tools/import/record_reader.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <sstream>
#include <string>
#include <vector>

namespace bloomroute {
namespace {

using Fields = std::vector<std::string>;

// One record as read: its line, fields (when good) or error.
struct Read {
  uint64_t line;
  Fields fields;
  std::string error;
  friend bool operator==(const Read& a, const Read& b) {
    return a.line == b.line && a.fields == b.fields && a.error == b.error;
  }
  friend std::ostream& operator<<(std::ostream& os, const Read& r) {
    os << "{line " << r.line << ", " << ::testing::PrintToString(r.fields)
       << ", '" << r.error << "'}";
    return os;
  }
};

class RecordReaderTest : public ::testing::Test {
 protected:
  std::vector<Read> ReadAll(const std::string& text, InputFormat format,
                            size_t max_record_bytes = 1 << 20,
                            size_t max_fields = 100) {
    RecordReaderOptions options;
    options.format = format;
    options.max_record_bytes = max_record_bytes;
    options.max_fields = max_fields;
    return ReadWith(text, options);
  }
  std::vector<Read> ReadWith(const std::string& text,
                             const RecordReaderOptions& options) {
    std::istringstream in(text);
    RecordReader reader(&in, options);
    std::vector<Read> out;
    Record r;
    while (true) {
      StatusOr<bool> more = reader.Next(&r);
      EXPECT_TRUE(more.ok()) << more.status().ToString();
      if (!more.ok() || !*more) break;
      out.push_back({r.line, r.error.empty() ? r.fields : Fields{}, r.error});
    }
    EXPECT_EQ(reader.bytes_read(), text.size());
    return out;
  }
  std::vector<Read> Csv(const std::string& text, size_t max_bytes = 1 << 20) {
    return ReadAll(text, InputFormat::kCsv, max_bytes);
  }
  std::vector<Read> Tsv(const std::string& text, size_t max_bytes = 1 << 20) {
    return ReadAll(text, InputFormat::kTsv, max_bytes);
  }
};

TEST_F(RecordReaderTest, CsvPlainFieldsAndLineEnds) {
  EXPECT_EQ(
      Csv("a,b,c\n1,2,3\n"),
      (std::vector<Read>{{1, {"a", "b", "c"}, ""}, {2, {"1", "2", "3"}, ""}}));
  // CRLF, a last line without its line end, empty fields.
  EXPECT_EQ(Csv("a,,c\r\n,x,\r\nlast,1"),
            (std::vector<Read>{{1, {"a", "", "c"}, ""},
                               {2, {"", "x", ""}, ""},
                               {3, {"last", "1"}, ""}}));
  EXPECT_TRUE(Csv("").empty());
}

TEST_F(RecordReaderTest, CsvQuotesHoldSeparatorsQuotesAndNewlines) {
  EXPECT_EQ(Csv("\"a,b\",\"say \"\"hi\"\"\",\"\"\n"),
            (std::vector<Read>{{1, {"a,b", "say \"hi\"", ""}, ""}}));
  // A quoted field spans lines; the next record's line number counts them.
  EXPECT_EQ(Csv("1,\"two\nlines\r\nhere\",x\n2,y,z\n"),
            (std::vector<Read>{{1, {"1", "two\nlines\r\nhere", "x"}, ""},
                               {4, {"2", "y", "z"}, ""}}));
  // A quote inside an unquoted field is a literal byte.
  EXPECT_EQ(Csv("5\"9,x\n"), (std::vector<Read>{{1, {"5\"9", "x"}, ""}}));
  // A quoted last field at the end of input, with and without CRLF.
  EXPECT_EQ(Csv("a,\"b\"\r\nc,\"d\""),
            (std::vector<Read>{{1, {"a", "b"}, ""}, {2, {"c", "d"}, ""}}));
}

TEST_F(RecordReaderTest, CsvBadQuotesAreBadRecordsAndReadingGoesOn) {
  EXPECT_EQ(Csv("ok,1\n\"ab\"c,2\nok,3\n"),
            (std::vector<Read>{{1, {"ok", "1"}, ""},
                               {2, {}, "text after closing quote"},
                               {3, {"ok", "3"}, ""}}));
  // A quote never closed makes its own line bad; the lines after it are
  // read again as records, not swallowed.
  EXPECT_EQ(Csv("ok,1\nbad,\"open\nmore,2\n"),
            (std::vector<Read>{{1, {"ok", "1"}, ""},
                               {2, {}, "unterminated quote (opened on line 2)"},
                               {3, {"more", "2"}, ""}}));
}

// One stray quote must cost one line, not the rest of the file: whether the
// quote is never closed, closed by another line's quote (then followed by
// text), or the quoted span passes --max-quoted-lines or --max-field-bytes.
TEST_F(RecordReaderTest, StrayQuoteCostsItsLineOnly) {
  std::string text = "id,name\n1,a\n2,\"stray\n";
  std::vector<Read> want = {{1, {"id", "name"}, ""},
                            {2, {"1", "a"}, ""},
                            {3,
                             {},
                             "quote opened on line 3 not closed "
                             "within 100 lines (--max-quoted-lines)"}};
  for (int i = 4; i <= 2000; ++i) {
    text += std::to_string(i) + ",n" + std::to_string(i) + "\n";
    want.push_back({static_cast<uint64_t>(i),
                    {std::to_string(i), "n" + std::to_string(i)},
                    ""});
  }
  EXPECT_EQ(Csv(text), want);
  // A later well-quoted field closes the stray quote: "text after closing
  // quote" there, but the lines between are records again.
  EXPECT_EQ(Csv("1,\"x\n2,y\n3,\"z\"\n4,w\n"),
            (std::vector<Read>{
                {1, {}, "text after closing quote (quote opened on line 1)"},
                {2, {"2", "y"}, ""},
                {3, {"3", "z"}, ""},
                {4, {"4", "w"}, ""}}));
}

TEST_F(RecordReaderTest, QuotedSpanIsCappedInLinesAndBytes) {
  RecordReaderOptions options;
  options.format = InputFormat::kCsv;
  options.max_quoted_lines = 3;
  // Within the cap: a field of 3 line ends is one record.
  EXPECT_EQ(
      ReadWith("1,\"a\nb\nc\nd\"\n2,e\n", options),
      (std::vector<Read>{{1, {"1", "a\nb\nc\nd"}, ""}, {5, {"2", "e"}, ""}}));
  // Over it: bad at the quote's line, and the lines after are read again.
  EXPECT_EQ(
      ReadWith("1,\"a\nb\nc\nd\ne\n2,f\n", options),
      (std::vector<Read>{{1,
                          {},
                          "quote opened on line 1 not closed within 3 lines "
                          "(--max-quoted-lines)"},
                         {2, {"b"}, ""},
                         {3, {"c"}, ""},
                         {4, {"d"}, ""},
                         {5, {"e"}, ""},
                         {6, {"2", "f"}, ""}}));
  options.max_quoted_lines = 1000;
  options.max_field_bytes = 8;
  EXPECT_EQ(
      ReadWith("1,\"12345678\"\n2,\"123456789\"\n3,\"1\n23456789\n4,x\n",
               options),
      (std::vector<Read>{{1, {"1", "12345678"}, ""},
                         {2, {}, "field over 8 bytes (--max-field-bytes)"},
                         {3,
                          {},
                          "quote opened on line 3 not closed within 8 bytes "
                          "(--max-field-bytes)"},
                         {4, {"23456789"}, ""},
                         {5, {"4", "x"}, ""}}));
  // Unquoted fields and TSV are capped too.
  options.format = InputFormat::kTsv;
  EXPECT_EQ(
      ReadWith("123456789\tx\ny\tz\n", options),
      (std::vector<Read>{{1, {}, "field over 8 bytes (--max-field-bytes)"},
                         {2, {"y", "z"}, ""}}));
}

TEST_F(RecordReaderTest, TsvTreatsQuotesLiterally) {
  EXPECT_EQ(Tsv("1\t\"Quoted\" name\tx\"y\r\n2\t\"\t\n"),
            (std::vector<Read>{{1, {"1", "\"Quoted\" name", "x\"y"}, ""},
                               {2, {"2", "\"", ""}, ""}}));
  // A comma is data in TSV; a lone CR inside a field too.
  EXPECT_EQ(Tsv("a,b\tc\rd\n"), (std::vector<Read>{{1, {"a,b", "c\rd"}, ""}}));
}

TEST_F(RecordReaderTest, EmptyLinesAreSkippedButCounted) {
  EXPECT_EQ(Tsv("\n\r\na\tb\n\n\nc\td\n\n"),
            (std::vector<Read>{{3, {"a", "b"}, ""}, {6, {"c", "d"}, ""}}));
}

TEST_F(RecordReaderTest, Utf8BytesPassThroughAndALeadingBomIsDropped) {
  const std::string oslo = "\xc3\x98sl\xc3\xb8";  // "Øslø"
  EXPECT_EQ(Tsv("\xEF\xBB\xBFid\tname\n1\t" + oslo + "\n"),
            (std::vector<Read>{{1, {"id", "name"}, ""}, {2, {"1", oslo}, ""}}));
  // Only at the very start; elsewhere a BOM is data.
  EXPECT_EQ(Csv("a,\xEF\xBB\xBF\n"),
            (std::vector<Read>{{1, {"a", "\xEF\xBB\xBF"}, ""}}));
}

TEST_F(RecordReaderTest, OversizedRecordsAreBadAndTheNextIsReadWhole) {
  const std::string big(50, 'x');
  EXPECT_EQ(Tsv("a\tb\n" + big + "\tc\nd\te\n", 20),
            (std::vector<Read>{{1, {"a", "b"}, ""},
                               {2, {}, "record over 20 bytes"},
                               {3, {"d", "e"}, ""}}));
  // A quoted field over the limit keeps its record boundary.
  EXPECT_EQ(Csv("\"" + big + "\n" + big + "\",1\nok,2\n", 20),
            (std::vector<Read>{{1, {}, "record over 20 bytes"},
                               {3, {"ok", "2"}, ""}}));
  // Exactly at the limit is fine: 20 bytes of content and separator.
  EXPECT_EQ(Tsv(std::string(10, 'a') + "\t" + std::string(9, 'b') + "\n", 20),
            (std::vector<Read>{
                {1, {std::string(10, 'a'), std::string(9, 'b')}, ""}}));
  // An unterminated quote explains a huge record better than its size.
  EXPECT_EQ(
      Csv("\"" + big, 20),
      (std::vector<Read>{{1, {}, "unterminated quote (opened on line 1)"}}));
}

TEST_F(RecordReaderTest, TooManyFieldsIsBad) {
  EXPECT_EQ(
      ReadAll("a\tb\tc\nd\te\n", InputFormat::kTsv, 1 << 20, 2),
      (std::vector<Read>{{1, {}, "more than 2 fields"}, {2, {"d", "e"}, ""}}));
}

TEST_F(RecordReaderTest, LargeInputCrossesBufferBoundaries) {
  std::string text;
  for (int i = 0; i < 20000; ++i) {
    text += std::to_string(i) + ",\"v,\"\"" + std::to_string(i) + "\"\n";
  }
  const std::vector<Read> all = Csv(text);
  ASSERT_EQ(all.size(), 20000u);
  EXPECT_EQ(all[12345], (Read{12346, {"12345", "v,\"12345"}, ""}));
}

TEST_F(RecordReaderTest, OpenFileNamesAMissingFile) {
  auto reader = RecordReader::OpenFile("/nonexistent/in.csv", {});
  ASSERT_FALSE(reader.ok());
  EXPECT_TRUE(reader.status().IsIOError());
  EXPECT_THAT(reader.status().message(), ::testing::HasSubstr("in.csv"));
}

}  // namespace
}  // namespace bloomroute
