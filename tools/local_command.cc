#include "tools/local_command.h"

#include <memory>

#include "thrift/thrift_logging.h"
#include "tools/regionserver_command.h"
#include "tools/router_command.h"

namespace bloomroute {
LocalCommand::LocalCommand()
    : Command("local",
              "run a router and N region servers in one process on loopback") {}

void LocalCommand::DeclareOptions(OptionTable* table) {
  table
      ->String("data", &options_.data_dir,
               "directory of every store and the catalog (created if "
               "missing)")
      .Required()
      .ValueName("DIR");
  table->Integer("servers", &options_.servers, 0, "region servers to run")
      .Range(1, LocalClusterOptions::kMaxServers)
      .Required();
  table
      ->Integer("port", &options_.router_port,
                RouterServerOptions::kDefaultPort,
                "port of the router on 127.0.0.1; 0 picks a free port")
      .Range(0, 65535);
  table
      ->Integer("thrift1-port", &options_.thrift1_port,
                LocalClusterOptions::kNoThrift1,
                "port of HBase's Thrift1 API (happybase's) on 127.0.0.1; 0 "
                "picks a free port; -1: not served")
      .Range(LocalClusterOptions::kNoThrift1, 65535);
  table->Switch("sync", &options_.sync,
                "acknowledge a write only once it is durable (fsync)");
  table->Switch("secure", &options_.secure,
                "TLS on every port, with a CA and certificates made in "
                "DATA/certs on the first start (kept on later ones)");
  AddMemoryRows(table, &options_.store);
  AddFilterOptions(table, &options_.filter);
  log_flags_.Add(table);
}

Status LocalCommand::Validate() {
  BLOOMROUTE_RETURN_IF_ERROR(log_flags_.Validate());
  return options_.Validate();
}

Status LocalCommand::Execute() {
  BLOOMROUTE_RETURN_IF_ERROR(log_flags_.Apply());
  // Thrift's own messages (a region server that does not answer) as
  // rate-limited warnings, not a line per failed connect.
  RouteThriftOutputToLog(ThriftOutput::kServer);
  BLOOMROUTE_RETURN_IF_ERROR(BlockStopSignals());
  BLOOMROUTE_ASSIGN_OR_RETURN(std::unique_ptr<LocalCluster> cluster,
                              LocalCluster::Start(options_));
  Announce(name(),
           "router on " + cluster->router_address() + ", " +
               std::to_string(cluster->region_server_addresses().size()) +
               " region servers, data in " + options_.data_dir);
  if (!cluster->thrift1_address().empty()) {
    Announce(name(), "HBase Thrift1 API on " + cluster->thrift1_address());
  }
  if (options_.secure) {
    const TlsOptions& client = cluster->client_tls();
    Announce(
        name(),
        "TLS on every port, certificates " +
            std::string(cluster->certs_written().empty() ? "kept" : "made") +
            " in " + cluster->certs_dir() + "; clients: --tls-ca " +
            client.ca_file + " --tls-cert " + client.cert_file + " --tls-key " +
            client.key_file);
  }

  if (!cluster->router_http_url().empty()) {
    Announce(name(),
             "router status on " + cluster->router_http_url() + "/status");
    const std::vector<std::string> urls = cluster->region_server_http_urls();
    for (size_t i = 0; i < urls.size(); ++i) {
      Announce(name(), "region server " + std::to_string(i + 1) + " (" +
                           cluster->region_server_addresses()[i] +
                           ") status on " + urls[i] + "/status");
    }
  }
  // SIGHUP reopens the log file (--log-file); there is nothing to reload.
  Announce(name(), WaitForStopSignal() + ", stopping");
  cluster->Stop();
  Announce(name(), "stopped");
  return Status::OK();
}

std::string LocalCommand::HelpEpilog() const {
  return "Region servers keep their data in DIR/regionserver-<i> and the\n"
         "router its catalog in DIR/router. The region servers' ports are\n"
         "chosen on the first start and recorded in\n"
         "DIR/regionserver-addresses: the catalog names servers by address,\n"
         "so later starts reuse them (they must be free). More servers than\n"
         "before are added; fewer are refused while the left-out ones hold\n"
         "regions. Ctrl-C or SIGTERM stops everything cleanly (exit 0).\n"
         "With --secure, DIR/certs holds the cluster's CA (ca.crt, ca.key),\n"
         "the node certificate every server uses (node.crt, node.key: hosts\n"
         "127.0.0.1, localhost, ::1) and an admin client's (client.root.crt,\n"
         "client.root.key); the start-up prints the client options. More\n"
         "clients: bloomroute cert create-client --certs-dir DIR/certs ...\n"
         "The router and the region servers run in this process and share\n"
         "one log: stderr, or --log-file FILE (SIGHUP reopens it, for\n"
         "logrotate); each line names its component.\n";
}

}  // namespace bloomroute
