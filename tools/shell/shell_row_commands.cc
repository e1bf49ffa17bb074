// The shell's row commands: put, get, scan, delete, deleteall, count and
// lookup.
#include <algorithm>

#include "model/index_predicate.h"
#include "tools/client_command_util.h"
#include "tools/row_format.h"
#include "tools/shell/shell_args.h"
#include "tools/shell/shell_commands.h"
#include "tools/shell/shell_output.h"

namespace bloomroute::shell {
namespace {

constexpr char kPutUsage[] = "put 't', 'r1', 'd:cc', 'NO' [, TIMESTAMP]";
constexpr char kGetUsage[] =
    "get 't', 'r1' [, 'd:cc', ...] or get 't', 'r1', {COLUMNS => ['d:cc'], "
    "FILTER => \"...\", TIMERANGE => [MIN, MAX]}";
constexpr char kScanUsage[] =
    "scan 't' [, {COLUMNS => ['d:cc'], LIMIT => 10, STARTROW => 'a', "
    "STOPROW => 'z', FILTER => \"...\", TIMERANGE => [MIN, MAX]}]";
constexpr char kCountUsage[] =
    "count 't' [, {INTERVAL => 1000, FILTER => \"...\"}]";
constexpr char kLookupUsage[] =
    "lookup 't', 'd:cc' => 'NO' [, 'd:fc' => ['PPLA', 'PPLC'] ...] "
    "[, LIMIT => 10, COLUMNS => ['d:name']]";

// Columns to read: 'd:cc' a column, 'd' the whole family (as HBase's
// shell reads them).
StatusOr<Projection> Columns(const std::vector<std::string>& names) {
  Projection out;
  for (const std::string& name : names) {
    BLOOMROUTE_ASSIGN_OR_RETURN(std::string column, ShellReadColumn(name));
    out.push_back(std::move(column));
  }
  return out;
}

StatusOr<TimeRange> TimeRangeOption(const Args& args, const Options& o) {
  TimeRange range;
  const Value* v = o.Find("TIMERANGE");
  if (v == nullptr) return range;
  if (v->kind != Value::Kind::kList || v->items.size() != 2 ||
      v->items[0].kind != Value::Kind::kInteger ||
      v->items[1].kind != Value::Kind::kInteger) {
    return args.Error("TIMERANGE is [MIN, MAX] in milliseconds, not " +
                      v->Describe());
  }
  range.min = v->items[0].integer;
  range.max = v->items[1].integer;
  return range;
}

Status Put(Context& c, const Statement& s) {
  Args args(s, "put", kPutUsage);
  BLOOMROUTE_RETURN_IF_ERROR(args.Count(4, 5));
  BLOOMROUTE_ASSIGN_OR_RETURN(std::string table, args.String(0, "table name"));
  BLOOMROUTE_ASSIGN_OR_RETURN(std::string row, args.String(1, "row key"));
  BLOOMROUTE_ASSIGN_OR_RETURN(std::string name, args.String(2, "column"));
  BLOOMROUTE_ASSIGN_OR_RETURN(std::string column, ShellColumn(name));
  BLOOMROUTE_ASSIGN_OR_RETURN(std::string value, args.String(3, "value"));
  Cell cell{std::move(column), std::move(value)};
  if (args.size() == 5) {
    BLOOMROUTE_ASSIGN_OR_RETURN(cell.timestamp, args.Integer(4, "timestamp"));
    if (cell.timestamp < 0) return args.Error("a timestamp is not negative");
  }
  return c.router.Mutate(table,
                         {Mutation::Put(0, std::move(row), {std::move(cell)})});
}

Status Get(Context& c, const Statement& s) {
  Args args(s, "get", kGetUsage);
  GetRequest request;
  BLOOMROUTE_ASSIGN_OR_RETURN(std::string table, args.String(0, "table name"));
  BLOOMROUTE_ASSIGN_OR_RETURN(request.row_key, args.String(1, "row key"));
  if (args.IsHash(2)) {
    BLOOMROUTE_RETURN_IF_ERROR(args.Count(3, 3));
    BLOOMROUTE_ASSIGN_OR_RETURN(
        Options o,
        args.OptionsAt(2, {"COLUMN", "COLUMNS", "FILTER", "TIMERANGE"}));
    BLOOMROUTE_ASSIGN_OR_RETURN(
        std::vector<std::string> names,
        o.Strings(o.Has("COLUMN") ? "COLUMN" : "COLUMNS"));
    BLOOMROUTE_ASSIGN_OR_RETURN(request.columns, Columns(names));
    BLOOMROUTE_ASSIGN_OR_RETURN(std::optional<std::string> filter,
                                o.String("FILTER"));
    request.filter = filter.value_or("");
    BLOOMROUTE_ASSIGN_OR_RETURN(request.time_range, TimeRangeOption(args, o));
  } else {
    // get 't', 'r', 'a', 'b' or get 't', 'r', ['a', 'b']
    std::vector<std::string> names;
    for (size_t i = 2; i < args.size(); ++i) {
      BLOOMROUTE_ASSIGN_OR_RETURN(std::vector<std::string> more,
                                  args.Strings(args.at(i), "a column"));
      names.insert(names.end(), more.begin(), more.end());
    }
    BLOOMROUTE_ASSIGN_OR_RETURN(request.columns, Columns(names));
  }
  BLOOMROUTE_ASSIGN_OR_RETURN(std::vector<std::optional<Row>> rows,
                              c.router.Get(table, {request}));
  const bool found = !rows.empty() && rows[0].has_value();
  PrintRowCells(found ? *rows[0] : Row{request.row_key, {}}, c.out);
  c.out << RowCountLine(found ? 1 : 0) << "\n";
  return Status::OK();
}

// ScanEach, stopping with IOError "interrupted" before a batch when the
// context says so (Ctrl-C).
template <typename EachBatch>
StatusOr<uint64_t> ReadScanner(Context& c, const std::string& table,
                               const router::ScanSpec& spec, uint64_t limit,
                               EachBatch&& each) {
  uint64_t read = 0;
  return ScanEach(c.router, table, spec, limit, [&](std::vector<Row>& batch) {
    each(batch);
    read += batch.size();
    if (c.interrupted && c.interrupted()) {
      return Status::IOError("interrupted after " + std::to_string(read) +
                             " rows");
    }
    return Status::OK();
  });
}

Status Scan(Context& c, const Statement& s) {
  Args args(s, "scan", kScanUsage);
  BLOOMROUTE_RETURN_IF_ERROR(args.Count(1, 2));
  BLOOMROUTE_ASSIGN_OR_RETURN(std::string table, args.String(0, "table name"));
  BLOOMROUTE_ASSIGN_OR_RETURN(
      Options o, args.OptionsAt(1, {"COLUMNS", "LIMIT", "STARTROW", "STOPROW",
                                    "FILTER", "TIMERANGE"}));
  router::ScanSpec spec;
  BLOOMROUTE_ASSIGN_OR_RETURN(std::vector<std::string> names,
                              o.Strings("COLUMNS"));
  BLOOMROUTE_ASSIGN_OR_RETURN(spec.columns, Columns(names));
  BLOOMROUTE_ASSIGN_OR_RETURN(std::optional<std::string> start,
                              o.String("STARTROW"));
  BLOOMROUTE_ASSIGN_OR_RETURN(std::optional<std::string> stop,
                              o.String("STOPROW"));
  BLOOMROUTE_ASSIGN_OR_RETURN(std::optional<std::string> filter,
                              o.String("FILTER"));
  BLOOMROUTE_ASSIGN_OR_RETURN(std::optional<int64_t> limit, o.Integer("LIMIT"));
  BLOOMROUTE_ASSIGN_OR_RETURN(spec.time_range, TimeRangeOption(args, o));
  if (limit && *limit < 1) return args.Error("LIMIT is at least 1");
  spec.start_row = start.value_or("");
  spec.stop_row = stop.value_or("");
  spec.filter = filter.value_or("");
  PrintScanHeader(c.out);
  BLOOMROUTE_ASSIGN_OR_RETURN(
      uint64_t rows,
      ReadScanner(
          c, table, spec, limit ? static_cast<uint64_t>(*limit) : UINT64_MAX,
          [&](const std::vector<Row>& batch) { PrintScanRows(batch, c.out); }));
  c.out << RowCountLine(rows) << "\n";
  return Status::OK();
}

Status DeleteColumnsOrRow(Context& c, const Args& args, bool whole_row) {
  BLOOMROUTE_RETURN_IF_ERROR(args.Count(whole_row ? 2 : 3, 3));
  BLOOMROUTE_ASSIGN_OR_RETURN(std::string table, args.String(0, "table name"));
  BLOOMROUTE_ASSIGN_OR_RETURN(std::string row, args.String(1, "row key"));
  std::vector<std::string> columns;
  if (args.size() == 3) {
    BLOOMROUTE_ASSIGN_OR_RETURN(std::string name, args.String(2, "column"));
    // A family alone would mean "the whole family" to HBase, which the
    // router's delete call does not carry: refuse rather than delete the
    // family's empty qualifier instead.
    if (name.find(':') == std::string::npos) {
      return args.Error(
          "name the column as 'family:qualifier' (deleting a "
          "whole family is not supported)");
    }
    BLOOMROUTE_ASSIGN_OR_RETURN(std::string column, ShellColumn(name));
    columns.push_back(std::move(column));
  }
  return c.router.Mutate(
      table, {Mutation::Delete(0, std::move(row), std::move(columns))});
}

Status Delete(Context& c, const Statement& s) {
  return DeleteColumnsOrRow(c, Args(s, "delete", "delete 't', 'r1', 'd:cc'"),
                            /*whole_row=*/false);
}

Status DeleteAll(Context& c, const Statement& s) {
  return DeleteColumnsOrRow(
      c, Args(s, "deleteall", "deleteall 't', 'r1' [, 'd:cc']"),
      /*whole_row=*/true);
}

// Counts rows by scanning only each row's first cell, as HBase's shell
// does (FirstKeyOnlyFilter), or with a FILTER the row's cells without their
// values.
Status Count(Context& c, const Statement& s) {
  Args args(s, "count", kCountUsage);
  BLOOMROUTE_RETURN_IF_ERROR(args.Count(1, 2));
  BLOOMROUTE_ASSIGN_OR_RETURN(std::string table, args.String(0, "table name"));
  BLOOMROUTE_ASSIGN_OR_RETURN(Options o,
                              args.OptionsAt(1, {"INTERVAL", "FILTER"}));
  BLOOMROUTE_ASSIGN_OR_RETURN(std::optional<int64_t> interval,
                              o.Integer("INTERVAL"));
  BLOOMROUTE_ASSIGN_OR_RETURN(std::optional<std::string> filter,
                              o.String("FILTER"));
  if (interval && *interval < 1) return args.Error("INTERVAL is at least 1");
  const uint64_t every = interval ? static_cast<uint64_t>(*interval) : 1000;
  router::ScanSpec spec;
  // FirstKeyOnlyFilter would hide columns from the user's filter (HBase's
  // cell-level AND, model/filter_language.h); KeyOnlyFilter after it only
  // empties the values of the cells it returns.
  spec.filter =
      filter ? "(" + *filter + ") AND KeyOnlyFilter()" : "FirstKeyOnlyFilter()";
  uint64_t counted = 0;
  BLOOMROUTE_ASSIGN_OR_RETURN(
      uint64_t rows, ReadScanner(c, table, spec, UINT64_MAX,
                                 [&](const std::vector<Row>& batch) {
                                   for (const Row& row : batch) {
                                     if (++counted % every == 0) {
                                       c.out << "Current count: " << counted
                                             << ", row: " << TableField(row.key)
                                             << "\n";
                                     }
                                   }
                                 }));
  c.out << RowCountLine(rows) << "\n";
  return Status::OK();
}

// 'd:cc' => 'NO' is an equality, 'd:cc' => ['NO', 'SE'] an IN list.
Status AddPredicate(const Args& args, const Value& key, const Value& value,
                    router::LookupSpec* spec) {
  if (key.kind != Value::Kind::kString) {
    return args.Error("a predicate's column is a quoted string, not " +
                      key.Describe());
  }
  IndexPredicate p;
  BLOOMROUTE_ASSIGN_OR_RETURN(p.column, ShellColumn(key.text));
  if (value.kind == Value::Kind::kString) {
    p.values.push_back(value.text);
  } else if (value.kind == Value::Kind::kList && !value.items.empty()) {
    p.op = IndexOp::kIn;
    for (const Value& item : value.items) {
      if (item.kind != Value::Kind::kString) {
        return args.Error("an IN list holds quoted strings, not " +
                          item.Describe());
      }
      p.values.push_back(item.text);
    }
  } else {
    return args.Error(
        "a predicate's value is a string or a list of them, "
        "not " +
        value.Describe());
  }
  spec->where.push_back(std::move(p));
  return Status::OK();
}

Status Lookup(Context& c, const Statement& s) {
  Args args(s, "lookup", kLookupUsage);
  BLOOMROUTE_ASSIGN_OR_RETURN(std::string table, args.String(0, "table name"));
  router::LookupSpec spec;
  spec.limit = 1000;
  for (size_t i = 1; i < args.size(); ++i) {
    if (!args.IsHash(i)) return args.Error("expected 'column' => 'value'");
    for (const auto& [key, value] : args.at(i).pairs) {
      if (key.kind != Value::Kind::kWord) {
        BLOOMROUTE_RETURN_IF_ERROR(AddPredicate(args, key, value, &spec));
      } else if (key.text == "LIMIT" && value.kind == Value::Kind::kInteger &&
                 value.integer >= 1 && value.integer <= kMaxRowsPerCall) {
        spec.limit = static_cast<uint32_t>(value.integer);
      } else if (key.text == "COLUMNS") {
        BLOOMROUTE_ASSIGN_OR_RETURN(std::vector<std::string> names,
                                    args.Strings(value, "COLUMNS"));
        BLOOMROUTE_ASSIGN_OR_RETURN(spec.columns, Columns(names));
      } else {
        return args.Error("bad option " + key.Describe() + " => " +
                          value.Describe() + " (LIMIT => 1 to " +
                          std::to_string(kMaxRowsPerCall) +
                          ", COLUMNS => ['d:cc'])");
      }
    }
  }
  if (spec.where.empty()) return args.Error("give at least one predicate");
  BLOOMROUTE_ASSIGN_OR_RETURN(router::LookupResult result,
                              c.router.Lookup(table, spec));
  PrintScanHeader(c.out);
  PrintScanRows(result.rows, c.out);
  c.out << RowCountLine(result.rows.size()) << "\n"
        << RoutingLine(result) << "\n";
  if (result.truncated) {
    c.out << "more rows matched than the " << result.rows.size()
          << " printed (raise LIMIT)\n";
  }
  return Status::OK();
}

}  // namespace

void AddRowCommands(std::vector<CommandSpec>* out) {
  out->insert(
      out->end(),
      {
          {"put", "dml", kPutUsage,
           "Writes one cell; the router updates the table's indexes and "
           "filters with it. TIMESTAMP is milliseconds since the epoch "
           "(default: the region server's clock).",
           false, Put},
          {"get", "dml", kGetUsage,
           "Reads one row by its key: every column, or those named.", false,
           Get},
          {"scan", "dml", kScanUsage,
           "Reads rows in key order. FILTER is HBase's filter language; a "
           "filter that pins indexed columns (SingleColumnValueFilter with "
           "=) is answered through the index, asking only the servers the "
           "router's filters cannot rule out.",
           false, Scan},
          {"delete", "dml", "delete 't', 'r1', 'd:cc'",
           "Deletes a column of a row (every version).", false, Delete},
          {"deleteall", "dml", "deleteall 't', 'r1' [, 'd:cc']",
           "Deletes a whole row, or one column of it.", false, DeleteAll},
          {"count", "dml", kCountUsage,
           "Counts a table's rows, printing the count every INTERVAL rows "
           "(default 1000).",
           false, Count},
          {"lookup", "index", kLookupUsage,
           "Looks rows up by indexed column values (the AND of the "
           "predicates; a list is any of its values), then prints the "
           "routing line: servers asked, of how many, and how many held "
           "rows.",
           false, Lookup},
      });
}

}  // namespace bloomroute::shell
