// RouterOptions::Validate: the addresses, the filter config, then every
// numeric field against its FieldRange (router_options.h).
#include "router/router_options.h"

#include <set>
#include <string>
#include <type_traits>
#include <variant>

namespace bloomroute::router {
namespace {

// A numeric field as Validate checks it: the name its message gives (with
// the flag that sets it, where the message names one), the field, its
// range, and text after the bound.
struct NumericField {
  using Member = std::variant<uint32_t RouterOptions::*, int RouterOptions::*,
                              uint64_t RouterOptions::*>;
  const char* name;
  Member member;
  FieldRange range;
  const char* suffix = "";

  int64_t Value(const RouterOptions& o) const {
    return std::visit(
        [&o](auto m) -> int64_t {
          const auto v = o.*m;
          // A uint64_t above INT64_MAX is within kNoUpperBound.
          if constexpr (std::is_unsigned_v<decltype(v)>) {
            if (v > static_cast<uint64_t>(FieldRange::kNoUpperBound)) {
              return FieldRange::kNoUpperBound;
            }
          }
          return static_cast<int64_t>(v);
        },
        member);
  }
  // "must be in [min, max]", or "is above max" for an unsigned field from
  // 0, "must be >= min" or "must be 0 or at least min" without an upper
  // bound.
  std::string Bounds() const {
    const std::string min = std::to_string(range.min);
    if (range.max == FieldRange::kNoUpperBound) {
      return range.zero_allowed ? " must be 0 or at least " + min
                                : " must be >= " + min;
    }
    if (range.min == 0 &&
        !std::holds_alternative<int RouterOptions::*>(member)) {
      return " is above " + std::to_string(range.max);
    }
    return " must be in [" + min + ", " + std::to_string(range.max) + "]";
  }
  Status Check(const RouterOptions& o) const {
    const int64_t v = Value(o);
    if ((range.zero_allowed && v == 0) || (v >= range.min && v <= range.max)) {
      return Status::OK();
    }
    return Status::InvalidArgument(name + Bounds() + suffix);
  }
};

using O = RouterOptions;
// In the order Validate checks them (the first bad one is named).
const NumericField kNumericFields[] = {
    {"fanout_threads", &O::fanout_threads, O::kFanoutThreadsRange},
    {"min_coordinator_epoch (--min-coordinator-epoch)",
     &O::min_coordinator_epoch, O::kMinCoordinatorEpochRange},
    {"router_id", &O::router_id, O::kRouterIdRange},
    {"op_lease_ms", &O::op_lease_ms, O::kOpLeaseMsRange},
    {"server_calls_per_request", &O::server_calls_per_request,
     O::kServerCallsPerRequestRange},
    {"balancer_interval_ms (--balancer-interval)", &O::balancer_interval_ms,
     O::kBalancerIntervalMsRange},
    {"balancer_max_operations (--balancer-max-operations)",
     &O::balancer_max_operations, O::kBalancerMaxOperationsRange},
    {"split_check_interval_ms", &O::split_check_interval_ms,
     O::kSplitCheckIntervalMsRange},
    {"region_split_bytes (--region-split-bytes)", &O::region_split_bytes,
     O::kRegionSplitBytesRange},
    {"maintenance_interval_ms", &O::maintenance_interval_ms,
     O::kMaintenanceIntervalMsRange},
    {"index_chunk_rows", &O::index_chunk_rows, O::kIndexChunkRowsRange,
     " (--index-chunk-rows)"},
    {"index_chunks_per_pass", &O::index_chunks_per_pass,
     O::kIndexChunksPerPassRange},
    {"max_scanners", &O::max_scanners, O::kScannersRange},
    {"max_scanners_per_client", &O::max_scanners_per_client, O::kScannersRange},
    {"max_scanners_per_principal", &O::max_scanners_per_principal,
     O::kScannersRange},
    {"call_work_budget_ms", &O::call_work_budget_ms, O::kCallWorkBudgetMsRange,
     " (--call-work-budget-ms)"},
    {"scanner_idle_timeout_ms", &O::scanner_idle_timeout_ms,
     O::kScannerIdleTimeoutMsRange},
    {"max_reply_bytes", &O::max_reply_bytes, O::kMaxReplyBytesRange},
    {"max_tables", &O::max_tables, O::kMaxTablesRange},
    {"max_filter_bytes", &O::max_filter_bytes, O::kMaxFilterBytesRange},
    {"max_table_bytes", &O::max_table_bytes, O::kMaxTableBytesRange},
    {"max_listed_descriptor_bytes", &O::max_listed_descriptor_bytes,
     O::kMaxListedDescriptorBytesRange},
};

Status ValidateRegionServers(const std::vector<std::string>& servers) {
  // Empty is checked by Router::Open against the catalog's members.
  if (servers.size() > RouterOptions::kMaxServers) {
    return Status::InvalidArgument("region_servers must name at most " +
                                   std::to_string(RouterOptions::kMaxServers) +
                                   " servers");
  }
  std::set<std::string> seen;
  for (const std::string& a : servers) {
    if (a.empty() || a.size() > 300) {
      return Status::InvalidArgument("region server address " +
                                     QuoteForMessage(a) + " is not host:port");
    }
    if (!seen.insert(a).second) {
      return Status::InvalidArgument("region server " + a + " is named twice");
    }
  }
  return Status::OK();
}

}  // namespace

Status RouterOptions::Validate() const {
  BLOOMROUTE_RETURN_IF_ERROR(ValidateRegionServers(region_servers));
  BLOOMROUTE_RETURN_IF_ERROR(
      ClusterFilterConfig(filter, region_servers.size()).status());
  for (const NumericField& field : kNumericFields) {
    BLOOMROUTE_RETURN_IF_ERROR(field.Check(*this));
  }
  // Renewals ride on maintenance passes: a pass must come round well
  // before a third of the lease is left.
  if (!op_push_address.empty() &&
      int64_t{maintenance_interval_ms} * 3 >= int64_t{op_lease_ms}) {
    return Status::InvalidArgument(
        "op_lease_ms (" + std::to_string(op_lease_ms) +
        ") must be more than 3 x maintenance_interval_ms (" +
        std::to_string(maintenance_interval_ms) + ")");
  }
  return Status::OK();
}

}  // namespace bloomroute::router
