#include "tools/shell/shell_output.h"

#include <cstdio>
#include <ctime>

#include "tools/row_format.h"

namespace bloomroute::shell {
namespace {

std::string CellText(const Cell& cell) {
  return "timestamp=" + FormatTimestamp(cell.timestamp) +
         ", value=" + TableField(cell.value);
}

}  // namespace

std::string FormatTimestamp(int64_t millis) {
  // Years 0..9999 of the proleptic Gregorian calendar.
  constexpr int64_t kMin = -62167219200000;
  constexpr int64_t kMax = 253402300799999;
  if (millis < kMin || millis > kMax) return std::to_string(millis);
  int64_t seconds = millis / 1000;
  int64_t ms = millis % 1000;
  if (ms < 0) {
    ms += 1000;
    --seconds;
  }
  const time_t t = static_cast<time_t>(seconds);
  std::tm tm{};
  if (gmtime_r(&t, &tm) == nullptr) return std::to_string(millis);
  char text[40];
  const size_t n = std::strftime(text, sizeof(text), "%Y-%m-%dT%H:%M:%S", &tm);
  char frac[8];
  std::snprintf(frac, sizeof(frac), ".%03dZ", static_cast<int>(ms));
  return std::string(text, n) + frac;
}

std::string LeftColumn(const std::string& left) {
  std::string out = " " + TableField(left);
  out += out.size() < kKeyWidth + 1
             ? std::string(kKeyWidth + 1 - out.size(), ' ')
             : " ";
  return out;
}

void PrintRowCells(const Row& row, std::ostream& out) {
  out << "COLUMN" << std::string(kKeyWidth - 5, ' ') << "CELL\n";
  for (const Cell& cell : row.cells) {
    out << LeftColumn(cell.column) << CellText(cell) << "\n";
  }
}

void PrintScanHeader(std::ostream& out) {
  out << "ROW" << std::string(kKeyWidth - 2, ' ') << "COLUMN+CELL\n";
}

void PrintScanRows(const std::vector<Row>& rows, std::ostream& out) {
  for (const Row& row : rows) {
    for (const Cell& cell : row.cells) {
      out << LeftColumn(row.key) << "column=" << TableField(cell.column) << ", "
          << CellText(cell) << "\n";
    }
  }
}

std::string RowCountLine(uint64_t rows) {
  return std::to_string(rows) + " row(s)";
}

}  // namespace bloomroute::shell
