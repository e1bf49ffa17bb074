// The cluster's filter config: one SscbfConfig for every region server,
// derived by the router from what a lookup may cost in false routes.
//
// Every region server keeps an SSCBF over its distinct values and the router
// asks a server when its filter says "maybe". A value absent everywhere is
// routed to each server with probability at most that server's compounded
// bound P, so a lookup's expected false routes are at most N * P for N
// servers. The router aims at F expected false routes per lookup
// (ClusterFilterOptions::target_false_routes) and gives every server
//
//   P = F / 2^ceil(log2(max(N, 1)))            (so N * P <= F)
//
// Rounding N up to a power of two means the config (and so every server's
// filter, which is rebuilt under a new epoch when its config changes) changes
// only when the cluster crosses a power of two, not on every join.
//
// Usage:
//   ClusterFilterOptions o;                 // F = 0.05
//   StatusOr<SscbfConfig> c = ClusterFilterConfig(o, servers.size());
//   if (!c.ok()) return c.status();         // names the field and its flag
//   (void)client->SetFilterConfig(*c);      // on every server
#ifndef BLOOMROUTE_ROUTER_CLUSTER_FILTER_CONFIG_H_
#define BLOOMROUTE_ROUTER_CLUSTER_FILTER_CONFIG_H_

#include <cstddef>
#include <cstdint>
#include <string>

#include "common/statusor.h"
#include "index/ddcf_counter_vector.h"
#include "index/sscbf_config.h"

namespace bloomroute::router {

// The bounds of a real-valued option, stated once: Validate checks them and
// the command line (tools/router_command.cc) declares its flags with them,
// so a flag's help cannot disagree with the check.
struct RealRange {
  double min = 0;
  double max = 0;
  bool open_low = false;   // min itself is outside
  bool open_high = false;  // max itself is outside

  constexpr bool Contains(double v) const {
    return (open_low ? v > min : v >= min) && (open_high ? v < max : v <= max);
  }
  // "(0, 1)", "[1, 16]", "[0.01, 0.99]".
  std::string Describe() const;
};

// What the router's operator chooses; the per-server P is derived from it.
// The defaults' reasoning: cluster_filter_config.cc.
struct ClusterFilterOptions {
  // A lookup cannot have more false routes than servers
  // (RouterOptions::kMaxServers).
  static constexpr double kMaxTargetFalseRoutes = 4096;
  static constexpr RealRange kTargetFalseRoutesRange{0, kMaxTargetFalseRoutes,
                                                     true, false};
  static constexpr RealRange kTighteningRatioRange{0, 1, true, true};
  static constexpr RealRange kGrowthFactorRange{1, 16};
  static constexpr RealRange kFullFillRange{0.01, 0.99};
  // Far above what a stage can hold (SscbfConfig::Validate refuses slices
  // longer than 2^32 bits, about 3e9 values at fill 1/2); a bound on input.
  static constexpr uint64_t kMaxInitialCapacity = uint64_t{1} << 40;

  double target_false_routes = 0.05;  // F: --target-false-routes
  double tightening_ratio = 0.8;      // r: --filter-tightening-ratio
  double growth_factor = 2.0;         // s: --filter-growth-factor
  // n0: --filter-initial-capacity, in [1, kMaxInitialCapacity]
  uint64_t initial_capacity = 16384;
  uint32_t base_bits = DdcfCounterVector::kDefaultBaseBits;  // x, in [1, 16]
  double full_fill = 0.5;  // a stage is full at this fill

  // InvalidArgument naming the first field out of range and the flag that
  // sets it. (Whether stage 0 can be built depends on the number of
  // servers; ClusterFilterConfig checks that.)
  [[nodiscard]] Status Validate() const;
};

// The SscbfConfig each of `servers` region servers gets: the options' r, s,
// n0, x and full fill, and target_fpr P as above (0 servers count as 1).
// InvalidArgument when the options are invalid (Validate), or when the
// derived config is (P >= 1, or stage 0 would need more than 64 slices or
// slices longer than 2^32); the message names --target-false-routes or the
// flag of the field at fault.
StatusOr<SscbfConfig> ClusterFilterConfig(const ClusterFilterOptions& options,
                                          size_t servers);

// 2^ceil(log2(max(servers, 1))): what P divides F by.
uint64_t ServerCountBound(size_t servers);

}  // namespace bloomroute::router

#endif  // BLOOMROUTE_ROUTER_CLUSTER_FILTER_CONFIG_H_
