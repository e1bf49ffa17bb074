// DynamicCountFilter<Counters>: a standard (unsplit) counting Bloom filter
// whose counters grow instead of saturating: m counters, k probes over all of
// them, counters either a DCF (DcfCounterVector, one overflow vector rebuilt by
// copying) or a DDCF (DdcfCounterVector, one-bit planes added and dropped).
//
// These are the two filters the DDCF paper compares (Yue, Zhao, Xu, 2017,
// ../shared/papers/002): the same filter, the same probes, the same counter
// values after any sequence of operations; only the overflow handling differs,
// so the lab's timing and memory differences come from it alone.
//
//   using DcfFilter = DynamicCountFilter<DcfCounterVector>;
//   using DdcfFilter = DynamicCountFilter<DdcfCounterVector>;
//
//   StatusOr<DdcfFilter> f = DdcfFilter::Create(9585059, 7, 4);
//   Status s = f->Insert(HashBytes("x"));
//
// Sizing for capacity n at error P: m = ceil(n ln(1/P) / ln(2)^2), k =
// round((m/n) ln 2); at that load FPR ~ 2^-k (EstimatedFpr() uses the fill).
//
// Contract: Remove must only be called for an element that was inserted and not
// yet removed. A remove whose counters cannot all be decremented is refused
// (InvalidArgument) and changes nothing, as is an insert past the counters'
// 2^32 - 1 limit.
//
// Thread-safety: const methods may run concurrently; mutators need exclusive
// access. Movable, not copyable.
#ifndef BLOOMROUTE_LAB_DYNAMIC_COUNT_FILTER_H_
#define BLOOMROUTE_LAB_DYNAMIC_COUNT_FILTER_H_

#include <cstdint>

#include "common/statusor.h"
#include "index/ddcf_counter_vector.h"
#include "lab/dcf_counter_vector.h"
#include "lab/internal/probes.h"
#include "lab/membership_filter.h"

namespace bloomroute {

template <typename Counters>
class DynamicCountFilter final : public MembershipFilter {
 public:
  // m zeroed counters with x base bits and k probes. InvalidArgument when m is
  // outside [1, 2^32], k outside [1, 64] or x outside [1, 16].
  static StatusOr<DynamicCountFilter> Create(uint64_t counters, uint32_t hashes,
                                             uint32_t base_bits = 4);

  DynamicCountFilter(DynamicCountFilter&&) noexcept = default;
  DynamicCountFilter& operator=(DynamicCountFilter&&) noexcept = default;

  const char* name() const override;
  [[nodiscard]] Status Insert(const ElementHash& h) override;
  bool Contains(const ElementHash& h) const override {
    for (uint32_t j = 0; j < hashes_; ++j) {
      if (!counters_.IsNonZero(ProbePosition(h, j, counters_.size()))) {
        return false;
      }
    }
    return true;
  }
  bool SupportsRemove() const override { return true; }
  [[nodiscard]] Status Remove(const ElementHash& h) override;
  uint64_t MemoryBytes() const override { return counters_.MemoryBytes(); }
  // parts = the bits above the base (DCF overflow bits y, DDCF planes y).
  FilterStats Stats() const override;

  uint32_t hash_count() const { return hashes_; }
  const Counters& counters() const { return counters_; }
  // (non-zero counters / m)^k.
  double EstimatedFpr() const;

 private:
  DynamicCountFilter(Counters counters, uint32_t hashes)
      : hashes_(hashes), counters_(std::move(counters)) {}

  uint32_t hashes_;
  Counters counters_;
  uint64_t elements_ = 0;
};

using DcfFilter = DynamicCountFilter<DcfCounterVector>;
using DdcfFilter = DynamicCountFilter<DdcfCounterVector>;

extern template class DynamicCountFilter<DcfCounterVector>;
extern template class DynamicCountFilter<DdcfCounterVector>;

}  // namespace bloomroute

#endif  // BLOOMROUTE_LAB_DYNAMIC_COUNT_FILTER_H_
