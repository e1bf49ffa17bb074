// ClusterFlags: where a router keeps its cluster's catalog and how it
// takes turns with other routers.
//
//   --data DIR                   the embedded catalog (one router): as
//                                before, nothing more to install.
//   --zookeeper HOST:PORT,...    the catalog in a ZooKeeper ensemble, under
//   --cluster NAME               the chroot /bloomroute/NAME: losing the
//                                router's machine loses no catalog state.
//
// With ZooKeeper, routers of one cluster run as active and standbys: each
// joins the routers' election (ZooKeeper's recipe, coord/election.h); the
// one that leads opens the catalog and serves; the others wait ("standby")
// and the next in line takes over when the active router's session ends
// (the process died, or was cut off from the ensemble for the session
// timeout). Fencing keeps a deposed router harmless: the new router's run
// counts one more start in the shared catalog, so its write fence tokens
// are above every earlier run's, and its first catch-up of each region
// server fences the old run's writes (router/global_index.h).
//
// A router whose ZooKeeper session expires stops at once (exit status 3,
// for a supervisor to restart it as a standby): another router may lead by
// then. Disconnected from the ensemble but with its session alive, it goes
// on serving from the catalog it has (the ensemble being down, no other
// router can be elected).
//
// Thread-safety: one thread (the command's) uses it; the exit on expiry
// runs on ZooKeeper's event thread.
#ifndef BLOOMROUTE_TOOLS_CLUSTER_FLAGS_H_
#define BLOOMROUTE_TOOLS_CLUSTER_FLAGS_H_

#include <cstdint>
#include <memory>
#include <string>

#include "common/status.h"
#include "common/statusor.h"
#include "coord/cluster_members.h"
#include "coord/election.h"
#include "coord/zk/zookeeper_store.h"
#include "coord/znode_store.h"
#include "router/catalog_store.h"
#include "tools/option_table.h"

namespace bloomroute {

class ClusterFlags {
 public:
  // The exit status of a router that lost its ZooKeeper session.
  static constexpr int kExitSessionLost = 3;
  static constexpr int64_t kDefaultSessionTimeoutMs = 10000;

  // Which command the flags are for: the help says what ZooKeeper is for.
  enum class Use { kRouter, kRegionServer, kTool };
  void Add(OptionTable* table, Use use = Use::kRouter);
  // InvalidArgument for a bad host list or cluster name, --cluster without
  // --zookeeper, or --data and --zookeeper together (the catalog lives in
  // one place) or neither.
  [[nodiscard]] Status Validate(const std::string& data_dir) const;
  // For commands where ZooKeeper is optional (the region server): OK
  // without --zookeeper (and --cluster), else as ValidateZooKeeper.
  [[nodiscard]] Status ValidateOptional() const;
  // For commands that need ZooKeeper (bloomroute migrate): InvalidArgument
  // without --zookeeper, or for a bad host list or cluster name.
  [[nodiscard]] Status ValidateZooKeeper() const;
  bool zookeeper() const { return !hosts_.empty(); }
  const std::string& cluster() const { return cluster_; }
  // A session in the cluster's chroot (/bloomroute/NAME, made if missing).
  [[nodiscard]] StatusOr<std::unique_ptr<coord::ZnodeStore>> Connect() const;
  // "ZooKeeper HOSTS, cluster NAME".
  std::string Describe() const;

  // Joins the routers' election as `address` and waits until this router
  // leads, or a stop signal arrives (then `*stop_signal` names it and the
  // result is null). Says "standby" once while it waits. Unavailable when
  // ZooKeeper does not answer.
  [[nodiscard]] StatusOr<std::unique_ptr<coord::Election>> AwaitLeadership(
      const std::string& command, const std::string& address,
      std::string* stop_signal);
  // A router id (model/op_push.h) no other live router holds, claimed in
  // the cluster for as long as the election's session lives
  // (coord/member_id.h), under /router_ids (after AwaitLeadership).
  [[nodiscard]] StatusOr<uint32_t> ClaimRouterId(const std::string& address);
  // The cluster's live members read with the election's session (after
  // AwaitLeadership; the source must not outlive these flags).
  coord::ClusterMembersSource MembersSource() const;
  // The shared catalog, in the cluster's chroot (after AwaitLeadership).
  [[nodiscard]] StatusOr<std::unique_ptr<router::CatalogStore>> OpenCatalog()
      const;

 private:
  coord::ZooKeeperOptions Options() const;

  std::string hosts_;
  std::string cluster_ = "default";
  int64_t session_timeout_ms_ = kDefaultSessionTimeoutMs;
  // The election's session (the catalog has its own).
  std::unique_ptr<coord::ZnodeStore> store_;
};

}  // namespace bloomroute

#endif  // BLOOMROUTE_TOOLS_CLUSTER_FLAGS_H_
