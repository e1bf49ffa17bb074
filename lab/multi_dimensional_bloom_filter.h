// MultiDimensionalBloomFilter: one standard Bloom filter per attribute of a
// tuple; a tuple matches when every attribute's filter contains its value
// (../shared/papers/003). In bloomroute's terms: a conjunctive query over d
// indexed columns answered by d column filters.
//
// Attribute a's value v is hashed as HashBytes(v) into filter a (each filter
// has its own bits, so equal values in different attributes do not interfere).
//
// Error. A tuple none of whose values was inserted in its attribute is reported
// with probability prod_a FPR_a, where FPR_a = fill_a^k (EstimatedFpr()); the
// paper's (1 - (1 - 1/m)^(kn))^(dk) at equal fills. But the filters forget
// which values occurred together: a tuple made of values that were inserted in
// different tuples always matches. That is inherent to the design, not a false
// positive of any one filter; callers needing exact conjunctions must verify.
//
// Thread-safety: const methods may run concurrently; Insert needs exclusive
// access. Movable, not copyable.
#ifndef BLOOMROUTE_LAB_MULTI_DIMENSIONAL_BLOOM_FILTER_H_
#define BLOOMROUTE_LAB_MULTI_DIMENSIONAL_BLOOM_FILTER_H_

#include <cstdint>
#include <string_view>
#include <vector>

#include "common/statusor.h"
#include "lab/bloom_filter.h"

namespace bloomroute {

class MultiDimensionalBloomFilter {
 public:
  static constexpr uint32_t kMaxAttributes = 64;

  // d attributes, each a Bloom filter of m bits and k probes. InvalidArgument
  // when d is outside [1, 64] or m, k are invalid for BloomFilter::Create.
  static StatusOr<MultiDimensionalBloomFilter> Create(uint32_t attributes,
                                                      uint64_t bits_per_filter,
                                                      uint32_t hashes);

  MultiDimensionalBloomFilter(MultiDimensionalBloomFilter&&) noexcept = default;
  MultiDimensionalBloomFilter& operator=(
      MultiDimensionalBloomFilter&&) noexcept = default;
  MultiDimensionalBloomFilter(const MultiDimensionalBloomFilter&) = delete;
  MultiDimensionalBloomFilter& operator=(const MultiDimensionalBloomFilter&) =
      delete;

  // Adds a tuple of exactly d values. InvalidArgument (nothing changes)
  // otherwise.
  [[nodiscard]] Status Insert(const std::vector<std::string_view>& tuple);
  // True if every attribute's filter contains the tuple's value; false for a
  // tuple that does not have exactly d values.
  bool Contains(const std::vector<std::string_view>& tuple) const;
  // Whether attribute a's filter contains v; false when a >= d.
  bool ContainsValue(uint32_t attribute, std::string_view value) const;

  uint32_t attribute_count() const {
    return static_cast<uint32_t>(filters_.size());
  }
  // Precondition: a < attribute_count().
  const BloomFilter& filter(uint32_t a) const { return filters_[a]; }
  uint64_t tuple_count() const { return tuples_; }
  // prod_a filter(a).EstimatedFpr().
  double EstimatedFpr() const;
  uint64_t MemoryBytes() const;

 private:
  explicit MultiDimensionalBloomFilter(std::vector<BloomFilter> filters)
      : filters_(std::move(filters)) {}

  std::vector<BloomFilter> filters_;
  uint64_t tuples_ = 0;
};

}  // namespace bloomroute

#endif  // BLOOMROUTE_LAB_MULTI_DIMENSIONAL_BLOOM_FILTER_H_
