#include "lab/two_way_balanced_bloom_filter.h"

#include <cmath>
#include <string>

namespace bloomroute {

TwoWayBalancedBloomFilter::TwoWayBalancedBloomFilter(const Options& options)
    : options_(options),
      vector_limit_(static_cast<uint64_t>(std::floor(
          options.full_fill * static_cast<double>(options.vector_bits)))) {
  AddGroup();
}

StatusOr<TwoWayBalancedBloomFilter> TwoWayBalancedBloomFilter::Create(
    const Options& o) {
  if (o.group_size == 0 || o.max_groups == 0 ||
      uint64_t{o.group_size} * o.max_groups > kMaxVectors) {
    return Status::InvalidArgument(
        "2BDBF needs group size and group budget >= 1 and at most 65536 "
        "vectors");
  }
  if (o.vector_bits == 0 || o.vector_bits > (uint64_t{1} << 32)) {
    return Status::InvalidArgument("2BDBF vector length " +
                                   std::to_string(o.vector_bits) +
                                   " outside [1, 2^32]");
  }
  if (o.hashes == 0 || o.hashes > kMaxHashes) {
    return Status::InvalidArgument(
        "2BDBF hash count " + std::to_string(o.hashes) + " outside [1, 64]");
  }
  if (!(o.full_fill > 0.0 && o.full_fill < 1.0)) {
    return Status::InvalidArgument("2BDBF full fill must be in (0, 1)");
  }
  return TwoWayBalancedBloomFilter(o);
}

void TwoWayBalancedBloomFilter::AddGroup() {
  groups_.emplace_back(options_.group_size, options_.vector_bits);
  set_bits_.resize(set_bits_.size() + options_.group_size, 0);
}

bool TwoWayBalancedBloomFilter::InsertIntoNewestGroup(const ElementHash& h) {
  const uint32_t k = options_.hashes, g = options_.group_size;
  const uint32_t group = group_count() - 1;
  internal::SliceBits& bits = groups_.back();
  int64_t best = -1;
  for (uint32_t way = 0; way < 2; ++way) {
    const uint32_t v = static_cast<uint32_t>(ProbePosition(h, k + way, g));
    uint32_t fresh = 0;  // bits this insert would set
    for (uint32_t j = 0; j < k; ++j) {
      fresh += !bits.Test(v, ProbePosition(h, j, options_.vector_bits));
    }
    const uint64_t used = VectorSetBits(group, v);
    if (used + fresh > vector_limit_) continue;
    if (best < 0 || used < VectorSetBits(group, static_cast<uint32_t>(best))) {
      best = v;
    }
  }
  if (best < 0) return false;
  const uint32_t v = static_cast<uint32_t>(best);
  for (uint32_t j = 0; j < k; ++j) {
    set_bits_[group * g + v] +=
        bits.Set(v, ProbePosition(h, j, options_.vector_bits));
  }
  return true;
}

RowInsertOutcome TwoWayBalancedBloomFilter::TryInsert(const ElementHash& h) {
  if (!InsertIntoNewestGroup(h)) {
    if (group_count() >= options_.max_groups) return RowInsertOutcome::kFull;
    AddGroup();
    // A fresh vector takes any element unless k bits exceed the limit.
    if (!InsertIntoNewestGroup(h)) return RowInsertOutcome::kFull;
  }
  ++elements_;
  return RowInsertOutcome::kInserted;
}

Status TwoWayBalancedBloomFilter::Insert(const ElementHash& h) {
  if (TryInsert(h) == RowInsertOutcome::kFull) {
    return Status::InvalidArgument("2BDBF full: no candidate vector has room");
  }
  return Status::OK();
}

bool TwoWayBalancedBloomFilter::Contains(const ElementHash& h) const {
  const uint32_t k = options_.hashes;
  uint64_t pos[kMaxHashes];
  for (uint32_t j = 0; j < k; ++j) {
    pos[j] = ProbePosition(h, j, options_.vector_bits);
  }
  // Every vector is a candidate: O(k r) bit tests, the cost the paper names.
  for (const auto& bits : groups_) {
    for (uint32_t v = 0; v < options_.group_size; ++v) {
      uint32_t j = 0;
      while (j < k && bits.Test(v, pos[j])) ++j;
      if (j == k) return true;
    }
  }
  return false;
}

uint64_t TwoWayBalancedBloomFilter::MemoryBytes() const {
  uint64_t bytes = 0;
  for (const auto& bits : groups_) bytes += bits.MemoryBytes();
  return bytes;
}

double TwoWayBalancedBloomFilter::EstimatedFpr() const {
  double pass = 1.0;
  const double m = static_cast<double>(options_.vector_bits);
  for (uint64_t used : set_bits_) {
    pass *= 1.0 - std::pow(static_cast<double>(used) / m, options_.hashes);
  }
  return 1.0 - pass;
}

FilterStats TwoWayBalancedBloomFilter::Stats() const {
  FilterStats s;
  s.elements = elements_;
  s.memory_bytes = MemoryBytes();
  s.estimated_fpr = EstimatedFpr();
  s.parts = static_cast<uint32_t>(set_bits_.size());
  return s;
}

}  // namespace bloomroute
