// Probe positions of the unsplit filters (standard Bloom and counting filters,
// DCF, DDCF filter, DCBF): k probes of one element hash over one array of m
// slots, probe j at ProbePosition(h, j, m) (element_hash.h). Unlike a split
// filter's, two probes of one element may land on the same slot, so a counting
// filter that increments twice must also be able to decrement twice: Remove
// checks multiplicities with SlotMultiplicity before changing anything.
#ifndef BLOOMROUTE_LAB_INTERNAL_PROBES_H_
#define BLOOMROUTE_LAB_INTERNAL_PROBES_H_

#include <cstdint>

#include "index/element_hash.h"

namespace bloomroute::internal {

// The most probes an unsplit filter takes (k).
inline constexpr uint32_t kMaxProbes = 64;

// Writes the k probe slots of `h` in an array of m slots to pos[0..k).
inline void ProbeSlots(const ElementHash& h, uint32_t k, uint64_t m,
                       uint64_t* pos) {
  for (uint32_t j = 0; j < k; ++j) pos[j] = ProbePosition(h, j, m);
}

// How many of pos[0..k) equal pos[j] (1 when the slot is not repeated).
inline uint32_t SlotMultiplicity(const uint64_t* pos, uint32_t k, uint32_t j) {
  uint32_t count = 0;
  for (uint32_t t = 0; t < k; ++t) count += pos[t] == pos[j];
  return count;
}

}  // namespace bloomroute::internal

#endif  // BLOOMROUTE_LAB_INTERNAL_PROBES_H_
