// RegionPlacement: where a table's regions live, and opening, reopening and
// dropping them on their servers. A new table's regions are assigned ids
// and servers (PlanTable, PlaceRegions: the servers with the fewest
// regions, skipping those being decommissioned), opened (OpenRegions) and,
// when the table or a truncation's old regions go, dropped (DropRegions,
// DropRetiredRegions). A server that restarted or failed has its regions
// opened again (ReopenServer: WritePath's reopen hook, and maintenance for
// the servers flagged for it), and a server that lost some without a call
// of ours failing is flagged (FlagServersMissingRegions).
//
// Thread-safety: every method may be called from several threads; the
// state is the context's (the catalog, the servers' entries and the
// replicas lock themselves). Table changes are serialized by the caller
// with ddl_mu (the Locked form needs it held; ReopenServer takes it).
#ifndef BLOOMROUTE_ROUTER_COORDINATOR_REGION_PLACEMENT_H_
#define BLOOMROUTE_ROUTER_COORDINATOR_REGION_PLACEMENT_H_

#include <cstdint>
#include <string>
#include <vector>

#include "common/status.h"
#include "router/internal/catalog.h"
#include "router/internal/router_context.h"
#include "router/router.h"

namespace bloomroute::router_internal {

// Whether `region` of `table` is a target of its switched operation: a
// region server holds it open staged (it takes writes, answers what names
// it, and is not among OpenRegionIds) until the operation's sources are
// dropped (coordinator/region_ops.cc); a split's targets overlap their
// parent.
bool IsStagedTarget(const CatalogTable& table, const CatalogRegion& region);

class RegionPlacement {
 public:
  // `ctx` outlives the placement.
  explicit RegionPlacement(const RouterContext& ctx);
  RegionPlacement(const RegionPlacement&) = delete;
  RegionPlacement& operator=(const RegionPlacement&) = delete;

  // Assigns ids and servers to a validated spec: its split keys, or
  // region_count regions (0: one a member) splitting the first key bytes
  // evenly. Takes new ids from the catalog (persisted with the table).
  CatalogTable PlanTable(const router::TableSpec& spec) const;
  // Regions split at `splits`, under new ids, each on the server with the
  // fewest regions of the other tables so far (ties to the lowest id); the
  // regions of table `skip_table` are not counted. Draining servers get
  // none, unless every member is draining.
  std::vector<CatalogRegion> PlaceRegions(
      const std::vector<std::string>& splits, uint64_t skip_table) const;
  // Opens each region of `table` on its server, servers in parallel (new,
  // empty regions: any run of a server may serve them); the first failure,
  // after ServerFailed.
  [[nodiscard]] Status OpenRegions(const CatalogTable& table);
  // Drops each region of `table`, retired ones too (NotFound counts as
  // dropped) and marks the servers' replicas stale; the first failure.
  [[nodiscard]] Status DropRegions(const CatalogTable& table);
  // Drops the table's retired regions and, when all are gone, forgets them
  // (persisted). Needs ddl_mu held.
  [[nodiscard]] Status DropRetiredRegions(CatalogTable* table);
  // Asks each server holding regions of ready tables for its region list
  // (in parallel) and flags for reopening those that lack any of theirs:
  // closed by another caller, or lost with a directory, without a call of
  // ours failing. Needs no lock: a flag only schedules a reopen.
  void FlagServersMissingRegions(const std::vector<CatalogTable>& tables);
  // Opens again every region the catalog places on `server`, on the run of
  // the server whose incarnation the replica has just noted. A restarted
  // server serves none of its regions until then (RegionStore::Open), so no
  // row of a new run is readable while the replica still trusts the filter
  // of the run before. The Locked form needs ddl_mu held (no region of a
  // table being deleted is reopened); ReopenServer takes it. A server that
  // missed a change of a table's indexed columns gets them first. The
  // failure after ServerFailed.
  [[nodiscard]] Status ReopenServerLocked(const ServerEntry& server);
  [[nodiscard]] Status ReopenServer(const ServerEntry& server);
  // A maintenance pass's share: flags servers missing regions, reopens the
  // regions of flagged servers, and drops the regions of deleted tables and
  // the retired regions of truncated ones (each retried every pass until
  // done). Takes ddl_mu only when there is such work.
  void Maintain();

 private:
  // True when a pass has catalog work: a server to reopen or a table whose
  // deletion is unfinished. Cheap: reads the catalog snapshot.
  bool WorkPending() const;
  const RouterContext& ctx_;
};

}  // namespace bloomroute::router_internal

#endif  // BLOOMROUTE_ROUTER_COORDINATOR_REGION_PLACEMENT_H_
