// RecordReader: a streaming reader of delimited text (CSV or TSV) that yields
// one record (a list of fields) at a time with the line it starts on, for
// `bloomroute import`.
//
// Formats.
//   kCsv  RFC 4180: fields separated by ','; a field that starts with '"' is
//         quoted and may hold separators, line ends and '"' written as '""'.
//         A '"' inside an unquoted field is kept as a literal byte (as most
//         CSV readers do); text between a closing quote and the next
//         separator or line end makes the record bad.
//   kTsv  fields separated by a tab; a record ends at '\n'. Quotes are
//         ordinary bytes (GeoNames and similar dumps hold literal '"'), so a
//         field can hold neither a tab nor a line end.
// In both, a record ends at "\n" or "\r\n" (a lone '\r' elsewhere is data),
// the last record may lack its line end, empty lines are skipped (they are
// not records), and a UTF-8 byte order mark at the very start of the input is
// dropped. Every other byte is passed through as is (UTF-8 is not decoded).
//
// Bad records. A record that breaks the format comes back with `error` set
// (and its fields unspecified); reading may go on with the next record:
//   "unterminated quote (opened on line Q)"
//                                 EOF inside a quoted field
//   "quote opened on line Q not closed within N lines (--max-quoted-lines)"
//   "quote opened on line Q not closed within N bytes (--max-field-bytes)"
//                                 a quoted field longer than the caps
//   "text after closing quote"    e.g. "ab"c; the rest of the line is dropped
//                                 (with "(quote opened on line Q)" when the
//                                 quoted part spans lines)
//   "field over N bytes (--max-field-bytes)"
//                                 a longer field (a quoted one on one line)
//   "record over N bytes"         more than max_record_bytes of content and
//                                 separators; the record is read to its end
//                                 but not kept, so memory stays bounded
//   "more than N fields"          more than max_fields fields
// Record boundaries are the same whether or not a record is bad, except after
// "text after closing quote", where the record ends at the next '\n'.
//
// Stray quotes. A quote that opens a field but is never closed (or closed by
// another line's quote, then followed by text) would make the rest of the
// file one field. So a quoted field that reaches the end of input, passes a
// cap (max_quoted_lines line ends or max_field_bytes bytes), or is followed
// by text after spanning lines is taken as a stray quote: the record ends at
// the first line end after the quote (a bad record), and the bytes after that
// line end are read again as records. A stray quote thus costs the lines from
// its record's start to the quote's line, never the rest of the file; the
// caps bound what is kept to be read again (max_field_bytes).
//
// Example:
//   auto reader = RecordReader::OpenFile("cities.txt", {InputFormat::kTsv});
//   if (!reader.ok()) return reader.status();
//   Record r;
//   while (true) {
//     StatusOr<bool> more = (*reader)->Next(&r);
//     if (!more.ok()) return more.status();  // an I/O error
//     if (!*more) break;                      // end of input
//     if (!r.error.empty()) { ...bad line r.line... } else { ...r.fields... }
//   }
//
// Thread-safety: none; one reader per thread.
#ifndef BLOOMROUTE_TOOLS_IMPORT_RECORD_READER_H_
#define BLOOMROUTE_TOOLS_IMPORT_RECORD_READER_H_

#include <cstddef>
#include <cstdint>
#include <istream>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "common/statusor.h"

namespace bloomroute {

enum class InputFormat { kCsv, kTsv };

// "csv" / "tsv".
const char* InputFormatName(InputFormat format);

struct RecordReaderOptions {
  InputFormat format = InputFormat::kTsv;
  // Bytes of one record's fields and separators (line ends inside quotes
  // count; the record's own line end does not).
  size_t max_record_bytes = 8 << 20;
  size_t max_fields = 4096;
  // Bytes of one field; for a quoted field, of its span in the input
  // (doubled quotes and line ends count).
  size_t max_field_bytes = 1 << 20;
  // Line ends one quoted field may span.
  size_t max_quoted_lines = 100;
};

struct Record {
  uint64_t line = 0;  // the line the record starts on, from 1
  std::vector<std::string> fields;
  std::string error;  // empty for a good record; else why it is bad
};

class RecordReader {
 public:
  // Reads from `in`, which must outlive the reader.
  RecordReader(std::istream* in, const RecordReaderOptions& options);
  // Opens `path` for reading; IOError naming it when it cannot be opened.
  static StatusOr<std::unique_ptr<RecordReader>> OpenFile(
      const std::string& path, const RecordReaderOptions& options);
  ~RecordReader();
  RecordReader(const RecordReader&) = delete;
  RecordReader& operator=(const RecordReader&) = delete;

  // Reads the next record into *record (replacing what it held). True when a
  // record (good or bad) was read, false at the end of input; IOError when
  // the input cannot be read.
  StatusOr<bool> Next(Record* record);

  // Bytes of input consumed so far (for progress against the file's size).
  uint64_t bytes_read() const { return bytes_read_; }

 private:
  static constexpr int kEof = -1;
  int Peek();
  int Get();
  bool Fill();
  // Reads one field's bytes; returns what ended it: the separator, '\n'
  // (also for "\r\n") or kEof.
  int ReadUnquoted(std::string* field, Record* record);
  int ReadQuoted(std::string* field, Record* record);
  // After a quoted field's closing quote: what ends the field.
  int AfterClosingQuote(size_t lines, const std::string& opened,
                        Record* record);
  // Counts one byte of the record; past max_record_bytes marks it bad and
  // stops keeping its fields.
  void CountByte(Record* record);
  void Keep(std::string* field, char c, Record* record);
  void AddField(std::string field, Record* record);
  void SkipToLineEnd();
  // Marks the record bad with `error` and drops its fields.
  void Reject(std::string error, Record* record);
  // Ends a record at a stray quote (see above): returns what ends the record.
  int StrayQuote(std::string error, Record* record);
  // Puts `bytes` back in front of the unread input.
  void Unread(std::string_view bytes);

  std::unique_ptr<std::istream> owned_;
  std::istream* in_;
  const RecordReaderOptions options_;
  const char separator_;
  std::string buffer_;
  size_t pos_ = 0;
  size_t end_ = 0;
  bool started_ = false;
  bool io_error_ = false;
  uint64_t bytes_read_ = 0;
  uint64_t newlines_ = 0;    // '\n' consumed so far
  size_t record_bytes_ = 0;  // of the record being read
  bool keep_field_ = true;   // false once the record is too big or wide
  std::string quoted_span_;  // the quoted field's bytes as read (for Unread)
};

}  // namespace bloomroute

#endif  // BLOOMROUTE_TOOLS_IMPORT_RECORD_READER_H_
