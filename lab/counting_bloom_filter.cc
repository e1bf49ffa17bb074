#include "lab/counting_bloom_filter.h"

#include <cmath>
#include <string>

namespace bloomroute {

CountingBloomFilter::CountingBloomFilter(uint64_t counters, uint32_t hashes,
                                         uint32_t bits)
    : hashes_(hashes), counters_(counters, bits) {}

StatusOr<CountingBloomFilter> CountingBloomFilter::Create(uint64_t counters,
                                                          uint32_t hashes,
                                                          uint32_t bits) {
  if (counters == 0 || counters > (uint64_t{1} << 32)) {
    return Status::InvalidArgument(
        "CBF counter count " + std::to_string(counters) + " outside [1, 2^32]");
  }
  if (hashes == 0 || hashes > internal::kMaxProbes) {
    return Status::InvalidArgument("CBF hash count " + std::to_string(hashes) +
                                   " outside [1, 64]");
  }
  if (bits == 0 || bits > kMaxCounterBits) {
    return Status::InvalidArgument("CBF counter bits " + std::to_string(bits) +
                                   " outside [1, 16]");
  }
  return CountingBloomFilter(counters, hashes, bits);
}

Status CountingBloomFilter::Insert(const ElementHash& h) {
  for (uint32_t j = 0; j < hashes_; ++j) {
    const uint64_t i = ProbePosition(h, j, counters_.size());
    const uint32_t v = counters_.Get(i);
    if (v == counters_.max_value()) {
      ++overflow_events_;  // saturated: the increment is lost
      continue;
    }
    nonzero_ += v == 0;
    counters_.Set(i, v + 1);
  }
  ++elements_;
  return Status::OK();
}

bool CountingBloomFilter::FitsWithoutSaturating(const ElementHash& h) const {
  uint64_t pos[internal::kMaxProbes];
  internal::ProbeSlots(h, hashes_, counters_.size(), pos);
  for (uint32_t j = 0; j < hashes_; ++j) {
    const uint64_t after = uint64_t{counters_.Get(pos[j])} +
                           internal::SlotMultiplicity(pos, hashes_, j);
    if (after > counters_.max_value()) return false;
  }
  return true;
}

bool CountingBloomFilter::IsStuck(uint32_t value) const {
  // Until an increment has been lost, a counter at its maximum holds its true
  // value; afterwards no counter at the maximum can be trusted.
  return overflow_events_ > 0 && value == counters_.max_value();
}

Status CountingBloomFilter::Remove(const ElementHash& h) {
  if (elements_ == 0) {
    return Status::InvalidArgument("CBF remove from an empty filter");
  }
  uint64_t pos[internal::kMaxProbes];
  internal::ProbeSlots(h, hashes_, counters_.size(), pos);
  for (uint32_t j = 0; j < hashes_; ++j) {
    const uint32_t v = counters_.Get(pos[j]);
    if (!IsStuck(v) && v < internal::SlotMultiplicity(pos, hashes_, j)) {
      return Status::InvalidArgument("CBF remove of element " + ToHex(h) +
                                     " that is not in the filter");
    }
  }
  for (uint32_t j = 0; j < hashes_; ++j) {
    const uint32_t v = counters_.Get(pos[j]);
    if (IsStuck(v)) {
      ++stuck_decrements_;  // true value unknown: never decrement
      continue;
    }
    nonzero_ -= v == 1;
    counters_.Set(pos[j], v - 1);
  }
  --elements_;
  return Status::OK();
}

double CountingBloomFilter::EstimatedFpr() const {
  return std::pow(
      static_cast<double>(nonzero_) / static_cast<double>(counters_.size()),
      static_cast<double>(hashes_));
}

FilterStats CountingBloomFilter::Stats() const {
  FilterStats s;
  s.elements = elements_;
  s.memory_bytes = MemoryBytes();
  s.estimated_fpr = EstimatedFpr();
  s.overflows = overflow_events_;
  return s;
}

}  // namespace bloomroute
