// MembershipFilter: the small interface every approximate-membership filter of
// the filter lab implements, so that tests and experiments can treat them
// alike.
//
//   Insert    adds an element (an ElementHash, see element_hash.h).
//   Contains  true if the element may be present; never false for an element
//             that was inserted and not removed (no false negatives).
//   Remove    removes one insertion, where the filter supports it.
//   MemoryBytes, Stats
//             exact storage and a few figures for reports.
//
// Filters differ in what can make Insert fail: fixed-size filters (M-BMBF,
// 2BDBF) refuse an element when every row it may go to is full, and counting
// filters refuse an insert past their counter limit; both are InvalidArgument
// and change nothing. Filters over tuples (MultiDimensionalBloomFilter) or with
// a stage-addressed remove (SSCBF) have their own, richer APIs.
//
// Thread-safety: const methods may run concurrently; mutators need exclusive
// access.
#ifndef BLOOMROUTE_LAB_MEMBERSHIP_FILTER_H_
#define BLOOMROUTE_LAB_MEMBERSHIP_FILTER_H_

#include <cstdint>

#include "common/status.h"
#include "index/element_hash.h"

namespace bloomroute {

struct FilterStats {
  uint64_t elements = 0;  // insertions accepted minus removals
  uint64_t memory_bytes = 0;
  // The filter's own estimate of its false-positive rate, from its fill.
  double estimated_fpr = 0;
  // Parts the filter consists of now: stages (SBF), counting filters (DCBF),
  // rows in use (M-BMBF, 2BDBF), overflow bits / planes (DCF, DDCF), 1 else.
  uint32_t parts = 1;
  // Increments lost to saturated counters (standard CBF only).
  uint64_t overflows = 0;
};

class MembershipFilter {
 public:
  MembershipFilter() = default;
  virtual ~MembershipFilter() = default;
  MembershipFilter(const MembershipFilter&) = delete;
  MembershipFilter& operator=(const MembershipFilter&) = delete;

  // A short name for reports, e.g. "CBF".
  virtual const char* name() const = 0;
  // Adds the element. See the header comment for when it can fail.
  [[nodiscard]] virtual Status Insert(const ElementHash& h) = 0;
  // True if the element may be present.
  virtual bool Contains(const ElementHash& h) const = 0;
  // Whether Remove is supported.
  virtual bool SupportsRemove() const { return false; }
  // Removes one insertion of an element that was inserted and not yet removed.
  // InvalidArgument when unsupported or when the element cannot be in the
  // filter; nothing changes then.
  [[nodiscard]] virtual Status Remove(const ElementHash& h);
  // Exact storage of the filter's bits and counters, in bytes.
  virtual uint64_t MemoryBytes() const = 0;
  virtual FilterStats Stats() const = 0;

 protected:
  MembershipFilter(MembershipFilter&&) noexcept = default;
  MembershipFilter& operator=(MembershipFilter&&) noexcept = default;
};

}  // namespace bloomroute

#endif  // BLOOMROUTE_LAB_MEMBERSHIP_FILTER_H_
