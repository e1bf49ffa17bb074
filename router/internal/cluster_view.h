// ClusterView: what operators see of the cluster -- the servers with their
// replicas and regions, each table's regions with their rows and bytes,
// index scrutiny, the metrics a scrape collects and the probes behind
// them. It joins the catalog's placement of regions (TableDirectory, the
// catalog) with what each server reports of itself (RegionClient::
// GetFilterStatus, GetRegionStats, OpenRegionIds, VerifyIndex) and with
// the router's replicas (GlobalIndex). It changes nothing in the cluster,
// but for what a reply teaches the write path: a server seen in a new run
// has its replica reloaded and its regions reopened (WritePath::
// NoteIncarnation), one that failed is marked so (ServerFailed).
//
// Every call that asks the servers asks them in parallel (FanOut), and a
// server that does not answer is reported, not fatal (but for
// FetchRegionStats, which answers for one server). Calls that hold a
// table's state let go of it before asking the servers: a region
// operation waits for every holder of a state from before its start.
//
// Thread-safety: no state of its own beyond the context's pieces (which
// lock themselves); every method may be called from any thread at once.
#ifndef BLOOMROUTE_ROUTER_INTERNAL_CLUSTER_VIEW_H_
#define BLOOMROUTE_ROUTER_INTERNAL_CLUSTER_VIEW_H_

#include <cstddef>
#include <cstdint>
#include <functional>
#include <map>
#include <string_view>
#include <vector>

#include "common/statusor.h"
#include "model/region_protocol.h"
#include "router/internal/router_context.h"
#include "router/internal/router_metrics.h"
#include "router/router.h"

namespace bloomroute::router_internal {

class ClusterView {
 public:
  // What the view asks of the rest of the router.
  struct Hooks {
    // Whether `region` of `table` is a target of its switched operation:
    // served staged, so not among the server's OpenRegionIds.
    std::function<bool(const CatalogTable& table, const CatalogRegion& region)>
        is_staged_target;
    // Fills a region summary's balancer fields (Balancer::DescribeRegion).
    std::function<void(router::RegionSummary* summary)> describe_region;
  };

  // `ctx` outlives the view.
  ClusterView(const RouterContext& ctx, Hooks hooks);
  ClusterView(const ClusterView&) = delete;
  ClusterView& operator=(const ClusterView&) = delete;

  // Router::IndexStats: each replica the index lists whose server is
  // known, ascending by server id.
  std::vector<router::ServerIndexStats> IndexStats() const;
  // Router::VerifyIndex: every server holding regions of `table` (enabled
  // or not) checks its index, and its filter is compared with its replica;
  // a server that fails is reported in its entry. NotFound for an unknown
  // table.
  StatusOr<router::VerifyReport> VerifyIndex(std::string_view table);
  // Router::GetClusterStatus: each member's reachability, replica and
  // reopen error, the regions placed on it and those it does not serve.
  router::ClusterStatus GetClusterStatus();
  // Router::ListServers: each member with the regions of ready tables the
  // catalog places on it, their rows and bytes as the server reports them,
  // and those it does not serve; an unreachable server with its error.
  std::vector<router::ServerSummary> ListServers();
  // Router::ListRegions: every region of `table` (enabled or not) with its
  // server, how it is served and its rows and bytes. NotFound for an
  // unknown table.
  StatusOr<std::vector<router::RegionSummary>> ListRegions(
      std::string_view table);
  // Every page of `server`'s region statistics for table `table_id` (0:
  // all), by id; at most `max_regions` regions in all (more: Corruption, as
  // for a page that does not advance), so that a server cannot grow the
  // router's memory past what the catalog places on it.
  // count_rows false: bytes only (RegionStatsRequest::count_rows).
  StatusOr<std::map<uint64_t, RegionStats>> FetchRegionStats(
      const ServerEntry& server, uint64_t table_id, size_t max_regions,
      bool count_rows = true);
  // What a scrape of RouterMetrics reports from the router's state: the
  // replicas (IndexStats), the index's memory, the tables and regions.
  RouterMetrics::Snapshot MetricsSnapshot() const;
  // Router::Activity: the running operations, the probes and the last
  // balancer run (RouterMetrics::Activity).
  router::RouterActivity Activity() const;
  // Maintenance: asks every member for its filter status, in parallel, and
  // notes in the metrics whether it answered; forgets the probes of
  // servers no longer members.
  void ProbeServers();

 private:
  // One server's part of VerifyIndex.
  router::ServerVerifyReport VerifyServer(ServerId id, uint64_t table_id);

  const RouterContext& ctx_;
  const Hooks hooks_;
};

}  // namespace bloomroute::router_internal

#endif  // BLOOMROUTE_ROUTER_INTERNAL_CLUSTER_VIEW_H_
