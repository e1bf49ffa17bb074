// ConnectZooKeeper: the ZnodeStore over a real Apache ZooKeeper ensemble,
// through the multi-threaded C client (libzookeeper_mt). Only this folder
// includes ZooKeeper's headers.
//
// Example:
//   ZooKeeperOptions options;
//   options.hosts = "zk1:2181,zk2:2181,zk3:2181";
//   options.chroot = "/bloomroute/prod";
//   BLOOMROUTE_ASSIGN_OR_RETURN(std::unique_ptr<ZnodeStore> store,
//                               ConnectZooKeeper(options));
//
// Session timeout: the server grants the requested timeout clamped to
// [minSessionTimeout, maxSessionTimeout], by default [2, 20] x tickTime
// (tickTime 2,000 ms: 4 s to 40 s); SessionTimeout() reports the granted
// value. The client pings after a third of it without traffic and calls the
// connection lost after two thirds without hearing from a server; the
// server expires the session after the whole timeout without hearing from
// the client. So a call blocks at most about two thirds of the timeout
// before it returns Unavailable, and a store learns that its session
// expired only when it reaches a server again (until then: kDisconnected).
//
// Thread-safety, ownership and errors: as ZnodeStore says.
#ifndef BLOOMROUTE_COORD_ZK_ZOOKEEPER_STORE_H_
#define BLOOMROUTE_COORD_ZK_ZOOKEEPER_STORE_H_

#include <chrono>
#include <memory>
#include <string>

#include "common/statusor.h"
#include "coord/znode_store.h"

namespace bloomroute::coord {

struct ZooKeeperOptions {
  // "host:port,host:port,...": the ensemble's client addresses.
  std::string hosts;
  // Every path of the store lives under it ("/bloomroute/<cluster>"); made
  // with its parents (persistent, empty) when missing. "" for the root.
  std::string chroot;
  std::chrono::milliseconds session_timeout{10000};
  // How long ConnectZooKeeper waits for a session.
  std::chrono::milliseconds connect_timeout{10000};
};

// A store with a live session, its chroot in place. Unavailable naming the
// hosts when no session was established within connect_timeout;
// InvalidArgument for empty hosts, a bad chroot or a timeout under 1 ms.
[[nodiscard]] StatusOr<std::unique_ptr<ZnodeStore>> ConnectZooKeeper(
    const ZooKeeperOptions& options);

// For tests: ends the session of `store` (made by ConnectZooKeeper) the way
// ZooKeeper's own tests do, by opening a second connection with the same
// session id and password and closing it; the server closes the session and
// its ephemeral nodes vanish. Returns once `store` is kExpired (its
// listeners are told on its event thread). InvalidArgument for another kind
// of store; Unavailable when that takes longer than about `timeout`.
[[nodiscard]] Status ExpireZooKeeperSessionForTest(
    ZnodeStore* store, std::chrono::milliseconds timeout);

}  // namespace bloomroute::coord

#endif  // BLOOMROUTE_COORD_ZK_ZOOKEEPER_STORE_H_
