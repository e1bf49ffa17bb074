// Test helpers for TLS on the servers (thrift/server/security.h): a cluster's
// certificates and a stranger's (made by the cluster tool's library,
// tools/certs.h), and raw clients that send what no well-behaved client does.
// Shared by tls_test.cc and hostile_client_test.cc.
#ifndef BLOOMROUTE_TESTS_THRIFT_TLS_TEST_UTIL_H_
#define BLOOMROUTE_TESTS_THRIFT_TLS_TEST_UTIL_H_

#include <arpa/inet.h>
#include <gtest/gtest.h>
#include <netinet/in.h>
#include <openssl/bio.h>
#include <openssl/ssl.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <string>

#include "tests/regionstore/region_store_test_util.h"
#include "thrift/server/security.h"
#include "tools/certs.h"

namespace bloomroute::testing {

// A cluster's certificates, and those of strangers.
class Certs {
 public:
  Certs() {
    dir_ = root_.path() + "/certs";
    other_ = root_.path() + "/other";
    CertOptions options;
    options.certs_dir = dir_;
    options.validity = CertValidity::For(kDefaultCaLifetime);
    Check(CreateCa(options).status());
    options.validity = CertValidity::For(std::chrono::hours(24));
    Check(CreateNodeCert(options, {"127.0.0.1", "localhost"}).status());
    Check(CreateNodeCert(options, {"127.0.0.1"}, Role::kRouter).status());
    Check(CreateNodeCert(options, {"127.0.0.1"}, Role::kRegionServer).status());
    Check(CreateClientCert(options, "reader", Role::kRead).status());
    Check(CreateClientCert(options, "writer", Role::kWrite).status());
    Check(CreateClientCert(options, "root", Role::kAdmin).status());
    Check(CreateToken(options, "tokenwriter", Role::kWrite).status());
    CertOptions expired = options;
    expired.validity.not_before =
        CertClock::now() - std::chrono::hours(24 * 10);
    expired.validity.not_after = CertClock::now() - std::chrono::hours(24);
    Check(CreateClientCert(expired, "old", Role::kAdmin).status());
    // A node certificate of this CA that names only another host.
    misnamed_ = root_.path() + "/misnamed";
    std::filesystem::create_directories(misnamed_);
    std::filesystem::copy_file(dir_ + "/" + kCaCertFile,
                               misnamed_ + "/" + kCaCertFile);
    CertOptions elsewhere = options;
    elsewhere.certs_dir = misnamed_;
    elsewhere.ca_key = dir_ + "/" + kCaKeyFile;
    Check(CreateNodeCert(elsewhere, {"db.example.org"}).status());
    // Another cluster: its CA, node and admin.
    CertOptions stranger;
    stranger.certs_dir = other_;
    stranger.validity = CertValidity::For(kDefaultCaLifetime);
    Check(CreateCa(stranger).status());
    stranger.validity = CertValidity::For(std::chrono::hours(24));
    Check(CreateNodeCert(stranger, {"127.0.0.1"}).status());
    Check(CreateClientCert(stranger, "root", Role::kAdmin).status());
  }

  TlsOptions Node() const { return Files(dir_, kNodeCertFile, kNodeKeyFile); }
  // The certificates of one kind of machine (router, regionserver).
  TlsOptions Machine(Role kind) const {
    return Files(dir_, NodeCertFile(kind), NodeKeyFile(kind));
  }
  TlsOptions Client(const std::string& user) const {
    return Files(dir_, ClientCertFile(user), ClientKeyFile(user));
  }
  TlsOptions CaOnly() const { return Files(dir_, "", ""); }
  TlsOptions StrangerClient() const {
    // Trusts our CA (so the server is verified) but presents another CA's
    // certificate.
    TlsOptions o = Files(other_, ClientCertFile("root"), ClientKeyFile("root"));
    o.ca_file = dir_ + "/" + kCaCertFile;
    return o;
  }
  TlsOptions TrustsOnlyStranger() const {
    return Files(other_, ClientCertFile("root"), ClientKeyFile("root"));
  }
  TlsOptions MisnamedNode() const {
    return Files(misnamed_, kNodeCertFile, kNodeKeyFile);
  }
  TlsOptions StrangerNode() const {
    return Files(other_, kNodeCertFile, kNodeKeyFile);
  }
  std::string TokensFile() const { return dir_ + "/" + kTokensFile; }
  // The CA's revocation list, after revoking client.<user>.crt ("" renews
  // the list without revoking).
  std::string Revoke(const std::string& user) const {
    CertOptions options;
    options.certs_dir = dir_;
    options.validity = CertValidity::For(std::chrono::hours(24));
    Check(
        RevokeCert(options, user.empty() ? "" : ClientCertFile(user)).status());
    return dir_ + "/" + kCrlFile;
  }
  // The CA's revocation list, after revoking `cert_file` (in the certs
  // directory, e.g. node.crt).
  std::string RevokeFile(const std::string& cert_file) const {
    CertOptions options;
    options.certs_dir = dir_;
    options.validity = CertValidity::For(std::chrono::hours(24));
    Check(RevokeCert(options, cert_file).status());
    return dir_ + "/" + kCrlFile;
  }
  // A revocation list of the stranger CA.
  std::string StrangerCrl() const {
    CertOptions options;
    options.certs_dir = other_;
    options.validity = CertValidity::For(std::chrono::hours(24));
    Check(RevokeCert(options, "").status());
    return other_ + "/" + kCrlFile;
  }
  std::string Token(const std::string& user) const {
    std::ifstream in(dir_ + "/" + TokenFile(user));
    std::string token;
    std::getline(in, token);
    return token;
  }

 private:
  static void Check(const Status& s) { ASSERT_TRUE(s.ok()) << s.ToString(); }
  static TlsOptions Files(const std::string& dir, const std::string& cert,
                          const std::string& key) {
    TlsOptions o;
    o.ca_file = dir + "/" + kCaCertFile;
    if (!cert.empty()) o.cert_file = dir + "/" + cert;
    if (!key.empty()) o.key_file = dir + "/" + key;
    return o;
  }

  TempDir root_;
  std::string dir_;
  std::string other_;
  std::string misnamed_;
};

// A connected TCP socket to 127.0.0.1:port, or -1.
inline int ConnectTcp(int port) {
  const int fd = socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in address{};
  address.sin_family = AF_INET;
  address.sin_port = htons(static_cast<uint16_t>(port));
  address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  if (connect(fd, reinterpret_cast<sockaddr*>(&address), sizeof(address)) !=
      0) {
    close(fd);
    return -1;
  }
  timeval timeout{5, 0};
  setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, sizeof(timeout));
  return fd;
}

// Sends `bytes` on a fresh plain TCP connection to `port`; true when the
// server then closes it (recv sees the end or a reset within 5 s).
inline bool PlaintextConnectionIsClosed(int port, const std::string& bytes) {
  const int fd = ConnectTcp(port);
  if (fd < 0) return false;
  [[maybe_unused]] ssize_t sent = send(fd, bytes.data(), bytes.size(), 0);
  char buffer[256];
  ssize_t n = 0;
  // A TLS server may answer with an alert first; then it closes.
  while ((n = recv(fd, buffer, sizeof(buffer), 0)) > 0) {
  }
  const bool closed = n == 0 || (n < 0 && errno == ECONNRESET);
  close(fd);
  return closed;
}

// A TLS client written on OpenSSL directly, so that a test can send what
// no well-behaved client does: part of a record, a frame it never finishes.
// Trusts `ca_file`, presents no certificate or `identity`'s.
class RawTlsClient {
 public:
  RawTlsClient(int port, const std::string& ca_file,
               const TlsOptions* identity = nullptr) {
    ctx_ = SSL_CTX_new(TLS_client_method());
    SSL_CTX_load_verify_locations(ctx_, ca_file.c_str(), nullptr);
    SSL_CTX_set_verify(ctx_, SSL_VERIFY_PEER, nullptr);
    if (identity != nullptr) {
      SSL_CTX_use_certificate_chain_file(ctx_, identity->cert_file.c_str());
      SSL_CTX_use_PrivateKey_file(ctx_, identity->key_file.c_str(),
                                  SSL_FILETYPE_PEM);
    }
    fd_ = ConnectTcp(port);
    ssl_ = SSL_new(ctx_);
    SSL_set_fd(ssl_, fd_);
    ok_ = fd_ >= 0 && SSL_connect(ssl_) == 1;
  }
  ~RawTlsClient() {
    SSL_free(ssl_);
    SSL_CTX_free(ctx_);
    if (fd_ >= 0) close(fd_);
  }
  bool ok() const { return ok_; }

  bool Send(const std::string& bytes) {
    size_t written = 0;
    return SSL_write_ex(ssl_, bytes.data(), bytes.size(), &written) == 1;
  }
  // Encrypts `bytes` as one record and sends only its first `prefix` bytes.
  bool SendPartOfARecord(const std::string& bytes, size_t prefix) {
    BIO* memory = BIO_new(BIO_s_mem());
    BIO_up_ref(SSL_get_wbio(ssl_));
    BIO* socket_bio = SSL_get_wbio(ssl_);
    SSL_set0_wbio(ssl_, memory);
    size_t written = 0;
    const bool encrypted =
        SSL_write_ex(ssl_, bytes.data(), bytes.size(), &written) == 1;
    char* wire = nullptr;
    const long wire_bytes = BIO_get_mem_data(memory, &wire);  // NOLINT
    const bool sent =
        encrypted && wire_bytes > static_cast<long>(prefix) &&  // NOLINT
        send(fd_, wire, prefix, MSG_NOSIGNAL) == static_cast<ssize_t>(prefix);
    SSL_set0_wbio(ssl_, socket_bio);
    return sent;
  }
  // What arrives until the server closes (or 5 s pass): the plaintext, and
  // whether it closed.
  std::string ReadUntilClosed(bool* closed) {
    std::string text;
    char buffer[4096];
    for (;;) {
      size_t n = 0;
      if (SSL_read_ex(ssl_, buffer, sizeof(buffer), &n) != 1) {
        const int error = SSL_get_error(ssl_, 0);
        *closed = error == SSL_ERROR_ZERO_RETURN ||
                  error == SSL_ERROR_SYSCALL || error == SSL_ERROR_SSL;
        return text;
      }
      text.append(buffer, n);
    }
  }

 private:
  SSL_CTX* ctx_ = nullptr;
  SSL* ssl_ = nullptr;
  int fd_ = -1;
  bool ok_ = false;
};

// CPU time this process used, in ms.
inline int64_t ProcessCpuMs() {
  rusage usage{};
  getrusage(RUSAGE_SELF, &usage);
  return (usage.ru_utime.tv_sec + usage.ru_stime.tv_sec) * 1000 +
         (usage.ru_utime.tv_usec + usage.ru_stime.tv_usec) / 1000;
}

// A framed, strict-binary call of `method` with no arguments; `oneway`
// types it T_ONEWAY (no reply expected).
inline std::string FramedCall(const std::string& method, bool oneway = false) {
  std::string message(oneway ? "\x80\x01\x00\x04" : "\x80\x01\x00\x01", 4);
  const uint32_t name_bytes = htonl(static_cast<uint32_t>(method.size()));
  message.append(reinterpret_cast<const char*>(&name_bytes), 4);
  message += method;
  message.append("\x00\x00\x00\x01\x00", 5);  // seqid 1, empty struct
  const uint32_t frame_bytes = htonl(static_cast<uint32_t>(message.size()));
  return std::string(reinterpret_cast<const char*>(&frame_bytes), 4) + message;
}

}  // namespace bloomroute::testing

#endif  // BLOOMROUTE_TESTS_THRIFT_TLS_TEST_UTIL_H_
