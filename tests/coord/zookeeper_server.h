// ZooKeeperTestEnsemble: real Apache ZooKeeper servers for tests, started
// with java from the Debian package's jars (package `zookeeper`), on
// 127.0.0.1 and ports picked free, with their configuration, data and logs
// in a fresh temporary directory. One node runs standalone; three (or more)
// form an ensemble (a quorum of them serves).
//
// The servers tick every tick_ms (200 ms by default), so a session may be as
// short as 2 ticks and as long as 20 (400 ms to 4 s by default). Every node
// is stopped (SIGTERM, then SIGKILL after a bound) and the directory removed
// by the destructor, which also runs when a test fails. Call
// DumpLogsIfFailed() in a fixture's TearDown to print the end of each
// node's log when the test failed.
//
// Example:
//   StatusOr<std::unique_ptr<ZooKeeperTestEnsemble>> zk =
//       ZooKeeperTestEnsemble::Start(3);
//   ASSERT_TRUE(zk.ok()) << zk.status().ToString();
//   ... ConnectZooKeeper({(*zk)->ConnectString(), "/bloomroute/t"}) ...
//   ASSERT_TRUE((*zk)->KillNode(0).ok());  // two of three still serve
//
// Thread-safety: not thread-safe; one test thread drives it (the servers
// are killed if the thread that started them exits).
#ifndef BLOOMROUTE_TESTS_COORD_ZOOKEEPER_SERVER_H_
#define BLOOMROUTE_TESTS_COORD_ZOOKEEPER_SERVER_H_

#include <sys/types.h>

#include <chrono>
#include <memory>
#include <string>
#include <vector>

#include "common/status.h"
#include "common/statusor.h"

namespace bloomroute::coord::zktest {

struct ZooKeeperTestOptions {
  int nodes = 1;      // 1: standalone; 3: an ensemble
  int tick_ms = 200;  // ZooKeeper's tickTime
  std::chrono::milliseconds start_timeout{30000};
  std::chrono::milliseconds stop_timeout{5000};  // SIGTERM, then SIGKILL
};

class ZooKeeperTestEnsemble {
 public:
  // Starts every node and waits until each serves. Unavailable (with the
  // logs' ends) when they do not within start_timeout; IOError naming the
  // package when java or the ZooKeeper jars are missing.
  [[nodiscard]] static StatusOr<std::unique_ptr<ZooKeeperTestEnsemble>> Start(
      ZooKeeperTestOptions options);
  [[nodiscard]] static StatusOr<std::unique_ptr<ZooKeeperTestEnsemble>> Start(
      int nodes);

  ZooKeeperTestEnsemble(const ZooKeeperTestEnsemble&) = delete;
  ZooKeeperTestEnsemble& operator=(const ZooKeeperTestEnsemble&) = delete;
  ~ZooKeeperTestEnsemble();

  // "127.0.0.1:p1,127.0.0.1:p2,...": every node's client address.
  std::string ConnectString() const;
  std::string NodeAddress(int node) const;
  int size() const { return static_cast<int>(nodes_.size()); }
  const std::string& directory() const { return directory_; }

  // One node: SIGKILL; SIGTERM then SIGKILL after stop_timeout; started
  // again on the same ports and data (not waiting: see WaitServing);
  // SIGSTOP and SIGCONT. InvalidArgument for a bad index.
  [[nodiscard]] Status KillNode(int node);
  [[nodiscard]] Status StopNode(int node);
  [[nodiscard]] Status StartNode(int node);
  [[nodiscard]] Status PauseNode(int node);
  [[nodiscard]] Status ResumeNode(int node);
  // Every node stopped; every stopped node started and served.
  [[nodiscard]] Status StopAll();
  [[nodiscard]] Status StartAll();

  // Waits until every running node answers that it serves ("srvr" shows
  // its mode). Unavailable with the logs' ends after `timeout`.
  [[nodiscard]] Status WaitServing(std::chrono::milliseconds timeout);
  // Whether the node answers that it serves, now.
  bool Serving(int node) const;

  // The last `lines` lines of each node's log, headed by the node.
  std::string LogTails(size_t lines = 60) const;
  // Prints LogTails() to stderr when the running gtest test has failed.
  void DumpLogsIfFailed() const;

 private:
  struct Node {
    int client_port = 0;
    int peer_port = 0;
    int election_port = 0;
    std::string config;  // zoo.cfg's path
    std::string log;     // stdout and stderr
    pid_t pid = -1;      // -1 when not running
    bool paused = false;
  };

  explicit ZooKeeperTestEnsemble(ZooKeeperTestOptions options)
      : options_(options) {}
  Status Prepare();
  Status WriteConfig(int node);
  Status Spawn(int node);
  Status CheckIndex(int node) const;
  void Reap(int node, std::chrono::milliseconds bound);

  const ZooKeeperTestOptions options_;
  std::string directory_;
  std::string java_;
  std::string classpath_;
  std::vector<Node> nodes_;
};

}  // namespace bloomroute::coord::zktest

#endif  // BLOOMROUTE_TESTS_COORD_ZOOKEEPER_SERVER_H_
