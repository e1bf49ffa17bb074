// DcfCounterVector: m counters stored as a Dynamic Count Filter
// (Aguilar-Saborit, Trancoso, Muntés-Mulero, 2006), the design DDCF improves on
// (Yue, Zhao, Xu, 2017, ../shared/papers/002, section 2).
//
// A counter is an x-bit field of a base vector (the paper's CBFV) plus a y-bit
// field of ONE overflow vector (its OFV) holding the high bits:
//
//   value(i) = base(i) + ofv(i) * 2^x,          max = 2^(x+y) - 1.
//
// Incrementing a counter at the maximum rebuilds the OFV: a new vector of
// y + 1 bits per counter is allocated, every counter's overflow field is copied
// into it, and the old one is freed. When no counter uses the top overflow bit
// any more (every value < 2^(x+y-1)), a decrement rebuilds it the same way into
// y - 1 bits (none at y = 1). Each rebuild costs O(m) copying: the behaviour
// DDCF removes by adding and dropping one-bit planes instead. Both trigger at
// the same values (the growth at 2^(x+y), the shrink when the top bit empties),
// and this class keeps the population of the top bit the way DDCF keeps its
// planes' populations, so the shrink test is O(1) in both: the only difference
// measured is the copy.
//
// Same API and limits as DdcfCounterVector (m in [1, 2^32], x in [1, 16],
// x + y <= 32, values never wrap). Memory: ceil(m x / 64) + ceil(m y / 64)
// words of 8 bytes.
//
// Thread-safety: const methods may run concurrently; mutators need exclusive
// access. Movable, not copyable.
#ifndef BLOOMROUTE_LAB_DCF_COUNTER_VECTOR_H_
#define BLOOMROUTE_LAB_DCF_COUNTER_VECTOR_H_

#include <cstdint>

#include "common/statusor.h"
#include "lab/internal/packed_fields.h"

namespace bloomroute {

class DcfCounterVector {
 public:
  static constexpr uint64_t kMaxCounters = uint64_t{1} << 32;
  static constexpr uint32_t kMaxBaseBits = 16;
  static constexpr uint32_t kMaxValueBits = 32;

  // `counters` zeroed counters of `base_bits` base bits and no overflow vector.
  // InvalidArgument when either is out of the limits above.
  static StatusOr<DcfCounterVector> Create(uint64_t counters,
                                           uint32_t base_bits = 4);

  DcfCounterVector(DcfCounterVector&&) noexcept = default;
  DcfCounterVector& operator=(DcfCounterVector&&) noexcept = default;
  DcfCounterVector(const DcfCounterVector&) = delete;
  DcfCounterVector& operator=(const DcfCounterVector&) = delete;

  uint64_t size() const { return base_.size(); }
  uint32_t base_bits() const { return base_.width(); }       // x
  uint32_t overflow_bits() const { return overflow_bits_; }  // y
  uint32_t value_bits() const { return base_bits() + overflow_bits_; }
  uint64_t max_value() const { return (uint64_t{1} << value_bits()) - 1; }

  // Precondition: i < size().
  uint32_t Get(uint64_t i) const {
    uint32_t v = base_.Get(i);
    if (overflow_bits_ > 0) v |= overflow_.Get(i) << base_bits();
    return v;
  }
  bool IsNonZero(uint64_t i) const { return Get(i) != 0; }
  void Prefetch(uint64_t i) const { base_.Prefetch(i); }

  // Adds one to counter i, rebuilding the OFV with one more bit first when it
  // is at max_value(). InvalidArgument when i >= size() or the counter is at
  // 2^32 - 1; nothing changes then.
  [[nodiscard]] Status Increment(uint64_t i);
  // Subtracts one from counter i, then rebuilds the OFV with one bit less while
  // no counter uses its top bit. InvalidArgument when i >= size() or the
  // counter is zero; nothing changes then.
  [[nodiscard]] Status Decrement(uint64_t i);

  uint64_t nonzero_count() const { return nonzero_; }
  // OFV rebuilds so far (growths plus shrinks), each a full copy.
  uint64_t rebuilds() const { return rebuilds_; }
  // Exact storage: base vector plus overflow vector.
  uint64_t MemoryBytes() const {
    return base_.MemoryBytes() +
           (overflow_bits_ > 0 ? overflow_.MemoryBytes() : 0);
  }

 private:
  DcfCounterVector(uint64_t counters, uint32_t base_bits);

  void Write(uint64_t i, uint32_t from, uint32_t to);
  // Replaces the OFV by one of `bits` bits per counter, copying every field,
  // and recounts the population of the new top bit.
  void RebuildOverflow(uint32_t bits);

  internal::PackedFields base_;
  internal::PackedFields overflow_;  // valid when overflow_bits_ > 0
  uint32_t overflow_bits_ = 0;
  uint64_t top_bit_population_ = 0;  // counters with bit x+y-1 set (y > 0)
  uint64_t nonzero_ = 0;
  uint64_t rebuilds_ = 0;
};

}  // namespace bloomroute

#endif  // BLOOMROUTE_LAB_DCF_COUNTER_VECTOR_H_
