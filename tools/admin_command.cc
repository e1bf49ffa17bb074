#include "tools/admin_command.h"

#include <algorithm>
#include <iostream>
#include <limits>
#include <string>
#include <tuple>
#include <vector>

#include "thrift/router_client.h"
#include "thrift/server/thrift_server.h"
#include "tools/admin_format.h"
#include "tools/row_format.h"

namespace bloomroute {
namespace po = boost::program_options;
namespace {

// How long the router may take to answer a listing: every server counts
// the rows of its regions (about as slow as reading them), each waited for
// up to the router's --long-call-timeout (600 s by default).
constexpr int kAdminListTimeoutMs = 11 * 60 * 1000;
// A region operation answers when it is done: copying a region of 1 GiB
// takes about a minute, a decommission one such copy per region. The
// default waits a day; a call that times out leaves the operation running
// on the router.
constexpr int64_t kDefaultOpTimeoutSeconds = 24 * 3600;
constexpr int64_t kMaxOpTimeoutSeconds = std::numeric_limits<int>::max() / 1000;

}  // namespace

const AdminCommand::Subcommand
    AdminCommand::kSubcommands[AdminCommand::kSubcommandCount] = {
        {"servers", "", "every region server with its regions, rows and bytes",
         0, 0, false, &AdminCommand::RunServers},
        {"routers", "",
         "the ZooKeeper cluster's live routers (which one serves) and region "
         "servers",
         0, 0, false, &AdminCommand::RunRouters},
        {"regions", "--table T",
         "a table's regions with their server, state, rows and bytes", kTable,
         kTable, false, &AdminCommand::RunRegions},
        {"add-server", "HOST:PORT",
         "makes a region server a member (prints it; a member's address "
         "prints that member)",
         kAddress, kAddress, false, &AdminCommand::RunAddServer},
        {"set-address", "--server ID HOST:PORT",
         "re-points a member that came back on another address",
         kServer | kAddress, kServer | kAddress, false,
         &AdminCommand::RunSetAddress},
        {"remove-server", "--server ID",
         "forgets a member that holds no region (move its regions first)",
         kServer, kServer, false, &AdminCommand::RunRemoveServer},
        {"decommission", "SERVER",
         "moves a member's regions away, one at a time, then forgets it",
         kServer | kAddress, 0, true, &AdminCommand::RunDecommission},
        {"move", "--region ID --to SERVER",
         "moves a region to another member while it serves", kRegion | kTo,
         kRegion | kTo, true, &AdminCommand::RunMove},
        {"split", "(--region ID | --table T) [--row KEY]",
         "splits a region at KEY or its median key (--table: every region, "
         "or the one holding KEY)",
         kRegion | kTable | kRow, 0, true, &AdminCommand::RunSplit},
        {"merge", "--region ID --region ID",
         "merges two adjacent regions of a table", kRegion, kRegion, true,
         &AdminCommand::RunMerge},
        {"balance", "[--max-operations N]",
         "splits regions past their size, then evens regions across members",
         kMaxOps, 0, true, &AdminCommand::RunBalance},
        {"quota",
         "set|remove|list [--user U] [--table T] [--requests RATE] "
         "[--bytes RATE]",
         "sets, removes or lists a principal's request and byte quotas",
         kAddress | kUser | kTable | kRates, kAddress, false,
         &AdminCommand::RunQuota},
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

// SERVER as given: an id (digits, in [1, 2^31-1]) or a HOST:PORT.
Status ValidateServerArgument(const std::string& what,
                              const std::string& server) {
  if (!server.empty() && std::all_of(server.begin(), server.end(), [](char c) {
        return c >= '0' && c <= '9';
      })) {
    if (server.size() > 10 || std::stoll(server) < 1 ||
        std::stoll(server) > std::numeric_limits<int32_t>::max()) {
      return Status::InvalidArgument(
          what + " " + server + ": a region server id is in [1, 2147483647]");
    }
    return Status::OK();
  }
  return ValidateServerAddress(server).WithContext(what);
}

}  // namespace

AdminCommand::AdminCommand()
    : Command("admin",
              "the cluster's shape: servers and regions, membership, region "
              "moves, splits and merges, the balancer") {}

AdminCommand::~AdminCommand() = default;

std::string AdminCommand::HelpEpilog() const {
  std::string out = "Subcommands (the first positional argument):\n";
  for (const Subcommand& s : kSubcommands) {
    out += std::string("  ") + s.name + (*s.usage ? " " : "") + s.usage +
           "\n      " + s.summary + "\n";
  }
  return out +
         "SERVER is a member's id or its HOST:PORT (admin servers lists "
         "them).\n"
         "Membership changes are written to the router's catalog before they\n"
         "take effect and survive its restarts: a restarted router connects\n"
         "every member at its stored address, --regionserver flag or not.\n"
         "add-server: a server that does not answer yet is still added;\n"
         "new tables place regions on it, none move (balance moves them).\n"
         "Its filter config is the cluster's from the router's start: a\n"
         "member count crossing a power of two takes effect at the next\n"
         "router start. remove-server: ids are never reused; a removed\n"
         "server is listed no more.\n"
         "move, split, merge: the old regions' rows are copied into new\n"
         "regions while they serve, writes made meanwhile are carried over,\n"
         "then the table switches in one catalog write; writes to the\n"
         "region wait only for that switch, reads never miss a row. Each\n"
         "answers when done (rows copied, the writes' wait at the switch);\n"
         "one runs at a time. A call that times out (--timeout) leaves the\n"
         "operation running on the router. A region with fewer than 2 rows\n"
         "has no median: give --row. split --table skips such regions.\n"
         "balance: the router's --region-split-bytes and\n"
         "--balancer-max-operations decide; it exits 1 when an operation\n"
         "failed, 0 when balanced or stopped at the operation limit. A\n"
         "region whose split or move failed is skipped for 60 s, doubled\n"
         "per failure in a row up to an hour, and the run goes on with the\n"
         "others; admin regions lists why and for how long.\n"
         "quota: a principal (a token's user or a client certificate's\n"
         "name) may make --requests calls and move --bytes bytes (requests\n"
         "and replies) per period, over every table or, with --table, over\n"
         "the calls naming that table. RATE: 1000req/sec, 50M/sec, 10K/min\n"
         "(B K M G T P are powers of 1024; sec min hour day), none for no\n"
         "limit. set replaces the user's quota on the table (a limit not\n"
         "given is none); remove forgets it. A call over a quota is\n"
         "refused with RpcThrottlingException (canRetry) and the time to\n"
         "wait. Quotas live in the router's catalog; with none set nothing\n"
         "is throttled. They apply on a TLS router (principals need it).\n"
         "Rows in listings are exact: each region server counts its\n"
         "regions' rows when asked (about as slow as reading them). Bytes\n"
         "are RocksDB's approximation (SST files and memtables, rows and\n"
         "local index entries). A server that does not answer is listed as\n"
         "unreachable with its error. --format json applies to every\n"
         "subcommand but set-address and remove-server. Needs the admin\n"
         "role on a secured router.\n"
         "Exit codes: 0 done; 1 the router refused or failed; 2 bad usage.\n";
}

namespace {

// --max-operations' help, with the router's bound on a balancer run.
std::string MaxOperationsHelp() {
  constexpr router::FieldRange kOps =
      router::RouterOptions::kBalancerMaxOperationsRange;
  return "balance: at most N splits and moves, in [" +
         std::to_string(kOps.min) + ", " + std::to_string(kOps.max) +
         "] (default: the router's --balancer-max-operations)";
}

}  // namespace

void AdminCommand::AddOptions(po::options_description* o) {
  const std::string max_operations_help = MaxOperationsHelp();
  connection_.Add(o);
  o->add_options()  //
      ("subcommand", po::value<std::string>(&subcommand_name_)->required(),
       "servers, routers, regions, add-server, set-address, remove-server, "
       "decommission, move, split, merge, balance or quota (also the first "
       "positional argument)")  //
      ("address", po::value<std::string>(&address_)->value_name("HOST:PORT"),
       "add-server, set-address: the region server's address; decommission: "
       "SERVER; quota: set, remove or list (also the second positional "
       "argument)")  //
      ("table", po::value<std::string>(&table_),
       "regions, split: the table; quota: the table the quota counts "
       "(default: every table)")  //
      ("user", po::value<std::string>(&user_),
       "quota: the principal (a token's user or a certificate's name)")  //
      ("requests", po::value<std::string>(&requests_)->value_name("RATE"),
       "quota set: calls per period, as 1000req/sec, or none")  //
      ("bytes", po::value<std::string>(&bytes_)->value_name("RATE"),
       "quota set: request and reply bytes per period, as 50M/sec, or "
       "none")  //
      ("server", po::value<int64_t>(&server_)->value_name("ID"),
       "set-address, remove-server, decommission: the region server's id "
       "(admin servers lists them)")  //
      ("region",
       po::value<std::vector<int64_t>>(&regions_)
           ->value_name("ID")
           ->composing(),
       "move, split: the region; merge: give it twice (admin regions lists "
       "them)")  //
      ("to", po::value<std::string>(&to_)->value_name("SERVER"),
       "move: the member to move the region to, by id or HOST:PORT")  //
      ("row", po::value<std::string>(&row_)->value_name("KEY"),
       "split: the row key the upper region starts at (default: the "
       "region's median key, from a sample of its keys)")  //
      ("max-operations", po::value<int64_t>(&max_operations_)->value_name("N"),
       max_operations_help.c_str())  //
      ("timeout",
       po::value<int64_t>(&timeout_seconds_)
           ->default_value(kDefaultOpTimeoutSeconds)
           ->value_name("SECONDS"),
       "decommission, move, split, merge, balance: how long to wait for "
       "the router's answer")  //
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
  if (subcommand_->run == &AdminCommand::RunQuota) {
    BLOOMROUTE_RETURN_IF_ERROR(ValidateQuota());
  }
  if (format_ != "table" && format_ != "json") {
    return Status::InvalidArgument("--format must be table or json");
  }
  if (timeout_seconds_ < 1 || timeout_seconds_ > kMaxOpTimeoutSeconds) {
    return Status::InvalidArgument("--timeout must be in [1, " +
                                   std::to_string(kMaxOpTimeoutSeconds) +
                                   "] seconds");
  }
  BLOOMROUTE_RETURN_IF_ERROR(connection_.Validate());
  RouterClientOptions options;
  options.call_timeout_ms = subcommand_->long_running
                                ? static_cast<int>(timeout_seconds_ * 1000)
                                : kAdminListTimeoutMs;
  BLOOMROUTE_ASSIGN_OR_RETURN(client_, connection_.Connect(options));
  return Status::OK();
}

namespace {

// decommission's SERVER: given as the positional or as --server, not both.
Status ValidateDecommission(unsigned given, const std::string& address) {
  if ((given & AdminCommand::kServer) != 0 &&
      (given & AdminCommand::kAddress) != 0) {
    return Status::InvalidArgument(
        "decommission takes SERVER or --server, not both");
  }
  if ((given & (AdminCommand::kServer | AdminCommand::kAddress)) == 0) {
    return Status::InvalidArgument("decommission needs SERVER");
  }
  if ((given & AdminCommand::kAddress) != 0) {
    return ValidateServerArgument("SERVER", address);
  }
  return Status::OK();
}

}  // namespace

Status AdminCommand::ValidateArguments() const {
  const std::string name = subcommand_->name;
  unsigned given = 0;
  if (!table_.empty()) given |= kTable;
  if (server_ != 0) given |= kServer;
  if (!address_.empty()) given |= kAddress;
  if (!regions_.empty()) given |= kRegion;
  if (!to_.empty()) given |= kTo;
  if (!row_.empty()) given |= kRow;
  if (max_operations_ != -1) given |= kMaxOps;
  if (!user_.empty()) given |= kUser;
  if (!requests_.empty() || !bytes_.empty()) given |= kRates;
  static const std::vector<std::pair<unsigned, const char*>> kNames = {
      {kTable, "--table"},
      {kServer, "--server"},
      {kAddress, name == "quota" ? "set, remove or list" : "HOST:PORT"},
      {kRegion, "--region"},
      {kTo, "--to"},
      {kRow, "--row"},
      {kMaxOps, "--max-operations"},
      {kUser, "--user"},
      {kRates, "--requests or --bytes"}};
  for (const auto& [bit, flag] : kNames) {
    if ((given & bit) != 0 && (subcommand_->takes & bit) == 0) {
      return Status::InvalidArgument(name + " takes no " + flag);
    }
    if ((subcommand_->needs & bit) != 0 && (given & bit) == 0) {
      return Status::InvalidArgument(name + " needs " + flag);
    }
  }
  return ValidateValues(given);
}

Status AdminCommand::ValidateValues(unsigned given) const {
  const std::string name = subcommand_->name;
  if (server_ < 0 || server_ > std::numeric_limits<int32_t>::max()) {
    return Status::InvalidArgument(
        "--server must be a region server id in [1, 2147483647]");
  }
  for (int64_t r : regions_) {
    if (r < 1) {
      return Status::InvalidArgument("--region " + std::to_string(r) +
                                     ": region ids are >= 1");
    }
  }
  const size_t want_regions = name == "merge" ? 2 : 1;
  if (!regions_.empty() && regions_.size() != want_regions) {
    return Status::InvalidArgument(name + " takes --region " +
                                   (want_regions == 2 ? "twice" : "once"));
  }
  if (name == "add-server" || name == "set-address") {
    BLOOMROUTE_RETURN_IF_ERROR(ValidateServerAddress(address_));
  }
  if (name == "decommission") {
    BLOOMROUTE_RETURN_IF_ERROR(ValidateDecommission(given, address_));
  }
  if (name == "move")
    BLOOMROUTE_RETURN_IF_ERROR(ValidateServerArgument("--to", to_));
  if (name == "split" && ((given & kTable) != 0) == ((given & kRegion) != 0)) {
    return Status::InvalidArgument("split takes --region or --table (one)");
  }
  if (name == "split" && row_.size() > kMaxRowKeyBytes) {
    return Status::InvalidArgument("--row is longer than a row key may be (" +
                                   std::to_string(kMaxRowKeyBytes) + " bytes)");
  }
  // The router's own bound on a run (--balancer-max-operations).
  constexpr router::FieldRange kOps =
      router::RouterOptions::kBalancerMaxOperationsRange;
  if ((given & kMaxOps) != 0 &&
      (max_operations_ < kOps.min || max_operations_ > kOps.max)) {
    return Status::InvalidArgument("--max-operations must be in [" +
                                   std::to_string(kOps.min) + ", " +
                                   std::to_string(kOps.max) + "]");
  }
  return Status::OK();
}

Status AdminCommand::ValidateQuota() {
  action_ = address_;
  if (action_ != "set" && action_ != "remove" && action_ != "list") {
    return Status::InvalidArgument("quota takes set, remove or list, not " +
                                   QuoteForMessage(action_));
  }
  if (action_ == "list") {
    if (!requests_.empty() || !bytes_.empty()) {
      return Status::InvalidArgument(
          "quota list takes no --requests or --bytes");
    }
    return Status::OK();
  }
  if (user_.empty()) {
    return Status::InvalidArgument("quota " + action_ + " needs --user");
  }
  quota_.user = user_;
  quota_.table = table_;
  if (action_ == "remove") {
    if (!requests_.empty() || !bytes_.empty()) {
      return Status::InvalidArgument(
          "quota remove takes no --requests or --bytes (it removes both)");
    }
    return router::ValidateQuota(quota_);
  }
  if (requests_.empty() && bytes_.empty()) {
    return Status::InvalidArgument(
        "quota set needs --requests or --bytes (quota remove removes one)");
  }
  for (auto [text, bytes, flag, limit] :
       {std::tuple(&requests_, false, "--requests", &quota_.requests),
        std::tuple(&bytes_, true, "--bytes", &quota_.bytes)}) {
    if (text->empty()) continue;
    StatusOr<router::QuotaLimit> parsed = ParseQuotaRate(*text, bytes);
    if (!parsed.ok()) return parsed.status().WithContext(flag);
    *limit = *parsed;
  }
  if (quota_.none()) {
    return Status::InvalidArgument("quota set with no limit: use quota remove");
  }
  return router::ValidateQuota(quota_);
}

Status AdminCommand::Execute() { return (this->*(subcommand_->run))(); }

StatusOr<router::ServerId> AdminCommand::ResolveServer(
    const std::string& server) {
  if (std::all_of(server.begin(), server.end(),
                  [](char c) { return c >= '0' && c <= '9'; })) {
    return static_cast<router::ServerId>(std::stoll(server));
  }
  BLOOMROUTE_ASSIGN_OR_RETURN(router::ClusterStatus status,
                              client_->GetClusterStatus());
  for (const router::ServerStatus& s : status.servers) {
    if (s.server.address == server) return s.server.id;
  }
  return Status::InvalidArgument("no member is at " + server +
                                 " (admin servers lists them)");
}

void AdminCommand::PrintOp(const std::string& kind,
                           const std::vector<uint64_t>& from,
                           const router::RegionOpResult& result) const {
  std::cout << (format_ == "json"
                    ? FormatRegionOpJson(kind, from, result) + "\n"
                    : FormatRegionOpText(kind, from, result));
}

Status AdminCommand::RunServers() {
  BLOOMROUTE_ASSIGN_OR_RETURN(std::vector<router::ServerSummary> servers,
                              client_->ListServers());
  std::cout << (format_ == "json" ? FormatServersJson(servers)
                                  : FormatServersTable(servers));
  return Status::OK();
}

Status AdminCommand::RunRouters() {
  BLOOMROUTE_ASSIGN_OR_RETURN(const coord::ClusterMembers members,
                              client_->ClusterMembers());
  std::cout << (format_ == "json" ? FormatMembersJson(members)
                                  : FormatMembersText(members));
  return Status::OK();
}

Status AdminCommand::RunRegions() {
  BLOOMROUTE_ASSIGN_OR_RETURN(
      std::vector<router::RegionSummary> regions,
      ExplainTableNotFound(*client_, table_, client_->ListRegions(table_)));
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

Status AdminCommand::RunDecommission() {
  router::ServerId id = static_cast<router::ServerId>(server_);
  if (id == 0) {
    BLOOMROUTE_ASSIGN_OR_RETURN(id, ResolveServer(address_));
  }
  BLOOMROUTE_ASSIGN_OR_RETURN(std::vector<router::BalanceReport::Step> moves,
                              client_->DecommissionServer(id));
  if (format_ == "json") {
    std::cout << "{\"server\":" << id << ",\"removed\":true,\"steps\":[";
    for (size_t i = 0; i < moves.size(); ++i) {
      std::cout << (i == 0 ? "" : ",") << FormatStepJson(moves[i]);
    }
    std::cout << "]}\n";
  } else {
    for (const router::BalanceReport::Step& s : moves) {
      std::cout << FormatStepText(s);
    }
    std::cout << "region server " << id << " is drained (" << moves.size()
              << " regions moved) and removed\n";
  }
  return Status::OK();
}

Status AdminCommand::RunMove() {
  BLOOMROUTE_ASSIGN_OR_RETURN(router::ServerId to, ResolveServer(to_));
  const auto region = static_cast<uint64_t>(regions_[0]);
  BLOOMROUTE_ASSIGN_OR_RETURN(router::RegionOpResult moved,
                              client_->MoveRegion(region, to));
  PrintOp("move", {region}, moved);
  return Status::OK();
}

Status AdminCommand::RunSplit() {
  std::optional<std::string> at;
  if (!row_.empty()) at = row_;
  if (!regions_.empty()) {
    const auto region = static_cast<uint64_t>(regions_[0]);
    BLOOMROUTE_ASSIGN_OR_RETURN(router::RegionOpResult split,
                                client_->SplitRegion(region, at));
    PrintOp("split", {region}, split);
    return Status::OK();
  }
  // --table: the region holding --row, or every region at its median.
  BLOOMROUTE_ASSIGN_OR_RETURN(
      router::TableInfo info,
      ExplainTableNotFound(*client_, table_, client_->DescribeTable(table_)));
  std::vector<uint64_t> ids;
  for (const router::RegionLocation& r : info.regions) {
    const bool holds =
        !at || (*at >= r.region.start_key &&
                (r.region.end_key.empty() || *at < r.region.end_key));
    if (holds) ids.push_back(r.region.region_id);
  }
  std::vector<std::string> done;
  std::string skipped;
  for (uint64_t id : ids) {
    StatusOr<router::RegionOpResult> split = client_->SplitRegion(id, at);
    // Splitting every region: a region too small to have a median stays.
    if (!at && split.status().IsInvalidArgument()) {
      skipped += "region " + std::to_string(id) +
                 " not split: " + split.status().ToString() + "\n";
      continue;
    }
    if (!split.ok()) return split.status();
    if (format_ == "json") {
      done.push_back(FormatRegionOpJson("split", {id}, *split));
    } else {
      std::cout << FormatRegionOpText("split", {id}, *split);
    }
  }
  if (format_ == "json") {
    std::cout << "{\"table\":" << JsonString(table_) << ",\"operations\":[";
    for (size_t i = 0; i < done.size(); ++i) {
      std::cout << (i == 0 ? "" : ",") << done[i];
    }
    std::cout << "]}\n";
  } else {
    std::cout << skipped;
  }
  return Status::OK();
}

Status AdminCommand::RunMerge() {
  const auto a = static_cast<uint64_t>(regions_[0]);
  const auto b = static_cast<uint64_t>(regions_[1]);
  BLOOMROUTE_ASSIGN_OR_RETURN(router::RegionOpResult merged,
                              client_->MergeRegions(a, b));
  PrintOp("merge", {std::min(a, b), std::max(a, b)}, merged);
  return Status::OK();
}

Status AdminCommand::RunBalance() {
  const uint32_t limit =
      max_operations_ == -1 ? 0 : static_cast<uint32_t>(max_operations_);
  BLOOMROUTE_ASSIGN_OR_RETURN(router::BalanceReport report,
                              client_->Balance(limit));
  std::cout << (format_ == "json" ? FormatBalanceJson(report)
                                  : FormatBalanceText(report));
  if (report.failed) {
    return Status::Unavailable(
        report.failures.empty()
            ? "the balancer stopped: " + report.stopped
            : std::to_string(report.failures.size()) +
                  " of the balancer's operations failed (the regions are "
                  "skipped for a while; admin regions says why)");
  }
  return Status::OK();
}

Status AdminCommand::RunQuota() {
  if (action_ != "list") {
    BLOOMROUTE_RETURN_IF_ERROR(client_->SetQuota(quota_));
  }
  BLOOMROUTE_ASSIGN_OR_RETURN(std::vector<router::Quota> all,
                              client_->ListQuotas());
  // set and remove print the quotas of the user after the change.
  std::vector<router::Quota> shown;
  for (router::Quota& q : all) {
    if ((user_.empty() || q.user == user_) &&
        (table_.empty() || q.table == table_)) {
      shown.push_back(std::move(q));
    }
  }
  if (action_ == "remove" && format_ != "json") {
    std::cout << "quota of user " << user_
              << (table_.empty() ? std::string() : " on table " + table_)
              << " removed\n";
  }
  std::cout << (format_ == "json" ? FormatQuotasJson(shown)
                                  : FormatQuotasTable(shown));
  return Status::OK();
}

}  // namespace bloomroute
