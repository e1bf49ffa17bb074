#include "router/cluster_filter_config.h"

#include <cmath>
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

Status OutOfRange(const char* field, const char* flag, const char* range) {
  return Status::InvalidArgument(std::string("filter ") + field + " (" + flag +
                                 ") must be in " + range);
}

}  // namespace

Status ClusterFilterOptions::Validate() const {
  if (!(target_false_routes > 0.0 &&
        target_false_routes <= kMaxTargetFalseRoutes)) {
    return OutOfRange("target_false_routes", "--target-false-routes",
                      "(0, 4096]");
  }
  if (!(tightening_ratio > 0.0 && tightening_ratio < 1.0)) {
    return OutOfRange("tightening_ratio", "--filter-tightening-ratio",
                      "(0, 1)");
  }
  if (!(growth_factor >= 1.0 && growth_factor <= 16.0)) {
    return OutOfRange("growth_factor", "--filter-growth-factor", "[1, 16]");
  }
  if (initial_capacity == 0 || initial_capacity > (uint64_t{1} << 53)) {
    return OutOfRange("initial_capacity", "--filter-initial-capacity",
                      "[1, 2^53]");
  }
  if (base_bits == 0 || base_bits > DdcfCounterVector::kMaxBaseBits) {
    return OutOfRange("base_bits", "ClusterFilterOptions::base_bits, no flag",
                      "[1, 16]");
  }
  if (!(full_fill >= 0.01 && full_fill <= 0.99)) {
    return OutOfRange("full_fill", "ClusterFilterOptions::full_fill, no flag",
                      "[0.01, 0.99]");
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
