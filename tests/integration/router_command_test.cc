// `bloomroute router` as a real process over real region server processes:
// argument checks, the start-up line, a clean stop on SIGTERM / SIGINT, and a
// restart that finds every table and row again.
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <signal.h>
#include <stdlib.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "tests/integration/command_output.h"
#include "tests/integration/process_cluster.h"
#include "tests/integration/router_client.h"
#include "tests/integration/secure_mode.h"
#include "tests/integration/server_process.h"

namespace bloomroute {
namespace {

namespace client = rpc::client;
using ::bloomroute::testing::CellMap;
using ::bloomroute::testing::CommandOutput;
using ::bloomroute::testing::MakeGet;
using ::bloomroute::testing::MakePut;
using ::bloomroute::testing::MakeQuery;
using ::bloomroute::testing::MakeTableSpec;
using ::bloomroute::testing::ProcessCluster;
using ::bloomroute::testing::RouterClient;
using ::bloomroute::testing::RowKeys;
using ::bloomroute::testing::RunCommand;
using ::bloomroute::testing::RunToExit;
using ::bloomroute::testing::TempDir;
using ::testing::HasSubstr;
using ::testing::MatchesRegex;

class RouterCommandTest : public ::testing::Test {};

TEST_F(RouterCommandTest, RejectsBadArgumentsWithAOneLineReason) {
  TempDir dir;
  const std::string data = dir.path();
  const std::string rs = "127.0.0.1:9091";
  std::vector<std::vector<std::string>> bad = {
      {"router"},  // --data is required
      {"router", "--data", data, "--regionserver", "nohost"},
      {"router", "--data", data, "--regionserver", "127.0.0.1:0"},
      {"router", "--data", data, "--regionserver", rs, "--regionserver", rs},
      {"router", "--data", data, "--regionserver", rs, "--listen", "x:1:2"},
      {"router", "--data", data, "--regionserver", rs, "--listen",
       "127.0.0.1:70000"},
      {"router", "--data", data, "--regionserver", rs, "--threads", "0"},
      {"router", "--data", data, "--regionserver", rs, "--fanout-threads",
       "-1"},
      {"router", "--data", data, "--regionserver", rs, "--max-frame-bytes",
       "10"},
      {"router", "--data", data, "--regionserver", rs, "--idle-timeout", "0"},
      {"router", "--data", data, "--regionserver", rs, "--request-timeout",
       "0"},
      {"router", "--data", data, "--regionserver", rs, "--reply-timeout", "-1"},
      {"router", "--data", data, "--regionserver", rs, "--max-connections",
       "0"},
      {"router", "--data", data, "--regionserver", rs,
       "--server-calls-per-request", "0"},
      {"router", "--data", data, "--regionserver", rs, "--long-call-timeout",
       "0"},
      {"router", "--data", data, "--regionserver", rs, "--max-scanners", "0"},
      {"router", "--data", data, "--regionserver", rs,
       "--max-scanners-per-connection", "0"},
      {"router", "--data", data, "--regionserver", rs,
       "--max-buffered-request-bytes", "-1"},
      {"router", "--data", data, "--regionserver", rs,
       "--max-buffered-request-bytes", "2000000000000"},
      {"router", "--data", data, "--regionserver", rs,
       "--max-buffered-reply-bytes", "0"},
      {"router", "--data", data, "--regionserver", rs,
       "--max-buffered-reply-bytes", "2000000000000"},
      {"router", "--data", data, "--regionserver", rs, "--bogus"},
      {"router", "--data", data, "--regionserver", rs, "--target-false-routes",
       "0"},
      {"router", "--data", data, "--regionserver", rs, "--target-false-routes",
       "1.5"},  // P = 1.5 for one server
      {"router", "--data", data, "--regionserver", rs,
       "--filter-tightening-ratio", "1"},
      {"router", "--data", data, "--regionserver", rs, "--filter-growth-factor",
       "0.5"},
      {"router", "--data", data, "--regionserver", rs,
       "--filter-initial-capacity", "0"},
      {"router", "--data", data, "--regionserver", rs,
       "--max-filter-image-bytes", "1000"},
      {"router", "--data", data, "--regionserver", rs, "--max-filter-bytes",
       "0"},
      {"router", "--data", data, "--regionserver", rs, "--max-filter-bytes",
       "1048577"},
      {"router", "--data", data, "--regionserver", rs, "--balancer-interval",
       "-1"},
      {"router", "--data", data, "--regionserver", rs, "--balancer-interval",
       "604801"},
      {"router", "--data", data, "--regionserver", rs,
       "--balancer-max-operations", "0"},
      {"router", "--data", data, "--regionserver", rs,
       "--balancer-max-operations", "1001"},
      {"router", "--data", data, "--regionserver", rs, "--region-split-bytes",
       "1048575"},
      {"router", "--data", data, "--regionserver", rs, "--region-split-bytes",
       "-1"},
      {"router", "--data", data, "--regionserver", rs, "--thrift1-listen",
       "nohost"},
  };
  // Off loopback the Thrift1 port needs TLS or --insecure too (in secure
  // mode the router has TLS, and serves there).
  if (!testing::SecureMode()) {
    bad.push_back({"router", "--data", data, "--regionserver", rs,
                   "--thrift1-listen", "0.0.0.0:0"});
  }
  for (const auto& args : bad) {
    SCOPED_TRACE(::testing::PrintToString(args));
    const auto [code, err] = RunToExit(args);
    EXPECT_EQ(code, 2);
    EXPECT_THAT(err, MatchesRegex("bloomroute router: [^\n]+\n"));
  }
  // Without --regionserver the catalog decides: refused (exit 1) only when
  // it has no member either.
  {
    const auto [code, err] = RunToExit({"router", "--data", data});
    EXPECT_EQ(code, 1);
    EXPECT_THAT(err, MatchesRegex("bloomroute router: [^\n]+\n"));
    EXPECT_THAT(err, HasSubstr("no region server"));
  }
  const CommandOutput help = RunCommand({"router", "--help"});
  EXPECT_EQ(help.code, 0);
  EXPECT_THAT(help.out, HasSubstr("--request-timeout"));
  EXPECT_THAT(help.out, HasSubstr("--reply-timeout"));
  EXPECT_THAT(help.out, HasSubstr("--max-connections"));
  EXPECT_THAT(help.out, HasSubstr("--max-handshakes"));
  EXPECT_THAT(help.out, HasSubstr("--handshake-threads"));
  EXPECT_THAT(help.out, HasSubstr("--server-calls-per-request"));
  EXPECT_THAT(help.out, HasSubstr("--max-buffered-request-bytes"));
  EXPECT_THAT(help.out, HasSubstr("--max-buffered-reply-bytes"));
  EXPECT_THAT(help.out, HasSubstr("--target-false-routes"));
  EXPECT_THAT(help.out, HasSubstr("--filter-tightening-ratio"));
  EXPECT_THAT(help.out, HasSubstr("--filter-growth-factor"));
  EXPECT_THAT(help.out, HasSubstr("--filter-initial-capacity"));
  EXPECT_THAT(help.out, HasSubstr("--max-filter-image-bytes"));
  EXPECT_THAT(help.out, HasSubstr("--max-filter-bytes"));
  EXPECT_THAT(help.out, HasSubstr("--region-split-bytes"));
  EXPECT_THAT(help.out, HasSubstr("--balancer-interval"));
  EXPECT_THAT(help.out, HasSubstr("--balancer-max-operations"));
  // A bad filter option is named in the message.
  const auto [code, err] =
      RunToExit({"router", "--data", data, "--regionserver", rs,
                 "--filter-tightening-ratio", "1"});
  EXPECT_EQ(code, 2);
  EXPECT_THAT(err, HasSubstr("--filter-tightening-ratio"));
}

TEST_F(RouterCommandTest, ServesStopsCleanlyAndRestartsWithItsData) {
  ProcessCluster cluster(2);
  ASSERT_TRUE(cluster.ok()) << cluster.error();
  EXPECT_GT(cluster.router_port(), 0);
  {
    RouterClient client(cluster.router_port());
    client::TTableInfo info;
    client->createIndexedTable(info, MakeTableSpec("geo", {"d:cc"}));
    EXPECT_EQ(info.regions.size(), 2u);  // one per region server
    client->putMultiple("geo", {MakePut("oslo", {{"d:cc", "NO"}}),
                                MakePut("visby", {{"d:cc", "SE"}})});
  }
  ASSERT_TRUE(cluster.StopRouter(SIGTERM)) << "no clean exit on SIGTERM";

  ASSERT_TRUE(cluster.StartRouter()) << cluster.error();
  RouterClient client(cluster.router_port());
  std::vector<client::TIndexedTable> tables;
  client->listTables(tables);
  ASSERT_EQ(tables.size(), 1u);
  EXPECT_EQ(tables[0].name, "geo");
  client::TResult row;
  client->get(row, "geo", MakeGet("visby"));
  EXPECT_EQ(testing::CellsOf(row), (CellMap{{"d:cc", "SE"}}));
  client::TIndexResult found;
  client->getByIndex(found, "geo", MakeQuery({{"d:cc", "NO"}}));
  EXPECT_EQ(RowKeys(found.rows), (std::vector<std::string>{"oslo"}));
  EXPECT_EQ(found.routing.serversInCluster, 2);
  EXPECT_TRUE(cluster.StopRouter(SIGINT)) << "no clean exit on SIGINT";
}

TEST_F(RouterCommandTest, StartUpLineNamesTablesServersAndTheRealPort) {
  ProcessCluster cluster(1);
  ASSERT_TRUE(cluster.ok()) << cluster.error();
  ASSERT_TRUE(cluster.StopRouter());
  testing::StartedServer router = testing::StartRouter(
      cluster.dir() + "/router", cluster.region_server_addresses());
  EXPECT_THAT(router.line,
              HasSubstr("bloomroute router: serving 0 tables with 1 region "
                        "servers from " +
                        cluster.dir() +
                        "/router on 127.0.0.1:" + std::to_string(router.port)));
  EXPECT_GT(router.port, 0);
}

// --thrift1-listen: a second line says where HBase's Thrift1 API is served.
TEST_F(RouterCommandTest, Thrift1ListenServesASecondPort) {
  ProcessCluster cluster(1);
  ASSERT_TRUE(cluster.ok()) << cluster.error();
  ASSERT_TRUE(cluster.StopRouter());
  testing::StartedServer router = testing::StartRouter(
      cluster.dir() + "/router", cluster.region_server_addresses(), 0,
      {"--thrift1-listen", "127.0.0.1:0"});
  ASSERT_GT(router.port, 0) << router.line;
  std::string line;
  const int thrift1 = router.process->ReadPort(&line);
  EXPECT_THAT(line, HasSubstr("bloomroute router: HBase Thrift1 API on "
                              "127.0.0.1:"));
  EXPECT_GT(thrift1, 0);
  EXPECT_NE(thrift1, router.port);
  router.process->Signal(SIGTERM);
  EXPECT_EQ(router.process->ExitCode(), 0);
}

// A region server that is down: the router retries it every second (its
// maintenance), and Thrift reports each refused connection. Its log gets one
// line per peer and kind of error per interval (BLOOMROUTE_LOG_INTERVAL_MS,
// here 2.5 s), the next counting those it held back; no raw "Thrift:" line.
TEST_F(RouterCommandTest, ARegionServerDownIsLoggedOncePerInterval) {
  ProcessCluster cluster(1);
  ASSERT_TRUE(cluster.ok()) << cluster.error();
  ASSERT_TRUE(cluster.StopRouter());
  const std::string member = cluster.region_server_addresses()[0];
  ASSERT_TRUE(cluster.StopRegionServer(0));
  setenv("BLOOMROUTE_LOG_INTERVAL_MS", "2500", 1);
  testing::ServerProcess router(
      BLOOMROUTE_BINARY,
      {"router", "--data", cluster.dir() + "/router", "--listen", "127.0.0.1:0",
       "--regionserver", member},
      /*capture_stderr=*/true);
  unsetenv("BLOOMROUTE_LOG_INTERVAL_MS");
  ASSERT_GT(router.ReadPort(), 0);
  const auto started = std::chrono::steady_clock::now();
  std::this_thread::sleep_for(std::chrono::milliseconds(7000));
  router.Signal(SIGTERM);
  EXPECT_EQ(router.ExitCode(), 0);
  const double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - started)
          .count();
  const std::string err = router.ReadStderr();
  const std::string peer =
      "<Host: 127.0.0.1 Port: " + member.substr(member.find(':') + 1) + ">";
  std::vector<std::string> lines;  // about the member's refused connections
  std::istringstream in(err);
  for (std::string line; std::getline(in, line);) {
    EXPECT_THAT(line, ::testing::Not(::testing::StartsWith("Thrift: ")));
    if (line.find(peer) != std::string::npos &&
        line.find("Connection refused") != std::string::npos) {
      lines.push_back(line);
    }
  }
  ASSERT_GE(lines.size(), 2u) << err;
  EXPECT_LE(lines.size(), static_cast<size_t>(seconds / 2.5) + 1) << err;
  EXPECT_THAT(lines[0], MatchesRegex("[0-9-]+T[0-9:]+\\.[0-9]+Z WARN thrift: "
                                     "TSocket::open\\(\\) error .*: "
                                     "Connection refused"));
  EXPECT_THAT(lines[1],
              MatchesRegex(".*: Connection refused \\(and [1-9][0-9]* "
                           "more like it in the last [0-9]+ ms\\)"));
}

// SIGHUP reloads the router's token file (none here: nothing to reload)
// and the router goes on serving; before, SIGHUP's default action ended it.
TEST_F(RouterCommandTest, SighupReloadsAndKeepsServing) {
  ProcessCluster cluster(1);
  ASSERT_TRUE(cluster.ok()) << cluster.error();
  ASSERT_TRUE(cluster.StopRouter());
  testing::StartedServer router = testing::StartRouter(
      cluster.dir() + "/router", cluster.region_server_addresses());
  ASSERT_GT(router.port, 0) << router.line;
  router.process->Signal(SIGHUP);
  const std::optional<std::string> line = router.process->ReadLine();
  ASSERT_TRUE(line.has_value());
  EXPECT_EQ(*line, "bloomroute router: SIGHUP: 0 tokens in force");
  {
    RouterClient client(router.port);
    std::vector<client::TIndexedTable> tables;
    client->listTables(tables);
    EXPECT_TRUE(tables.empty());
  }
  router.process->Signal(SIGTERM);
  EXPECT_EQ(router.process->ExitCode(), 0);
}

// The catalog keeps its members with their addresses: a router restarted
// with fewer --regionserver flags (here none) still serves every member.
// (It used to refuse to start when a server holding regions was left out.)
TEST_F(RouterCommandTest, ServesEveryMemberWithoutTheirFlags) {
  ProcessCluster cluster(2);
  ASSERT_TRUE(cluster.ok()) << cluster.error();
  {
    RouterClient client(cluster.router_port());
    client::TTableInfo info;
    client->createIndexedTable(info, MakeTableSpec("geo", {"d:cc"}, 0, {"m"}));
    client->put("geo", MakePut("zebra", {{"d:cc", "NO"}}));  // on server 2
  }
  ASSERT_TRUE(cluster.StopRouter());
  testing::StartedServer router = testing::StartRouter(
      cluster.dir() + "/router", {cluster.region_server_address(0)});
  ASSERT_GT(router.port, 0) << router.line;
  EXPECT_THAT(router.line, HasSubstr("with 2 region servers"));
  router.process->Signal(SIGTERM);
  ASSERT_TRUE(router.process->Wait().has_value());
  router = testing::StartRouter(cluster.dir() + "/router", {});
  ASSERT_GT(router.port, 0) << router.line;
  RouterClient client(router.port);
  client::TResult row;
  client->get(row, "geo", MakeGet("zebra"));
  EXPECT_EQ(testing::CellsOf(row), (CellMap{{"d:cc", "NO"}}));
  client::TIndexResult found;
  client->getByIndex(found, "geo", MakeQuery({{"d:cc", "NO"}}));
  EXPECT_EQ(RowKeys(found.rows), (std::vector<std::string>{"zebra"}));
  router.process->Signal(SIGTERM);
  EXPECT_TRUE(router.process->Wait().has_value());
}

// What the end-to-end tests build on: ProcessCluster restarts a killed router
// and a stopped region server on their old ports.
TEST_F(RouterCommandTest, SurvivesSigkillAndARegionServerRestart) {
  ProcessCluster cluster(2, {"--sync"});
  ASSERT_TRUE(cluster.ok()) << cluster.error();
  {
    RouterClient client(cluster.router_port());
    client::TTableInfo info;
    client->createIndexedTable(info, MakeTableSpec("geo", {"d:cc"}, 0, {"m"}));
    client->putMultiple("geo", {MakePut("oslo", {{"d:cc", "NO"}}),
                                MakePut("bergen", {{"d:cc", "NO"}})});
  }
  const int port = cluster.router_port();
  ASSERT_TRUE(cluster.StopRouter(SIGKILL));
  ASSERT_TRUE(cluster.StartRouter()) << cluster.error();
  EXPECT_EQ(cluster.router_port(), port);
  RouterClient client(port);
  client::TIndexResult found;
  client->getByIndex(found, "geo", MakeQuery({{"d:cc", "NO"}}));
  EXPECT_EQ(RowKeys(found.rows), (std::vector<std::string>{"bergen", "oslo"}));

  ASSERT_TRUE(cluster.StopRegionServer(1));
  const auto all_no = MakeQuery({{"d:cc", "NO"}}, std::nullopt, false, true);
  EXPECT_THROW(client->getByIndex(found, "geo", all_no), rpc::TIOError);
  client->getByIndex(found, "geo",
                     MakeQuery({{"d:cc", "NO"}}, std::nullopt, true, true));
  EXPECT_TRUE(found.partial);
  ASSERT_EQ(found.missingServers.size(), 1u);
  EXPECT_EQ(found.missingServers[0].address, cluster.region_server_address(1));

  ASSERT_TRUE(cluster.StartRegionServer(1)) << cluster.error();
  bool answered = false;
  for (int i = 0; i < 200 && !answered; ++i) {  // up to 10 s
    try {
      client->getByIndex(found, "geo", all_no);
      answered = true;
    } catch (const rpc::TIOError&) {
      std::this_thread::sleep_for(std::chrono::milliseconds(50));
    }
  }
  ASSERT_TRUE(answered) << "the restarted region server was not asked again";
  EXPECT_EQ(RowKeys(found.rows), (std::vector<std::string>{"bergen", "oslo"}));
}

// Exactness issue, item 1, as a new user reproduced it: one router and one
// region server (no --sync) as processes, rows put with `bloomroute import`
// of one-row CSV files. The server's directory is copied aside at a stop
// (what a power loss leaves behind when nothing later was synced) and put
// back after more writes; the server then numbers new filter ops as it did
// before. On the main line before incarnations `bloomroute query --where
// cc=FI` printed "routing: asked 0 of 1 servers" and no row.
TEST_F(RouterCommandTest, ARegionServerDirectoryRolledBackHidesNoRow) {
  ProcessCluster cluster(1);
  ASSERT_TRUE(cluster.ok()) << cluster.error();
  const std::string router =
      "127.0.0.1:" + std::to_string(cluster.router_port());
  int files = 0;
  auto put = [&](const std::string& row, const std::string& cc) {
    const std::string file =
        cluster.dir() + "/row" + std::to_string(++files) + ".csv";
    std::ofstream(file) << "id,cc\n" << row << "," << cc << "\n";
    CommandOutput r =
        RunCommand({"import", "--router", router, "--table", "t", "--file",
                    file, "--header", "--row-key", "id", "--index", "cc"});
    EXPECT_EQ(r.code, 0) << r.err;
  };
  auto query = [&](const std::string& cc) {
    return RunCommand({"query", "--router", router, "--table", "t", "--where",
                       "cc=" + cc, "--format", "csv"});
  };
  const std::string data = cluster.dir() + "/regionserver-0";
  const std::string copy = cluster.dir() + "/copy";
  const auto recursive = std::filesystem::copy_options::recursive;

  put("a", "NO");
  ASSERT_TRUE(cluster.StopRegionServer(0));
  std::filesystem::copy(data, copy, recursive);
  ASSERT_TRUE(cluster.StartRegionServer(0)) << cluster.error();
  put("b", "SE");
  put("c", "DK");
  ASSERT_TRUE(cluster.StopRegionServer(0));
  std::filesystem::remove_all(data);
  std::filesystem::copy(copy, data, recursive);
  ASSERT_TRUE(cluster.StartRegionServer(0)) << cluster.error();
  put("d", "FI");

  CommandOutput r = query("FI");
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_EQ(r.out, "row,d:cc\r\nd,FI\r\n");
  EXPECT_THAT(r.err, HasSubstr("routing: asked 1 of 1 servers, 1 with rows"));
  r = query("NO");
  EXPECT_EQ(r.out, "row,d:cc\r\na,NO\r\n") << r.err;
  r = query("SE");  // lost with the directory: gone from rows and index
  EXPECT_EQ(r.out, "row\r\n") << r.err;
}

}  // namespace
}  // namespace bloomroute
