// BalancedMatrixBloomFilter: M-BMBF, the multi-way balanced matrix Bloom filter
// of Yang and Huang (2017, ../shared/papers/000, algorithms 1 and 2).
//
// An r x m bit matrix: r rows, each a standard Bloom filter of m bits with the
// same k probes (probe j at ProbePosition(h, j, m)). The rows are split into s
// groups of about r/s rows (group d holds rows [d r / s, (d+1) r / s), so group
// sizes differ by at most one when s does not divide r). Locating hash d
// (probe number k + d) picks one row of group d: the element's s candidate
// rows.
//
// Insert (algorithm 1):
//   - if any candidate row already has all k bits set, the element is taken as
//     present and nothing is written (kAlreadyPresent);
//   - otherwise it goes into the candidate row that already has the most of its
//     k bits set ("longest bit match"; ties go to the lowest group), among the
//     rows that stay at or below the full fill (1/2) after the insert, so no
//     row ever exceeds it (kInserted);
//   - when no candidate row has room, nothing is written (kFull).
// Contains (algorithm 2) checks the s candidate rows: O(k s), not O(k r).
//
// Error: with the rows at fill f, an absent element is reported with
// probability 1 - prod_d (1 - f_d^k) over its s candidate rows, ~ 1 - (1 -
// 2^-k)^s for a full matrix; the paper's formula (2) writes the same with
// f = 1 - e^(-kn/(mr)).
//
// Thread-safety: const methods may run concurrently; Insert needs exclusive
// access. Movable, not copyable.
#ifndef BLOOMROUTE_LAB_BALANCED_MATRIX_BLOOM_FILTER_H_
#define BLOOMROUTE_LAB_BALANCED_MATRIX_BLOOM_FILTER_H_

#include <cstdint>
#include <vector>

#include "common/statusor.h"
#include "index/internal/slice_bits.h"
#include "lab/membership_filter.h"

namespace bloomroute {

// What an insert into a fixed-size row filter did.
enum class RowInsertOutcome { kInserted, kAlreadyPresent, kFull };

class BalancedMatrixBloomFilter final : public MembershipFilter {
 public:
  static constexpr uint32_t kMaxRows = 1u << 16;
  static constexpr uint32_t kMaxHashes = 64;

  struct Options {
    uint32_t rows = 0;       // r, in [1, kMaxRows]
    uint64_t row_bits = 0;   // m, in [1, 2^32]
    uint32_t hashes = 0;     // k, in [1, 64]
    uint32_t groups = 0;     // s, locating hashes, in [1, r]
    double full_fill = 0.5;  // a row never goes above this fill, in (0, 1)
  };

  // An all-zero matrix. InvalidArgument when an option is out of range.
  static StatusOr<BalancedMatrixBloomFilter> Create(const Options& options);

  BalancedMatrixBloomFilter(BalancedMatrixBloomFilter&&) noexcept = default;
  BalancedMatrixBloomFilter& operator=(BalancedMatrixBloomFilter&&) noexcept =
      default;

  const char* name() const override { return "M-BMBF"; }
  RowInsertOutcome TryInsert(const ElementHash& h);
  // TryInsert, with kFull as InvalidArgument ("full").
  [[nodiscard]] Status Insert(const ElementHash& h) override;
  bool Contains(const ElementHash& h) const override;
  uint64_t MemoryBytes() const override { return rows_.MemoryBytes(); }
  // parts = rows holding at least one element.
  FilterStats Stats() const override;

  const Options& options() const { return options_; }
  // The row locating hash d picks for `h`. Precondition: d < groups.
  uint32_t CandidateRow(const ElementHash& h, uint32_t d) const;
  // How many of h's k bits are set in `row`. Precondition: row < rows.
  uint32_t MatchCount(uint32_t row, const ElementHash& h) const;
  // Set bits in `row`. Precondition: row < rows.
  uint64_t RowSetBits(uint32_t row) const { return set_bits_[row]; }
  // Fraction of set bits in `row`.
  double RowFill(uint32_t row) const;
  // The most set bits a row may have: floor(full_fill * m).
  uint64_t RowLimit() const { return row_limit_; }
  // Mean fill over all rows.
  double Fill() const;
  // 1 - prod_d (1 - mean over group d's rows of f^k): the expected FPR of a
  // random absent key, whose candidate row in each group is uniform.
  double EstimatedFpr() const;

 private:
  explicit BalancedMatrixBloomFilter(const Options& options);
  // The k probe slots of `h` in a row; `pos` holds options_.hashes entries.
  void Positions(const ElementHash& h, uint64_t* pos) const;
  uint32_t MatchAt(uint32_t row, const uint64_t* pos) const;

  Options options_;
  internal::SliceBits rows_;  // row = slice
  std::vector<uint64_t> set_bits_;
  std::vector<uint64_t> row_elements_;
  uint64_t row_limit_;
  uint64_t elements_ = 0;
};

}  // namespace bloomroute

#endif  // BLOOMROUTE_LAB_BALANCED_MATRIX_BLOOM_FILTER_H_
