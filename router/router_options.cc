// RouterOptions::Validate.
#include "router/router_options.h"

#include <set>
#include <string>

#include "model/types.h"

namespace bloomroute::router {

Status RouterOptions::Validate() const {
  if (data_dir.empty()) return Status::InvalidArgument("data_dir is empty");
  // Empty is checked by Router::Open against the catalog's members.
  if (region_servers.size() > kMaxServers) {
    return Status::InvalidArgument("region_servers must name at most " +
                                   std::to_string(kMaxServers) + " servers");
  }
  std::set<std::string> seen;
  for (const std::string& a : region_servers) {
    if (a.empty() || a.size() > 300) {
      return Status::InvalidArgument("region server address " +
                                     QuoteForMessage(a) + " is not host:port");
    }
    if (!seen.insert(a).second) {
      return Status::InvalidArgument("region server " + a + " is named twice");
    }
  }
  BLOOMROUTE_RETURN_IF_ERROR(
      ClusterFilterConfig(filter, region_servers.size()).status());
  if (fanout_threads > kMaxFanoutThreads) {
    return Status::InvalidArgument("fanout_threads is above " +
                                   std::to_string(kMaxFanoutThreads));
  }
  if (server_calls_per_request < 1 ||
      server_calls_per_request > kMaxFanoutThreads) {
    return Status::InvalidArgument("server_calls_per_request must be in [1, " +
                                   std::to_string(kMaxFanoutThreads) + "]");
  }
  if (balancer_interval_ms < 0 ||
      balancer_interval_ms > kMaxBalancerIntervalMs) {
    return Status::InvalidArgument(
        "balancer_interval_ms (--balancer-interval) must be in [0, " +
        std::to_string(kMaxBalancerIntervalMs) + "]");
  }
  if (balancer_max_operations < 1 ||
      balancer_max_operations > kMaxBalancerOperations) {
    return Status::InvalidArgument(
        "balancer_max_operations (--balancer-max-operations) must be in "
        "[1, " +
        std::to_string(kMaxBalancerOperations) + "]");
  }
  if (split_check_interval_ms < 0 ||
      split_check_interval_ms > kMaxBalancerIntervalMs) {
    return Status::InvalidArgument("split_check_interval_ms must be in [0, " +
                                   std::to_string(kMaxBalancerIntervalMs) +
                                   "]");
  }
  if (region_split_bytes != 0 && region_split_bytes < kMinRegionSplitBytes) {
    return Status::InvalidArgument(
        "region_split_bytes (--region-split-bytes) must be 0 or at least " +
        std::to_string(kMinRegionSplitBytes));
  }
  if (maintenance_interval_ms < 10 || maintenance_interval_ms > 3600000) {
    return Status::InvalidArgument(
        "maintenance_interval_ms must be in [10, 3600000]");
  }
  if (index_chunk_rows < 1 || index_chunk_rows > kMaxRowsPerCall) {
    return Status::InvalidArgument("index_chunk_rows must be in [1, " +
                                   std::to_string(kMaxRowsPerCall) +
                                   "] (--index-chunk-rows)");
  }
  if (index_chunks_per_pass < 1) {
    return Status::InvalidArgument("index_chunks_per_pass must be >= 1");
  }
  if (max_scanners < 1 || max_scanners > 1000000) {
    return Status::InvalidArgument("max_scanners must be in [1, 1000000]");
  }
  if (max_scanners_per_client < 1 || max_scanners_per_client > 1000000) {
    return Status::InvalidArgument(
        "max_scanners_per_client must be in [1, 1000000]");
  }
  if (max_scanners_per_principal < 1 || max_scanners_per_principal > 1000000) {
    return Status::InvalidArgument(
        "max_scanners_per_principal must be in [1, 1000000]");
  }
  if (call_work_budget_ms < 1 || call_work_budget_ms > 3600000) {
    return Status::InvalidArgument(
        "call_work_budget_ms must be in [1, 3600000] (--call-work-budget-ms)");
  }
  if (scanner_idle_timeout_ms < 1000) {
    return Status::InvalidArgument("scanner_idle_timeout_ms must be >= 1000");
  }
  if (max_reply_bytes < 1 || max_reply_bytes > kMaxReplyBytes) {
    return Status::InvalidArgument("max_reply_bytes must be in [1, " +
                                   std::to_string(kMaxReplyBytes) + "]");
  }
  if (max_tables < 1 || max_tables > kMaxTablesLimit) {
    return Status::InvalidArgument("max_tables must be in [1, " +
                                   std::to_string(kMaxTablesLimit) + "]");
  }
  if (max_filter_bytes < 1 || max_filter_bytes > kMaxFilterTextBytes) {
    return Status::InvalidArgument("max_filter_bytes must be in [1, " +
                                   std::to_string(kMaxFilterTextBytes) + "]");
  }
  if (max_table_bytes < kMinTableBytes || max_table_bytes > kMaxTableBytes) {
    return Status::InvalidArgument("max_table_bytes must be in [" +
                                   std::to_string(kMinTableBytes) + ", " +
                                   std::to_string(kMaxTableBytes) + "]");
  }
  if (max_listed_descriptor_bytes < kMinTableBytes ||
      max_listed_descriptor_bytes > kMaxListedDescriptorBytes) {
    return Status::InvalidArgument("max_listed_descriptor_bytes must be in [" +
                                   std::to_string(kMinTableBytes) + ", " +
                                   std::to_string(kMaxListedDescriptorBytes) +
                                   "]");
  }
  return Status::OK();
}

}  // namespace bloomroute::router
