#include "tools/regionserver_command.h"

#include <pthread.h>
#include <signal.h>

#include <cstring>
#include <iostream>
#include <set>
#include <string>
#include <vector>

namespace bloomroute {
namespace po = boost::program_options;

namespace {

constexpr int64_t kMiB = 1 << 20;
constexpr int64_t kMaxValueBytesLimit = 64 * kMiB;
constexpr int64_t kMaxRowBytesLimit = 256 * kMiB;
constexpr int64_t kMaxIdleTimeoutSeconds = 24 * 3600;

Status InRange(const char* option, int64_t value, int64_t low, int64_t high) {
  if (value < low || value > high) {
    return Status::InvalidArgument(
        std::string("--") + option + " must be in [" + std::to_string(low) +
        ", " + std::to_string(high) + "], not " + std::to_string(value));
  }
  return Status::OK();
}

// The signals that stop the server. Blocked in every thread (threads inherit
// the mask of the thread that creates them, so this runs before RocksDB and
// Thrift start theirs) and taken synchronously with sigwait().
sigset_t StopSignals() {
  sigset_t set;
  sigemptyset(&set);
  sigaddset(&set, SIGTERM);
  sigaddset(&set, SIGINT);
  return set;
}

}  // namespace

RegionServerCommand::RegionServerCommand()
    : Command("regionserver", "serve a region store over Thrift") {}

void RegionServerCommand::AddOptions(po::options_description* o) {
  const RegionStoreOptions store;
  const RegionServerOptions server;
  o->add_options()  //
      ("data", po::value<std::string>(&data_)->required(),
       "directory of the store (created if missing)")  //
      ("listen",
       po::value<std::string>(&listen_)->default_value("127.0.0.1:9091"),
       "HOST:PORT to listen on; port 0 picks a free port")  //
      ("sync", po::bool_switch(&sync_),
       "acknowledge a write only once it is durable (fsync)")  //
      ("max-value-bytes",
       po::value<int64_t>(&max_value_bytes_)
           ->default_value(static_cast<int64_t>(store.max_value_bytes)),
       "largest cell value accepted")  //
      ("max-row-bytes",
       po::value<int64_t>(&max_row_bytes_)
           ->default_value(static_cast<int64_t>(store.max_row_bytes)),
       "largest encoded row accepted")  //
      ("threads", po::value<int64_t>(&threads_)->default_value(server.threads),
       "worker threads (connections served at once)")  //
      ("max-frame-bytes",
       po::value<int64_t>(&max_frame_bytes_)
           ->default_value(server.max_frame_bytes),
       "largest request frame accepted")  //
      ("idle-timeout",
       po::value<int64_t>(&idle_timeout_seconds_)
           ->default_value(server.idle_timeout_ms / 1000),
       "close a connection silent for this many seconds")  //
      ("filter-fpr",
       po::value<double>(&filter_fpr_)->default_value(store.filter.target_fpr),
       "target false-positive rate of the server's filter, in (0, 1)")  //
      ("filter-initial-capacity",
       po::value<int64_t>(&filter_initial_capacity_)
           ->default_value(static_cast<int64_t>(store.filter.initial_capacity)),
       "distinct values the filter's first stage holds");
}

Status RegionServerCommand::Validate() {
  BLOOMROUTE_RETURN_IF_ERROR(ParseListenAddress(listen_, &server_options_.host,
                                                &server_options_.port));
  BLOOMROUTE_RETURN_IF_ERROR(
      InRange("max-value-bytes", max_value_bytes_, 1, kMaxValueBytesLimit));
  BLOOMROUTE_RETURN_IF_ERROR(InRange("max-row-bytes", max_row_bytes_,
                                     max_value_bytes_, kMaxRowBytesLimit));
  BLOOMROUTE_RETURN_IF_ERROR(
      InRange("threads", threads_, 1, RegionServerOptions::kMaxThreads));
  // A frame must hold at least one maximum-size row and its framing, or a
  // legal put could never arrive.
  BLOOMROUTE_RETURN_IF_ERROR(
      InRange("max-frame-bytes", max_frame_bytes_,
              max_row_bytes_ + RegionServerOptions::kMinFrameBytes,
              RegionServerOptions::kMaxFrameBytes));
  BLOOMROUTE_RETURN_IF_ERROR(InRange("idle-timeout", idle_timeout_seconds_, 1,
                                     kMaxIdleTimeoutSeconds));
  BLOOMROUTE_RETURN_IF_ERROR(InRange("filter-initial-capacity",
                                     filter_initial_capacity_, 1,
                                     int64_t{1} << 40));
  server_options_.threads = static_cast<uint32_t>(threads_);
  server_options_.max_frame_bytes = static_cast<uint32_t>(max_frame_bytes_);
  server_options_.idle_timeout_ms =
      static_cast<int>(idle_timeout_seconds_ * 1000);
  store_options_.sync = sync_;
  store_options_.max_value_bytes = static_cast<size_t>(max_value_bytes_);
  store_options_.max_row_bytes = static_cast<size_t>(max_row_bytes_);
  store_options_.filter.target_fpr = filter_fpr_;
  store_options_.filter.initial_capacity =
      static_cast<uint64_t>(filter_initial_capacity_);
  BLOOMROUTE_RETURN_IF_ERROR(server_options_.Validate());
  return store_options_.Validate();
}

Status RegionServerCommand::Execute() {
  const sigset_t stop_signals = StopSignals();
  if (pthread_sigmask(SIG_BLOCK, &stop_signals, nullptr) != 0) {
    return Status::IOError("cannot block SIGTERM and SIGINT");
  }
  // A client that disconnects mid-reply must not kill the server.
  signal(SIGPIPE, SIG_IGN);

  BLOOMROUTE_ASSIGN_OR_RETURN(std::unique_ptr<RegionStore> opened,
                              RegionStore::Open(data_, store_options_));
  std::shared_ptr<RegionStore> store = std::move(opened);
  const std::vector<RegionDescriptor> regions = store->ListRegions();
  std::set<uint64_t> tables;
  for (const RegionDescriptor& r : regions) tables.insert(r.table.table_id);

  BLOOMROUTE_ASSIGN_OR_RETURN(std::unique_ptr<RegionServer> server,
                              RegionServer::Start(store, server_options_));
  std::cout << "bloomroute regionserver: serving " << regions.size()
            << " regions of " << tables.size() << " tables from " << data_
            << " on " << FormatHostPort(server->host(), server->port())
            << " (sync " << (sync_ ? "on" : "off") << ", max value "
            << max_value_bytes_ << " bytes)" << std::endl;

  int signal_number = 0;
  while (sigwait(&stop_signals, &signal_number) != 0) {
  }
  std::cout << "bloomroute regionserver: " << strsignal(signal_number)
            << ", stopping" << std::endl;
  server->Stop();
  server.reset();
  store.reset();  // the last owner: closes the store
  std::cout << "bloomroute regionserver: stopped" << std::endl;
  return Status::OK();
}

std::string RegionServerCommand::HelpEpilog() const {
  return "Prints one line when it serves: the regions and tables it holds, "
         "the\n"
         "directory and the address. SIGTERM or SIGINT stops it cleanly (exit "
         "0).\n"
         "Errors a client sees: TIllegalArgument for a request that can never\n"
         "succeed (missing field, negative id, empty row key, unknown region,\n"
         "key outside the region, value or row over the limit, predicate on a\n"
         "column that is not indexed); TIOError for a server failure.\n";
}

}  // namespace bloomroute
