#include "tools/import_command.h"

#include <unistd.h>

#include <iostream>
#include <limits>
#include <utility>
#include <vector>

#include "tools/import/interrupt.h"
#include "tools/server_command_util.h"

namespace bloomroute {
namespace po = boost::program_options;
namespace {

// "a,b,c" -> {a, b, c}; InvalidArgument for an empty list or item.
Status SplitNames(const char* option, const std::string& list,
                  std::vector<std::string>* out) {
  out->clear();
  size_t begin = 0;
  while (true) {
    const size_t end = list.find(',', begin);
    std::string name = list.substr(begin, end - begin);
    if (name.empty()) {
      return Status::InvalidArgument(std::string("--") + option +
                                     ": an empty name in '" + list + "'");
    }
    out->push_back(std::move(name));
    if (end == std::string::npos) return Status::OK();
    begin = end + 1;
  }
}

bool EndsWith(const std::string& s, const std::string& suffix) {
  return s.size() >= suffix.size() &&
         s.compare(s.size() - suffix.size(), suffix.size(), suffix) == 0;
}

}  // namespace

ImportCommand::ImportCommand()
    : Command("import",
              "load a CSV or TSV file into a table (like ImportTsv)") {}

void ImportCommand::AddOptions(po::options_description* o) {
  const ImportJobOptions d;
  connection_.Add(o);
  o->add_options()  //
      ("table", po::value<std::string>(&options_.table)->required(),
       "table to import into; created when missing")  //
      ("file", po::value<std::string>(&options_.file)->required(),
       "the file to import; - reads standard input")  //
      ("format", po::value<std::string>(&format_),
       "csv or tsv (default: csv for a name ending in .csv, else tsv)")  //
      ("header", po::bool_switch(&options_.header),
       "the file's first line names the columns")  //
      ("columns", po::value<std::string>(&columns_),
       "NAME,NAME,... the columns, in file order (instead of --header)")  //
      ("row-key", po::value<std::string>(&options_.row_key)->required(),
       "the column holding the row key (not stored as a cell)")  //
      ("index", po::value<std::string>(&index_)->required(),
       "NAME,NAME,... the columns to index")  //
      ("family", po::value<std::string>(&options_.family)->default_value("d"),
       "column family: column NAME is stored as FAMILY:NAME")  //
      ("on-bad-line",
       po::value<std::string>(&on_bad_line_)->default_value("skip"),
       "skip: count and list bad lines and go on; fail: stop at the first")  //
      ("bad-lines", po::value<std::string>(&options_.bad_lines_file),
       "FILE listing each bad line as 'line N: reason'")  //
      ("batch-rows",
       po::value<int64_t>(&batch_rows_)->default_value(d.batch_rows),
       "rows per write call")  //
      ("in-flight", po::value<int64_t>(&in_flight_)->default_value(d.in_flight),
       "write calls in progress at once")  //
      ("regions", po::value<int64_t>(&regions_)->default_value(0),
       "regions of a new table; 0 = one per region server")  //
      ("bulk", po::bool_switch(&options_.bulk),
       "bulk import: sorted files per region, ingested by the region "
       "servers")  //
      ("max-value-bytes",
       po::value<int64_t>(&max_value_bytes_)->default_value(d.max_value_bytes),
       "a longer value makes its line bad (the region server's default "
       "limit)")  //
      ("max-field-bytes",
       po::value<int64_t>(&max_field_bytes_)
           ->default_value(static_cast<int64_t>(d.max_field_bytes)),
       "a longer field makes its line bad; a quoted field whose span "
       "passes it is taken as a stray quote")  //
      ("max-quoted-lines",
       po::value<int64_t>(&max_quoted_lines_)
           ->default_value(static_cast<int64_t>(d.max_quoted_lines)),
       "line ends one quoted field may span; more is taken as a stray "
       "quote (csv)")  //
      ("max-spool-bytes",
       po::value<int64_t>(&max_spool_bytes_)
           ->default_value(static_cast<int64_t>(d.max_spool_bytes)),
       "the most of standard input or a pipe copied to a temporary file "
       "when a new table's split keys are sampled from it");
}

Status ImportCommand::Validate() {
  if (format_.empty()) {
    options_.format =
        EndsWith(options_.file, ".csv") ? InputFormat::kCsv : InputFormat::kTsv;
  } else if (format_ == "csv" || format_ == "tsv") {
    options_.format = format_ == "csv" ? InputFormat::kCsv : InputFormat::kTsv;
  } else {
    return Status::InvalidArgument("--format must be csv or tsv, not " +
                                   format_);
  }
  if (on_bad_line_ != "skip" && on_bad_line_ != "fail") {
    return Status::InvalidArgument("--on-bad-line must be skip or fail, not " +
                                   on_bad_line_);
  }
  options_.on_bad_line =
      on_bad_line_ == "skip" ? BadLinePolicy::kSkip : BadLinePolicy::kFail;
  if (options_.header == !columns_.empty()) {
    return Status::InvalidArgument(
        "give exactly one of --header and --columns");
  }
  if (!options_.header) {
    BLOOMROUTE_RETURN_IF_ERROR(
        SplitNames("columns", columns_, &options_.columns));
  }
  BLOOMROUTE_RETURN_IF_ERROR(SplitNames("index", index_, &options_.index));
  BLOOMROUTE_RETURN_IF_ERROR(
      InRange("batch-rows", batch_rows_, 1, kMaxRowsPerCall));
  BLOOMROUTE_RETURN_IF_ERROR(
      InRange("in-flight", in_flight_, 1, ImportJobOptions::kMaxInFlight));
  BLOOMROUTE_RETURN_IF_ERROR(
      InRange("regions", regions_, 0, router::TableSpec::kMaxRegions));
  BLOOMROUTE_RETURN_IF_ERROR(
      InRange("max-value-bytes", max_value_bytes_, 1, int64_t{1} << 30));
  options_.batch_rows = static_cast<uint32_t>(batch_rows_);
  options_.in_flight = static_cast<uint32_t>(in_flight_);
  options_.regions = static_cast<uint32_t>(regions_);
  options_.max_value_bytes = static_cast<size_t>(max_value_bytes_);
  BLOOMROUTE_RETURN_IF_ERROR(
      InRange("max-field-bytes", max_field_bytes_, 1, int64_t{1} << 30));
  BLOOMROUTE_RETURN_IF_ERROR(
      InRange("max-quoted-lines", max_quoted_lines_, 1, int64_t{1} << 30));
  options_.max_field_bytes = static_cast<size_t>(max_field_bytes_);
  options_.max_quoted_lines = static_cast<size_t>(max_quoted_lines_);
  BLOOMROUTE_RETURN_IF_ERROR(InRange("max-spool-bytes", max_spool_bytes_, 1,
                                     std::numeric_limits<int64_t>::max()));
  options_.max_spool_bytes = static_cast<uint64_t>(max_spool_bytes_);
  options_.terminal = isatty(STDERR_FILENO) == 1;
  BLOOMROUTE_RETURN_IF_ERROR(options_.Validate());
  BLOOMROUTE_RETURN_IF_ERROR(connection_.Validate());
  BLOOMROUTE_ASSIGN_OR_RETURN(client_, connection_.Connect());
  return Status::OK();
}

Status ImportCommand::Execute() {
  // Ctrl-C stops the import, which then removes its temporary files.
  InstallImportInterruptHandlers();
  return RunImportJob(client_.get(), options_, &std::cout, &std::cerr);
}

std::string ImportCommand::HelpEpilog() const {
  return "Formats. csv follows RFC 4180: a field in double quotes may hold\n"
         "commas, line ends and quotes written as \"\"; a quote inside an\n"
         "unquoted field is kept as is. tsv splits on tab and ends a record\n"
         "at a line end; quotes are ordinary characters, so a field holds no\n"
         "tab or line end. Both accept \\n or \\r\\n line ends, skip empty\n"
         "lines, drop a UTF-8 byte order mark at the start, and pass every\n"
         "other byte through unchanged (UTF-8 stays UTF-8).\n"
         "Rows. Column NAME is stored as FAMILY:NAME. The row-key column is\n"
         "not stored as a cell. An empty field writes no cell (so \"\" is\n"
         "never an indexed value); re-importing a key overwrites the columns\n"
         "it gives (last write wins) and leaves the others. Rows are written\n"
         "in batches, several in flight; a key repeated in the file ends with\n"
         "its last line's values.\n"
         "Table. A missing table is created with the --index columns and\n"
         "pre-split into --regions regions at row keys sampled from the whole\n"
         "file (a first pass); an existing table must index exactly the\n"
         "--index columns, or nothing is imported. With --file - (standard\n"
         "input) or a pipe, that first pass reads a copy of the input in a\n"
         "temporary file (at most --max-spool-bytes, removed at the end);\n"
         "an existing table or --regions 1 needs no copy.\n"
         "Bad lines: a wrong number of fields, an unterminated quote or text\n"
         "after a closing quote (csv), an empty or too long row key, a value\n"
         "over --max-value-bytes, a field over --max-field-bytes, a record\n"
         "over 8 MiB, no value besides the row key. Nothing of a bad line is\n"
         "written. Stray quotes (csv): a quoted field never closed, longer\n"
         "than --max-field-bytes or spanning more than --max-quoted-lines\n"
         "line ends, or closed on a later line and followed by text, makes\n"
         "the lines up to the quote's one bad line ('quote opened on line\n"
         "N ...'); the lines after it are read again as records, so a stray\n"
         "quote never swallows the rest of the file. The default is\n"
         "--on-bad-line skip: bad lines are counted and listed in the\n"
         "--bad-lines file as 'line N: reason' (without one, the first 10 are\n"
         "shown on stderr). With fail, the import stops at the first bad\n"
         "line, waits for the rows before it to be written, and exits 1\n"
         "naming it. A write the router refuses also stops it (exit 1).\n"
         "Bulk. With --bulk the rows are gathered per region (256 MiB at a\n"
         "time), sorted, written to bulk files (SST files of at most 16 MiB)\n"
         "and sent to the router, which has each region server check and\n"
         "ingest its files atomically, with index entries, value counts and\n"
         "filter built as online writes would: the result is the same.\n"
         "Progress then moves in steps, as each gathered part is sent.\n"
         "Output. Progress on stderr: a bar (rows, rows/s, ETA) on a "
         "terminal,\n"
         "else a line every 5 s. Then one summary line on stdout:\n"
         "  bloomroute import: N rows imported into T, B bad lines, S s, R "
         "rows/s\n"
         "Rows counted there were acknowledged by the router.\n"
         "Interrupt. Ctrl-C (SIGINT) or SIGTERM stops the import: batches\n"
         "in flight are waited for, nothing more is sent, temporary files\n"
         "(bulk files, a copy of standard input) are removed, the summary\n"
         "is printed and the exit code is 1. A second signal ends the\n"
         "process at once.\n";
}

}  // namespace bloomroute
