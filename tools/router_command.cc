#include "tools/router_command.h"

#include <limits>
#include <memory>
#include <sstream>
#include <utility>

#include "common/log.h"
#include "thrift/thrift_logging.h"

namespace bloomroute {
namespace po = boost::program_options;

ThriftClientOptions RegionClientOptionsFor(const ServerOptions& server,
                                           int long_call_timeout_ms) {
  ThriftClientOptions options;
  options.max_frame_bytes = server.max_frame_bytes;
  options.max_decoded_bytes = server.max_decoded_bytes;
  options.long_call_timeout_ms = long_call_timeout_ms;
  options.tls = server.tls;
  return options;
}

RouterCommand::RouterCommand()
    : Command("router", "serve the client API over a set of region servers"),
      server_flags_(
          "127.0.0.1:" + std::to_string(RouterServerOptions::kDefaultPort),
          RouterServerOptions()) {}

void RouterCommand::AddOptions(po::options_description* o) {
  const router::RouterOptions defaults;
  o->add_options()  //
      ("data", po::value<std::string>(&data_)->required(),
       "directory of the router's catalog (created if missing)")  //
      ("regionserver", po::value<std::vector<std::string>>(&region_servers_),
       "HOST:PORT of a region server to make a member; repeat for each "
       "(members are kept in the catalog: needed on the first start only)");
  server_flags_.Add(o);
  http_flags_.Add(o);
  o->add_options()  //
      ("fanout-threads",
       po::value<int64_t>(&fanout_threads_)
           ->default_value(defaults.fanout_threads),
       "threads asking region servers in parallel")  //
      ("max-reply-bytes",
       po::value<int64_t>(&max_reply_bytes_)
           ->default_value(static_cast<int64_t>(defaults.max_reply_bytes)),
       "bytes of rows in one answer (get, scanner rows, lookup), about: it "
       "stops after the row that passes this and says where (a shorter "
       "getMultiple list, a resume row); keep it plus one row within the "
       "clients' frame limit")  //
      ("server-calls-per-request",
       po::value<int64_t>(&server_calls_per_request_)
           ->default_value(defaults.server_calls_per_request),
       "calls one request may have in flight on one region server; its "
       "further calls to that server wait for them")  //
      ("max-tables",
       po::value<int64_t>(&max_tables_)->default_value(defaults.max_tables),
       "most tables in the catalog, counting those being deleted (at most "
       "3000, so that a listTables reply fits a 64 MiB frame)")  //
      ("max-table-bytes",
       po::value<int64_t>(&max_table_bytes_)
           ->default_value(static_cast<int64_t>(defaults.max_table_bytes)),
       "most bytes of split keys, indexed column names, column families and "
       "attributes of one table, in [65536, 16777216] (so that a "
       "describeTable reply fits a 64 MiB frame)")  //
      ("max-filter-bytes",
       po::value<int64_t>(&max_filter_bytes_)
           ->default_value(static_cast<int64_t>(defaults.max_filter_bytes)),
       "most bytes of one filter string of a scan or get (HBase filter "
       "language), in [1, 1048576]; a longer one is refused")  //
      ("index-chunk-rows",
       po::value<int64_t>(&index_chunk_rows_)
           ->default_value(defaults.index_chunk_rows),
       "rows one backfill call of an index build handles (and index entries "
       "one call of a drop removes), in [1, 100000]; a region server handles "
       "at most 10000 (its batch limit) per call, and the router records "
       "its progress after each")  //
      ("region-split-bytes",
       po::value<int64_t>(&region_split_bytes_)
           ->default_value(static_cast<int64_t>(defaults.region_split_bytes)),
       "a region whose rows and index entries pass this many bytes "
       "(RocksDB's estimate) is split at its median key, checked every "
       "minute; a table's only region on a server splits at 256 MiB "
       "already (HBase's stepping policy); 0: never, else at least "
       "1048576")  //
      ("balancer-interval",
       po::value<int64_t>(&balancer_interval_seconds_)
           ->default_value(defaults.balancer_interval_ms / 1000),
       "seconds between runs of the balancer (splits past "
       "--region-split-bytes, then moves that even the members' region "
       "counts), at most 604800; 0: off (bloomroute admin balance runs it)")  //
      ("balancer-max-operations",
       po::value<int64_t>(&balancer_max_operations_)
           ->default_value(defaults.balancer_max_operations),
       "region operations one balancer run makes at most, one at a time, in "
       "[1, 1000]")  //
      ("long-call-timeout",
       po::value<int64_t>(&long_call_timeout_seconds_)
           ->default_value(ThriftClientOptions().long_call_timeout_ms / 1000),
       "seconds a region server may take to answer a verify or a region "
       "drop (each wait for its reply; other calls: 30)")  //
      ("max-scanners",
       po::value<int64_t>(&max_scanners_)->default_value(defaults.max_scanners),
       "open scanners of all connections at once")  //
      ("max-scanners-per-connection",
       po::value<int64_t>(&max_scanners_per_client_)
           ->default_value(defaults.max_scanners_per_client),
       "open scanners of one connection at once (closed with it)")  //
      ("call-work-budget-ms",
       po::value<int64_t>(&call_work_budget_ms_)
           ->default_value(defaults.call_work_budget_ms),
       "ms one call may work before it answers with what it has: a scanner "
       "batch returns the rows it found (a batch with none yet goes on: an "
       "empty batch ends an HBase scan), getByIndexMultiple a prefix of its "
       "lookups; in [1, 3600000]")  //
      ("max-scanners-per-principal",
       po::value<int64_t>(&max_scanners_per_principal_)
           ->default_value(defaults.max_scanners_per_principal),
       "open scanners of one user (a client certificate's name or a token's "
       "user) over all its connections (with --secure)")  //
      ("max-connections-per-principal",
       po::value<int64_t>(&max_connections_per_principal_)
           ->default_value(
               RouterServerOptions::kDefaultMaxConnectionsPerPrincipal),
       "connections one user (a client certificate's name or a token's "
       "user) may have open at once, with TLS; 0 for no bound. One past it "
       "is refused at its first call and closed")  //
      ("max-filter-image-bytes",
       po::value<int64_t>(&max_filter_image_bytes_)
           ->default_value(static_cast<int64_t>(
               ThriftClientOptions().max_filter_image_bytes)),
       "bytes of one region server's bits-only filter snapshot the router "
       "loads, at most, in [1048576, 68719476736] (it arrives in pages); a "
       "server with a larger one is asked on every lookup")  //
      ("token-file", po::value<std::string>(&token_file_)->value_name("FILE"),
       "bearer tokens clients may authenticate with (hashes; made by "
       "`bloomroute cert`); needs the --tls-* files");
  AddFilterOptions(o, &router_options_.filter, &filter_initial_capacity_);
  log_flags_.Add(o);
}

namespace {

// "0.05" rather than the "0.050000000000000003" --help would print.
std::string ShortNumber(double v) {
  std::ostringstream out;
  out << v;
  return out.str();
}

}  // namespace

void AddFilterOptions(po::options_description* o,
                      router::ClusterFilterOptions* filter,
                      int64_t* initial_capacity) {
  const router::ClusterFilterOptions defaults;
  o->add_options()  //
      ("target-false-routes",
       po::value<double>(&filter->target_false_routes)
           ->default_value(defaults.target_false_routes,
                           ShortNumber(defaults.target_false_routes)),
       "expected false routes per lookup of an absent value, in (0, 4096]: "
       "each region server's filter gets the bound P = this / N, N the "
       "number of region servers rounded up to a power of two")  //
      ("filter-tightening-ratio",
       po::value<double>(&filter->tightening_ratio)
           ->default_value(defaults.tightening_ratio,
                           ShortNumber(defaults.tightening_ratio)),
       "r of the servers' filters, in (0, 1): stage i's error is P (1 - r) "
       "r^i")  //
      ("filter-growth-factor",
       po::value<double>(&filter->growth_factor)
           ->default_value(defaults.growth_factor,
                           ShortNumber(defaults.growth_factor)),
       "s of the servers' filters, in [1, 16]: each stage holds s times the "
       "values of the one before")  //
      ("filter-initial-capacity",
       po::value<int64_t>(initial_capacity)
           ->default_value(static_cast<int64_t>(defaults.initial_capacity)),
       "distinct values the first stage of the servers' filters holds, in "
       "[1, 2^40]");
}

Status FilterInitialCapacity(int64_t flag,
                             router::ClusterFilterOptions* filter) {
  BLOOMROUTE_RETURN_IF_ERROR(
      InRange("filter-initial-capacity", flag, 1, int64_t{1} << 40));
  filter->initial_capacity = static_cast<uint64_t>(flag);
  return filter->Validate();
}

Status RouterCommand::ValidateTokenFile() {
  if (token_file_.empty()) return Status::OK();
  if (!server_options_.tls.enabled()) {
    return Status::InvalidArgument(
        "--token-file needs TLS (--tls-ca, --tls-cert and --tls-key): a token "
        "must not cross the network in the clear");
  }
  BLOOMROUTE_RETURN_IF_ERROR(CheckReadableFile("--token-file", token_file_));
  server_options_.token_file = token_file_;
  return Status::OK();
}

Status RouterCommand::Validate() {
  BLOOMROUTE_RETURN_IF_ERROR(log_flags_.Validate());
  BLOOMROUTE_RETURN_IF_ERROR(
      server_flags_.ToOptions(ServerOptions::kMinFrameBytes, &server_options_));
  BLOOMROUTE_RETURN_IF_ERROR(ValidateTokenFile());
  BLOOMROUTE_RETURN_IF_ERROR(
      http_flags_.ToOptions(server_options_, server_flags_.insecure(),
                            &http_options_, &http_enabled_));
  BLOOMROUTE_RETURN_IF_ERROR(InRange("fanout-threads", fanout_threads_, 1,
                                     router::RouterOptions::kMaxFanoutThreads));
  BLOOMROUTE_RETURN_IF_ERROR(InRange("server-calls-per-request",
                                     server_calls_per_request_, 1,
                                     router::RouterOptions::kMaxFanoutThreads));
  BLOOMROUTE_RETURN_IF_ERROR(InRange("long-call-timeout",
                                     long_call_timeout_seconds_, 1,
                                     kMaxLongCallTimeoutSeconds));
  for (const std::string& address : region_servers_) {
    std::string host;
    int port = 0;
    BLOOMROUTE_RETURN_IF_ERROR(ParseListenAddress(address, &host, &port)
                                   .WithContext("--regionserver"));
    if (port == 0) {
      return Status::InvalidArgument("--regionserver " + address +
                                     ": a region server's port is not 0");
    }
  }
  BLOOMROUTE_RETURN_IF_ERROR(
      FilterInitialCapacity(filter_initial_capacity_, &router_options_.filter));
  router_options_.data_dir = data_;
  router_options_.region_servers = region_servers_;
  router_options_.fanout_threads = static_cast<uint32_t>(fanout_threads_);
  BLOOMROUTE_RETURN_IF_ERROR(
      InRange("max-reply-bytes", max_reply_bytes_, 1,
              static_cast<int64_t>(router::RouterOptions::kMaxReplyBytes)));
  router_options_.max_reply_bytes = static_cast<uint64_t>(max_reply_bytes_);
  router_options_.server_calls_per_request =
      static_cast<uint32_t>(server_calls_per_request_);
  BLOOMROUTE_RETURN_IF_ERROR(InRange("max-tables", max_tables_, 1,
                                     router::RouterOptions::kMaxTablesLimit));
  BLOOMROUTE_RETURN_IF_ERROR(
      InRange("max-table-bytes", max_table_bytes_,
              static_cast<int64_t>(router::RouterOptions::kMinTableBytes),
              static_cast<int64_t>(router::RouterOptions::kMaxTableBytes)));
  router_options_.max_tables = static_cast<uint32_t>(max_tables_);
  router_options_.max_table_bytes = static_cast<uint64_t>(max_table_bytes_);
  BLOOMROUTE_RETURN_IF_ERROR(
      InRange("max-filter-bytes", max_filter_bytes_, 1,
              static_cast<int64_t>(kMaxFilterTextBytes)));
  router_options_.max_filter_bytes = static_cast<uint64_t>(max_filter_bytes_);
  BLOOMROUTE_RETURN_IF_ERROR(
      InRange("index-chunk-rows", index_chunk_rows_, 1, kMaxRowsPerCall));
  router_options_.index_chunk_rows = static_cast<uint32_t>(index_chunk_rows_);
  BLOOMROUTE_RETURN_IF_ERROR(
      InRange("balancer-interval", balancer_interval_seconds_, 0,
              router::RouterOptions::kMaxBalancerIntervalMs / 1000));
  router_options_.balancer_interval_ms =
      static_cast<int>(balancer_interval_seconds_ * 1000);
  BLOOMROUTE_RETURN_IF_ERROR(
      InRange("balancer-max-operations", balancer_max_operations_, 1,
              router::RouterOptions::kMaxBalancerOperations));
  router_options_.balancer_max_operations =
      static_cast<uint32_t>(balancer_max_operations_);
  if (region_split_bytes_ != 0) {
    BLOOMROUTE_RETURN_IF_ERROR(InRange(
        "region-split-bytes", region_split_bytes_,
        static_cast<int64_t>(router::RouterOptions::kMinRegionSplitBytes),
        std::numeric_limits<int64_t>::max()));
  }
  router_options_.region_split_bytes =
      static_cast<uint64_t>(region_split_bytes_);
  BLOOMROUTE_RETURN_IF_ERROR(
      InRange("max-scanners", max_scanners_, 1, kMaxScanners));
  BLOOMROUTE_RETURN_IF_ERROR(InRange("max-scanners-per-connection",
                                     max_scanners_per_client_, 1,
                                     kMaxScanners));
  BLOOMROUTE_RETURN_IF_ERROR(
      InRange("call-work-budget-ms", call_work_budget_ms_, 1, 3600000));
  router_options_.call_work_budget_ms = static_cast<int>(call_work_budget_ms_);
  BLOOMROUTE_RETURN_IF_ERROR(InRange("max-connections-per-principal",
                                     max_connections_per_principal_, 0,
                                     ServerOptions::kMaxConnections));
  server_options_.max_connections_per_principal =
      static_cast<uint32_t>(max_connections_per_principal_);
  BLOOMROUTE_RETURN_IF_ERROR(InRange("max-scanners-per-principal",
                                     max_scanners_per_principal_, 1,
                                     kMaxScanners));
  router_options_.max_scanners = static_cast<uint32_t>(max_scanners_);
  router_options_.max_scanners_per_principal =
      static_cast<uint32_t>(max_scanners_per_principal_);
  router_options_.max_scanners_per_client =
      static_cast<uint32_t>(max_scanners_per_client_);
  client_options_ = RegionClientOptionsFor(
      server_options_, static_cast<int>(long_call_timeout_seconds_ * 1000));
  BLOOMROUTE_RETURN_IF_ERROR(InRange("max-filter-image-bytes",
                                     max_filter_image_bytes_, int64_t{1} << 20,
                                     int64_t{1} << 36));
  client_options_.max_filter_image_bytes =
      static_cast<uint64_t>(max_filter_image_bytes_);
  BLOOMROUTE_RETURN_IF_ERROR(client_options_.Validate());
  return router_options_.Validate();
}

void RouterCommand::Reload(RouterServer* server, HttpServer* http) const {
  ReloadClientTlsFiles();
  if (http != nullptr) {
    const Status http_crl = http->ReloadCrl();
    if (!http_crl.ok()) {
      Log(LogLevel::kError, name(),
          "SIGHUP: the HTTP endpoint kept the previous revocation list: " +
              http_crl.ToString());
    }
  }
  const Status crl = server->ReloadCrl();
  if (!crl.ok()) {
    Log(LogLevel::kError, name(),
        "SIGHUP: kept the previous revocation list: " + crl.ToString());
  }
  StatusOr<size_t> tokens = server->ReloadTokenFile();
  if (tokens.ok()) {
    Announce(name(), "SIGHUP: " + std::to_string(*tokens) + " tokens in force");
  } else {
    Log(LogLevel::kError, name(),
        "SIGHUP: kept the previous tokens: " + tokens.status().ToString());
  }
}

Status RouterCommand::Execute() {
  BLOOMROUTE_RETURN_IF_ERROR(log_flags_.Apply());
  // Thrift's own messages (a region server that does not answer) as
  // rate-limited warnings, not a line per failed connect.
  RouteThriftOutputToLog(ThriftOutput::kServer);
  BLOOMROUTE_RETURN_IF_ERROR(BlockStopSignals());
  BLOOMROUTE_ASSIGN_OR_RETURN(
      std::unique_ptr<router::Router> opened,
      router::Router::Open(router_options_,
                           NewThriftRegionClientFactory(client_options_)));
  std::shared_ptr<router::Router> router = std::move(opened);
  const size_t tables = router->ListTables().size();
  BLOOMROUTE_ASSIGN_OR_RETURN(std::unique_ptr<RouterServer> server,
                              RouterServer::Start(router, server_options_));
  const std::string warning =
      server_flags_.InsecureWarning(server->host(), server->port());
  if (!warning.empty()) Log(LogLevel::kWarn, name(), warning);
  BLOOMROUTE_ASSIGN_OR_RETURN(std::unique_ptr<HttpServer> http,
                              StartHttp(router, *server));
  Announce(name(), "serving " + std::to_string(tables) + " tables with " +
                       std::to_string(router->Servers().size()) +
                       " region servers from " + data_ + " on " +
                       FormatHostPort(server->host(), server->port()) +
                       StatusSuffix(http.get()));

  // SIGHUP reloads the token file (new tokens work, removed ones stop)
  // and the revocation list (--tls-crl), for the clients' connections and
  // for the router's own to the region servers.
  Announce(name(), WaitForStopSignal([this, &server, &http] {
                     Reload(server.get(), http.get());
                   }) + ", stopping");
  if (http != nullptr) http->Stop();
  server->Stop();
  server.reset();
  router.reset();  // the last owner: stops its threads, closes the catalog
  Announce(name(), "stopped");
  return Status::OK();
}

StatusOr<std::unique_ptr<HttpServer>> RouterCommand::StartHttp(
    const std::shared_ptr<router::Router>& router, const RouterServer& server) {
  if (!http_enabled_) return std::unique_ptr<HttpServer>();
  return StartRouterHttp(http_options_, router, server);
}

std::string RouterCommand::HelpEpilog() const {
  return "Prints one line when it serves: the tables, the region servers, the\n"
         "directory and the address. SIGTERM or SIGINT stops it cleanly (exit\n"
         "0). Region servers are members of the catalog, by id with their\n"
         "address: a restart connects every member, with or without its\n"
         "--regionserver flag (a flag naming a new address adds a member).\n"
         "Change them with bloomroute admin add-server, set-address and\n"
         "remove-server.\n"
         "Errors a client sees: TIllegalArgument for a request that can never\n"
         "succeed (missing field, unknown table or scanner, empty row key,\n"
         "predicate on a column that is not indexed); TIOError for a failure,\n"
         "naming the region server that did not answer.\n";
}

}  // namespace bloomroute
