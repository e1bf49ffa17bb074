// `bloomroute cert` as a process: every action writes the files it names and
// prints their paths, never key material or a token; what it makes passes
// `openssl verify` against the CA; bad usage exits 2, a refused overwrite 1;
// `cert list` shows roles, hosts and expiry.
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <sys/stat.h>

#include <cstdlib>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "tests/integration/command_output.h"
#include "tests/regionstore/region_store_test_util.h"

namespace bloomroute::testing {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;

std::string ReadAll(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

int FileMode(const std::string& path) {
  struct stat st {};
  if (stat(path.c_str(), &st) != 0) return -1;
  return st.st_mode & 0777;
}

std::string OpensslBinary() {
  const char* path = std::getenv("PATH");
  std::stringstream dirs(path == nullptr ? "" : path);
  std::string dir;
  while (std::getline(dirs, dir, ':')) {
    if (access((dir + "/openssl").c_str(), X_OK) == 0) return dir + "/openssl";
  }
  return "";
}

class CertCommandTest : public ::testing::Test {
 protected:
  CommandOutput Cert(std::vector<std::string> args) {
    args.insert(args.begin(), {"cert"});
    CommandOutput r = RunCommand(args);
    // Whatever happened, no key and no token reaches the terminal.
    EXPECT_THAT(r.out + r.err, Not(HasSubstr("PRIVATE KEY")));
    EXPECT_THAT(r.out + r.err, Not(HasSubstr("BEGIN")));
    for (const std::string& token : tokens_) {
      EXPECT_THAT(r.out + r.err, Not(HasSubstr(token)));
    }
    return r;
  }
  std::string Path(const std::string& file) const {
    return certs_ + "/" + file;
  }
  CommandOutput OpensslVerify(const std::string& cert) const {
    const std::string openssl = OpensslBinary();
    EXPECT_FALSE(openssl.empty()) << "the openssl command is not on the PATH";
    return RunProgram(openssl, {"verify", "-CAfile", Path("ca.crt"), cert});
  }

  TempDir dir_;
  const std::string certs_ = dir_.path() + "/certs";
  std::vector<std::string> tokens_;  // made so far: must never be printed
};

TEST_F(CertCommandTest, MakesAClusterAndPrintsOnlyPaths) {
  CommandOutput ca = Cert({"create-ca", "--certs-dir", certs_});
  ASSERT_EQ(ca.code, 0) << ca.err;
  EXPECT_THAT(ca.out, HasSubstr(Path("ca.crt")));
  EXPECT_THAT(ca.out, HasSubstr(Path("ca.key")));
  CommandOutput node = Cert({"create-node", "--certs-dir", certs_, "--host",
                             "127.0.0.1", "--host", "rs1.example"});
  ASSERT_EQ(node.code, 0) << node.err;
  EXPECT_THAT(node.out, HasSubstr(Path("node.crt")));
  EXPECT_THAT(node.out, HasSubstr(Path("node.key")));
  CommandOutput client = Cert({"create-client", "--certs-dir", certs_, "--user",
                               "alice", "--role", "read"});
  ASSERT_EQ(client.code, 0) << client.err;
  EXPECT_THAT(client.out, HasSubstr(Path("client.alice.crt")));
  for (const char* file : {"node.crt", "client.alice.crt"}) {
    CommandOutput verified = OpensslVerify(Path(file));
    EXPECT_EQ(verified.code, 0) << file << ": " << verified.out << verified.err;
  }
  for (const char* key : {"ca.key", "node.key", "client.alice.key"}) {
    EXPECT_EQ(FileMode(Path(key)), 0600) << key;
    EXPECT_THAT(ReadAll(Path(key)), HasSubstr("PRIVATE KEY")) << key;
  }

  CommandOutput token = Cert({"create-token", "--certs-dir", certs_, "--user",
                              "bob", "--role", "write"});
  ASSERT_EQ(token.code, 0) << token.err;
  tokens_.push_back(ReadAll(Path("token.bob")).substr(0, 64));
  ASSERT_EQ(tokens_.back().size(), 64u);
  EXPECT_THAT(token.out, HasSubstr(Path("token.bob")));
  EXPECT_THAT(token.out, HasSubstr(Path("tokens")));
  EXPECT_THAT(token.out, Not(HasSubstr(tokens_.back())));
  EXPECT_THAT(ReadAll(Path("tokens")), HasSubstr(" write bob\n"));

  CommandOutput listed = Cert({"list", "--certs-dir", certs_});
  ASSERT_EQ(listed.code, 0) << listed.err;
  EXPECT_THAT(listed.out, HasSubstr("ca.crt: O=bloomroute, CN=bloomroute CA"));
  EXPECT_THAT(listed.out,
              HasSubstr("node.crt: O=bloomroute, OU=node, CN=node; role node; "
                        "hosts IP:127.0.0.1, DNS:rs1.example; not after "));
  EXPECT_THAT(listed.out, HasSubstr("client.alice.crt: O=bloomroute, OU=read, "
                                    "CN=alice; role read; not after "));
  EXPECT_THAT(listed.out, Not(HasSubstr("EXPIRED")));
}

TEST_F(CertCommandTest, CaKeyElsewhereAndLifetime) {
  const std::string key = dir_.path() + "/offline/ca.key";
  ASSERT_EQ(mkdir((dir_.path() + "/offline").c_str(), 0700), 0);
  ASSERT_EQ(Cert({"create-ca", "--certs-dir", certs_, "--ca-key", key,
                  "--lifetime", "30"})
                .code,
            0);
  EXPECT_EQ(FileMode(Path("ca.key")), -1);
  EXPECT_EQ(FileMode(key), 0600);
  CommandOutput node = Cert({"create-node", "--certs-dir", certs_, "--ca-key",
                             key, "--host", "localhost", "--lifetime", "2"});
  ASSERT_EQ(node.code, 0) << node.err;
  EXPECT_EQ(OpensslVerify(Path("node.crt")).code, 0);
  // Without --ca-key the key is looked for beside ca.crt.
  CommandOutput missing = Cert({"create-client", "--certs-dir", certs_,
                                "--user", "u", "--role", "admin"});
  EXPECT_EQ(missing.code, 1);
  EXPECT_THAT(missing.err, HasSubstr(Path("ca.key")));
  // --lifetime 2 days: the certificate ends within 3 days.
  const std::string openssl = OpensslBinary();
  CommandOutput ends =
      RunProgram(openssl, {"x509", "-in", Path("node.crt"), "-noout",
                           "-checkend", std::to_string(3 * 24 * 3600)});
  EXPECT_EQ(ends.code, 1) << ends.out;
  ends = RunProgram(openssl, {"x509", "-in", Path("node.crt"), "-noout",
                              "-checkend", std::to_string(24 * 3600)});
  EXPECT_EQ(ends.code, 0) << ends.out;
}

TEST_F(CertCommandTest, RefusesToOverwriteUnlessAsked) {
  ASSERT_EQ(Cert({"create-ca", "--certs-dir", certs_}).code, 0);
  const std::string ca = ReadAll(Path("ca.crt"));
  CommandOutput again = Cert({"create-ca", "--certs-dir", certs_});
  EXPECT_EQ(again.code, 1);
  EXPECT_THAT(again.err, HasSubstr(Path("ca.crt") + " exists"));
  EXPECT_THAT(again.err, HasSubstr("--overwrite"));
  EXPECT_EQ(ReadAll(Path("ca.crt")), ca);
  ASSERT_EQ(Cert({"create-ca", "--certs-dir", certs_, "--overwrite"}).code, 0);
  EXPECT_NE(ReadAll(Path("ca.crt")), ca);
  EXPECT_EQ(FileMode(Path("ca.key")), 0600);
}

TEST_F(CertCommandTest, BadUsageExits2) {
  ASSERT_EQ(Cert({"create-ca", "--certs-dir", certs_}).code, 0);
  const std::vector<std::vector<std::string>> bad = {
      {"create-ca"},                           // no --certs-dir
      {"make-ca", "--certs-dir", certs_},      // unknown action
      {"--certs-dir", certs_},                 // no action
      {"create-node", "--certs-dir", certs_},  // no --host
      {"create-node", "--certs-dir", certs_, "--host", "a b"},
      {"create-node", "--certs-dir", certs_, "--host", "x,IP:1.2.3.4"},
      {"create-client", "--certs-dir", certs_, "--user", "../x", "--role",
       "read"},
      {"create-client", "--certs-dir", certs_, "--user", "u", "--role", "node"},
      {"create-client", "--certs-dir", certs_, "--user", "u", "--role", "root"},
      {"create-client", "--certs-dir", certs_, "--role", "read"},
      {"create-token", "--certs-dir", certs_, "--user", "u"},
      {"create-ca", "--certs-dir", certs_, "--lifetime", "0"},
      {"create-ca", "--certs-dir", certs_, "--host", "x"},  // not its option
      {"list", "--certs-dir", certs_, "--user", "u"},
  };
  for (const auto& args : bad) {
    CommandOutput r = Cert(args);
    EXPECT_EQ(r.code, 2) << ::testing::PrintToString(args) << ": " << r.err;
    EXPECT_THAT(r.err, HasSubstr("bloomroute cert"));
  }
  EXPECT_EQ(FileMode(Path("node.crt")), -1);
  EXPECT_EQ(FileMode(Path("client.u.crt")), -1);
}

// `cert revoke` writes the CA's revocation list; `openssl verify
// -crl_check` then refuses the revoked certificate.
TEST_F(CertCommandTest, RevokeWritesTheCasRevocationList) {
  ASSERT_EQ(Cert({"create-ca", "--certs-dir", certs_}).code, 0);
  ASSERT_EQ(Cert({"create-client", "--certs-dir", certs_, "--user", "alice",
                  "--role", "read"})
                .code,
            0);
  ASSERT_EQ(
      Cert({"create-node", "--certs-dir", certs_, "--host", "127.0.0.1"}).code,
      0);
  CommandOutput revoked =
      Cert({"revoke", "--certs-dir", certs_, "--user", "alice"});
  ASSERT_EQ(revoked.code, 0) << revoked.err;
  EXPECT_THAT(revoked.out, HasSubstr("wrote " + Path("crl.pem")));
  EXPECT_THAT(revoked.out, HasSubstr("SIGHUP"));
  auto verify = [&](const std::string& file) {
    return RunProgram(OpensslBinary(),
                      {"verify", "-CAfile", Path("ca.crt"), "-crl_check",
                       "-CRLfile", Path("crl.pem"), Path(file)})
        .code;
  };
  EXPECT_NE(verify("client.alice.crt"), 0);
  EXPECT_EQ(verify("node.crt"), 0);
  ASSERT_EQ(Cert({"revoke", "--certs-dir", certs_, "--cert", "node.crt",
                  "--lifetime", "30"})
                .code,
            0);
  EXPECT_NE(verify("node.crt"), 0);
  for (const std::vector<std::string>& bad :
       std::vector<std::vector<std::string>>{
           {"revoke", "--certs-dir", certs_},
           {"revoke", "--certs-dir", certs_, "--user", "a", "--cert", "x"},
           {"revoke", "--certs-dir", certs_, "--user", "a", "--role", "read"},
           {"revoke", "--certs-dir", certs_, "--user", "a", "--overwrite"},
           {"list", "--certs-dir", certs_, "--cert", "x"}}) {
    EXPECT_EQ(Cert(bad).code, 2) << ::testing::PrintToString(bad);
  }
  // The CA's own certificate: refused, exit 1.
  EXPECT_EQ(Cert({"revoke", "--certs-dir", certs_, "--cert", "ca.crt"}).code,
            1);
}

TEST_F(CertCommandTest, HelpNamesTheActionsAndDefaults) {
  CommandOutput help = Cert({"--help"});
  EXPECT_EQ(help.code, 0);
  for (const char* part :
       {"create-ca", "create-node", "create-client", "create-token", "revoke",
        "--cert", "list", "--certs-dir", "--ca-key", "--lifetime",
        "--overwrite", "kMaxPemFileBytes"}) {
    EXPECT_THAT(help.out, HasSubstr(part));
  }
}

}  // namespace
}  // namespace bloomroute::testing
