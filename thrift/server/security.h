// Security of bloomroute's Thrift ports: TLS, who a peer is, and what its
// role lets it call.
//
// TLS. A server given TlsOptions serves only TLS (1.2 or later, forward-secret
// AEAD ciphers; thrift/internal/tls.h) and asks every client for a
// certificate; a client given TlsOptions trusts only servers whose
// certificate chains to options.ca_file and names the host it dialled (a
// subjectAltName DNS name or IP address).
//
// Identities. Every certificate of a cluster is signed by the cluster's CA
// (`bloomroute cert`, tools/cert_command.h) and says who it is in its
// subject:
//   O  = kCertOrganization ("bloomroute")
//   OU = the role: "node" (routers and region servers), or a client role,
//        "read", "write" or "admin"
//   CN = the user's name ("node" for node certificates)
// A client of the router may instead authenticate with a bearer token: the
// first call on its TLS connection is RouterService.authenticate(token), and
// the router looks the token up in its token file (kTokenFile format below).
//
// Roles. Region servers accept RegionService calls only from role "node"
// (a router of the cluster). The router accepts, from clients:
//   read   get, scans, index lookups, stats and cluster status
//   write  read + puts, deletes, bulk loads
//   admin  write + DDL (create/delete table), verify, cluster operations
// A node certificate is not a client role: the router refuses it on its
// client calls (thrift/server/access_control.h has the table).
// A call outside the caller's role is refused before it is decoded, with
// PermissionDenied naming the role needed; nothing of it happens.
//
// Without TLS (loopback, or --insecure off loopback) nothing is checked:
// every caller may call everything, as before this file existed.
//
// Thread-safety: values and pure functions.
#ifndef BLOOMROUTE_THRIFT_SERVER_SECURITY_H_
#define BLOOMROUTE_THRIFT_SERVER_SECURITY_H_

#include <cstdint>
#include <string>
#include <string_view>

#include "common/status.h"
#include "common/statusor.h"
#include "tls/policy.h"

namespace bloomroute {

// The TLS files of one party (server or client), all PEM.
struct TlsOptions {
  std::string ca_file;  // the cluster's CA certificate: peers must chain to it
  std::string cert_file;  // this party's certificate (signed by that CA)
  std::string key_file;   // its private key
  // Servers only, optional: the CA's certificate revocation list (PEM, at
  // most kMaxCrlFileBytes; `bloomroute cert revoke` writes it). A peer
  // certificate it lists fails the handshake. Read at start and again on
  // SIGHUP (ThriftServer::ReloadCrl).
  std::string crl_file = {};  // braces: aggregate inits may omit it

  // TLS is on when a CA is given.
  bool enabled() const { return !ca_file.empty(); }

  // For a server: all three files or none. InvalidArgument naming the option
  // (--tls-ca, --tls-cert, --tls-key) that is missing.
  Status ValidateForServer() const;
  // For a client: none, or a CA with an optional certificate and key (both or
  // neither). InvalidArgument naming the option that is missing.
  Status ValidateForClient() const;
};

// The largest revocation list a server reads (tls/policy.h).
using tls::kMaxCrlFileBytes;

// Ordered for the client roles: kRead < kWrite < kAdmin. The cluster's own
// machines are apart: kRouter and kRegionServer, each with a certificate
// of its kind, and kNode, the one certificate both kinds shared before
// (still accepted where a router is, so that a cluster keeps working until
// its certificates are renewed).
enum class Role : uint8_t {
  kNone = 0,
  kRead,
  kWrite,
  kAdmin,
  kNode,
  kRouter,
  kRegionServer
};

// "none", "read", "write", "admin", "node", "router", "regionserver".
const char* RoleName(Role role);
// The inverse of RoleName but for "none"; InvalidArgument naming the valid
// roles otherwise.
StatusOr<Role> ParseRole(std::string_view name);
// Whether `role` is one of the cluster's machines' (kNode, kRouter,
// kRegionServer), never a client's.
bool IsNodeRole(Role role);
// Whether a caller with role `have` may make a call that needs `need`:
// client roles by their order; a call that needs kNode (every RegionService
// call) by kRouter or kNode only, so that a region server's certificate
// cannot call another region server as if it were the router; a machine's
// role no client call; kNone never.
bool RoleAllows(Role have, Role need);

// Who is calling: from the peer's certificate, or from a bearer token.
struct Identity {
  std::string user;         // the certificate's CN, or the token's user
  Role role = Role::kNone;  // kNone: not authenticated
  // TokenHash of the token it came from; empty for a certificate. A token
  // removed from the token file (reloaded on SIGHUP) ends the identities
  // it gave at their next call.
  std::string token_hash = {};  // braces: aggregate inits may omit it
};

inline constexpr char kCertOrganization[] = "bloomroute";
inline constexpr char kNodeCommonName[] = "node";

// The router's token file (--token-file). One token per line:
//   <sha256 of the token, 64 lowercase hex digits> <role> <user>
// Blank lines and lines starting with '#' are ignored. The file holds hashes
// only, never a token. A token is kTokenBytes random bytes as lowercase hex
// (what `bloomroute cert create-token` makes); a client gives it in a file
// of its own (--token-file), whose first line is the token.
inline constexpr size_t kTokenBytes = 32;
inline constexpr size_t kMaxTokenFileBytes = 1 << 20;
// Lowercase hex of SHA-256(token).
std::string TokenHash(std::string_view token);

// True for 127.0.0.0/8, ::1 and "localhost": the hosts a server may listen
// on without TLS and without --insecure.
bool IsLoopbackHost(std::string_view host);

}  // namespace bloomroute

#endif  // BLOOMROUTE_THRIFT_SERVER_SECURITY_H_
