#include "lab/dynamic_count_filter.h"

#include <cmath>
#include <string>
#include <type_traits>

namespace bloomroute {

namespace {

uint32_t ExtraBits(const DcfCounterVector& c) { return c.overflow_bits(); }
uint32_t ExtraBits(const DdcfCounterVector& c) { return c.plane_count(); }

}  // namespace

template <typename Counters>
StatusOr<DynamicCountFilter<Counters>> DynamicCountFilter<Counters>::Create(
    uint64_t counters, uint32_t hashes, uint32_t base_bits) {
  if (hashes == 0 || hashes > internal::kMaxProbes) {
    return Status::InvalidArgument("counting filter hash count " +
                                   std::to_string(hashes) + " outside [1, 64]");
  }
  BLOOMROUTE_ASSIGN_OR_RETURN(Counters c,
                              Counters::Create(counters, base_bits));
  return DynamicCountFilter(std::move(c), hashes);
}

template <typename Counters>
const char* DynamicCountFilter<Counters>::name() const {
  return std::is_same_v<Counters, DcfCounterVector> ? "DCF" : "DDCF";
}

template <typename Counters>
Status DynamicCountFilter<Counters>::Insert(const ElementHash& h) {
  uint64_t pos[internal::kMaxProbes];
  internal::ProbeSlots(h, hashes_, counters_.size(), pos);
  // Checked before anything changes, so a refused insert changes nothing; only
  // counters already grown to 32 bits can refuse.
  if (counters_.value_bits() == Counters::kMaxValueBits) {
    for (uint32_t j = 0; j < hashes_; ++j) {
      if (uint64_t{counters_.Get(pos[j])} +
              internal::SlotMultiplicity(pos, hashes_, j) >
          UINT32_MAX) {
        return Status::InvalidArgument("counter limit 2^32-1 reached");
      }
    }
  }
  for (uint32_t j = 0; j < hashes_; ++j) {
    BLOOMROUTE_RETURN_IF_ERROR(counters_.Increment(pos[j]));
  }
  ++elements_;
  return Status::OK();
}

template <typename Counters>
Status DynamicCountFilter<Counters>::Remove(const ElementHash& h) {
  uint64_t pos[internal::kMaxProbes];
  internal::ProbeSlots(h, hashes_, counters_.size(), pos);
  for (uint32_t j = 0; j < hashes_; ++j) {
    if (counters_.Get(pos[j]) < internal::SlotMultiplicity(pos, hashes_, j)) {
      return Status::InvalidArgument(std::string(name()) +
                                     " remove of element " + ToHex(h) +
                                     " that is not in the filter");
    }
  }
  for (uint32_t j = 0; j < hashes_; ++j) {
    BLOOMROUTE_RETURN_IF_ERROR(counters_.Decrement(pos[j]));
  }
  --elements_;
  return Status::OK();
}

template <typename Counters>
double DynamicCountFilter<Counters>::EstimatedFpr() const {
  return std::pow(static_cast<double>(counters_.nonzero_count()) /
                      static_cast<double>(counters_.size()),
                  static_cast<double>(hashes_));
}

template <typename Counters>
FilterStats DynamicCountFilter<Counters>::Stats() const {
  FilterStats s;
  s.elements = elements_;
  s.memory_bytes = MemoryBytes();
  s.estimated_fpr = EstimatedFpr();
  s.parts = ExtraBits(counters_);
  return s;
}

template class DynamicCountFilter<DcfCounterVector>;
template class DynamicCountFilter<DdcfCounterVector>;

}  // namespace bloomroute
