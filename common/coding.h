// Fixed-width little-endian encoding, and a bounds-checked reader for decoding.
//
// Everything bloomroute persists or sends is encoded with these helpers so that
// the byte layout does not depend on the host. ByteReader never reads past the
// end of its input: every Read* returns Status::Corruption on truncation and
// leaves the output untouched, so decoders can be written as a straight
// sequence of reads.
//
//   std::string buf;
//   PutFixed64(&buf, m);
//   ByteReader in(buf);
//   uint64_t m2;
//   BLOOMROUTE_RETURN_IF_ERROR(in.ReadFixed64(&m2, "slice length"));
//
// Thread-safety: free functions are reentrant; a ByteReader is not shared.
#ifndef BLOOMROUTE_COMMON_CODING_H_
#define BLOOMROUTE_COMMON_CODING_H_

#include <cstdint>
#include <cstring>
#include <string>
#include <string_view>

#include "common/status.h"

namespace bloomroute {

inline void PutFixed8(std::string* dst, uint8_t v) {
  dst->push_back(static_cast<char>(v));
}

inline void EncodeFixed32(char* dst, uint32_t v) {
  for (int i = 0; i < 4; ++i) dst[i] = static_cast<char>(v >> (8 * i));
}

inline void EncodeFixed64(char* dst, uint64_t v) {
  for (int i = 0; i < 8; ++i) dst[i] = static_cast<char>(v >> (8 * i));
}

inline void PutFixed32(std::string* dst, uint32_t v) {
  char buf[4];
  EncodeFixed32(buf, v);
  dst->append(buf, sizeof(buf));
}

inline void PutFixed64(std::string* dst, uint64_t v) {
  char buf[8];
  EncodeFixed64(buf, v);
  dst->append(buf, sizeof(buf));
}

// IEEE-754 binary64, stored as its bit pattern.
inline void PutDouble(std::string* dst, double v) {
  uint64_t bits;
  std::memcpy(&bits, &v, sizeof(bits));
  PutFixed64(dst, bits);
}

// A 32-bit length followed by the bytes. Precondition: v.size() < 2^32.
inline void PutLengthPrefixed(std::string* dst, std::string_view v) {
  PutFixed32(dst, static_cast<uint32_t>(v.size()));
  dst->append(v.data(), v.size());
}

// Big-endian integers, for keys whose byte order must follow numeric order.
inline void PutBigEndian32(std::string* dst, uint32_t v) {
  for (int shift = 24; shift >= 0; shift -= 8) {
    dst->push_back(static_cast<char>(v >> shift));
  }
}
inline void PutBigEndian64(std::string* dst, uint64_t v) {
  for (int shift = 56; shift >= 0; shift -= 8) {
    dst->push_back(static_cast<char>(v >> shift));
  }
}
inline uint64_t DecodeBigEndian(const char* p, int bytes) {
  uint64_t v = 0;
  for (int i = 0; i < bytes; ++i) v = (v << 8) | static_cast<uint8_t>(p[i]);
  return v;
}

inline uint32_t DecodeFixed32(const char* p) {
  uint32_t v = 0;
  for (int i = 0; i < 4; ++i) {
    v |= static_cast<uint32_t>(static_cast<uint8_t>(p[i])) << (8 * i);
  }
  return v;
}

inline uint64_t DecodeFixed64(const char* p) {
  uint64_t v = 0;
  for (int i = 0; i < 8; ++i) {
    v |= static_cast<uint64_t>(static_cast<uint8_t>(p[i])) << (8 * i);
  }
  return v;
}

// Reads fixed-width fields from a byte range it does not own. Each Read* names
// the field in its error message ("truncated: slice length") so that corruption
// reports say what was being read.
class ByteReader {
 public:
  explicit ByteReader(std::string_view input) : input_(input) {}

  size_t remaining() const { return input_.size(); }
  bool empty() const { return input_.empty(); }

  [[nodiscard]] Status ReadFixed8(uint8_t* v, const char* what);
  [[nodiscard]] Status ReadFixed32(uint32_t* v, const char* what);
  [[nodiscard]] Status ReadFixed64(uint64_t* v, const char* what);
  [[nodiscard]] Status ReadDouble(double* v, const char* what);
  // Points `out` at the next `n` bytes (no copy; valid while the input is).
  [[nodiscard]] Status ReadBytes(size_t n, std::string_view* out,
                                 const char* what);
  // Reads what PutLengthPrefixed wrote; the length is checked against the
  // remaining input before anything is read.
  [[nodiscard]] Status ReadLengthPrefixed(std::string_view* out,
                                          const char* what);

 private:
  Status Truncated(const char* what) const;

  std::string_view input_;
};

}  // namespace bloomroute

#endif  // BLOOMROUTE_COMMON_CODING_H_
