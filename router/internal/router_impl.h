// RouterImpl: the Router of router/router.h. It owns the router's pieces
// and hands them to components through a RouterContext
// (internal/router_context.h): the tables to TableDirectory
// (internal/table_directory.h), the server set to ServerDirectory
// (internal/server_directory.h), every write and the replicas' sync to
// WritePath (internal/write_path.h), the open scanners to ScannerRegistry
// (internal/scanner_registry.h), index lookups to LookupPlanner
// (internal/lookup_planner.h: where a lookup is planned, fanned out and
// merged), what operators see -- servers and regions with their rows and
// bytes, replica statistics, index scrutiny, metrics and probes -- to
// ClusterView (internal/cluster_view.h), the balancer to Balancer
// (coordinator/balancer.h) and its background threads to Maintenance
// (coordinator/maintenance.h), whose interfaces to the router it implements.
// Its own methods are spread over router.cc (opening, tables, a maintenance
// pass's duties), router_tables.cc (table states), router_servers.cc
// (membership calls), coordinator/router_regions.cc (placing, opening,
// reopening and dropping regions), coordinator/router_reshape.cc (moving,
// splitting and merging regions; coordinator/router_reshape_copy.cc copies
// their rows), coordinator/router_balancer.cc (the balancer's cluster and
// decommissioning), router_rows.cc (writes, gets, scans),
// router_scan_filter.cc (a scan's filter over the index),
// router_scanners.cc (scanner calls) and router_index.cc (index builds and
// drops).
// The files under coordinator/ hold what only the coordinator does.
//
// Locking. The server set is ServerDirectory's: readers take a snapshot and
// iterate it; AddServer, SetServerAddress and RemoveServer are serialized
// by ddl_mu_, so that placement sees one set. Tables are immutable
// TableState snapshots (TableDirectory): readers copy the pointer and work
// on the snapshot; CreateTable and DeleteTable (serialized by ddl_mu_)
// publish new snapshots. Replicas lock themselves (GlobalIndex). Scanners
// lock themselves (ScannerRegistry).
#ifndef BLOOMROUTE_ROUTER_INTERNAL_ROUTER_IMPL_H_
#define BLOOMROUTE_ROUTER_INTERNAL_ROUTER_IMPL_H_

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <set>
#include <shared_mutex>
#include <string>
#include <string_view>
#include <thread>
#include <vector>

#include "model/filter_language.h"
#include "router/coordinator/balancer.h"
#include "router/coordinator/maintenance.h"
#include "router/global_index.h"
#include "router/internal/catalog.h"
#include "router/internal/cluster_view.h"
#include "router/internal/fan_out.h"
#include "router/internal/lookup_planner.h"
#include "router/internal/reshape_state.h"
#include "router/internal/router_context.h"
#include "router/internal/router_metrics.h"
#include "router/internal/scanner_registry.h"
#include "router/internal/server_directory.h"
#include "router/internal/table_directory.h"
#include "router/internal/write_path.h"
#include "router/page_token.h"
#include "router/router.h"

namespace bloomroute::router_internal {

using router::ServerId;

// The work one call of a scan may do (router_scan_filter.cc). A scan whose
// filter drops most candidates asks the index for pages of candidates that
// grow (candidate_page; kept by a scanner across its calls, so that a
// later batch starts where the earlier ones' growth ended, and shrunk when
// a page held enough rows) instead of
// pages of the caller's batch size. Past `deadline` a call that has rows
// answers with them (fewer than asked; HBase's scanners go on until an
// empty batch). One with none yet goes on: an empty batch ends an HBase
// scan, and HBase's own Thrift server holds its worker the same way.
struct ScanWork {
  uint32_t candidate_page = 0;  // 0: the rows the call still needs
  std::chrono::steady_clock::time_point deadline =
      std::chrono::steady_clock::time_point::max();
};

// A scan's filter, parsed once, and its plan for the table's indexed columns
// (router_scan_filter.cc). Immutable; a scanner keeps it while open.
struct ScanFilter {
  Filter filter;
  FilterPlan plan;
};

// router_rows.cc
// Checks a region server's scan reply to `request` of a region ending at
// `end_key` as untrusted input: at most the limit, keys ascending inside the
// range, and a resume row after the last row, inside it, of a row key's
// size. Corruption otherwise.
Status CheckScanReply(const ScanRequest& request, const std::string& end_key,
                      const ScanResult& reply);

// router_index.cc
// InvalidArgument "index on C of table 'T' is building (N of M regions
// done); ..." when `column` is a building column of `table`; OK otherwise
// (also for a column not indexed: the caller says so).
Status CheckIndexReady(const CatalogTable& table, std::string_view column);

// Whether `region` of `table` is a target of its switched operation: a
// region server holds it open staged (it takes writes, answers what names
// it, and is not among OpenRegionIds) until the operation's sources are
// dropped (coordinator/router_reshape.cc); a split's targets overlap their
// parent.
bool IsStagedTarget(const CatalogTable& table, const CatalogRegion& region);

class RouterImpl : public router::Router,
                   private MaintenanceDuties,
                   private BalancerCluster {
 public:
  RouterImpl(const router::RouterOptions& options,
             std::shared_ptr<router::RegionClientFactory> factory);
  ~RouterImpl() override;

  [[nodiscard]] Status Init();

  StatusOr<router::TableInfo> CreateTable(
      const router::TableSpec& spec) override;
  Status DeleteTable(std::string_view table) override;
  std::vector<TableDescriptor> ListTables() const override;
  StatusOr<router::TableInfo> DescribeTable(
      std::string_view table) const override;
  // router_tables.cc
  Status DisableTable(std::string_view table) override;
  Status EnableTable(std::string_view table) override;
  StatusOr<bool> IsTableEnabled(std::string_view table) const override;
  Status DeleteTableIfDisabled(std::string_view table) override;
  Status TruncateTable(std::string_view table, bool preserve_splits) override;
  StatusOr<router::RegionLocation> LocateRegion(
      std::string_view table, std::string_view row) const override;

  Status Mutate(std::string_view table,
                std::vector<Mutation> mutations) override;
  StatusOr<bool> CheckAndMutate(std::string_view table, const std::string& row,
                                const RowCondition& condition,
                                std::vector<Mutation> mutations) override;
  StatusOr<Row> Increment(std::string_view table, const std::string& row,
                          std::vector<ColumnIncrement> increments) override;
  StatusOr<Row> Append(std::string_view table, const std::string& row,
                       std::vector<Cell> cells) override;
  Status MutateRow(std::string_view table, const std::string& row,
                   std::vector<Mutation> mutations) override;
  StatusOr<std::vector<std::optional<Row>>> Get(
      std::string_view table, std::vector<GetRequest> requests) override;
  StatusOr<ScanResult> Scan(std::string_view table,
                            const router::ScanSpec& spec,
                            uint32_t limit) override;
  using Router::CloseScanner;
  using Router::OpenScanner;
  using Router::ScannerNext;
  StatusOr<int64_t> OpenScanner(std::string_view table,
                                const router::ScanSpec& spec,
                                router::ScannerClient client,
                                std::string_view principal) override;
  StatusOr<std::vector<Row>> ScannerNext(int64_t scanner, uint32_t max_rows,
                                         uint64_t call_seq,
                                         router::ScannerClient client) override;
  Status CloseScanner(int64_t scanner, router::ScannerClient client) override;
  void CloseScanners(router::ScannerClient client) override;
  std::string ScannerTable(int64_t scanner) const override;

  // Lookups: the planner (internal/lookup_planner.h).
  StatusOr<router::LookupResult> Lookup(
      std::string_view table, const router::LookupSpec& spec) override {
    return lookups_->Lookup(table, spec);
  }
  StatusOr<router::CountResult> Count(std::string_view table,
                                      const router::LookupSpec& spec) override {
    return lookups_->Count(table, spec);
  }
  StatusOr<std::vector<router::LookupResult>> LookupMultiple(
      std::string_view table,
      const std::vector<router::LookupSpec>& specs) override {
    return lookups_->LookupMultiple(table, specs);
  }
  // What operators see: the cluster view (internal/cluster_view.h).
  std::vector<router::ServerIndexStats> IndexStats() const override {
    return cluster_view_->IndexStats();
  }
  const SscbfConfig& filter_config() const override { return filter_config_; }
  StatusOr<router::VerifyReport> VerifyIndex(std::string_view table) override {
    return cluster_view_->VerifyIndex(table);
  }
  void RunMaintenance() override;
  router::ClusterStatus GetClusterStatus() override {
    return cluster_view_->GetClusterStatus();
  }
  router::RouterActivity Activity() const override {
    return cluster_view_->Activity();
  }
  std::vector<router::ServerRef> Servers() const override;
  std::vector<router::ServerSummary> ListServers() override {
    return cluster_view_->ListServers();
  }
  StatusOr<std::vector<router::RegionSummary>> ListRegions(
      std::string_view table) override {
    return cluster_view_->ListRegions(table);
  }
  // coordinator/router_reshape.cc
  StatusOr<router::RegionOpResult> MoveRegion(uint64_t region_id,
                                              ServerId to) override;
  StatusOr<router::RegionOpResult> SplitRegion(
      uint64_t region_id, const std::optional<std::string>& split_key) override;
  StatusOr<router::RegionOpResult> MergeRegions(uint64_t region_a,
                                                uint64_t region_b) override;
  // coordinator/router_balancer.cc
  StatusOr<router::BalanceReport> Balance(uint32_t max_operations) override;
  StatusOr<std::vector<router::BalanceReport::Step>> DecommissionServer(
      ServerId id) override;
  Status BulkLoad(std::string_view table, uint64_t region_id,
                  const std::string& file) override;
  Status SetQuota(const router::Quota& quota) override {
    return catalog_->PutQuota(quota);
  }
  std::shared_ptr<const std::vector<router::Quota>> Quotas() const override {
    return catalog_->Quotas();
  }
  // router_servers.cc
  StatusOr<router::ServerRef> AddServer(const std::string& address) override;
  Status SetServerAddress(ServerId id, const std::string& address) override;
  Status RemoveServer(ServerId id) override;
  // router_index.cc
  Status AddIndex(std::string_view table, const std::string& column) override;
  Status DropIndex(std::string_view table, const std::string& column) override;
  StatusOr<std::vector<router::IndexState>> IndexStatus(
      std::string_view table) const override;

 private:
  // router_index.cc
  // Gives every server holding regions of `state`'s table its indexed
  // columns (UpdateTableIndexes); the first failure, after ServerFailed.
  [[nodiscard]] Status UpdateIndexesOnServers(const TableState& state);
  // Writes `table` to the catalog (synchronously, before any server acts on
  // it), publishes it and gives its servers the new column set. A server
  // that does not answer fails the call with `pending` as context: the
  // change stands, and the background task finishes it.
  [[nodiscard]] Status RecordIndexChange(const CatalogTable& table,
                                         const std::string& pending);
  // The same on one server; OK when it holds none of the table's regions.
  [[nodiscard]] Status UpdateServerIndexes(const ServerEntry& server,
                                           const TableState& state);
  // Runs the index tasks of the catalog, at most index_chunks_per_pass
  // chunks; wakes maintenance again when work is left.
  void MaintainIndexes();
  // One chunk of `task_column`'s task on the next unfinished region of
  // table `table_id`, with its progress (and, when the last region is done,
  // the task's end) persisted. Needs ddl_mu_ held. False when there is
  // nothing left to do on the table or a call failed.
  bool RunIndexChunkLocked(uint64_t table_id, uint32_t task_column);
  // Ends a task whose regions are all done: a build clears the building
  // flag on the servers, then in the catalog; a drop is forgotten.
  [[nodiscard]] Status FinishIndexTaskLocked(CatalogTable table, size_t task);
  // One backfill or drop chunk sent as SendWrite sends a write (fence
  // token, a retry with the new token when fenced, the ops applied to the
  // replica before returning), but without reopening the server's regions
  // on NotFound: that takes ddl_mu_, which the caller holds (maintenance
  // reopens them).
  StatusOr<IndexChunkResult> SendIndexChunk(const ServerEntry& server,
                                            bool build, uint64_t region,
                                            uint32_t column,
                                            const std::string& after);

  // coordinator/router_regions.cc: where regions live; opening and dropping
  // them. Assigns ids and servers to a validated spec.
  CatalogTable PlanTable(const router::TableSpec& spec) const;
  // Regions split at `splits`, under new ids, each on the server with the
  // fewest regions of the other tables so far (ties to the lowest id); the
  // regions of table `skip_table` are not counted.
  std::vector<CatalogRegion> PlaceRegions(
      const std::vector<std::string>& splits, uint64_t skip_table) const;
  // Opens each region of `table` on its server, servers in parallel (new,
  // empty regions: any run of a server may serve them); the first failure,
  // after ServerFailed.
  [[nodiscard]] Status OpenRegions(const CatalogTable& table);
  // Drops each region of `table`, retired ones too (NotFound counts as
  // dropped) and marks the servers' replicas stale; the first failure.
  [[nodiscard]] Status DropRegions(const CatalogTable& table);
  // Asks each server holding regions of ready tables for its region list
  // (in parallel) and flags for reopening those that lack any of theirs:
  // closed by another caller, or lost with a directory, without a call of
  // ours failing. Needs no lock: a flag only schedules a reopen.
  void FlagServersMissingRegions(const std::vector<CatalogTable>& tables);
  // Opens again every region the catalog places on `server`, on the run of
  // the server whose incarnation the replica has just noted. A restarted
  // server serves none of its regions until then (RegionStore::Open), so no
  // row of a new run is readable while the replica still trusts the filter
  // of the run before. The Locked form needs ddl_mu_ held (no region of a
  // table being deleted is reopened); ReopenServer takes it.
  [[nodiscard]] Status ReopenServerLocked(const ServerEntry& server);
  [[nodiscard]] Status ReopenServer(const ServerEntry& server);

  // coordinator/router_reshape.cc: moves, splits and merges.
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
  // holds it); Unavailable while a switch is in doubt. Start: makes `state` the
  // running operation and records `op` (undone when the record fails).
  // CopyAndSwitch: opens the targets, waits out the writes routed before the
  // start, fences the sources, copies, catches up and switches
  // (CatchUpAndSwitch), telling `phase` each step. DropSwitchedSources: drops
  // the sources of a switched operation once the reads of before the switch
  // have ended, and lists the targets in *result.
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
  // InvalidArgument when a target of `op` is on a server that is not a
  // member, or moves to a draining one. Needs ddl_mu_ held.
  [[nodiscard]] Status CheckTargetServers(const CatalogRegionOp& op) const;
  // Copies the rows of `requests` (of one source on `from`) again into
  // the targets (CopyWrittenRows), in as many gets as the replies take.
  [[nodiscard]] Status CopyRowsAgain(const CatalogRegionOp& op,
                                     const ServerEntry& from,
                                     const std::vector<GetRequest>& requests,
                                     router::RegionOpResult* result);
  // The plans of MoveRegion and SplitRegion (the balancer's steps too).
  StatusOr<PlannedOp> PlanMove(uint64_t region_id, ServerId to);
  StatusOr<PlannedOp> PlanSplit(uint64_t region_id,
                                const std::optional<std::string>& split_key);
  // Raises the fence of each source's server past every write to it that
  // went in doubt before the operation (a catch-up of a replica that is not
  // current), so that none can still commit behind the copy; the failure of
  // a server that did not answer.
  [[nodiscard]] Status FenceSources(const CatalogRegionOp& op);
  // Steps 4 and 5: catch-up rounds, then the switch with the gate closed.
  // Sets *in_doubt when the switch's catalog write failed (the gate is then
  // left closed). OK once switched.
  [[nodiscard]] Status CatchUpAndSwitch(uint64_t table_id, CatalogRegionOp* op,
                                        ReshapeState& state,
                                        router::RegionOpResult* result,
                                        std::weak_ptr<const int>* before,
                                        bool* in_doubt);
  // Maintenance: writes the switch of the running operation whose switch
  // is in doubt again; once written, opens its gate and lets it finish
  // (MaintainRegionOps). Needs region_ops_mu_ held.
  void ResolveSwitchInDoubt();
  // The table holding region `region_id` and the region's index in it.
  StatusOr<std::pair<CatalogTable, size_t>> FindRegion(
      uint64_t region_id) const;
  // Records `op` in its table's record (kCopying), after checking that its
  // sources are still the table's and nothing else runs on the table, and
  // publishes it under a new generation (*before: the old one's).
  [[nodiscard]] Status RecordRegionOp(uint64_t table_id,
                                      const CatalogRegionOp& op,
                                      std::weak_ptr<const int>* before);
  // Writes the table record `table` and publishes it under a new
  // generation; *before: the generation it replaced. Needs ddl_mu_ held.
  [[nodiscard]] Status PutTableNewGeneration(const CatalogTable& table,
                                             std::weak_ptr<const int>* before);
  // Opens each target staged on its server.
  [[nodiscard]] Status OpenTargets(uint64_t table_id,
                                   const CatalogRegionOp& op);
  // Copies every row of the sources into the targets; counts into *result.
  [[nodiscard]] Status CopyRegionRows(const CatalogRegionOp& op,
                                      router::RegionOpResult* result);
  // The rows of `source` in [low, high) (empty high: to its end) into
  // `target`, as bulk files.
  [[nodiscard]] Status CopyRange(const CatalogRegion& source,
                                 const CatalogRegion& target,
                                 const std::string& low,
                                 const std::string& high,
                                 router::RegionOpResult* result);
  // Copies the rows noted since the last call again (a missing row is
  // deleted in its target); their number in *noted. Unavailable when the
  // note overflowed or a write went in doubt.
  [[nodiscard]] Status CopyWrittenRows(const CatalogRegionOp& op,
                                       ReshapeState& state,
                                       router::RegionOpResult* result,
                                       size_t* noted);
  // Writes `rows` (each whole, replacing what the target has when
  // `replace`; nullopt: deleted) of `keys` into the targets.
  [[nodiscard]] Status WriteToTargets(
      const CatalogRegionOp& op, const std::vector<std::string>& keys,
      const std::vector<std::optional<Row>>& rows, bool replace);
  // The switch: the table's record gets the targets and the op kSwitched,
  // published under a new generation (*before: the old one's); *op becomes
  // kSwitched only once that is written. Aborted when the catalog no longer
  // has the operation; the catalog's error when the write failed (it may
  // or may not be on disk). Needs ddl_mu_ held.
  [[nodiscard]] Status SwitchRegionOpLocked(uint64_t table_id,
                                            CatalogRegionOp* op,
                                            std::weak_ptr<const int>* before);
  // Syncs the WAL of each server of op's targets (RegionClient::SyncWal);
  // the first failure, named.
  [[nodiscard]] Status SyncTargets(const CatalogRegionOp& op);
  // Finishes a switched op (syncs the targets, drops the sources, promotes
  // the targets, forgets it) or undoes a copying one (drops the targets,
  // forgets it).
  [[nodiscard]] Status FinishRegionOp(uint64_t table_id,
                                      const CatalogRegionOp& op);
  // Maintenance: finishes or undoes the operations in the catalog that no
  // caller is running (after a crash or a failed undo).
  void MaintainRegionOps();
  // InvalidArgument naming the operation when `table` has one in flight.
  static Status CheckNoRegionOp(const CatalogTable& table);
  // Waits (up to 60 s, else Unavailable) until no table state of
  // generation `old` is held: every call that routed with one has ended.
  [[nodiscard]] static Status WaitForGeneration(
      const std::weak_ptr<const int>& old);

  // coordinator/router_balancer.cc
  // One run of balancer_ (Balance), counted in metrics_; with `moves` false
  // only the splits of regions past their size (the automatic splits).
  router::BalanceReport RunBalancer(uint32_t max_operations, bool moves);
  // BalancerCluster: the cluster as balancer_ sees and changes it. RunSplit
  // and RunMove wait for a region operation under way.
  std::set<ServerId> Members() const override;
  bool Draining(ServerId id) const override;
  std::shared_ptr<const Catalog::TableList> Tables() const override;
  router::ServerRef Ref(ServerId id) const override;
  std::vector<StatusOr<std::map<uint64_t, uint64_t>>> RegionBytes(
      const std::vector<ServerId>& ids,
      const std::vector<size_t>& max_regions) override;
  StatusOr<router::RegionOpResult> RunSplit(uint64_t region_id) override;
  StatusOr<router::RegionOpResult> RunMove(uint64_t region_id,
                                           ServerId to) override;
  // MaintenanceDuties: a background run of the balancer (RunBalancer
  // with RouterOptions::balancer_max_operations), its failures left to the
  // next run.
  void RunBalancerPass(bool moves) override;
  // Moves every region of ready tables off `id` (DecommissionServer),
  // appending each move to *moves.
  [[nodiscard]] Status DrainServer(
      ServerId id, std::vector<router::BalanceReport::Step>* moves);

  // --- membership (router_servers.cc)
  // Adds the region_servers flags that are not members (persisted), and
  // sets filter_config_ for the members: InvalidArgument for none, or more
  // than kMaxServers.
  [[nodiscard]] Status AddFlaggedServers();

  // router.cc
  // Publishes the catalog's ready tables; table `new_generation` (a region
  // switch) gets a new TableState::generation, the others keep theirs.
  void PublishTables(uint64_t new_generation = 0);
  // DeleteTable of a table found; needs ddl_mu_ held.
  [[nodiscard]] Status DeleteTableLocked(const TableState& state);
  // Sets the table's enabled flag (persisted); the errors of DisableTable.
  [[nodiscard]] Status SetEnabled(std::string_view table, bool enabled);
  // Drops the table's retired regions and, when all are gone, forgets them
  // (persisted). Needs ddl_mu_ held.
  [[nodiscard]] Status DropRetiredRegions(CatalogTable* table);
  router::TableInfo Describe(const TableState& table) const;
  // True when a maintenance pass has catalog work: a server to reopen or a
  // table whose deletion is unfinished. Cheap: reads the catalog snapshot.
  bool CatalogWorkPending() const;
  // MaintenanceDuties: what a maintenance pass (maintenance_) does.
  void MaintainCatalog() override;
  void CatchUpReplicas() override;
  void ExpireScanners() override;
  void ProbeServers() override { cluster_view_->ProbeServers(); }

  // router_rows.cc
  // One atomic write of `mutations` (all of row `row`) to the row's region:
  // the server's result, with one outcome per mutation.
  StatusOr<WriteResult> ApplyRowAtomically(std::string_view table,
                                           const std::string& row,
                                           std::vector<Mutation> mutations);
  // One wave of Get: the requests from `begin` (at most kRowsPerRpc), each
  // server's part asked in parallel with a share of `budget` bytes; appends
  // the answered prefix to `out` (counting ReplyBytes in `*used`, stopping
  // after the row that passes `budget`) and returns how many it appended
  // (at least one).
  StatusOr<size_t> GetWave(const std::vector<GetRequest>& requests,
                           const std::vector<ServerId>& server_of, size_t begin,
                           uint64_t budget,
                           std::vector<std::optional<Row>>* out,
                           uint64_t* used);
  // When a call that starts now should answer with what it has
  // (RouterOptions::call_work_budget_ms).
  std::chrono::steady_clock::time_point WorkDeadline() const {
    return std::chrono::steady_clock::now() +
           std::chrono::milliseconds(options_.call_work_budget_ms);
  }
  // router_scan_filter.cc
  // `text` parsed: InvalidArgument naming --max-filter-bytes when it is
  // longer than options_.max_filter_bytes, else ParseFilter's errors.
  StatusOr<Filter> ParseRouterFilter(std::string_view text) const;
  // Every check a scan of `table` needs before it starts (projection, time
  // range, the table enabled, its families, the filter), shared by Scan and
  // OpenScanner: the spec's filter parsed and planned, null for none.
  StatusOr<std::shared_ptr<const ScanFilter>> CheckScan(
      std::string_view table, const router::ScanSpec& spec) const;
  // Scan of a validated spec, its filter parsed (null: none), `returned`
  // rows of the whole scan already returned (PageFilter counts them): up
  // to `limit` rows, no resume_row once the filter's row_limit is reached.
  // `work` carries the candidate page size across a scanner's calls and
  // the call's deadline: past it, an answer that has rows returns them.
  StatusOr<ScanResult> ScanPaged(std::string_view table,
                                 const router::ScanSpec& spec,
                                 const ScanFilter* filter, uint32_t limit,
                                 uint64_t returned, ScanWork* work);
  // The full-scan path: the region servers scan [start, stop) in key order
  // with the filter text (router_rows.cc).
  StatusOr<ScanResult> ScanRegions(const TableState& state,
                                   const router::ScanSpec& spec, uint32_t limit,
                                   const ScanWork& work);
  // The index path: candidates from the plan's lookups (each routed through
  // the global index), merged in key order without duplicates, restricted
  // to [start, stop) and filtered on the router.
  StatusOr<ScanResult> ScanIndex(std::string_view table,
                                 const router::ScanSpec& spec,
                                 const ScanFilter& filter, uint32_t limit,
                                 ScanWork* work);
  // One round of ScanIndex: the candidates after `after` (nullopt: from the
  // first row) in key order, duplicates removed, and the last key they
  // cover completely (nullopt: every candidate is there).
  StatusOr<std::vector<Row>> IndexCandidates(
      std::string_view table, const router::ScanSpec& spec,
      const ScanFilter& filter, const std::optional<std::string>& after,
      uint32_t limit, uint64_t budget, std::optional<std::string>* covered);

  const router::RouterOptions options_;
  // ClusterFilterConfig of the options and the members at Init; fixed then.
  SscbfConfig filter_config_;
  std::unique_ptr<Catalog> catalog_;
  // Signs and checks page tokens under the catalog's key; set by Init.
  std::optional<router::PageTokenCodec> page_tokens_;
  // Created by Init, with a fence base above every earlier run's tokens.
  std::unique_ptr<router::GlobalIndex> index_;
  std::unique_ptr<FanOut> fan_out_;
  // Every write to a region server, and the replicas kept current (set by
  // Init, after index_).
  std::unique_ptr<WritePath> write_path_;
  // Set by Init, before any call; reset when destroyed once the threads
  // that count in it have ended, before the members its collector reads.
  std::unique_ptr<RouterMetrics> metrics_;
  // The members, their addresses and clients.
  ServerDirectory servers_;

  // Serializes table changes (create, delete, state, a region switch). Timed,
  // so that a switch, holding writes at its gate, never waits long for it
  // (coordinator/router_reshape.cc).
  std::timed_mutex ddl_mu_;
  // The ready tables, as published from the catalog.
  TableDirectory tables_;
  // The pieces above, for the components (set by Init).
  RouterContext ctx_;
  // Index lookups: planned, fanned out and merged (set by Init).
  std::unique_ptr<LookupPlanner> lookups_;
  // What operators see (set by Init, before metrics_, whose scrapes ask
  // it).
  std::unique_ptr<ClusterView> cluster_view_;

  // Region operations (coordinator/router_reshape.cc): held by the one that
  // runs (the running one is tables_.Running()).
  std::mutex region_ops_mu_;
  // The balancer, and the regions it skips after a failed split or move.
  Balancer balancer_;

  // The open scanners (router_scanners.cc).
  ScannerRegistry scanners_;

  // The maintenance and balancer threads (router.cc sets their intervals):
  // passes every maintenance_interval_ms or when woken (maintenance_.Wake()),
  // the automatic splits and the balancer on their intervals. Stopped first
  // when the router is destroyed.
  Maintenance maintenance_;
};

// `d` as clients see it (describeTable, listTables): without the columns
// still building, and with the bloomroute.index attribute, when it has
// one, naming the others.
TableDescriptor ReadyDescriptor(const TableDescriptor& d);

}  // namespace bloomroute::router_internal

#endif  // BLOOMROUTE_ROUTER_INTERNAL_ROUTER_IMPL_H_
