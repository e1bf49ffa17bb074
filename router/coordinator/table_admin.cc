// Table DDL as the Router interface offers it (table_admin.h): create,
// delete, enable / disable, truncate, and what a table is and where its
// regions are.
#include "router/coordinator/table_admin.h"

#include <algorithm>
#include <mutex>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "model/table_attributes.h"
#include "model/table_name.h"
#include "router/coordinator/index_tasks.h"
#include "router/coordinator/namespace_admin.h"
#include "router/coordinator/region_ops.h"

namespace bloomroute::router_internal {

using router::TableInfo;
using router::TableSpec;

namespace {

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

Status CheckListedBytes(const CatalogStore::TableList& tables,
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

Status NotDisabled(std::string_view table) {
  return Status::InvalidArgument("table " + QuoteForMessage(table) +
                                 " is not disabled");
}

// The split keys of the regions (their start keys but the first).
std::vector<std::string> SplitKeysOf(
    const std::vector<CatalogRegion>& regions) {
  std::vector<std::string> splits;
  for (size_t i = 1; i < regions.size(); ++i) {
    splits.push_back(regions[i].start_key);
  }
  return splits;
}

}  // namespace

TableAdmin::TableAdmin(const RouterContext& ctx, RegionPlacement* placement)
    : ctx_(ctx), placement_(placement) {}

StatusOr<TableSpec> TableAdmin::CheckedSpec(const TableSpec& given) const {
  TableSpec named = given;
  named.name = CanonicalTableName(given.name);
  BLOOMROUTE_ASSIGN_OR_RETURN(TableSpec spec, ResolveIndexAttribute(named));
  BLOOMROUTE_RETURN_IF_ERROR(ValidateSpec(spec));
  BLOOMROUTE_RETURN_IF_ERROR(
      CheckTableBytes(spec, ctx_.options->max_table_bytes));
  return spec;
}

StatusOr<TableInfo> TableAdmin::CreateTable(const TableSpec& given) {
  BLOOMROUTE_ASSIGN_OR_RETURN(const TableSpec spec, CheckedSpec(given));
  std::lock_guard<std::timed_mutex> lock(*ctx_.ddl_mu);
  BLOOMROUTE_RETURN_IF_ERROR(
      CheckTableNamespace(*ctx_.catalog, NamespaceOf(spec.name)));
  const std::shared_ptr<const CatalogStore::TableList> tables =
      ctx_.catalog->Tables();
  if (tables->size() >= ctx_.options->max_tables) {
    return Status::InvalidArgument(
        "the router holds at most " + std::to_string(ctx_.options->max_tables) +
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
      *tables, table.descriptor, ctx_.options->max_listed_descriptor_bytes));
  // Persisted before any server hears of the ids, so they are never reused.
  BLOOMROUTE_RETURN_IF_ERROR(ctx_.catalog->PutTable(table));
  Status opened = placement_->OpenRegions(table);
  if (!opened.ok()) {
    table.state = CatalogTable::State::kDeleting;
    if (ctx_.catalog->PutTable(table).ok() &&
        placement_->DropRegions(table).ok()) {
      (void)ctx_.catalog->DeleteTable(table.descriptor.table_id);
    }
    ctx_.wake();  // catch up the replicas the drops made stale
    return opened.WithContext("creating table '" + spec.name + "'");
  }
  ctx_.PublishTables();
  return Describe(TableState(table));
}

Status TableAdmin::DeleteTable(std::string_view name) {
  std::lock_guard<std::timed_mutex> lock(*ctx_.ddl_mu);
  BLOOMROUTE_ASSIGN_OR_RETURN(std::shared_ptr<const TableState> state,
                              ctx_.tables->FindAnyState(name));
  return DeleteTableLocked(*state);
}

Status TableAdmin::DeleteTableLocked(const TableState& state) {
  BLOOMROUTE_RETURN_IF_ERROR(CheckNoRegionOp(state.record));
  CatalogTable table = state.record;
  table.state = CatalogTable::State::kDeleting;
  BLOOMROUTE_RETURN_IF_ERROR(ctx_.catalog->PutTable(table));
  ctx_.PublishTables();
  Status dropped = placement_->DropRegions(table);
  ctx_.wake();  // catch up the replicas the drops made stale
  if (!dropped.ok()) {
    return dropped.WithContext(
        "table '" + table.descriptor.name +
        "' is deleted, but some of its regions are dropped only when their "
        "server answers again");
  }
  return ctx_.catalog->DeleteTable(table.descriptor.table_id);
}

std::vector<TableDescriptor> TableAdmin::ListTables() const {
  std::vector<TableDescriptor> out;
  for (const auto& t : ctx_.tables->Tables()) {
    out.push_back(ReadyDescriptor(t->record.descriptor));
  }
  return out;
}

TableInfo TableAdmin::Describe(const TableState& table) const {
  TableInfo info;
  info.descriptor = ReadyDescriptor(table.record.descriptor);
  info.enabled = table.record.enabled;
  for (size_t i = 0; i < table.record.regions.size(); ++i) {
    info.regions.push_back(
        {table.Descriptor(i),
         ctx_.servers->Get(table.record.regions[i].server).ref});
  }
  return info;
}

StatusOr<TableInfo> TableAdmin::DescribeTable(std::string_view table) const {
  BLOOMROUTE_ASSIGN_OR_RETURN(std::shared_ptr<const TableState> state,
                              ctx_.tables->FindAnyState(table));
  return Describe(*state);
}

Status TableAdmin::SetEnabled(std::string_view name, bool enabled) {
  std::lock_guard<std::timed_mutex> lock(*ctx_.ddl_mu);
  BLOOMROUTE_ASSIGN_OR_RETURN(std::shared_ptr<const TableState> state,
                              ctx_.tables->FindAnyState(name));
  if (state->record.enabled == enabled) {
    return Status::InvalidArgument(
        "table " + QuoteForMessage(name) +
        (enabled ? " is not disabled" : " is not enabled"));
  }
  CatalogTable table = state->record;
  table.enabled = enabled;
  BLOOMROUTE_RETURN_IF_ERROR(ctx_.catalog->PutTable(table));
  ctx_.PublishTables();
  return Status::OK();
}

Status TableAdmin::DisableTable(std::string_view table) {
  return SetEnabled(table, false);
}

Status TableAdmin::EnableTable(std::string_view table) {
  return SetEnabled(table, true);
}

StatusOr<bool> TableAdmin::IsTableEnabled(std::string_view table) const {
  BLOOMROUTE_ASSIGN_OR_RETURN(std::shared_ptr<const TableState> state,
                              ctx_.tables->FindAnyState(table));
  return state->record.enabled;
}

Status TableAdmin::DeleteTableIfDisabled(std::string_view name) {
  std::lock_guard<std::timed_mutex> lock(*ctx_.ddl_mu);
  BLOOMROUTE_ASSIGN_OR_RETURN(std::shared_ptr<const TableState> state,
                              ctx_.tables->FindAnyState(name));
  if (state->record.enabled) return NotDisabled(name);
  return DeleteTableLocked(*state);
}

Status TableAdmin::TruncateTable(std::string_view name, bool preserve_splits) {
  std::lock_guard<std::timed_mutex> lock(*ctx_.ddl_mu);
  BLOOMROUTE_ASSIGN_OR_RETURN(std::shared_ptr<const TableState> state,
                              ctx_.tables->FindAnyState(name));
  if (state->record.enabled) return NotDisabled(name);
  BLOOMROUTE_RETURN_IF_ERROR(CheckNoRegionOp(state->record));
  CatalogTable table = state->record;
  table.retired_regions.insert(table.retired_regions.end(),
                               table.regions.begin(), table.regions.end());
  table.regions = placement_->PlaceRegions(
      preserve_splits ? SplitKeysOf(state->record.regions)
                      : std::vector<std::string>{},
      table.descriptor.table_id);
  // One write switches the table to the new regions: from here on (and
  // after a crash) nothing routes to the old ones, which are only dropped,
  // now or by maintenance; the new ones are opened now or, on a server that
  // does not answer, by maintenance when it does.
  BLOOMROUTE_RETURN_IF_ERROR(ctx_.catalog->PutTable(table));
  ctx_.PublishTables();
  const Status dropped = placement_->DropRetiredRegions(&table);
  const Status opened = placement_->OpenRegions(table);
  table.enabled = true;  // as HBase: a truncated table is enabled
  BLOOMROUTE_RETURN_IF_ERROR(ctx_.catalog->PutTable(table));
  ctx_.PublishTables();
  ctx_.wake();  // catch up the replicas the drops made stale
  const Status& failed = !dropped.ok() ? dropped : opened;
  if (!failed.ok()) {
    return failed.WithContext(
        "table " + QuoteForMessage(name) +
        " is truncated, but some of its old regions are dropped, and new "
        "ones opened, only when their server answers again");
  }
  return Status::OK();
}

StatusOr<router::RegionLocation> TableAdmin::LocateRegion(
    std::string_view table, std::string_view row) const {
  BLOOMROUTE_ASSIGN_OR_RETURN(std::shared_ptr<const TableState> state,
                              ctx_.tables->FindAnyState(table));
  const size_t i = state->RegionFor(row);
  return router::RegionLocation{
      state->Descriptor(i),
      ctx_.servers->Get(state->record.regions[i].server).ref};
}

namespace {

std::vector<std::string> Minus(const std::vector<std::string>& a,
                               const std::vector<std::string>& b) {
  std::vector<std::string> out;
  for (const std::string& x : a) {
    if (std::find(b.begin(), b.end(), x) == b.end()) out.push_back(x);
  }
  return out;
}

}  // namespace

StatusOr<SchemaChange> TableAdmin::PlanSchemaChange(
    const TableSpec& given) const {
  if (!given.split_keys.empty() || given.region_count != 0) {
    return Status::InvalidArgument(
        "modifyTable changes a table's schema, not its regions: split keys "
        "and a region count are not taken");
  }
  BLOOMROUTE_ASSIGN_OR_RETURN(const TableSpec spec, CheckedSpec(given));
  BLOOMROUTE_ASSIGN_OR_RETURN(std::shared_ptr<const TableState> state,
                              ctx_.tables->FindAnyState(spec.name));
  const TableDescriptor& old = state->record.descriptor;
  std::vector<std::string> indexed;
  for (const IndexedColumn& c : old.indexed_columns) indexed.push_back(c.name);
  SchemaChange change;
  change.table = spec.name;
  change.families = spec.families;
  change.attributes = spec.attributes;
  change.index_attribute =
      change.attributes.erase(std::string(kIndexAttribute)) > 0;
  change.drop = Minus(indexed, spec.indexed_columns);
  change.add = Minus(spec.indexed_columns, indexed);
  change.removed_families = Minus(old.families, spec.families);
  change.narrowed = old.families.empty() && !spec.families.empty();
  return change;
}

Status TableAdmin::ApplySchema(const SchemaChange& change) {
  std::lock_guard<std::timed_mutex> lock(*ctx_.ddl_mu);
  BLOOMROUTE_ASSIGN_OR_RETURN(std::shared_ptr<const TableState> state,
                              ctx_.tables->FindAnyState(change.table));
  BLOOMROUTE_RETURN_IF_ERROR(CheckNoRegionOp(state->record));
  CatalogTable table = state->record;
  table.descriptor.families = change.families;
  table.descriptor.attributes = change.attributes;
  if (change.index_attribute) {
    table.descriptor.attributes[std::string(kIndexAttribute)] = "";
    table.descriptor = ReadyDescriptor(table.descriptor);
    table.descriptor.indexed_columns = state->record.descriptor.indexed_columns;
  }
  // Every indexed column stays in a declared family.
  for (const IndexedColumn& c : table.descriptor.indexed_columns) {
    BLOOMROUTE_RETURN_IF_ERROR(
        CheckColumnFamily(table.descriptor, c.name)
            .WithContext("indexed column " + QuoteForMessage(c.name)));
  }
  BLOOMROUTE_RETURN_IF_ERROR(ctx_.catalog->PutTable(table));
  ctx_.PublishTables();
  return Status::OK();
}

}  // namespace bloomroute::router_internal
