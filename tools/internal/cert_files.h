// Private helpers of tools/certs.cc: files written without a window in which
// they are readable or half-written, bounded reads, and owning pointers for
// OpenSSL objects.
#ifndef BLOOMROUTE_TOOLS_INTERNAL_CERT_FILES_H_
#define BLOOMROUTE_TOOLS_INTERNAL_CERT_FILES_H_

#include <openssl/evp.h>
#include <openssl/x509.h>
#include <sys/types.h>

#include <cstddef>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "common/status.h"
#include "common/statusor.h"

namespace bloomroute::cert_internal {

struct OpensslFree {
  void operator()(X509* x) const { X509_free(x); }
  void operator()(EVP_PKEY* k) const { EVP_PKEY_free(k); }
  void operator()(BIO* b) const { BIO_free_all(b); }
  void operator()(X509_CRL* c) const { X509_CRL_free(c); }
};
using X509Ptr = std::unique_ptr<X509, OpensslFree>;
using KeyPtr = std::unique_ptr<EVP_PKEY, OpensslFree>;
using BioPtr = std::unique_ptr<BIO, OpensslFree>;
using CrlPtr = std::unique_ptr<X509_CRL, OpensslFree>;

// The last OpenSSL error, for a message ("unknown" when there is none); the
// error queue is cleared.
std::string OpensslError();

// A file to write: its path, bytes and mode (0600 for keys and tokens).
struct FileToWrite {
  std::string path;
  std::string bytes;
  mode_t mode;
};

// IOError naming the first path that exists and --overwrite, unless
// `overwrite`.
Status CheckAbsent(const std::vector<std::string>& paths, bool overwrite);

// Writes `file` into a new temporary file beside it (created with its mode,
// so a key is never readable by others), syncs it, and then either links it
// to its path (fails with IOError naming the path and --overwrite when that
// exists) or, with `overwrite`, renames it over the path. Either way the path
// holds the old bytes or all the new ones.
Status WriteFileAtomically(const FileToWrite& file, bool overwrite);

// The whole file, NotFound when missing, IOError naming the file and the
// limit `limit_name` when it is over `max_bytes`.
StatusOr<std::string> ReadBoundedFile(const std::string& path, size_t max_bytes,
                                      std::string_view limit_name);

// PEM reading (from a file of at most kMaxPemFileBytes) and writing.
StatusOr<X509Ptr> ReadCertFile(const std::string& path);
StatusOr<KeyPtr> ReadKeyFile(const std::string& path);
StatusOr<std::string> CertPem(X509* cert);
// PKCS#8, unencrypted (the file's mode protects it).
StatusOr<std::string> KeyPem(EVP_PKEY* key);

// The CA: its certificate and key.
struct Ca {
  X509Ptr cert;
  KeyPtr key;
};
// Reads them; Corruption naming both files when the key is not the
// certificate's.
StatusOr<Ca> LoadCa(const std::string& cert_path, const std::string& key_path);

// Creates `dir` (mode 0700; its parents as mkdir -p) when missing; IOError
// naming it when it cannot be made or is not a directory.
Status EnsureDirectory(const std::string& dir);

}  // namespace bloomroute::cert_internal

#endif  // BLOOMROUTE_TOOLS_INTERNAL_CERT_FILES_H_
