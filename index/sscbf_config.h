// SscbfConfig and SscbfStats: what a scalable split counting Bloom filter
// (index/scalable_split_counting_bloom_filter.h, which has the formulas) is
// configured with and reports, apart from the filter itself, so that a
// header that only names a config or shows statistics (the router's options
// and reports) does not include the filter's internals.
#ifndef BLOOMROUTE_INDEX_SSCBF_CONFIG_H_
#define BLOOMROUTE_INDEX_SSCBF_CONFIG_H_

#include <cstdint>
#include <string>
#include <vector>

#include "common/coding.h"
#include "common/status.h"
#include "common/statusor.h"
#include "index/ddcf_counter_vector.h"

namespace bloomroute {

struct SscbfConfig {
  double target_fpr = 0.01;          // P, the compounded bound, in (0, 1)
  double tightening_ratio = 0.5;     // r, in (0, 1)
  double growth_factor = 2.0;        // s, in [1, 16]
  uint64_t initial_capacity = 1024;  // n0, elements in stage 0, >= 1
  uint32_t base_bits = DdcfCounterVector::kDefaultBaseBits;  // x, in [1, 16]
  double full_fill = 0.5;  // stage full at this mean fill, in [0.01, 0.99]

  // InvalidArgument naming the first field out of range, or when stage 0 would
  // need slices longer than 2^32 or more than 64 slices.
  [[nodiscard]] Status Validate() const;

  friend bool operator==(const SscbfConfig& a, const SscbfConfig& b) {
    return a.target_fpr == b.target_fpr &&
           a.tightening_ratio == b.tightening_ratio &&
           a.growth_factor == b.growth_factor &&
           a.initial_capacity == b.initial_capacity &&
           a.base_bits == b.base_bits && a.full_fill == b.full_fill;
  }
};

// The geometry of stage `stage` under a config; see the formulas above.
struct StageGeometry {
  uint32_t stage = 0;
  double target_fpr = 0;      // P_i
  uint32_t slices = 0;        // k_i
  uint64_t slice_length = 0;  // m_i
  uint64_t capacity = 0;      // n_i
  uint32_t first_probe = 0;   // k_0 + ... + k_{i-1}
};

// The config's fields in the encoding every filter format embeds (fixed
// width, little-endian), and its decoder: Corruption when the bytes run out
// or the config they hold is not Valid().
void EncodeSscbfConfig(const SscbfConfig& config, std::string* dst);
[[nodiscard]] Status DecodeSscbfConfig(ByteReader* in, SscbfConfig* config);

// InvalidArgument when the config is invalid or the stage cannot be built
// (more than 64 slices, slices longer than 2^32, or stage >= kMaxStages).
StatusOr<StageGeometry> StageGeometryFor(const SscbfConfig& config,
                                         uint32_t stage);

struct StageStats {
  StageGeometry geometry;
  uint64_t elements = 0;
  double fill = 0;           // mean slice fill
  double estimated_fpr = 0;  // product of slice fills
  uint32_t planes = 0;       // most DDCF planes in any slice
  uint64_t memory_bytes = 0;
};

struct SscbfStats {
  std::vector<StageStats> stages;
  uint64_t elements = 0;
  // 1 - prod_i (1 - estimated_fpr_i): the FPR of the whole filter now.
  double estimated_fpr = 0;
  // 1 - prod_i (1 - P_i) over the open stages: what the geometry guarantees.
  double compounded_bound = 0;
  uint64_t memory_bytes = 0;
};

}  // namespace bloomroute

#endif  // BLOOMROUTE_INDEX_SSCBF_CONFIG_H_
