// examples/python/geo_client.py against `bloomroute local` (two region
// servers): run with /usr/bin/python3 and the Python code generated from the
// IDL at build time, it must create its table, put its rows and find them by
// index, twice (the second run reuses the table). Its TLS and token options
// are checked without a TLS server: refusals of what cannot be secure, and
// that --tls-ca really makes it speak TLS (a plaintext router fails the
// handshake).
#include <gtest/gtest.h>
#include <signal.h>
#include <stdlib.h>
#include <unistd.h>

#include <algorithm>
#include <fstream>
#include <string>
#include <vector>

#include "tests/integration/command_output.h"
#include "tests/integration/server_process.h"
#include "tests/regionstore/region_store_test_util.h"

namespace bloomroute::testing {
namespace {

constexpr char kPython[] = "/usr/bin/python3";
constexpr char kExample[] = BLOOMROUTE_EXAMPLES_DIR "/python/geo_client.py";

// A self-signed CA certificate (P-256, valid until 2126; its key was thrown
// away): a CA file Python's ssl module loads, for a client that then finds
// no TLS server.
constexpr char kTestCaPem[] = R"(-----BEGIN CERTIFICATE-----
MIIBwzCCAWmgAwIBAgIUP1EFurjPFpGOMh1n7NlOwHBMtXUwCgYIKoZIzj0EAwIw
NjETMBEGA1UECgwKYmxvb21yb3V0ZTENMAsGA1UECwwEdGVzdDEQMA4GA1UEAwwH
dGVzdCBDQTAgFw0yNjExMjQxODU3MjJaGA8yMTI2MTAzMTE4NTcyMlowNjETMBEG
A1UECgwKYmxvb21yb3V0ZTENMAsGA1UECwwEdGVzdDEQMA4GA1UEAwwHdGVzdCBD
QTBZMBMGByqGSM49AgEGCCqGSM49AwEHA0IABBrWR61eG5B/cupUkzULJo2wtsU5
e66uuM0lk9bEh2ua5xy+bXAEtnBVBY40oJZ4ssuszvEUt3UYqAk9mI8KYUujUzBR
MB0GA1UdDgQWBBTwbQkoQCLbWu+nbYv7tY2DyH4iTjAfBgNVHSMEGDAWgBTwbQko
QCLbWu+nbYv7tY2DyH4iTjAPBgNVHRMBAf8EBTADAQH/MAoGCCqGSM49BAMCA0gA
MEUCIQC+AMjhpYnmDbNf+eh8zvGl70l7cOgRzD2bRxgtYghTagIgTBvPtUTj+lti
O4TXjn0Ul4JCNayxirESr2Qc9ezwJzs=
-----END CERTIFICATE-----
)";

testing::CommandOutput RunPython(const std::vector<std::string>& args) {
  return testing::RunProgram(kPython, args);
}

bool Has(const std::string& text, const std::string& part) {
  return text.find(part) != std::string::npos;
}

class PythonClientTest : public ::testing::Test {
 protected:
  void SetUp() override {
    if (access(kPython, X_OK) != 0) {
      GTEST_SKIP() << kPython << " is missing (scripts/install-deps.sh "
                   << "installs it)";
    }
    // The child inherits the environment: the generated package, not an
    // installed one.
    setenv("PYTHONPATH", BLOOMROUTE_PYTHON_DIR, 1);
    if (RunPython({"-c", "import thrift"}).code != 0) {
      GTEST_SKIP() << "the Python thrift module is missing (python3-thrift; "
                   << "scripts/install-deps.sh installs it)";
    }
    local_ = StartLocal(dir_.path() + "/local", 2);
    ASSERT_GT(local_.port, 0) << local_.line;
  }
  void TearDown() override {
    if (local_.process == nullptr) return;
    local_.process->Signal(SIGTERM);
    EXPECT_EQ(local_.process->ExitCode(), 0);
  }
  testing::CommandOutput RunExample(std::vector<std::string> extra = {}) {
    std::vector<std::string> args = {kExample, "--router", local_.address()};
    args.insert(args.end(), extra.begin(), extra.end());
    // The secure run's client certificate, unless the test gives TLS files.
    if (std::find(extra.begin(), extra.end(), "--tls-ca") == extra.end()) {
      for (const std::string& flag : ClientSecurityFlags()) {
        args.push_back(flag);
      }
    }
    return RunPython(args);
  }

  TempDir dir_;
  StartedServer local_;
};

TEST_F(PythonClientTest, CreatesPutsAndFindsRowsByIndex) {
  testing::CommandOutput o = RunExample();
  ASSERT_EQ(o.code, 0) << o.out << o.err;
  EXPECT_TRUE(Has(o.out, "created table geo_example")) << o.out;
  EXPECT_TRUE(Has(o.out, "put 6 rows")) << o.out;
  EXPECT_TRUE(Has(o.out, "getByIndex d:cc = NO: 3 rows\n  bergen: ")) << o.out;
  EXPECT_TRUE(Has(o.out, "'d:name': 'Tromsø'")) << o.out;
  EXPECT_TRUE(Has(o.out,
                  "getByIndex d:cc = SE AND d:feature = PPLC: 1 rows\n"
                  "  stockholm: "))
      << o.out;
  EXPECT_TRUE(Has(o.out, "of 2 servers asked")) << o.out;
  EXPECT_TRUE(Has(o.out, "created table geo_example with 3 regions")) << o.out;
  EXPECT_TRUE(
      Has(o.out, "scan: 6 rows: bergen gothenburg lyon oslo stockholm tromso"))
      << o.out;

  o = RunExample();
  ASSERT_EQ(o.code, 0) << o.out << o.err;
  EXPECT_TRUE(Has(o.out, "table geo_example exists; reusing it")) << o.out;
  EXPECT_TRUE(Has(o.out, "d:cc = NO: 3 rows")) << o.out;
}

// HBase Thrift2 clients of every transport and protocol the router serves
// on its one port (framed, buffered and HTTP; binary strict and not, and
// compact), each as its client library sends it
// (hbase_transports_client.py): server type, tableExists, put and get.
TEST_F(PythonClientTest, EveryHBaseTransportAndProtocolIsServed) {
  if (testing::SecureMode()) {
    GTEST_SKIP() << "the script speaks plaintext; TLS is the same for every "
                    "transport (thrift_tls_test)";
  }
  const testing::CommandOutput o = RunPython(
      {BLOOMROUTE_SOURCE_DIR "/tests/integration/hbase_transports_client.py",
       "--router", local_.address()});
  ASSERT_EQ(o.code, 0) << o.out << o.err;
  for (const char* kind :
       {"framed+binary", "framed+compact", "framed+nonstrict",
        "buffered+binary", "buffered+compact", "buffered+nonstrict",
        "http+binary", "http+compact", "http+nonstrict"}) {
    EXPECT_TRUE(Has(o.out, std::string(kind) + ": ok\n")) << o.out;
  }
}

// HBase's Thrift1 API (`bloomroute local --thrift1-port 0`):
// - a happybase-style session, buffered+binary (happybase's default) and
//   framed+compact: create a table, batch rows, scan with a filter pinning
//   an indexed column, get rows, increment a counter, delete a row
//   (hbase1_happybase_client.py);
// - every method (and getRowOrBefore, which HBase 2.x dropped: an unknown
//   method) over every transport and protocol of the Thrift1 port, each
//   answer checked (hbase1_every_method_client.py).
TEST_F(PythonClientTest, HBaseThrift1ClientsOverEveryTransport) {
  if (testing::SecureMode()) {
    GTEST_SKIP() << "the scripts speak plaintext; TLS is the same on every "
                    "port (thrift_tls_test)";
  }
  StartedServer local =
      StartLocal(dir_.path() + "/thrift1", 2, 0, {"--thrift1-port", "0"});
  ASSERT_GT(local.port, 0) << local.line;
  std::string line;
  const int thrift1 = local.process->ReadPort(&line);
  ASSERT_GT(thrift1, 0) << line;
  EXPECT_TRUE(Has(line, "HBase Thrift1 API on 127.0.0.1:")) << line;
  const std::string address = "127.0.0.1:" + std::to_string(thrift1);
  testing::CommandOutput o = RunPython(
      {BLOOMROUTE_SOURCE_DIR "/tests/integration/hbase1_happybase_client.py",
       "--thrift1", address, "--router", local.address()});
  ASSERT_EQ(o.code, 0) << o.out << o.err;
  EXPECT_TRUE(Has(o.out, "buffered+binary: ok\n")) << o.out;
  EXPECT_TRUE(Has(o.out, "framed+compact: ok\n")) << o.out;
  o = RunPython({BLOOMROUTE_SOURCE_DIR
                 "/tests/integration/hbase1_every_method_client.py",
                 "--thrift1", address});
  ASSERT_EQ(o.code, 0) << o.out << o.err;
  for (const char* transport : {"buffered", "framed", "http"}) {
    for (const char* protocol : {"binary", "nonstrict", "compact"}) {
      const std::string kind = std::string(transport) + "+" + protocol;
      EXPECT_TRUE(Has(o.out, kind + ": ok\n")) << o.out;
    }
  }
  local.process->Signal(SIGTERM);
  EXPECT_EQ(local.process->ExitCode(), 0);
}

// Every method of THBaseService over every transport and protocol the
// router's port serves (buffered, framed and HTTP; binary strict and not,
// and compact), each answer checked (hbase2_every_method_client.py).
TEST_F(PythonClientTest, EveryThrift2MethodOverEveryTransport) {
  if (testing::SecureMode()) {
    GTEST_SKIP() << "the script speaks plaintext; TLS is the same for every "
                    "transport (thrift_tls_test)";
  }
  const testing::CommandOutput o = RunPython(
      {BLOOMROUTE_SOURCE_DIR "/tests/integration/hbase2_every_method_client.py",
       "--router", local_.address()});
  ASSERT_EQ(o.code, 0) << o.out << o.err;
  for (const char* transport : {"framed", "buffered", "http"}) {
    for (const char* protocol : {"binary", "compact", "nonstrict"}) {
      const std::string kind = std::string(transport) + "+" + protocol;
      EXPECT_TRUE(Has(o.out, kind + ": ok\n")) << o.out;
    }
  }
}

// A list of routers: those that do not answer are passed over (the client
// starts at a random one, so two runs of three start at a dead router).
TEST_F(PythonClientTest, AListOfRoutersPassesOverThoseThatAreDown) {
  testing::CommandOutput o = RunExample(
      {"--router", "127.0.0.1:1," + local_.address() + ",127.0.0.1:2"});
  ASSERT_EQ(o.code, 0) << o.out << o.err;
  EXPECT_TRUE(Has(o.out, "put 6 rows")) << o.out;
  EXPECT_TRUE(Has(o.out, "d:cc = NO: 3 rows")) << o.out;
  EXPECT_TRUE(Has(o.out, "scan: 6 rows")) << o.out;
  o = RunPython({kExample, "--router", "127.0.0.1:1,127.0.0.1:2"});
  EXPECT_EQ(o.code, 1) << o.out << o.err;
  EXPECT_TRUE(Has(o.err, "cannot reach the router")) << o.err;
  EXPECT_TRUE(Has(o.err, "127.0.0.1:1")) << o.err;
  EXPECT_TRUE(Has(o.err, "127.0.0.1:2")) << o.err;
  EXPECT_FALSE(Has(o.err, "Traceback")) << o.err;
}

TEST_F(PythonClientTest, ErrorsAreOneLineWithoutATraceback) {
  testing::CommandOutput o =
      RunPython({BLOOMROUTE_EXAMPLES_DIR "/python/geo_client.py", "--router",
                 "127.0.0.1:1"});
  EXPECT_EQ(o.code, 1) << o.out << o.err;
  EXPECT_TRUE(Has(o.err, "cannot reach the router")) << o.err;
  EXPECT_FALSE(Has(o.err, "Traceback")) << o.err;
}

// --tls-ca makes the client speak TLS: against the plaintext router of
// `bloomroute local` the handshake fails, with one line and nothing done.
TEST_F(PythonClientTest, WithACaItSpeaksTlsAndAPlaintextRouterFails) {
  const std::string ca = dir_.path() + "/ca.pem";
  std::ofstream(ca) << kTestCaPem;
  testing::CommandOutput o = RunExample({"--tls-ca", ca});
  EXPECT_EQ(o.code, 1) << o.out << o.err;
  EXPECT_TRUE(Has(o.err, "geo_client: cannot reach the router over TLS"))
      << o.err;
  EXPECT_FALSE(Has(o.err, "Traceback")) << o.err;
  EXPECT_FALSE(Has(o.out, "created table")) << o.out;
}

// Against a router with TLS and a token file (its own CA, so not in the
// suite's secure run): a client certificate or a token gets in; a forged
// token, or a CA that did not sign the router, does not, and nothing is done.
TEST_F(PythonClientTest, OverTlsACertificateOrATokenGetsInAndNothingElse) {
  if (testing::SecureMode()) {
    GTEST_SKIP() << "starts servers with TLS files of its own; the secure "
                    "run would add the test CA's";
  }
  const std::string certs_dir = dir_.path() + "/certs";
  StatusOr<LocalCerts> certs = EnsureLocalCerts(certs_dir);
  ASSERT_TRUE(certs.ok()) << certs.status().ToString();
  CertOptions options;
  options.certs_dir = certs_dir;
  ASSERT_TRUE(CreateToken(options, "py", Role::kAdmin).ok());
  const std::vector<std::string> node = testing::TlsFlags(certs->node);
  StartedServer rs = StartRegionServer(dir_.path() + "/rs", 0, node);
  ASSERT_GT(rs.port, 0) << rs.line;
  std::vector<std::string> router_flags = node;
  router_flags.push_back("--token-file");
  router_flags.push_back(certs_dir + "/" + kTokensFile);
  StartedServer router =
      StartRouter(dir_.path() + "/router", {rs.address()}, 0, router_flags);
  ASSERT_GT(router.port, 0) << router.line;
  auto run = [&](std::vector<std::string> extra) {
    extra.insert(extra.begin(), {kExample, "--router", router.address()});
    return RunPython(extra);
  };
  const std::string ca = certs->client.ca_file;

  std::ofstream(dir_.path() + "/forged") << std::string(64, 'f') << "\n";
  testing::CommandOutput o =
      run({"--tls-ca", ca, "--token-file", dir_.path() + "/forged"});
  EXPECT_EQ(o.code, 1) << o.out << o.err;
  EXPECT_TRUE(Has(o.err, "PermissionDenied")) << o.err;
  EXPECT_FALSE(Has(o.out, "created table")) << o.out;
  o = run({"--tls-ca", ca});  // TLS, but nobody
  EXPECT_EQ(o.code, 1) << o.out << o.err;
  EXPECT_TRUE(Has(o.err, "not authenticated")) << o.err;
  const std::string stranger = dir_.path() + "/stranger.pem";
  std::ofstream(stranger) << kTestCaPem;
  o = run({"--tls-ca", stranger, "--tls-cert", certs->client.cert_file,
           "--tls-key", certs->client.key_file});
  EXPECT_EQ(o.code, 1) << o.out << o.err;
  EXPECT_FALSE(Has(o.out, "created table")) << o.out;

  o = run({"--tls-ca", ca, "--token-file", certs_dir + "/" + TokenFile("py")});
  ASSERT_EQ(o.code, 0) << o.out << o.err;
  EXPECT_TRUE(Has(o.out, "created table geo_example")) << o.out;
  EXPECT_TRUE(Has(o.out, "d:cc = NO: 3 rows")) << o.out;
  o = run({"--tls-ca", ca, "--tls-cert", certs->client.cert_file, "--tls-key",
           certs->client.key_file});
  ASSERT_EQ(o.code, 0) << o.out << o.err;
  EXPECT_TRUE(Has(o.out, "table geo_example exists; reusing it")) << o.out;
  router.process->Signal(SIGTERM);
  EXPECT_EQ(router.process->ExitCode(), 0);
  rs.process->Signal(SIGTERM);
  EXPECT_EQ(rs.process->ExitCode(), 0);
}

// The option checks need no server.
class PythonClientOptionsTest : public ::testing::Test {
 protected:
  void SetUp() override {
    if (access(kPython, X_OK) != 0) GTEST_SKIP() << kPython << " is missing";
    setenv("PYTHONPATH", BLOOMROUTE_PYTHON_DIR, 1);
    if (RunPython({"-c", "import thrift"}).code != 0) {
      GTEST_SKIP() << "the Python thrift module is missing";
    }
    std::ofstream(File("ca.pem")) << kTestCaPem;
    std::ofstream(File("token")) << std::string(64, 'a') << "\n";
    std::ofstream(File("empty-token")) << "\n";
    std::ofstream(File("big-token")) << std::string(5000, 'a');
  }
  std::string File(const std::string& name) const {
    return dir_.path() + "/" + name;
  }
  // Runs the example with `args` against a port where nothing listens;
  // expects a usage error (exit 2) whose message holds `want`.
  void ExpectRefused(std::vector<std::string> args, const std::string& want) {
    args.insert(args.begin(), {kExample, "--router", "127.0.0.1:9"});
    SCOPED_TRACE(::testing::PrintToString(args));
    testing::CommandOutput o = RunPython(args);
    EXPECT_EQ(o.code, 2) << o.out << o.err;
    EXPECT_TRUE(Has(o.err, want)) << o.err;
    EXPECT_FALSE(Has(o.err, "Traceback")) << o.err;
  }

  TempDir dir_;
};

TEST_F(PythonClientOptionsTest, RefusesWhatCannotBeSecure) {
  ExpectRefused({"--token-file", File("token")}, "--token-file needs --tls-ca");
  ExpectRefused({"--tls-cert", File("ca.pem"), "--tls-key", File("ca.pem")},
                "--tls-cert and --tls-key need --tls-ca");
  ExpectRefused({"--tls-ca", File("ca.pem"), "--tls-cert", File("ca.pem")},
                "--tls-cert needs --tls-key");
  ExpectRefused({"--tls-ca", File("none.pem")},
                "--tls-ca " + File("none.pem") + ": cannot read it");
  ExpectRefused({"--tls-ca", File("ca.pem"), "--token-file", File("none")},
                "--token-file " + File("none") + ": cannot read it");
  ExpectRefused(
      {"--tls-ca", File("ca.pem"), "--token-file", File("empty-token")},
      "--token-file " + File("empty-token") + ": its first line is empty");
  ExpectRefused(
      {"--tls-ca", File("ca.pem"), "--token-file", File("big-token")},
      "--token-file " + File("big-token") + ": larger than 4096 bytes");
}

TEST_F(PythonClientOptionsTest, RefusesBadRouterLists) {
  ExpectRefused({"--router", "127.0.0.1:9,,127.0.0.1:8"}, "an entry is empty");
  ExpectRefused({"--router", "127.0.0.1:9,"}, "an entry is empty");
  ExpectRefused({"--router", "h:1,H:1"}, "'H:1' is listed twice");
  ExpectRefused({"--router", "h:1,h:0"}, "'h:0' is not HOST:PORT");
  ExpectRefused({"--router", "h:1,h"}, "'h' is not HOST:PORT");
  std::string many = "h:1";
  for (int i = 2; i <= 65; ++i) many += ",h:" + std::to_string(i);
  ExpectRefused({"--router", many}, "more than 64 routers");
}

TEST_F(PythonClientOptionsTest, HelpListsTheSecurityOptions) {
  testing::CommandOutput o = RunPython({kExample, "--help"});
  EXPECT_EQ(o.code, 0) << o.err;
  for (const char* option :
       {"--tls-ca", "--tls-cert", "--tls-key", "--token-file"}) {
    EXPECT_TRUE(Has(o.out, option)) << o.out;
  }
}

}  // namespace
}  // namespace bloomroute::testing
