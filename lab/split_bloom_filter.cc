#include "lab/split_bloom_filter.h"

#include <string>

namespace bloomroute {

SplitBloomFilter::SplitBloomFilter(uint32_t slices, uint64_t slice_length,
                                   uint32_t first_probe)
    : first_probe_(first_probe),
      bits_(slices, slice_length),
      set_bits_(slices, 0) {}

StatusOr<SplitBloomFilter> SplitBloomFilter::Create(uint32_t slices,
                                                    uint64_t slice_length,
                                                    uint32_t first_probe) {
  if (slices == 0 || slices > kMaxSlices) {
    return Status::InvalidArgument("split Bloom filter slice count " +
                                   std::to_string(slices) + " outside [1, 64]");
  }
  if (slice_length == 0 || slice_length > (uint64_t{1} << 32)) {
    return Status::InvalidArgument("split Bloom filter slice length " +
                                   std::to_string(slice_length) +
                                   " outside [1, 2^32]");
  }
  if (uint64_t{first_probe} + slices > UINT32_MAX) {
    return Status::InvalidArgument("split Bloom filter probe numbers overflow");
  }
  return SplitBloomFilter(slices, slice_length, first_probe);
}

void SplitBloomFilter::Insert(const ElementHash& h) {
  for (uint32_t j = 0; j < bits_.slices(); ++j) {
    set_bits_[j] +=
        bits_.Set(j, ProbePosition(h, first_probe_ + j, bits_.slice_length()));
  }
}

double SplitBloomFilter::SliceFill(uint32_t j) const {
  return static_cast<double>(set_bits_[j]) /
         static_cast<double>(bits_.slice_length());
}

double SplitBloomFilter::Fill() const {
  uint64_t set = 0;
  for (uint64_t s : set_bits_) set += s;
  return static_cast<double>(set) /
         (static_cast<double>(bits_.slice_length()) * bits_.slices());
}

double SplitBloomFilter::EstimatedFpr() const {
  double fpr = 1.0;
  for (uint32_t j = 0; j < bits_.slices(); ++j) fpr *= SliceFill(j);
  return fpr;
}

}  // namespace bloomroute
