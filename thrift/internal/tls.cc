#include "thrift/internal/tls.h"

#include <openssl/err.h>
#include <openssl/pem.h>
#include <openssl/x509.h>
#include <openssl/x509err.h>
#include <signal.h>
#include <sys/socket.h>
#include <thrift/TApplicationException.h>
#include <thrift/protocol/TBinaryProtocol.h>
#include <thrift/transport/TBufferTransports.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <memory>
#include <string>

namespace bloomroute::thrift_internal {
namespace at = apache::thrift;

namespace {

// Fails with InvalidArgument naming `option` and `path` unless the file can
// be opened for reading: OpenSSL's own message for a missing file is
// "system library" at best.
Status CheckReadable(const char* option, const std::string& path) {
  if (access(path.c_str(), R_OK) == 0) return Status::OK();
  return Status::InvalidArgument(std::string(option) + " " + path +
                                 ": cannot be read: " + std::strerror(errno));
}

Status ContextError(const char* what, const std::string& path) {
  return Status::InvalidArgument(std::string(what) + " " + path + ": " +
                                 TakeOpenSslError());
}

// What client and server contexts share: TLS 1.2+, AEAD ciphers, no
// renegotiation, no compression.
Status Harden(SSL_CTX* ctx) {
  if (SSL_CTX_set_min_proto_version(ctx, TLS1_2_VERSION) != 1 ||
      SSL_CTX_set_cipher_list(ctx, kTls12Ciphers) != 1) {
    return Status::InvalidArgument("TLS settings refused: " +
                                   TakeOpenSslError());
  }
  SSL_CTX_set_options(ctx, SSL_OP_NO_RENEGOTIATION | SSL_OP_NO_COMPRESSION);
  return Status::OK();
}

// The value of the first `nid` entry of `name`, or "" when absent or not
// text.
std::string NameEntry(X509_NAME* name, int nid) {
  const int at_index = X509_NAME_get_index_by_NID(name, nid, -1);
  if (at_index < 0) return std::string();
  ASN1_STRING* data =
      X509_NAME_ENTRY_get_data(X509_NAME_get_entry(name, at_index));
  unsigned char* utf8 = nullptr;
  const int length = ASN1_STRING_to_UTF8(&utf8, data);
  if (length < 0) return std::string();
  std::string value(reinterpret_cast<char*>(utf8), static_cast<size_t>(length));
  OPENSSL_free(utf8);
  return value;
}

// Whether a failed handshake step failed on bytes that are not TLS (a
// plaintext client's request) with nothing sent to the client yet.
bool FirstRecordWasNotTls(SSL* ssl, int result) {
  if (SSL_get_error(ssl, result) != SSL_ERROR_SSL ||
      BIO_number_written(SSL_get_wbio(ssl)) != 0) {
    return false;
  }
  const unsigned long error = ERR_peek_error();
  if (ERR_GET_LIB(error) != ERR_LIB_SSL) return false;
  switch (ERR_GET_REASON(error)) {
    case SSL_R_WRONG_VERSION_NUMBER:
    case SSL_R_HTTP_REQUEST:
    case SSL_R_HTTPS_PROXY_REQUEST:
    case SSL_R_UNKNOWN_PROTOCOL:
    case SSL_R_PACKET_LENGTH_TOO_LONG:
      return true;
    default:
      return false;
  }
}

// Maps an SSL call's result to a TlsIo.
TlsIo Outcome(SSL* ssl, int result) {
  switch (SSL_get_error(ssl, result)) {
    case SSL_ERROR_NONE:
      return TlsIo::kDone;
    case SSL_ERROR_WANT_READ:
      return TlsIo::kWantRead;
    case SSL_ERROR_WANT_WRITE:
      return TlsIo::kWantWrite;
    case SSL_ERROR_ZERO_RETURN:
      return TlsIo::kClosed;
    case SSL_ERROR_SYSCALL:
      if (errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR) {
        return TlsIo::kWantRead;
      }
      break;
    default:
      break;
  }
  ERR_clear_error();  // a client's bad bytes are not worth a log line
  return TlsIo::kFailed;
}

// Exposes the factory's context, which Thrift keeps protected, so that the
// client gets the same protocol floor and ciphers as the servers.
class ClientSocketFactory : public at::transport::TSSLSocketFactory {
 public:
  // SSLTLS, not TLSv1_2: Thrift 0.17 makes TLSv1_2 a TLS-1.2-only method,
  // which would never negotiate 1.3. Harden() sets the 1.2 floor.
  ClientSocketFactory() : TSSLSocketFactory(at::transport::SSLTLS) {}
  SSL_CTX* context() { return ctx_->get(); }
};

// OpenSSL writes to its socket with write(), not send(MSG_NOSIGNAL) as
// Thrift's own sockets do, so a write to a peer that has gone away raises
// SIGPIPE, whose default kills the process: a client dropping its
// connection mid-reply would kill a server, and a server closing one would
// kill a client. The error is reported by the write anyway (EPIPE), so the
// signal is ignored, process-wide, once TLS is used.
std::atomic<uint64_t> client_tls_generation{0};

void IgnoreSigpipe() {
  static const bool ignored = [] {
    signal(SIGPIPE, SIG_IGN);
    return true;
  }();
  (void)ignored;
}

}  // namespace

std::string TakeOpenSslError() {
  const unsigned long code = ERR_get_error();  // NOLINT(runtime/int)
  ERR_clear_error();
  if (code == 0) return "unknown error";
  char text[256];
  ERR_error_string_n(code, text, sizeof(text));
  return text;
}

namespace {

struct SslCtxDeleter {
  void operator()(SSL_CTX* ctx) const { SSL_CTX_free(ctx); }
};
using SslCtxPtr = std::unique_ptr<SSL_CTX, SslCtxDeleter>;

// The revocation list in `crl_file` added to ctx's store, and checked for
// every peer certificate from then on. Bounded: the file's size bounds what
// PEM decoding may allocate. Only a list the CA in `ca_file` signed and
// that has not expired is taken: with CRL checking on, any other would
// fail every handshake, cutting the server off from its peers.
Status LoadCrl(SSL_CTX* ctx, const std::string& ca_file,
               const std::string& crl_file) {
  BLOOMROUTE_RETURN_IF_ERROR(CheckReadable("--tls-crl", crl_file));
  std::error_code error;
  const uintmax_t bytes = std::filesystem::file_size(crl_file, error);
  if (error || bytes > kMaxCrlFileBytes) {
    return Status::InvalidArgument("--tls-crl " + crl_file +
                                   " is not a file of at most " +
                                   std::to_string(kMaxCrlFileBytes) + " bytes");
  }
  BIO* bio = BIO_new_file(crl_file.c_str(), "r");
  if (bio == nullptr) return ContextError("--tls-crl", crl_file);
  X509_CRL* crl = PEM_read_bio_X509_CRL(bio, nullptr, nullptr, nullptr);
  BIO_free(bio);
  if (crl == nullptr) {
    return Status::InvalidArgument(
        "--tls-crl " + crl_file +
        " does not hold a revocation list (PEM): " + TakeOpenSslError());
  }
  BIO* ca_bio = BIO_new_file(ca_file.c_str(), "r");
  X509* ca = ca_bio == nullptr
                 ? nullptr
                 : PEM_read_bio_X509(ca_bio, nullptr, nullptr, nullptr);
  BIO_free(ca_bio);
  std::string wrong;
  if (ca == nullptr) {
    wrong = "the CA certificate of --tls-ca cannot be read";
  } else if (X509_NAME_cmp(X509_CRL_get_issuer(crl),
                           X509_get_subject_name(ca)) != 0 ||
             X509_CRL_verify(crl, X509_get0_pubkey(ca)) != 1) {
    wrong = "it is not a list of the CA of --tls-ca " + ca_file;
  } else if (X509_CRL_get0_nextUpdate(crl) == nullptr ||
             X509_cmp_current_time(X509_CRL_get0_nextUpdate(crl)) <= 0) {
    wrong = "it has expired (renew it: bloomroute cert revoke)";
  }
  X509_free(ca);
  if (!wrong.empty()) {
    X509_CRL_free(crl);
    ERR_clear_error();
    return Status::InvalidArgument("--tls-crl " + crl_file + ": " + wrong);
  }
  X509_STORE* store = SSL_CTX_get_cert_store(ctx);
  const int added = X509_STORE_add_crl(store, crl);
  X509_CRL_free(crl);
  if (added != 1) {
    return Status::InvalidArgument("--tls-crl " + crl_file + ": " +
                                   TakeOpenSslError());
  }
  // Peers' certificates are checked against the list (a CA's list does not
  // revoke the CA itself). Without a list every handshake would fail, so
  // the flag comes with one.
  X509_STORE_set_flags(store, X509_V_FLAG_CRL_CHECK);
  return Status::OK();
}

// A server context from options' files.
StatusOr<SslCtxPtr> NewServerCtx(const TlsOptions& options,
                                 bool require_client_certificate) {
  BLOOMROUTE_RETURN_IF_ERROR(CheckReadable("--tls-ca", options.ca_file));
  BLOOMROUTE_RETURN_IF_ERROR(CheckReadable("--tls-cert", options.cert_file));
  BLOOMROUTE_RETURN_IF_ERROR(CheckReadable("--tls-key", options.key_file));
  SslCtxPtr owned(SSL_CTX_new(TLS_server_method()));
  SSL_CTX* ctx = owned.get();
  if (ctx == nullptr) return Status::IOError("TLS: " + TakeOpenSslError());
  BLOOMROUTE_RETURN_IF_ERROR(Harden(ctx));
  SSL_CTX_set_options(ctx, SSL_OP_CIPHER_SERVER_PREFERENCE);
  // No resumption: nothing is written after the handshake but replies, and
  // no ticket key must be kept secret.
  SSL_CTX_set_num_tickets(ctx, 0);
  SSL_CTX_set_options(ctx, SSL_OP_NO_TICKET);
  SSL_CTX_set_session_cache_mode(ctx, SSL_SESS_CACHE_OFF);
  // Replies are written from a buffer that stays put, in parts; idle
  // connections give their record buffers back (up to 512 connections).
  SSL_CTX_set_mode(ctx,
                   SSL_MODE_ENABLE_PARTIAL_WRITE | SSL_MODE_RELEASE_BUFFERS);
  // An encrypted key fails to load rather than OpenSSL prompting for its
  // passphrase on the terminal of a server started by a service manager.
  SSL_CTX_set_default_passwd_cb(
      ctx, [](char*, int, int, void*) -> int { return -1; });
  if (SSL_CTX_use_certificate_chain_file(ctx, options.cert_file.c_str()) != 1) {
    return ContextError("--tls-cert", options.cert_file);
  }
  if (SSL_CTX_use_PrivateKey_file(ctx, options.key_file.c_str(),
                                  SSL_FILETYPE_PEM) != 1) {
    if (ERR_GET_REASON(ERR_peek_last_error()) == X509_R_KEY_VALUES_MISMATCH) {
      ERR_clear_error();
      return Status::InvalidArgument("--tls-key " + options.key_file +
                                     " is not the key of --tls-cert " +
                                     options.cert_file);
    }
    return ContextError("--tls-key", options.key_file);
  }
  if (SSL_CTX_check_private_key(ctx) != 1) {
    return Status::InvalidArgument("--tls-key " + options.key_file +
                                   " is not the key of --tls-cert " +
                                   options.cert_file);
  }
  if (SSL_CTX_load_verify_locations(ctx, options.ca_file.c_str(), nullptr) !=
      1) {
    return ContextError("--tls-ca", options.ca_file);
  }
  STACK_OF(X509_NAME)* names = SSL_load_client_CA_file(options.ca_file.c_str());
  if (names == nullptr) return ContextError("--tls-ca", options.ca_file);
  SSL_CTX_set_client_CA_list(ctx, names);
  SSL_CTX_set_verify(
      ctx,
      SSL_VERIFY_PEER |
          (require_client_certificate ? SSL_VERIFY_FAIL_IF_NO_PEER_CERT : 0),
      nullptr);
  if (!options.crl_file.empty()) {
    BLOOMROUTE_RETURN_IF_ERROR(LoadCrl(ctx, options.ca_file, options.crl_file));
  }
  return owned;
}

}  // namespace

StatusOr<std::shared_ptr<TlsServerContext>> TlsServerContext::Create(
    const TlsOptions& options, bool require_client_certificate) {
  BLOOMROUTE_RETURN_IF_ERROR(options.ValidateForServer());
  if (!options.enabled()) return Status::InvalidArgument("TLS is off");
  IgnoreSigpipe();
  BLOOMROUTE_ASSIGN_OR_RETURN(
      SslCtxPtr ctx, NewServerCtx(options, require_client_certificate));
  return std::shared_ptr<TlsServerContext>(
      new TlsServerContext(ctx.release(), options, require_client_certificate));
}

Status TlsServerContext::ReloadCrl() {
  if (options_.crl_file.empty()) return Status::OK();
  // A whole new context: OpenSSL keeps every list added to a store and
  // picks by thisUpdate, to the second, so a list written in the same
  // second as the one loaded would not take over. Connections made before
  // keep the context they hold (SSL_new takes a reference).
  BLOOMROUTE_ASSIGN_OR_RETURN(
      SslCtxPtr fresh, NewServerCtx(options_, require_client_certificate_));
  std::lock_guard<std::mutex> lock(mu_);
  SSL_CTX_free(ctx_);
  ctx_ = fresh.release();
  return Status::OK();
}

TlsServerContext::~TlsServerContext() { SSL_CTX_free(ctx_); }

SslPtr TlsServerContext::NewConnection(int fd) const {
  SslPtr ssl;
  {
    std::lock_guard<std::mutex> lock(mu_);
    ssl.reset(SSL_new(ctx_));
  }
  if (ssl == nullptr || SSL_set_fd(ssl.get(), fd) != 1) {
    ERR_clear_error();
    return nullptr;
  }
  SSL_set_accept_state(ssl.get());
  return ssl;
}

TlsIo TlsHandshake(SSL* ssl) {
  ERR_clear_error();
  errno = 0;
  const int result = SSL_do_handshake(ssl);
  if (result != 1 && FirstRecordWasNotTls(ssl, result)) {
    // OpenSSL answers bytes that are not TLS with nothing (SSL_AD_NO_ALERT):
    // the client would see a connection closed for no reason. A fatal
    // protocol_version alert, in a TLS 1.0 record as before any version is
    // agreed, lets a plaintext client tell that this port speaks TLS
    // (thrift/internal/client_pool.h). Best effort: the socket is new, so
    // seven bytes fit its buffer; a failed send changes nothing.
    static constexpr uint8_t kAlert[] = {0x15, 0x03, 0x01, 0x00,
                                         0x02, 0x02, 0x46};
    (void)send(SSL_get_fd(ssl), kAlert, sizeof(kAlert),
               MSG_NOSIGNAL | MSG_DONTWAIT);
  }
  return Outcome(ssl, result);
}

void AnswerTlsInTheClear(int fd) {
  // A framed TApplicationException (PROTOCOL_ERROR) in the strict binary
  // protocol, as a Thrift server answers a call it cannot serve.
  auto buffer = std::make_shared<at::transport::TMemoryBuffer>();
  at::protocol::TBinaryProtocol protocol(buffer);
  protocol.writeMessageBegin("", at::protocol::T_EXCEPTION, 0);
  at::TApplicationException(at::TApplicationException::PROTOCOL_ERROR,
                            "this port does not speak TLS")
      .write(&protocol);
  protocol.writeMessageEnd();
  const std::string message = buffer->getBufferAsString();
  std::string frame;
  const auto size = static_cast<uint32_t>(message.size());
  for (int shift = 24; shift >= 0; shift -= 8) {
    frame.push_back(static_cast<char>((size >> shift) & 0xff));
  }
  frame += message;
  (void)send(fd, frame.data(), frame.size(), MSG_NOSIGNAL | MSG_DONTWAIT);
}

TlsIo TlsRead(SSL* ssl, void* buffer, size_t size, size_t* bytes) {
  ERR_clear_error();
  errno = 0;
  *bytes = 0;
  const int result = SSL_read_ex(ssl, buffer, size, bytes);
  return result == 1 ? TlsIo::kDone : Outcome(ssl, result);
}

TlsIo TlsWrite(SSL* ssl, const void* buffer, size_t size, size_t* bytes) {
  ERR_clear_error();
  errno = 0;
  *bytes = 0;
  const int result = SSL_write_ex(ssl, buffer, size, bytes);
  if (result == 1) return TlsIo::kDone;
  const TlsIo outcome = Outcome(ssl, result);
  // A write that must wait for the socket is a want-write, whatever errno.
  return outcome == TlsIo::kWantRead && SSL_want_write(ssl) ? TlsIo::kWantWrite
                                                            : outcome;
}

void TlsShutdown(SSL* ssl) {
  ERR_clear_error();
  SSL_shutdown(ssl);  // one step: close_notify out, the reply not awaited
  ERR_clear_error();
}

Identity PeerIdentity(SSL* ssl) {
  Identity identity;
  X509* certificate = SSL_get0_peer_certificate(ssl);
  if (certificate == nullptr || SSL_get_verify_result(ssl) != X509_V_OK) {
    return identity;
  }
  X509_NAME* subject = X509_get_subject_name(certificate);
  if (NameEntry(subject, NID_organizationName) != kCertOrganization) {
    return identity;
  }
  StatusOr<Role> role =
      ParseRole(NameEntry(subject, NID_organizationalUnitName));
  if (!role.ok()) return identity;
  identity.user = NameEntry(subject, NID_commonName);
  identity.role = *role;
  return identity;
}

StatusOr<std::shared_ptr<at::transport::TSSLSocketFactory>>
NewClientSocketFactory(const TlsOptions& options) {
  BLOOMROUTE_RETURN_IF_ERROR(options.ValidateForClient());
  if (!options.enabled()) return Status::InvalidArgument("TLS is off");
  BLOOMROUTE_RETURN_IF_ERROR(CheckReadable("--tls-ca", options.ca_file));
  if (!options.cert_file.empty()) {
    BLOOMROUTE_RETURN_IF_ERROR(CheckReadable("--tls-cert", options.cert_file));
    BLOOMROUTE_RETURN_IF_ERROR(CheckReadable("--tls-key", options.key_file));
  }
  IgnoreSigpipe();
  // OpenSSL 3 initializes itself; Thrift's global set-up and clean-up would
  // only race with the servers' own use of OpenSSL.
  at::transport::TSSLSocketFactory::setManualOpenSSLInitialization(true);
  try {
    auto factory = std::make_shared<ClientSocketFactory>();
    BLOOMROUTE_RETURN_IF_ERROR(Harden(factory->context()));
    factory->authenticate(true);  // verify the server and its name
    factory->loadTrustedCertificates(options.ca_file.c_str());
    if (!options.cert_file.empty()) {
      // Asks getPassword(), which gives none: an encrypted key fails to load
      // instead of OpenSSL prompting on the terminal.
      factory->overrideDefaultPasswordCallback();
      factory->loadCertificate(options.cert_file.c_str());
      factory->loadPrivateKey(options.key_file.c_str());
    }
    // A router (whose region-server client takes its server's TLS files)
    // refuses region servers whose certificate is revoked. Read again after
    // ReloadClientTls() (the router's SIGHUP), by the next connection.
    if (!options.crl_file.empty()) {
      BLOOMROUTE_RETURN_IF_ERROR(
          LoadCrl(factory->context(), options.ca_file, options.crl_file));
    }
    return std::shared_ptr<at::transport::TSSLSocketFactory>(
        std::move(factory));
  } catch (const at::TException& e) {
    return Status::InvalidArgument(std::string("TLS client files: ") +
                                   e.what());
  }
}

uint64_t ClientTlsGeneration() { return client_tls_generation.load(); }

void ReloadClientTls() { client_tls_generation.fetch_add(1); }

}  // namespace bloomroute::thrift_internal
