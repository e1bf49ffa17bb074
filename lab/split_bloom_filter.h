// SplitBloomFilter: a plain (one-bit, insert-only) Bloom filter of k slices of
// m bits, one probe per slice, using the same probes as
// SplitCountingBloomFilter.
//
// It is the baseline the counting filters are measured against: with the same
// (k, m, first_probe) it sets exactly the slots an SCBF makes non-zero, so both
// answer Contains identically and differ only in cost and memory. It does not
// support removal. FPR = prod_j fill_j, as for the SCBF.
//
// Thread-safety: const methods may run concurrently; Insert needs exclusive
// access. Movable, not copyable.
#ifndef BLOOMROUTE_LAB_SPLIT_BLOOM_FILTER_H_
#define BLOOMROUTE_LAB_SPLIT_BLOOM_FILTER_H_

#include <cstdint>
#include <vector>

#include "common/statusor.h"
#include "index/element_hash.h"
#include "index/internal/slice_bits.h"

namespace bloomroute {

class SplitBloomFilter {
 public:
  static constexpr uint32_t kMaxSlices = 64;

  // k slices of m bits, all zero. InvalidArgument when k is outside [1, 64] or
  // m outside [1, 2^32].
  static StatusOr<SplitBloomFilter> Create(uint32_t slices,
                                           uint64_t slice_length,
                                           uint32_t first_probe = 0);

  SplitBloomFilter(SplitBloomFilter&&) noexcept = default;
  SplitBloomFilter& operator=(SplitBloomFilter&&) noexcept = default;
  SplitBloomFilter(const SplitBloomFilter&) = delete;
  SplitBloomFilter& operator=(const SplitBloomFilter&) = delete;

  void Insert(const ElementHash& h);
  bool Contains(const ElementHash& h) const {
    for (uint32_t j = 0; j < bits_.slices(); ++j) {
      if (!bits_.Test(j,
                      ProbePosition(h, first_probe_ + j, bits_.slice_length())))
        return false;
    }
    return true;
  }

  uint32_t slice_count() const { return bits_.slices(); }
  uint64_t slice_length() const { return bits_.slice_length(); }
  // Fraction of set bits in slice j. Precondition: j < slice_count().
  double SliceFill(uint32_t j) const;
  // Mean slice fill.
  double Fill() const;
  // prod_j SliceFill(j).
  double EstimatedFpr() const;
  // Exact bit storage: k * ceil(m / 64) * 8 bytes.
  uint64_t MemoryBytes() const { return bits_.MemoryBytes(); }

 private:
  SplitBloomFilter(uint32_t slices, uint64_t slice_length,
                   uint32_t first_probe);

  uint32_t first_probe_;
  internal::SliceBits bits_;
  std::vector<uint64_t> set_bits_;  // per slice
};

}  // namespace bloomroute

#endif  // BLOOMROUTE_LAB_SPLIT_BLOOM_FILTER_H_
