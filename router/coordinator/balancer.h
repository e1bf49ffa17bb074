// Balancer: automatic splits of regions past their split size, then moves
// that even the servers' region counts (and, among the regions that could
// move, their bytes). Each step is a region operation the cluster runs
// (BalancerCluster: coordinator/balancing.h, over region_ops.h), one at a
// time.
//
// The policy is HBase's simple one (SimpleLoadBalancer: even region counts,
// at most one apart) with bytes as the tie-breaker, and its stepping split
// policy (the first region of a table on a server splits early). It reads
// sizes from the servers' region statistics each run: nothing is kept
// between runs but the regions it skips after a failed step
// (RegionBackoff), so a run after a restart of the router decides the same.
//
// Usage:
//   Balancer balancer(options, &cluster);  // cluster outlives it
//   router::BalanceReport report = balancer.Run(0, /*moves=*/true);
//
// Thread-safety: Run may be called from several threads (the cluster runs
// one region operation at a time); the backoff locks itself.
#ifndef BLOOMROUTE_ROUTER_COORDINATOR_BALANCER_H_
#define BLOOMROUTE_ROUTER_COORDINATOR_BALANCER_H_

#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <vector>

#include "common/statusor.h"
#include "router/coordinator/region_backoff.h"
#include "router/internal/catalog.h"
#include "router/router.h"

namespace bloomroute::router_internal {

struct BalancerLoad;  // balancer.cc

// The cluster as the balancer sees and changes it. Implementations are
// thread-safe.
class BalancerCluster {
 public:
  virtual ~BalancerCluster() = default;
  // The members, draining or not.
  virtual std::set<router::ServerId> Members() const = 0;
  // Whether member `id` is being decommissioned: nothing is placed on it
  // and its regions are the decommission's to move.
  virtual bool Draining(router::ServerId id) const = 0;
  // The catalog's tables (only the ready ones are balanced).
  virtual std::shared_ptr<const CatalogStore::TableList> Tables() const = 0;
  // Member `id` as reports name it.
  virtual router::ServerRef Ref(router::ServerId id) const = 0;
  // The bytes of every region on each of `servers` (rows and index
  // entries, as the server estimates them), by region id, asked in
  // parallel: at most max_regions[i] regions for servers[i] (more:
  // Corruption); a server's error when it did not answer.
  virtual std::vector<StatusOr<std::map<uint64_t, uint64_t>>> RegionBytes(
      const std::vector<router::ServerId>& servers,
      const std::vector<size_t>& max_regions) = 0;
  // Splits region `region_id` at its median, or moves it to member `to`,
  // as Router::SplitRegion and Router::MoveRegion do but after any region
  // operation running now instead of Unavailable.
  virtual StatusOr<router::RegionOpResult> RunSplit(uint64_t region_id) = 0;
  virtual StatusOr<router::RegionOpResult> RunMove(uint64_t region_id,
                                                   router::ServerId to) = 0;
};

class Balancer {
 public:
  struct Options {
    // Regions past this many bytes split; 0: none
    // (RouterOptions::region_split_bytes).
    uint64_t split_bytes = 0;
    // Operations a run makes at most when asked for 0
    // (RouterOptions::balancer_max_operations).
    uint32_t max_operations = 1;
  };

  // `cluster` is not owned and must outlive this object.
  Balancer(const Options& options, BalancerCluster* cluster);
  Balancer(const Balancer&) = delete;
  Balancer& operator=(const Balancer&) = delete;

  // One run (Router::Balance): steps until the cluster is balanced, a step
  // fails for a reason of the cluster's (Unavailable: the run stops), a
  // server does not answer, or `max_operations` (0: Options') were made.
  // With `moves` false only the splits of regions past their size (the
  // automatic splits). A region whose step failed for a reason of its own
  // is skipped (RegionBackoff) and the run goes on without it.
  router::BalanceReport Run(uint32_t max_operations, bool moves);

  // For ListRegions: fills the summary's balancer fields when its region
  // is skipped now.
  void DescribeRegion(router::RegionSummary* summary) const {
    backoff_.Describe(summary);
  }

 private:
  // The parts of a run: where every region of the ready tables is (the
  // catalog, draining members and backoffs); how large (the first error of
  // a server that did not answer); the next step (none: the run ends,
  // *report says why); and running one (false: the run stops).
  BalancerLoad PlaceLoad();
  [[nodiscard]] Status MeasureLoad(BalancerLoad* load);
  std::optional<router::BalanceReport::Step> NextStep(
      const BalancerLoad& load, bool moves, router::BalanceReport* report);
  bool RunStep(router::BalanceReport::Step step, router::BalanceReport* report);

  const Options options_;
  BalancerCluster* const cluster_;
  // Regions skipped after a failed split or move.
  RegionBackoff backoff_;
};

}  // namespace bloomroute::router_internal

#endif  // BLOOMROUTE_ROUTER_COORDINATOR_BALANCER_H_
