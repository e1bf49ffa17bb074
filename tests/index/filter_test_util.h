// Helpers shared by the filter tests.
//
// Key(i) is a deterministic element hash: the element (table 7, column 3,
// value = the 8 bytes of i). Tests draw present keys from small i and absent
// keys from i >= kAbsentBase, so the two never overlap.
#ifndef BLOOMROUTE_TESTS_INDEX_FILTER_TEST_UTIL_H_
#define BLOOMROUTE_TESTS_INDEX_FILTER_TEST_UTIL_H_

#include <cmath>
#include <cstdint>
#include <string>

#include "common/coding.h"
#include "index/element_hash.h"
#include "index/internal/frame.h"
#include "index/split_counting_bloom_filter.h"

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

// The fraction of the absent keys Key(kAbsentBase + i), i < probes, that `f`
// reports present. Any filter with `bool Contains(const ElementHash&)`.
template <typename Filter>
double MeasuredFpr(const Filter& f, uint64_t probes) {
  uint64_t positives = 0;
  for (uint64_t i = 0; i < probes; ++i) {
    positives += f.Contains(Key(kAbsentBase + i));
  }
  return static_cast<double>(positives) / static_cast<double>(probes);
}

// A frame of `kind` (version 1) around a hand-made payload, with a valid
// checksum, so that a test reaches the decoder's own validation.
inline std::string Framed(internal::FrameKind kind, std::string_view payload,
                          uint8_t version = 1) {
  std::string out;
  const size_t start = internal::StartFrame(kind, version, &out);
  out.append(payload);
  internal::FinishFrame(start, &out);
  return out;
}

// The payload of a frame produced by Serialize().
inline std::string PayloadOf(const std::string& framed) {
  return framed.substr(internal::kFrameHeaderBytes,
                       framed.size() - internal::kFrameHeaderBytes -
                           internal::kFrameTrailerBytes);
}

// True when every counter of every slice is zero and no slice has a plane.
inline bool AllCountersZero(const SplitCountingBloomFilter& f) {
  for (uint32_t j = 0; j < f.slice_count(); ++j) {
    if (f.slice(j).nonzero_count() != 0 || f.slice(j).plane_count() != 0) {
      return false;
    }
  }
  return true;
}

}  // namespace bloomroute::testing

#endif  // BLOOMROUTE_TESTS_INDEX_FILTER_TEST_UTIL_H_
