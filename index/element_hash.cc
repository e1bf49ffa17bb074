#include "index/element_hash.h"

#include <xxhash.h>

#include <cinttypes>
#include <cstdio>

#include "common/coding.h"

namespace bloomroute {

namespace {

ElementHash FromXxh(const XXH128_hash_t& h) {
  return ElementHash{h.low64, h.high64};
}

}  // namespace

ElementHash HashElement(uint64_t table_id, uint64_t column_id,
                        std::string_view value) {
  // The encoding is built on the stack; short values (the common case: codes,
  // names) are hashed in one call, long ones are copied once into a heap
  // buffer.
  constexpr size_t kHeader = 24;
  constexpr size_t kBuffer = 256;
  char buf[kBuffer];
  EncodeFixed64(buf, table_id);
  EncodeFixed64(buf + 8, column_id);
  EncodeFixed64(buf + 16, value.size());
  if (value.size() <= kBuffer - kHeader) {
    if (!value.empty()) std::memcpy(buf + kHeader, value.data(), value.size());
    return FromXxh(
        XXH3_128bits_withSeed(buf, kHeader + value.size(), kElementHashSeed));
  }
  std::string encoded(buf, kHeader);
  encoded.append(value.data(), value.size());
  return FromXxh(
      XXH3_128bits_withSeed(encoded.data(), encoded.size(), kElementHashSeed));
}

ElementHash HashBytes(std::string_view bytes) {
  return FromXxh(
      XXH3_128bits_withSeed(bytes.data(), bytes.size(), kElementHashSeed));
}

std::string ToHex(const ElementHash& h) {
  char buf[40];
  std::snprintf(buf, sizeof(buf), "%016" PRIx64 ":%016" PRIx64, h.low, h.high);
  return buf;
}

}  // namespace bloomroute
