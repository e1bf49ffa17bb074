// SplitCountingBloomFilter (SCBF): k slices of m DDCF counters, one probe per
// slice.
//
// After Huang, Fang and Zhang, "Split Counting Bloom Filter and its application
// to an HBase secondary index" (2016, ../shared/papers/004). An element is
// added by incrementing one counter in each of the k slices (probe j of the
// element hash, see element_hash.h) and removed by decrementing the same
// counters; it is reported present when all k counters are non-zero.
//
// Error model. If f_j is the fill of slice j (fraction of non-zero counters),
// an element that was never inserted is reported present with probability
//
//   FPR = prod_j f_j                                  (EstimatedFpr())
//
// because its k probes fall uniformly and independently into the k slices. At a
// fill of 1/2 in every slice, FPR = 2^-k, and a slice of m counters holds
// n = m ln 2 elements (f = 1 - e^(-n/m)). The filter is full once its mean
// fill, sum_j f_j / k, reaches full_fill (1/2 by default). Since a geometric
// mean never exceeds the arithmetic mean, a filter that is not full has FPR <=
// full_fill^k.
//
// Counters are DdcfCounterVectors with x base bits: they grow a bit-plane
// instead of saturating, so a remove is always exact. Each slice grows its own
// planes.
//
// Lookups read a one-bit occupancy view (bit set <=> counter non-zero) kept in
// step with the counters, never the counters themselves: the design of Fan et
// al.'s Summary Cache (counters for updates, a bit vector for queries). With
// x = 4 it costs one more bit per counter (+25 % memory) and makes Contains as
// cheap as a plain split Bloom filter of the same geometry: measured on 1M
// elements, reading the 4-bit counters instead took 2.0-2.2x the split filter's
// time per present-key query, because the counters are 4x the bytes and fall
// out of the L2 cache (make bench; see the issue 2 note).
//
// Contract: Remove must only be called for an element that was inserted and not
// yet removed; the filter cannot tell an inserted element from a false
// positive. A remove whose counters are not all non-zero is refused
// (InvalidArgument) and changes nothing, as is an insert that would exceed a
// counter's 2^32-1 limit.
//
// Thread-safety: const methods may run concurrently; mutators need exclusive
// access. Movable, not copyable.
#ifndef BLOOMROUTE_INDEX_SPLIT_COUNTING_BLOOM_FILTER_H_
#define BLOOMROUTE_INDEX_SPLIT_COUNTING_BLOOM_FILTER_H_

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "common/coding.h"
#include "common/statusor.h"
#include "index/ddcf_counter_vector.h"
#include "index/element_hash.h"
#include "index/internal/slice_bits.h"

namespace bloomroute {

class SplitCountingBloomFilter {
 public:
  static constexpr uint32_t kMaxSlices = 64;

  struct Options {
    uint32_t slices = 0;        // k, in [1, kMaxSlices]
    uint64_t slice_length = 0;  // m, in [1, DdcfCounterVector::kMaxCounters]
    uint32_t base_bits = DdcfCounterVector::kDefaultBaseBits;  // x
    double full_fill = 0.5;  // mean fill at which IsFull(), in (0, 1)
    // Probe number of slice 0; slice j uses probe first_probe + j. Stages of a
    // scalable filter use disjoint ranges.
    uint32_t first_probe = 0;
  };

  // An empty filter. InvalidArgument when an option is out of range.
  static StatusOr<SplitCountingBloomFilter> Create(const Options& options);

  SplitCountingBloomFilter(SplitCountingBloomFilter&&) noexcept = default;
  SplitCountingBloomFilter& operator=(SplitCountingBloomFilter&&) noexcept =
      default;
  SplitCountingBloomFilter(const SplitCountingBloomFilter&) = delete;
  SplitCountingBloomFilter& operator=(const SplitCountingBloomFilter&) = delete;

  // Adds the element (one counter per slice). Inserting the same hash twice
  // counts it twice. When `became_set` is given, bit j of it is set iff
  // slice j's probed counter went from zero to non-zero (its occupancy bit
  // was set): what a bits-only copy of the filter must set.
  [[nodiscard]] Status Insert(const ElementHash& h,
                              uint64_t* became_set = nullptr);
  // Removes one insertion of the element; see the contract above. Bit j of
  // `became_clear`, when given, is set iff slice j's probed counter went to
  // zero (its occupancy bit was cleared).
  [[nodiscard]] Status Remove(const ElementHash& h,
                              uint64_t* became_clear = nullptr);
  // The occupancy view, bit (j, i) set <=> slice j's counter i is non-zero:
  // slice j in words [j * ceil(m/64), (j + 1) * ceil(m/64)), bit i of a slice
  // at word i / 64, bit i % 64; bits past m are zero.
  const std::vector<uint64_t>& occupancy_words() const {
    return occupancy_.words();
  }
  // True if the element may be present; never false for an inserted element.
  bool Contains(const ElementHash& h) const {
    for (uint32_t j = 0; j < options_.slices; ++j) {
      if (!occupancy_.Test(j, ProbePosition(h, options_.first_probe + j,
                                            options_.slice_length)))
        return false;
    }
    return true;
  }

  const Options& options() const { return options_; }
  uint32_t slice_count() const { return options_.slices; }
  uint64_t slice_length() const { return options_.slice_length; }
  // Insertions minus removals.
  uint64_t element_count() const { return elements_; }
  // Fraction of non-zero counters in slice j. Precondition: j < slice_count().
  double SliceFill(uint32_t j) const;
  // Mean slice fill.
  double Fill() const;
  // prod_j SliceFill(j): the probability that an absent element is reported.
  double EstimatedFpr() const;
  // Fill() >= full_fill.
  bool IsFull() const { return Fill() >= options_.full_fill; }
  // Most bit-planes any slice has grown.
  uint32_t MaxPlaneCount() const;
  // Exact storage: the counters of all slices plus the occupancy view.
  uint64_t MemoryBytes() const;
  // Storage of the occupancy view alone: k * ceil(m/64) * 8 bytes.
  uint64_t OccupancyBytes() const { return occupancy_.MemoryBytes(); }

  // Checks, in O(k m), that every slice's counters sum to the element count and
  // that the occupancy view matches the counters. Corruption naming the first
  // violation. (A correct filter always passes; decoding runs the same checks.)
  [[nodiscard]] Status VerifyInvariants() const;
  // Slice j's counters. Precondition: j < slice_count().
  const DdcfCounterVector& slice(uint32_t j) const { return slices_[j]; }

  // Body encoding (no frame), for filters that embed an SCBF.
  void EncodeTo(std::string* dst) const;
  // Decodes and validates a body: geometry in range, each slice of the stated
  // length and base bits, and every slice's counters summing to the element
  // count (each insertion adds exactly one per slice). Corruption otherwise.
  static StatusOr<SplitCountingBloomFilter> DecodeFrom(ByteReader* in);

  // Self-contained, versioned, checksummed encoding.
  std::string Serialize() const;
  static StatusOr<SplitCountingBloomFilter> Deserialize(std::string_view bytes);

 private:
  SplitCountingBloomFilter(const Options& options,
                           std::vector<DdcfCounterVector> slices,
                           uint64_t elements);
  static Status ValidateOptions(const Options& options);
  void RebuildOccupancy();
  // The probe slot of `h` in every slice; `pos` holds slice_count() entries.
  void Positions(const ElementHash& h, uint64_t* pos) const;

  Options options_;
  std::vector<DdcfCounterVector> slices_;
  internal::SliceBits occupancy_;  // bit (j, i) <=> slices_[j] counter i != 0
  uint64_t elements_ = 0;
};

}  // namespace bloomroute

#endif  // BLOOMROUTE_INDEX_SPLIT_COUNTING_BLOOM_FILTER_H_
