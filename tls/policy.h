// The TLS policy every bloomroute port follows (the Thrift ports and the
// HTTP port), as constants without OpenSSL's headers, so that option
// structs (thrift/server/security.h) can name them. tls/ssl_context.h applies
// them to an OpenSSL context.
//
// Protocol and ciphers. TLS 1.2 and 1.3 only. For TLS 1.2 only ECDHE key
// exchange with AEAD ciphers (AES-GCM, ChaCha20-Poly1305), the
// "intermediate" list of Mozilla's server-side TLS guidelines; TLS 1.3's
// suites are all AEAD.
#ifndef BLOOMROUTE_TLS_POLICY_H_
#define BLOOMROUTE_TLS_POLICY_H_

#include <cstddef>

namespace bloomroute::tls {

// The TLS 1.2 cipher list (TLS 1.3 keeps OpenSSL's suites, all AEAD).
inline constexpr char kTls12Ciphers[] =
    "ECDHE-ECDSA-AES128-GCM-SHA256:ECDHE-RSA-AES128-GCM-SHA256:"
    "ECDHE-ECDSA-AES256-GCM-SHA384:ECDHE-RSA-AES256-GCM-SHA384:"
    "ECDHE-ECDSA-CHACHA20-POLY1305:ECDHE-RSA-CHACHA20-POLY1305";

// The largest revocation list a server reads: about 25,000 revoked
// certificates in PEM. The file's size bounds what PEM decoding allocates.
inline constexpr size_t kMaxCrlFileBytes = 1 << 20;

}  // namespace bloomroute::tls

#endif  // BLOOMROUTE_TLS_POLICY_H_
