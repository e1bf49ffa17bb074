#include "tools/import/import_job.h"

#include <algorithm>
#include <fstream>
#include <iomanip>
#include <memory>
#include <sstream>
#include <utility>

#include "thrift/router_client.h"
#include "tools/import/import_input.h"
#include "tools/import/interrupt.h"
#include "tools/import/progress.h"
#include "tools/import/row_sink.h"
#include "tools/import/split_keys.h"

namespace bloomroute {
namespace {

std::string Join(std::vector<std::string> names) {
  std::string out;
  for (const std::string& n : names) out += (out.empty() ? "" : ",") + n;
  return out.empty() ? "(none)" : out;
}

// Opens a reader of the input; with a header, reads it into *columns (so the
// reader is at the first data record).
StatusOr<std::unique_ptr<RecordReader>> OpenReader(
    const ImportJobOptions& options, ImportInput* input,
    std::vector<std::string>* columns) {
  RecordReaderOptions reader_options;
  reader_options.format = options.format;
  reader_options.max_record_bytes = options.max_record_bytes;
  reader_options.max_field_bytes = options.max_field_bytes;
  reader_options.max_quoted_lines = options.max_quoted_lines;
  BLOOMROUTE_ASSIGN_OR_RETURN(std::unique_ptr<RecordReader> reader,
                              input->OpenReader(reader_options));
  if (!options.header) {
    *columns = options.columns;
    return reader;
  }
  Record header;
  BLOOMROUTE_ASSIGN_OR_RETURN(bool found, reader->Next(&header));
  if (!found) {
    return Status::InvalidArgument(options.file + " has no header line");
  }
  if (!header.error.empty()) {
    return Status::InvalidArgument(
        "header (line " + std::to_string(header.line) + "): " + header.error);
  }
  *columns = std::move(header.fields);
  return reader;
}

// Split keys for `regions` regions from a sample of the whole input's row
// keys (a first pass; bad lines are left out).
StatusOr<std::vector<std::string>> SampleSplitKeys(
    const ImportJobOptions& options, const RowMapper& mapper,
    ImportInput* input, uint32_t regions) {
  std::vector<std::string> ignored;
  BLOOMROUTE_ASSIGN_OR_RETURN(std::unique_ptr<RecordReader> reader,
                              OpenReader(options, input, &ignored));
  KeySampler sampler(KeySampler::CapacityFor(regions));
  Record record;
  while (true) {
    if (ImportInterrupted()) return InterruptedStatus();
    BLOOMROUTE_ASSIGN_OR_RETURN(bool more, reader->Next(&record));
    if (!more) break;
    if (!record.error.empty()) continue;
    StatusOr<Mutation> put = mapper.Map(std::move(record.fields));
    if (put.ok()) sampler.Add(put->row_key);
  }
  return ChooseSplitKeys(sampler.Take(), regions);
}

// OK when `table` indexes exactly `wanted` (in any order).
Status CheckIndexed(const TableDescriptor& table,
                    std::vector<std::string> wanted) {
  std::vector<std::string> have;
  for (const IndexedColumn& c : table.indexed_columns) have.push_back(c.name);
  std::sort(have.begin(), have.end());
  std::sort(wanted.begin(), wanted.end());
  if (have == wanted) return Status::OK();
  return Status::InvalidArgument(
      "table " + table.name + " exists with indexed columns " + Join(have) +
      ", not " + Join(wanted) +
      " as asked; give the same --index (and --family) or another table");
}

StatusOr<uint32_t> RegionsForNewTable(RouterClient* client,
                                      const ImportJobOptions& options) {
  uint32_t regions = options.regions;
  if (regions == 0) {
    BLOOMROUTE_ASSIGN_OR_RETURN(router::ClusterStatus cluster,
                                client->GetClusterStatus());
    regions =
        std::max<uint32_t>(1, static_cast<uint32_t>(cluster.servers.size()));
  }
  return std::min(regions, router::TableSpec::kMaxRegions);
}

// What the import finds before it reads the input: 0 when the table exists,
// else the regions of the table to create.
StatusOr<uint32_t> RegionsToCreate(RouterClient* client,
                                   const ImportJobOptions& options) {
  StatusOr<router::TableInfo> existing = client->DescribeTable(options.table);
  if (existing.ok()) return 0;
  if (!existing.status().IsNotFound()) return existing.status();
  return RegionsForNewTable(client, options);
}

// Checks an existing table (regions == 0) or creates it with `regions`
// regions, split at keys sampled from `input` when there are several.
Status EnsureTable(RouterClient* client, const ImportJobOptions& options,
                   const RowMapper& mapper, uint32_t regions,
                   ImportInput* input, std::ostream* err) {
  if (regions == 0) {
    BLOOMROUTE_ASSIGN_OR_RETURN(router::TableInfo existing,
                                client->DescribeTable(options.table));
    return CheckIndexed(existing.descriptor, mapper.IndexedColumns());
  }
  router::TableSpec spec;
  spec.name = options.table;
  spec.indexed_columns = mapper.IndexedColumns();
  if (regions > 1) {
    BLOOMROUTE_ASSIGN_OR_RETURN(
        spec.split_keys, SampleSplitKeys(options, mapper, input, regions));
  }
  if (spec.split_keys.empty()) spec.region_count = regions;
  StatusOr<router::TableInfo> created = client->CreateTable(spec);
  if (!created.ok()) {
    // Another import may have created it meanwhile: then it must match.
    StatusOr<router::TableInfo> now = client->DescribeTable(options.table);
    if (!now.ok()) return created.status();
    return CheckIndexed(now->descriptor, mapper.IndexedColumns());
  }
  *err << "bloomroute import: created table " << options.table << " with "
       << created->regions.size() << " regions, indexed columns "
       << Join(spec.indexed_columns) << std::endl;
  return Status::OK();
}

// Lists bad lines in the file (when given) or echoes the first few to `err`.
class BadLineList {
 public:
  BadLineList(const ImportJobOptions& options, std::ostream* err)
      : path_(options.bad_lines_file), err_(err) {}

  Status Open() {
    if (path_.empty()) return Status::OK();
    file_.open(path_, std::ios::binary | std::ios::trunc);
    if (!file_.is_open()) {
      return Status::IOError("cannot write the bad-lines file " + path_);
    }
    return Status::OK();
  }

  Status Add(uint64_t line, const std::string& reason) {
    const std::string text = "line " + std::to_string(line) + ": " + reason;
    if (path_.empty()) {
      if (shown_++ < ImportJobOptions::kBadLinesShown) {
        *err_ << "bloomroute import: bad " << text << std::endl;
      }
      return Status::OK();
    }
    file_ << text << "\n";
    if (!file_) return Status::IOError("writing " + path_ + " failed");
    return Status::OK();
  }

  Status Close() {
    if (path_.empty()) return Status::OK();
    file_.close();
    if (!file_) return Status::IOError("writing " + path_ + " failed");
    return Status::OK();
  }

 private:
  const std::string path_;
  std::ostream* const err_;
  std::ofstream file_;
  int shown_ = 0;
};

void PrintSummary(const ImportJobOptions& options, const ImportStats& stats,
                  std::ostream* out) {
  const double rate =
      stats.seconds > 0
          ? static_cast<double>(stats.rows_imported) / stats.seconds
          : 0;
  std::ostringstream line;
  line << "bloomroute import: " << stats.rows_imported << " rows imported into "
       << options.table << ", " << stats.bad_lines << " bad lines";
  if (stats.bad_lines > 0 && !options.bad_lines_file.empty()) {
    line << " (listed in " << options.bad_lines_file << ")";
  }
  line << ", " << std::fixed << std::setprecision(1) << stats.seconds << " s, "
       << std::setprecision(0) << rate << " rows/s";
  *out << line.str() << std::endl;
}

}  // namespace

Status ImportJobOptions::Validate() const {
  if (table.empty()) return Status::InvalidArgument("--table is empty");
  if (file.empty()) return Status::InvalidArgument("--file is empty");
  if (header == !columns.empty()) {
    return Status::InvalidArgument(
        "give exactly one of --header and --columns");
  }
  if (row_key.empty()) return Status::InvalidArgument("--row-key is empty");
  if (batch_rows < 1 || batch_rows > kMaxRowsPerCall) {
    return Status::InvalidArgument("--batch-rows must be in [1, " +
                                   std::to_string(kMaxRowsPerCall) + "]");
  }
  if (in_flight < 1 || in_flight > kMaxInFlight) {
    return Status::InvalidArgument("--in-flight must be in [1, " +
                                   std::to_string(kMaxInFlight) + "]");
  }
  if (regions > router::TableSpec::kMaxRegions) {
    return Status::InvalidArgument(
        "--regions must be at most " +
        std::to_string(router::TableSpec::kMaxRegions));
  }
  if (max_value_bytes < 1 || max_record_bytes < 1 || max_spool_bytes < 1 ||
      max_field_bytes < 1 || max_quoted_lines < 1) {
    return Status::InvalidArgument("size limits must be positive");
  }
  return Status::OK();
}

Status RunImportJob(RouterClient* client, const ImportJobOptions& options,
                    std::ostream* out, std::ostream* err, ImportStats* stats) {
  ImportStats local;
  if (stats == nullptr) stats = &local;
  *stats = ImportStats();
  BLOOMROUTE_RETURN_IF_ERROR(options.Validate());
  // A new table split at sampled keys reads the input twice (a pipe is
  // then copied first: import_input.h).
  BLOOMROUTE_ASSIGN_OR_RETURN(const uint32_t regions,
                              RegionsToCreate(client, options));
  BLOOMROUTE_ASSIGN_OR_RETURN(
      std::unique_ptr<ImportInput> input,
      ImportInput::Open(options.file, regions > 1 ? 2 : 1,
                        options.max_spool_bytes));
  RowMapperSpec spec;
  BLOOMROUTE_ASSIGN_OR_RETURN(std::unique_ptr<RecordReader> reader,
                              OpenReader(options, input.get(), &spec.columns));
  spec.row_key = options.row_key;
  spec.indexed = options.index;
  spec.family = options.family;
  spec.max_value_bytes = options.max_value_bytes;
  BLOOMROUTE_ASSIGN_OR_RETURN(RowMapper mapper,
                              RowMapper::Create(std::move(spec)));
  BLOOMROUTE_RETURN_IF_ERROR(
      EnsureTable(client, options, mapper, regions, input.get(), err));

  BadLineList bad_lines(options, err);
  BLOOMROUTE_RETURN_IF_ERROR(bad_lines.Open());
  ProgressReporter progress(err, options.terminal, input->size());
  std::unique_ptr<RowSink> sink;
  if (options.bulk) {
    BulkSinkOptions bulk;
    bulk.in_flight = options.in_flight;
    BLOOMROUTE_ASSIGN_OR_RETURN(sink, NewBulkSink(client, options.table, bulk));
  } else {
    sink = NewOnlineSink(client, options.table, options.in_flight);
  }
  ImportDriverOptions driver;
  driver.on_bad_line = options.on_bad_line;
  driver.batch_rows = options.batch_rows;
  Status s = RunImport(
      reader.get(), mapper, sink.get(), driver,
      [&](uint64_t line, const std::string& reason) {
        return bad_lines.Add(line, reason);
      },
      &progress, stats);
  progress.Finish(stats->rows_imported, reader->bytes_read());
  stats->seconds = progress.seconds();
  Status closed = bad_lines.Close();
  PrintSummary(options, *stats, out);
  return s.ok() ? closed : s;
}

}  // namespace bloomroute
