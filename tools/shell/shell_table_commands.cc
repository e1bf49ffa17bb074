// The shell's table commands: create, list, describe, exists, is_enabled,
// disable, enable, drop, truncate, truncate_preserve.
#include <algorithm>
#include <regex>

#include "tools/index_command.h"
#include "tools/row_format.h"
#include "tools/shell/shell_args.h"
#include "tools/shell/shell_commands.h"
#include "tools/shell/shell_output.h"

namespace bloomroute::shell {
namespace {

constexpr char kCreateUsage[] =
    "create 't', 'd' [, 'e' ...] [, {INDEX => ['d:cc', 'd:fc'], "
    "SPLITS => ['g', 'n']}]";

// A family argument: 'd' or {NAME => 'd'}.
Status AddFamily(const Args& args, size_t i, router::TableSpec* spec) {
  std::string family;
  if (args.IsString(i)) {
    family = args.at(i).text;
  } else {
    BLOOMROUTE_ASSIGN_OR_RETURN(Options o, args.OptionsAt(i, {"NAME"}));
    BLOOMROUTE_ASSIGN_OR_RETURN(std::optional<std::string> name,
                                o.String("NAME"));
    if (!name) return args.Error("a family hash names it: {NAME => 'd'}");
    family = *name;
  }
  if (family.empty() || family.find(':') != std::string::npos) {
    return args.Error("a family name is not empty and holds no ':'");
  }
  spec->families.push_back(std::move(family));
  return Status::OK();
}

// The table options: INDEX, SPLITS, NUMREGIONS.
Status AddTableOptions(const Args& args, size_t i, router::TableSpec* spec) {
  BLOOMROUTE_ASSIGN_OR_RETURN(
      Options o, args.OptionsAt(i, {"INDEX", "SPLITS", "NUMREGIONS"}));
  BLOOMROUTE_ASSIGN_OR_RETURN(std::vector<std::string> index,
                              o.Strings("INDEX"));
  // Qualified once every family is known (Create).
  spec->indexed_columns.insert(spec->indexed_columns.end(), index.begin(),
                               index.end());
  BLOOMROUTE_ASSIGN_OR_RETURN(spec->split_keys, o.Strings("SPLITS"));
  BLOOMROUTE_ASSIGN_OR_RETURN(std::optional<int64_t> regions,
                              o.Integer("NUMREGIONS"));
  if (regions) {
    if (*regions < 1 || *regions > router::TableSpec::kMaxRegions) {
      return args.Error("NUMREGIONS is 1 to " +
                        std::to_string(router::TableSpec::kMaxRegions));
    }
    spec->region_count = static_cast<uint32_t>(*regions);
  }
  return Status::OK();
}

Status Create(Context& c, const Statement& s) {
  Args args(s, "create", kCreateUsage);
  router::TableSpec spec;
  BLOOMROUTE_ASSIGN_OR_RETURN(spec.name, args.String(0, "table name"));
  for (size_t i = 1; i < args.size(); ++i) {
    const bool family_hash =
        args.IsHash(i) && !args.at(i).pairs.empty() &&
        args.at(i).pairs[0].first.kind == Value::Kind::kWord &&
        args.at(i).pairs[0].first.text == "NAME";
    if (args.IsString(i) || family_hash) {
      BLOOMROUTE_RETURN_IF_ERROR(AddFamily(args, i, &spec));
    } else {
      BLOOMROUTE_RETURN_IF_ERROR(AddTableOptions(args, i, &spec));
    }
  }
  if (spec.families.empty()) {
    return args.Error("a table has at least one column family");
  }
  // An INDEX name without a family ('cc') is a column of the table's only
  // family, as the import tool names columns.
  for (std::string& name : spec.indexed_columns) {
    if (name.find(':') == std::string::npos && spec.families.size() == 1) {
      name = spec.families[0] + ":" + name;
    }
    BLOOMROUTE_ASSIGN_OR_RETURN(name, ShellColumn(name));
  }
  BLOOMROUTE_ASSIGN_OR_RETURN(router::TableInfo info,
                              c.router.CreateTable(spec));
  c.tables_changed = true;
  c.out << "Created table " << info.descriptor.name << " with "
        << info.regions.size()
        << (info.regions.size() == 1 ? " region" : " regions");
  if (!spec.indexed_columns.empty()) c.out << ", indexed on";
  for (size_t i = 0; i < spec.indexed_columns.size(); ++i) {
    c.out << (i ? ", " : " ") << spec.indexed_columns[i];
  }
  c.out << "\n";
  return Status::OK();
}

Status List(Context& c, const Statement& s) {
  Args args(s, "list", "list [ 'regex' ]");
  BLOOMROUTE_RETURN_IF_ERROR(args.Count(0, 1));
  std::optional<std::regex> pattern;
  if (args.size() == 1) {
    BLOOMROUTE_ASSIGN_OR_RETURN(std::string text, args.String(0, "pattern"));
    try {
      pattern.emplace(text, std::regex::ECMAScript);
    } catch (const std::regex_error& e) {
      return args.Error("bad pattern " + args.at(0).Describe() + ": " +
                        e.what());
    }
  }
  BLOOMROUTE_ASSIGN_OR_RETURN(std::vector<TableDescriptor> tables,
                              c.router.ListTables());
  std::vector<std::string> names;
  for (const TableDescriptor& t : tables) {
    if (!pattern || std::regex_match(t.name, *pattern)) names.push_back(t.name);
  }
  std::sort(names.begin(), names.end());
  c.out << "TABLE\n";
  for (const std::string& name : names) c.out << name << "\n";
  c.out << RowCountLine(names.size()) << "\n";
  return Status::OK();
}

StatusOr<std::string> TableArg(const Statement& s, const char* command) {
  Args args(s, command, std::string(command) + " 't'");
  BLOOMROUTE_RETURN_IF_ERROR(args.Count(1, 1));
  return args.String(0, "table name");
}

void PrintRegions(const router::TableInfo& info, std::ostream& out) {
  out << "REGIONS (" << info.regions.size() << ")\n";
  for (const router::RegionLocation& r : info.regions) {
    const std::string start =
        r.region.start_key.empty() ? "-" : TableField(r.region.start_key);
    const std::string end =
        r.region.end_key.empty() ? "-" : TableField(r.region.end_key);
    out << " " << r.region.region_id << " [" << start << ", " << end << ") on "
        << r.server.address << "\n";
  }
}

Status Describe(Context& c, const Statement& s) {
  BLOOMROUTE_ASSIGN_OR_RETURN(std::string table, TableArg(s, "describe"));
  BLOOMROUTE_ASSIGN_OR_RETURN(router::TableInfo info,
                              c.router.DescribeTable(table));
  BLOOMROUTE_ASSIGN_OR_RETURN(bool enabled, c.router.IsTableEnabled(table));
  BLOOMROUTE_ASSIGN_OR_RETURN(std::vector<router::IndexState> indexes,
                              c.router.IndexStatus(table));
  c.out << "Table " << table << " is " << (enabled ? "ENABLED" : "DISABLED")
        << "\nCOLUMN FAMILIES DESCRIPTION\n";
  if (info.descriptor.families.empty()) {
    c.out << "(any family: the table declares none)\n";
  }
  for (const std::string& family : info.descriptor.families) {
    c.out << "{NAME => '" << TableField(family) << "'}\n";
  }
  c.out << "INDEXED COLUMNS\n";
  if (indexes.empty()) c.out << "(none)\n";
  for (const router::IndexState& index : indexes) {
    c.out << " " << FormatIndexProgress(index) << "\n";
  }
  PrintRegions(info, c.out);
  return Status::OK();
}

Status Exists(Context& c, const Statement& s) {
  BLOOMROUTE_ASSIGN_OR_RETURN(std::string table, TableArg(s, "exists"));
  StatusOr<router::TableInfo> info = c.router.DescribeTable(table);
  if (!info.ok() && info.status().code() != Status::Code::kNotFound) {
    return info.status();
  }
  c.out << "Table " << table << (info.ok() ? " does exist" : " does not exist")
        << "\n";
  return Status::OK();
}

Status IsEnabled(Context& c, const Statement& s) {
  BLOOMROUTE_ASSIGN_OR_RETURN(std::string table, TableArg(s, "is_enabled"));
  BLOOMROUTE_ASSIGN_OR_RETURN(bool enabled, c.router.IsTableEnabled(table));
  c.out << (enabled ? "true" : "false") << "\n";
  return Status::OK();
}

Status Disable(Context& c, const Statement& s) {
  BLOOMROUTE_ASSIGN_OR_RETURN(std::string table, TableArg(s, "disable"));
  return c.router.DisableTable(table);
}

Status Enable(Context& c, const Statement& s) {
  BLOOMROUTE_ASSIGN_OR_RETURN(std::string table, TableArg(s, "enable"));
  return c.router.EnableTable(table);
}

// HBase's shell refuses to drop an enabled table; so does the router's
// deleteTable, under the lock that deletes.
Status Drop(Context& c, const Statement& s) {
  BLOOMROUTE_ASSIGN_OR_RETURN(std::string table, TableArg(s, "drop"));
  Status dropped = c.router.DeleteDisabledTable(table);
  if (dropped.code() == Status::Code::kInvalidArgument &&
      dropped.message().find("is not disabled") != std::string::npos) {
    return dropped.WithContext("disable it first (disable '" + table + "')");
  }
  BLOOMROUTE_RETURN_IF_ERROR(dropped);
  c.tables_changed = true;
  return Status::OK();
}

// HBase's shell truncates an enabled table: it disables it first.
Status TruncateWith(Context& c, const std::string& table,
                    bool preserve_splits) {
  BLOOMROUTE_ASSIGN_OR_RETURN(bool enabled, c.router.IsTableEnabled(table));
  if (enabled) {
    c.out << "Disabling table...\n";
    BLOOMROUTE_RETURN_IF_ERROR(c.router.DisableTable(table));
  }
  c.out << "Truncating table...\n";
  return c.router.TruncateTable(table, preserve_splits);
}

Status Truncate(Context& c, const Statement& s) {
  BLOOMROUTE_ASSIGN_OR_RETURN(std::string table, TableArg(s, "truncate"));
  return TruncateWith(c, table, /*preserve_splits=*/false);
}

Status TruncatePreserve(Context& c, const Statement& s) {
  BLOOMROUTE_ASSIGN_OR_RETURN(std::string table,
                              TableArg(s, "truncate_preserve"));
  return TruncateWith(c, table, /*preserve_splits=*/true);
}

}  // namespace

void AddTableCommands(std::vector<CommandSpec>* out) {
  out->insert(
      out->end(),
      {
          {"create", "ddl", kCreateUsage,
           "Creates a table with its column families (puts to other "
           "families are refused). INDEX names the indexed columns "
           "('family:qualifier', or a qualifier of the only family); "
           "SPLITS the row keys where regions start; NUMREGIONS a number "
           "of regions splitting the key space evenly (default: one per "
           "region server).",
           false, Create},
          {"list", "ddl", "list [ 'regex' ]",
           "Lists the tables, those whose whole name matches the regular "
           "expression when one is given.",
           false, List},
          {"describe", "ddl", "describe 't'",
           "Shows a table: enabled or not, its column families, its "
           "indexes with their state, and its regions with their servers.",
           false, Describe},
          {"exists", "ddl", "exists 't'", "Says whether the table exists.",
           false, Exists},
          {"is_enabled", "ddl", "is_enabled 't'",
           "Prints true when the table is enabled.", false, IsEnabled},
          {"disable", "ddl", "disable 't'",
           "Disables a table: it keeps its rows and refuses reads and "
           "writes until enabled.",
           false, Disable},
          {"enable", "ddl", "enable 't'", "Enables a disabled table.", false,
           Enable},
          {"drop", "ddl", "drop 't'",
           "Deletes a disabled table with its rows and indexes.", false, Drop},
          {"truncate", "ddl", "truncate 't'",
           "Removes every row of a table (disabling it first; it is enabled "
           "again after); the table then has one region.",
           false, Truncate},
          {"truncate_preserve", "ddl", "truncate_preserve 't'",
           "As truncate, keeping the table's region boundaries.", false,
           TruncatePreserve},
      });
}

}  // namespace bloomroute::shell
