// Opening the router, the catalog's tables, and the background maintenance.
#include <algorithm>
#include <chrono>
#include <set>
#include <utility>

#include "model/op_push.h"
#include "model/table_attributes.h"
#include "model/table_name.h"
#include "router/cluster_id.h"
#include "router/internal/router_impl.h"

namespace bloomroute::router {

Status Router::ApplyOpPush(const OpPush& push) {
  (void)push;
  return Status::InvalidArgument("this router takes no op pushes");
}

StatusOr<std::unique_ptr<Router>> Router::Open(
    const RouterOptions& options,
    std::shared_ptr<RegionClientFactory> factory) {
  BLOOMROUTE_RETURN_IF_ERROR(options.Validate());
  if (options.data_dir.empty()) {
    return Status::InvalidArgument("data_dir is empty");
  }
  BLOOMROUTE_ASSIGN_OR_RETURN(std::unique_ptr<CatalogStore> catalog,
                              OpenEmbeddedCatalog(options.data_dir));
  return Open(options, std::move(factory), std::move(catalog));
}

StatusOr<std::unique_ptr<Router>> Router::Open(
    const RouterOptions& options, std::shared_ptr<RegionClientFactory> factory,
    std::unique_ptr<CatalogStore> catalog) {
  BLOOMROUTE_RETURN_IF_ERROR(options.Validate());
  if (factory == nullptr) return Status::InvalidArgument("no client factory");
  if (catalog == nullptr) return Status::InvalidArgument("no catalog");
  auto router = std::make_unique<router_internal::RouterImpl>(
      options, std::move(factory));
  BLOOMROUTE_RETURN_IF_ERROR(router->Init(std::move(catalog)));
  return std::unique_ptr<Router>(std::move(router));
}

}  // namespace bloomroute::router

namespace bloomroute::router_internal {

using router::ServerRef;
using router::TableInfo;
using router::TableSpec;

namespace {

// Maintenance probes every server this often (RouterMetrics::NoteProbe):
// what /metrics and /readyz say of them.
constexpr std::chrono::seconds kProbeInterval{5};

// The maintenance and balancer intervals of `options`; the automatic splits
// are off when either of their options is 0.
Maintenance::Options MaintenanceOptions(const router::RouterOptions& options) {
  Maintenance::Options m;
  m.interval = std::chrono::milliseconds(options.maintenance_interval_ms);
  m.probe_interval = kProbeInterval;
  m.balancer_interval =
      std::chrono::milliseconds(std::max(options.balancer_interval_ms, 0));
  if (options.region_split_bytes > 0 && options.split_check_interval_ms > 0) {
    m.split_check_interval =
        std::chrono::milliseconds(options.split_check_interval_ms);
  }
  return m;
}

}  // namespace

RouterImpl::RouterImpl(const router::RouterOptions& options,
                       std::shared_ptr<router::RegionClientFactory> factory)
    : options_(options),
      servers_(std::move(factory)),
      maintenance_(MaintenanceOptions(options), this) {}

RouterImpl::~RouterImpl() {
  maintenance_.Stop();
  // After the threads that count in it, before the members its collector
  // reads.
  metrics_.reset();
}

Status RouterImpl::Init(std::unique_ptr<CatalogStore> catalog) {
  catalog_ = std::move(catalog);
  BLOOMROUTE_ASSIGN_OR_RETURN(std::string fresh_key, router::NewPageTokenKey());
  BLOOMROUTE_ASSIGN_OR_RETURN(std::string key,
                              catalog_->PageTokenKey(fresh_key));
  BLOOMROUTE_ASSIGN_OR_RETURN(page_tokens_,
                              router::PageTokenCodec::Create(std::move(key)));
  BLOOMROUTE_ASSIGN_OR_RETURN(std::string fresh_id, router::NewClusterId());
  BLOOMROUTE_ASSIGN_OR_RETURN(cluster_id_, catalog_->ClusterId(fresh_id));
  // Fence tokens of run n are MakeFenceToken(router id, n * 2^24 + 1, + 2,
  // ...): above every token of runs before it with the same router id (a
  // run raises its tokens once per write in doubt; 2^24 of them is more
  // than a run sees), and fenced per router id by the region servers.
  BLOOMROUTE_ASSIGN_OR_RETURN(const uint64_t start, RecordStart());
  BLOOMROUTE_ASSIGN_OR_RETURN(filter_config_,
                              AddFlaggedServers(catalog_.get(), options_));
  BLOOMROUTE_RETURN_IF_ERROR(CreateIndex(start));
  BLOOMROUTE_RETURN_IF_ERROR(servers_.ConnectMembers(*catalog_, index_.get()));
  CreateComponents();
  if (op_subscriber_ != nullptr) {
    // Each maintenance pass renews the leases due before it catches up.
    write_path_->SetLeaseRenewal(
        [this](router::ServerId id, router::RegionClient& client) {
          if (op_subscriber_->RenewalDue(id)) {
            (void)op_subscriber_->Renew(id, client);
          }
        });
  }
  PublishTables();
  // Best effort: servers that do not answer are retried.
  maintenance_.RunPass();
  if (options_.background_maintenance) maintenance_.Start();
  return Status::OK();
}

StatusOr<uint64_t> RouterImpl::RecordStart() {
  BLOOMROUTE_ASSIGN_OR_RETURN(
      const uint64_t start,
      catalog_->RecordRouterStart(options_.min_coordinator_epoch));
  // The coordinator's epoch is the start count until the election gives
  // one (regionstore/region_store.h, "Coordinator epochs").
  coordinator_ = std::make_unique<CoordinatorStanding>(start);
  return start;
}

Status RouterImpl::CreateIndex(uint64_t start) {
  if (start >= (uint64_t{1} << 24)) {
    return Status::InvalidArgument(
        "the catalog counts " + std::to_string(start) +
        " router starts, more than fence tokens can tell apart (2^24)");
  }
  const uint64_t fence_base = MakeFenceToken(options_.router_id, start << 24);
  if (options_.op_push_address.empty()) {
    BLOOMROUTE_ASSIGN_OR_RETURN(
        index_, router::GlobalIndex::Create(filter_config_, fence_base));
    return Status::OK();
  }
  // Leases run on this process's monotonic clock (model/op_push.h).
  auto clock = [] {
    return std::chrono::duration_cast<std::chrono::milliseconds>(
               std::chrono::steady_clock::now().time_since_epoch())
        .count();
  };
  BLOOMROUTE_ASSIGN_OR_RETURN(index_, router::GlobalIndex::CreateWithLeases(
                                          filter_config_, fence_base, clock));
  op_subscriber_ = std::make_unique<router::OpSubscriber>(
      index_.get(), router::OpSubscriber::Options{
                        options_.router_id, options_.op_push_address,
                        static_cast<int64_t>(options_.op_lease_ms), clock, 0});
  return Status::OK();
}

Status RouterImpl::ApplyOpPush(const OpPush& push) {
  if (op_subscriber_ == nullptr) return Router::ApplyOpPush(push);
  return op_subscriber_->OnPush(push);
}

void RouterImpl::CreateComponents() {
  write_path_ = std::make_unique<WritePath>(
      index_.get(), &servers_, &tables_, filter_config_,
      WritePath::Hooks{[this] { maintenance_.Wake(); },
                       [this](const ServerEntry& server) {
                         return placement_->ReopenServer(server);
                       },
                       coordinator_.get()});
  fan_out_ = std::make_unique<FanOut>(options_.fanout_threads);
  ctx_.options = &options_;
  ctx_.filter_config = filter_config_;
  ctx_.catalog = catalog_.get();
  ctx_.index = index_.get();
  ctx_.fan_out = fan_out_.get();
  ctx_.servers = &servers_;
  ctx_.tables = &tables_;
  ctx_.write_path = write_path_.get();
  ctx_.ddl_mu = &ddl_mu_;
  ctx_.coordinator = coordinator_.get();
  ctx_.wake = [this] { maintenance_.Wake(); };
  lookups_ = std::make_unique<LookupPlanner>(
      ctx_, &*page_tokens_, LookupPlanner::Hooks{CheckIndexReady});
  cluster_view_ = std::make_unique<ClusterView>(
      ctx_, ClusterView::Hooks{IsStagedTarget,
                               [this](router::RegionSummary* summary) {
                                 balancing_->DescribeRegion(summary);
                               }});
  // After the context and the view it reads: a scrape may come at once.
  metrics_ = std::make_unique<RouterMetrics>(
      [this] { return cluster_view_->MetricsSnapshot(); });
  ctx_.metrics = metrics_.get();
  placement_ = std::make_unique<RegionPlacement>(ctx_);
  table_admin_ = std::make_unique<TableAdmin>(ctx_, placement_.get());
  namespace_admin_ = std::make_unique<NamespaceAdmin>(ctx_);
  membership_ = std::make_unique<Membership>(ctx_, placement_.get());
  index_tasks_ = std::make_unique<IndexTasks>(
      ctx_, IndexTasks::Hooks{
                [](const CatalogTable& t) { return CheckNoRegionOp(t); }});
  region_ops_ = std::make_unique<RegionOps>(ctx_);
  balancing_ = std::make_unique<Balancing>(
      ctx_, region_ops_.get(),
      Balancing::Hooks{
          [this](const ServerEntry& server, uint64_t table_id,
                 size_t max_regions, bool count_rows) {
            return cluster_view_->FetchRegionStats(server, table_id,
                                                   max_regions, count_rows);
          },
          [this](ServerId id) { return membership_->RemoveServer(id); }});
  row_calls_ = std::make_unique<RowCalls>(ctx_);
  scans_ = std::make_unique<Scans>(
      ctx_, Scans::Hooks{
                [this](std::string_view table, const router::LookupSpec& spec) {
                  return lookups_->Lookup(table, spec);
                }});
}

void RouterImpl::PublishTables(uint64_t new_generation) {
  tables_.Publish(*catalog_->Tables(), new_generation);
}

std::vector<ServerRef> RouterImpl::Servers() const {
  std::vector<ServerRef> out;
  const std::shared_ptr<const ServerMap> servers = servers_.Snapshot();
  for (const auto& [id, entry] : *servers) out.push_back(entry->ref);
  return out;
}

void RouterImpl::RunMaintenance() { maintenance_.RunPass(); }

void RouterImpl::MaintainCatalog() {
  // Another router coordinates: its duties are not ours (nor retried).
  if (coordinator_->deposed()) return;
  placement_->Maintain();
  region_ops_->MaintainRegionOps();
  index_tasks_->MaintainIndexes();
}

void RouterImpl::CatchUpReplicas() { write_path_->CatchUpReplicas(); }

void RouterImpl::ExpireScanners() { scans_->ExpireScanners(); }

// The calls on rows (RowCalls) and scans (Scans).
Status RouterImpl::ForgetGrants(std::string_view name, bool is_namespace) {
  const std::string table = is_namespace ? "" : CanonicalTableName(name);
  const std::shared_ptr<const CatalogStore::GrantList> grants =
      catalog_->Grants();
  for (const router::Grant& g : *grants) {
    const bool on = is_namespace ? g.is_namespace() && g.ns == name
                                 : !g.is_namespace() && g.table == table;
    if (!on) continue;
    router::Grant all = g;
    all.actions.clear();  // a revoke naming no letter takes them all
    Status s = catalog_->ChangeGrant(all, router::GrantChange::kRevoke);
    if (!s.ok()) {
      return s.WithContext(std::string(is_namespace ? "namespace " : "table ") +
                           QuoteForMessage(name) +
                           " was deleted, but its grants were not revoked");
    }
  }
  return Status::OK();
}

Status RouterImpl::ModifyTable(const router::TableSpec& spec) {
  BLOOMROUTE_RETURN_IF_ERROR(coordinator_->CheckCoordinating());
  BLOOMROUTE_ASSIGN_OR_RETURN(const SchemaChange change,
                              table_admin_->PlanSchemaChange(spec));
  if (change.narrowed) {
    BLOOMROUTE_RETURN_IF_ERROR(
        CheckNoCells(change.table, {}, "declaring families on it"));
  }
  for (const std::string& family : change.removed_families) {
    BLOOMROUTE_RETURN_IF_ERROR(CheckNoCells(
        change.table, {family},
        "removing family " + QuoteForMessage(family) + " from it"));
  }
  for (const std::string& column : change.drop) {
    BLOOMROUTE_RETURN_IF_ERROR(index_tasks_->DropIndex(change.table, column));
  }
  BLOOMROUTE_RETURN_IF_ERROR(table_admin_->ApplySchema(change));
  for (const std::string& column : change.add) {
    BLOOMROUTE_RETURN_IF_ERROR(index_tasks_->AddIndex(change.table, column));
  }
  return Status::OK();
}

Status RouterImpl::CheckNoCells(const std::string& table,
                                const Projection& columns,
                                const std::string& what) {
  router::ScanSpec scan;
  scan.columns = columns;
  // A pass may stop at the servers' work bound with no row: go on from
  // where it stopped.
  while (true) {
    BLOOMROUTE_ASSIGN_OR_RETURN(const ScanResult found,
                                scans_->ScanAnyState(table, scan, 1));
    if (!found.rows.empty()) {
      return Status::InvalidArgument(
          "table " + QuoteForMessage(table) + " holds cells" +
          (columns.empty() ? std::string()
                           : " of family " + QuoteForMessage(columns[0])) +
          " (row " + QuoteForMessage(found.rows[0].key) + "): " + what +
          " would need them deleted on the region servers, which the router "
          "does not do; delete them first (or truncate the table)");
    }
    if (!found.resume_row) return Status::OK();
    scan.start_row = *found.resume_row;
  }
}

Status RouterImpl::Mutate(std::string_view table,
                          std::vector<Mutation> mutations) {
  return row_calls_->Mutate(table, std::move(mutations));
}

StatusOr<bool> RouterImpl::CheckAndMutate(std::string_view table,
                                          const std::string& row,
                                          const RowCondition& condition,
                                          std::vector<Mutation> mutations) {
  return row_calls_->CheckAndMutate(table, row, condition,
                                    std::move(mutations));
}

StatusOr<Row> RouterImpl::Increment(std::string_view table,
                                    const std::string& row,
                                    std::vector<ColumnIncrement> increments) {
  return row_calls_->Increment(table, row, std::move(increments));
}

StatusOr<Row> RouterImpl::Append(std::string_view table, const std::string& row,
                                 std::vector<Cell> cells) {
  return row_calls_->Append(table, row, std::move(cells));
}

Status RouterImpl::MutateRow(std::string_view table, const std::string& row,
                             std::vector<Mutation> mutations) {
  return row_calls_->MutateRow(table, row, std::move(mutations));
}

StatusOr<std::vector<std::optional<Row>>> RouterImpl::Get(
    std::string_view table, std::vector<GetRequest> requests) {
  return row_calls_->Get(table, std::move(requests));
}

Status RouterImpl::BulkLoad(std::string_view table, uint64_t region_id,
                            const std::string& file) {
  return row_calls_->BulkLoad(table, region_id, file);
}

StatusOr<ScanResult> RouterImpl::Scan(std::string_view table,
                                      const router::ScanSpec& spec,
                                      uint32_t limit) {
  return scans_->Scan(table, spec, limit);
}

StatusOr<int64_t> RouterImpl::OpenScanner(std::string_view table,
                                          const router::ScanSpec& spec,
                                          router::ScannerClient client,
                                          std::string_view principal) {
  return scans_->OpenScanner(table, spec, client, principal);
}

StatusOr<std::vector<Row>> RouterImpl::ScannerNext(int64_t scanner,
                                                   uint32_t max_rows,
                                                   uint64_t call_seq,
                                                   router::ScannerClient client,
                                                   std::string_view principal) {
  return scans_->ScannerNext(scanner, max_rows, call_seq, client, principal);
}

Status RouterImpl::CloseScanner(int64_t scanner, router::ScannerClient client,
                                std::string_view principal) {
  return scans_->CloseScanner(scanner, client, principal);
}

void RouterImpl::CloseScanners(router::ScannerClient client) {
  scans_->CloseScanners(client);
}

std::string RouterImpl::ScannerTable(int64_t scanner) const {
  return scans_->ScannerTable(scanner);
}

void RouterImpl::RunBalancerPass(bool moves) {
  if (coordinator_->deposed()) return;
  balancing_->RunBalancerPass(moves);
}

StatusOr<router::RegionOpResult> RouterImpl::MoveRegion(uint64_t region_id,
                                                        ServerId to) {
  return region_ops_->MoveRegion(region_id, to);
}

StatusOr<router::RegionOpResult> RouterImpl::SplitRegion(
    uint64_t region_id, const std::optional<std::string>& split_key) {
  return region_ops_->SplitRegion(region_id, split_key);
}

StatusOr<router::RegionOpResult> RouterImpl::MergeRegions(uint64_t region_a,
                                                          uint64_t region_b) {
  return region_ops_->MergeRegions(region_a, region_b);
}

StatusOr<router::BalanceReport> RouterImpl::Balance(uint32_t max_operations) {
  return balancing_->Balance(max_operations);
}

StatusOr<std::vector<router::BalanceReport::Step>>
RouterImpl::DecommissionServer(ServerId id) {
  return balancing_->DecommissionServer(id);
}

}  // namespace bloomroute::router_internal
