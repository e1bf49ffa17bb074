#include "tls/ssl_context.h"

#include <openssl/err.h>
#include <openssl/pem.h>
#include <openssl/x509.h>
#include <openssl/x509err.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <string>

namespace bloomroute::tls {

namespace {

Status ContextError(const char* what, const std::string& path) {
  return Status::InvalidArgument(std::string(what) + " " + path + ": " +
                                 TakeOpenSslError());
}

// Reads the revocation list at `crl_file` (known readable), bounded by
// kMaxCrlFileBytes.
StatusOr<X509_CRL*> ReadCrl(const std::string& crl_file) {
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
  return crl;
}

// What is wrong with `crl` as the list of the CA in `ca_file`; "" when
// nothing.
std::string CrlProblem(X509_CRL* crl, const std::string& ca_file) {
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
  return wrong;
}

// The certificate chain and its key from `files` into ctx.
Status LoadIdentity(SSL_CTX* ctx, const ServerFiles& files) {
  if (SSL_CTX_use_certificate_chain_file(ctx, files.cert_file.c_str()) != 1) {
    return ContextError("--tls-cert", files.cert_file);
  }
  if (SSL_CTX_use_PrivateKey_file(ctx, files.key_file.c_str(),
                                  SSL_FILETYPE_PEM) != 1) {
    if (ERR_GET_REASON(ERR_peek_last_error()) == X509_R_KEY_VALUES_MISMATCH) {
      ERR_clear_error();
      return Status::InvalidArgument("--tls-key " + files.key_file +
                                     " is not the key of --tls-cert " +
                                     files.cert_file);
    }
    return ContextError("--tls-key", files.key_file);
  }
  if (SSL_CTX_check_private_key(ctx) != 1) {
    return Status::InvalidArgument("--tls-key " + files.key_file +
                                   " is not the key of --tls-cert " +
                                   files.cert_file);
  }
  return Status::OK();
}

// The CA that clients' certificates must chain to, named to clients in the
// certificate request.
Status LoadClientCa(SSL_CTX* ctx, const std::string& ca_file,
                    bool require_client_certificate) {
  if (SSL_CTX_load_verify_locations(ctx, ca_file.c_str(), nullptr) != 1) {
    return ContextError("--tls-ca", ca_file);
  }
  STACK_OF(X509_NAME)* names = SSL_load_client_CA_file(ca_file.c_str());
  if (names == nullptr) return ContextError("--tls-ca", ca_file);
  SSL_CTX_set_client_CA_list(ctx, names);
  SSL_CTX_set_verify(
      ctx,
      SSL_VERIFY_PEER |
          (require_client_certificate ? SSL_VERIFY_FAIL_IF_NO_PEER_CERT : 0),
      nullptr);
  return Status::OK();
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

Status CheckReadable(const char* option, const std::string& path) {
  if (access(path.c_str(), R_OK) == 0) return Status::OK();
  return Status::InvalidArgument(std::string(option) + " " + path +
                                 ": cannot be read: " + std::strerror(errno));
}

Status Harden(SSL_CTX* ctx) {
  if (SSL_CTX_set_min_proto_version(ctx, TLS1_2_VERSION) != 1 ||
      SSL_CTX_set_cipher_list(ctx, kTls12Ciphers) != 1) {
    return Status::InvalidArgument("TLS settings refused: " +
                                   TakeOpenSslError());
  }
  SSL_CTX_set_options(ctx, SSL_OP_NO_RENEGOTIATION | SSL_OP_NO_COMPRESSION);
  return Status::OK();
}

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

std::string VerifiedPeerCommonName(SSL* ssl) {
  X509* certificate = SSL_get0_peer_certificate(ssl);
  if (certificate == nullptr || SSL_get_verify_result(ssl) != X509_V_OK) {
    return std::string();
  }
  return NameEntry(X509_get_subject_name(certificate), NID_commonName);
}

Status LoadCrl(SSL_CTX* ctx, const std::string& ca_file,
               const std::string& crl_file) {
  BLOOMROUTE_RETURN_IF_ERROR(CheckReadable("--tls-crl", crl_file));
  BLOOMROUTE_ASSIGN_OR_RETURN(X509_CRL * crl, ReadCrl(crl_file));
  const std::string wrong = CrlProblem(crl, ca_file);
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

StatusOr<SslCtxPtr> NewServerContext(const ServerFiles& files,
                                     bool require_client_certificate) {
  BLOOMROUTE_RETURN_IF_ERROR(CheckReadable("--tls-ca", files.ca_file));
  BLOOMROUTE_RETURN_IF_ERROR(CheckReadable("--tls-cert", files.cert_file));
  BLOOMROUTE_RETURN_IF_ERROR(CheckReadable("--tls-key", files.key_file));
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
  // connections give their record buffers back.
  SSL_CTX_set_mode(ctx,
                   SSL_MODE_ENABLE_PARTIAL_WRITE | SSL_MODE_RELEASE_BUFFERS);
  // An encrypted key fails to load rather than OpenSSL prompting for its
  // passphrase on the terminal of a server started by a service manager.
  SSL_CTX_set_default_passwd_cb(
      ctx, [](char*, int, int, void*) -> int { return -1; });
  BLOOMROUTE_RETURN_IF_ERROR(LoadIdentity(ctx, files));
  BLOOMROUTE_RETURN_IF_ERROR(
      LoadClientCa(ctx, files.ca_file, require_client_certificate));
  if (!files.crl_file.empty()) {
    BLOOMROUTE_RETURN_IF_ERROR(LoadCrl(ctx, files.ca_file, files.crl_file));
  }
  return owned;
}

}  // namespace bloomroute::tls
