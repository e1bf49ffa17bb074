// Server-rendered HTML for the /status pages every bloomroute process
// serves: one complete HTML5 document per request, no script, no framework,
// a small inline stylesheet that reads on a phone (system font, a bounded
// width, tables that scroll sideways inside their own wrapper).
//
// Everything given as text is escaped; only HtmlPage::Raw takes markup.
// Section headings and tables carry `id` attributes so that a reader (or a
// browser test) can find them, e.g. `<table id="regions">`; an id names one
// element, so a section and its table need two ("region-list", "regions").
//
// Example:
//   HtmlPage page("bloomroute region server 127.0.0.1:9091", refresh);
//   page.Section("summary", "Summary")
//       .KeyValues({{"Uptime", FormatDuration(3725)}, {"Rows", "12"}});
//   page.Section("region-list", "Regions")
//       .Table("regions", {"id", "table"}, {{"1", "places"}});
//   std::string html = page.Finish();
//
// Thread-safety: the functions are pure; an HtmlPage is one request's and
// must not be shared between threads.
#ifndef BLOOMROUTE_OPS_HTML_H_
#define BLOOMROUTE_OPS_HTML_H_

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace bloomroute::ops {

// `text` safe in element content and in quoted attribute values: & < > " '
// become &amp; &lt; &gt; &quot; &#39;. Other bytes are kept (the page is
// UTF-8; bytes that are not are the browser's to replace).
std::string HtmlEscape(std::string_view text);

// Bytes (a row key, a value) as printable ASCII, as HBase's
// Bytes.toStringBinary writes them: printable characters kept, a backslash
// and every other byte as \xNN (upper-case hex), so distinct keys stay
// distinct. At most `max_bytes` input bytes are shown; a longer input ends
// in "..." after them. Not escaped for HTML (HtmlPage escapes its text).
std::string PrintableBytes(std::string_view bytes, size_t max_bytes = 256);

// 1536 -> "1.5 KiB"; below 1 KiB the exact count ("512 B"); binary units up
// to TiB with one decimal (three significant digits or fewer).
std::string FormatBytes(uint64_t bytes);
// 93784 -> "1d 2h 3m 4s", 3725 -> "1h 2m 5s": days, hours, minutes and
// seconds from the largest non-zero unit down; "0s" for 0 or less.
std::string FormatDuration(int64_t seconds);
// 1234567 -> "1,234,567".
std::string FormatCount(uint64_t n);
// 0.000123 -> "1.23e-04", 0.25 -> "0.25": a ratio or probability in at
// most three significant digits; fixed notation in [0.001, 1000).
std::string FormatRatio(double value);

// The auto-refresh interval a status page's query asks for: N from a
// "refresh=N" parameter (e.g. "refresh=5" or "a=b&refresh=10"), clamped to
// [1, 3600]; 0 (no refresh) when the parameter is absent, empty, not a
// number, or 0.
int RefreshSecondsFromQuery(std::string_view query);

// A key/value list: (label, value), both text.
using KeyValueList = std::vector<std::pair<std::string, std::string>>;

// One HTML5 document being written: the header names the process, then
// sections in order, each a heading with content. Finish() returns the
// document with a table of contents linking to the sections.
class HtmlPage {
 public:
  // `title` goes in <title> and the page's <h1> (e.g. "bloomroute region
  // server 127.0.0.1:9091"). With refresh_seconds > 0 the page has
  // <meta http-equiv="refresh" content="N"> and says it refreshes.
  explicit HtmlPage(std::string_view title, int refresh_seconds = 0);
  HtmlPage(const HtmlPage&) = delete;
  HtmlPage& operator=(const HtmlPage&) = delete;

  // Starts a section: <section><h2 id="`id`">`heading`</h2>, closing the
  // one open. `id` should be letters, digits, '-' and '_' (it is escaped
  // whatever it is) and unique on the page.
  HtmlPage& Section(std::string_view id, std::string_view heading);
  // A <dl class="kv"> of the pairs, in order.
  HtmlPage& KeyValues(const KeyValueList& items);
  // A <table id="`id`"> with one header row and a row per entry of `rows`,
  // inside a <div class="scroll"> that scrolls sideways on a narrow
  // screen. Each row is given headers.size() cells: extra cells are
  // dropped, missing ones left empty. No rows: one row saying "none".
  HtmlPage& Table(std::string_view id, const std::vector<std::string>& headers,
                  const std::vector<std::vector<std::string>>& rows);
  // A <p> of text.
  HtmlPage& Paragraph(std::string_view text);
  // Markup written as is: the caller's to make safe.
  HtmlPage& Raw(std::string_view html);

  // The complete document. The page is spent afterwards (calls append to a
  // document already returned).
  std::string Finish();

 private:
  void CloseSection();

  std::string title_;
  int refresh_seconds_;
  std::vector<std::pair<std::string, std::string>> sections_;  // id, heading
  std::string body_;
  bool section_open_ = false;
};

}  // namespace bloomroute::ops

#endif  // BLOOMROUTE_OPS_HTML_H_
