// DdcfCounterVector: m counters stored as a Dimension Dynamic Count Filter.
//
// After Yue, Zhao and Xu, "An improved Dynamic Count Filter realization method"
// (2017, ../shared/papers/002): each counter is an x-bit field of a packed base
// vector (the paper's CBFV) plus one bit in each of y one-bit planes (its BFVs)
// that hold the high bits, so counter i has the value
//
//   value(i) = base(i) + sum_{p < y} plane_p(i) * 2^(x + p),   max = 2^(x+y)
//   - 1.
//
// Incrementing a counter that is at the maximum adds one zeroed plane on top:
// the existing base and planes are not touched or copied (DCF instead rebuilds
// its whole overflow vector). When no counter has a bit in the top plane any
// more, i.e. every counter fits in one bit less, the top plane is dropped. Each
// plane keeps its population count, updated on the bits an increment or
// decrement flips, so the drop test is O(1) rather than a scan of m counters.
//
// Limits: 1 <= m <= kMaxCounters, 1 <= x <= kMaxBaseBits, x + y <=
// kMaxValueBits; a counter at 2^kMaxValueBits - 1 cannot be incremented
// (InvalidArgument).
//
// Memory: MemoryBytes() is the exact size of the counter storage: ceil(m*x/64)
// words of base plus y planes of ceil(m/64) words, 8 bytes each.
//
// Thread-safety: const methods may run concurrently; mutators need exclusive
// access. Movable, not copyable.
#ifndef BLOOMROUTE_INDEX_DDCF_COUNTER_VECTOR_H_
#define BLOOMROUTE_INDEX_DDCF_COUNTER_VECTOR_H_

#include <cassert>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "common/coding.h"
#include "common/status.h"
#include "common/statusor.h"

namespace bloomroute {

class DdcfCounterVector {
 public:
  static constexpr uint64_t kMaxCounters = uint64_t{1} << 32;
  static constexpr uint32_t kMaxBaseBits = 16;
  static constexpr uint32_t kMaxValueBits = 32;
  static constexpr uint32_t kDefaultBaseBits = 4;

  // `counters` zeroed counters of `base_bits` base bits each, and no planes.
  // InvalidArgument when either is out of the limits above.
  static StatusOr<DdcfCounterVector> Create(
      uint64_t counters, uint32_t base_bits = kDefaultBaseBits);

  DdcfCounterVector(DdcfCounterVector&&) noexcept = default;
  DdcfCounterVector& operator=(DdcfCounterVector&&) noexcept = default;
  DdcfCounterVector(const DdcfCounterVector&) = delete;
  DdcfCounterVector& operator=(const DdcfCounterVector&) = delete;

  uint64_t size() const { return size_; }
  uint32_t base_bits() const { return base_bits_; }  // x
  uint32_t plane_count() const {                     // y
    return static_cast<uint32_t>(planes_.size());
  }
  uint32_t value_bits() const { return base_bits_ + plane_count(); }
  // 2^(x+y) - 1: the largest value representable without adding a plane.
  uint64_t max_value() const { return (uint64_t{1} << value_bits()) - 1; }

  // Value of counter `i`. Precondition: i < size() (asserted in debug builds).
  uint32_t Get(uint64_t i) const;
  // Whether counter `i` is non-zero; the hot path of a filter query.
  // Precondition: i < size().
  bool IsNonZero(uint64_t i) const {
    assert(i < size_);
    if (BaseField(i) != 0) return true;
    for (const auto& plane : planes_) {
      if ((plane[i >> 6] >> (i & 63)) & 1) return true;
    }
    return false;
  }

  // Adds one to counter `i`, adding a plane first when it is at max_value().
  // InvalidArgument when i >= size() or the counter is at 2^kMaxValueBits - 1;
  // nothing changes then.
  [[nodiscard]] Status Increment(uint64_t i);
  // Subtracts one from counter `i` and drops top planes no counter uses.
  // InvalidArgument when i >= size() or the counter is zero (never wraps);
  // nothing changes then.
  [[nodiscard]] Status Decrement(uint64_t i);

  // Hints the CPU to load counter `i`'s base word; filters call it for all k
  // probes before updating any, so the k cache misses overlap.
  void Prefetch(uint64_t i) const {
    __builtin_prefetch(&base_[(i * base_bits_) >> 6], 1);
  }

  // Number of non-zero counters (maintained, O(1)).
  uint64_t nonzero_count() const { return nonzero_; }
  // Number of counters whose bit in plane `p` is set. Precondition: p < y.
  uint64_t plane_population(uint32_t p) const { return plane_population_[p]; }
  // Sum of all counter values (O(m); for validation and tests).
  uint64_t Sum() const;

  uint64_t BaseBytes() const { return base_.size() * sizeof(uint64_t); }
  uint64_t PlaneBytes() const { return PlaneWords() * sizeof(uint64_t); }
  // Exact counter storage: BaseBytes() + plane_count() * PlaneBytes().
  uint64_t MemoryBytes() const {
    return BaseBytes() + plane_count() * PlaneBytes();
  }

  // Body encoding (no frame): m, x, y, base words, plane words. Used by the
  // filters that embed counter vectors.
  void EncodeTo(std::string* dst) const;
  // Decodes a body written by EncodeTo, validating every size before allocating
  // and every invariant (padding bits zero, top plane non-empty).
  // Corruption on any violation or truncation.
  static StatusOr<DdcfCounterVector> DecodeFrom(ByteReader* in);

  // A self-contained, versioned and checksummed encoding.
  std::string Serialize() const;
  // Corruption for anything Serialize did not produce (flipped or missing
  // bytes).
  static StatusOr<DdcfCounterVector> Deserialize(std::string_view bytes);

 private:
  DdcfCounterVector(uint64_t counters, uint32_t base_bits);

  uint64_t PlaneWords() const { return (size_ + 63) / 64; }

  uint32_t BaseField(uint64_t i) const {
    const uint64_t bit = i * base_bits_;
    const uint64_t word = bit >> 6;
    const uint32_t offset = static_cast<uint32_t>(bit & 63);
    uint64_t v = base_[word] >> offset;
    // A field straddles two words only when x does not divide 64.
    if (offset + base_bits_ > 64) v |= base_[word + 1] << (64 - offset);
    return static_cast<uint32_t>(v & base_mask_);
  }
  void SetBaseField(uint64_t i, uint32_t value);
  // Writes `to` into counter `i`, which holds `from`, keeping plane
  // populations and the non-zero count current.
  void Write(uint64_t i, uint32_t from, uint32_t to);
  void DropUnusedTopPlanes();

  uint64_t size_;
  uint32_t base_bits_;
  uint64_t base_mask_;
  uint64_t nonzero_ = 0;
  std::vector<uint64_t> base_;
  std::vector<std::vector<uint64_t>> planes_;  // planes_[p] holds bit x+p
  std::vector<uint64_t> plane_population_;     // set bits per plane
};

}  // namespace bloomroute

#endif  // BLOOMROUTE_INDEX_DDCF_COUNTER_VECTOR_H_
