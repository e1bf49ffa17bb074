#include "lab/balanced_matrix_bloom_filter.h"

#include <cmath>
#include <string>

namespace bloomroute {

BalancedMatrixBloomFilter::BalancedMatrixBloomFilter(const Options& options)
    : options_(options),
      rows_(options.rows, options.row_bits),
      set_bits_(options.rows, 0),
      row_elements_(options.rows, 0),
      row_limit_(static_cast<uint64_t>(std::floor(
          options.full_fill * static_cast<double>(options.row_bits)))) {}

StatusOr<BalancedMatrixBloomFilter> BalancedMatrixBloomFilter::Create(
    const Options& o) {
  if (o.rows == 0 || o.rows > kMaxRows) {
    return Status::InvalidArgument(
        "M-BMBF row count " + std::to_string(o.rows) + " outside [1, 65536]");
  }
  if (o.row_bits == 0 || o.row_bits > (uint64_t{1} << 32)) {
    return Status::InvalidArgument("M-BMBF row length " +
                                   std::to_string(o.row_bits) +
                                   " outside [1, 2^32]");
  }
  if (o.hashes == 0 || o.hashes > kMaxHashes) {
    return Status::InvalidArgument(
        "M-BMBF hash count " + std::to_string(o.hashes) + " outside [1, 64]");
  }
  if (o.groups == 0 || o.groups > o.rows) {
    return Status::InvalidArgument("M-BMBF locating hash count " +
                                   std::to_string(o.groups) +
                                   " outside [1, rows]");
  }
  if (!(o.full_fill > 0.0 && o.full_fill < 1.0)) {
    return Status::InvalidArgument("M-BMBF full fill must be in (0, 1)");
  }
  return BalancedMatrixBloomFilter(o);
}

uint32_t BalancedMatrixBloomFilter::CandidateRow(const ElementHash& h,
                                                 uint32_t d) const {
  const uint64_t r = options_.rows, s = options_.groups;
  const uint64_t begin = d * r / s, end = (d + 1) * r / s;
  return static_cast<uint32_t>(
      begin + ProbePosition(h, options_.hashes + d, end - begin));
}

void BalancedMatrixBloomFilter::Positions(const ElementHash& h,
                                          uint64_t* pos) const {
  for (uint32_t j = 0; j < options_.hashes; ++j) {
    pos[j] = ProbePosition(h, j, options_.row_bits);
  }
}

uint32_t BalancedMatrixBloomFilter::MatchAt(uint32_t row,
                                            const uint64_t* pos) const {
  uint32_t match = 0;
  for (uint32_t j = 0; j < options_.hashes; ++j)
    match += rows_.Test(row, pos[j]);
  return match;
}

uint32_t BalancedMatrixBloomFilter::MatchCount(uint32_t row,
                                               const ElementHash& h) const {
  uint64_t pos[kMaxHashes];
  Positions(h, pos);
  return MatchAt(row, pos);
}

RowInsertOutcome BalancedMatrixBloomFilter::TryInsert(const ElementHash& h) {
  const uint32_t k = options_.hashes;
  uint64_t pos[kMaxHashes];
  Positions(h, pos);
  int64_t best_row = -1;
  uint32_t best_match = 0;
  for (uint32_t d = 0; d < options_.groups; ++d) {
    const uint32_t row = CandidateRow(h, d);
    const uint32_t match = MatchAt(row, pos);
    if (match == k) return RowInsertOutcome::kAlreadyPresent;
    // At most k - match bits are newly set (fewer if two probes coincide), so
    // a row with room for k - match stays at or below the limit.
    const bool fits = set_bits_[row] + (k - match) <= row_limit_;
    if (fits && (best_row < 0 || match > best_match)) {
      best_row = row;
      best_match = match;
    }
  }
  if (best_row < 0) return RowInsertOutcome::kFull;
  const uint32_t row = static_cast<uint32_t>(best_row);
  for (uint32_t j = 0; j < k; ++j) set_bits_[row] += rows_.Set(row, pos[j]);
  ++row_elements_[row];
  ++elements_;
  return RowInsertOutcome::kInserted;
}

Status BalancedMatrixBloomFilter::Insert(const ElementHash& h) {
  if (TryInsert(h) == RowInsertOutcome::kFull) {
    return Status::InvalidArgument("M-BMBF full: no candidate row has room");
  }
  return Status::OK();
}

bool BalancedMatrixBloomFilter::Contains(const ElementHash& h) const {
  uint64_t pos[kMaxHashes];
  Positions(h, pos);
  for (uint32_t d = 0; d < options_.groups; ++d) {
    const uint32_t row = CandidateRow(h, d);
    uint32_t j = 0;
    while (j < options_.hashes && rows_.Test(row, pos[j])) ++j;
    if (j == options_.hashes) return true;
  }
  return false;
}

double BalancedMatrixBloomFilter::RowFill(uint32_t row) const {
  return static_cast<double>(set_bits_[row]) /
         static_cast<double>(options_.row_bits);
}

double BalancedMatrixBloomFilter::Fill() const {
  double sum = 0;
  for (uint32_t row = 0; row < options_.rows; ++row) sum += RowFill(row);
  return sum / options_.rows;
}

double BalancedMatrixBloomFilter::EstimatedFpr() const {
  // Per group, the mean FPR of its rows; an absent key passes every group.
  double pass = 1.0;
  const uint64_t r = options_.rows, s = options_.groups;
  for (uint64_t d = 0; d < s; ++d) {
    const uint64_t begin = d * r / s, end = (d + 1) * r / s;
    double group_fpr = 0;
    for (uint64_t row = begin; row < end; ++row) {
      group_fpr += std::pow(RowFill(static_cast<uint32_t>(row)),
                            static_cast<double>(options_.hashes));
    }
    pass *= 1.0 - group_fpr / static_cast<double>(end - begin);
  }
  return 1.0 - pass;
}

FilterStats BalancedMatrixBloomFilter::Stats() const {
  FilterStats s;
  s.elements = elements_;
  s.memory_bytes = MemoryBytes();
  s.estimated_fpr = EstimatedFpr();
  s.parts = 0;
  for (uint64_t e : row_elements_) s.parts += e > 0;
  return s;
}

}  // namespace bloomroute
