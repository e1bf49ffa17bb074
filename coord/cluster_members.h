// The live members of one cluster as ZooKeeper holds them (under the
// cluster's chroot, /bloomroute/NAME):
//
//   /routers/n_<seq>               a router's candidacy in the election
//                                  (coord/election.h; data: its address)
//   /router_ids/<id>               the router id a live router claimed
//                                  (coord/member_id.h; data: its address)
//   /live/regionservers/<address>  a running region server (LivenessNode;
//                                  data: "incarnation=<hex> started=<ms>")
//
// Every one of these is ephemeral: it exists while its process's session
// lives. ListClusterMembers reads them (for `bloomroute members`); the
// region servers' persistent records are the catalog's.
//
// LivenessNode keeps a process's liveness node: it connects, creates the
// node, and, should the session expire (a pause, a partition longer than
// the session timeout), connects again and creates it again, until it is
// destroyed (then the node goes with the session at once). A node left by
// the same address's previous run (a crash: its session not yet expired)
// is replaced. ZooKeeper being down delays registering, never the process.
//
// Thread-safety: ListClusterMembers as the store's calls; LivenessNode's
// methods from any thread.
#ifndef BLOOMROUTE_COORD_CLUSTER_MEMBERS_H_
#define BLOOMROUTE_COORD_CLUSTER_MEMBERS_H_

#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "common/status.h"
#include "common/statusor.h"
#include "coord/znode_store.h"

namespace bloomroute::coord {

inline constexpr char kRoutersPath[] = "/routers";
inline constexpr char kRouterIdsPath[] = "/router_ids";
inline constexpr char kLiveRegionServersPath[] = "/live/regionservers";

struct LiveRouter {
  std::string address;
  int64_t epoch = 0;       // its candidacy's sequence number
  bool leading = false;    // the lowest sequence: the router that serves
  uint32_t router_id = 0;  // the id it claimed, 0 if none (yet)
  int64_t session = 0;
};

struct LiveRegionServer {
  std::string address;
  std::string data;  // what it registered with
  int64_t session = 0;
};

struct ClusterMembers {
  std::vector<LiveRouter> routers;               // by epoch: the leader first
  std::vector<LiveRegionServer> region_servers;  // by address
};

// Where a server reads the members from (a session of its own).
using ClusterMembersSource = std::function<StatusOr<ClusterMembers>()>;

// At most kMaxListedMembers of each kind are read (Unavailable past it).
inline constexpr size_t kMaxListedMembers = 4096;
// A node gone between the listing and its read is skipped.
[[nodiscard]] StatusOr<ClusterMembers> ListClusterMembers(ZnodeStore* store);

class LivenessNode {
 public:
  struct Options {
    // Opens a session in the cluster's chroot (non-null).
    std::function<StatusOr<std::unique_ptr<ZnodeStore>>()> connect;
    std::string path;  // the node, e.g. /live/regionservers/HOST:PORT
    std::string data;
    // How often a missing node or a dead session is looked at again.
    std::chrono::milliseconds retry{1000};
    // Told each time the node is (re)created or registering fails (may be
    // empty; runs on the node's thread).
    std::function<void(const Status&)> on_event;
  };
  // Starts registering on a thread of its own. InvalidArgument for a bad
  // path, data over a node's bound, or no `connect`.
  [[nodiscard]] static StatusOr<std::unique_ptr<LivenessNode>> Start(
      Options options);
  ~LivenessNode();
  LivenessNode(const LivenessNode&) = delete;
  LivenessNode& operator=(const LivenessNode&) = delete;

  // Whether the node exists for this process now (as last checked).
  bool registered() const;
  // Waits up to `timeout` until registered(); whether it is.
  bool AwaitRegistered(std::chrono::milliseconds timeout) const;

 private:
  explicit LivenessNode(Options options);
  void Run();
  Status EnsureRegistered();

  const Options options_;
  mutable std::mutex mu_;
  mutable std::condition_variable cv_;
  bool stopping_ = false;              // guarded by mu_
  bool registered_ = false;            // guarded by mu_
  std::unique_ptr<ZnodeStore> store_;  // the thread's
  std::thread thread_;
};

}  // namespace bloomroute::coord

#endif  // BLOOMROUTE_COORD_CLUSTER_MEMBERS_H_
