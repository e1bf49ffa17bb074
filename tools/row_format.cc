#include "tools/row_format.h"

#include <algorithm>
#include <cstdio>
#include <set>

namespace bloomroute {
namespace {

std::string HexByte(const char* prefix, unsigned char b) {
  char buf[8];
  std::snprintf(buf, sizeof(buf), "%s%02x", prefix, b);
  return buf;
}

bool IsContinuation(unsigned char b) { return (b & 0xC0) == 0x80; }

// Display width of escaped text: one per code point (wide characters are
// rare in keys and values; counting them as one keeps this dependency-free).
size_t DisplayWidth(std::string_view text) {
  size_t width = 0;
  for (char c : text) {
    if (!IsContinuation(static_cast<unsigned char>(c))) ++width;
  }
  return width;
}

std::string Pad(const std::string& text, size_t width) {
  const size_t w = DisplayWidth(text);
  return w >= width ? text : text + std::string(width - w, ' ');
}

void PrintTable(const std::vector<Row>& rows,
                const std::vector<std::string>& columns, std::ostream& out) {
  std::vector<std::vector<std::string>> grid;
  std::vector<std::string> header = {"row"};
  for (const std::string& c : columns) header.push_back(TableField(c));
  grid.push_back(header);
  for (const Row& row : rows) {
    std::vector<std::string> line = {TableField(row.key)};
    for (const std::string& c : columns) {
      const Cell* cell = row.Find(c);
      line.push_back(cell == nullptr ? "" : TableField(cell->value));
    }
    grid.push_back(std::move(line));
  }
  std::vector<size_t> widths(header.size(), 0);
  for (const auto& line : grid) {
    for (size_t i = 0; i < line.size(); ++i) {
      widths[i] = std::max(widths[i], DisplayWidth(line[i]));
    }
  }
  for (size_t r = 0; r < grid.size(); ++r) {
    std::string text;
    for (size_t i = 0; i < grid[r].size(); ++i) {
      text += (i == 0 ? " " : " | ") + Pad(grid[r][i], widths[i]);
    }
    // No trailing blanks after the last column.
    text.erase(text.find_last_not_of(' ') + 1);
    out << text << "\n";
    if (r == 0) {
      std::string rule;
      for (size_t i = 0; i < widths.size(); ++i) {
        rule += (i == 0 ? "" : "+") + std::string(widths[i] + 2, '-');
      }
      out << rule << "\n";
    }
  }
  out << "(" << rows.size() << (rows.size() == 1 ? " row)" : " rows)") << "\n";
}

void PrintCsv(const std::vector<Row>& rows,
              const std::vector<std::string>& columns, std::ostream& out) {
  out << "row";
  for (const std::string& c : columns) out << ',' << CsvField(c);
  out << "\r\n";
  for (const Row& row : rows) {
    out << CsvField(row.key);
    for (const std::string& c : columns) {
      const Cell* cell = row.Find(c);
      out << ',' << (cell == nullptr ? "" : CsvField(cell->value));
    }
    out << "\r\n";
  }
}

void PrintJson(const std::vector<Row>& rows,
               const std::vector<std::string>& columns, std::ostream& out) {
  for (const Row& row : rows) {
    out << "{\"row\":" << JsonString(row.key);
    for (const std::string& c : columns) {
      const Cell* cell = row.Find(c);
      if (cell != nullptr) {
        out << ',' << JsonString(c) << ':' << JsonString(cell->value);
      }
    }
    out << "}\n";
  }
}

}  // namespace

StatusOr<RowFormat> ParseRowFormat(std::string_view name) {
  if (name == "table") return RowFormat::kTable;
  if (name == "csv") return RowFormat::kCsv;
  if (name == "json") return RowFormat::kJson;
  return Status::InvalidArgument("--format must be table, csv or json, not " +
                                 QuoteForMessage(name));
}

std::vector<std::string> ColumnsToPrint(const std::vector<Row>& rows,
                                        const Projection& projection) {
  std::vector<std::string> out;
  std::set<std::string> listed;
  for (const std::string& p : projection) {
    if (p.find(':') != std::string::npos && listed.insert(p).second) {
      out.push_back(p);
    }
  }
  std::set<std::string> others;
  for (const Row& row : rows) {
    for (const Cell& c : row.cells) {
      if (listed.count(c.column) == 0) others.insert(c.column);
    }
  }
  out.insert(out.end(), others.begin(), others.end());
  return out;
}

void PrintRows(const std::vector<Row>& rows,
               const std::vector<std::string>& columns, RowFormat format,
               std::ostream& out) {
  switch (format) {
    case RowFormat::kTable:
      PrintTable(rows, columns, out);
      return;
    case RowFormat::kCsv:
      PrintCsv(rows, columns, out);
      return;
    case RowFormat::kJson:
      PrintJson(rows, columns, out);
      return;
  }
}

size_t Utf8SequenceLength(std::string_view bytes, size_t at) {
  const auto byte = [&](size_t i) {
    return static_cast<unsigned char>(bytes[i]);
  };
  const unsigned char b = byte(at);
  if (b < 0x80) return 1;
  size_t n;
  uint32_t code;
  if (b >= 0xC2 && b <= 0xDF) {
    n = 2, code = b & 0x1F;
  } else if (b >= 0xE0 && b <= 0xEF) {
    n = 3, code = b & 0x0F;
  } else if (b >= 0xF0 && b <= 0xF4) {
    n = 4, code = b & 0x07;
  } else {
    return 0;  // a continuation byte, C0/C1 (always overlong), or F5..FF
  }
  if (at + n > bytes.size()) return 0;
  for (size_t i = 1; i < n; ++i) {
    if (!IsContinuation(byte(at + i))) return 0;
    code = (code << 6) | (byte(at + i) & 0x3F);
  }
  if ((n == 3 && code < 0x800) || (n == 4 && code < 0x10000)) return 0;
  if (code >= 0xD800 && code <= 0xDFFF) return 0;  // surrogates
  if (code > 0x10FFFF) return 0;
  return n;
}

std::string TableField(std::string_view bytes) {
  std::string out;
  for (size_t i = 0; i < bytes.size();) {
    const unsigned char b = static_cast<unsigned char>(bytes[i]);
    const size_t n = Utf8SequenceLength(bytes, i);
    if (b == '\\') {
      out += "\\\\";
    } else if (n == 0 || b < 0x20 || b == 0x7F) {
      out += HexByte("\\x", b);
    } else {
      out.append(bytes.substr(i, n));
      i += n;
      continue;
    }
    ++i;
  }
  return out;
}

std::string CsvField(std::string_view bytes) {
  if (bytes.find_first_of(",\"\r\n") == std::string_view::npos) {
    return std::string(bytes);
  }
  std::string out = "\"";
  for (char c : bytes) {
    if (c == '"') out += '"';
    out += c;
  }
  return out + "\"";
}

std::string JsonString(std::string_view bytes) {
  std::string out = "\"";
  for (size_t i = 0; i < bytes.size();) {
    const unsigned char b = static_cast<unsigned char>(bytes[i]);
    const size_t n = Utf8SequenceLength(bytes, i);
    if (b == '"' || b == '\\') {
      out += '\\';
      out += static_cast<char>(b);
    } else if (b == '\n') {
      out += "\\n";
    } else if (b == '\r') {
      out += "\\r";
    } else if (b == '\t') {
      out += "\\t";
    } else if (n == 0 || b < 0x20 || b == 0x7F) {
      out += HexByte("\\u00", b);
    } else {
      out.append(bytes.substr(i, n));
      i += n;
      continue;
    }
    ++i;
  }
  return out + "\"";
}

}  // namespace bloomroute
