#include "tools/server_command_util.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "tests/regionstore/region_store_test_util.h"
#include "tests/tools/flags_test_util.h"

namespace bloomroute {
namespace {

using ::bloomroute::testing::ParseFlags;
using ::bloomroute::testing::TempDir;
using ::bloomroute::testing::WriteFile;
using ::testing::HasSubstr;

class ServerFlagsTest : public ::testing::Test {
 protected:
  // ServerFlags::ToOptions after parsing `args`; `flags` keeps them for
  // InsecureWarning.
  Status ToOptions(const std::vector<std::string>& args, ServerFlags* flags,
                   ServerOptions* out) {
    ParseFlags(*flags, args);
    return flags->ToOptions(ServerOptions::kMinFrameBytes, out);
  }
  Status ToOptions(const std::vector<std::string>& args) {
    ServerFlags flags("127.0.0.1:0", ServerOptions());
    ServerOptions out;
    return ToOptions(args, &flags, &out);
  }
  std::vector<std::string> Tls() {
    return {"--tls-ca",   WriteFile(dir_.path() + "/ca.pem", "x"),
            "--tls-cert", WriteFile(dir_.path() + "/n.pem", "x"),
            "--tls-key",  WriteFile(dir_.path() + "/n.key", "x")};
  }

  TempDir dir_;
};

TEST_F(ServerFlagsTest, TlsFilesReachTheServerOptions) {
  ServerFlags flags("127.0.0.1:0", ServerOptions());
  ServerOptions out;
  ASSERT_TRUE(ToOptions(Tls(), &flags, &out).ok());
  EXPECT_TRUE(out.tls.enabled());
  EXPECT_EQ(out.tls.ca_file, dir_.path() + "/ca.pem");
  EXPECT_EQ(out.tls.cert_file, dir_.path() + "/n.pem");
  EXPECT_EQ(out.tls.key_file, dir_.path() + "/n.key");

  ServerFlags plain("127.0.0.1:0", ServerOptions());
  ServerOptions plain_out;
  ASSERT_TRUE(ToOptions({}, &plain, &plain_out).ok());
  EXPECT_FALSE(plain_out.tls.enabled());
  EXPECT_EQ(plain.InsecureWarning("x", plain_out.host, 1), "");
}

TEST_F(ServerFlagsTest, OffLoopbackNeedsTlsOrInsecure) {
  for (const char* loopback :
       {"127.0.0.1:0", "127.1.2.3:0", "[::1]:0", "localhost:0"}) {
    EXPECT_TRUE(ToOptions({"--listen", loopback}).ok()) << loopback;
  }
  for (const char* open : {"0.0.0.0:0", "[::]:0", "10.1.2.3:0", "node1:0"}) {
    const Status s = ToOptions({"--listen", open});
    EXPECT_TRUE(s.IsInvalidArgument()) << open;
    EXPECT_EQ(s.message(),
              std::string("--listen ") + open +
                  " is not a loopback address: give --tls-ca, --tls-cert and "
                  "--tls-key to serve TLS, or --insecure to serve in the "
                  "clear");
    std::vector<std::string> with_tls = Tls();
    with_tls.insert(with_tls.end(), {"--listen", open});
    EXPECT_TRUE(ToOptions(with_tls).ok()) << open;
    EXPECT_TRUE(ToOptions({"--listen", open, "--insecure"}).ok()) << open;
  }
}

TEST_F(ServerFlagsTest, InsecureWarnsOnlyOffLoopback) {
  ServerFlags flags("127.0.0.1:0", ServerOptions());
  ServerOptions out;
  ASSERT_TRUE(
      ToOptions({"--listen", "0.0.0.0:0", "--insecure"}, &flags, &out).ok());
  EXPECT_FALSE(out.tls.enabled());
  EXPECT_EQ(flags.InsecureWarning("router", "0.0.0.0", 9090),
            "bloomroute router: WARNING: serving without TLS on 0.0.0.0:9090 "
            "(--insecure): anyone who can reach this port can call anything");
  EXPECT_THAT(flags.InsecureWarning("regionserver", "::", 9091),
              HasSubstr("on [::]:9091 (--insecure)"));
  EXPECT_EQ(flags.InsecureWarning("router", "127.0.0.1", 9090), "");
}

TEST_F(ServerFlagsTest, InsecureAndTlsExcludeEachOther) {
  std::vector<std::string> args = Tls();
  args.push_back("--insecure");
  const Status s = ToOptions(args);
  EXPECT_TRUE(s.IsInvalidArgument());
  EXPECT_THAT(s.message(), HasSubstr("--insecure"));
  EXPECT_THAT(s.message(), HasSubstr("not both"));
  EXPECT_TRUE(
      ToOptions({"--tls-ca", Tls()[1], "--insecure"}).IsInvalidArgument());
}

TEST_F(ServerFlagsTest, TheHandshakeLimitsReachTheServerOptions) {
  ServerFlags flags("127.0.0.1:0", ServerOptions());
  ServerOptions out;
  ASSERT_TRUE(ToOptions({"--max-handshakes", "8", "--handshake-threads", "2"},
                        &flags, &out)
                  .ok());
  EXPECT_EQ(out.max_handshakes, 8u);
  EXPECT_EQ(out.handshake_threads, 2u);
  ServerFlags defaults("127.0.0.1:0", ServerOptions());
  ASSERT_TRUE(ToOptions({}, &defaults, &out).ok());
  EXPECT_EQ(out.max_handshakes, ServerOptions().max_handshakes);
  EXPECT_EQ(out.handshake_threads, ServerOptions().handshake_threads);
  EXPECT_THAT(ToOptions({"--max-handshakes", "0"}).message(),
              HasSubstr("--max-handshakes must be in [1, 65536]"));
  EXPECT_THAT(ToOptions({"--handshake-threads", "65"}).message(),
              HasSubstr("--handshake-threads must be in [1, 64]"));
}

TEST_F(ServerFlagsTest, HalfGivenOrUnreadableTlsFilesAreNamed) {
  std::vector<std::string> args = Tls();
  args.resize(4);  // no --tls-key
  EXPECT_THAT(ToOptions(args).message(), HasSubstr("--tls-key"));
  args = Tls();
  args[1] = dir_.path() + "/none.pem";
  EXPECT_THAT(ToOptions(args).message(),
              HasSubstr("--tls-ca " + dir_.path() + "/none.pem: cannot read"));
}

}  // namespace
}  // namespace bloomroute
