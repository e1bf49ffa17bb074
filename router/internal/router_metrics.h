// RouterMetrics: what a router reports on /metrics (common/metrics.h, the
// process's registry). Counted as things happen:
//   bloomroute_lookups_total                           lookups and counts
//   bloomroute_lookup_servers_asked_total              servers they asked
//   bloomroute_lookup_servers_asked_not_current_total  of those, asked
//                                                      because the replica
//                                                      was not current
//   bloomroute_lookup_servers_with_rows_total          of those, with rows
//   bloomroute_lookup_rows_returned_total              rows returned
//   bloomroute_lookup_fanout                           histogram of servers
//                                                      asked per lookup
//   bloomroute_balancer_runs_total, bloomroute_balancer_moves_total{kind}
// so false routes per lookup is
//   (rate(..._servers_asked_total) - rate(..._servers_with_rows_total))
//     / rate(bloomroute_lookups_total).
// Computed when scraped, from what the router holds (a Snapshot):
//   bloomroute_region_server_up{server,address}   the last probe answered
//   bloomroute_replica_current{server}, bloomroute_replica_ops_behind{server},
//   bloomroute_replica_catchup_bytes_total{server}
//   bloomroute_router_index_bytes, bloomroute_tables, bloomroute_regions
//   bloomroute_region_operations_running,
//   bloomroute_region_operation_oldest_age_seconds (HBase's ritOldestAge),
//   bloomroute_region_operation_age_seconds{operation,phase,region}
//
// Thread-safety: every method may be called from any thread.
#ifndef BLOOMROUTE_ROUTER_INTERNAL_ROUTER_METRICS_H_
#define BLOOMROUTE_ROUTER_INTERNAL_ROUTER_METRICS_H_

#include <chrono>
#include <cstdint>
#include <functional>
#include <map>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "common/metrics.h"
#include "router/router.h"

namespace bloomroute::router_internal {

class RouterMetrics {
 public:
  // What the router holds when scraped.
  struct Snapshot {
    std::vector<router::ServerIndexStats> replicas;
    uint64_t index_bytes = 0;
    uint32_t tables = 0;
    uint32_t regions = 0;
  };

  // A region operation while it runs: its phase, and its age from start.
  struct RunningOp {
    std::string kind;   // "move", "split", "merge"
    std::string phase;  // e.g. "copying", "switching", "dropping"
    uint64_t region_id = 0;
    std::chrono::steady_clock::time_point started;
  };

  // The last probe of each server (RouterImpl's maintenance).
  struct Probe {
    std::string address;
    bool up = false;
    std::string error;  // why not, when not up
    std::chrono::steady_clock::time_point at;
  };

  // `snapshot` is called at each scrape (from the scraping thread).
  RouterMetrics(std::function<Snapshot()> snapshot,
                metrics::Registry* registry = &metrics::DefaultRegistry());
  ~RouterMetrics();
  RouterMetrics(const RouterMetrics&) = delete;
  RouterMetrics& operator=(const RouterMetrics&) = delete;

  // A lookup (or count) of `table` that routed as `routing` and returned
  // `rows`; also noted in the thread's CallContext for the slow-call log.
  void RecordLookup(std::string_view table, const router::RoutingInfo& routing,
                    uint64_t rows);
  void RecordBalancerRun(const router::BalanceReport& report);
  // The running ops, the probes and the last balancer run, with ages;
  router::RouterActivity Activity() const;

  // Region operations: Begin returns its id for SetPhase and End.
  uint64_t BeginOp(std::string kind, uint64_t region_id);
  void SetPhase(uint64_t op, std::string phase);
  void EndOp(uint64_t op);
  std::vector<RunningOp> RunningOps() const;

  void NoteProbe(router::ServerId server, const std::string& address, bool up,
                 std::string error);
  std::map<router::ServerId, Probe> Probes() const;
  // Forgets a server that left the cluster.
  void ForgetServer(router::ServerId server);

 private:
  void Collect(metrics::Writer& w) const;

  const std::function<Snapshot()> snapshot_;
  metrics::Counter& lookups_;
  metrics::Counter& asked_;
  metrics::Counter& asked_not_current_;
  metrics::Counter& with_rows_;
  metrics::Counter& rows_;
  metrics::Histogram& fanout_;
  metrics::Counter& balancer_runs_;
  metrics::Counter& balancer_splits_;
  metrics::Counter& balancer_moves_;
  mutable std::mutex mu_;
  // Guarded by mu_.
  std::map<uint64_t, RunningOp> ops_;
  uint64_t next_op_ = 1;
  std::map<router::ServerId, Probe> probes_;
  std::optional<router::BalanceReport> last_balance_;
  std::chrono::steady_clock::time_point last_balance_at_;
  // Last: removed (waiting for a scrape running it) before the rest goes.
  metrics::Registry::CollectorHandle collector_;
};

}  // namespace bloomroute::router_internal

#endif  // BLOOMROUTE_ROUTER_INTERNAL_ROUTER_METRICS_H_
