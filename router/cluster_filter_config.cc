#include "router/cluster_filter_config.h"

#include <cmath>
#include <cstdio>
#include <string>

namespace bloomroute::router {

// Why these defaults (r = 0.8, n0 = 16,384 rather than the per-server
// defaults r = 0.5, n0 = 1,024 that SscbfConfig has).
//
// At 1,024 servers and F = 0.05 each server gets P = 0.05 / 1024 ~ 4.9e-5.
// Figures for that P, a filter grown by inserts from empty to 100,000 values
// with growth factor s = 2 (computed from the stage ladder, StageGeometryFor):
//
//   r    n0      occupancy bits per value   expected false routes at 1,024
//                (what the router keeps)    servers (fill^k summed over stages)
//   0.5  1,024   39.5                       0.03
//   0.8  16,384  29.1                       0.016
//
// A small r tightens each new stage fast (k_i = k_0 + i log2(1/r) slices),
// so a filter that grew through many stages pays for its late stages' low
// error with many slices; r = 0.8 adds a slice only every ~3 stages. A larger
// n0 means fewer stages for the same values. Almeida et al., Scalable Bloom
// Filters (2007), recommend r of 0.8-0.9 for growth s = 2. Both configs keep
// the bound N * P <= F; the second costs a quarter less router memory.

namespace {

Status OutOfRange(const char* field, const char* flag,
                  const std::string& range) {
  return Status::InvalidArgument(std::string("filter ") + field + " (" + flag +
                                 ") must be in " + range);
}

// An end of a range as a person writes it: 4096, 0.01.
std::string FormatEnd(double v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%g", v);
  return buf;
}

}  // namespace

std::string RealRange::Describe() const {
  return std::string(open_low ? "(" : "[") + FormatEnd(min) + ", " +
         FormatEnd(max) + (open_high ? ")" : "]");
}

Status ClusterFilterOptions::Validate() const {
  using F = ClusterFilterOptions;
  if (!F::kTargetFalseRoutesRange.Contains(target_false_routes)) {
    return OutOfRange("target_false_routes", "--target-false-routes",
                      F::kTargetFalseRoutesRange.Describe());
  }
  if (!F::kTighteningRatioRange.Contains(tightening_ratio)) {
    return OutOfRange("tightening_ratio", "--filter-tightening-ratio",
                      F::kTighteningRatioRange.Describe());
  }
  if (!F::kGrowthFactorRange.Contains(growth_factor)) {
    return OutOfRange("growth_factor", "--filter-growth-factor",
                      F::kGrowthFactorRange.Describe());
  }
  if (initial_capacity == 0 || initial_capacity > kMaxInitialCapacity) {
    return OutOfRange("initial_capacity", "--filter-initial-capacity",
                      "[1, 2^40]");
  }
  if (base_bits == 0 || base_bits > DdcfCounterVector::kMaxBaseBits) {
    return OutOfRange("base_bits", "ClusterFilterOptions::base_bits, no flag",
                      "[1, 16]");
  }
  if (!F::kFullFillRange.Contains(full_fill)) {
    return OutOfRange("full_fill", "ClusterFilterOptions::full_fill, no flag",
                      F::kFullFillRange.Describe());
  }
  return Status::OK();
}

uint64_t ServerCountBound(size_t servers) {
  uint64_t bound = 1;
  // Stops at 2^63: no cluster comes near it (RouterOptions::kMaxServers).
  while (bound < servers && bound < (uint64_t{1} << 63)) bound <<= 1;
  return bound;
}

StatusOr<SscbfConfig> ClusterFilterConfig(const ClusterFilterOptions& options,
                                          size_t servers) {
  BLOOMROUTE_RETURN_IF_ERROR(options.Validate());
  SscbfConfig c;
  c.target_fpr = options.target_false_routes /
                 static_cast<double>(ServerCountBound(servers));
  c.tightening_ratio = options.tightening_ratio;
  c.growth_factor = options.growth_factor;
  c.initial_capacity = options.initial_capacity;
  c.base_bits = options.base_bits;
  c.full_fill = options.full_fill;
  const Status valid = c.Validate();
  if (!valid.ok()) {
    return Status::InvalidArgument(
        "filter config for " + std::to_string(servers) +
        " region servers: per-server target " + std::to_string(c.target_fpr) +
        " from --target-false-routes " +
        std::to_string(options.target_false_routes) +
        " (with --filter-initial-capacity, --filter-tightening-ratio): " +
        valid.message());
  }
  return c;
}

}  // namespace bloomroute::router
