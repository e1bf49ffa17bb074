// Element hashing: the one hash from which every filter probe is derived.
//
// An element of the global index is a distinct indexed value on a server, named
// by (table id, column id, value bytes). It is encoded unambiguously as
//
//   table_id : fixed64 LE | column_id : fixed64 LE | value length : fixed64 LE
//   | value
//
// and hashed once with XXH3-128 and the fixed seed kElementHashSeed. The
// 128-bit result is persisted (op logs, distinct-value records) and sent
// between processes, so the encoding and the seed are part of the on-disk
// format: changing either invalidates every stored filter.
//
// Probes. Every counter a filter touches for an element comes from this hash by
// double hashing (Kirsch & Mitzenmacher, "Less hashing, same performance",
// 2006): probe number t is g_t = low + t * (high | 1) mod 2^64, reduced to a
// slice of length m by multiply-shift, floor(g_t * m / 2^64) (Lemire's
// fastrange), which is unbiased to within 1/2^64 per slot and avoids a
// division. Probe numbers are global across the stages of a scalable filter
// (stage i uses the numbers after those of stages 0..i-1), so different stages
// never reuse the same probe stream.
//
// Thread-safety: pure functions.
#ifndef BLOOMROUTE_INDEX_ELEMENT_HASH_H_
#define BLOOMROUTE_INDEX_ELEMENT_HASH_H_

#include <cstdint>
#include <string>
#include <string_view>

namespace bloomroute {

// The fixed XXH3 seed for element hashes (part of the persisted format).
inline constexpr uint64_t kElementHashSeed = 0x62726f75'7465312eULL;

// A 128-bit element hash. `low` and `high` are the two 64-bit halves of
// XXH3-128.
struct ElementHash {
  uint64_t low = 0;
  uint64_t high = 0;

  friend bool operator==(const ElementHash& a, const ElementHash& b) {
    return a.low == b.low && a.high == b.high;
  }
  friend bool operator!=(const ElementHash& a, const ElementHash& b) {
    return !(a == b);
  }
};

// Hashes the element (table_id, column_id, value). Deterministic across hosts
// and runs. Any byte string is a valid value, including an empty one.
ElementHash HashElement(uint64_t table_id, uint64_t column_id,
                        std::string_view value);

// Hashes arbitrary bytes with the element seed. For filters used outside the
// (table, column, value) model: tests, benchmarks and the filter lab.
ElementHash HashBytes(std::string_view bytes);

// The slot of probe number `probe` in a slice of `slice_length` slots, in
// [0, slice_length). See the header comment for the formula.
inline uint64_t ProbePosition(const ElementHash& h, uint32_t probe,
                              uint64_t slice_length) {
  const uint64_t g = h.low + static_cast<uint64_t>(probe) * (h.high | 1);
  return static_cast<uint64_t>(
      (static_cast<unsigned __int128>(g) * slice_length) >> 64);
}

// "low:high" in hexadecimal, for logs and error messages.
std::string ToHex(const ElementHash& h);

}  // namespace bloomroute

#endif  // BLOOMROUTE_INDEX_ELEMENT_HASH_H_
