#include "lab/dynamic_count_bloom_filter.h"

#include <string>

namespace bloomroute {

StatusOr<DynamicCountBloomFilter> DynamicCountBloomFilter::Create(
    uint64_t counters, uint32_t hashes, uint32_t counter_bits) {
  BLOOMROUTE_ASSIGN_OR_RETURN(
      CountingBloomFilter first,
      CountingBloomFilter::Create(counters, hashes, counter_bits));
  std::vector<CountingBloomFilter> filters;
  filters.push_back(std::move(first));
  return DynamicCountBloomFilter(std::move(filters));
}

StatusOr<uint32_t> DynamicCountBloomFilter::InsertAt(const ElementHash& h) {
  uint32_t index = 0;
  while (index < filters_.size() && !filters_[index].FitsWithoutSaturating(h)) {
    ++index;
  }
  if (index == filters_.size()) {
    if (filters_.size() >= kMaxFilters) {
      return Status::InvalidArgument("DCBF limit of 65536 filters reached");
    }
    const CountingBloomFilter& last = filters_.back();
    BLOOMROUTE_ASSIGN_OR_RETURN(
        CountingBloomFilter added,
        CountingBloomFilter::Create(last.counter_count(), last.hash_count(),
                                    last.counter_bits()));
    filters_.push_back(std::move(added));
  }
  // FitsWithoutSaturating (or a fresh filter) guarantees nothing saturates.
  BLOOMROUTE_RETURN_IF_ERROR(filters_[index].Insert(h));
  ++elements_;
  return index;
}

Status DynamicCountBloomFilter::RemoveAt(const ElementHash& h, uint32_t index) {
  if (index >= filters_.size() || !filters_[index].Contains(h)) {
    return Status::InvalidArgument("DCBF remove of element " + ToHex(h) +
                                   " that is not in filter " +
                                   std::to_string(index));
  }
  BLOOMROUTE_RETURN_IF_ERROR(filters_[index].Remove(h));
  --elements_;
  DropEmptyNewestFilters();
  return Status::OK();
}

Status DynamicCountBloomFilter::Remove(const ElementHash& h) {
  for (size_t i = filters_.size(); i-- > 0;) {
    if (filters_[i].Contains(h)) {
      return RemoveAt(h, static_cast<uint32_t>(i));
    }
  }
  return Status::InvalidArgument("DCBF remove of element " + ToHex(h) +
                                 " that is not in the filter");
}

void DynamicCountBloomFilter::DropEmptyNewestFilters() {
  while (filters_.size() > 1 && filters_.back().nonzero_count() == 0) {
    filters_.pop_back();
  }
}

uint64_t DynamicCountBloomFilter::MemoryBytes() const {
  uint64_t bytes = 0;
  for (const auto& f : filters_) bytes += f.MemoryBytes();
  return bytes;
}

uint64_t DynamicCountBloomFilter::Get(uint64_t i) const {
  uint64_t sum = 0;
  for (const auto& f : filters_) sum += f.Get(i);
  return sum;
}

double DynamicCountBloomFilter::EstimatedFpr() const {
  double pass = 1.0;
  for (const auto& f : filters_) pass *= 1.0 - f.EstimatedFpr();
  return 1.0 - pass;
}

FilterStats DynamicCountBloomFilter::Stats() const {
  FilterStats s;
  s.elements = elements_;
  s.memory_bytes = MemoryBytes();
  s.estimated_fpr = EstimatedFpr();
  s.parts = filter_count();
  return s;
}

}  // namespace bloomroute
