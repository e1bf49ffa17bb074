#include "tools/admin_command.h"

#include <iostream>
#include <limits>
#include <string>
#include <vector>

#include "thrift/router_client.h"
#include "thrift/thrift_server.h"
#include "tools/admin_format.h"
#include "tools/row_format.h"

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
         false, false, false, &AdminCommand::RunServers},
        {"regions",
         "a table's regions with their server, state, rows and bytes", true,
         false, false, &AdminCommand::RunRegions},
        {"add-server",
         "makes a region server a member (prints it; a member's address "
         "prints that member)",
         false, false, true, &AdminCommand::RunAddServer},
        {"set-address", "re-points a member that came back on another address",
         false, true, true, &AdminCommand::RunSetAddress},
        {"remove-server",
         "forgets a member that holds no region (move its regions first)",
         false, true, false, &AdminCommand::RunRemoveServer},
};

namespace {

// As the router's --regionserver: host:port with a port that is not 0.
Status ValidateServerAddress(const std::string& address) {
  std::string host;
  int port = 0;
  BLOOMROUTE_RETURN_IF_ERROR(
      ParseListenAddress(address, &host, &port).WithContext("HOST:PORT"));
  if (port == 0) {
    return Status::InvalidArgument(address +
                                   ": a region server's port is not 0");
  }
  return Status::OK();
}

}  // namespace

AdminCommand::AdminCommand()
    : Command("admin", "what is where: servers and regions, rows and bytes") {}

AdminCommand::~AdminCommand() = default;

std::string AdminCommand::HelpEpilog() const {
  std::string out = "Subcommands (the first positional argument):\n";
  for (const Subcommand& s : kSubcommands) {
    out += std::string("  ") + s.name + (s.needs_table ? " --table T" : "") +
           (s.needs_server ? " --server ID" : "") +
           (s.needs_address ? " HOST:PORT" : "") + "  " + s.summary + "\n";
  }
  return out +
         "Membership changes are written to the router's catalog before they\n"
         "take effect and survive its restarts: a restarted router connects\n"
         "every member at its stored address, --regionserver flag or not.\n"
         "add-server: a server that does not answer yet is still added;\n"
         "new tables place regions on it, none move. Its filter config is\n"
         "the cluster's from the router's start: a member count crossing a\n"
         "power of two takes effect at the next router start. remove-server:\n"
         "ids are never reused; a removed server is listed no more.\n"
         "--format json applies to servers, regions and add-server.\n" +
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
       "servers, regions, add-server, set-address or remove-server (also "
       "the first positional argument)")  //
      ("address", po::value<std::string>(&address_)->value_name("HOST:PORT"),
       "add-server, set-address: the region server's address (also the "
       "second positional argument)")  //
      ("table", po::value<std::string>(&table_),
       "regions: the table")  //
      ("server", po::value<int64_t>(&server_)->value_name("ID"),
       "set-address, remove-server: the region server's id (admin servers "
       "lists them)")  //
      ("format", po::value<std::string>(&format_)->default_value("table"),
       "table or json");
}

void AdminCommand::AddPositional(po::positional_options_description* p) {
  p->add("subcommand", 1);
  p->add("address", 1);
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
  BLOOMROUTE_RETURN_IF_ERROR(ValidateArguments());
  if (format_ != "table" && format_ != "json") {
    return Status::InvalidArgument("--format must be table or json");
  }
  BLOOMROUTE_RETURN_IF_ERROR(connection_.Validate());
  RouterClientOptions options;
  options.call_timeout_ms = kAdminListTimeoutMs;
  BLOOMROUTE_ASSIGN_OR_RETURN(client_, connection_.Connect(options));
  return Status::OK();
}

Status AdminCommand::ValidateArguments() const {
  const std::string name = subcommand_->name;
  if (subcommand_->needs_table != !table_.empty()) {
    return Status::InvalidArgument(
        name + (subcommand_->needs_table ? " needs" : " takes no") +
        " --table");
  }
  if (subcommand_->needs_server != (server_ != 0)) {
    return Status::InvalidArgument(
        name + (subcommand_->needs_server ? " needs" : " takes no") +
        " --server");
  }
  if (server_ < 0 || server_ > std::numeric_limits<int32_t>::max()) {
    return Status::InvalidArgument(
        "--server must be a region server id in [1, 2147483647]");
  }
  if (subcommand_->needs_address != !address_.empty()) {
    return Status::InvalidArgument(
        name + (subcommand_->needs_address ? " needs" : " takes no") +
        " HOST:PORT");
  }
  if (subcommand_->needs_address) {
    BLOOMROUTE_RETURN_IF_ERROR(ValidateServerAddress(address_));
  }
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

Status AdminCommand::RunAddServer() {
  BLOOMROUTE_ASSIGN_OR_RETURN(router::ServerRef added,
                              client_->AddServer(address_));
  if (format_ == "json") {
    std::cout << "{\"id\":" << added.id
              << ",\"address\":" << JsonString(added.address) << "}\n";
  } else {
    std::cout << "region server " << added.id << " at " << added.address
              << " is a member\n";
  }
  return Status::OK();
}

Status AdminCommand::RunSetAddress() {
  const auto id = static_cast<router::ServerId>(server_);
  BLOOMROUTE_RETURN_IF_ERROR(client_->SetServerAddress(id, address_));
  std::cout << "region server " << id << " is at " << address_ << "\n";
  return Status::OK();
}

Status AdminCommand::RunRemoveServer() {
  const auto id = static_cast<router::ServerId>(server_);
  BLOOMROUTE_RETURN_IF_ERROR(client_->RemoveServer(id));
  std::cout << "region server " << id << " is removed\n";
  return Status::OK();
}

}  // namespace bloomroute
