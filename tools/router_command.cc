#include "tools/router_command.h"

#include <memory>
#include <utility>

#include "common/log.h"
#include "thrift/thrift_logging.h"

namespace bloomroute {

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

namespace {

// A row bounded by a RouterOptions field's range (router/router_options.h).
IntegerOption& Bounded(IntegerOption& row, const router::FieldRange& range) {
  row.Range(range.min, range.max);
  if (range.zero_allowed) row.OrZero();
  return row;
}

}  // namespace

void RouterCommand::DeclareOptions(OptionTable* table) {
  table
      ->String("data", &data_,
               "directory of the router's catalog (created if missing); or "
               "--zookeeper")
      .ValueName("DIR");
  cluster_flags_.Add(table);
  op_push_flags_.Add(table);
  table
      ->StringList("regionserver", &region_servers_,
                   "HOST:PORT of a region server to make a member; repeat "
                   "for each (members are kept in the catalog: needed on the "
                   "first start only)")
      .ValueName("HOST:PORT");
  server_flags_.Add(table);
  thrift1_flags_.Add(table);
  http_flags_.Add(table);
  AddLimitRows(table);
  AddBalancerRows(table);
  AddScannerRows(table);
  AddFilterOptions(table, &router_options_.filter);
  log_flags_.Add(table);
}

void RouterCommand::AddLimitRows(OptionTable* table) {
  using R = router::RouterOptions;
  const R d;
  R& o = router_options_;
  // At least one pool thread: the router library also runs with none.
  table
      ->Integer("fanout-threads", &o.fanout_threads, d.fanout_threads,
                "threads asking region servers in parallel")
      .Range(1, R::kFanoutThreadsRange.max);
  Bounded(table->Integer(
              "max-reply-bytes", &o.max_reply_bytes,
              static_cast<int64_t>(d.max_reply_bytes),
              "bytes of rows in one answer (get, scanner rows, lookup), "
              "about: it stops after the row that passes this and says where "
              "(a shorter getMultiple list, a resume row); keep it plus one "
              "row within the clients' frame limit"),
          R::kMaxReplyBytesRange)
      .Unit(OptionUnit::kBytes);
  Bounded(
      table->Integer("server-calls-per-request", &o.server_calls_per_request,
                     d.server_calls_per_request,
                     "calls one request may have in flight on one region "
                     "server; its further calls to that server wait for "
                     "them"),
      R::kServerCallsPerRequestRange);
  AddCatalogRows(table);
}

void RouterCommand::AddCatalogRows(OptionTable* table) {
  using R = router::RouterOptions;
  const R d;
  R& o = router_options_;
  Bounded(table->Integer("max-tables", &o.max_tables, d.max_tables,
                         "most tables in the catalog, counting those being "
                         "deleted; the bound keeps a listTables reply within "
                         "a 64 MiB frame"),
          R::kMaxTablesRange);
  Bounded(table->Integer("max-table-bytes", &o.max_table_bytes,
                         static_cast<int64_t>(d.max_table_bytes),
                         "most bytes of split keys, indexed column names, "
                         "column families and attributes of one table; the "
                         "bound keeps a describeTable reply within a 64 MiB "
                         "frame"),
          R::kMaxTableBytesRange)
      .Unit(OptionUnit::kBytes);
  Bounded(table->Integer("max-filter-bytes", &o.max_filter_bytes,
                         static_cast<int64_t>(d.max_filter_bytes),
                         "most bytes of one filter string of a scan or get "
                         "(HBase filter language); a longer one is refused"),
          R::kMaxFilterBytesRange)
      .Unit(OptionUnit::kBytes);
  Bounded(table->Integer("index-chunk-rows", &o.index_chunk_rows,
                         d.index_chunk_rows,
                         "rows one backfill call of an index build handles "
                         "(and index entries one call of a drop removes); a "
                         "region server handles at most 10000 (its batch "
                         "limit) per call, and the router records its "
                         "progress after each"),
          R::kIndexChunkRowsRange);
  Bounded(table->Integer("min-coordinator-epoch", &o.min_coordinator_epoch,
                         static_cast<int64_t>(d.min_coordinator_epoch),
                         "start this run's coordinator epoch at least here "
                         "(0: the next start count). Only for a router whose "
                         "catalog was wiped or restored from an old copy, "
                         "which region servers refuse for an older epoch: "
                         "give one above the epoch their refusal names, once "
                         "sure no other router coordinates"),
          R::kMinCoordinatorEpochRange);
}

void RouterCommand::AddBalancerRows(OptionTable* table) {
  using R = router::RouterOptions;
  const R d;
  R& o = router_options_;
  Bounded(table->Integer("region-split-bytes", &o.region_split_bytes,
                         static_cast<int64_t>(d.region_split_bytes),
                         "a region whose rows and index entries pass this "
                         "many bytes (RocksDB's estimate) is split at its "
                         "median key, checked every minute; a table's only "
                         "region on a server splits at 256 MiB already "
                         "(HBase's stepping policy); 0: never"),
          R::kRegionSplitBytesRange)
      .Unit(OptionUnit::kBytes);
  table
      ->Integer("balancer-interval", &o.balancer_interval_ms,
                d.balancer_interval_ms / 1000,
                "seconds between runs of the balancer (splits past "
                "--region-split-bytes, then moves that even the members' "
                "region counts); 0: off (bloomroute admin balance runs it)")
      .Unit(OptionUnit::kSeconds)
      .Scale(1000)
      .Range(R::kBalancerIntervalMsRange.min,
             R::kBalancerIntervalMsRange.max / 1000);
  Bounded(table->Integer("balancer-max-operations", &o.balancer_max_operations,
                         d.balancer_max_operations,
                         "region operations one balancer run makes at most, "
                         "one at a time"),
          R::kBalancerMaxOperationsRange);
  table
      ->Integer("long-call-timeout", &long_call_timeout_ms_,
                ThriftClientOptions().long_call_timeout_ms / 1000,
                "seconds a region server may take to answer a verify or a "
                "region drop (each wait for its reply; other calls: 30)")
      .Unit(OptionUnit::kSeconds)
      .Scale(1000)
      .Range(1, kMaxLongCallTimeoutSeconds);
}

void RouterCommand::AddScannerRows(OptionTable* table) {
  using R = router::RouterOptions;
  const R d;
  R& o = router_options_;
  Bounded(table->Integer("max-scanners", &o.max_scanners, d.max_scanners,
                         "open scanners of all connections at once"),
          R::kScannersRange);
  Bounded(table->Integer("max-scanners-per-connection",
                         &o.max_scanners_per_client, d.max_scanners_per_client,
                         "open scanners of one connection at once (closed "
                         "with it)"),
          R::kScannersRange);
  Bounded(table->Integer("call-work-budget-ms", &o.call_work_budget_ms,
                         d.call_work_budget_ms,
                         "ms one call may work before it answers with what "
                         "it has: a scanner batch returns the rows it found "
                         "(a batch with none yet goes on: an empty batch ends "
                         "an HBase scan), getByIndexMultiple a prefix of its "
                         "lookups"),
          R::kCallWorkBudgetMsRange)
      .Unit(OptionUnit::kMilliseconds);
  Bounded(table->Integer("max-scanners-per-principal",
                         &o.max_scanners_per_principal,
                         d.max_scanners_per_principal,
                         "open scanners of one user (a client certificate's "
                         "name or a token's user) over all its connections "
                         "(with --secure)"),
          R::kScannersRange);
  AddCredentialRows(table);
}

void RouterCommand::AddCredentialRows(OptionTable* table) {
  table
      ->Integer("max-connections-per-principal",
                &server_options_.max_connections_per_principal,
                RouterServerOptions::kDefaultMaxConnectionsPerPrincipal,
                "connections one user (a client certificate's name or a "
                "token's user) may have open at once, with TLS; 0 for no "
                "bound. One past it is refused at its first call and closed")
      .Range(0, ServerOptions::kMaxConnections);
  table
      ->Integer(
          "max-filter-image-bytes", &max_filter_image_bytes_,
          static_cast<int64_t>(ThriftClientOptions().max_filter_image_bytes),
          "bytes of one region server's bits-only filter snapshot the "
          "router loads, at most (it arrives in pages); a server with "
          "a larger one is asked on every lookup")
      .Unit(OptionUnit::kBytes)
      .Range(kMinFilterImageBytes, kMaxFilterImageBytes);
  table
      ->String("token-file", &token_file_,
               "bearer tokens clients may authenticate with (hashes; made by "
               "`bloomroute cert`); needs the --tls-* files")
      .ValueName("FILE");
}

namespace {

// A flag declared with the bounds its validator holds
// (router::ClusterFilterOptions states them once).
DoubleOption& Bounded(DoubleOption& option, const router::RealRange& range) {
  option.Range(range.min, range.max);
  if (range.open_low) option.OpenLow();
  if (range.open_high) option.OpenHigh();
  return option;
}

}  // namespace

void AddFilterOptions(OptionTable* table,
                      router::ClusterFilterOptions* filter) {
  using F = router::ClusterFilterOptions;
  const F d;
  Bounded(
      table->Double("target-false-routes", &filter->target_false_routes,
                    d.target_false_routes,
                    "expected false routes per lookup of an absent value: each "
                    "region server's filter gets the bound P = this / N, N the "
                    "number of region servers rounded up to a power of two"),
      F::kTargetFalseRoutesRange)
      .ValueName("F");
  Bounded(table->Double(
              "filter-tightening-ratio", &filter->tightening_ratio,
              d.tightening_ratio,
              "r of the servers' filters: stage i's error is P (1 - r) r^i"),
          F::kTighteningRatioRange)
      .ValueName("R");
  Bounded(table->Double(
              "filter-growth-factor", &filter->growth_factor, d.growth_factor,
              "s of the servers' filters: each stage holds s times the "
              "values of the one before"),
          F::kGrowthFactorRange)
      .ValueName("S");
  table
      ->Integer("filter-initial-capacity", &filter->initial_capacity,
                static_cast<int64_t>(d.initial_capacity),
                "distinct values the first stage of the servers' filters "
                "holds")
      .Range(1, static_cast<int64_t>(F::kMaxInitialCapacity));
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

namespace {

// --regionserver: host:port, and a region server's port is not 0.
Status ValidateRegionServerFlags(const std::vector<std::string>& addresses) {
  for (const std::string& address : addresses) {
    std::string host;
    int port = 0;
    BLOOMROUTE_RETURN_IF_ERROR(ParseListenAddress(address, &host, &port)
                                   .WithContext("--regionserver"));
    if (port == 0) {
      return Status::InvalidArgument("--regionserver " + address +
                                     ": a region server's port is not 0");
    }
  }
  return Status::OK();
}

}  // namespace

Status RouterCommand::Validate() {
  BLOOMROUTE_RETURN_IF_ERROR(log_flags_.Validate());
  BLOOMROUTE_RETURN_IF_ERROR(server_flags_.ToOptions(&server_options_));
  BLOOMROUTE_RETURN_IF_ERROR(ValidateTokenFile());
  BLOOMROUTE_RETURN_IF_ERROR(
      thrift1_flags_.Validate(server_options_, server_flags_.insecure()));
  BLOOMROUTE_RETURN_IF_ERROR(
      http_flags_.ToOptions(server_options_, server_flags_.insecure(),
                            &http_options_, &http_enabled_));
  BLOOMROUTE_RETURN_IF_ERROR(ValidateRegionServerFlags(region_servers_));
  BLOOMROUTE_RETURN_IF_ERROR(cluster_flags_.Validate(data_));
  BLOOMROUTE_RETURN_IF_ERROR(op_push_flags_.Validate(&router_options_));
  router_options_.data_dir = data_;
  router_options_.region_servers = region_servers_;
  client_options_ =
      RegionClientOptionsFor(server_options_, long_call_timeout_ms_);
  client_options_.max_filter_image_bytes = max_filter_image_bytes_;
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
  std::string stop_signal;
  BLOOMROUTE_ASSIGN_OR_RETURN(std::unique_ptr<router::Router> opened,
                              OpenRouter(&stop_signal));
  if (opened == nullptr) {
    Announce(name(), stop_signal + ", stopping");
    return Status::OK();
  }
  std::shared_ptr<router::Router> router = std::move(opened);
  op_push_target_.Set(router);
  if (cluster_flags_.zookeeper()) {
    server_options_.cluster_members = cluster_flags_.MembersSource();
  }
  const size_t tables = router->ListTables().size();
  BLOOMROUTE_ASSIGN_OR_RETURN(std::unique_ptr<RouterServer> server,
                              RouterServer::Start(router, server_options_));
  const std::string warning =
      server_flags_.InsecureWarning(server->host(), server->port());
  if (!warning.empty()) Log(LogLevel::kWarn, name(), warning);
  BLOOMROUTE_ASSIGN_OR_RETURN(std::unique_ptr<HttpServer> http,
                              StartHttp(router, *server));
  Announce(
      name(),
      "serving " + std::to_string(tables) + " tables with " +
          std::to_string(router->Servers().size()) + " region servers from " +
          (cluster_flags_.zookeeper() ? cluster_flags_.Describe() : data_) +
          " on " + FormatHostPort(server->host(), server->port()) +
          StatusSuffix(http.get()));
  BLOOMROUTE_ASSIGN_OR_RETURN(std::unique_ptr<Hbase1Server> thrift1,
                              StartThrift1(router, *server));

  // SIGHUP reloads the token file (new tokens work, removed ones stop)
  // and the revocation list (--tls-crl), for the clients' connections and
  // for the router's own to the region servers.
  Announce(name(), WaitForStopSignal([this, &server, &http] {
                     Reload(server.get(), http.get());
                   }) + ", stopping");
  if (http != nullptr) http->Stop();
  if (thrift1 != nullptr) thrift1->Stop();
  server->Stop();
  server.reset();
  if (op_push_server_ != nullptr) op_push_server_->Stop();
  op_push_target_.Clear();
  router.reset();  // the last owner: stops its threads, closes the catalog
  Announce(name(), "stopped");
  return Status::OK();
}

StatusOr<std::unique_ptr<router::Router>> RouterCommand::OpenRouter(
    std::string* stop_signal) {
  auto factory = NewThriftRegionClientFactory(client_options_);
  if (!cluster_flags_.zookeeper()) {
    BLOOMROUTE_RETURN_IF_ERROR(StartOpPushes());
    return router::Router::Open(router_options_, std::move(factory));
  }
  const std::string address =
      FormatHostPort(server_options_.host, server_options_.port);
  BLOOMROUTE_ASSIGN_OR_RETURN(
      election_, cluster_flags_.AwaitLeadership(name(), address, stop_signal));
  if (election_ == nullptr) return std::unique_ptr<router::Router>();
  if (op_push_flags_.router_id() == 0) {
    BLOOMROUTE_ASSIGN_OR_RETURN(router_options_.router_id,
                                cluster_flags_.ClaimRouterId(address));
  }
  BLOOMROUTE_RETURN_IF_ERROR(StartOpPushes());
  BLOOMROUTE_ASSIGN_OR_RETURN(std::unique_ptr<router::CatalogStore> catalog,
                              cluster_flags_.OpenCatalog());
  return router::Router::Open(router_options_, std::move(factory),
                              std::move(catalog));
}

Status RouterCommand::StartOpPushes() {
  if (!op_push_flags_.enabled()) return Status::OK();
  BLOOMROUTE_ASSIGN_OR_RETURN(
      op_push_server_,
      op_push_flags_.Start(server_options_, op_push_target_.AsFunction(),
                           &router_options_));
  Announce(name(), "router id " + std::to_string(router_options_.router_id) +
                       ": region servers push ops to " +
                       router_options_.op_push_address);
  return Status::OK();
}

StatusOr<std::unique_ptr<Hbase1Server>> RouterCommand::StartThrift1(
    const std::shared_ptr<router::Router>& router, const RouterServer& server) {
  BLOOMROUTE_ASSIGN_OR_RETURN(std::unique_ptr<Hbase1Server> thrift1,
                              thrift1_flags_.Start(router, server));
  if (thrift1 == nullptr) return thrift1;
  const std::string warning =
      server_flags_.InsecureWarning(thrift1->host(), thrift1->port());
  if (!warning.empty()) Log(LogLevel::kWarn, name(), warning);
  Announce(name(), "HBase Thrift1 API on " +
                       FormatHostPort(thrift1->host(), thrift1->port()));
  return thrift1;
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
