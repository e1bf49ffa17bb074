// Maintenance: the router's background threads and when they run. The
// maintenance thread runs a pass (RunPass) every interval, or promptly when
// woken (Wake: something needs doing now, e.g. a server to reopen); the
// balancer thread runs the automatic splits and the balancer on their own
// intervals. What a pass or a balancer run does is the router's, reached
// through MaintenanceDuties, so that a router can run these threads only
// when it is the one that should (the coordinator).
//
// Usage:
//   Maintenance maintenance(options, &duties);  // duties outlive it
//   maintenance.RunPass();  // a first pass on this thread
//   maintenance.Start();
//   ...
//   maintenance.Wake();   // from any thread
//   maintenance.Stop();   // joins; also done when destroyed
//
// Thread-safety: every method may be called from any thread; Start and
// Stop once each, Start before Stop.
#ifndef BLOOMROUTE_ROUTER_COORDINATOR_MAINTENANCE_H_
#define BLOOMROUTE_ROUTER_COORDINATOR_MAINTENANCE_H_

#include <chrono>
#include <condition_variable>
#include <mutex>
#include <optional>
#include <thread>

namespace bloomroute::router_internal {

// What a maintenance pass and a balancer run do, in the order a pass calls
// them. Called from Maintenance's threads and from RunPass's caller, so
// implementations are thread-safe.
class MaintenanceDuties {
 public:
  virtual ~MaintenanceDuties() = default;
  // The catalog's work: regions to reopen or check, deletions and retired
  // regions to finish, region operations and index tasks.
  virtual void MaintainCatalog() = 0;
  // Asks every server whether it answers (what /metrics and /readyz say of
  // them); called at most once per Options::probe_interval.
  virtual void ProbeServers() = 0;
  // Brings the servers' filter config and the replicas up to date.
  virtual void CatchUpReplicas() = 0;
  // Closes the scanners idle too long.
  virtual void ExpireScanners() = 0;
  // One run of the balancer: with `moves` false only the automatic splits
  // (regions past their size); failures are left to the next run.
  virtual void RunBalancerPass(bool moves) = 0;
};

class Maintenance {
 public:
  struct Options {
    // A pass at least this often (RouterOptions::maintenance_interval_ms).
    std::chrono::milliseconds interval{1000};
    // Servers are probed at most this often.
    std::chrono::milliseconds probe_interval{5000};
    // The balancer with moves this often; 0: never
    // (RouterOptions::balancer_interval_ms).
    std::chrono::milliseconds balancer_interval{0};
    // The automatic splits this often; 0: never
    // (RouterOptions::split_check_interval_ms, 0 when region_split_bytes
    // is).
    std::chrono::milliseconds split_check_interval{0};
  };

  // `duties` is not owned and must outlive this object.
  Maintenance(const Options& options, MaintenanceDuties* duties);
  ~Maintenance();  // Stop()
  Maintenance(const Maintenance&) = delete;
  Maintenance& operator=(const Maintenance&) = delete;

  // Starts the maintenance thread, and the balancer thread when either of
  // its intervals is set.
  void Start();
  // Ends the threads and joins them: a pass or run under way finishes
  // first. Idempotent; a no-op for threads never started.
  void Stop();
  // Asks for a pass now (before Start: the thread's first pass starts at
  // once). Passes asked for while one runs fold into one more pass.
  void Wake();
  // One pass on the calling thread: the duties in MaintenanceDuties'
  // order, the probe only when probe_interval has passed since the last.
  void RunPass();

 private:
  void MaintenanceLoop();
  void BalancerLoop();
  // Whether this pass probes the servers (true at most once per
  // probe_interval).
  bool TakeProbeTurn();

  const Options options_;
  MaintenanceDuties* const duties_;

  std::mutex mu_;
  // A condition per thread, both under mu_: a Wake notifies the maintenance
  // thread's alone (with one condition for both, notify_one could wake the
  // balancer's, which slept again, and the pass waited for the interval);
  // the stop notifies both.
  std::condition_variable cv_;
  std::condition_variable balancer_cv_;
  bool stopping_ = false;  // guarded by mu_
  bool wake_ = false;      // guarded by mu_

  std::mutex probe_mu_;
  // None before the first probe. Guarded by probe_mu_.
  std::optional<std::chrono::steady_clock::time_point> last_probe_;

  std::thread maintenance_;
  std::thread balancer_;  // when an interval of it is set
};

}  // namespace bloomroute::router_internal

#endif  // BLOOMROUTE_ROUTER_COORDINATOR_MAINTENANCE_H_
