#include "tools/import/record_reader.h"

#include <algorithm>
#include <fstream>
#include <utility>

namespace bloomroute {
namespace {

// Large enough that a read call per buffer costs nothing next to parsing.
constexpr size_t kBufferBytes = 1 << 16;

}  // namespace

const char* InputFormatName(InputFormat format) {
  return format == InputFormat::kCsv ? "csv" : "tsv";
}

RecordReader::RecordReader(std::istream* in, const RecordReaderOptions& options)
    : in_(in),
      options_(options),
      separator_(options.format == InputFormat::kCsv ? ',' : '\t'),
      buffer_(kBufferBytes, '\0') {}

RecordReader::~RecordReader() = default;

StatusOr<std::unique_ptr<RecordReader>> RecordReader::OpenFile(
    const std::string& path, const RecordReaderOptions& options) {
  auto file = std::make_unique<std::ifstream>(path, std::ios::binary);
  if (!file->is_open()) {
    return Status::IOError("cannot open " + path + " for reading");
  }
  auto reader = std::make_unique<RecordReader>(file.get(), options);
  reader->owned_ = std::move(file);
  return reader;
}

bool RecordReader::Fill() {
  if (io_error_ || !in_->good()) return false;
  // After Unread the buffer may have grown (by at most max_field_bytes).
  if (buffer_.size() != kBufferBytes) {
    buffer_.resize(kBufferBytes);
    buffer_.shrink_to_fit();
  }
  in_->read(buffer_.data(), static_cast<std::streamsize>(buffer_.size()));
  pos_ = 0;
  end_ = static_cast<size_t>(in_->gcount());
  if (in_->bad()) io_error_ = true;
  return end_ > 0;
}

int RecordReader::Peek() {
  if (pos_ == end_ && !Fill()) return kEof;
  return static_cast<unsigned char>(buffer_[pos_]);
}

int RecordReader::Get() {
  if (pos_ == end_ && !Fill()) return kEof;
  const int c = static_cast<unsigned char>(buffer_[pos_++]);
  ++bytes_read_;
  if (c == '\n') ++newlines_;
  return c;
}

void RecordReader::CountByte(Record* record) {
  if (++record_bytes_ <= options_.max_record_bytes || !keep_field_) return;
  keep_field_ = false;
  if (record->error.empty()) {
    record->error =
        "record over " + std::to_string(options_.max_record_bytes) + " bytes";
  }
  // Release what was kept: the record is dropped anyway.
  std::vector<std::string>().swap(record->fields);
}

void RecordReader::Keep(std::string* field, char c, Record* record) {
  CountByte(record);
  if (keep_field_) field->push_back(c);
}

void RecordReader::AddField(std::string field, Record* record) {
  if (!keep_field_) return;
  if (record->fields.size() == options_.max_fields) {
    keep_field_ = false;
    std::vector<std::string>().swap(record->fields);
    if (record->error.empty()) {
      record->error =
          "more than " + std::to_string(options_.max_fields) + " fields";
    }
    return;
  }
  record->fields.push_back(std::move(field));
}

void RecordReader::SkipToLineEnd() {
  int c;
  do {
    c = Get();
  } while (c != kEof && c != '\n');
}

void RecordReader::Reject(std::string error, Record* record) {
  keep_field_ = false;
  std::vector<std::string>().swap(record->fields);
  record->error = std::move(error);
}

void RecordReader::Unread(std::string_view bytes) {
  std::string rest;
  rest.reserve(bytes.size() + (end_ - pos_));
  rest.append(bytes);
  rest.append(buffer_, pos_, end_ - pos_);
  buffer_ = std::move(rest);
  pos_ = 0;
  end_ = buffer_.size();
  bytes_read_ -= bytes.size();
  newlines_ -=
      static_cast<uint64_t>(std::count(bytes.begin(), bytes.end(), '\n'));
}

int RecordReader::StrayQuote(std::string error, Record* record) {
  Reject(std::move(error), record);
  const size_t line_end = quoted_span_.find('\n');
  if (line_end != std::string::npos) {
    // The record ends at the quote's line; what follows is read again.
    Unread(std::string_view(quoted_span_).substr(line_end + 1));
    return '\n';
  }
  if (Peek() == kEof) return kEof;
  SkipToLineEnd();
  return '\n';
}

int RecordReader::ReadUnquoted(std::string* field, Record* record) {
  size_t bytes = 0;
  while (true) {
    const int c = Get();
    if (c == kEof || c == separator_ || c == '\n') return c;
    if (c == '\r' && Peek() == '\n') {
      Get();
      return '\n';
    }
    Keep(field, static_cast<char>(c), record);
    if (++bytes > options_.max_field_bytes && keep_field_) {
      Reject("field over " + std::to_string(options_.max_field_bytes) +
                 " bytes (--max-field-bytes)",
             record);
    }
  }
}

int RecordReader::ReadQuoted(std::string* field, Record* record) {
  const std::string quote_line = std::to_string(newlines_ + 1);
  const std::string opened = "quote opened on line " + quote_line;
  quoted_span_.clear();
  size_t lines = 0;
  while (true) {
    const int c = Get();
    if (c == kEof) {
      return StrayQuote(
          "unterminated quote (opened on line " + quote_line + ")", record);
    }
    quoted_span_.push_back(static_cast<char>(c));
    if (c == '\n' && ++lines > options_.max_quoted_lines) {
      return StrayQuote(opened + " not closed within " +
                            std::to_string(options_.max_quoted_lines) +
                            " lines (--max-quoted-lines)",
                        record);
    }
    if (c == '"' && Peek() != '"') {
      CountByte(record);
      break;  // the closing quote (its byte is not part of the field)
    }
    if (c == '"') {  // a doubled quote: one '"' of the field
      quoted_span_.push_back(static_cast<char>(Get()));
      CountByte(record);
    }
    if (quoted_span_.size() > options_.max_field_bytes) {
      const std::string limit = std::to_string(options_.max_field_bytes) +
                                " bytes (--max-field-bytes)";
      return StrayQuote(lines == 0 ? "field over " + limit
                                   : opened + " not closed within " + limit,
                        record);
    }
    Keep(field, static_cast<char>(c), record);
  }
  return AfterClosingQuote(lines, opened, record);
}

int RecordReader::AfterClosingQuote(size_t lines, const std::string& opened,
                                    Record* record) {
  const int next = Peek();
  if (next == kEof) return kEof;
  if (next == separator_ || next == '\n') return Get();
  if (next == '\r') {
    quoted_span_.push_back(static_cast<char>(Get()));
    if (Peek() == '\n') return Get();
  }
  if (lines > 0) {
    // Closed by another line's quote: the opening one was likely stray.
    return StrayQuote("text after closing quote (" + opened + ")", record);
  }
  if (record->error.empty()) record->error = "text after closing quote";
  SkipToLineEnd();
  return '\n';
}

StatusOr<bool> RecordReader::Next(Record* record) {
  if (!started_) {
    started_ = true;
    if (Peek() == 0xEF && end_ - pos_ >= 3 &&
        buffer_.compare(0, 3, "\xEF\xBB\xBF") == 0) {
      pos_ += 3;
      bytes_read_ += 3;
    }
  }
  while (true) {
    record->fields.clear();
    record->error.clear();
    if (Peek() == kEof) break;
    record->line = newlines_ + 1;
    record_bytes_ = 0;
    keep_field_ = true;
    while (true) {
      std::string field;
      int end;
      if (options_.format == InputFormat::kCsv && Peek() == '"') {
        Get();
        CountByte(record);
        end = ReadQuoted(&field, record);
      } else {
        end = ReadUnquoted(&field, record);
      }
      AddField(std::move(field), record);
      if (end != separator_) break;
      CountByte(record);
    }
    if (io_error_) break;
    if (record_bytes_ > 0 || !record->error.empty()) return true;
    // An empty line: not a record.
  }
  if (io_error_) return Status::IOError("reading the input failed");
  return false;
}

}  // namespace bloomroute
