#include "tools/admin_command.h"

#include <iostream>
#include <string>
#include <vector>

#include "thrift/router_client.h"
#include "tools/admin_format.h"

namespace bloomroute {
namespace po = boost::program_options;
namespace {

// How long the router may take to answer: every server counts the rows of
// its regions (about as slow as reading them), each waited for up to the
// router's --long-call-timeout (600 s by default).
constexpr int kAdminListTimeoutMs = 11 * 60 * 1000;

}  // namespace

const AdminCommand::Subcommand
    AdminCommand::kSubcommands[AdminCommand::kSubcommandCount] = {
        {"servers", "every region server with its regions, rows and bytes",
         false, &AdminCommand::RunServers},
        {"regions",
         "a table's regions with their server, state, rows and bytes", true,
         &AdminCommand::RunRegions},
};

AdminCommand::AdminCommand()
    : Command("admin", "what is where: servers and regions, rows and bytes") {}

AdminCommand::~AdminCommand() = default;

std::string AdminCommand::HelpEpilog() const {
  std::string out = "Subcommands (the first positional argument):\n";
  for (const Subcommand& s : kSubcommands) {
    out += std::string("  ") + s.name + (s.needs_table ? " --table T" : "") +
           "  " + s.summary + "\n";
  }
  return out +
         "Rows are exact: each region server counts its regions' rows when\n"
         "asked (about as slow as reading them; a server answers at most\n"
         "1000 regions or 4,000,000 counted rows a call and the router asks\n"
         "again). Bytes are RocksDB's approximation (SST files and\n"
         "memtables, rows and local index entries): flushed data counts its\n"
         "compressed size on disk, data not yet flushed its (larger) size in\n"
         "memory. A server that does not answer is listed as unreachable\n"
         "with its error. Needs the admin role on a secured router.\n"
         "Exit codes: 0 done; 1 the router refused or failed; 2 bad usage.\n";
}

void AdminCommand::AddOptions(po::options_description* o) {
  connection_.Add(o);
  o->add_options()  //
      ("subcommand", po::value<std::string>(&subcommand_name_)->required(),
       "servers or regions (also the first positional argument)")  //
      ("table", po::value<std::string>(&table_),
       "regions: the table")  //
      ("format", po::value<std::string>(&format_)->default_value("table"),
       "table or json");
}

void AdminCommand::AddPositional(po::positional_options_description* p) {
  p->add("subcommand", 1);
}

Status AdminCommand::Validate() {
  std::string names;
  for (const Subcommand& s : kSubcommands) {
    if (subcommand_name_ == s.name) subcommand_ = &s;
    names += std::string(names.empty() ? "" : ", ") + s.name;
  }
  if (subcommand_ == nullptr) {
    return Status::InvalidArgument("unknown admin subcommand " +
                                   QuoteForMessage(subcommand_name_) +
                                   "; give one of " + names);
  }
  if (subcommand_->needs_table && table_.empty()) {
    return Status::InvalidArgument(std::string(subcommand_->name) +
                                   " needs --table");
  }
  if (!subcommand_->needs_table && !table_.empty()) {
    return Status::InvalidArgument(std::string(subcommand_->name) +
                                   " takes no --table");
  }
  if (format_ != "table" && format_ != "json") {
    return Status::InvalidArgument("--format must be table or json");
  }
  BLOOMROUTE_RETURN_IF_ERROR(connection_.Validate());
  RouterClientOptions options;
  options.call_timeout_ms = kAdminListTimeoutMs;
  BLOOMROUTE_ASSIGN_OR_RETURN(client_, connection_.Connect(options));
  return Status::OK();
}

Status AdminCommand::Execute() { return (this->*(subcommand_->run))(); }

Status AdminCommand::RunServers() {
  BLOOMROUTE_ASSIGN_OR_RETURN(std::vector<router::ServerSummary> servers,
                              client_->ListServers());
  std::cout << (format_ == "json" ? FormatServersJson(servers)
                                  : FormatServersTable(servers));
  return Status::OK();
}

Status AdminCommand::RunRegions() {
  BLOOMROUTE_ASSIGN_OR_RETURN(std::vector<router::RegionSummary> regions,
                              client_->ListRegions(table_));
  std::cout << (format_ == "json" ? FormatRegionsJson(table_, regions)
                                  : FormatRegionsTable(table_, regions));
  return Status::OK();
}

}  // namespace bloomroute
