// How `bloomroute shell` prints rows, as HBase shell does:
//
//   get                                 scan
//   COLUMN        CELL                  ROW           COLUMN+CELL
//    d:cc         timestamp=..., val..   oslo         column=d:cc,
//    timestamp=...
//   1 row(s)                            2 row(s)
//
// Keys, columns and values are escaped as the row commands' table format
// escapes them (TableField: printable UTF-8 kept, other bytes \xNN);
// timestamps (milliseconds since the epoch) are printed in ISO-8601 UTC with
// milliseconds, as HBase 2.x's shell prints them.
//
// Thread-safety: pure functions.
#ifndef BLOOMROUTE_TOOLS_SHELL_SHELL_OUTPUT_H_
#define BLOOMROUTE_TOOLS_SHELL_SHELL_OUTPUT_H_

#include <cstdint>
#include <ostream>
#include <string>
#include <vector>

#include "model/rows.h"

namespace bloomroute::shell {

// The left column's width: keys and columns shorter than this are padded.
inline constexpr size_t kKeyWidth = 24;

// "2026-11-27T19:40:01.123Z"; a timestamp outside years 0..9999 as its
// number of milliseconds.
std::string FormatTimestamp(int64_t millis);

// `left` escaped and padded to kKeyWidth (one space after a longer one),
// after a leading space: " oslo                    ".
std::string LeftColumn(const std::string& left);

// The header and cell lines of get (without the count line).
void PrintRowCells(const Row& row, std::ostream& out);
// The header line of scan; then PrintScanRows for each batch.
void PrintScanHeader(std::ostream& out);
void PrintScanRows(const std::vector<Row>& rows, std::ostream& out);
// "1 row(s)".
std::string RowCountLine(uint64_t rows);

}  // namespace bloomroute::shell

#endif  // BLOOMROUTE_TOOLS_SHELL_SHELL_OUTPUT_H_
