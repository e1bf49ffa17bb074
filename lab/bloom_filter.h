// BloomFilter: the standard Bloom filter (Bloom, 1970): one array of m bits and
// k probes over all of it, probe j at ProbePosition(h, j, m).
//
// With n elements a bit is set with probability f = 1 - (1 - 1/m)^(kn) and an
// absent element is reported with probability f^k (EstimatedFpr() uses the
// measured fill); at the optimum k = (m/n) ln 2 the fill is 1/2 and FPR = 2^-k.
// Two probes of one element may hit the same bit, which a split filter
// (split_bloom_filter.h) rules out by giving each probe its own slice.
//
// Insert-only. Thread-safety: const methods may run concurrently; Insert needs
// exclusive access. Movable, not copyable.
#ifndef BLOOMROUTE_LAB_BLOOM_FILTER_H_
#define BLOOMROUTE_LAB_BLOOM_FILTER_H_

#include <cstdint>

#include "common/statusor.h"
#include "index/internal/slice_bits.h"
#include "lab/internal/probes.h"
#include "lab/membership_filter.h"

namespace bloomroute {

class BloomFilter final : public MembershipFilter {
 public:
  // m bits, all zero, and k probes. InvalidArgument when m is outside
  // [1, 2^32] or k outside [1, 64].
  static StatusOr<BloomFilter> Create(uint64_t bits, uint32_t hashes);

  BloomFilter(BloomFilter&&) noexcept = default;
  BloomFilter& operator=(BloomFilter&&) noexcept = default;

  const char* name() const override { return "BF"; }
  // Never fails.
  [[nodiscard]] Status Insert(const ElementHash& h) override;
  bool Contains(const ElementHash& h) const override {
    for (uint32_t j = 0; j < hashes_; ++j) {
      if (!bits_.Test(0, ProbePosition(h, j, bits_.slice_length()))) {
        return false;
      }
    }
    return true;
  }
  uint64_t MemoryBytes() const override { return bits_.MemoryBytes(); }
  FilterStats Stats() const override;

  uint64_t bit_count() const { return bits_.slice_length(); }
  uint32_t hash_count() const { return hashes_; }
  // Fraction of set bits.
  double Fill() const;
  // Fill()^k.
  double EstimatedFpr() const;

 private:
  BloomFilter(uint64_t bits, uint32_t hashes);

  uint32_t hashes_;
  internal::SliceBits bits_;  // one slice of m bits
  uint64_t set_bits_ = 0;
  uint64_t elements_ = 0;
};

}  // namespace bloomroute

#endif  // BLOOMROUTE_LAB_BLOOM_FILTER_H_
