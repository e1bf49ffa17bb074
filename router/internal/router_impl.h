// RouterImpl: the Router of router/router.h. It owns the router's pieces
// and hands them to components through a RouterContext
// (internal/router_context.h): the tables to TableDirectory
// (internal/table_directory.h), the server set to ServerDirectory
// (internal/server_directory.h), every write and the replicas' sync to
// WritePath (internal/write_path.h), the calls on rows to RowCalls
// (internal/row_calls.h), scans and the open scanners to Scans
// (internal/scans.h), index lookups to LookupPlanner
// (internal/lookup_planner.h: where a lookup is planned, fanned out and
// merged), what operators see -- servers and regions with their rows and
// bytes, replica statistics, index scrutiny, metrics and probes -- to
// ClusterView (internal/cluster_view.h), placing, opening, reopening and
// dropping regions to RegionPlacement (coordinator/region_placement.h),
// index builds and drops to IndexTasks (coordinator/index_tasks.h), moving,
// splitting and merging regions to RegionOps (coordinator/region_ops.h;
// RegionCopy, coordinator/region_copy.h, copies their rows), the balancer
// and decommissioning to Balancing (coordinator/balancing.h), table DDL to
// TableAdmin (coordinator/table_admin.h), membership changes to Membership
// (coordinator/membership.h), and the background threads to Maintenance
// (coordinator/maintenance.h), whose interface to the router it implements.
// Its own methods are in router.cc: opening the router, a maintenance
// pass's duties, and one-line forwards of the Router calls to the
// components.
// The files under coordinator/ hold what only the coordinator does.
//
// Locking. The server set is ServerDirectory's: readers take a snapshot and
// iterate it; AddServer, SetServerAddress and RemoveServer are serialized
// by ddl_mu_, so that placement sees one set. Tables are immutable
// TableState snapshots (TableDirectory): readers copy the pointer and work
// on the snapshot; CreateTable and DeleteTable (serialized by ddl_mu_)
// publish new snapshots. Replicas lock themselves (GlobalIndex). Scanners
// lock themselves (ScannerRegistry, in Scans).
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
#include "router/coordinator/balancing.h"
#include "router/coordinator/index_tasks.h"
#include "router/coordinator/maintenance.h"
#include "router/coordinator/membership.h"
#include "router/coordinator/namespace_admin.h"
#include "router/coordinator/region_ops.h"
#include "router/coordinator/region_placement.h"
#include "router/coordinator/table_admin.h"
#include "router/global_index.h"
#include "router/internal/catalog.h"
#include "router/internal/cluster_view.h"
#include "router/internal/fan_out.h"
#include "router/internal/lookup_planner.h"
#include "router/internal/reshape_state.h"
#include "router/internal/router_context.h"
#include "router/internal/router_metrics.h"
#include "router/internal/row_calls.h"
#include "router/internal/scans.h"
#include "router/internal/server_directory.h"
#include "router/internal/table_directory.h"
#include "router/internal/write_path.h"
#include "router/op_subscriber.h"
#include "router/page_token.h"
#include "router/router.h"

namespace bloomroute::router_internal {

using router::ServerId;

class RouterImpl : public router::Router, private MaintenanceDuties {
 public:
  RouterImpl(const router::RouterOptions& options,
             std::shared_ptr<router::RegionClientFactory> factory);
  ~RouterImpl() override;

  // Opens the router over `catalog` (Router::Open): its page-token key, a
  // new start, the members, the components and a first maintenance pass.
  [[nodiscard]] Status Init(std::unique_ptr<CatalogStore> catalog);

  // coordinator/table_admin.h. The calls that change region servers are
  // the coordinator's: a router that no longer coordinates refuses them
  // (CoordinatorStanding::CheckCoordinating).
  StatusOr<router::TableInfo> CreateTable(
      const router::TableSpec& spec) override {
    BLOOMROUTE_RETURN_IF_ERROR(coordinator_->CheckCoordinating());
    return table_admin_->CreateTable(spec);
  }
  Status DeleteTable(std::string_view table) override {
    BLOOMROUTE_RETURN_IF_ERROR(coordinator_->CheckCoordinating());
    BLOOMROUTE_RETURN_IF_ERROR(table_admin_->DeleteTable(table));
    return ForgetGrants(table, false);
  }
  std::vector<TableDescriptor> ListTables() const override {
    return table_admin_->ListTables();
  }
  // Schema changes: TableAdmin's plan, then IndexTasks' drops and adds
  // around TableAdmin::ApplySchema (router.cc).
  Status ModifyTable(const router::TableSpec& spec) override;
  // Revokes every grant on table `name` (or, when `is_namespace`, on
  // namespace `name`) once it is deleted, as HBase's AccessController does,
  // so that a new one of the same name starts without them (router.cc).
  Status ForgetGrants(std::string_view name, bool is_namespace);
  // coordinator/namespace_admin.h; changes are the coordinator's.
  Status CreateNamespace(const router::NamespaceDescriptor& ns) override {
    BLOOMROUTE_RETURN_IF_ERROR(coordinator_->CheckCoordinating());
    return namespace_admin_->CreateNamespace(ns);
  }
  Status ModifyNamespace(const router::NamespaceDescriptor& ns) override {
    BLOOMROUTE_RETURN_IF_ERROR(coordinator_->CheckCoordinating());
    return namespace_admin_->ModifyNamespace(ns);
  }
  Status DeleteNamespace(std::string_view name) override {
    BLOOMROUTE_RETURN_IF_ERROR(coordinator_->CheckCoordinating());
    BLOOMROUTE_RETURN_IF_ERROR(namespace_admin_->DeleteNamespace(name));
    return ForgetGrants(name, true);
  }
  StatusOr<router::NamespaceDescriptor> GetNamespace(
      std::string_view name) const override {
    return namespace_admin_->GetNamespace(name);
  }
  std::vector<router::NamespaceDescriptor> ListNamespaces() const override {
    return namespace_admin_->ListNamespaces();
  }
  StatusOr<std::vector<TableDescriptor>> ListTablesInNamespace(
      std::string_view name) const override {
    return namespace_admin_->ListTablesInNamespace(name);
  }
  StatusOr<router::TableInfo> DescribeTable(
      std::string_view table) const override {
    return table_admin_->DescribeTable(table);
  }
  Status DisableTable(std::string_view table) override {
    return table_admin_->DisableTable(table);
  }
  Status EnableTable(std::string_view table) override {
    return table_admin_->EnableTable(table);
  }
  StatusOr<bool> IsTableEnabled(std::string_view table) const override {
    return table_admin_->IsTableEnabled(table);
  }
  Status DeleteTableIfDisabled(std::string_view table) override {
    BLOOMROUTE_RETURN_IF_ERROR(coordinator_->CheckCoordinating());
    BLOOMROUTE_RETURN_IF_ERROR(table_admin_->DeleteTableIfDisabled(table));
    return ForgetGrants(table, false);
  }
  Status TruncateTable(std::string_view table, bool preserve_splits) override {
    BLOOMROUTE_RETURN_IF_ERROR(coordinator_->CheckCoordinating());
    return table_admin_->TruncateTable(table, preserve_splits);
  }
  StatusOr<router::RegionLocation> LocateRegion(
      std::string_view table, std::string_view row) const override {
    return table_admin_->LocateRegion(table, row);
  }

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
                                         router::ScannerClient client,
                                         std::string_view principal) override;
  Status CloseScanner(int64_t scanner, router::ScannerClient client,
                      std::string_view principal) override;
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
  std::string ClusterId() const override { return cluster_id_; }
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
  // coordinator/region_ops.h (forwards, router.cc)
  StatusOr<router::RegionOpResult> MoveRegion(uint64_t region_id,
                                              ServerId to) override;
  StatusOr<router::RegionOpResult> SplitRegion(
      uint64_t region_id, const std::optional<std::string>& split_key) override;
  StatusOr<router::RegionOpResult> MergeRegions(uint64_t region_a,
                                                uint64_t region_b) override;
  // coordinator/balancing.h (forwards, router.cc)
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
  Status ChangeGrant(const router::Grant& grant,
                     router::GrantChange change) override {
    return catalog_->ChangeGrant(grant, change);
  }
  std::shared_ptr<const std::vector<router::Grant>> Grants() const override {
    return catalog_->Grants();
  }
  // coordinator/membership.h
  StatusOr<router::ServerRef> AddServer(const std::string& address) override {
    return membership_->AddServer(address);
  }
  Status SetServerAddress(ServerId id, const std::string& address) override {
    return membership_->SetServerAddress(id, address);
  }
  Status RemoveServer(ServerId id) override {
    return membership_->RemoveServer(id);
  }
  // coordinator/index_tasks.cc
  Status AddIndex(std::string_view table, const std::string& column) override {
    BLOOMROUTE_RETURN_IF_ERROR(coordinator_->CheckCoordinating());
    return index_tasks_->AddIndex(table, column);
  }
  Status DropIndex(std::string_view table, const std::string& column) override {
    BLOOMROUTE_RETURN_IF_ERROR(coordinator_->CheckCoordinating());
    return index_tasks_->DropIndex(table, column);
  }
  StatusOr<std::vector<router::IndexState>> IndexStatus(
      std::string_view table) const override {
    return index_tasks_->IndexStatus(table);
  }

 private:
  // router.cc
  // Publishes the catalog's ready tables; table `new_generation` (a region
  // switch) gets a new TableState::generation, the others keep theirs.
  void PublishTables(uint64_t new_generation = 0);
  // Fills ctx_ and creates the components over it (Init, once the catalog,
  // the global index and the members are there): the order is the one in
  // which they take each other.
  void CreateComponents();
  // Counts this start in the catalog (at least
  // RouterOptions::min_coordinator_epoch) and makes it the coordinator's
  // epoch (coordinator_); returns it.
  StatusOr<uint64_t> RecordStart();
  // MaintenanceDuties: what a maintenance pass (maintenance_) does.
  void MaintainCatalog() override;
  void CatchUpReplicas() override;
  Status ApplyOpPush(const OpPush& push) override;
  // index_ (with leases and op_subscriber_ when subscribing); fence tokens
  // from `start`, the router's run.
  Status CreateIndex(uint64_t start);
  void ExpireScanners() override;
  void ProbeServers() override { cluster_view_->ProbeServers(); }
  // A background run of the balancer (Balancing::RunBalancerPass).
  void RunBalancerPass(bool moves) override;

  const router::RouterOptions options_;
  // ClusterFilterConfig of the options and the members at Init; fixed then.
  SscbfConfig filter_config_;
  std::unique_ptr<CatalogStore> catalog_;
  // This router's coordinator epoch and standing (set by Init).
  std::unique_ptr<CoordinatorStanding> coordinator_;
  // Signs and checks page tokens under the catalog's key; set by Init.
  std::optional<router::PageTokenCodec> page_tokens_;
  // The catalog's cluster id; set by Init.
  std::string cluster_id_;
  // Created by Init, with a fence base above every earlier run's tokens.
  std::unique_ptr<router::GlobalIndex> index_;
  // Set by Init when RouterOptions::op_push_address is (after index_).
  std::unique_ptr<router::OpSubscriber> op_subscriber_;
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
  // (coordinator/region_ops.cc).
  std::timed_mutex ddl_mu_;
  // The ready tables, as published from the catalog.
  TableDirectory tables_;
  // The pieces above, for the components (set by Init).
  RouterContext ctx_;
  // The components, created by Init once ctx_ is filled.
  std::unique_ptr<RegionPlacement> placement_;
  // Table DDL (set by Init, after placement_).
  std::unique_ptr<TableAdmin> table_admin_;
  std::unique_ptr<NamespaceAdmin> namespace_admin_;
  // OK when no row of `table` has a cell in `columns` (every row, when
  // empty); else InvalidArgument saying what ModifyTable cannot do.
  [[nodiscard]] Status CheckNoCells(const std::string& table,
                                    const Projection& columns,
                                    const std::string& what);
  // Servers added, re-pointed, removed (set by Init, after placement_).
  std::unique_ptr<Membership> membership_;
  std::unique_ptr<IndexTasks> index_tasks_;
  // Index lookups: planned, fanned out and merged (set by Init).
  std::unique_ptr<LookupPlanner> lookups_;
  // What operators see (set by Init, before metrics_, whose scrapes ask
  // it).
  std::unique_ptr<ClusterView> cluster_view_;

  // Moves, splits and merges of regions (set by Init).
  std::unique_ptr<RegionOps> region_ops_;
  // The balancer and decommissioning (set by Init, after region_ops_).
  std::unique_ptr<Balancing> balancing_;

  // Writes and gets (set by Init).
  std::unique_ptr<RowCalls> row_calls_;
  // Scans and the open scanners (set by Init).
  std::unique_ptr<Scans> scans_;

  // The maintenance and balancer threads (router.cc sets their intervals):
  // passes every maintenance_interval_ms or when woken (maintenance_.Wake()),
  // the automatic splits and the balancer on their intervals. Stopped first
  // when the router is destroyed.
  Maintenance maintenance_;
};

}  // namespace bloomroute::router_internal

#endif  // BLOOMROUTE_ROUTER_INTERNAL_ROUTER_IMPL_H_
