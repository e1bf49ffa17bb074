// What a client command tells its user when it cannot do its work: the
// first line of stderr is the command's own reason, with advice where the
// client can tell what went wrong (RouterClient's connection failures,
// thrift/router_client.h; unknown tables, ExplainTableNotFound in
// tools/client_command_util.h), and no line of Thrift's before it.
//
// The tests about plaintext against TLS set up both sides themselves: they
// run the binary through /usr/bin/env, so that the secure run
// (secure_mode.h) adds no TLS options of its own, and behave the same in
// both runs.
#include <gtest/gtest.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <string>
#include <vector>

#include "tests/integration/command_output.h"
#include "tests/integration/server_process.h"
#include "tests/regionstore/region_store_test_util.h"

namespace bloomroute::testing {
namespace {

constexpr char kEnv[] = "/usr/bin/env";

std::string FirstLine(const std::string& text) {
  return text.substr(0, text.find('\n'));
}

// A loopback port nothing listens on: one the kernel picked, then closed.
int ClosedPort() {
  const int fd = socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  addr.sin_port = 0;
  socklen_t size = sizeof(addr);
  if (bind(fd, reinterpret_cast<sockaddr*>(&addr), sizeof(addr)) != 0 ||
      getsockname(fd, reinterpret_cast<sockaddr*>(&addr), &size) != 0) {
    close(fd);
    return 0;
  }
  close(fd);
  return ntohs(addr.sin_port);
}

class ClientErrorsTest : public ::testing::Test {
 protected:
  // `bloomroute args...` as given: no TLS options added in the secure run.
  static CommandOutput RunExactly(std::vector<std::string> args) {
    args.insert(args.begin(), BLOOMROUTE_BINARY);
    return RunProgram(kEnv, args);
  }
  // A router over TLS when `tls`, whatever the run, whose one region server
  // is not running (it answers listTables: no tables).
  StartedServer StartRouterExactly(bool tls) {
    std::vector<std::string> args = {
        BLOOMROUTE_BINARY, "router",
        "--data",          dir_.path() + "/router",
        "--listen",        "127.0.0.1:0",
        "--regionserver",  "127.0.0.1:" + std::to_string(ClosedPort())};
    if (tls) {
      for (const std::string& f : TlsFlags(TestCerts().node)) {
        args.push_back(f);
      }
    }
    StartedServer s;
    // Its warnings about the region server are not this test's.
    s.process = std::make_unique<ServerProcess>(kEnv, args,
                                                /*capture_stderr=*/true);
    s.port = s.process->ReadPort(&s.line);
    return s;
  }
  static std::vector<std::string> Query(const std::string& router) {
    return {"query", "--router", router, "--table", "t", "--where", "cc=NO"};
  }

  TempDir dir_;
};

TEST_F(ClientErrorsTest, ARefusedConnectionNamesTheRouterAndSuggestsRouter) {
  const int port = ClosedPort();
  ASSERT_GT(port, 0);
  const std::string router = "127.0.0.1:" + std::to_string(port);
  const CommandOutput r = RunCommand(Query(router));
  EXPECT_EQ(r.code, 1) << r.err;
  EXPECT_EQ(FirstLine(r.err),
            "bloomroute query: Unavailable: cannot connect to the router at " +
                router +
                ": connection refused (is it running? name another with "
                "--router HOST:PORT)");
  // Thrift's own line ("Thrift: <date> TSocket::open() error ...") is not
  // shown at all.
  EXPECT_EQ(r.err.find("Thrift:"), std::string::npos) << r.err;
  EXPECT_EQ(r.err.find("TSocket"), std::string::npos) << r.err;
}

TEST_F(ClientErrorsTest, APlaintextClientToATlsPortIsToldItSpeaksTls) {
  StartedServer tls = StartRouterExactly(/*tls=*/true);
  ASSERT_GT(tls.port, 0) << tls.line;
  const CommandOutput r = RunExactly(Query(tls.address()));
  EXPECT_EQ(r.code, 1) << r.err;
  EXPECT_EQ(FirstLine(r.err),
            "bloomroute query: InvalidArgument: the router at " +
                tls.address() +
                " speaks TLS: give --tls-ca FILE, the CA that signed its "
                "certificate");
}

TEST_F(ClientErrorsTest, ATlsClientToAPlaintextPortIsToldItDoesNotSpeakTls) {
  StartedServer plain = StartRouterExactly(/*tls=*/false);
  ASSERT_GT(plain.port, 0) << plain.line;
  std::vector<std::string> args = Query(plain.address());
  for (const std::string& f : TlsFlags(TestCerts().client)) args.push_back(f);
  const CommandOutput r = RunExactly(args);
  EXPECT_EQ(r.code, 1) << r.err;
  EXPECT_EQ(FirstLine(r.err),
            "bloomroute query: InvalidArgument: the router at " +
                plain.address() +
                " does not speak TLS: drop --tls-ca, or name its TLS port "
                "with --router HOST:PORT");
}

}  // namespace
}  // namespace bloomroute::testing
