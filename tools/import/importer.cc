#include "tools/import/importer.h"

#include <optional>
#include <unordered_set>
#include <utility>
#include <vector>

#include "tools/import/interrupt.h"

namespace bloomroute {
namespace {

class Batcher {
 public:
  Batcher(RowSink* sink, const ImportDriverOptions& options)
      : sink_(sink), options_(options) {}

  Status Add(Mutation put) {
    // A hash collision only cuts a batch early.
    const size_t key = std::hash<std::string>()(put.row_key);
    const size_t bytes = PutBytes(put);
    if (keys_.count(key) != 0 ||
        (!rows_.empty() && bytes_ + bytes > options_.batch_bytes)) {
      BLOOMROUTE_RETURN_IF_ERROR(Flush());
    }
    keys_.insert(key);
    bytes_ += bytes;
    rows_.push_back(std::move(put));
    if (rows_.size() >= options_.batch_rows) return Flush();
    return Status::OK();
  }

  Status Flush() {
    if (rows_.empty()) return Status::OK();
    std::vector<Mutation> batch = std::move(rows_);
    rows_.clear();
    keys_.clear();
    bytes_ = 0;
    return sink_->Write(std::move(batch));
  }

 private:
  static size_t PutBytes(const Mutation& m) {
    size_t n = m.row_key.size() + 16;
    for (const Cell& c : m.cells) n += c.column.size() + c.value.size() + 8;
    return n;
  }

  RowSink* const sink_;
  const ImportDriverOptions options_;
  std::vector<Mutation> rows_;
  std::unordered_set<size_t> keys_;
  size_t bytes_ = 0;
};

// The put for a record, or nullopt with *reason set when the line is bad.
std::optional<Mutation> MapRecord(const RowMapper& mapper, Record* record,
                                  std::string* reason) {
  if (!record->error.empty()) {
    *reason = record->error;
    return std::nullopt;
  }
  StatusOr<Mutation> put = mapper.Map(std::move(record->fields));
  if (!put.ok()) {
    *reason = put.status().message();
    return std::nullopt;
  }
  return std::move(put).value();
}

}  // namespace

Status RunImport(RecordReader* reader, const RowMapper& mapper, RowSink* sink,
                 const ImportDriverOptions& options,
                 const BadLineHandler& on_bad_line, ProgressReporter* progress,
                 ImportStats* stats) {
  Batcher batcher(sink, options);
  Status stop;  // why reading stopped early, if it did
  Record record;
  std::string reason;
  while (stop.ok()) {
    if (ImportInterrupted()) break;
    StatusOr<bool> more = reader->Next(&record);
    if (!more.ok()) {
      stop = more.status();
      break;
    }
    if (!*more) break;
    ++stats->records;
    std::optional<Mutation> put = MapRecord(mapper, &record, &reason);
    if (put) {
      stop = batcher.Add(std::move(*put));
    } else {
      ++stats->bad_lines;
      stop = on_bad_line(record.line, reason);
      if (stop.ok() && options.on_bad_line == BadLinePolicy::kFail) {
        stop = Status::InvalidArgument("line " + std::to_string(record.line) +
                                       ": " + reason);
      }
    }
    if (progress != nullptr) {
      progress->Update(sink->rows_written(), reader->bytes_read());
    }
  }
  // After an interrupt (which may also have ended a read early, as an error
  // or as the end of input) nothing more is sent: the batches in flight are
  // waited for and the sink drops the rest.
  const bool interrupted = ImportInterrupted();
  // The good rows read before the stop are written (a failed sink refuses).
  Status flushed = interrupted ? Status::OK() : batcher.Flush();
  Status finished = sink->Finish();
  stats->rows_imported = sink->rows_written();
  if (interrupted) return InterruptedStatus();
  if (!finished.ok()) return finished;  // a write failure explains the rest
  if (!stop.ok()) return stop;
  return flushed;
}

}  // namespace bloomroute
