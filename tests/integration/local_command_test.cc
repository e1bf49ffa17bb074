// `bloomroute local` as a real process: argument checks, the start-up line, a
// clean stop on SIGTERM / SIGINT, every table and row back after a restart,
// region server addresses kept across restarts, more servers added, fewer
// refused while they hold regions, and a recorded port that is now taken.
#include <arpa/inet.h>
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <netinet/in.h>
#include <signal.h>
#include <sys/socket.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <optional>
#include <sstream>
#include <string>
#include <vector>

#include "tests/integration/command_output.h"
#include "tests/integration/router_client.h"
#include "tests/integration/server_process.h"
#include "tests/regionstore/region_store_test_util.h"

namespace bloomroute {
namespace {

namespace client = rpc::client;
using ::bloomroute::testing::CellMap;
using ::bloomroute::testing::CommandOutput;
using ::bloomroute::testing::MakeGet;
using ::bloomroute::testing::MakePut;
using ::bloomroute::testing::MakeQuery;
using ::bloomroute::testing::MakeTableSpec;
using ::bloomroute::testing::RouterClient;
using ::bloomroute::testing::RowKeys;
using ::bloomroute::testing::RunCommand;
using ::bloomroute::testing::RunToExit;
using ::bloomroute::testing::SecureMode;
using ::bloomroute::testing::StartedServer;
using ::bloomroute::testing::StartLocal;
using ::bloomroute::testing::TempDir;
using ::testing::HasSubstr;
using ::testing::MatchesRegex;
using ::testing::Not;

class LocalCommandTest : public ::testing::Test {
 protected:
  // The region server addresses the directory recorded.
  std::vector<std::string> RecordedAddresses() const {
    std::ifstream in(dir_.path() + "/regionserver-addresses");
    std::vector<std::string> out;
    std::string line;
    while (std::getline(in, line)) {
      if (line.rfind("127.0.0.1:", 0) == 0) out.push_back(line);
    }
    return out;
  }
  // Sends SIGTERM (or `signal`) and returns the exit code.
  static int StopAndExitCode(StartedServer& local, int signal = SIGTERM) {
    local.process->Signal(signal);
    return local.process->ExitCode();
  }

  TempDir dir_;
};

TEST_F(LocalCommandTest, RejectsBadArgumentsWithAOneLineReason) {
  const std::string data = dir_.path();
  const std::vector<std::vector<std::string>> bad = {
      {"local", "--servers", "2"},  // --data is required
      {"local", "--data", data},    // --servers too
      {"local", "--data", data, "--servers", "0"},
      {"local", "--data", data, "--servers", "65"},
      {"local", "--data", data, "--servers", "x"},
      {"local", "--data", data, "--servers", "2", "--port", "65536"},
      {"local", "--data", data, "--servers", "2", "--bogus"},
      {"local", "--data", data, "--servers", "2", "--block-cache-bytes", "0"},
      {"local", "--data", data, "--servers", "2", "--memtable-bytes", "1024"},
  };
  for (const auto& args : bad) {
    SCOPED_TRACE(::testing::PrintToString(args));
    const auto [code, err] = RunToExit(args);
    EXPECT_EQ(code, 2);
    EXPECT_THAT(err, MatchesRegex("bloomroute local: [^\n]+\n"));
  }
}

TEST_F(LocalCommandTest, StopsCleanlyAndARestartBringsEveryRowBack) {
  StartedServer local = StartLocal(dir_.path(), 3);
  ASSERT_GT(local.port, 0) << local.line;
  EXPECT_EQ(local.line, "bloomroute local: router on 127.0.0.1:" +
                            std::to_string(local.port) +
                            ", 3 region servers, data in " + dir_.path());
  const std::vector<std::string> addresses = RecordedAddresses();
  EXPECT_EQ(addresses.size(), 3u);
  {
    RouterClient client(local.port);
    client::TTableInfo info;
    client->createIndexedTable(info,
                               MakeTableSpec("geo", {"d:cc"}, 0, {"h", "p"}));
    std::vector<client::TPut> puts;
    for (const char* city : {"bergen", "lund", "oslo", "turku", "visby"}) {
      const std::string cc = city[0] == 'v' || city[0] == 'l' ? "SE" : "NO";
      puts.push_back(MakePut(city, {{"d:cc", cc}, {"d:name", city}}));
    }
    client->putMultiple("geo", puts);
  }
  EXPECT_EQ(StopAndExitCode(local), 0);

  local = StartLocal(dir_.path(), 3);
  ASSERT_GT(local.port, 0) << local.line;
  EXPECT_EQ(RecordedAddresses(), addresses);
  RouterClient client(local.port);
  std::vector<client::TIndexedTable> tables;
  client->listTables(tables);
  ASSERT_EQ(tables.size(), 1u);
  client::TResult row;
  client->get(row, "geo", MakeGet("turku"));
  EXPECT_EQ(testing::CellsOf(row),
            (CellMap{{"d:cc", "NO"}, {"d:name", "turku"}}));
  client::TIndexResult found;
  client->getByIndex(found, "geo", MakeQuery({{"d:cc", "SE"}}));
  EXPECT_EQ(RowKeys(found.rows), (std::vector<std::string>{"lund", "visby"}));
  EXPECT_EQ(StopAndExitCode(local, SIGINT), 0);
}

// The router and the region servers share the process's one log file: the
// start-up and stop lines are in it, with time, level and component.
TEST_F(LocalCommandTest, LogsToOneFileForTheWholeCluster) {
  TempDir logs;
  const std::string log = logs.path() + "/local.log";
  StartedServer local =
      StartLocal(dir_.path(), 2, 0, {"--log-file", log, "--log-level", "info"});
  ASSERT_GT(local.port, 0) << local.line;
  std::ifstream started(log);
  std::string first;
  ASSERT_TRUE(std::getline(started, first));
  EXPECT_THAT(first, MatchesRegex("[0-9-]+T[0-9:.]+Z INFO local: router on "
                                  "127\\.0\\.0\\.1:" +
                                  std::to_string(local.port) +
                                  ", 2 region servers, data in .*"));
  EXPECT_EQ(StopAndExitCode(local), 0);
  std::ifstream stopped(log);
  std::stringstream text;
  text << stopped.rdbuf();
  EXPECT_THAT(text.str(), HasSubstr("Z INFO local: Terminated, stopping\n"));
  EXPECT_THAT(text.str(), HasSubstr("Z INFO local: stopped\n"));
}

// A region server started on its own and added with `admin add-server`
// joins the local cluster: a new table places a region on it, rows are
// written and read through it, and the local cluster restarted (which names
// only its own servers to the router) still serves it, a catalog member.
TEST_F(LocalCommandTest, GrowsByARegionServerAddedWithAdmin) {
  StartedServer local = StartLocal(dir_.path(), 1);
  ASSERT_GT(local.port, 0) << local.line;
  StartedServer extra = testing::StartRegionServer(dir_.path() + "/extra");
  ASSERT_GT(extra.port, 0) << extra.line;
  const std::string extra_address = "127.0.0.1:" + std::to_string(extra.port);
  const std::string router = "127.0.0.1:" + std::to_string(local.port);
  const testing::CommandOutput added =
      RunCommand({"admin", "add-server", extra_address, "--router", router,
                  "--format", "json"});
  ASSERT_EQ(added.code, 0) << added.out << added.err;
  EXPECT_NE(added.out.find("\"address\":\"" + extra_address + "\""),
            std::string::npos)
      << added.out;
  {
    RouterClient client(local.port);
    client::TTableInfo info;
    client->createIndexedTable(info, MakeTableSpec("geo", {"d:cc"}, 0, {"m"}));
    ASSERT_EQ(info.regions.size(), 2u);
    EXPECT_EQ(info.regions[1].server.address, extra_address);
    std::vector<client::TPut> puts;
    for (const char* city : {"bergen", "oslo", "turku", "visby"}) {
      puts.push_back(MakePut(city, {{"d:cc", "NO"}, {"d:name", city}}));
    }
    client->putMultiple("geo", puts);
  }
  const testing::CommandOutput servers =
      RunCommand({"admin", "servers", "--router", router});
  ASSERT_EQ(servers.code, 0) << servers.out << servers.err;
  EXPECT_NE(servers.out.find(extra_address), std::string::npos) << servers.out;
  EXPECT_EQ(StopAndExitCode(local), 0);

  local = StartLocal(dir_.path(), 1);
  ASSERT_GT(local.port, 0) << local.line;
  RouterClient client(local.port);
  client::TResult row;
  client->get(row, "geo", MakeGet("turku"));  // on the added server
  EXPECT_EQ(testing::CellsOf(row),
            (CellMap{{"d:cc", "NO"}, {"d:name", "turku"}}));
  client::TIndexResult found;
  client->getByIndex(found, "geo", MakeQuery({{"d:cc", "NO"}}));
  EXPECT_EQ(RowKeys(found.rows),
            (std::vector<std::string>{"bergen", "oslo", "turku", "visby"}));
  EXPECT_EQ(StopAndExitCode(local), 0);
  extra.process->Signal(SIGTERM);
  EXPECT_TRUE(extra.process->Wait().has_value());
}

TEST_F(LocalCommandTest, AddsServersAndRefusesToDropOnesThatHoldRegions) {
  StartedServer local = StartLocal(dir_.path(), 2);
  ASSERT_GT(local.port, 0) << local.line;
  {
    RouterClient client(local.port);
    client::TTableInfo info;
    client->createIndexedTable(info,
                               MakeTableSpec("geo", {"d:cc"}));  // 2 regions
  }
  EXPECT_EQ(StopAndExitCode(local), 0);
  const std::vector<std::string> before = RecordedAddresses();
  ASSERT_EQ(before.size(), 2u);

  local = StartLocal(dir_.path(), 3);
  ASSERT_GT(local.port, 0) << local.line;
  EXPECT_THAT(local.line, HasSubstr(", 3 region servers,"));
  const std::vector<std::string> after = RecordedAddresses();
  ASSERT_EQ(after.size(), 3u);
  EXPECT_EQ(std::vector<std::string>(after.begin(), after.begin() + 2), before);
  EXPECT_EQ(StopAndExitCode(local), 0);

  const auto [code, err] = RunToExit(
      {"local", "--data", dir_.path(), "--servers", "1", "--port", "0"});
  EXPECT_EQ(code, 1);
  EXPECT_THAT(err, HasSubstr(before[1]));
  EXPECT_THAT(err, HasSubstr("member of the router's catalog"));
  EXPECT_THAT(err, HasSubstr("--servers 3"));
}

TEST_F(LocalCommandTest, ARecordedPortThatIsTakenIsReported) {
  StartedServer local = StartLocal(dir_.path(), 1);
  ASSERT_GT(local.port, 0) << local.line;
  EXPECT_EQ(StopAndExitCode(local), 0);
  const std::vector<std::string> recorded = RecordedAddresses();
  ASSERT_EQ(recorded.size(), 1u);
  const int port = std::stoi(recorded[0].substr(recorded[0].rfind(':') + 1));

  // Something else listens there now.
  // SO_REUSEADDR: the port may still have connections in TIME_WAIT.
  const int fd = socket(AF_INET, SOCK_STREAM, 0);
  const int one = 1;
  setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_port = htons(static_cast<uint16_t>(port));
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  ASSERT_EQ(bind(fd, reinterpret_cast<sockaddr*>(&addr), sizeof(addr)), 0);
  ASSERT_EQ(listen(fd, 1), 0);
  const auto [code, err] = RunToExit(
      {"local", "--data", dir_.path(), "--servers", "1", "--port", "0"});
  close(fd);
  EXPECT_EQ(code, 1);
  EXPECT_THAT(err, HasSubstr(recorded[0]));
  EXPECT_THAT(err, HasSubstr("must be free"));
}

// --secure makes a CA and certificates in DIR/certs, says so and which
// client options to use, and keeps them on a restart. (That the ports then
// speak only TLS is checked where the TLS server code is tested.)
TEST_F(LocalCommandTest, SecureMakesCertificatesAndPrintsTheClientOptions) {
  const std::string certs = dir_.path() + "/certs";
  StartedServer local = StartLocal(dir_.path(), 2, 0, {"--secure"});
  ASSERT_GT(local.port, 0) << local.line;
  std::optional<std::string> tls = local.process->ReadLine();
  ASSERT_TRUE(tls.has_value());
  EXPECT_EQ(*tls, "bloomroute local: TLS on every port, certificates made in " +
                      certs + "; clients: --tls-ca " + certs +
                      "/ca.crt --tls-cert " + certs +
                      "/client.root.crt --tls-key " + certs +
                      "/client.root.key");
  for (const char* file : {"ca.crt", "ca.key", "node.crt", "node.key",
                           "client.root.crt", "client.root.key"}) {
    EXPECT_TRUE(std::filesystem::exists(certs + "/" + file)) << file;
  }
  std::ifstream in(certs + "/ca.crt");
  std::stringstream ca;
  ca << in.rdbuf();
  EXPECT_EQ(StopAndExitCode(local), 0);

  local = StartLocal(dir_.path(), 2, 0, {"--secure"});
  ASSERT_GT(local.port, 0) << local.line;
  tls = local.process->ReadLine();
  ASSERT_TRUE(tls.has_value());
  EXPECT_THAT(*tls, HasSubstr("certificates kept in " + certs + ";"));
  std::ifstream again(certs + "/ca.crt");
  std::stringstream ca_again;
  ca_again << again.rdbuf();
  EXPECT_EQ(ca_again.str(), ca.str());
  EXPECT_EQ(StopAndExitCode(local), 0);
}

}  // namespace
// With --secure every port speaks only TLS: a client with the printed
// options is served, one in the clear is not, and neither is a region server
// asked directly by a client that is not a router.
TEST_F(LocalCommandTest, SecureServesOnlyClientsWithItsCertificates) {
  if (SecureMode()) {
    GTEST_SKIP() << "uses local's own certificates; the secure run adds the "
                    "test CA's to every command";
  }
  const std::string certs = dir_.path() + "/certs";
  StartedServer local = StartLocal(dir_.path(), 2, 0, {"--secure"});
  ASSERT_GT(local.port, 0) << local.line;
  const std::vector<std::string> tls = {
      "--tls-ca",   certs + "/ca.crt",
      "--tls-cert", certs + "/client.root.crt",
      "--tls-key",  certs + "/client.root.key"};
  std::vector<std::string> get = {
      "get", "--router", local.address(), "--table", "nosuch", "--row", "x"};
  // Served: the router answers that the table does not exist.
  std::vector<std::string> secure_get = get;
  secure_get.insert(secure_get.end(), tls.begin(), tls.end());
  CommandOutput served = RunCommand(secure_get);
  EXPECT_NE(served.code, 0);
  EXPECT_THAT(served.err, HasSubstr("nosuch")) << served.err;
  // In the clear: the router closes the connection; nothing is answered.
  CommandOutput plain = RunCommand(get);
  EXPECT_NE(plain.code, 0);
  EXPECT_THAT(plain.err, Not(HasSubstr("nosuch"))) << plain.err;
  // Only the CA (no client certificate): refused by role.
  std::vector<std::string> anonymous = get;
  anonymous.insert(anonymous.end(), tls.begin(), tls.begin() + 2);
  CommandOutput refused = RunCommand(anonymous);
  EXPECT_NE(refused.code, 0);
  EXPECT_THAT(refused.err, HasSubstr("PermissionDenied")) << refused.err;
  EXPECT_THAT(refused.err, HasSubstr("not authenticated")) << refused.err;
  EXPECT_EQ(StopAndExitCode(local), 0);
}

}  // namespace bloomroute
