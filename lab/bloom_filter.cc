#include "lab/bloom_filter.h"

#include <cmath>
#include <string>

namespace bloomroute {

BloomFilter::BloomFilter(uint64_t bits, uint32_t hashes)
    : hashes_(hashes), bits_(1, bits) {}

StatusOr<BloomFilter> BloomFilter::Create(uint64_t bits, uint32_t hashes) {
  if (bits == 0 || bits > (uint64_t{1} << 32)) {
    return Status::InvalidArgument("Bloom filter bit count " +
                                   std::to_string(bits) + " outside [1, 2^32]");
  }
  if (hashes == 0 || hashes > internal::kMaxProbes) {
    return Status::InvalidArgument("Bloom filter hash count " +
                                   std::to_string(hashes) + " outside [1, 64]");
  }
  return BloomFilter(bits, hashes);
}

Status BloomFilter::Insert(const ElementHash& h) {
  for (uint32_t j = 0; j < hashes_; ++j) {
    set_bits_ += bits_.Set(0, ProbePosition(h, j, bits_.slice_length()));
  }
  ++elements_;
  return Status::OK();
}

double BloomFilter::Fill() const {
  return static_cast<double>(set_bits_) /
         static_cast<double>(bits_.slice_length());
}

double BloomFilter::EstimatedFpr() const {
  return std::pow(Fill(), static_cast<double>(hashes_));
}

FilterStats BloomFilter::Stats() const {
  FilterStats s;
  s.elements = elements_;
  s.memory_bytes = MemoryBytes();
  s.estimated_fpr = EstimatedFpr();
  return s;
}

}  // namespace bloomroute
