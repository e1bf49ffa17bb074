#include "thrift/server/security.h"

#include <arpa/inet.h>
#include <openssl/evp.h>

#include <cstdio>

namespace bloomroute {

Status TlsOptions::ValidateForServer() const {
  if (ca_file.empty() && cert_file.empty() && key_file.empty()) {
    if (!crl_file.empty()) {
      return Status::InvalidArgument(
          "--tls-crl needs TLS (--tls-ca, --tls-cert, --tls-key)");
    }
    return Status::OK();
  }
  if (ca_file.empty()) {
    return Status::InvalidArgument("TLS needs --tls-ca (the cluster's CA)");
  }
  if (cert_file.empty()) {
    return Status::InvalidArgument(
        "TLS needs --tls-cert (this server's "
        "certificate)");
  }
  if (key_file.empty()) {
    return Status::InvalidArgument("TLS needs --tls-key (this server's key)");
  }
  return Status::OK();
}

Status TlsOptions::ValidateForClient() const {
  if (ca_file.empty() && (!cert_file.empty() || !key_file.empty())) {
    return Status::InvalidArgument(
        "--tls-cert and --tls-key need --tls-ca (the cluster's CA)");
  }
  if (cert_file.empty() != key_file.empty()) {
    return Status::InvalidArgument(cert_file.empty()
                                       ? "--tls-key needs --tls-cert"
                                       : "--tls-cert needs --tls-key");
  }
  return Status::OK();
}

const char* RoleName(Role role) {
  switch (role) {
    case Role::kNone:
      return "none";
    case Role::kRead:
      return "read";
    case Role::kWrite:
      return "write";
    case Role::kAdmin:
      return "admin";
    case Role::kNode:
      return "node";
    case Role::kRouter:
      return "router";
    case Role::kRegionServer:
      return "regionserver";
  }
  return "none";
}

bool IsNodeRole(Role role) {
  return role == Role::kNode || role == Role::kRouter ||
         role == Role::kRegionServer;
}

StatusOr<Role> ParseRole(std::string_view name) {
  for (Role role : {Role::kRead, Role::kWrite, Role::kAdmin, Role::kNode,
                    Role::kRouter, Role::kRegionServer}) {
    if (name == RoleName(role)) return role;
  }
  return Status::InvalidArgument(
      "unknown role \"" + std::string(name) +
      "\" (roles: read, write, admin, node, router, regionserver)");
}

bool RoleAllows(Role have, Role need) {
  if (have == Role::kNone || need == Role::kNone) return false;
  if (need == Role::kNode) return have == Role::kNode || have == Role::kRouter;
  if (IsNodeRole(have) || IsNodeRole(need)) return false;
  return static_cast<uint8_t>(have) >= static_cast<uint8_t>(need);
}

std::string TokenHash(std::string_view token) {
  unsigned char digest[EVP_MAX_MD_SIZE];
  unsigned int digest_bytes = 0;
  if (EVP_Digest(token.data(), token.size(), digest, &digest_bytes,
                 EVP_sha256(), nullptr) != 1) {
    return std::string();  // matches no line of a token file
  }
  std::string hex;
  hex.reserve(2 * digest_bytes);
  for (unsigned int i = 0; i < digest_bytes; ++i) {
    char byte[3];
    std::snprintf(byte, sizeof(byte), "%02x", digest[i]);
    hex += byte;
  }
  return hex;
}

bool IsLoopbackHost(std::string_view host) {
  if (host == "localhost") return true;
  const std::string h(host);
  in_addr v4{};
  if (inet_pton(AF_INET, h.c_str(), &v4) == 1) {
    return (ntohl(v4.s_addr) >> 24) == 127;
  }
  in6_addr v6{};
  if (inet_pton(AF_INET6, h.c_str(), &v6) == 1) {
    return IN6_IS_ADDR_LOOPBACK(&v6);
  }
  return false;
}

}  // namespace bloomroute
