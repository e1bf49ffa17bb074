#include "lab/multi_dimensional_bloom_filter.h"

#include <string>

namespace bloomroute {

StatusOr<MultiDimensionalBloomFilter> MultiDimensionalBloomFilter::Create(
    uint32_t attributes, uint64_t bits_per_filter, uint32_t hashes) {
  if (attributes == 0 || attributes > kMaxAttributes) {
    return Status::InvalidArgument(
        "attribute count " + std::to_string(attributes) + " outside [1, 64]");
  }
  std::vector<BloomFilter> filters;
  filters.reserve(attributes);
  for (uint32_t a = 0; a < attributes; ++a) {
    BLOOMROUTE_ASSIGN_OR_RETURN(BloomFilter f,
                                BloomFilter::Create(bits_per_filter, hashes));
    filters.push_back(std::move(f));
  }
  return MultiDimensionalBloomFilter(std::move(filters));
}

Status MultiDimensionalBloomFilter::Insert(
    const std::vector<std::string_view>& tuple) {
  if (tuple.size() != filters_.size()) {
    return Status::InvalidArgument("tuple has " + std::to_string(tuple.size()) +
                                   " values, expected " +
                                   std::to_string(filters_.size()));
  }
  for (size_t a = 0; a < tuple.size(); ++a) {
    BLOOMROUTE_RETURN_IF_ERROR(filters_[a].Insert(HashBytes(tuple[a])));
  }
  ++tuples_;
  return Status::OK();
}

bool MultiDimensionalBloomFilter::Contains(
    const std::vector<std::string_view>& tuple) const {
  if (tuple.size() != filters_.size()) return false;
  for (size_t a = 0; a < tuple.size(); ++a) {
    if (!filters_[a].Contains(HashBytes(tuple[a]))) return false;
  }
  return true;
}

bool MultiDimensionalBloomFilter::ContainsValue(uint32_t attribute,
                                                std::string_view value) const {
  return attribute < filters_.size() &&
         filters_[attribute].Contains(HashBytes(value));
}

double MultiDimensionalBloomFilter::EstimatedFpr() const {
  double fpr = 1.0;
  for (const auto& f : filters_) fpr *= f.EstimatedFpr();
  return fpr;
}

uint64_t MultiDimensionalBloomFilter::MemoryBytes() const {
  uint64_t bytes = 0;
  for (const auto& f : filters_) bytes += f.MemoryBytes();
  return bytes;
}

}  // namespace bloomroute
