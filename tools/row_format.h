// Printing rows for `bloomroute query`, `get` and `scan`, in one of three
// formats. Row keys and values are bytes; each format says what it does with
// bytes that are not printable text.
//
//   table  aligned columns as in a small psql or HBase shell output, a header,
//          a rule and a "(N rows)" footer. Valid UTF-8 text is kept; control
//          characters, DEL and bytes that are not valid UTF-8 are shown as
//          \xNN and a backslash as \\, so every byte is visible and one row
//          is one line. A column a row lacks is blank.
//   csv    RFC 4180: a header "row,<column>,...", one record per row, CRLF
//          line ends; a field holding ',', '"', CR or LF is quoted with '"'
//          doubled. Bytes are written as they are (no re-encoding). A column
//          a row lacks is an empty field.
//   json   JSON Lines: one object per row, one per line, e.g.
//            {"row":"oslo","d:cc":"NO","d:name":"Oslo"}
//          "row" is the row key; every other member is a column the row
//          holds, named "family:qualifier" (a column name always has a ':',
//          so it never clashes with "row"); missing columns are omitted.
//          Strings are escaped as JSON requires ('"', '\\', control
//          characters as \n, \r, \t or \u00XX) and DEL as \u007f. Valid UTF-8
//          is kept; a byte that is not part of valid UTF-8 is written as
//          \u00XX, the code point of the same number (the byte read as
//          Latin-1): readable, but such a byte and the character U+00XX look
//          the same to a JSON reader.
//
// Thread-safety: pure functions.
//
// Example:
//   std::vector<std::string> columns = ColumnsToPrint(rows, {});
//   PrintRows(rows, columns, RowFormat::kCsv, std::cout);
#ifndef BLOOMROUTE_TOOLS_ROW_FORMAT_H_
#define BLOOMROUTE_TOOLS_ROW_FORMAT_H_

#include <ostream>
#include <string>
#include <string_view>
#include <vector>

#include "common/statusor.h"
#include "model/rows.h"

namespace bloomroute {

enum class RowFormat { kTable, kCsv, kJson };

// "table", "csv" or "json"; InvalidArgument naming the choices otherwise.
StatusOr<RowFormat> ParseRowFormat(std::string_view name);

// The columns to print, in order: the projection's full column names as
// given (even when no row holds them), then every other column the rows hold
// in byte order. Family entries of the projection ("d") add nothing by
// themselves; the columns of that family that rows hold follow, sorted.
std::vector<std::string> ColumnsToPrint(const std::vector<Row>& rows,
                                        const Projection& projection);

// Writes `rows` (cells of `columns` only, in that order) to `out` in
// `format`, including the table header and footer or the CSV header. An
// empty `rows` prints the header and "(0 rows)" (table), the header (csv) or
// nothing (json).
void PrintRows(const std::vector<Row>& rows,
               const std::vector<std::string>& columns, RowFormat format,
               std::ostream& out);

// The escaping of one field in each format (see the file comment). For
// JsonString the result includes the surrounding quotes; for CsvField the
// quotes are added only when needed.
std::string TableField(std::string_view bytes);
std::string CsvField(std::string_view bytes);
std::string JsonString(std::string_view bytes);

// The length of the valid UTF-8 sequence starting at `bytes[at]` (1 to 4),
// or 0 when the byte there does not start one (a stray continuation byte, an
// overlong form, a surrogate, a code point above U+10FFFF, a cut sequence).
size_t Utf8SequenceLength(std::string_view bytes, size_t at);

}  // namespace bloomroute

#endif  // BLOOMROUTE_TOOLS_ROW_FORMAT_H_
