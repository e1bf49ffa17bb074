#include "tools/server_command_util.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "tests/regionstore/region_store_test_util.h"
#include "tests/tools/flags_test_util.h"

namespace bloomroute {
namespace {

using ::bloomroute::testing::ParseTableFlags;
using ::bloomroute::testing::TempDir;
using ::bloomroute::testing::WriteFile;
using ::testing::HasSubstr;
using ::testing::Not;

class ServerFlagsTest : public ::testing::Test {
 protected:
  // ServerFlags::ToOptions after parsing `args`; `flags` keeps them for
  // InsecureWarning.
  Status ToOptions(const std::vector<std::string>& args, ServerFlags* flags,
                   ServerOptions* out) {
    BLOOMROUTE_RETURN_IF_ERROR(ParseTableFlags(*flags, args));
    return flags->ToOptions(out);
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
  EXPECT_EQ(plain.InsecureWarning(plain_out.host, 1), "");
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
  EXPECT_EQ(flags.InsecureWarning("0.0.0.0", 9090),
            "serving without TLS on 0.0.0.0:9090 (--insecure): anyone who can "
            "reach this port can call anything");
  EXPECT_THAT(flags.InsecureWarning("::", 9091),
              HasSubstr("on [::]:9091 (--insecure)"));
  EXPECT_EQ(flags.InsecureWarning("127.0.0.1", 9090), "");
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

// Two bounds are another option's value: the request pool holds a frame,
// and a decoded request is at least a frame (or 0, ten frames).
TEST_F(ServerFlagsTest, BuffersAreBoundedByTheFrame) {
  EXPECT_EQ(ToOptions({"--max-frame-bytes", "1048576",
                       "--max-buffered-request-bytes", "1048575"})
                .message(),
            "--max-buffered-request-bytes must be in [1048576, "
            "1099511627776], not 1048575");
  EXPECT_EQ(
      ToOptions({"--max-frame-bytes", "1048576", "--max-decoded-bytes", "5"})
          .message(),
      "--max-decoded-bytes must be 0 or in [1048576, 68719476736], not 5");
  EXPECT_TRUE(ToOptions({"--max-decoded-bytes", "0"}).ok());
  EXPECT_EQ(ToOptions({"--idle-timeout", "0"}).message(),
            "--idle-timeout must be in [1, 86400], not 0");
  ServerFlags flags("127.0.0.1:0", ServerOptions());
  ServerOptions out;
  ASSERT_TRUE(ToOptions({"--idle-timeout", "7"}, &flags, &out).ok());
  EXPECT_EQ(out.idle_timeout_ms, 7000);
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

class LogFlagsTest : public ::testing::Test {
 protected:
  void TearDown() override {
    SetMinLogLevel(LogLevel::kInfo);
    EXPECT_TRUE(SetLogFile("").ok());
  }
  // LogFlags::Validate after parsing `args` into `flags`.
  static Status Validate(const std::vector<std::string>& args,
                         LogFlags* flags) {
    BLOOMROUTE_RETURN_IF_ERROR(ParseTableFlags(*flags, args));
    return flags->Validate();
  }
  static std::string Text(const std::string& path) {
    std::ifstream in(path);
    std::ostringstream text;
    text << in.rdbuf();
    return text.str();
  }

  TempDir dir_;
};

TEST_F(LogFlagsTest, ByDefaultInfoAndAboveGoToStderr) {
  LogFlags flags;
  ASSERT_TRUE(Validate({}, &flags).ok());
  SetMinLogLevel(LogLevel::kError);
  ASSERT_TRUE(flags.Apply().ok());
  EXPECT_TRUE(LogEnabled(LogLevel::kInfo));
  EXPECT_FALSE(LogEnabled(LogLevel::kDebug));
  EXPECT_FALSE(LoggingToFile());
  EXPECT_EQ(flags.file(), "");
}

TEST_F(LogFlagsTest, LevelAndFileTakeEffectOnApply) {
  LogFlags flags;
  const std::string file = dir_.path() + "/router.log";
  ASSERT_TRUE(
      Validate({"--log-level", "WARNING", "--log-file", file}, &flags).ok());
  EXPECT_FALSE(LoggingToFile());  // not before Apply
  ASSERT_TRUE(flags.Apply().ok());
  EXPECT_FALSE(LogEnabled(LogLevel::kInfo));
  EXPECT_TRUE(LogEnabled(LogLevel::kWarn));
  Log(LogLevel::kInfo, "router", "dropped");
  Log(LogLevel::kWarn, "router", "kept");
  EXPECT_THAT(Text(file), HasSubstr("Z WARN router: kept\n"));
  EXPECT_THAT(Text(file), Not(HasSubstr("dropped")));
}

TEST_F(LogFlagsTest, BadLevelOrFileIsNamed) {
  LogFlags level;
  const Status bad_level = Validate({"--log-level", "loud"}, &level);
  EXPECT_TRUE(bad_level.IsInvalidArgument());
  EXPECT_EQ(bad_level.message(),
            "--log-level: unknown log level 'loud': give debug, info, warn or "
            "error");

  LogFlags file;
  const std::string missing = dir_.path() + "/no-dir/router.log";
  ASSERT_TRUE(Validate({"--log-file", missing}, &file).ok());
  const Status bad_file = file.Apply();
  EXPECT_TRUE(bad_file.IsIOError());
  EXPECT_THAT(bad_file.message(),
              HasSubstr("--log-file: cannot open the log file " + missing));
  EXPECT_FALSE(LoggingToFile());
}

// The stdout line always; the log line only in a log file (on stderr it
// would repeat the line in the same terminal or journal).
TEST_F(LogFlagsTest, AnnounceAlsoLogsToALogFile) {
  ::testing::internal::CaptureStdout();
  ::testing::internal::CaptureStderr();
  Announce("router", "serving 0 tables");
  EXPECT_EQ(::testing::internal::GetCapturedStdout(),
            "bloomroute router: serving 0 tables\n");
  EXPECT_EQ(::testing::internal::GetCapturedStderr(), "");

  const std::string file = dir_.path() + "/router.log";
  ASSERT_TRUE(SetLogFile(file).ok());
  ::testing::internal::CaptureStdout();
  Announce("router", "stopped");
  EXPECT_EQ(::testing::internal::GetCapturedStdout(),
            "bloomroute router: stopped\n");
  EXPECT_THAT(Text(file), ::testing::MatchesRegex(
                              "[0-9-]+T[0-9:.]+Z INFO router: stopped\n"));
}

}  // namespace
}  // namespace bloomroute
