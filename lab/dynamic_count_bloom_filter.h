// DynamicCountBloomFilter (DCBF): a list of standard counting Bloom filters of
// the same geometry (m counters of x bits, k probes), as described in the DDCF
// paper (Yue, Zhao, Xu, 2017, ../shared/papers/002, section 3) after Meng and
// Gao (2015).
//
// Insert puts the element into the first filter in which none of its k
// counters would pass 2^x - 1, adding a new filter when every existing one has
// such a counter at its maximum. So a counter's value is the sum of its values
// in all filters, and one element inserted t times needs ceil(t / (2^x - 1))
// filters: a new whole filter every 2^x - 1 insertions (16, 31, 46, ... at
// x = 4), where DCF and DDCF add one bit per counter at each power of two.
//
// Remove decrements the filter the caller names (the index Insert returned), as
// the paper requires ("the CBF of each element must be recorded"); the
// interface's Remove(h) takes the newest filter that contains the element,
// which is the right one whenever elements are removed in reverse order of
// their insertions, and leaves every summed counter value exact in any case.
// An all-zero newest filter is dropped.
//
// Contains is true when any one filter has all k counters non-zero, so the FPR
// is 1 - prod_i (1 - FPR_i) over the filters.
//
// Thread-safety: const methods may run concurrently; mutators need exclusive
// access. Movable, not copyable.
#ifndef BLOOMROUTE_LAB_DYNAMIC_COUNT_BLOOM_FILTER_H_
#define BLOOMROUTE_LAB_DYNAMIC_COUNT_BLOOM_FILTER_H_

#include <cstdint>
#include <vector>

#include "common/statusor.h"
#include "lab/counting_bloom_filter.h"
#include "lab/membership_filter.h"

namespace bloomroute {

class DynamicCountBloomFilter final : public MembershipFilter {
 public:
  static constexpr uint32_t kMaxFilters = 1u << 16;

  // One empty filter of m counters of x bits with k probes. InvalidArgument
  // when m is outside [1, 2^32], k outside [1, 64] or x outside [1, 16].
  static StatusOr<DynamicCountBloomFilter> Create(uint64_t counters,
                                                  uint32_t hashes,
                                                  uint32_t counter_bits = 4);

  DynamicCountBloomFilter(DynamicCountBloomFilter&&) noexcept = default;
  DynamicCountBloomFilter& operator=(DynamicCountBloomFilter&&) noexcept =
      default;

  const char* name() const override { return "DCBF"; }
  // Inserts into the first filter with room; returns that filter's index.
  // InvalidArgument when kMaxFilters would be exceeded; nothing changes then.
  StatusOr<uint32_t> InsertAt(const ElementHash& h);
  [[nodiscard]] Status Insert(const ElementHash& h) override {
    return InsertAt(h).status();
  }
  bool Contains(const ElementHash& h) const override {
    for (const auto& f : filters_) {
      if (f.Contains(h)) return true;
    }
    return false;
  }
  bool SupportsRemove() const override { return true; }
  // Removes one insertion from filter `index`. InvalidArgument when there is no
  // such filter or it does not hold the element; nothing changes then.
  [[nodiscard]] Status RemoveAt(const ElementHash& h, uint32_t index);
  // Removes from the newest filter that contains the element (see above).
  [[nodiscard]] Status Remove(const ElementHash& h) override;
  uint64_t MemoryBytes() const override;
  // parts = the number of counting filters.
  FilterStats Stats() const override;

  uint32_t filter_count() const {
    return static_cast<uint32_t>(filters_.size());
  }
  // Precondition: i < filter_count().
  const CountingBloomFilter& filter(uint32_t i) const { return filters_[i]; }
  // Counter i summed over the filters. Precondition: i < m.
  uint64_t Get(uint64_t i) const;
  // 1 - prod_i (1 - filter_i.EstimatedFpr()).
  double EstimatedFpr() const;

 private:
  explicit DynamicCountBloomFilter(std::vector<CountingBloomFilter> filters)
      : filters_(std::move(filters)) {}
  void DropEmptyNewestFilters();

  std::vector<CountingBloomFilter> filters_;  // never empty
  uint64_t elements_ = 0;
};

}  // namespace bloomroute

#endif  // BLOOMROUTE_LAB_DYNAMIC_COUNT_BLOOM_FILTER_H_
