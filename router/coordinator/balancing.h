// Balancing: the balancer's side of the router -- Router::Balance and the
// background runs of Balancer (balancer.h) over the cluster it sees
// (BalancerCluster, implemented here over the context's catalog and server
// set, its steps run by RegionOps), and decommissioning a member
// (Router::DecommissionServer: its regions moved off, then removed).
//
// Thread-safe: Balancer locks its backoff, RegionOps runs one operation at
// a time, and the server set locks itself.
#ifndef BLOOMROUTE_ROUTER_COORDINATOR_BALANCING_H_
#define BLOOMROUTE_ROUTER_COORDINATOR_BALANCING_H_

#include <cstddef>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <set>
#include <vector>

#include "common/status.h"
#include "common/statusor.h"
#include "model/region_protocol.h"
#include "router/coordinator/balancer.h"
#include "router/coordinator/region_ops.h"
#include "router/internal/router_context.h"
#include "router/router_reports.h"

namespace bloomroute::router_internal {

class Balancing : private BalancerCluster {
 public:
  // What balancing asks of the rest of the router.
  struct Hooks {
    // Every page of `server`'s region statistics for table `table_id` (0:
    // all), by id, at most `max_regions` regions; rows counted when
    // `count_rows` (ClusterView::FetchRegionStats).
    std::function<StatusOr<std::map<uint64_t, RegionStats>>(
        const ServerEntry& server, uint64_t table_id, size_t max_regions,
        bool count_rows)>
        region_stats;
    // Removes member `id` (Router::RemoveServer): refused while it holds
    // regions.
    std::function<Status(ServerId id)> remove_server;
  };

  // `ctx` and `region_ops` outlive this object. The balancer's split size
  // and operations per run are ctx.options'.
  Balancing(const RouterContext& ctx, RegionOps* region_ops, Hooks hooks);
  Balancing(const Balancing&) = delete;
  Balancing& operator=(const Balancing&) = delete;

  // Router::Balance: one run of the balancer (moves too), counted in the
  // metrics.
  StatusOr<router::BalanceReport> Balance(uint32_t max_operations);
  // Router::DecommissionServer: marks `id` draining, moves every region of
  // ready tables off it (to the member with the fewest regions, one at a
  // time), then removes it; the moves made. NotFound for a server that is
  // not a member; a failure names how many moves were made.
  StatusOr<std::vector<router::BalanceReport::Step>> DecommissionServer(
      ServerId id);
  // MaintenanceDuties: a background run of the balancer (RunBalancer with
  // RouterOptions::balancer_max_operations), its failures left to the next
  // run. With `moves` false only the automatic splits.
  void RunBalancerPass(bool moves);
  // For ListRegions: the balancer's fields of a region it skips now.
  void DescribeRegion(router::RegionSummary* summary) const {
    balancer_.DescribeRegion(summary);
  }

 private:
  // One run of balancer_ (Balance), counted in the metrics; with `moves`
  // false only the splits of regions past their size (the automatic
  // splits).
  router::BalanceReport RunBalancer(uint32_t max_operations, bool moves);
  // Moves every region of ready tables off `id` (DecommissionServer),
  // appending each move to *moves.
  [[nodiscard]] Status DrainServer(
      ServerId id, std::vector<router::BalanceReport::Step>* moves);

  // BalancerCluster: the cluster as balancer_ sees and changes it. RunSplit
  // and RunMove wait for a region operation under way.
  std::set<ServerId> Members() const override;
  bool Draining(ServerId id) const override;
  std::shared_ptr<const CatalogStore::TableList> Tables() const override;
  router::ServerRef Ref(ServerId id) const override;
  std::vector<StatusOr<std::map<uint64_t, uint64_t>>> RegionBytes(
      const std::vector<ServerId>& ids,
      const std::vector<size_t>& max_regions) override;
  StatusOr<router::RegionOpResult> RunSplit(uint64_t region_id) override;
  StatusOr<router::RegionOpResult> RunMove(uint64_t region_id,
                                           ServerId to) override;

  const RouterContext& ctx_;
  RegionOps* const region_ops_;
  const Hooks hooks_;
  // The balancer, and the regions it skips after a failed split or move.
  Balancer balancer_;
};

}  // namespace bloomroute::router_internal

#endif  // BLOOMROUTE_ROUTER_COORDINATOR_BALANCING_H_
