// TwoWayBalancedBloomFilter: 2BDBF, the two-way balanced dynamic Bloom filter
// of Sun and Xu (2014), the second baseline of the M-BMBF paper
// (../shared/papers/000, section 1 and figures 3-6).
//
// Bit vectors of m bits, each a standard Bloom filter with the same k probes,
// allocated in groups of g vectors (the paper's "group base", 8 in its
// experiments), up to a memory budget of max_groups groups. Two locating hashes
// (probe numbers k and k + 1) pick two candidate vectors in the newest group;
// the element goes into the emptier of the two (fewer set bits; ties to the
// first) among those that stay at or below the full fill (1/2) after the
// insert. When neither has room a new group is opened and the element goes
// there; when the budget is spent the insert is refused (kFull).
//
// Contains checks every vector of every group, O(k r) for r vectors: the query
// cost M-BMBF reduces to O(k s). There is no duplicate check on insert.
//
// Thread-safety: const methods may run concurrently; Insert needs exclusive
// access. Movable, not copyable.
#ifndef BLOOMROUTE_LAB_TWO_WAY_BALANCED_BLOOM_FILTER_H_
#define BLOOMROUTE_LAB_TWO_WAY_BALANCED_BLOOM_FILTER_H_

#include <cstdint>
#include <vector>

#include "common/statusor.h"
#include "index/internal/slice_bits.h"
#include "lab/balanced_matrix_bloom_filter.h"
#include "lab/membership_filter.h"

namespace bloomroute {

class TwoWayBalancedBloomFilter final : public MembershipFilter {
 public:
  static constexpr uint32_t kMaxVectors = 1u << 16;
  static constexpr uint32_t kMaxHashes = 64;

  struct Options {
    uint32_t group_size = 0;   // g, vectors per group, >= 1
    uint32_t max_groups = 0;   // memory budget in groups, >= 1
    uint64_t vector_bits = 0;  // m, in [1, 2^32]
    uint32_t hashes = 0;       // k, in [1, 64]
    double full_fill = 0.5;    // a vector never goes above this fill, (0, 1)
  };

  // One empty group. InvalidArgument when an option is out of range or
  // g * max_groups > kMaxVectors.
  static StatusOr<TwoWayBalancedBloomFilter> Create(const Options& options);

  TwoWayBalancedBloomFilter(TwoWayBalancedBloomFilter&&) noexcept = default;
  TwoWayBalancedBloomFilter& operator=(TwoWayBalancedBloomFilter&&) noexcept =
      default;

  const char* name() const override { return "2BDBF"; }
  // kInserted or kFull (never kAlreadyPresent).
  RowInsertOutcome TryInsert(const ElementHash& h);
  // TryInsert, with kFull as InvalidArgument ("full").
  [[nodiscard]] Status Insert(const ElementHash& h) override;
  bool Contains(const ElementHash& h) const override;
  // Storage of the groups allocated so far.
  uint64_t MemoryBytes() const override;
  // parts = vectors allocated.
  FilterStats Stats() const override;

  const Options& options() const { return options_; }
  uint32_t group_count() const { return static_cast<uint32_t>(groups_.size()); }
  // Set bits of vector v of group g. Preconditions: in range.
  uint64_t VectorSetBits(uint32_t group, uint32_t v) const {
    return set_bits_[group * options_.group_size + v];
  }
  // The most set bits a vector may have: floor(full_fill * m).
  uint64_t VectorLimit() const { return vector_limit_; }
  // 1 - prod over vectors (1 - fill^k).
  double EstimatedFpr() const;

 private:
  explicit TwoWayBalancedBloomFilter(const Options& options);
  void AddGroup();
  // Inserts into the emptier fitting candidate of the newest group; false when
  // neither fits.
  bool InsertIntoNewestGroup(const ElementHash& h);

  Options options_;
  std::vector<internal::SliceBits> groups_;  // vector = slice
  std::vector<uint64_t> set_bits_;           // per vector, group-major
  uint64_t vector_limit_;
  uint64_t elements_ = 0;
};

}  // namespace bloomroute

#endif  // BLOOMROUTE_LAB_TWO_WAY_BALANCED_BLOOM_FILTER_H_
