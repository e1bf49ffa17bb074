// Opening the router, the catalog's tables, and the background maintenance.
#include <algorithm>
#include <set>
#include <utility>

#include "model/table_attributes.h"
#include "router/internal/router_impl.h"

namespace bloomroute::router {

StatusOr<std::unique_ptr<Router>> Router::Open(
    const RouterOptions& options,
    std::shared_ptr<RegionClientFactory> factory) {
  BLOOMROUTE_RETURN_IF_ERROR(options.Validate());
  if (factory == nullptr) return Status::InvalidArgument("no client factory");
  auto router = std::make_unique<router_internal::RouterImpl>(
      options, std::move(factory));
  BLOOMROUTE_RETURN_IF_ERROR(router->Init());
  return std::unique_ptr<Router>(std::move(router));
}

}  // namespace bloomroute::router

namespace bloomroute::router_internal {

using router::ServerRef;
using router::TableInfo;
using router::TableSpec;

namespace {

bool IsTableNameChar(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
         (c >= '0' && c <= '9') || c == '_' || c == '-' || c == '.';
}

Status ValidateTableName(const std::string& name) {
  if (name.empty() || name.size() > 255 || name == "." || name == ".." ||
      !std::all_of(name.begin(), name.end(), IsTableNameChar)) {
    return Status::InvalidArgument(
        "table name " + QuoteForMessage(name) +
        " must be 1 to 255 of [A-Za-z0-9_.-] (and not '.' or '..')");
  }
  return Status::OK();
}

Status ValidateSplitKeys(const TableSpec& spec) {
  if (spec.split_keys.size() + 1 > TableSpec::kMaxRegions ||
      spec.region_count > TableSpec::kMaxRegions) {
    return Status::InvalidArgument("a table has at most " +
                                   std::to_string(TableSpec::kMaxRegions) +
                                   " regions");
  }
  if (!spec.split_keys.empty() && spec.region_count > 0) {
    return Status::InvalidArgument(
        "give split keys or a region count, not both");
  }
  for (size_t i = 0; i < spec.split_keys.size(); ++i) {
    const std::string& k = spec.split_keys[i];
    if (k.empty() || k.size() > kMaxRowKeyBytes) {
      return Status::InvalidArgument("split key " + std::to_string(i) +
                                     " is empty or longer than a row key");
    }
    if (i > 0 && !(spec.split_keys[i - 1] < k)) {
      return Status::InvalidArgument("split keys must be strictly ascending");
    }
  }
  return Status::OK();
}

static_assert(TableSpec::kMaxIndexedColumns == kMaxIndexedColumnsPerTable &&
                  TableSpec::kMaxIndexedColumnBytes ==
                      kMaxIndexedColumnBytesPerTable,
              "the bloomroute.index attribute and TableSpec share limits");

// The spec with its indexed columns taken from the bloomroute.index
// attribute when it has one (they must agree with an explicit list; the
// attribute is kept in its formatted form).
StatusOr<TableSpec> ResolveIndexAttribute(const TableSpec& spec) {
  TableSpec out = spec;
  const std::string key(kIndexAttribute);
  auto it = out.attributes.find(key);
  if (it == out.attributes.end()) return out;
  {
    BLOOMROUTE_ASSIGN_OR_RETURN(std::vector<std::string> columns,
                                ParseIndexAttribute(it->second));
    if (!out.indexed_columns.empty() && out.indexed_columns != columns) {
      return Status::InvalidArgument(
          "the " + key + " attribute names " +
          QuoteForMessage(FormatIndexAttribute(columns)) +
          " but the indexed columns given are " +
          QuoteForMessage(FormatIndexAttribute(out.indexed_columns)));
    }
    out.indexed_columns = std::move(columns);
  }
  it->second = FormatIndexAttribute(out.indexed_columns);
  return out;
}

Status ValidateFamiliesAndAttributes(const TableSpec& spec) {
  BLOOMROUTE_RETURN_IF_ERROR(ValidateFamilies(spec.families));
  // The index attribute has the indexed columns' own limits.
  std::map<std::string, std::string> attributes = spec.attributes;
  attributes.erase(std::string(kIndexAttribute));
  BLOOMROUTE_RETURN_IF_ERROR(ValidateAttributes(attributes));
  TableDescriptor d;
  d.name = spec.name;
  d.families = spec.families;
  for (const std::string& c : spec.indexed_columns) {
    BLOOMROUTE_RETURN_IF_ERROR(CheckColumnFamily(d, c).WithContext(
        "indexed column " + QuoteForMessage(c)));
  }
  return Status::OK();
}

Status ValidateSpec(const TableSpec& spec) {
  BLOOMROUTE_RETURN_IF_ERROR(ValidateTableName(spec.name));
  if (spec.indexed_columns.size() > TableSpec::kMaxIndexedColumns) {
    return Status::InvalidArgument(
        "a table has at most " + std::to_string(TableSpec::kMaxIndexedColumns) +
        " indexed columns");
  }
  std::set<std::string> seen;
  for (const std::string& c : spec.indexed_columns) {
    BLOOMROUTE_RETURN_IF_ERROR(ValidateColumnName(c));
    if (!seen.insert(c).second) {
      return Status::InvalidArgument("indexed column " + QuoteForMessage(c) +
                                     " is named twice");
    }
  }
  BLOOMROUTE_RETURN_IF_ERROR(ValidateFamiliesAndAttributes(spec));
  return ValidateSplitKeys(spec);
}

// The bytes of split keys and indexed column names `spec` asks for: what a
// describeTable reply repeats (each split key twice) and every region
// descriptor sent to a region server carries (the column names).
Status CheckTableBytes(const TableSpec& spec, uint64_t max_table_bytes) {
  uint64_t columns = 0;
  for (const std::string& c : spec.indexed_columns) columns += c.size();
  if (columns > TableSpec::kMaxIndexedColumnBytes) {
    return Status::InvalidArgument(
        "the indexed column names of table " + QuoteForMessage(spec.name) +
        " take " + std::to_string(columns) + " bytes, over the limit of " +
        std::to_string(TableSpec::kMaxIndexedColumnBytes));
  }
  uint64_t bytes = columns;
  for (const std::string& k : spec.split_keys) bytes += k.size();
  for (const std::string& f : spec.families) bytes += f.size();
  // The index attribute's value repeats the column names counted above.
  bytes += AttributeBytes(spec.attributes);
  auto index = spec.attributes.find(std::string(kIndexAttribute));
  if (index != spec.attributes.end()) bytes -= index->second.size();
  if (bytes > max_table_bytes) {
    return Status::InvalidArgument(
        "the split keys, indexed column names, families and attributes of "
        "table " +
        QuoteForMessage(spec.name) + " take " + std::to_string(bytes) +
        " bytes, over the limit of " + std::to_string(max_table_bytes) +
        " (--max-table-bytes)");
  }
  return Status::OK();
}

// What `d` takes in a listing of descriptors, about.
uint64_t ListedBytes(const TableDescriptor& d) {
  uint64_t bytes = d.name.size() + AttributeBytes(d.attributes);
  for (const IndexedColumn& c : d.indexed_columns) bytes += c.name.size() + 16;
  for (const std::string& f : d.families) bytes += f.size();
  return bytes;
}

Status CheckListedBytes(const Catalog::TableList& tables,
                        const TableDescriptor& added, uint64_t limit) {
  uint64_t bytes = ListedBytes(added);
  for (const CatalogTable& t : tables) bytes += ListedBytes(t.descriptor);
  if (bytes > limit) {
    return Status::InvalidArgument(
        "the descriptors of all tables would take " + std::to_string(bytes) +
        " bytes, over the limit of " + std::to_string(limit) +
        " (max_listed_descriptor_bytes, so that a listing of every table "
        "fits a reply)");
  }
  return Status::OK();
}

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

Status RouterImpl::Init() {
  BLOOMROUTE_ASSIGN_OR_RETURN(catalog_, Catalog::Open(options_.data_dir));
  BLOOMROUTE_ASSIGN_OR_RETURN(std::string fresh_key, router::NewPageTokenKey());
  BLOOMROUTE_ASSIGN_OR_RETURN(std::string key,
                              catalog_->PageTokenKey(fresh_key));
  BLOOMROUTE_ASSIGN_OR_RETURN(page_tokens_,
                              router::PageTokenCodec::Create(std::move(key)));
  // Fence tokens of run n are n * 2^32 + 1, + 2, ...: above every token of
  // runs before it (a run raises its tokens once per write in doubt; 2^32 of
  // them is more than a run could ever see).
  BLOOMROUTE_ASSIGN_OR_RETURN(const uint64_t start,
                              catalog_->RecordRouterStart());
  BLOOMROUTE_RETURN_IF_ERROR(AddFlaggedServers());  // sets filter_config_
  BLOOMROUTE_ASSIGN_OR_RETURN(
      index_, router::GlobalIndex::Create(filter_config_, start << 32));
  BLOOMROUTE_RETURN_IF_ERROR(servers_.ConnectMembers(*catalog_, index_.get()));
  write_path_ = std::make_unique<WritePath>(
      index_.get(), &servers_, &tables_, filter_config_,
      WritePath::Hooks{[this] { maintenance_.Wake(); },
                       [this](const ServerEntry& server) {
                         return placement_->ReopenServer(server);
                       }});
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
  index_tasks_ = std::make_unique<IndexTasks>(
      ctx_, IndexTasks::Hooks{
                [](const CatalogTable& t) { return CheckNoRegionOp(t); }});
  region_ops_ = std::make_unique<RegionOps>(ctx_);
  balancing_ = std::make_unique<Balancing>(
      ctx_, region_ops_.get(),
      Balancing::Hooks{[this](const ServerEntry& server, uint64_t table_id,
                              size_t max_regions, bool count_rows) {
                         return cluster_view_->FetchRegionStats(
                             server, table_id, max_regions, count_rows);
                       },
                       [this](ServerId id) { return RemoveServer(id); }});
  row_calls_ = std::make_unique<RowCalls>(ctx_);
  scans_ = std::make_unique<Scans>(
      ctx_, Scans::Hooks{
                [this](std::string_view table, const router::LookupSpec& spec) {
                  return lookups_->Lookup(table, spec);
                }});
  PublishTables();
  // Best effort: servers that do not answer are retried.
  maintenance_.RunPass();
  if (options_.background_maintenance) maintenance_.Start();
  return Status::OK();
}

void RouterImpl::PublishTables(uint64_t new_generation) {
  tables_.Publish(*catalog_->Tables(), new_generation);
}

StatusOr<TableInfo> RouterImpl::CreateTable(const TableSpec& given) {
  BLOOMROUTE_ASSIGN_OR_RETURN(const TableSpec spec,
                              ResolveIndexAttribute(given));
  BLOOMROUTE_RETURN_IF_ERROR(ValidateSpec(spec));
  BLOOMROUTE_RETURN_IF_ERROR(CheckTableBytes(spec, options_.max_table_bytes));
  std::lock_guard<std::timed_mutex> lock(ddl_mu_);
  const std::shared_ptr<const Catalog::TableList> tables = catalog_->Tables();
  if (tables->size() >= options_.max_tables) {
    return Status::InvalidArgument(
        "the router holds at most " + std::to_string(options_.max_tables) +
        " tables, counting those still being deleted (--max-tables)");
  }
  for (const CatalogTable& t : *tables) {
    if (t.descriptor.name == spec.name) {
      return Status::InvalidArgument(
          "table '" + spec.name + "' " +
          (t.state == CatalogTable::State::kReady
               ? "already exists"
               : "is still being deleted; try again later"));
    }
  }
  CatalogTable table = placement_->PlanTable(spec);
  BLOOMROUTE_RETURN_IF_ERROR(CheckListedBytes(
      *tables, table.descriptor, options_.max_listed_descriptor_bytes));
  // Persisted before any server hears of the ids, so they are never reused.
  BLOOMROUTE_RETURN_IF_ERROR(catalog_->PutTable(table));
  Status opened = placement_->OpenRegions(table);
  if (!opened.ok()) {
    table.state = CatalogTable::State::kDeleting;
    if (catalog_->PutTable(table).ok() && placement_->DropRegions(table).ok()) {
      (void)catalog_->DeleteTable(table.descriptor.table_id);
    }
    maintenance_.Wake();  // catch up the replicas the drops made stale
    return opened.WithContext("creating table '" + spec.name + "'");
  }
  PublishTables();
  return Describe(TableState(table));
}

Status RouterImpl::DeleteTable(std::string_view name) {
  std::lock_guard<std::timed_mutex> lock(ddl_mu_);
  BLOOMROUTE_ASSIGN_OR_RETURN(std::shared_ptr<const TableState> state,
                              tables_.FindAnyState(name));
  return DeleteTableLocked(*state);
}

Status RouterImpl::DeleteTableLocked(const TableState& state) {
  BLOOMROUTE_RETURN_IF_ERROR(CheckNoRegionOp(state.record));
  CatalogTable table = state.record;
  table.state = CatalogTable::State::kDeleting;
  BLOOMROUTE_RETURN_IF_ERROR(catalog_->PutTable(table));
  PublishTables();
  Status dropped = placement_->DropRegions(table);
  maintenance_.Wake();  // catch up the replicas the drops made stale
  if (!dropped.ok()) {
    return dropped.WithContext(
        "table '" + table.descriptor.name +
        "' is deleted, but some of its regions are dropped only when their "
        "server answers again");
  }
  return catalog_->DeleteTable(table.descriptor.table_id);
}

std::vector<TableDescriptor> RouterImpl::ListTables() const {
  std::vector<TableDescriptor> out;
  for (const auto& t : tables_.Tables()) {
    out.push_back(ReadyDescriptor(t->record.descriptor));
  }
  return out;
}

TableInfo RouterImpl::Describe(const TableState& table) const {
  TableInfo info;
  info.descriptor = ReadyDescriptor(table.record.descriptor);
  info.enabled = table.record.enabled;
  for (size_t i = 0; i < table.record.regions.size(); ++i) {
    info.regions.push_back({table.Descriptor(i),
                            servers_.Get(table.record.regions[i].server).ref});
  }
  return info;
}

StatusOr<TableInfo> RouterImpl::DescribeTable(std::string_view table) const {
  BLOOMROUTE_ASSIGN_OR_RETURN(std::shared_ptr<const TableState> state,
                              tables_.FindAnyState(table));
  return Describe(*state);
}

std::vector<ServerRef> RouterImpl::Servers() const {
  std::vector<ServerRef> out;
  const std::shared_ptr<const ServerMap> servers = servers_.Snapshot();
  for (const auto& [id, entry] : *servers) out.push_back(entry->ref);
  return out;
}

void RouterImpl::RunMaintenance() { maintenance_.RunPass(); }

bool RouterImpl::CatalogWorkPending() const {
  const std::shared_ptr<const ServerMap> servers = servers_.Snapshot();
  for (const auto& [id, server] : *servers) {
    if (server->reopen) return true;
  }
  const std::shared_ptr<const Catalog::TableList> tables = catalog_->Tables();
  return std::any_of(tables->begin(), tables->end(), [](const CatalogTable& t) {
    return t.state == CatalogTable::State::kDeleting ||
           !t.retired_regions.empty() || !t.index_tasks.empty() ||
           !t.region_ops.empty();
  });
}

void RouterImpl::MaintainCatalog() {
  // A pass costs what changed: the catalog is a shared snapshot (no copy),
  // and ddl_mu_ is taken only when a server must be reopened or a deletion
  // finished, not every interval. Asking each server for its regions (one
  // small call per server) needs no lock: a flag only schedules a reopen,
  // which reads the catalog again under ddl_mu_.
  placement_->FlagServersMissingRegions(*catalog_->Tables());
  if (CatalogWorkPending()) {
    // Under ddl_mu_, so that no region of a table being deleted is reopened.
    std::lock_guard<std::timed_mutex> lock(ddl_mu_);
    const std::shared_ptr<const Catalog::TableList> tables = catalog_->Tables();
    const std::shared_ptr<const ServerMap> servers = servers_.Snapshot();
    for (auto& [id, server] : *servers) {
      if (!server->reopen.exchange(false)) continue;
      const Status reopened = placement_->ReopenServerLocked(*server);
      server->SetReopenError(reopened.ok() ? "" : reopened.ToString());
      if (!reopened.ok()) server->reopen = true;
    }
    for (const CatalogTable& t : *tables) {
      if (t.state == CatalogTable::State::kDeleting &&
          placement_->DropRegions(t).ok()) {
        (void)catalog_->DeleteTable(t.descriptor.table_id);
      } else if (t.state == CatalogTable::State::kReady &&
                 !t.retired_regions.empty()) {
        CatalogTable table = t;
        // Retried every pass until done.
        (void)placement_->DropRetiredRegions(&table);
      }
    }
  }
  region_ops_->MaintainRegionOps();
  index_tasks_->MaintainIndexes();
}

void RouterImpl::CatchUpReplicas() { write_path_->CatchUpReplicas(); }

void RouterImpl::ExpireScanners() { scans_->ExpireScanners(); }

// The calls on rows (RowCalls) and scans (Scans).
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

StatusOr<std::vector<Row>> RouterImpl::ScannerNext(
    int64_t scanner, uint32_t max_rows, uint64_t call_seq,
    router::ScannerClient client) {
  return scans_->ScannerNext(scanner, max_rows, call_seq, client);
}

Status RouterImpl::CloseScanner(int64_t scanner, router::ScannerClient client) {
  return scans_->CloseScanner(scanner, client);
}

void RouterImpl::CloseScanners(router::ScannerClient client) {
  scans_->CloseScanners(client);
}

std::string RouterImpl::ScannerTable(int64_t scanner) const {
  return scans_->ScannerTable(scanner);
}

void RouterImpl::RunBalancerPass(bool moves) {
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
