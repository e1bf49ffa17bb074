// Test helper: the end-to-end suite once more with TLS on every port.
//
// CTest runs the integration tests twice (tests/integration/CMakeLists.txt):
// as they are, and with BLOOMROUTE_TEST_SECURE=1 under the "secure." prefix.
// In the secure run the process helpers (server_process.h,
// command_output.h, router_client.h) start every router and region server
// with the node certificate of one test CA, `bloomroute local` with
// --secure over a copy of that CA's files, and give every client command and
// test client the CA's admin client certificate. Tests that are about the
// plaintext port itself ask SecureMode() and say why they skip.
//
// The certificates are made once per test process, in a temporary directory
// removed at exit.
#ifndef BLOOMROUTE_TESTS_INTEGRATION_SECURE_MODE_H_
#define BLOOMROUTE_TESTS_INTEGRATION_SECURE_MODE_H_

#include <stdlib.h>
#include <thrift/transport/TSSLSocket.h>

#include <csignal>
#include <cstdio>
#include <filesystem>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "tools/certs.h"

namespace bloomroute::testing {

inline bool SecureMode() {
  const char* value = getenv("BLOOMROUTE_TEST_SECURE");
  return value != nullptr && std::string(value) == "1";
}

// The test CA's files (EnsureLocalCerts: node for 127.0.0.1, localhost and
// ::1; client "root" with role admin). Aborts when they cannot be made.
inline const LocalCerts& TestCerts() {
  static const LocalCerts* certs = [] {
    std::string tmpl =
        (std::filesystem::temp_directory_path() / "bloomroute-certs-XXXXXX")
            .string();
    static const std::string dir = mkdtemp(tmpl.data());
    std::atexit([] { std::filesystem::remove_all(dir); });
    StatusOr<LocalCerts> made = EnsureLocalCerts(dir + "/certs");
    if (!made.ok()) {
      std::fprintf(stderr, "test certificates: %s\n",
                   made.status().ToString().c_str());
      std::abort();
    }
    return new LocalCerts(std::move(made).value());
  }();
  return *certs;
}

inline std::vector<std::string> TlsFlags(const TlsOptions& tls) {
  return {"--tls-ca",    tls.ca_file, "--tls-cert",
          tls.cert_file, "--tls-key", tls.key_file};
}

// What a server command (router, regionserver) needs in this mode.
inline std::vector<std::string> ServerSecurityFlags() {
  return SecureMode() ? TlsFlags(TestCerts().node) : std::vector<std::string>();
}

// What a client command (query, get, scan, import, verify, accuracy, ...)
// needs in this mode.
inline std::vector<std::string> ClientSecurityFlags() {
  return SecureMode() ? TlsFlags(TestCerts().client)
                      : std::vector<std::string>();
}

// `bloomroute local --data data_dir` in this mode: --secure, with the test
// CA's files copied into data_dir/certs first (local keeps valid files it
// finds there), so that the suite's clients trust it.
inline std::vector<std::string> LocalSecurityFlags(
    const std::string& data_dir) {
  if (!SecureMode()) return {};
  const std::string certs = data_dir + "/certs";
  std::filesystem::create_directories(certs);
  const std::filesystem::path from =
      std::filesystem::path(TestCerts().node.ca_file).parent_path();
  for (const auto& entry : std::filesystem::directory_iterator(from)) {
    std::filesystem::copy(entry.path(),
                          certs + "/" + entry.path().filename().string(),
                          std::filesystem::copy_options::skip_existing);
  }
  return {"--secure"};
}

// Appends the flags a bloomroute command line needs in this mode, by its
// subcommand (args[0]).
inline std::vector<std::string> WithSecurityFlags(
    std::vector<std::string> args) {
  if (!SecureMode() || args.empty()) return args;
  const std::string& command = args[0];
  std::vector<std::string> extra;
  if (command == "router" || command == "regionserver") {
    extra = ServerSecurityFlags();
  } else if (command == "query" || command == "get" || command == "scan" ||
             command == "import" || command == "verify" ||
             command == "accuracy" || command == "index" ||
             command == "admin" || command == "shell" || command == "put" ||
             command == "delete" || command == "bench") {
    extra = ClientSecurityFlags();
  }
  args.insert(args.end(), extra.begin(), extra.end());
  return args;
}

// A socket to host:port, not yet open: TLS presenting `identity` (one of
// TestCerts()) in the secure run, plain otherwise. Only in the secure run
// does TestCerts() make anything.
inline std::shared_ptr<apache::thrift::transport::TSocket> TestSocket(
    const std::string& host, int port, const TlsOptions& identity) {
  if (!SecureMode()) {
    return std::make_shared<apache::thrift::transport::TSocket>(host, port);
  }
  // One factory per identity file, made once.
  static std::mutex mutex;
  static std::map<std::string,
                  std::shared_ptr<apache::thrift::transport::TSSLSocketFactory>>
      factories;
  std::lock_guard<std::mutex> lock(mutex);
  auto& factory = factories[identity.cert_file];
  if (factory == nullptr) {
    // OpenSSL writes with write(): a server that closes first would raise
    // SIGPIPE in this process (thrift/internal/tls.h).
    signal(SIGPIPE, SIG_IGN);
    factory = std::make_shared<apache::thrift::transport::TSSLSocketFactory>(
        apache::thrift::transport::TLSv1_2);
    factory->authenticate(true);
    factory->loadTrustedCertificates(identity.ca_file.c_str());
    factory->loadCertificate(identity.cert_file.c_str());
    factory->loadPrivateKey(identity.key_file.c_str());
  }
  return factory->createSocket(host, port);
}

// `args` of a program about to run: WithSecurityFlags(args) when it is the
// bloomroute binary, as is otherwise.
inline std::vector<std::string> ForBinary(const std::string& binary,
                                          std::vector<std::string> args) {
#ifdef BLOOMROUTE_BINARY
  if (binary == BLOOMROUTE_BINARY) return WithSecurityFlags(std::move(args));
#else
  (void)binary;
#endif
  return args;
}

}  // namespace bloomroute::testing

#endif  // BLOOMROUTE_TESTS_INTEGRATION_SECURE_MODE_H_
