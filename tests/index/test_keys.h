// Deterministic element hashes for filter tests: Key(i) is the element
// (table 7, column 3, value = the 8 bytes of i). Tests draw present keys from
// small i and absent keys from i >= kAbsentBase, so the two never overlap.
#ifndef BLOOMROUTE_TESTS_INDEX_TEST_KEYS_H_
#define BLOOMROUTE_TESTS_INDEX_TEST_KEYS_H_

#include <cmath>
#include <cstdint>
#include <string>

#include "common/coding.h"
#include "index/element_hash.h"

namespace bloomroute::testing {

inline constexpr uint64_t kAbsentBase = uint64_t{1} << 40;

inline ElementHash Key(uint64_t i) {
  char buf[8];
  EncodeFixed64(buf, i);
  return HashElement(7, 3, std::string_view(buf, sizeof(buf)));
}

// The largest deviation of a Binomial(n, p) count's rate from p that the
// tests accept: `sigmas` standard deviations. At 6 sigma a correct filter fails
// with probability below 2e-9 (and the seeds are fixed, so runs repeat).
inline double RateTolerance(double p, uint64_t n, double sigmas = 6.0) {
  return sigmas * std::sqrt(p * (1.0 - p) / static_cast<double>(n));
}

}  // namespace bloomroute::testing

#endif  // BLOOMROUTE_TESTS_INDEX_TEST_KEYS_H_
