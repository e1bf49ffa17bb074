// CountingBloomFilter: the standard counting Bloom filter (Fan et al., Summary
// Cache, 2000): m fixed-width counters (4 bits by default) and k probes over
// all of them; insert increments the k counters, remove decrements them, an
// element is reported present when all k are non-zero.
//
// Counters saturate. An increment of a counter at 2^b - 1 is lost and counted
// (overflow_events()). From the first lost increment on, a counter at its
// maximum stays there for good, because its true value is no longer known: a
// remove leaves it alone (counted in stuck_decrements()). Before any loss,
// every counter is exact, so a filter that never overflows (a DCBF member)
// removes exactly. That keeps the no-false-negative guarantee
// at the price of a counter that can never return to zero: the problem DCF and
// DDCF (dcf_counter_vector.h, ddcf_counter_vector.h) solve by growing instead.
//
// Overflow odds. With n elements each counter is incremented Binomial(nk, 1/m)
// times, ~ Poisson(lambda = nk/m); at fill 1/2, lambda = ln 2 and
// P(counter >= 16) ~ 7e-17 for b = 4 (theory.h, PoissonTailAtLeast).
//
// Thread-safety: const methods may run concurrently; mutators need exclusive
// access. Movable, not copyable.
#ifndef BLOOMROUTE_LAB_COUNTING_BLOOM_FILTER_H_
#define BLOOMROUTE_LAB_COUNTING_BLOOM_FILTER_H_

#include <cstdint>

#include "common/statusor.h"
#include "lab/internal/packed_fields.h"
#include "lab/internal/probes.h"
#include "lab/membership_filter.h"

namespace bloomroute {

class CountingBloomFilter final : public MembershipFilter {
 public:
  static constexpr uint32_t kMaxCounterBits = 16;
  static constexpr uint32_t kDefaultCounterBits = 4;

  // m zeroed counters of b bits and k probes. InvalidArgument when m is
  // outside [1, 2^32], k outside [1, 64] or b outside [1, 16].
  static StatusOr<CountingBloomFilter> Create(
      uint64_t counters, uint32_t hashes,
      uint32_t counter_bits = kDefaultCounterBits);

  CountingBloomFilter(CountingBloomFilter&&) noexcept = default;
  CountingBloomFilter& operator=(CountingBloomFilter&&) noexcept = default;

  const char* name() const override { return "CBF"; }
  // Never fails; increments of saturated counters are counted and lost.
  [[nodiscard]] Status Insert(const ElementHash& h) override;
  bool Contains(const ElementHash& h) const override {
    for (uint32_t j = 0; j < hashes_; ++j) {
      if (counters_.Get(ProbePosition(h, j, counters_.size())) == 0) {
        return false;
      }
    }
    return true;
  }
  bool SupportsRemove() const override { return true; }
  // InvalidArgument (nothing changes) when a probed counter is too small for
  // the decrements the element needs; saturated counters are left alone.
  [[nodiscard]] Status Remove(const ElementHash& h) override;
  uint64_t MemoryBytes() const override { return counters_.MemoryBytes(); }
  FilterStats Stats() const override;

  // True if inserting `h` would leave every counter below saturation, i.e.
  // lose nothing (counts repeated probes). DCBF's placement test.
  bool FitsWithoutSaturating(const ElementHash& h) const;

  uint64_t counter_count() const { return counters_.size(); }
  uint32_t hash_count() const { return hashes_; }
  uint32_t counter_bits() const { return counters_.width(); }
  uint32_t max_value() const { return counters_.max_value(); }
  // Value of counter i. Precondition: i < counter_count().
  uint32_t Get(uint64_t i) const { return counters_.Get(i); }
  uint64_t nonzero_count() const { return nonzero_; }
  uint64_t overflow_events() const { return overflow_events_; }
  uint64_t stuck_decrements() const { return stuck_decrements_; }
  // (non-zero counters / m)^k.
  double EstimatedFpr() const;

 private:
  CountingBloomFilter(uint64_t counters, uint32_t hashes, uint32_t bits);
  bool IsStuck(uint32_t value) const;

  uint32_t hashes_;
  internal::PackedFields counters_;
  uint64_t nonzero_ = 0;
  uint64_t elements_ = 0;
  uint64_t overflow_events_ = 0;
  uint64_t stuck_decrements_ = 0;
};

}  // namespace bloomroute

#endif  // BLOOMROUTE_LAB_COUNTING_BLOOM_FILTER_H_
