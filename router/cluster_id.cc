#include "router/cluster_id.h"

#include <cctype>

#include "router/page_token.h"

namespace bloomroute::router {
namespace {

// Offsets of the four dashes of "8-4-4-4-12".
bool IsDash(size_t i) { return i == 8 || i == 13 || i == 18 || i == 23; }

}  // namespace

StatusOr<std::string> NewClusterId() {
  // The page token key's random bytes (OpenSSL's RAND_bytes): one source of
  // randomness for the router, and only page_token.cc includes OpenSSL.
  BLOOMROUTE_ASSIGN_OR_RETURN(std::string random, NewPageTokenKey());
  unsigned char b[16];
  for (size_t i = 0; i < 16; ++i) b[i] = static_cast<unsigned char>(random[i]);
  b[6] = static_cast<unsigned char>((b[6] & 0x0f) | 0x40);  // version 4
  b[8] = static_cast<unsigned char>((b[8] & 0x3f) | 0x80);  // RFC 4122
  static constexpr char kHex[] = "0123456789abcdef";
  std::string id;
  id.reserve(kClusterIdBytes);
  for (size_t i = 0; i < 16; ++i) {
    if (IsDash(id.size())) id += '-';
    id += kHex[b[i] >> 4];
    id += kHex[b[i] & 0x0f];
  }
  return id;
}

bool IsClusterId(std::string_view id) {
  if (id.size() != kClusterIdBytes) return false;
  for (size_t i = 0; i < id.size(); ++i) {
    const bool ok = IsDash(i)
                        ? id[i] == '-'
                        : std::isxdigit(static_cast<unsigned char>(id[i])) != 0;
    if (!ok) return false;
  }
  return true;
}

Status CheckClusterId(std::string_view id) {
  if (IsClusterId(id)) return Status::OK();
  return Status::InvalidArgument("a cluster id is a UUID string, not '" +
                                 std::string(id.substr(0, 64)) + "'");
}

}  // namespace bloomroute::router
