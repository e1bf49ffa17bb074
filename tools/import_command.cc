#include "tools/import_command.h"

#include <unistd.h>

#include <iostream>
#include <utility>
#include <vector>

#include "tools/import/interrupt.h"
#include "tools/server_command_util.h"

namespace bloomroute {
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

// What --help says after the options: formats, rows, the table, bad lines,
// bulk imports, output and interrupts.
constexpr char kImportHelpEpilog[] =
    "Formats. csv follows RFC 4180: a field in double quotes may hold\n"
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

bool EndsWith(const std::string& s, const std::string& suffix) {
  return s.size() >= suffix.size() &&
         s.compare(s.size() - suffix.size(), suffix.size(), suffix) == 0;
}

}  // namespace

ImportCommand::ImportCommand()
    : Command("import",
              "load a CSV or TSV file into a table (like ImportTsv)") {}

void ImportCommand::DeclareOptions(OptionTable* table) {
  connection_.Add(table);
  table
      ->String("table", &options_.table,
               "table to import into; created when missing")
      .Required()
      .ValueName("T");
  table
      ->String("file", &options_.file,
               "the file to import; - reads standard input")
      .Required()
      .ValueName("F");
  table
      ->String("format", &format_,
               "the file's format; without it csv for a name ending in .csv, "
               "else tsv")
      .Choices({"csv", "tsv"});
  table->Switch("header", &options_.header,
                "the file's first line names the columns");
  table
      ->String("columns", &columns_,
               "NAME,NAME,... the columns, in file order (instead of "
               "--header)")
      .ValueName("NAMES");
  table
      ->String("row-key", &options_.row_key,
               "the column holding the row key (not stored as a cell)")
      .Required()
      .ValueName("NAME");
  table->String("index", &index_, "NAME,NAME,... the columns to index")
      .Required()
      .ValueName("NAMES");
  AddLineRows(table);
}

void ImportCommand::AddLineRows(OptionTable* table) {
  table
      ->String("family", &options_.family,
               "column family: column NAME is stored as FAMILY:NAME")
      .Default(ImportJobOptions().family)
      .ValueName("FAMILY");
  table
      ->String("on-bad-line", &on_bad_line_,
               "skip: count and list bad lines and go on; fail: stop at the "
               "first")
      .Choices({"skip", "fail"})
      .Default("skip");
  table
      ->String("bad-lines", &options_.bad_lines_file,
               "FILE listing each bad line as 'line N: reason'")
      .ValueName("FILE");
  AddBatchRows(table);
}

void ImportCommand::AddBatchRows(OptionTable* table) {
  const ImportJobOptions d;
  ImportJobOptions& o = options_;
  table
      ->Integer("batch-rows", &o.batch_rows, d.batch_rows,
                "rows per write call")
      .Range(1, kMaxRowsPerCall);
  table
      ->Integer("in-flight", &o.in_flight, d.in_flight,
                "write calls in progress at once")
      .Range(1, ImportJobOptions::kMaxInFlight);
  table
      ->Integer("regions", &o.regions, 0,
                "regions of a new table; 0 = one per region server")
      .Range(0, router::TableSpec::kMaxRegions);
  table->Switch("bulk", &o.bulk,
                "bulk import: sorted files per region, ingested by the "
                "region servers");
  table
      ->Integer("max-value-bytes", &o.max_value_bytes,
                static_cast<int64_t>(d.max_value_bytes),
                "a longer value makes its line bad (the region server's "
                "default limit)")
      .Unit(OptionUnit::kBytes)
      .Range(1, int64_t{1} << 30);
  AddInputRows(table);
}

void ImportCommand::AddInputRows(OptionTable* table) {
  const ImportJobOptions d;
  ImportJobOptions& o = options_;
  table
      ->Integer("max-field-bytes", &o.max_field_bytes,
                static_cast<int64_t>(d.max_field_bytes),
                "a longer field makes its line bad; a quoted field whose span "
                "passes it is taken as a stray quote")
      .Unit(OptionUnit::kBytes)
      .Range(1, int64_t{1} << 30);
  table
      ->Integer("max-quoted-lines", &o.max_quoted_lines,
                static_cast<int64_t>(d.max_quoted_lines),
                "line ends one quoted field may span; more is taken as a "
                "stray quote (csv)")
      .Range(1, int64_t{1} << 30);
  table
      ->Integer("max-spool-bytes", &o.max_spool_bytes,
                static_cast<int64_t>(d.max_spool_bytes),
                "the most of standard input or a pipe copied to a temporary "
                "file when a new table's split keys are sampled from it")
      .Unit(OptionUnit::kBytes)
      .Range(1, IntegerOption::kNoUpperBound);
}

Status ImportCommand::Validate() {
  if (format_.empty()) {
    options_.format =
        EndsWith(options_.file, ".csv") ? InputFormat::kCsv : InputFormat::kTsv;
  } else {
    options_.format = format_ == "csv" ? InputFormat::kCsv : InputFormat::kTsv;
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

std::string ImportCommand::HelpEpilog() const { return kImportHelpEpilog; }

}  // namespace bloomroute
