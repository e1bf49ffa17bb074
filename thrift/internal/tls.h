// TLS for bloomroute's Thrift ports (thrift/server/security.h says what is
// promised): the server's OpenSSL context and non-blocking record I/O for
// the frame loop, and the client's socket factory.
//
// Why the server side is written on OpenSSL directly and not with Thrift's
// TSSLServerSocket: that socket does its handshake and every read blocking,
// inside a thread that belongs to the connection, which is what the frame
// loop (frame_loop.h) exists to avoid (a client that sends one byte a minute
// would hold a worker). Here the loop drives each connection's handshake
// (on its handshake threads) and records (on its I/O thread) without
// blocking, bounded by the loop's deadlines.
// Clients block anyway (one call at a time, with socket timeouts), so they
// use Thrift's TSSLSocket.
//
// Protocol, ciphers and options: bloomroute's TLS policy, shared with the
// HTTP port (tls/ssl_context.h): TLS 1.2 and 1.3 with AEAD ciphers only, no
// renegotiation, no session tickets or cache, compression off.
//
// SIGPIPE. OpenSSL writes with write(), which raises SIGPIPE when the peer
// has gone; the first TlsServerContext or client factory made sets SIGPIPE
// to be ignored for the whole process (the write still fails with EPIPE).
//
// Thread-safety: a context is shared by all connections of a server; only
// ReloadCrl changes it (under a mutex, with NewConnection); one SSL object
// per connection, used by one thread at a time.
#ifndef BLOOMROUTE_THRIFT_INTERNAL_TLS_H_
#define BLOOMROUTE_THRIFT_INTERNAL_TLS_H_

#include <openssl/ssl.h>
#include <thrift/transport/TSSLSocket.h>

#include <cstddef>
#include <memory>
#include <mutex>
#include <string>

#include "common/statusor.h"
#include "thrift/server/security.h"
#include "tls/ssl_context.h"

namespace bloomroute::thrift_internal {

using tls::SslPtr;

class TlsServerContext {
 public:
  // Loads options' files (TlsOptions::ValidateForServer must pass).
  // `require_client_certificate`: the handshake fails without a client
  // certificate (region servers); otherwise one is asked for and verified
  // when sent (the router, whose clients may use a token instead). A
  // certificate that does not chain to the CA, or has expired, fails the
  // handshake either way. InvalidArgument naming the file that cannot be
  // read or does not hold what it should, or a key that does not match.
  static StatusOr<std::shared_ptr<TlsServerContext>> Create(
      const TlsOptions& options, bool require_client_certificate);
  ~TlsServerContext();
  TlsServerContext(const TlsServerContext&) = delete;
  TlsServerContext& operator=(const TlsServerContext&) = delete;

  // A new server-side SSL on `fd` (non-blocking), or nullptr when OpenSSL
  // cannot make one (out of memory).
  SslPtr NewConnection(int fd) const;

  // Reads options.crl_file again, with the other files, into a new context
  // that the next connections use (those made before keep theirs): a
  // certificate revoked since fails its next handshake. A file that does
  // not load (not a PEM list, over kMaxCrlFileBytes, or another file gone
  // bad) changes nothing: InvalidArgument naming it. A list the CA did not
  // sign fails every handshake that checks it, as OpenSSL checks its
  // signature then. OK with nothing to do when no CRL file was given.
  [[nodiscard]] Status ReloadCrl();

 private:
  TlsServerContext(SSL_CTX* ctx, TlsOptions options,
                   bool require_client_certificate)
      : options_(std::move(options)),
        require_client_certificate_(require_client_certificate),
        ctx_(ctx) {}
  const TlsOptions options_;
  const bool require_client_certificate_;
  mutable std::mutex mu_;
  SSL_CTX* ctx_;  // guarded by mu_; one reference, freed when replaced
};

// The outcome of one non-blocking TLS step.
enum class TlsIo {
  kDone,       // the step completed (`*bytes` moved for reads and writes)
  kWantRead,   // try again when the socket is readable
  kWantWrite,  // try again when the socket is writable
  kClosed,     // the peer closed the TLS session cleanly (reads only)
  kFailed,     // a protocol, certificate or socket error: close, no shutdown
};

// One handshake step of a server connection. When the client's first bytes
// are not TLS (a plaintext client), a fatal protocol_version alert is sent
// before kFailed, which OpenSSL does not do: the client can tell that the
// port speaks TLS.
TlsIo TlsHandshake(SSL* ssl);

// Sends on `fd` (best effort, not blocking) what a plaintext port answers a
// client whose first frame header is a TLS record (LooksLikeTlsRecord): a
// framed Thrift exception "this port does not speak TLS". It is not TLS, so
// the TLS client's handshake fails with OpenSSL's "wrong version number"
// rather than an end of stream, which tells it what it met.
void AnswerTlsInTheClear(int fd);

// Whether a frame header's bytes begin a TLS handshake or alert record
// (content type 0x16 or 0x15, then major version 3).
inline bool LooksLikeTlsRecord(const uint8_t* header) {
  return (header[0] == 0x16 || header[0] == 0x15) && header[1] == 0x03;
}
// Reads up to `size` bytes; kDone with `*bytes` > 0.
TlsIo TlsRead(SSL* ssl, void* buffer, size_t size, size_t* bytes);
// Writes up to `size` bytes (partial writes on); kDone with `*bytes` > 0.
TlsIo TlsWrite(SSL* ssl, const void* buffer, size_t size, size_t* bytes);
// Sends close_notify without waiting for the peer's. Only on a session that
// has not failed.
void TlsShutdown(SSL* ssl);

// Who the peer of a completed handshake is, from its verified certificate
// (the subject format of thrift/server/security.h). A peer without a
// certificate, or with one that names no bloomroute role, is Identity{} (role
// kNone).
Identity PeerIdentity(SSL* ssl);

// Thrift's TLS socket factory for clients: TLS 1.2+, tls::kTls12Ciphers, the
// server's certificate verified against options.ca_file and its name against
// the host dialled, and options' certificate and key presented when given.
// InvalidArgument naming a file that cannot be loaded.
StatusOr<std::shared_ptr<apache::thrift::transport::TSSLSocketFactory>>
NewClientSocketFactory(const TlsOptions& options);

// A count of ReloadClientTls() calls in this process: a client pool whose
// socket factory was made at an older count makes a new one (reading its
// TLS files, the revocation list too, again) before its next connection.
uint64_t ClientTlsGeneration();
void ReloadClientTls();

}  // namespace bloomroute::thrift_internal

#endif  // BLOOMROUTE_THRIFT_INTERNAL_TLS_H_
