#include "lab/experiments/report.h"

#include <algorithm>
#include <cmath>
#include <cstdio>

#include "common/coding.h"

namespace bloomroute::lab {

std::string MarkdownTable::ToMarkdown() const {
  std::string out = "|";
  for (const auto& h : header_) out += " " + h + " |";
  out += "\n|";
  for (size_t c = 0; c < header_.size(); ++c) out += "---|";
  out += "\n";
  for (const auto& row : rows_) {
    out += "|";
    for (const auto& cell : row) out += " " + cell + " |";
    out += "\n";
  }
  return out;
}

std::string LabReport::ToMarkdown() const {
  std::string out = "## " + title + "\n\n";
  for (const auto& n : notes) out += "- " + n + "\n";
  if (!notes.empty()) out += "\n";
  for (size_t t = 0; t < tables.size(); ++t) {
    if (t < table_captions.size() && !table_captions[t].empty()) {
      out += table_captions[t] + "\n\n";
    }
    out += tables[t].ToMarkdown() + "\n";
  }
  return out;
}

std::string FormatCount(uint64_t v) {
  std::string digits = std::to_string(v), out;
  for (size_t i = 0; i < digits.size(); ++i) {
    if (i > 0 && (digits.size() - i) % 3 == 0) out += ',';
    out += digits[i];
  }
  return out;
}

std::string FormatFixed(double v, int digits) {
  char buf[64];
  std::snprintf(buf, sizeof(buf), "%.*f", digits, v);
  return buf;
}

std::string FormatSci(double v) {
  if (v == 0.0) return "0";
  if (std::isnan(v)) return "n/a";
  char buf[64];
  std::snprintf(buf, sizeof(buf), "%.2e", v);
  return buf;
}

ElementHash LabKey(uint64_t seed, uint64_t stream, uint64_t i) {
  char buf[8];
  EncodeFixed64(buf, i);
  return HashElement(seed, stream, std::string_view(buf, sizeof(buf)));
}

double Median(std::vector<double> values) {
  std::sort(values.begin(), values.end());
  const size_t n = values.size();
  return n % 2 == 1 ? values[n / 2] : (values[n / 2 - 1] + values[n / 2]) / 2;
}

}  // namespace bloomroute::lab
