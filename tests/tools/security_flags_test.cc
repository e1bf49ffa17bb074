#include "tools/security_flags.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <string>

#include "tests/regionstore/region_store_test_util.h"
#include "tests/tools/flags_test_util.h"

namespace bloomroute {
namespace {

using ::bloomroute::testing::ParseFlags;
using ::bloomroute::testing::TempDir;
using ::bloomroute::testing::WriteFile;
using ::testing::HasSubstr;

class SecurityFlagsTest : public ::testing::Test {
 protected:
  std::string File(const std::string& name, const std::string& text = "x\n") {
    return WriteFile(dir_.path() + "/" + name, text);
  }
  TempDir dir_;
};

TEST_F(SecurityFlagsTest, ReadableFilesPassOthersAreNamed) {
  EXPECT_TRUE(CheckReadableFile("--tls-ca", File("ca.pem")).ok());
  const std::string missing = dir_.path() + "/none.pem";
  Status s = CheckReadableFile("--tls-ca", missing);
  EXPECT_TRUE(s.IsInvalidArgument());
  EXPECT_EQ(s.message(), "--tls-ca " + missing +
                             ": cannot read it: No such file or directory");
  s = CheckReadableFile("--tls-key", dir_.path());
  EXPECT_TRUE(s.IsInvalidArgument());
  EXPECT_EQ(s.message(),
            "--tls-key " + dir_.path() + ": cannot read it: a directory");
}

TEST_F(SecurityFlagsTest, TokenIsTheFirstLineWithoutTrailingWhitespace) {
  EXPECT_EQ(*ReadClientToken(File("a", "abc\n")), "abc");
  EXPECT_EQ(*ReadClientToken(File("b", "abc")), "abc");
  EXPECT_EQ(*ReadClientToken(File("c", "abc \t\r\nsecond line\n")), "abc");
  EXPECT_EQ(*ReadClientToken(File("d", " a b\n")), " a b");
}

TEST_F(SecurityFlagsTest, TokenFileIsBoundedAndMustHoldAToken) {
  // Exactly at the bound is read; one byte more is refused, naming it.
  const std::string at_bound = std::string(64, 'f') + "\n" +
                               std::string(kMaxClientTokenFileBytes - 65, '#');
  ASSERT_EQ(at_bound.size(), kMaxClientTokenFileBytes);
  EXPECT_EQ(*ReadClientToken(File("at", at_bound)), std::string(64, 'f'));
  const std::string over = File("over", at_bound + "#");
  Status s = ReadClientToken(over).status();
  EXPECT_TRUE(s.IsInvalidArgument());
  EXPECT_THAT(s.message(),
              HasSubstr("--token-file " + over + ": larger than 4096 bytes"));
  for (const char* empty : {"", "\n", " \r\n", "\ntoken\n"}) {
    const std::string path = File("empty", empty);
    s = ReadClientToken(path).status();
    EXPECT_TRUE(s.IsInvalidArgument()) << empty;
    EXPECT_THAT(s.message(), HasSubstr("--token-file " + path +
                                       ": its first line is empty"));
  }
  s = ReadClientToken(dir_.path() + "/none").status();
  EXPECT_THAT(s.message(), HasSubstr("--token-file " + dir_.path() +
                                     "/none: cannot read it"));
}

TEST_F(SecurityFlagsTest, ServerTlsFlagsAreAllThreeOrNone) {
  TlsFlags none(TlsFlags::Side::kServer);
  ParseFlags(none, {});
  EXPECT_FALSE(none.any());
  EXPECT_FALSE(none.ToOptions()->enabled());

  const std::string ca = File("ca.pem"), cert = File("n.pem"),
                    key = File("n.key");
  TlsFlags all(TlsFlags::Side::kServer);
  ParseFlags(all, {"--tls-ca", ca, "--tls-cert", cert, "--tls-key", key});
  StatusOr<TlsOptions> options = all.ToOptions();
  ASSERT_TRUE(options.ok()) << options.status().ToString();
  EXPECT_EQ(options->ca_file, ca);
  EXPECT_EQ(options->cert_file, cert);
  EXPECT_EQ(options->key_file, key);

  TlsFlags half(TlsFlags::Side::kServer);
  ParseFlags(half, {"--tls-ca", ca, "--tls-key", key});
  EXPECT_TRUE(half.any());
  EXPECT_THAT(half.ToOptions().status().message(), HasSubstr("--tls-cert"));

  TlsFlags missing(TlsFlags::Side::kServer);
  ParseFlags(missing, {"--tls-ca", ca, "--tls-cert", cert, "--tls-key",
                       dir_.path() + "/none.key"});
  EXPECT_THAT(missing.ToOptions().status().message(),
              HasSubstr("--tls-key " + dir_.path() + "/none.key: cannot read"));
}

TEST_F(SecurityFlagsTest, ClientTlsFlagsNeedACaAndACertWithItsKey) {
  const std::string ca = File("ca.pem"), cert = File("c.pem"),
                    key = File("c.key");
  TlsFlags ca_only(TlsFlags::Side::kClient);
  ParseFlags(ca_only, {"--tls-ca", ca});
  StatusOr<TlsOptions> options = ca_only.ToOptions();
  ASSERT_TRUE(options.ok()) << options.status().ToString();
  EXPECT_TRUE(options->enabled());
  EXPECT_EQ(options->cert_file, "");

  TlsFlags no_ca(TlsFlags::Side::kClient);
  ParseFlags(no_ca, {"--tls-cert", cert, "--tls-key", key});
  EXPECT_THAT(no_ca.ToOptions().status().message(), HasSubstr("--tls-ca"));
  TlsFlags no_key(TlsFlags::Side::kClient);
  ParseFlags(no_key, {"--tls-ca", ca, "--tls-cert", cert});
  EXPECT_THAT(no_key.ToOptions().status().message(), HasSubstr("--tls-key"));
}

}  // namespace
}  // namespace bloomroute
