// Test helper: a bloomroute cluster of real processes on loopback -- N
// `bloomroute regionserver` processes and one `bloomroute router` over them,
// with data in a temporary directory that lives as long as the object.
//
// Ports are picked by the kernel on the first start; a process stopped and
// started again gets its old port back, so the router's catalog (which names
// region servers by address) and connected tests find it where it was.
//
// Example:
//   ProcessCluster cluster(4);
//   ASSERT_TRUE(cluster.ok()) << cluster.error();
//   RouterClient client(cluster.router_port());
//   ... client->createTable(...), putMultiple, getByIndex ...
//   EXPECT_TRUE(cluster.StopRouter(SIGKILL));  // a crash
//   ASSERT_TRUE(cluster.StartRouter());         // same data, same port
//   cluster.StopRegionServer(2);                // SIGTERM, waits
//
// Not thread-safe: drive it from the test's thread.
#ifndef BLOOMROUTE_TESTS_INTEGRATION_PROCESS_CLUSTER_H_
#define BLOOMROUTE_TESTS_INTEGRATION_PROCESS_CLUSTER_H_

#include <signal.h>
#include <sys/wait.h>

#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "tests/integration/server_process.h"
#include "tests/regionstore/region_store_test_util.h"

namespace bloomroute::testing {

class ProcessCluster {
 public:
  // Starts `region_servers` region servers (each with `region_server_flags`,
  // e.g. {"--sync"}), then the router over all of them (with
  // `router_flags`). ok() says whether every one printed its start-up line.
  explicit ProcessCluster(int region_servers,
                          std::vector<std::string> region_server_flags = {},
                          std::vector<std::string> router_flags = {})
      : region_server_flags_(std::move(region_server_flags)),
        router_flags_(std::move(router_flags)) {
    for (int i = 0; i < region_servers; ++i) {
      region_servers_.emplace_back();
      region_ports_.push_back(0);
      if (!StartRegionServer(i)) return;
    }
    StartRouter();
  }

  bool ok() const { return error_.empty(); }
  // What failed to start, with its start-up line (empty when ok()).
  const std::string& error() const { return error_; }

  const std::string& dir() const { return dir_.path(); }
  int router_port() const { return router_port_; }
  int region_servers() const { return static_cast<int>(region_ports_.size()); }
  int region_server_port(int i) const { return region_ports_[i]; }
  std::string region_server_address(int i) const {
    return "127.0.0.1:" + std::to_string(region_ports_[i]);
  }
  std::vector<std::string> region_server_addresses() const {
    std::vector<std::string> out;
    for (int i = 0; i < region_servers(); ++i) {
      out.push_back(region_server_address(i));
    }
    return out;
  }
  ServerProcess& router() { return *router_.process; }
  // The start-up lines (with each server's ", status on URL/status").
  const std::string& router_line() const { return router_.line; }
  const std::string& region_server_line(int i) const {
    return region_servers_[i].line;
  }
  ServerProcess& region_server(int i) { return *region_servers_[i].process; }

  // Starts the router on its data directory (and its old port once it had
  // one). False when no start-up line came.
  bool StartRouter() {
    router_ = testing::StartRouter(dir() + "/router", region_server_addresses(),
                                   router_port_, router_flags_);
    if (router_.port == 0) return Fail("router", router_.line);
    router_port_ = router_.port;
    return true;
  }
  // Sends `signal` to the router and waits for it to exit. True when it
  // exited as the signal should make it: 0 for SIGTERM / SIGINT, killed for
  // SIGKILL.
  bool StopRouter(int signal = SIGTERM) { return Stop(&router_, signal); }

  // As StartRouter / StopRouter for region server `i` (0-based).
  bool StartRegionServer(int i) {
    StartedServer& s = region_servers_[i];
    s = testing::StartRegionServer(dir() + "/regionserver-" + std::to_string(i),
                                   region_ports_[i], region_server_flags_);
    if (s.port == 0) {
      return Fail("region server " + std::to_string(i), s.line);
    }
    region_ports_[i] = s.port;
    return true;
  }
  bool StopRegionServer(int i, int signal = SIGTERM) {
    return Stop(&region_servers_[i], signal);
  }
  // Starts one more region server, which the running router does not know
  // (`bloomroute admin add-server` makes it a member; a restarted router is
  // given it as a --regionserver flag like the others). Its index, or -1
  // when it did not start.
  int AddRegionServer() {
    region_servers_.emplace_back();
    region_ports_.push_back(0);
    const int i = region_servers() - 1;
    return StartRegionServer(i) ? i : -1;
  }

 private:
  static bool Stop(StartedServer* s, int signal) {
    if (s->process == nullptr) return false;
    s->process->Signal(signal);
    std::optional<int> status = s->process->Wait();
    if (!status) return false;
    if (signal == SIGKILL) return WIFSIGNALED(*status);
    return WIFEXITED(*status) && WEXITSTATUS(*status) == 0;
  }
  bool Fail(const std::string& what, const std::string& line) {
    error_ = what + " did not start (start-up line: '" + line + "')";
    return false;
  }

  TempDir dir_;
  const std::vector<std::string> region_server_flags_;
  const std::vector<std::string> router_flags_;
  std::vector<StartedServer> region_servers_;
  std::vector<int> region_ports_;  // 0 until first started
  StartedServer router_;
  int router_port_ = 0;
  std::string error_;
};

}  // namespace bloomroute::testing

#endif  // BLOOMROUTE_TESTS_INTEGRATION_PROCESS_CLUSTER_H_
