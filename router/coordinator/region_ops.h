// RegionOps: the coordinator's region operations -- moving, splitting and
// merging regions (Router::MoveRegion, SplitRegion, MergeRegions, and the
// balancer's steps). All three are one mechanism (region_ops.cc has its
// steps): the sources' rows are copied into new target regions
// (RegionCopy, region_copy.h) while the sources keep serving, then ONE
// catalog write switches the table to the targets, and the sources are
// dropped once the reads of before the switch have ended. Every step is
// recorded in the catalog first, so that maintenance (MaintainRegionOps)
// finishes or undoes an operation no caller is running.
//
// Locks. region_ops_mu_ is held by the one operation that runs (its
// ReshapeState is TableDirectory::Running while it copies or its switch is
// in doubt); catalog writes take the context's ddl_mu, the switch for at
// most a bounded wait with writes held at its gate. Thread-safe.
#ifndef BLOOMROUTE_ROUTER_COORDINATOR_REGION_OPS_H_
#define BLOOMROUTE_ROUTER_COORDINATOR_REGION_OPS_H_

#include <cstdint>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <utility>

#include "common/status.h"
#include "common/statusor.h"
#include "router/coordinator/region_copy.h"
#include "router/internal/catalog.h"
#include "router/internal/reshape_state.h"
#include "router/internal/router_context.h"
#include "router/router_reports.h"

namespace bloomroute::router_internal {

// Unavailable naming the table when `table` has a region operation in
// flight (a table change waits for it to end); OK otherwise.
Status CheckNoRegionOp(const CatalogTable& table);

class RegionOps {
 public:
  // `ctx` outlives this object.
  explicit RegionOps(const RouterContext& ctx) : ctx_(ctx), copy_(ctx) {}
  RegionOps(const RegionOps&) = delete;
  RegionOps& operator=(const RegionOps&) = delete;

  // Router::MoveRegion, SplitRegion (at `split_key`, else the server's
  // split point) and MergeRegions (two adjacent regions of one table):
  // NotFound for a region of no ready table, InvalidArgument for a plan
  // that cannot be, Unavailable while another operation runs; once
  // recorded, a failure undoes the operation (or leaves it to
  // maintenance), named in the error.
  StatusOr<router::RegionOpResult> MoveRegion(uint64_t region_id, ServerId to);
  StatusOr<router::RegionOpResult> SplitRegion(
      uint64_t region_id, const std::optional<std::string>& split_key);
  StatusOr<router::RegionOpResult> MergeRegions(uint64_t region_a,
                                                uint64_t region_b);
  // The balancer's steps (BalancerCluster::RunSplit, RunMove): a split at
  // the region's split point, a move; as SplitRegion and MoveRegion but
  // after any operation running now instead of Unavailable.
  StatusOr<router::RegionOpResult> RunSplit(uint64_t region_id);
  StatusOr<router::RegionOpResult> RunMove(uint64_t region_id, ServerId to);
  // Maintenance: finishes or undoes the operations in the catalog that no
  // caller is running (after a crash or a failed undo), after writing again
  // a switch that is in doubt. Returns at once while an operation runs.
  void MaintainRegionOps();

 private:
  // An operation planned (kCopying, its targets with new ids) on a table.
  struct PlannedOp {
    uint64_t table_id = 0;
    CatalogRegionOp op;
  };
  // Takes region_ops_mu_ (waits for it when `wait`, else Unavailable when
  // another operation holds it), plans the operation with `plan` under it,
  // and runs it: records it, opens the targets staged, copies, catches up,
  // switches, drops the sources. Unavailable while a switch is in doubt.
  StatusOr<router::RegionOpResult> RunRegionOp(
      bool wait, const std::function<StatusOr<PlannedOp>()>& plan);
  // The parts of RunRegionOp. Lock: takes region_ops_mu_ into *running
  // (waits for it when `wait`, else Unavailable when another operation
  // holds it); Unavailable while a switch is in doubt. Start: makes `state`
  // the running operation and records `op` (undone when the record fails).
  // CopyAndSwitch: opens the targets, waits out the writes routed before
  // the start, fences the sources, copies, catches up and switches
  // (CatchUpAndSwitch), telling `phase` each step. DropSwitchedSources:
  // drops the sources of a switched operation once the reads of before the
  // switch have ended, and lists the targets in *result.
  [[nodiscard]] Status LockRegionOps(bool wait,
                                     std::unique_lock<std::mutex>* running);
  [[nodiscard]] Status StartRegionOp(uint64_t table_id,
                                     const CatalogRegionOp& op,
                                     const std::shared_ptr<ReshapeState>& state,
                                     std::weak_ptr<const int>* before_start);
  [[nodiscard]] Status CopyAndSwitch(
      uint64_t table_id, CatalogRegionOp* op, ReshapeState& state,
      const std::weak_ptr<const int>& before_start,
      const std::function<void(const char*)>& phase,
      router::RegionOpResult* result, std::weak_ptr<const int>* before,
      bool* in_doubt);
  void DropSwitchedSources(uint64_t table_id, const CatalogRegionOp& op,
                           const std::weak_ptr<const int>& before,
                           router::RegionOpResult* result);
  // Steps 4 and 5: catch-up rounds, then the switch with the gate closed.
  // Sets *in_doubt when the switch's catalog write failed (the gate is then
  // left closed). OK once switched.
  [[nodiscard]] Status CatchUpAndSwitch(uint64_t table_id, CatalogRegionOp* op,
                                        ReshapeState& state,
                                        router::RegionOpResult* result,
                                        std::weak_ptr<const int>* before,
                                        bool* in_doubt);

  // The plans of MoveRegion, SplitRegion and MergeRegions (the balancer's
  // steps too).
  StatusOr<PlannedOp> PlanMove(uint64_t region_id, ServerId to);
  StatusOr<PlannedOp> PlanSplit(uint64_t region_id,
                                const std::optional<std::string>& split_key);
  StatusOr<PlannedOp> PlanMerge(uint64_t region_a, uint64_t region_b);
  // The table holding region `region_id` and the region's index in it.
  StatusOr<std::pair<CatalogTable, size_t>> FindRegion(
      uint64_t region_id) const;
  // InvalidArgument when a target of `op` is on a server that is not a
  // member, or moves to a draining one. Needs ddl_mu held.
  [[nodiscard]] Status CheckTargetServers(const CatalogRegionOp& op) const;

  // Records `op` in its table's record (kCopying), after checking that its
  // sources are still the table's and nothing else runs on the table, and
  // publishes it under a new generation (*before: the old one's).
  [[nodiscard]] Status RecordRegionOp(uint64_t table_id,
                                      const CatalogRegionOp& op,
                                      std::weak_ptr<const int>* before);
  // Writes the table record `table` and publishes it under a new
  // generation; *before: the generation it replaced. Needs ddl_mu held.
  [[nodiscard]] Status PutTableNewGeneration(const CatalogTable& table,
                                             std::weak_ptr<const int>* before);
  // The switch: the table's record gets the targets and the op kSwitched,
  // published under a new generation (*before: the old one's); *op becomes
  // kSwitched only once that is written. Aborted when the catalog no longer
  // has the operation; the catalog's error when the write failed (it may
  // or may not be on disk). Needs ddl_mu held.
  [[nodiscard]] Status SwitchRegionOpLocked(uint64_t table_id,
                                            CatalogRegionOp* op,
                                            std::weak_ptr<const int>* before);
  // Finishes a switched op (syncs the targets, drops the sources, promotes
  // the targets, forgets it) or undoes a copying one (drops the targets,
  // forgets it).
  [[nodiscard]] Status FinishRegionOp(uint64_t table_id,
                                      const CatalogRegionOp& op);
  // Maintenance: writes the switch of the running operation whose switch
  // is in doubt again; once written, opens its gate and lets it finish
  // (MaintainRegionOps). Needs region_ops_mu_ held.
  void ResolveSwitchInDoubt();
  // Waits (up to 60 s, else Unavailable) until no table state of
  // generation `old` is held: every call that routed with one has ended.
  [[nodiscard]] static Status WaitForGeneration(
      const std::weak_ptr<const int>& old);

  const RouterContext& ctx_;
  // Copies the rows of the running operation.
  RegionCopy copy_;
  // Held by the one operation that runs (the running one is
  // TableDirectory::Running).
  std::mutex region_ops_mu_;
};

}  // namespace bloomroute::router_internal

#endif  // BLOOMROUTE_ROUTER_COORDINATOR_REGION_OPS_H_
