// Certificates, keys and tokens of a bloomroute cluster: the library behind
// `bloomroute cert` (tools/cert_command.h) and `bloomroute local --secure`.
//
// One directory (the certs directory) holds a cluster's files:
//   ca.crt                  the cluster's CA: O=bloomroute, CN=bloomroute CA;
//                           basicConstraints critical CA:TRUE, pathlen 0
//   ca.key                  its key (default place; CertOptions::ca_key puts
//                           it elsewhere, so it need not sit beside the rest)
//   router.crt, router.key  routers' certificate: O=bloomroute, OU=router,
//                           CN=router, a subjectAltName per host, EKU
//                           serverAuth + clientAuth
//   regionserver.crt/.key   region servers': OU=regionserver, serverAuth
//   node.crt, node.key      the certificate both kinds shared before
//                           (OU=node, CN=node); still accepted
//   client.<user>.crt/.key  a client's: O=bloomroute, OU=<role>, CN=<user>,
//                           EKU clientAuth (thrift/server/security.h:
//                           identities)
//   token.<user>            a bearer token, one line (the client's
//                           --token-file)
//   tokens                  the router's --token-file: "<hash> <role> <user>"
//   crl.pem                 the CA's revocation list (servers' --tls-crl)
// Keys are P-256 EC keys; certificates are X.509 v3 signed with SHA-256,
// with 159-bit random serial numbers.
//
// Files. Keys and token files are created with mode 0600 (never readable by
// others, not even for a moment), certificates with 0644. A file that exists
// is never replaced unless CertOptions::overwrite is set; then it is replaced
// atomically (written beside it and renamed). A call checks every file it
// will write before writing any. Errors name the file. Nothing here prints:
// key and token bytes only go to their files.
//
// Errors: InvalidArgument for a bad name, host, role or validity (naming it);
// IOError for a file that exists (naming it and --overwrite) or cannot be
// read or written; Corruption for a file that is not what it should be (a
// CA key that does not match ca.crt, a PEM file that does not parse, one
// over kMaxPemFileBytes).
//
// Example:
//   CertOptions options;
//   options.certs_dir = "certs";
//   options.validity = CertValidity::For(kDefaultCaLifetime);
//   BLOOMROUTE_ASSIGN_OR_RETURN(std::vector<std::string> written,
//                               CreateCa(options));
//   options.validity = CertValidity::For(kDefaultCertLifetime);
//   BLOOMROUTE_ASSIGN_OR_RETURN(written,
//                               CreateNodeCert(options, {"10.0.0.5"}));
//
// Thread-safety: functions of values; two calls writing the same directory
// at once may both fail, never interleave a file.
#ifndef BLOOMROUTE_TOOLS_CERTS_H_
#define BLOOMROUTE_TOOLS_CERTS_H_

#include <chrono>
#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

#include "common/status.h"
#include "common/statusor.h"
#include "thrift/server/security.h"

namespace bloomroute {

inline constexpr char kCaCertFile[] = "ca.crt";
inline constexpr char kCaKeyFile[] = "ca.key";
inline constexpr char kNodeCertFile[] = "node.crt";
inline constexpr char kNodeKeyFile[] = "node.key";
inline constexpr char kTokensFile[] = "tokens";
inline constexpr char kCrlFile[] = "crl.pem";
inline constexpr char kCaCommonName[] = "bloomroute CA";

// The largest certificate or key file read, in bytes (a P-256 key is about
// 250 bytes, a certificate about 700): anything larger is not ours.
inline constexpr size_t kMaxPemFileBytes = 64 << 10;
// The longest user name, in bytes; it is a certificate's CN and part of
// file names, so only [A-Za-z0-9._-] (and not "." or "..").
inline constexpr size_t kMaxUserBytes = 64;

using CertClock = std::chrono::system_clock;
inline constexpr std::chrono::hours kDefaultCaLifetime{24 * 366 * 10};
inline constexpr std::chrono::hours kDefaultCertLifetime{24 * 366 * 5};

// When a certificate is valid: [not_before, not_after].
struct CertValidity {
  CertClock::time_point not_before;
  CertClock::time_point not_after;

  // From an hour ago (so that a peer whose clock is a little behind accepts
  // it) until `lifetime` from now.
  static CertValidity For(std::chrono::hours lifetime);
  // InvalidArgument unless not_before < not_after.
  Status Validate() const;
};

struct CertOptions {
  std::string certs_dir;  // created (mode 0700, with parents) when missing
  // The CA's key; empty for certs_dir/ca.key.
  std::string ca_key;
  CertValidity validity = CertValidity::For(kDefaultCertLifetime);
  bool overwrite = false;  // replace existing files

  std::string CaKeyPath() const;
  std::string CaCertPath() const;
};

// "client.<user>.crt", "client.<user>.key", "token.<user>".
std::string ClientCertFile(std::string_view user);
std::string ClientKeyFile(std::string_view user);
std::string TokenFile(std::string_view user);

// InvalidArgument naming the rule broken: empty, longer than kMaxUserBytes,
// a character outside [A-Za-z0-9._-], or "." / "..".
Status ValidateUserName(std::string_view user);
// ParseRole for the client roles; InvalidArgument for "node" (a node
// certificate is made by CreateNodeCert) and for unknown names.
StatusOr<Role> ParseClientRole(std::string_view name);
// InvalidArgument unless `host` is an IPv4 or IPv6 address (IPv6 may be in
// brackets) or a DNS name: dot-separated labels of [A-Za-z0-9-], 1 to 63
// bytes, not starting or ending with '-', at most 253 bytes in all.
Status ValidateHost(std::string_view host);

// Makes a new CA: a key at options.CaKeyPath() and ca.crt in certs_dir.
// Returns the paths written (certificate first).
StatusOr<std::vector<std::string>> CreateCa(const CertOptions& options);
// A machine's certificate and key, signed by the CA (ca.crt and the CA key,
// which must match), with a subjectAltName per host (an IP address when it
// parses as one, a DNS name otherwise), of `kind`: Role::kRouter
// (router.crt, router.key; OU=router), Role::kRegionServer (regionserver.*;
// OU=regionserver, serverAuth only) or Role::kNode (node.*; OU=node, the
// certificate both kinds shared before, which region servers still accept
// from a router). InvalidArgument when hosts is empty or one is not valid
// (ValidateHost), or for a client kind.
StatusOr<std::vector<std::string>> CreateNodeCert(
    const CertOptions& options, const std::vector<std::string>& hosts,
    Role kind = Role::kNode);
// The files of a machine's certificate of `kind`: "node.crt",
// "router.crt", "regionserver.crt" and their ".key".
std::string NodeCertFile(Role kind);
std::string NodeKeyFile(Role kind);
// client.<user>.crt and .key, signed by the CA, for a client role (read,
// write or admin; InvalidArgument for kNode and kNone).
StatusOr<std::vector<std::string>> CreateClientCert(const CertOptions& options,
                                                    std::string_view user,
                                                    Role role);
// A token of kTokenBytes random bytes as lowercase hex, written to
// token.<user> (0600, one line), and "<TokenHash> <role> <user>" added to
// certs_dir/tokens (0600; replaced atomically). With options.overwrite an
// existing token.<user> is replaced and that user's earlier lines in tokens
// are removed (the old token stops working); without it an existing
// token.<user> is an IOError. IOError naming kMaxTokenFileBytes when tokens
// would grow over it (the router reads no more). Needs no CA; the validity
// is not used. Returns the paths written (token file first).
StatusOr<std::vector<std::string>> CreateToken(const CertOptions& options,
                                               std::string_view user,
                                               Role role);

// Revokes the certificate in `cert_file` (a path; a bare name is looked up
// in certs_dir, e.g. "client.alice.crt"): certs_dir/crl.pem, the CA's
// revocation list, gets its serial number, and is signed again by the CA
// (made when missing; always replaced atomically, mode 0644). The list is
// valid from now until options.validity.not_after: servers refuse every
// peer once their list has expired, so renew it (revoke again, or revoke
// nothing with an empty `cert_file`) before then. InvalidArgument when the
// CA did not sign the certificate, or for the CA's own. Revoking a
// certificate twice is not an error. Servers read the list at start and on
// SIGHUP (--tls-crl). Returns the path written.
StatusOr<std::vector<std::string>> RevokeCert(const CertOptions& options,
                                              const std::string& cert_file);

// One certificate file of a certs directory, as `bloomroute cert list`
// shows it.
struct CertInfo {
  std::string file;     // the file's name in the directory
  std::string error;    // non-empty: it could not be read; the rest is empty
  std::string subject;  // e.g. "O=bloomroute, OU=node, CN=node"
  std::string role;     // the OU ("node", "read", ...); empty when none
  std::vector<std::string> hosts;  // subjectAltName entries, "DNS:x", "IP:y"
  CertClock::time_point not_after;
  bool expired = false;
  // Whether the directory's ca.crt signed it (a CA also signed itself);
  // false when there is no readable ca.crt.
  bool signed_by_ca = false;
};
// Every *.crt file of certs_dir, by name. NotFound when the directory does
// not exist; a file that does not parse is listed with its error.
StatusOr<std::vector<CertInfo>> ListCerts(const std::string& certs_dir);

// OK when cert_file is valid now, chains to ca_file, and key_file is its
// key; otherwise the reason, naming the file (Corruption, or IOError when
// one cannot be read).
Status CheckCertAndKey(const std::string& ca_file, const std::string& cert_file,
                       const std::string& key_file);

// The files `bloomroute local --secure` uses.
struct LocalCerts {
  static constexpr char kUser[] = "root";  // its admin client

  TlsOptions node;                   // ca.crt, node.crt, node.key
  TlsOptions client;                 // ca.crt, client.root.crt, client.root.key
  std::vector<std::string> written;  // what this call made (empty: reused)
};
// Makes, in certs_dir, a CA (its key beside it), a node certificate for
// 127.0.0.1, localhost and ::1, and an admin client certificate for "root";
// keeps those already there that CheckCertAndKey accepts, and remakes a node
// or client certificate that it does not (e.g. expired). A CA that exists but
// is not valid, or whose key is missing, is an error naming it: certificates
// it signed may be in use elsewhere, so it is never replaced here.
StatusOr<LocalCerts> EnsureLocalCerts(const std::string& certs_dir);

}  // namespace bloomroute

#endif  // BLOOMROUTE_TOOLS_CERTS_H_
