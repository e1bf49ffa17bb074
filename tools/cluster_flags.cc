#include "tools/cluster_flags.h"

#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <thread>
#include <utility>

#include "common/log.h"
#include "coord/catalog/zk_catalog_store.h"
#include "coord/cluster_members.h"
#include "coord/member_id.h"
#include "coord/zk/zookeeper_store.h"
#include "model/op_push.h"
#include "thrift/server/thrift_server.h"
#include "tools/server_command_util.h"

namespace bloomroute {
namespace {

constexpr size_t kMaxHosts = 64;
constexpr size_t kMaxClusterNameBytes = 64;

// --zookeeper: HOST:PORT entries, comma-separated, each with a port.
Status ValidateHosts(const std::string& hosts) {
  size_t count = 0;
  size_t start = 0;
  while (start <= hosts.size()) {
    size_t comma = hosts.find(',', start);
    if (comma == std::string::npos) comma = hosts.size();
    const std::string entry = hosts.substr(start, comma - start);
    std::string host;
    int port = 0;
    BLOOMROUTE_RETURN_IF_ERROR(
        ParseListenAddress(entry, &host, &port).WithContext("--zookeeper"));
    if (port == 0) {
      return Status::InvalidArgument("--zookeeper " + entry +
                                     ": a ZooKeeper server's port is not 0");
    }
    if (++count > kMaxHosts) {
      return Status::InvalidArgument("--zookeeper: more than 64 servers");
    }
    start = comma + 1;
  }
  return Status::OK();
}

// --cluster: letters, digits, '-', '_' (a znode name of the chroot).
Status ValidateClusterName(const std::string& name) {
  if (name.empty() || name.size() > kMaxClusterNameBytes) {
    return Status::InvalidArgument("--cluster: 1 to 64 characters");
  }
  for (char c : name) {
    if (!isalnum(static_cast<unsigned char>(c)) && c != '-' && c != '_') {
      return Status::InvalidArgument("--cluster " + name +
                                     ": letters, digits, '-' and '_' only");
    }
  }
  return Status::OK();
}

}  // namespace

void ClusterFlags::Add(OptionTable* table, Use use) {
  const char* zookeeper_help =
      use == Use::kRouter
          ? "keep the catalog in this ZooKeeper ensemble (HOST:PORT,...) "
            "instead of --data, and run as one of the cluster's routers: "
            "the one elected serves, the others wait as standbys"
      : use == Use::kRegionServer
          ? "register this server as live in the cluster's ZooKeeper "
            "ensemble (HOST:PORT,...) while it runs (bloomroute members "
            "lists it)"
          : "the cluster's ZooKeeper ensemble (HOST:PORT,...)";
  const char* session_help =
      use == Use::kRouter
          ? "how long ZooKeeper keeps a silent router's session: a "
            "standby takes over this long after the active router died "
            "(ZooKeeper grants between 2 and 20 of its ticks)"
          : "how long ZooKeeper keeps a silent process's session (and its "
            "live node) after it died (ZooKeeper grants between 2 and 20 "
            "of its ticks)";
  table->String("zookeeper", &hosts_, zookeeper_help).ValueName("HOSTS");
  table
      ->String("cluster", &cluster_,
               "the cluster's name in ZooKeeper (its nodes live under "
               "/bloomroute/NAME)")
      .Default("default")
      .ValueName("NAME");
  table
      ->Integer("zookeeper-session-timeout", &session_timeout_ms_,
                kDefaultSessionTimeoutMs / 1000, session_help)
      .Unit(OptionUnit::kSeconds)
      .Scale(1000)
      .Range(1, 3600);
}

Status ClusterFlags::Validate(const std::string& data_dir) const {
  if (!zookeeper()) {
    if (cluster_ != "default") {
      return Status::InvalidArgument("--cluster needs --zookeeper");
    }
    if (data_dir.empty()) {
      return Status::InvalidArgument(
          "give --data DIR (the catalog on this machine) or --zookeeper "
          "HOSTS (the catalog in ZooKeeper)");
    }
    return Status::OK();
  }
  if (!data_dir.empty()) {
    return Status::InvalidArgument(
        "--data and --zookeeper: the catalog lives in one place; to move an "
        "embedded catalog into ZooKeeper, run bloomroute migrate");
  }
  return ValidateZooKeeper();
}

Status ClusterFlags::ValidateOptional() const {
  if (!zookeeper() && cluster_ != "default") {
    return Status::InvalidArgument("--cluster needs --zookeeper");
  }
  return zookeeper() ? ValidateZooKeeper() : Status::OK();
}

Status ClusterFlags::ValidateZooKeeper() const {
  if (!zookeeper()) {
    return Status::InvalidArgument("--zookeeper HOST:PORT,... is required");
  }
  BLOOMROUTE_RETURN_IF_ERROR(ValidateHosts(hosts_));
  return ValidateClusterName(cluster_);
}

coord::ZooKeeperOptions ClusterFlags::Options() const {
  coord::ZooKeeperOptions options;
  options.hosts = hosts_;
  options.chroot = "/bloomroute/" + cluster_;
  options.session_timeout = std::chrono::milliseconds(session_timeout_ms_);
  return options;
}

StatusOr<std::unique_ptr<coord::ZnodeStore>> ClusterFlags::Connect() const {
  return coord::ConnectZooKeeper(Options());
}

std::string ClusterFlags::Describe() const {
  return "ZooKeeper " + hosts_ + ", cluster " + cluster_;
}

StatusOr<std::unique_ptr<coord::Election>> ClusterFlags::AwaitLeadership(
    const std::string& command, const std::string& address,
    std::string* stop_signal) {
  BLOOMROUTE_ASSIGN_OR_RETURN(store_, Connect());
  // Another router may lead once this session is gone: stop at once.
  store_->AddSessionListener([command](coord::SessionState state) {
    if (state != coord::SessionState::kExpired) return;
    Log(LogLevel::kError, command,
        "the ZooKeeper session expired: another router may serve the "
        "cluster now; exiting");
    std::_Exit(kExitSessionLost);
  });
  coord::Election::Options election;
  election.path = coord::kRoutersPath;
  election.data = address;
  BLOOMROUTE_ASSIGN_OR_RETURN(std::unique_ptr<coord::Election> joined,
                              coord::Election::Join(store_.get(), election));
  if (!joined->IsLeader()) {
    StatusOr<coord::LeaderInfo> leader = joined->Leader();
    Announce(command, "standby in " + Describe() + ": " +
                          (leader.ok() ? "router " + leader->data + " serves"
                                       : leader.status().ToString()) +
                          "; waiting to take over");
  }
  std::optional<std::string> signal =
      WaitForStopSignalUntil([&] { return joined->IsLeader(); });
  if (signal.has_value()) {
    *stop_signal = *signal;
    return std::unique_ptr<coord::Election>();
  }
  return joined;
}

StatusOr<uint32_t> ClusterFlags::ClaimRouterId(const std::string& address) {
  if (store_ == nullptr) {
    return Status::InvalidArgument("a router id is claimed after joining");
  }
  return coord::ClaimMemberId(store_.get(), coord::kRouterIdsPath,
                              static_cast<uint32_t>(kMaxFenceRouterId),
                              address);
}

coord::ClusterMembersSource ClusterFlags::MembersSource() const {
  coord::ZnodeStore* store = store_.get();
  return [store]() -> StatusOr<coord::ClusterMembers> {
    if (store == nullptr) return Status::Unavailable("not in the election");
    return coord::ListClusterMembers(store);
  };
}

StatusOr<std::unique_ptr<router::CatalogStore>> ClusterFlags::OpenCatalog()
    const {
  coord::ZnodeCatalogOptions options;
  options.connect = [zk = Options()] { return coord::ConnectZooKeeper(zk); };
  return coord::OpenZnodeCatalog(std::move(options));
}

}  // namespace bloomroute
