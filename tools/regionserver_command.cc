#include "tools/regionserver_command.h"

#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <set>
#include <string>
#include <vector>

#include "thrift/thrift_logging.h"

namespace bloomroute {
namespace {

constexpr int64_t kMiB = 1 << 20;
constexpr int64_t kMaxValueBytesLimit = 64 * kMiB;
constexpr int64_t kMaxRowBytesLimit = 256 * kMiB;

}  // namespace

RegionServerCommand::RegionServerCommand()
    : Command("regionserver", "serve a region store over Thrift"),
      server_flags_(
          "127.0.0.1:" + std::to_string(RegionServerOptions::kDefaultPort),
          RegionServerOptions()) {}

void RegionServerCommand::DeclareOptions(OptionTable* table) {
  table->String("data", &data_, "directory of the store (created if missing)")
      .Required()
      .ValueName("DIR");
  server_flags_.Add(table);
  // A frame must hold at least one maximum-size row and its framing, or a
  // legal put could never arrive.
  table->FindInteger("max-frame-bytes")
      ->AtLeastOption("max-row-bytes", ServerOptions::kMinFrameBytes);
  table->Switch("sync", &store_options_.sync,
                "acknowledge a write only once it is durable (fsync)");
  AddStoreRows(table);
  AddMemoryRows(table, &store_options_);
  op_push_flags_.Add(table);
  cluster_flags_.Add(table, ClusterFlags::Use::kRegionServer);
  log_flags_.Add(table);
  http_flags_.Add(table);
}

void RegionServerCommand::AddStoreRows(OptionTable* table) {
  const RegionStoreOptions d;
  RegionStoreOptions& o = store_options_;
  table
      ->Integer("max-value-bytes", &o.max_value_bytes,
                static_cast<int64_t>(d.max_value_bytes),
                "largest cell value accepted")
      .Unit(OptionUnit::kBytes)
      .Range(1, kMaxValueBytesLimit);
  table
      ->Integer("max-row-bytes", &o.max_row_bytes,
                static_cast<int64_t>(d.max_row_bytes),
                "largest encoded row accepted")
      .Unit(OptionUnit::kBytes)
      .AtLeastOption("max-value-bytes")
      .Range(1, kMaxRowBytesLimit);
  table
      ->Integer("max-result-bytes", &o.max_result_bytes,
                static_cast<int64_t>(d.max_result_bytes),
                "bytes of rows in one get, scan or lookup answer, about: it "
                "stops after the row that passes this and says where to "
                "resume")
      .Unit(OptionUnit::kBytes)
      .Range(1, int64_t{1} << 30);
  AddReadRows(table);
}

void RegionServerCommand::AddReadRows(OptionTable* table) {
  const RegionStoreOptions d;
  RegionStoreOptions& o = store_options_;
  table
      ->Integer("max-examined-rows", &o.max_examined_rows,
                static_cast<int64_t>(d.max_examined_rows),
                "rows and index entries one scan or lookup examines, at most "
                "(also those a projection or predicate drops); then it stops "
                "and says where to resume. Also the row keys one split point "
                "reads: a larger region is split about the middle of its "
                "first this many rows")
      .Range(1, int64_t{1} << 40);
  table
      ->Integer("max-examined-bytes", &o.max_examined_bytes,
                static_cast<int64_t>(d.max_examined_bytes),
                "bytes of stored rows one get, scan or lookup reads, about; "
                "then it stops and says where to resume")
      .Unit(OptionUnit::kBytes)
      .Range(1, int64_t{1} << 50);
  table
      ->Integer("filter-image-page-bytes", &o.filter_image_page_bytes,
                static_cast<int64_t>(d.filter_image_page_bytes),
                "bytes of one page of a bits-only filter snapshot sent to a "
                "router, at most; a router fetches a snapshot page by page, "
                "so a filter of any size loads within a frame limit")
      .Unit(OptionUnit::kBytes)
      .Range(RegionStoreOptions::kMinFilterImagePageBytes,
             RegionStoreOptions::kMaxFilterImagePageBytes);
}

void AddMemoryRows(OptionTable* table, RegionStoreOptions* options) {
  const RegionStoreOptions d = *options;
  table
      ->Integer("block-cache-bytes", &options->block_cache_bytes,
                static_cast<int64_t>(d.block_cache_bytes),
                "bytes of RocksDB's block cache, one LRU cache shared by "
                "every column family of the store")
      .Unit(OptionUnit::kBytes)
      .Range(static_cast<int64_t>(RegionStoreOptions::kMinBlockCacheBytes),
             static_cast<int64_t>(RegionStoreOptions::kMaxBlockCacheBytes));
  table
      ->Integer("memtable-bytes", &options->memtable_bytes,
                static_cast<int64_t>(d.memtable_bytes),
                "bytes of RocksDB's memtables, all column families of the "
                "store together; past it the store flushes one to disk")
      .Unit(OptionUnit::kBytes)
      .Range(static_cast<int64_t>(RegionStoreOptions::kMinMemtableBytes),
             static_cast<int64_t>(RegionStoreOptions::kMaxMemtableBytes));
}

Status RegionServerCommand::Validate() {
  BLOOMROUTE_RETURN_IF_ERROR(log_flags_.Validate());
  BLOOMROUTE_RETURN_IF_ERROR(server_flags_.ToOptions(&server_options_));
  BLOOMROUTE_RETURN_IF_ERROR(
      http_flags_.ToOptions(server_options_, server_flags_.insecure(),
                            &http_options_, &http_enabled_));
  BLOOMROUTE_RETURN_IF_ERROR(
      op_push_flags_.Apply(server_options_, &store_options_));
  BLOOMROUTE_RETURN_IF_ERROR(cluster_flags_.ValidateOptional());
  return store_options_.Validate();
}

Status RegionServerCommand::Execute() {
  BLOOMROUTE_RETURN_IF_ERROR(log_flags_.Apply());
  // Thrift's own messages (a region server that does not answer) as
  // rate-limited warnings, not a line per failed connect.
  RouteThriftOutputToLog(ThriftOutput::kServer);
  BLOOMROUTE_RETURN_IF_ERROR(BlockStopSignals());
  BLOOMROUTE_ASSIGN_OR_RETURN(std::unique_ptr<RegionStore> opened,
                              RegionStore::Open(data_, store_options_));
  std::shared_ptr<RegionStore> store = std::move(opened);
  const std::vector<RegionDescriptor> regions = store->ListRegions();
  std::set<uint64_t> tables;
  for (const RegionDescriptor& r : regions) tables.insert(r.table.table_id);

  BLOOMROUTE_ASSIGN_OR_RETURN(std::unique_ptr<RegionServer> server,
                              RegionServer::Start(store, server_options_));
  const std::string warning =
      server_flags_.InsecureWarning(server->host(), server->port());
  if (!warning.empty()) Log(LogLevel::kWarn, name(), warning);
  metrics::Registry::CollectorHandle store_metrics;
  BLOOMROUTE_ASSIGN_OR_RETURN(std::unique_ptr<HttpServer> http,
                              StartHttp(store, *server, &store_metrics));
  BLOOMROUTE_ASSIGN_OR_RETURN(std::unique_ptr<coord::LivenessNode> live,
                              RegisterLive(*store, *server));
  Announce(name(),
           "serving " + std::to_string(regions.size()) + " regions of " +
               std::to_string(tables.size()) + " tables from " + data_ +
               " on " + FormatHostPort(server->host(), server->port()) +
               " (sync " + (store_options_.sync ? "on" : "off") +
               ", max value " + std::to_string(store_options_.max_value_bytes) +
               " bytes" + (op_push_flags_.enabled() ? ", op pushes on" : "") +
               ")" + StatusSuffix(http.get()));

  // SIGHUP (after the log file is reopened) reloads the revocation list
  // (--tls-crl).
  const auto reload = [this, &server, &http] {
    Status s = server->ReloadCrl();
    if (s.ok() && http != nullptr) s = http->ReloadCrl();
    if (s.ok()) {
      Announce(name(), "SIGHUP: reloaded");
    } else {
      Log(LogLevel::kError, name(),
          "SIGHUP: kept the previous revocation list: " + s.ToString());
    }
  };
  Announce(name(), WaitForStopSignal(reload) + ", stopping");
  live.reset();  // no longer live: its node goes now, not at session end
  if (http != nullptr) http->Stop();
  store_metrics.Reset();
  server->Stop();
  server.reset();
  store.reset();  // the last owner: closes the store
  Announce(name(), "stopped");
  return Status::OK();
}

StatusOr<std::unique_ptr<coord::LivenessNode>>
RegionServerCommand::RegisterLive(const RegionStore& store,
                                  const RegionServer& server) const {
  if (!cluster_flags_.zookeeper())
    return std::unique_ptr<coord::LivenessNode>();
  std::string host = server.host();
  if (host == "0.0.0.0" || host == "::") {
    // A wildcard is nobody's address: the machine's name is.
    char name[256] = {};
    if (gethostname(name, sizeof name - 1) == 0 && name[0] != '\0') host = name;
  }
  coord::LivenessNode::Options o;
  o.connect = [this] { return cluster_flags_.Connect(); };
  o.path = std::string(coord::kLiveRegionServersPath) + "/" +
           FormatHostPort(host, server.port());
  char incarnation[17];
  std::snprintf(
      incarnation, sizeof incarnation, "%016llx",
      static_cast<unsigned long long>(store.GetFilterStatus().incarnation));
  o.data =
      std::string("incarnation=") + incarnation + " started=" +
      std::to_string(std::chrono::duration_cast<std::chrono::milliseconds>(
                         std::chrono::system_clock::now().time_since_epoch())
                         .count());
  const std::string where = cluster_flags_.Describe();
  const std::string command = name();
  o.on_event = [where, command, path = o.path](const Status& s) {
    if (s.ok()) {
      Log(LogLevel::kInfo, command,
          "registered as live in " + where + " (" + path + ")");
    } else {
      Log(LogLevel::kWarn, command,
          "cannot register as live in " + where + " yet: " + s.ToString());
    }
  };
  return coord::LivenessNode::Start(std::move(o));
}

StatusOr<std::unique_ptr<HttpServer>> RegionServerCommand::StartHttp(
    const std::shared_ptr<RegionStore>& store, const RegionServer& server,
    metrics::Registry::CollectorHandle* store_metrics) {
  if (!http_enabled_) return std::unique_ptr<HttpServer>();
  return StartRegionServerHttp(http_options_, store, server,
                               &metrics::DefaultRegistry(), store_metrics);
}

std::string RegionServerCommand::HelpEpilog() const {
  return "Prints one line when it serves: the regions and tables it serves, "
         "the\n"
         "directory and the address. A restarted server keeps its data but "
         "serves a\n"
         "region only once its router opens it again (the router does so "
         "after it\n"
         "has seen the new run), so no row is readable while the router's "
         "copy of\n"
         "the server's filter is from the run before. SIGTERM or SIGINT stops "
         "it\n"
         "cleanly (exit 0).\n"
         "Errors a client sees: TIllegalArgument for a request that can never\n"
         "succeed (missing field, negative id, empty row key, unknown region,\n"
         "key outside the region, value or row over the limit, predicate on a\n"
         "column that is not indexed); TIOError for a server failure.\n";
}

}  // namespace bloomroute
