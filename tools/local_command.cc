#include "tools/local_command.h"

#include <iostream>
#include <memory>

#include "tools/server_command_util.h"

namespace bloomroute {
namespace po = boost::program_options;

LocalCommand::LocalCommand()
    : Command("local",
              "run a router and N region servers in one process on loopback") {}

void LocalCommand::AddOptions(po::options_description* o) {
  o->add_options()  //
      ("data", po::value<std::string>(&data_)->required(),
       "directory of every store and the catalog (created if missing)")  //
      ("servers", po::value<int64_t>(&servers_)->required(),
       "region servers to run")  //
      ("port",
       po::value<int64_t>(&port_)->default_value(
           RouterServerOptions::kDefaultPort),
       "port of the router on 127.0.0.1; 0 picks a free port")  //
      ("sync", po::bool_switch(&sync_),
       "acknowledge a write only once it is durable (fsync)");
}

Status LocalCommand::Validate() {
  BLOOMROUTE_RETURN_IF_ERROR(
      InRange("servers", servers_, 1, LocalClusterOptions::kMaxServers));
  BLOOMROUTE_RETURN_IF_ERROR(InRange("port", port_, 0, 65535));
  options_.data_dir = data_;
  options_.servers = static_cast<uint32_t>(servers_);
  options_.router_port = static_cast<int>(port_);
  options_.sync = sync_;
  return options_.Validate();
}

Status LocalCommand::Execute() {
  BLOOMROUTE_RETURN_IF_ERROR(BlockStopSignals());
  BLOOMROUTE_ASSIGN_OR_RETURN(std::unique_ptr<LocalCluster> cluster,
                              LocalCluster::Start(options_));
  std::cout << "bloomroute local: router on " << cluster->router_address()
            << ", " << cluster->region_server_addresses().size()
            << " region servers, data in " << data_ << std::endl;

  std::cout << "bloomroute local: " << WaitForStopSignal() << ", stopping"
            << std::endl;
  cluster->Stop();
  std::cout << "bloomroute local: stopped" << std::endl;
  return Status::OK();
}

std::string LocalCommand::HelpEpilog() const {
  return "Region servers keep their data in DIR/regionserver-<i> and the\n"
         "router its catalog in DIR/router. The region servers' ports are\n"
         "chosen on the first start and recorded in\n"
         "DIR/regionserver-addresses: the catalog names servers by address,\n"
         "so later starts reuse them (they must be free). More servers than\n"
         "before are added; fewer are refused while the left-out ones hold\n"
         "regions. Ctrl-C or SIGTERM stops everything cleanly (exit 0).\n";
}

}  // namespace bloomroute
