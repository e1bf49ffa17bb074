// OpenSSL contexts with bloomroute's TLS policy (tls/policy.h), shared by
// the Thrift ports (thrift/internal/tls.h) and the HTTP port
// (http/http_server.h): the same protocol floor, ciphers and options, and
// the same loading of certificate, key, CA and revocation list.
//
// Beyond the ciphers: no renegotiation (a client could make the server do
// handshakes mid-stream), no session tickets or cache on servers (nothing
// is resumed; resumption would only widen what must be kept secret), and
// compression off (CRIME).
//
// Messages name files by the options that set them (--tls-ca, --tls-cert,
// --tls-key, --tls-crl), the names the servers' flags use.
//
// Thread-safety: free functions; an SSL_CTX made here is not changed after
// it is returned, so connections of several threads may share it.
#ifndef BLOOMROUTE_TLS_SSL_CONTEXT_H_
#define BLOOMROUTE_TLS_SSL_CONTEXT_H_

#include <openssl/ssl.h>

#include <memory>
#include <string>

#include "common/status.h"
#include "common/statusor.h"
#include "tls/policy.h"

namespace bloomroute::tls {

// Owners of OpenSSL's contexts and connections.
struct SslCtxDeleter {
  void operator()(SSL_CTX* ctx) const { SSL_CTX_free(ctx); }
};
using SslCtxPtr = std::unique_ptr<SSL_CTX, SslCtxDeleter>;
struct SslDeleter {
  void operator()(SSL* ssl) const { SSL_free(ssl); }
};
using SslPtr = std::unique_ptr<SSL, SslDeleter>;

// A server's TLS files, all PEM: the CA its clients' certificates must
// chain to, its certificate and key, and optionally the CA's revocation
// list.
struct ServerFiles {
  std::string ca_file;
  std::string cert_file;
  std::string key_file;
  std::string crl_file;  // optional
};

// What client and server contexts share: TLS 1.2+, kTls12Ciphers, no
// renegotiation, no compression. InvalidArgument when OpenSSL refuses one.
[[nodiscard]] Status Harden(SSL_CTX* ctx);

// A server context from `files` (all but the CRL must be given): Harden()
// plus server cipher preference, no session tickets or cache, partial
// writes, no passphrase prompt (an encrypted key fails to load). A client
// certificate is asked for and, when sent, must chain to files.ca_file and
// not be revoked; `require_client_certificate` also fails handshakes without
// one. InvalidArgument naming the file that cannot be read or does not hold
// what it should, or a key that does not match the certificate.
StatusOr<SslCtxPtr> NewServerContext(const ServerFiles& files,
                                     bool require_client_certificate);

// Adds the revocation list in `crl_file` to ctx's store and turns CRL
// checking on for peer certificates. Only a list that the CA in `ca_file`
// signed and that has not expired is taken (any other would fail every
// handshake); at most kMaxCrlFileBytes. InvalidArgument naming --tls-crl
// and what is wrong otherwise.
[[nodiscard]] Status LoadCrl(SSL_CTX* ctx, const std::string& ca_file,
                             const std::string& crl_file);

// OK when `path` can be opened for reading, else InvalidArgument naming
// `option`, the path and why (OpenSSL's own message for a missing file is
// "system library" at best).
[[nodiscard]] Status CheckReadable(const char* option, const std::string& path);

// The common name (CN) of the peer certificate of a completed handshake when
// it verified (chains to the CA, not revoked); "" without one.
std::string VerifiedPeerCommonName(SSL* ssl);

// The value of the first `nid` entry of `name` as UTF-8, or "" when absent
// or not text.
std::string NameEntry(X509_NAME* name, int nid);

// The last OpenSSL error of this thread as text (and clears the queue), for
// messages; "unknown error" when there is none.
std::string TakeOpenSslError();

}  // namespace bloomroute::tls

#endif  // BLOOMROUTE_TLS_SSL_CONTEXT_H_
