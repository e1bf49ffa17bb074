#include "thrift/internal/tls.h"

#include <openssl/err.h>
#include <openssl/x509.h>
#include <signal.h>
#include <sys/socket.h>
#include <thrift/TApplicationException.h>
#include <thrift/protocol/TBinaryProtocol.h>
#include <thrift/transport/TBufferTransports.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <memory>
#include <string>

namespace bloomroute::thrift_internal {
namespace at = apache::thrift;

namespace {

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

// A server context from options' files, with the policy every port shares.
StatusOr<tls::SslCtxPtr> NewServerCtx(const TlsOptions& options,
                                      bool require_client_certificate) {
  return tls::NewServerContext(
      tls::ServerFiles{options.ca_file, options.cert_file, options.key_file,
                       options.crl_file},
      require_client_certificate);
}

}  // namespace

StatusOr<std::shared_ptr<TlsServerContext>> TlsServerContext::Create(
    const TlsOptions& options, bool require_client_certificate) {
  BLOOMROUTE_RETURN_IF_ERROR(options.ValidateForServer());
  if (!options.enabled()) return Status::InvalidArgument("TLS is off");
  IgnoreSigpipe();
  BLOOMROUTE_ASSIGN_OR_RETURN(
      tls::SslCtxPtr ctx, NewServerCtx(options, require_client_certificate));
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
      tls::SslCtxPtr fresh,
      NewServerCtx(options_, require_client_certificate_));
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
  if (tls::NameEntry(subject, NID_organizationName) != kCertOrganization) {
    return identity;
  }
  StatusOr<Role> role =
      ParseRole(tls::NameEntry(subject, NID_organizationalUnitName));
  if (!role.ok()) return identity;
  identity.user = tls::NameEntry(subject, NID_commonName);
  identity.role = *role;
  return identity;
}

StatusOr<std::shared_ptr<at::transport::TSSLSocketFactory>>
NewClientSocketFactory(const TlsOptions& options) {
  BLOOMROUTE_RETURN_IF_ERROR(options.ValidateForClient());
  if (!options.enabled()) return Status::InvalidArgument("TLS is off");
  BLOOMROUTE_RETURN_IF_ERROR(tls::CheckReadable("--tls-ca", options.ca_file));
  if (!options.cert_file.empty()) {
    BLOOMROUTE_RETURN_IF_ERROR(
        tls::CheckReadable("--tls-cert", options.cert_file));
    BLOOMROUTE_RETURN_IF_ERROR(
        tls::CheckReadable("--tls-key", options.key_file));
  }
  IgnoreSigpipe();
  // OpenSSL 3 initializes itself; Thrift's global set-up and clean-up would
  // only race with the servers' own use of OpenSSL.
  at::transport::TSSLSocketFactory::setManualOpenSSLInitialization(true);
  try {
    auto factory = std::make_shared<ClientSocketFactory>();
    BLOOMROUTE_RETURN_IF_ERROR(tls::Harden(factory->context()));
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
          tls::LoadCrl(factory->context(), options.ca_file, options.crl_file));
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
