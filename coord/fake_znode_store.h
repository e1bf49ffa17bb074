// FakeEnsemble: an in-process ZooKeeper for tests of the code above
// ZnodeStore. It holds one tree; Connect() opens a session over it (a
// ZnodeStore, optionally rooted at a chroot). The stores behave as the real
// ZooKeeper store does on every test of tests/coord/znode_store_test.cc:
// versions, sequence numbers (the parent's count of children created, "%010d"),
// ephemeral nodes, atomic Multi, one-shot watches, session events on the
// store's event thread.
//
// What a test controls, all deterministic (nothing expires by itself; the
// session timeout is only reported):
//   ExpireSession(id)     the session ends: its ephemeral nodes vanish (the
//                         other sessions' watches fire), its own watches get
//                         kSessionExpired, its listeners kExpired, and every
//                         later call on its store is Unavailable "session
//                         expired".
//   DisconnectSession(id) calls on that store are Unavailable, its listeners
//                         get kDisconnected; the session, its ephemerals and
//                         watches live on. ReconnectSession(id) ends that:
//                         kConnected, then the watch events missed meanwhile.
//   Stop() / Start()      the whole ensemble: every session disconnected,
//                         every call Unavailable, Connect refused; Start()
//                         reconnects the sessions that were connected.
//   DrainEvents()         waits until every store's event thread is idle,
//                         so a test can assert what its callbacks did.
// Destroying a store closes its session at once: its ephemerals vanish
// (even while the ensemble is stopped).
//
// Thread-safety: everything may be called from any thread, except that
// DrainEvents must not be called from a store's callback. The ensemble and
// its stores may be destroyed in either order (they share the tree).
//
// Example:
//   FakeEnsemble zk;
//   std::unique_ptr<ZnodeStore> a = *zk.Connect("/bloomroute/c1");
//   std::unique_ptr<ZnodeStore> b = *zk.Connect("/bloomroute/c1");
//   (void)a->Create("/lock", "", CreateOptions{/*ephemeral=*/true});
//   zk.ExpireSession(a->SessionId());  // "/lock" is gone for b
#ifndef BLOOMROUTE_COORD_FAKE_ZNODE_STORE_H_
#define BLOOMROUTE_COORD_FAKE_ZNODE_STORE_H_

#include <chrono>
#include <cstdint>
#include <memory>
#include <string>

#include "common/statusor.h"
#include "coord/znode_store.h"

namespace bloomroute::coord {

namespace internal {
class FakeTree;
}

class FakeEnsemble {
 public:
  FakeEnsemble();
  FakeEnsemble(const FakeEnsemble&) = delete;
  FakeEnsemble& operator=(const FakeEnsemble&) = delete;
  ~FakeEnsemble();

  // A new session whose paths are under `chroot` ("" or "/" for the whole
  // tree; created with its parents when missing, as ConnectZooKeeper does).
  // Unavailable while stopped; InvalidArgument for a bad chroot.
  [[nodiscard]] StatusOr<std::unique_ptr<ZnodeStore>> Connect(
      const std::string& chroot = "",
      std::chrono::milliseconds session_timeout = std::chrono::seconds(10));

  // See the file comment. Unknown or closed sessions are ignored.
  void ExpireSession(int64_t session_id);
  void DisconnectSession(int64_t session_id);
  void ReconnectSession(int64_t session_id);
  void Stop();
  void Start();
  void DrainEvents();

  // The number of nodes in the tree (the root and "/zookeeper" included).
  size_t NodeCount() const;

 private:
  std::shared_ptr<internal::FakeTree> tree_;
};

}  // namespace bloomroute::coord

#endif  // BLOOMROUTE_COORD_FAKE_ZNODE_STORE_H_
