// One `bloomroute import` run against a router: read the column names,
// make sure the table exists with the requested indexed columns (creating it
// pre-split from a sample of the file's row keys when missing), import the
// file through a RowSink, and print progress, bad lines and a summary.
//
// Output. Progress and bad-line warnings go to `err` (a bar when
// `terminal`); the summary goes to `out` as one line:
//   bloomroute import: 199568 rows imported into geo, 0 bad lines,
//   12.3 s, 16225 rows/s
// It is printed whenever the import started, also when it stopped early, so
// that the rows already acknowledged are known.
//
// Thread-safety: none; the client must be thread-safe (RouterClient is).
#ifndef BLOOMROUTE_TOOLS_IMPORT_IMPORT_JOB_H_
#define BLOOMROUTE_TOOLS_IMPORT_IMPORT_JOB_H_

#include <cstddef>
#include <cstdint>
#include <ostream>
#include <string>
#include <vector>

#include "common/status.h"
#include "model/rows.h"
#include "tools/import/importer.h"
#include "tools/import/record_reader.h"

namespace bloomroute {

class RouterClient;

struct ImportJobOptions {
  static constexpr uint32_t kMaxInFlight = 64;
  // How many bad lines are echoed to `err` when there is no bad-lines file.
  static constexpr int kBadLinesShown = 10;

  std::string table;
  std::string file;  // a path, or "-" for standard input
  // The most of a non-regular input (standard input, a pipe) copied to a
  // temporary file when a new table's split keys are sampled from it.
  uint64_t max_spool_bytes = uint64_t{16} << 30;
  InputFormat format = InputFormat::kTsv;
  // Column names: from the file's first record, or `columns`.
  bool header = false;
  std::vector<std::string> columns;
  std::string row_key;
  std::vector<std::string> index;  // column names, not "family:name"
  std::string family = "d";
  BadLinePolicy on_bad_line = BadLinePolicy::kSkip;
  std::string bad_lines_file;  // "line N: reason" per bad line; "" = none
  uint32_t batch_rows = 1000;  // 1 .. kMaxRowsPerCall
  uint32_t in_flight = 4;      // 1 .. kMaxInFlight
  // Regions of a new table; 0 = one per region server.
  uint32_t regions = 0;
  size_t max_value_bytes = kDefaultMaxValueBytes;  // a region server's default
  size_t max_record_bytes = 8 << 20;
  // A field's bytes, and the line ends a quoted field may span, before it
  // is taken as a stray quote (record_reader.h).
  size_t max_field_bytes = 1 << 20;
  size_t max_quoted_lines = 100;
  bool terminal = false;  // draw the progress as a bar
  // Write sorted bulk files per region and have the region servers ingest
  // them (NewBulkSink) instead of writing rows online.
  bool bulk = false;

  // InvalidArgument naming the first bad field (names and columns are
  // checked when the file is read: RowMapper::Create).
  Status Validate() const;
};

// Runs the import (see above). Errors: InvalidArgument for columns that do
// not fit the file or an existing table whose indexed columns differ, the
// first bad line under kFail ("line N: ..."); the router's errors as the
// client returns them; IOError for the input or the bad-lines file. *stats
// (may be null) holds what was done, also on failure.
Status RunImportJob(RouterClient* client, const ImportJobOptions& options,
                    std::ostream* out, std::ostream* err,
                    ImportStats* stats = nullptr);

}  // namespace bloomroute

#endif  // BLOOMROUTE_TOOLS_IMPORT_IMPORT_JOB_H_
