// The TLS and token flags every client command takes (query, get, scan,
// accuracy, import, verify), as real processes: a token needs a CA (it must
// not travel in the clear), a certificate needs a CA, the files must be
// readable, and the token file is bounded and must hold a token. Each refusal
// is a usage error (exit 2) naming the option, before any connection. That
// the flags reach the connection is tested on ClientFlags
// (tests/tools/client_command_util_test.cc); TLS on the wire where it is
// implemented.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <fstream>
#include <string>
#include <vector>

#include "tests/integration/command_output.h"
#include "tests/regionstore/region_store_test_util.h"

namespace bloomroute::testing {
namespace {

using ::testing::HasSubstr;
using ::testing::MatchesRegex;

class ClientSecurityFlagsTest : public ::testing::Test {
 protected:
  void SetUp() override {
    if (testing::SecureMode()) {
      GTEST_SKIP() << "about the options themselves; the secure run adds its "
                      "own TLS options to every command";
    }
    std::ofstream(File("ca.pem")) << "x\n";
    std::ofstream(File("client.pem")) << "x\n";
    std::ofstream(File("client.key")) << "x\n";
    std::ofstream(File("token")) << std::string(64, 'a') << "\n";
    std::ofstream(File("empty-token")) << " \n";
    std::ofstream(File("big-token")) << std::string(5000, 'a') << "\n";
    std::ofstream(File("rows.csv")) << "k,a\n1,x\n";
  }
  std::string File(const std::string& name) const {
    return dir_.path() + "/" + name;
  }
  // Each client command with its required options; the router is never
  // reached (nothing listens on port 9 of loopback).
  std::vector<std::vector<std::string>> Commands() const {
    const std::vector<std::string> at = {"--router", "127.0.0.1:9", "--table",
                                         "t"};
    std::vector<std::vector<std::string>> commands = {
        {"query", "--where", "a=b"},
        {"get", "--row", "r"},
        {"scan"},
        {"accuracy", "--out", File("accuracy")},
        {"import", "--file", File("rows.csv"), "--header", "--row-key", "k",
         "--index", "a"},
        {"verify"},
        {"bench", "ycsb"}};
    for (auto& c : commands) c.insert(c.begin() + 1, at.begin(), at.end());
    return commands;
  }
  void ExpectRefusedByEveryCommand(const std::vector<std::string>& flags,
                                   const std::string& want) {
    for (std::vector<std::string> args : Commands()) {
      args.insert(args.end(), flags.begin(), flags.end());
      SCOPED_TRACE(::testing::PrintToString(args));
      const CommandOutput r = RunCommand(args);
      EXPECT_EQ(r.code, 2) << r.err;
      EXPECT_THAT(r.err, MatchesRegex("bloomroute " + args[0] + ": [^\n]+\n"));
      EXPECT_THAT(r.err, HasSubstr(want));
    }
  }

  TempDir dir_;
};

TEST_F(ClientSecurityFlagsTest, ATokenWithoutTlsIsRefused) {
  ExpectRefusedByEveryCommand({"--token-file", File("token")},
                              "--token-file needs --tls-ca");
}

TEST_F(ClientSecurityFlagsTest, ACertificateWithoutACaOrKeyIsRefused) {
  ExpectRefusedByEveryCommand(
      {"--tls-cert", File("client.pem"), "--tls-key", File("client.key")},
      "need --tls-ca");
  ExpectRefusedByEveryCommand(
      {"--tls-ca", File("ca.pem"), "--tls-cert", File("client.pem")},
      "--tls-cert needs --tls-key");
}

TEST_F(ClientSecurityFlagsTest, UnreadableFilesAreRefusedNamingOptionAndFile) {
  ExpectRefusedByEveryCommand({"--tls-ca", File("none.pem")},
                              "--tls-ca " + File("none.pem"));
  ExpectRefusedByEveryCommand(
      {"--tls-ca", File("ca.pem"), "--token-file", File("none")},
      "--token-file " + File("none"));
}

TEST_F(ClientSecurityFlagsTest, AnEmptyOrOversizedTokenFileIsRefused) {
  ExpectRefusedByEveryCommand(
      {"--tls-ca", File("ca.pem"), "--token-file", File("empty-token")},
      "--token-file " + File("empty-token") + ": its first line is empty");
  ExpectRefusedByEveryCommand(
      {"--tls-ca", File("ca.pem"), "--token-file", File("big-token")},
      "--token-file " + File("big-token") + ": larger than 4096 bytes");
}

TEST_F(ClientSecurityFlagsTest, HelpOfEveryCommandListsTheFlags) {
  for (const auto& args : Commands()) {
    const CommandOutput help = RunCommand({args[0], "--help"});
    EXPECT_EQ(help.code, 0);
    for (const char* option :
         {"--tls-ca", "--tls-cert", "--tls-key", "--token-file"}) {
      EXPECT_THAT(help.out, HasSubstr(option)) << args[0];
    }
  }
}

}  // namespace
}  // namespace bloomroute::testing
