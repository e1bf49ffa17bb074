// HBase's table calls beyond create and delete: enable / disable, delete of a
// disabled table, truncate and region locations.
#include <string>
#include <utility>
#include <vector>

#include "router/internal/router_impl.h"

namespace bloomroute::router_internal {
namespace {

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

Status RouterImpl::SetEnabled(std::string_view name, bool enabled) {
  std::lock_guard<std::timed_mutex> lock(ddl_mu_);
  BLOOMROUTE_ASSIGN_OR_RETURN(std::shared_ptr<const TableState> state,
                              tables_.FindAnyState(name));
  if (state->record.enabled == enabled) {
    return Status::InvalidArgument(
        "table " + QuoteForMessage(name) +
        (enabled ? " is not disabled" : " is not enabled"));
  }
  CatalogTable table = state->record;
  table.enabled = enabled;
  BLOOMROUTE_RETURN_IF_ERROR(catalog_->PutTable(table));
  PublishTables();
  return Status::OK();
}

Status RouterImpl::DisableTable(std::string_view table) {
  return SetEnabled(table, false);
}

Status RouterImpl::EnableTable(std::string_view table) {
  return SetEnabled(table, true);
}

StatusOr<bool> RouterImpl::IsTableEnabled(std::string_view table) const {
  BLOOMROUTE_ASSIGN_OR_RETURN(std::shared_ptr<const TableState> state,
                              tables_.FindAnyState(table));
  return state->record.enabled;
}

Status RouterImpl::DeleteTableIfDisabled(std::string_view name) {
  std::lock_guard<std::timed_mutex> lock(ddl_mu_);
  BLOOMROUTE_ASSIGN_OR_RETURN(std::shared_ptr<const TableState> state,
                              tables_.FindAnyState(name));
  if (state->record.enabled) return NotDisabled(name);
  return DeleteTableLocked(*state);
}

Status RouterImpl::TruncateTable(std::string_view name, bool preserve_splits) {
  std::lock_guard<std::timed_mutex> lock(ddl_mu_);
  BLOOMROUTE_ASSIGN_OR_RETURN(std::shared_ptr<const TableState> state,
                              tables_.FindAnyState(name));
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
  BLOOMROUTE_RETURN_IF_ERROR(catalog_->PutTable(table));
  PublishTables();
  const Status dropped = placement_->DropRetiredRegions(&table);
  const Status opened = placement_->OpenRegions(table);
  table.enabled = true;  // as HBase: a truncated table is enabled
  BLOOMROUTE_RETURN_IF_ERROR(catalog_->PutTable(table));
  PublishTables();
  maintenance_.Wake();  // catch up the replicas the drops made stale
  const Status& failed = !dropped.ok() ? dropped : opened;
  if (!failed.ok()) {
    return failed.WithContext(
        "table " + QuoteForMessage(name) +
        " is truncated, but some of its old regions are dropped, and new "
        "ones opened, only when their server answers again");
  }
  return Status::OK();
}

StatusOr<router::RegionLocation> RouterImpl::LocateRegion(
    std::string_view table, std::string_view row) const {
  BLOOMROUTE_ASSIGN_OR_RETURN(std::shared_ptr<const TableState> state,
                              tables_.FindAnyState(table));
  const size_t i = state->RegionFor(row);
  return router::RegionLocation{
      state->Descriptor(i), servers_.Get(state->record.regions[i].server).ref};
}

}  // namespace bloomroute::router_internal
