// ops/html.h: escaping, the page's structure, and the cell formatters.
#include "ops/html.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <string>

namespace bloomroute::ops {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;
using ::testing::StartsWith;

// How often `needle` occurs in `hay`.
size_t Count(const std::string& hay, const std::string& needle) {
  size_t n = 0;
  for (size_t at = hay.find(needle); at != std::string::npos;
       at = hay.find(needle, at + needle.size())) {
    ++n;
  }
  return n;
}

class HtmlPageTest : public ::testing::Test {
 protected:
  // A page with a hostile title, section, key/value and table cells.
  std::string HostilePage() {
    HtmlPage page("server <b>&\"'", 0);
    page.Section("s", "<i>heading</i>")
        .KeyValues({{"<k>", "v&'\""}})
        .Table("t", {"<th>"}, {{"<script>alert(1)</script>"}})
        .Paragraph("a < b");
    return page.Finish();
  }
};

TEST_F(HtmlPageTest, EscapesTheFiveSpecialCharacters) {
  EXPECT_EQ(HtmlEscape("<a href=\"x\">'&'</a>"),
            "&lt;a href=&quot;x&quot;&gt;&#39;&amp;&#39;&lt;/a&gt;");
  EXPECT_EQ(HtmlEscape("plain text, ünïcode"), "plain text, ünïcode");
  EXPECT_EQ(HtmlEscape(""), "");
  EXPECT_EQ(HtmlEscape("&amp;"), "&amp;amp;");  // not taken for an entity
}

TEST_F(HtmlPageTest, EscapesEveryTextItIsGiven) {
  const std::string html = HostilePage();
  EXPECT_THAT(html, Not(HasSubstr("<script>")));
  EXPECT_THAT(html, Not(HasSubstr("<b>")));
  EXPECT_THAT(html, Not(HasSubstr("<i>")));
  EXPECT_THAT(html, Not(HasSubstr("<k>")));
  EXPECT_THAT(html,
              HasSubstr("<td>&lt;script&gt;alert(1)&lt;/script&gt;</td>"));
  EXPECT_THAT(html,
              HasSubstr("<title>server &lt;b&gt;&amp;&quot;&#39;</title>"));
  EXPECT_THAT(html, HasSubstr("<dt>&lt;k&gt;</dt><dd>v&amp;&#39;&quot;</dd>"));
  EXPECT_THAT(html, HasSubstr("<th>&lt;th&gt;</th>"));
  EXPECT_THAT(html, HasSubstr("<p>a &lt; b</p>"));
}

TEST_F(HtmlPageTest, WritesACompleteDocumentThatFitsAPhone) {
  HtmlPage page("bloomroute region server 127.0.0.1:9091");
  const std::string html = page.Finish();
  EXPECT_THAT(html, StartsWith("<!DOCTYPE html>\n<html lang=\"en\">"));
  EXPECT_THAT(html, HasSubstr("<meta charset=\"utf-8\">"));
  EXPECT_THAT(html,
              HasSubstr("<meta name=\"viewport\" content=\"width=device-width, "
                        "initial-scale=1\">"));
  EXPECT_THAT(html,
              HasSubstr("<h1>bloomroute region server 127.0.0.1:9091</h1>"));
  EXPECT_THAT(html, HasSubstr("<style>"));
  EXPECT_THAT(html, HasSubstr(".scroll{overflow-x:auto"));
  EXPECT_THAT(html, HasSubstr("max-width:"));
  EXPECT_THAT(html, HasSubstr("font-family:system-ui"));
  EXPECT_THAT(html, Not(HasSubstr("http-equiv")));  // no refresh asked for
  EXPECT_THAT(html, Not(HasSubstr("<script")));
  EXPECT_EQ(Count(html, "<html"), 1u);
  EXPECT_THAT(html, ::testing::EndsWith("</body>\n</html>\n"));
}

TEST_F(HtmlPageTest, RefreshesWhenAsked) {
  HtmlPage page("p", 15);
  const std::string html = page.Finish();
  EXPECT_THAT(html, HasSubstr("<meta http-equiv=\"refresh\" content=\"15\">"));
  EXPECT_THAT(html, HasSubstr("Refreshes every 15 s"));
  HtmlPage negative("p", -3);
  EXPECT_THAT(negative.Finish(), Not(HasSubstr("http-equiv")));
}

TEST_F(HtmlPageTest, SectionsHaveIdsAndAreListedInTheNavigation) {
  HtmlPage page("p");
  page.Section("summary", "Summary").Paragraph("x");
  page.Section("region-list", "Regions").Paragraph("y");
  const std::string html = page.Finish();
  EXPECT_THAT(html, HasSubstr("<h2 id=\"summary\">Summary</h2>"));
  EXPECT_THAT(html, HasSubstr("<h2 id=\"region-list\">Regions</h2>"));
  EXPECT_THAT(html, HasSubstr("<nav><a href=\"#summary\">Summary</a>"
                              "<a href=\"#region-list\">Regions</a></nav>"));
  // Each section is closed once, the second by Finish.
  EXPECT_EQ(Count(html, "<section>"), 2u);
  EXPECT_EQ(Count(html, "</section>"), 2u);
  EXPECT_LT(html.find("<p>x</p>"), html.find("<h2 id=\"region-list\""));
}

TEST_F(HtmlPageTest, TablesHaveAnIdAScrollWrapperAndOneCellPerHeader) {
  HtmlPage page("p");
  page.Table("regions", {"id", "table"},
             {{"1", "places"}, {"2"}, {"3", "other", "extra"}});
  const std::string html = page.Finish();
  EXPECT_THAT(html, HasSubstr("<div class=\"scroll\"><table id=\"regions\">"));
  EXPECT_THAT(html, HasSubstr("<thead><tr><th>id</th><th>table</th></tr>"));
  EXPECT_THAT(html, HasSubstr("<tr><td>1</td><td>places</td></tr>"));
  EXPECT_THAT(html, HasSubstr("<tr><td>2</td><td></td></tr>"));  // padded
  EXPECT_THAT(html, HasSubstr("<tr><td>3</td><td>other</td></tr>"));
  EXPECT_THAT(html, Not(HasSubstr("extra")));
  EXPECT_EQ(Count(html, "<tr>"), 4u);
}

TEST_F(HtmlPageTest, AnEmptyTableSaysNone) {
  HtmlPage page("p");
  page.Table("filter", {"stage", "fill", "fpr"}, {});
  EXPECT_THAT(page.Finish(),
              HasSubstr("<td class=\"empty\" colspan=\"3\">none</td>"));
}

TEST_F(HtmlPageTest, RawMarkupIsWrittenAsIs) {
  HtmlPage page("p");
  page.Raw("<a href=\"/metrics\">metrics</a>");
  EXPECT_THAT(page.Finish(), HasSubstr("<a href=\"/metrics\">metrics</a>"));
}

TEST_F(HtmlPageTest, PrintableBytesKeepsKeysDistinctAndPrintable) {
  EXPECT_EQ(PrintableBytes("row-01"), "row-01");
  EXPECT_EQ(PrintableBytes(std::string("a\0b\xff", 4)), "a\\x00b\\xFF");
  EXPECT_EQ(PrintableBytes("a\\x00"), "a\\x5Cx00");  // not taken for a byte
  EXPECT_EQ(PrintableBytes("\n\t"), "\\x0A\\x09");
  EXPECT_EQ(PrintableBytes("abcdef", 3), "abc...");
  EXPECT_EQ(PrintableBytes("abc", 3), "abc");
  EXPECT_EQ(PrintableBytes(""), "");
}

TEST_F(HtmlPageTest, FormatsBytesDurationsCountsAndRatios) {
  EXPECT_EQ(FormatBytes(0), "0 B");
  EXPECT_EQ(FormatBytes(1023), "1023 B");
  EXPECT_EQ(FormatBytes(1536), "1.5 KiB");
  EXPECT_EQ(FormatBytes(200ull << 20), "200 MiB");
  EXPECT_EQ(FormatBytes(3ull << 40), "3.0 TiB");
  EXPECT_EQ(FormatBytes(5000ull << 40), "5000 TiB");
  EXPECT_EQ(FormatDuration(0), "0s");
  EXPECT_EQ(FormatDuration(-5), "0s");
  EXPECT_EQ(FormatDuration(59), "59s");
  EXPECT_EQ(FormatDuration(3725), "1h 2m 5s");
  EXPECT_EQ(FormatDuration(93784), "1d 2h 3m 4s");
  EXPECT_EQ(FormatDuration(86400), "1d 0h 0m 0s");
  EXPECT_EQ(FormatCount(0), "0");
  EXPECT_EQ(FormatCount(999), "999");
  EXPECT_EQ(FormatCount(1000), "1,000");
  EXPECT_EQ(FormatCount(1234567), "1,234,567");
  EXPECT_EQ(FormatRatio(0), "0");
  EXPECT_EQ(FormatRatio(0.25), "0.25");
  EXPECT_EQ(FormatRatio(0.000123), "1.23e-04");
  EXPECT_EQ(FormatRatio(1.0 / 3), "0.333");
}

TEST_F(HtmlPageTest, ReadsTheRefreshParameter) {
  EXPECT_EQ(RefreshSecondsFromQuery(""), 0);
  EXPECT_EQ(RefreshSecondsFromQuery("refresh=5"), 5);
  EXPECT_EQ(RefreshSecondsFromQuery("a=b&refresh=10&c"), 10);
  EXPECT_EQ(RefreshSecondsFromQuery("refresh=0"), 0);
  EXPECT_EQ(RefreshSecondsFromQuery("refresh="), 0);
  EXPECT_EQ(RefreshSecondsFromQuery("refresh=-1"), 0);
  EXPECT_EQ(RefreshSecondsFromQuery("refresh=5s"), 0);
  EXPECT_EQ(RefreshSecondsFromQuery("refresh=999999"), 3600);
  EXPECT_EQ(RefreshSecondsFromQuery("refresh=99999999999999999999999"), 3600);
  EXPECT_EQ(RefreshSecondsFromQuery("norefresh=5"), 0);
}

}  // namespace
}  // namespace bloomroute::ops
