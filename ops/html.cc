#include "ops/html.h"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstdio>

namespace bloomroute::ops {
namespace {

// Small enough to send with every page (about 1 KB): a status page must
// work without any other request. Tables sit in a .scroll wrapper so a
// wide table scrolls on its own instead of widening the whole page; the
// system font and a max width keep text readable from phone to desktop;
// color-scheme lets the browser follow a dark setting.
constexpr std::string_view kStyle =
    ":root{color-scheme:light dark}"
    "body{font-family:system-ui,-apple-system,'Segoe UI',Roboto,sans-serif;"
    "max-width:72rem;margin:0 auto;padding:0 1rem 2rem;line-height:1.4}"
    "h1{font-size:1.35rem;margin:1rem 0 .25rem;overflow-wrap:anywhere}"
    "h2{font-size:1.1rem;margin:1.5rem 0 .5rem;"
    "border-bottom:1px solid #8884}"
    "nav a{margin-right:.8rem;white-space:nowrap}"
    ".meta{color:#888;margin:0}"
    ".scroll{overflow-x:auto;-webkit-overflow-scrolling:touch}"
    "table{border-collapse:collapse;font-variant-numeric:tabular-nums}"
    "th,td{padding:.25rem .6rem;border-bottom:1px solid #8883;"
    "text-align:left;white-space:nowrap;vertical-align:top}"
    "td.empty{color:#888;font-style:italic}"
    "dl.kv{display:grid;grid-template-columns:max-content 1fr;"
    "gap:.2rem 1rem;margin:0}"
    "dl.kv dt{font-weight:600}"
    "dl.kv dd{margin:0;overflow-wrap:anywhere;"
    "font-variant-numeric:tabular-nums}";

void AppendEscaped(std::string_view text, std::string* out) {
  for (char c : text) {
    switch (c) {
      case '&':
        *out += "&amp;";
        break;
      case '<':
        *out += "&lt;";
        break;
      case '>':
        *out += "&gt;";
        break;
      case '"':
        *out += "&quot;";
        break;
      case '\'':
        *out += "&#39;";
        break;
      default:
        out->push_back(c);
    }
  }
}

// <tag>escaped text</tag>
void AppendElement(std::string_view tag, std::string_view text,
                   std::string* out) {
  *out += '<';
  *out += tag;
  *out += '>';
  AppendEscaped(text, out);
  *out += "</";
  *out += tag;
  *out += '>';
}

}  // namespace

std::string HtmlEscape(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  AppendEscaped(text, &out);
  return out;
}

std::string PrintableBytes(std::string_view bytes, size_t max_bytes) {
  static constexpr char kHex[] = "0123456789ABCDEF";
  std::string out;
  const std::string_view shown = bytes.substr(0, max_bytes);
  for (unsigned char c : shown) {
    if (c >= 0x20 && c < 0x7f && c != '\\') {
      out.push_back(static_cast<char>(c));
    } else {
      out += "\\x";
      out.push_back(kHex[c >> 4]);
      out.push_back(kHex[c & 0xf]);
    }
  }
  if (shown.size() < bytes.size()) out += "...";
  return out;
}

std::string FormatBytes(uint64_t bytes) {
  static constexpr const char* kUnits[] = {"KiB", "MiB", "GiB", "TiB"};
  if (bytes < 1024) return std::to_string(bytes) + " B";
  double value = static_cast<double>(bytes) / 1024;
  size_t unit = 0;
  while (value >= 1024 && unit + 1 < std::size(kUnits)) {
    value /= 1024;
    ++unit;
  }
  char buf[32];
  snprintf(buf, sizeof(buf), value < 100 ? "%.1f %s" : "%.0f %s", value,
           kUnits[unit]);
  return buf;
}

std::string FormatDuration(int64_t seconds) {
  if (seconds <= 0) return "0s";
  const int64_t parts[] = {seconds / 86400, seconds / 3600 % 24,
                           seconds / 60 % 60, seconds % 60};
  static constexpr const char* kUnits[] = {"d", "h", "m", "s"};
  std::string out;
  for (size_t i = 0; i < std::size(parts); ++i) {
    if (out.empty() && parts[i] == 0) continue;
    if (!out.empty()) out += ' ';
    out += std::to_string(parts[i]) + kUnits[i];
  }
  return out;
}

std::string FormatCount(uint64_t n) {
  const std::string digits = std::to_string(n);
  std::string out;
  for (size_t i = 0; i < digits.size(); ++i) {
    if (i != 0 && (digits.size() - i) % 3 == 0) out += ',';
    out += digits[i];
  }
  return out;
}

std::string FormatRatio(double value) {
  char buf[32];
  const double magnitude = std::fabs(value);
  if (value == 0 || (magnitude >= 0.001 && magnitude < 1000)) {
    snprintf(buf, sizeof(buf), "%.3g", value);
  } else {
    snprintf(buf, sizeof(buf), "%.2e", value);
  }
  return buf;
}

int RefreshSecondsFromQuery(std::string_view query) {
  constexpr std::string_view kKey = "refresh=";
  while (!query.empty()) {
    const size_t amp = query.find('&');
    std::string_view param = query.substr(0, amp);
    query = amp == std::string_view::npos ? "" : query.substr(amp + 1);
    if (param.substr(0, kKey.size()) != kKey) continue;
    const std::string_view value = param.substr(kKey.size());
    uint64_t n = 0;
    const auto [end, error] =
        std::from_chars(value.data(), value.data() + value.size(), n);
    if (error == std::errc::result_out_of_range) return 3600;
    if (error != std::errc() || end != value.data() + value.size()) return 0;
    return n == 0 ? 0 : static_cast<int>(std::min<uint64_t>(n, 3600));
  }
  return 0;
}

HtmlPage::HtmlPage(std::string_view title, int refresh_seconds)
    : title_(title), refresh_seconds_(std::max(refresh_seconds, 0)) {}

void HtmlPage::CloseSection() {
  if (section_open_) body_ += "</section>\n";
  section_open_ = false;
}

HtmlPage& HtmlPage::Section(std::string_view id, std::string_view heading) {
  CloseSection();
  sections_.emplace_back(id, heading);
  body_ += "<section>\n<h2 id=\"";
  AppendEscaped(id, &body_);
  body_ += "\">";
  AppendEscaped(heading, &body_);
  body_ += "</h2>\n";
  section_open_ = true;
  return *this;
}

HtmlPage& HtmlPage::KeyValues(const KeyValueList& items) {
  body_ += "<dl class=\"kv\">\n";
  for (const auto& [key, value] : items) {
    AppendElement("dt", key, &body_);
    AppendElement("dd", value, &body_);
    body_ += '\n';
  }
  body_ += "</dl>\n";
  return *this;
}

HtmlPage& HtmlPage::Table(std::string_view id,
                          const std::vector<std::string>& headers,
                          const std::vector<std::vector<std::string>>& rows) {
  body_ += "<div class=\"scroll\"><table id=\"";
  AppendEscaped(id, &body_);
  body_ += "\">\n<thead><tr>";
  for (const std::string& h : headers) AppendElement("th", h, &body_);
  body_ += "</tr></thead>\n<tbody>\n";
  for (const std::vector<std::string>& row : rows) {
    body_ += "<tr>";
    for (size_t i = 0; i < headers.size(); ++i) {
      AppendElement("td", i < row.size() ? row[i] : std::string(), &body_);
    }
    body_ += "</tr>\n";
  }
  if (rows.empty()) {
    body_ += "<tr><td class=\"empty\" colspan=\"" +
             std::to_string(std::max<size_t>(headers.size(), 1)) +
             "\">none</td></tr>\n";
  }
  body_ += "</tbody>\n</table></div>\n";
  return *this;
}

HtmlPage& HtmlPage::Paragraph(std::string_view text) {
  AppendElement("p", text, &body_);
  body_ += '\n';
  return *this;
}

HtmlPage& HtmlPage::Raw(std::string_view html) {
  body_ += html;
  return *this;
}

std::string HtmlPage::Finish() {
  CloseSection();
  std::string out =
      "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
      "<meta name=\"viewport\" content=\"width=device-width, "
      "initial-scale=1\">\n";
  if (refresh_seconds_ > 0) {
    out += "<meta http-equiv=\"refresh\" content=\"" +
           std::to_string(refresh_seconds_) + "\">\n";
  }
  AppendElement("title", title_, &out);
  out += "\n<style>";
  out += kStyle;
  out += "</style>\n</head>\n<body>\n<header>\n";
  AppendElement("h1", title_, &out);
  if (refresh_seconds_ > 0) {
    out += "\n<p class=\"meta\">Refreshes every " +
           std::to_string(refresh_seconds_) + " s</p>";
  }
  out += "\n<nav>";
  for (const auto& [id, heading] : sections_) {
    out += "<a href=\"#";
    AppendEscaped(id, &out);
    out += "\">";
    AppendEscaped(heading, &out);
    out += "</a>";
  }
  out += "</nav>\n</header>\n<main>\n";
  out += body_;
  out += "</main>\n</body>\n</html>\n";
  return out;
}

}  // namespace bloomroute::ops
