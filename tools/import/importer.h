// The import driver: reads records, maps them to puts, batches the puts and
// hands the batches to a RowSink, reporting bad lines and progress.
//
// Bad lines (a record the reader or the mapper rejects) are passed to the
// BadLineHandler in file order. With BadLinePolicy::kSkip they are counted and
// skipped; with kFail reading stops at the first one. Either way nothing of a
// bad line is written, and every good row read before the stop is written and
// waited for before RunImport returns: after a stop at line N, every row of
// lines before N is acknowledged (unless a write failed).
//
// Batches hold at most `batch_rows` rows and about `batch_bytes` bytes (a
// single larger row goes alone), and never a row key twice: a repeated key
// starts a new batch, so the later line's values win.
//
// Thread-safety: RunImport runs on the caller's thread; the sink may use its
// own.
#ifndef BLOOMROUTE_TOOLS_IMPORT_IMPORTER_H_
#define BLOOMROUTE_TOOLS_IMPORT_IMPORTER_H_

#include <cstddef>
#include <cstdint>
#include <functional>
#include <string>

#include "common/status.h"
#include "tools/import/progress.h"
#include "tools/import/record_reader.h"
#include "tools/import/row_mapper.h"
#include "tools/import/row_sink.h"

namespace bloomroute {

enum class BadLinePolicy { kSkip, kFail };

struct ImportDriverOptions {
  BadLinePolicy on_bad_line = BadLinePolicy::kSkip;
  uint32_t batch_rows = 1000;
  // Far below the router's default frame limit (64 MiB).
  size_t batch_bytes = 16 << 20;
};

struct ImportStats {
  uint64_t records = 0;        // records read, good and bad
  uint64_t rows_imported = 0;  // rows the sink had acknowledged at the end
  uint64_t bad_lines = 0;
  double seconds = 0;  // set by the caller that times the whole job
};

// Called for each bad line with its line number (where the record starts)
// and the reason. A non-OK return stops the import with that status (e.g.
// the bad-lines file cannot be written).
using BadLineHandler =
    std::function<Status(uint64_t line, const std::string& reason)>;

// Imports every record of `reader` into `sink` (none null; `progress` may
// be null). Returns OK when the input was read to its end and every batch
// acknowledged; else the first of: the sink's failure (the router's message),
// "line N: <reason>" (InvalidArgument) for the first bad line under kFail,
// the handler's failure, the reader's IOError; after an interrupt
// (interrupt.h) InterruptedStatus(), with the rows not yet sent dropped.
// Always waits for the sink (Finish) and fills *stats before returning.
Status RunImport(RecordReader* reader, const RowMapper& mapper, RowSink* sink,
                 const ImportDriverOptions& options,
                 const BadLineHandler& on_bad_line, ProgressReporter* progress,
                 ImportStats* stats);

}  // namespace bloomroute

#endif  // BLOOMROUTE_TOOLS_IMPORT_IMPORTER_H_
