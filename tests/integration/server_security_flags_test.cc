// The security flags of the two server commands, `bloomroute regionserver`
// and `bloomroute router`, as real processes: a non-loopback address needs
// TLS or --insecure (and --insecure says so on start), TLS needs all three
// files and readable ones, and the router's --token-file needs TLS. Every
// refusal is a usage error (exit 2) that names the option, before anything
// is opened or bound. TLS on the wire is tested where it is implemented.
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <signal.h>

#include <filesystem>
#include <fstream>
#include <optional>
#include <string>
#include <vector>

#include "tests/integration/command_output.h"
#include "tests/integration/server_process.h"
#include "tests/regionstore/region_store_test_util.h"

namespace bloomroute::testing {
namespace {

using ::testing::HasSubstr;
using ::testing::MatchesRegex;
using ::testing::Not;

class ServerSecurityFlagsTest : public ::testing::Test {
 protected:
  void SetUp() override {
    if (testing::SecureMode()) {
      GTEST_SKIP() << "about the options themselves; the secure run adds its "
                      "own TLS options to every command";
    }
    // Not certificates: the commands check that the files can be read;
    // what they hold is the TLS layer's to check.
    for (const char* name : {"ca.pem", "node.pem", "node.key", "tokens"}) {
      std::ofstream(dir_.path() + "/" + name) << "x\n";
    }
  }
  std::string File(const std::string& name) const {
    return dir_.path() + "/" + name;
  }
  // `bloomroute <command> --data <dir>/data ...` up to the server options.
  std::vector<std::string> Base(const std::string& command) const {
    std::vector<std::string> args = {command, "--data", File("data")};
    if (command == "router") {
      args.insert(args.end(), {"--regionserver", "127.0.0.1:9"});
    }
    return args;
  }
  std::vector<std::string> Tls() const {
    return {"--tls-ca",       File("ca.pem"), "--tls-cert",
            File("node.pem"), "--tls-key",    File("node.key")};
  }
  // Runs Base(command) + args; expects a usage error whose one line holds
  // every part of `want`, and that nothing was opened (no data directory).
  void ExpectRefused(const std::string& command,
                     const std::vector<std::string>& args,
                     const std::vector<std::string>& want) {
    std::vector<std::string> all = Base(command);
    all.insert(all.end(), args.begin(), args.end());
    SCOPED_TRACE(::testing::PrintToString(all));
    // A server that starts instead is killed after a few seconds.
    const CommandOutput r = RunProgram(BLOOMROUTE_BINARY, all, 5000);
    const int code = r.code;
    const std::string& err = r.err;
    EXPECT_EQ(code, 2) << err;
    EXPECT_THAT(err, MatchesRegex("bloomroute " + command + ": [^\n]+\n"));
    for (const std::string& part : want) EXPECT_THAT(err, HasSubstr(part));
    EXPECT_FALSE(std::filesystem::exists(File("data")));
  }

  TempDir dir_;
};

TEST_F(ServerSecurityFlagsTest, NonLoopbackWithoutTlsIsRefusedBeforeBinding) {
  for (const char* command : {"regionserver", "router"}) {
    for (const char* listen : {"0.0.0.0:0", "[::]:0", "192.0.2.1:0"}) {
      ExpectRefused(command, {"--listen", listen},
                    {"--listen", "is not a loopback address",
                     "--tls-ca, --tls-cert and --tls-key", "--insecure"});
    }
  }
}

TEST_F(ServerSecurityFlagsTest,
       HalfGivenTlsFilesAreRefusedNamingTheMissingOne) {
  for (const char* command : {"regionserver", "router"}) {
    ExpectRefused(command, {"--tls-ca", File("ca.pem")}, {"--tls-cert"});
    ExpectRefused(command,
                  {"--tls-ca", File("ca.pem"), "--tls-cert", File("node.pem")},
                  {"--tls-key"});
    ExpectRefused(
        command,
        {"--tls-cert", File("node.pem"), "--tls-key", File("node.key")},
        {"--tls-ca"});
  }
}

TEST_F(ServerSecurityFlagsTest,
       UnreadableTlsFilesAreRefusedNamingOptionAndFile) {
  const std::string missing = File("no-such.pem");
  for (const char* command : {"regionserver", "router"}) {
    std::vector<std::string> args = Tls();
    args[3] = missing;  // --tls-cert
    ExpectRefused(command, args, {"--tls-cert " + missing});
    args = Tls();
    args[5] = dir_.path();  // --tls-key: a directory
    ExpectRefused(command, args, {"--tls-key " + dir_.path()});
  }
}

TEST_F(ServerSecurityFlagsTest, InsecureAndTlsExcludeEachOther) {
  for (const char* command : {"regionserver", "router"}) {
    std::vector<std::string> args = Tls();
    args.push_back("--insecure");
    ExpectRefused(command, args, {"--insecure", "--tls-"});
  }
}

TEST_F(ServerSecurityFlagsTest, RouterTokenFileNeedsTlsAndAReadableFile) {
  ExpectRefused("router", {"--token-file", File("tokens")},
                {"--token-file needs TLS"});
  ExpectRefused("router", {"--token-file", File("tokens"), "--insecure"},
                {"--token-file needs TLS"});
  std::vector<std::string> args = Tls();
  args.insert(args.end(), {"--token-file", File("no-tokens")});
  ExpectRefused("router", args, {"--token-file " + File("no-tokens")});
}

// --insecure off loopback serves, and logs (on stderr: no --log-file) what
// that means, with the real port.
TEST_F(ServerSecurityFlagsTest, InsecureServesOffLoopbackWithAWarning) {
  for (const char* command : {"regionserver", "router"}) {
    SCOPED_TRACE(command);
    std::vector<std::string> args = Base(command);
    args.insert(args.end(), {"--listen", "0.0.0.0:0", "--insecure"});
    ServerProcess server(BLOOMROUTE_BINARY, args, /*capture_stderr=*/true);
    const std::optional<std::string> line = server.ReadLine();
    ASSERT_TRUE(line.has_value());
    const std::string marker = " on 0.0.0.0:";
    const size_t at = line->find(marker);
    ASSERT_NE(at, std::string::npos) << *line;
    const std::string port = line->substr(at + marker.size());
    server.Signal(SIGTERM);
    EXPECT_EQ(server.ExitCode(), 0);
    EXPECT_THAT(server.ReadStderr(),
                HasSubstr(std::string("WARN ") + command +
                          ": serving without TLS on 0.0.0.0:" +
                          port.substr(0, port.find_first_not_of("0123456789")) +
                          " (--insecure): anyone who can reach this port can "
                          "call anything\n"));
    std::filesystem::remove_all(File("data"));
  }
}

// On loopback nothing changes: no TLS, no flag, no warning.
TEST_F(ServerSecurityFlagsTest, LoopbackNeedsNothingAndWarnsOfNothing) {
  std::vector<std::string> args = Base("regionserver");
  args.insert(args.end(), {"--listen", "127.0.0.1:0"});
  ServerProcess server(BLOOMROUTE_BINARY, args, /*capture_stderr=*/true);
  EXPECT_GT(server.ReadPort(), 0);
  server.Signal(SIGTERM);
  EXPECT_EQ(server.ExitCode(), 0);
  EXPECT_THAT(server.ReadStderr(), Not(HasSubstr("serving without TLS")));
}

TEST_F(ServerSecurityFlagsTest, HelpListsTheSecurityOptions) {
  for (const char* command : {"regionserver", "router"}) {
    const CommandOutput help = RunCommand({command, "--help"});
    EXPECT_EQ(help.code, 0);
    for (const char* option :
         {"--tls-ca", "--tls-cert", "--tls-key", "--insecure"}) {
      EXPECT_THAT(help.out, HasSubstr(option)) << command;
    }
  }
  EXPECT_THAT(RunCommand({"router", "--help"}).out, HasSubstr("--token-file"));
}

}  // namespace
}  // namespace bloomroute::testing
