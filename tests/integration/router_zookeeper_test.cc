// `bloomroute router --zookeeper`: the catalog in a real ZooKeeper, routers
// as active and standby. The active router is killed (SIGKILL) and the
// standby takes over with every table and row; the restarted router waits
// as a standby in its turn; a clean stop hands over too. Each takeover's
// time, from the kill to the new router's start-up line, is printed.
#include <gtest/gtest.h>

#include <chrono>
#include <iostream>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "tests/coord/zookeeper_server.h"
#include "tests/integration/command_output.h"
#include "tests/integration/router_client.h"
#include "tests/integration/server_process.h"
#include "tests/regionstore/region_store_test_util.h"

namespace bloomroute {
namespace {

namespace client = ::bloomroute::rpc::client;
using ::bloomroute::testing::CellMap;
using ::bloomroute::testing::CellsOf;
using ::bloomroute::testing::MakeGet;
using ::bloomroute::testing::MakePut;
using ::bloomroute::testing::MakeQuery;
using ::bloomroute::testing::MakeTableSpec;
using ::bloomroute::testing::RouterClient;
using ::bloomroute::testing::RowKeys;
using ::bloomroute::testing::ServerProcess;
using ::bloomroute::testing::StartedServer;

class RouterOnZooKeeperTest : public ::testing::Test {
 protected:
  void SetUp() override {
    coord::zktest::ZooKeeperTestOptions options;
    options.nodes = ZooKeeperNodes();
    auto zk = coord::zktest::ZooKeeperTestEnsemble::Start(options);
    ASSERT_TRUE(zk.ok()) << zk.status().ToString();
    zk_ = std::move(*zk);
    for (int i = 0; i < 2; ++i) {
      servers_.push_back(testing::StartRegionServer(
          dir_.path() + "/rs" + std::to_string(i), 0, RegionServerFlags()));
      ASSERT_GT(servers_.back().port, 0) << servers_.back().line;
    }
  }

  virtual std::vector<std::string> RegionServerFlags() const { return {}; }
  virtual int ZooKeeperNodes() const { return 1; }

  // A router of cluster "t" (a 2 s session: ZooKeeper's tick here is 200
  // ms); its first line says whether it serves or waits.
  std::unique_ptr<ServerProcess> Router(std::string* first_line,
                                        std::vector<std::string> extra = {}) {
    std::vector<std::string> args = {"router",
                                     "--zookeeper",
                                     zk_->ConnectString(),
                                     "--cluster",
                                     "t",
                                     "--zookeeper-session-timeout",
                                     "2",
                                     "--listen",
                                     "127.0.0.1:0",
                                     "--http-listen",
                                     "127.0.0.1:0"};
    for (const StartedServer& s : servers_) {
      args.push_back("--regionserver");
      args.push_back(s.address());
    }
    args.insert(args.end(), extra.begin(), extra.end());
    auto process = std::make_unique<ServerProcess>(BLOOMROUTE_BINARY, args);
    *first_line = process->ReadLine().value_or("");
    return process;
  }

  static int PortOf(const std::string& line) {
    const std::string marker = " on 127.0.0.1:";  // as ReadPort reads it
    const size_t at = line.find(marker);
    if (at == std::string::npos) return 0;
    return std::atoi(line.c_str() + at + marker.size());
  }

  // Every row written so far, by get and by lookup, through `port`.
  void ExpectRows(int port, int rows) {
    RouterClient c(port);
    client::TIndexResult found;
    c->getByIndex(found, "geo", MakeQuery({{"d:cc", "NO"}}));
    EXPECT_EQ(static_cast<int>(found.rows.size()), rows);
    client::TResult row;
    c->get(row, "geo", MakeGet("row" + std::to_string(rows - 1)));
    EXPECT_EQ(CellsOf(row), (CellMap{{"d:cc", "NO"}}));
  }

  void Put(int port, int from, int to) {
    RouterClient c(port);
    for (int i = from; i < to; ++i) {
      c->put("geo", MakePut("row" + std::to_string(i), {{"d:cc", "NO"}}));
    }
  }

  // Waits for the standby's start-up line once the active router is gone;
  // prints how long the takeover took.
  // `before`, when given, gets the line before the start-up line (with
  // --op-push-listen, the router id line).
  int TakeOver(ServerProcess* standby, const char* what,
               std::string* before = nullptr) {
    const auto start = std::chrono::steady_clock::now();
    if (before != nullptr) *before = standby->ReadLine(30000).value_or("");
    const std::optional<std::string> line = standby->ReadLine(30000);
    const double ms = std::chrono::duration<double, std::milli>(
                          std::chrono::steady_clock::now() - start)
                          .count();
    std::cout << "takeover after " << what << ": " << ms
              << " ms (session timeout 2 s)" << std::endl;
    EXPECT_TRUE(line.has_value());
    return line ? PortOf(*line) : 0;
  }

  // A router that lost its ZooKeeper session (tools/cluster_flags.h).
  static int ClusterExitSessionLost() { return 3; }

  testing::TempDir dir_;
  std::unique_ptr<coord::zktest::ZooKeeperTestEnsemble> zk_;
  std::vector<StartedServer> servers_;
};

TEST_F(RouterOnZooKeeperTest, StandbyTakesOverWithEveryTableAndRow) {
  std::string line;
  std::unique_ptr<ServerProcess> first = Router(&line);
  const int first_port = PortOf(line);
  ASSERT_GT(first_port, 0) << line;
  {
    RouterClient c(first_port);
    client::TTableInfo info;
    c->createIndexedTable(info, MakeTableSpec("geo", {"d:cc"}));
  }
  Put(first_port, 0, 20);
  std::unique_ptr<ServerProcess> second = Router(&line);
  EXPECT_NE(line.find("standby"), std::string::npos) << line;

  first->Signal(SIGKILL);
  const int second_port = TakeOver(second.get(), "SIGKILL");
  ASSERT_GT(second_port, 0);
  ExpectRows(second_port, 20);
  Put(second_port, 20, 30);
  ExpectRows(second_port, 30);

  // The killed router comes back as a standby, and takes over when the
  // active one stops cleanly (exit 0).
  std::unique_ptr<ServerProcess> again = Router(&line);
  EXPECT_NE(line.find("standby"), std::string::npos) << line;
  second->Signal(SIGTERM);
  EXPECT_EQ(second->ExitCode(), 0);
  const int again_port = TakeOver(again.get(), "SIGTERM");
  ASSERT_GT(again_port, 0);
  ExpectRows(again_port, 30);
  again->Signal(SIGTERM);
  EXPECT_EQ(again->ExitCode(), 0);
}

// ZooKeeper down (the Vitess rule): the router serves reads and writes
// from the catalog it has; DDL, which needs the shared catalog, fails and
// says why; once the ensemble is back (the router's session outlived the
// outage: a stopped ensemble expires no session) everything works again.
TEST_F(RouterOnZooKeeperTest, ZooKeeperDownReadsAndWritesGoOnDdlWaits) {
  std::string line;
  std::unique_ptr<ServerProcess> router = Router(&line);
  const int port = PortOf(line);
  ASSERT_GT(port, 0) << line;
  {
    RouterClient c(port);
    client::TTableInfo info;
    c->createIndexedTable(info, MakeTableSpec("geo", {"d:cc"}));
  }
  Put(port, 0, 10);
  ASSERT_TRUE(zk_->StopAll().ok());
  Put(port, 10, 20);
  ExpectRows(port, 20);
  {
    RouterClient c(port);
    client::TTableInfo info;
    try {
      c->createIndexedTable(info, MakeTableSpec("other", {"d:cc"}));
      ADD_FAILURE() << "a table was created with ZooKeeper down";
    } catch (const ::apache::thrift::TException& e) {
      std::cout << "DDL with ZooKeeper down: " << e.what() << std::endl;
    }
  }
  // Longer than the session timeout: the router keeps serving.
  std::this_thread::sleep_for(std::chrono::seconds(3));
  ExpectRows(port, 20);
  ASSERT_TRUE(zk_->StartAll().ok());
  bool created = false;
  for (int i = 0; i < 100 && !created; ++i) {
    try {
      RouterClient c(port);
      client::TTableInfo info;
      c->createIndexedTable(info, MakeTableSpec("other", {"d:cc"}));
      created = true;
    } catch (const ::apache::thrift::TException&) {
      std::this_thread::sleep_for(std::chrono::milliseconds(200));
    }
  }
  EXPECT_TRUE(created);
  Put(port, 20, 25);
  ExpectRows(port, 25);
  router->Signal(SIGTERM);
  EXPECT_EQ(router->ExitCode(), 0);
}

// Faults on a three-node ensemble with three routers: a ZooKeeper node
// killed (the quorum serves on), the serving router paused past its
// session (SIGSTOP: the next router takes over; the paused one, resumed,
// finds its session expired and exits 3 without serving again), then the
// new one killed (the third takes over). No acknowledged row is lost.
class RouterFaultsOnZooKeeperTest : public RouterOnZooKeeperTest {
 protected:
  int ZooKeeperNodes() const override { return 3; }
};

TEST_F(RouterFaultsOnZooKeeperTest, PausedKilledRoutersAndAZooKeeperNode) {
  std::string line;
  std::unique_ptr<ServerProcess> first = Router(&line);
  const int first_port = PortOf(line);
  ASSERT_GT(first_port, 0) << line;
  std::unique_ptr<ServerProcess> second = Router(&line);
  ASSERT_NE(line.find("standby"), std::string::npos) << line;
  std::unique_ptr<ServerProcess> third = Router(&line);
  ASSERT_NE(line.find("standby"), std::string::npos) << line;
  {
    RouterClient c(first_port);
    client::TTableInfo info;
    c->createIndexedTable(info, MakeTableSpec("geo", {"d:cc"}));
  }
  Put(first_port, 0, 10);
  ASSERT_TRUE(zk_->KillNode(0).ok());
  Put(first_port, 10, 20);
  ExpectRows(first_port, 20);

  first->Signal(SIGSTOP);
  const int second_port = TakeOver(second.get(), "SIGSTOP");
  ASSERT_GT(second_port, 0);
  ExpectRows(second_port, 20);
  Put(second_port, 20, 30);
  first->Signal(SIGCONT);
  // A write sent to the deposed router as it resumes is refused, or, if
  // it was acknowledged, the serving router has it.
  bool acknowledged = false;
  try {
    RouterClient c(first_port);
    c->put("geo", MakePut("zombie", {{"d:cc", "SE"}}));
    acknowledged = true;
  } catch (const ::apache::thrift::TException& e) {
    std::cout << "a write to the deposed router: " << e.what() << std::endl;
  }
  EXPECT_EQ(first->ExitCode(), ClusterExitSessionLost());
  ExpectRows(second_port, 30);
  if (acknowledged) {
    RouterClient c(second_port);
    client::TResult row;
    c->get(row, "geo", MakeGet("zombie"));
    EXPECT_EQ(CellsOf(row), (CellMap{{"d:cc", "SE"}}));
  }

  second->Signal(SIGKILL);
  const int third_port = TakeOver(third.get(), "SIGKILL");
  ASSERT_GT(third_port, 0);
  ExpectRows(third_port, 30);
  Put(third_port, 30, 35);
  ExpectRows(third_port, 35);
  third->Signal(SIGTERM);
  EXPECT_EQ(third->ExitCode(), 0);
}

// A cluster started with one router (--data) moves its catalog into
// ZooKeeper and goes on with every table and row; migrating twice is
// refused.
TEST_F(RouterOnZooKeeperTest, MigrateMovesAnEmbeddedCatalogIntoZooKeeper) {
  const std::string data = dir_.path() + "/router";
  std::vector<std::string> members;
  for (const StartedServer& s : servers_) members.push_back(s.address());
  StartedServer embedded = testing::StartRouter(data, members);
  ASSERT_GT(embedded.port, 0) << embedded.line;
  {
    RouterClient c(embedded.port);
    client::TTableInfo info;
    c->createIndexedTable(info, MakeTableSpec("geo", {"d:cc"}));
  }
  Put(embedded.port, 0, 10);
  embedded.process->Signal(SIGTERM);
  ASSERT_EQ(embedded.process->ExitCode(), 0);

  const std::vector<std::string> migrate = {
      "migrate",     "--to-zookeeper",     "--data",    data,
      "--zookeeper", zk_->ConnectString(), "--cluster", "t"};
  auto [code, err] = testing::RunToExit(migrate);
  ASSERT_EQ(code, 0) << err;
  std::string line;
  std::unique_ptr<ServerProcess> router = Router(&line);
  const int port = PortOf(line);
  ASSERT_GT(port, 0) << line;
  ExpectRows(port, 10);
  Put(port, 10, 12);
  ExpectRows(port, 12);
  auto [again, again_err] = testing::RunToExit(migrate);
  EXPECT_EQ(again, 1);
  EXPECT_NE(again_err.find("already has a catalog"), std::string::npos)
      << again_err;
  router->Signal(SIGTERM);
  EXPECT_EQ(router->ExitCode(), 0);
}

// A standby stops cleanly on SIGTERM without ever serving.
TEST_F(RouterOnZooKeeperTest, AStandbyStopsCleanly) {
  std::string line;
  std::unique_ptr<ServerProcess> first = Router(&line);
  ASSERT_GT(PortOf(line), 0) << line;
  std::unique_ptr<ServerProcess> second = Router(&line);
  ASSERT_NE(line.find("standby"), std::string::npos) << line;
  second->Signal(SIGTERM);
  EXPECT_EQ(second->ExitCode(), 0);
  first->Signal(SIGTERM);
  EXPECT_EQ(first->ExitCode(), 0);
}

// Op subscriptions through the commands: region servers with --op-push,
// routers with --op-push-listen. Each router claims a router id in
// ZooKeeper (the first free one: a dead router's is free again once its
// session ended, which is before its standby leads), region servers push
// it their ops, and writes and lookups go on across a takeover.
class RouterOpPushOnZooKeeperTest : public RouterOnZooKeeperTest {
 protected:
  std::vector<std::string> RegionServerFlags() const override {
    return {"--op-push", "--max-op-lease", "1000"};
  }
  static std::vector<std::string> PushFlags() {
    return {"--op-push-listen", "127.0.0.1:0", "--op-lease", "1000"};
  }
  // Until a lookup of an absent value asks no server (up to 10 s): the
  // router holds a lease on every region server, so pushes reach it.
  static bool RoutesNowhere(int port) {
    RouterClient c(port);
    for (int i = 0; i < 1000; ++i) {
      client::TIndexResult found;
      c->getByIndex(found, "geo", MakeQuery({{"d:cc", "absent"}}));
      if (found.routing.serversAsked.empty()) return true;
      std::this_thread::sleep_for(std::chrono::milliseconds(10));
    }
    return false;
  }
};

TEST_F(RouterOpPushOnZooKeeperTest, RouterIdsAreClaimedAndOpsArePushed) {
  std::string line;
  std::unique_ptr<ServerProcess> first = Router(&line, PushFlags());
  EXPECT_NE(line.find("router id 1: region servers push ops to 127.0.0.1:"),
            std::string::npos)
      << line;
  const int first_port = PortOf(first->ReadLine().value_or(""));
  ASSERT_GT(first_port, 0);
  {
    RouterClient c(first_port);
    client::TTableInfo info;
    c->createIndexedTable(info, MakeTableSpec("geo", {"d:cc"}));
  }
  Put(first_port, 0, 10);
  ExpectRows(first_port, 10);
  EXPECT_TRUE(RoutesNowhere(first_port));
  std::unique_ptr<ServerProcess> second = Router(&line, PushFlags());
  EXPECT_NE(line.find("standby"), std::string::npos) << line;

  first->Signal(SIGKILL);
  std::string id_line;
  const int second_port = TakeOver(second.get(), "SIGKILL", &id_line);
  EXPECT_NE(id_line.find("router id 1:"), std::string::npos) << id_line;
  ASSERT_GT(second_port, 0);
  ExpectRows(second_port, 10);
  Put(second_port, 10, 20);
  ExpectRows(second_port, 20);
  EXPECT_TRUE(RoutesNowhere(second_port));
  second->Signal(SIGTERM);
  EXPECT_EQ(second->ExitCode(), 0);
}

// `bloomroute members`: the routers in election order with their ids, and
// the region servers started with --zookeeper while they live.
class MembersOnZooKeeperTest : public RouterOnZooKeeperTest {
 protected:
  std::vector<std::string> RegionServerFlags() const override {
    return {"--zookeeper", zk_->ConnectString(),          "--cluster",
            "t",           "--zookeeper-session-timeout", "2"};
  }
  testing::CommandOutput Members(const std::string& format) {
    return testing::RunCommand({"members", "--zookeeper", ensemble(),
                                "--cluster", "t", "--zookeeper-session-timeout",
                                "2", "--format", format});
  }
  // The ensemble's address, also once it is stopped.
  std::string ensemble() {
    if (zk_ != nullptr) connect_string_ = zk_->ConnectString();
    return connect_string_;
  }
  std::string connect_string_;
  // Until `members` lists `servers` live region servers (up to 20 s).
  bool AwaitLiveServers(int servers) {
    const std::string want =
        "live region servers (" + std::to_string(servers) + "):";
    for (int i = 0; i < 200; ++i) {
      if (Members("text").out.find(want) != std::string::npos) return true;
      std::this_thread::sleep_for(std::chrono::milliseconds(100));
    }
    return false;
  }
};

TEST_F(MembersOnZooKeeperTest, ListsRoutersAndLiveRegionServers) {
  ASSERT_TRUE(AwaitLiveServers(2));
  std::string first_line;
  std::unique_ptr<ServerProcess> first = Router(&first_line);
  ASSERT_GT(PortOf(first_line), 0) << first_line;
  std::string line;
  std::unique_ptr<ServerProcess> second = Router(&line);
  ASSERT_NE(line.find("standby"), std::string::npos) << line;
  const testing::CommandOutput json = Members("json");
  ASSERT_EQ(json.code, 0) << json.err;
  // The serving router answers the same (admin routers).
  const testing::CommandOutput asked = testing::RunCommand(
      {"admin", "routers", "--router",
       "127.0.0.1:" + std::to_string(PortOf(first_line)), "--format", "json"});
  EXPECT_EQ(asked.code, 0) << asked.err;
  EXPECT_EQ(asked.out, json.out);
  // The serving router claimed id 1; the standby claims one when it leads.
  EXPECT_NE(json.out.find("\"serving\":true,\"router_id\":1,"),
            std::string::npos)
      << json.out;
  EXPECT_NE(json.out.find("\"serving\":false,\"router_id\":0,"),
            std::string::npos)
      << json.out;
  EXPECT_NE(json.out.find("\"address\":\"" + servers_[0].address() + "\""),
            std::string::npos)
      << json.out;
  // A killed region server leaves the list when its session ends; one
  // stopped cleanly leaves at once.
  const std::string router = "127.0.0.1:" + std::to_string(PortOf(first_line));
  const testing::CommandOutput before = testing::RunCommand(
      {"admin", "servers", "--router", router, "--format", "json"});
  EXPECT_EQ(before.code, 0) << before.err;
  EXPECT_EQ(before.out.find("\"live\":false"), std::string::npos) << before.out;
  EXPECT_NE(before.out.find("\"live\":true"), std::string::npos) << before.out;
  servers_[0].process->Signal(SIGKILL);
  EXPECT_TRUE(AwaitLiveServers(1));
  // admin servers shows the killed one not live.
  const testing::CommandOutput after =
      testing::RunCommand({"admin", "servers", "--router", router});
  EXPECT_NE(after.out.find("LIVE"), std::string::npos) << after.out;
  EXPECT_NE(after.out.find(" NO"), std::string::npos) << after.out;
  servers_[1].process->Signal(SIGTERM);
  EXPECT_EQ(servers_[1].process->ExitCode(), 0);
  const testing::CommandOutput text = Members("text");
  EXPECT_NE(text.out.find("live region servers (0):"), std::string::npos)
      << text.out;
  EXPECT_NE(text.out.find("routers (2):\n  serving  "), std::string::npos)
      << text.out;
  first->Signal(SIGTERM);
  second->Signal(SIGTERM);
}

TEST_F(MembersOnZooKeeperTest, ZooKeeperDownExitsOne) {
  (void)ensemble();
  zk_.reset();
  const testing::CommandOutput r = Members("text");
  EXPECT_EQ(r.code, 1) << r.out << r.err;
}

}  // namespace
}  // namespace bloomroute
