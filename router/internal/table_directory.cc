// The router's published tables (table_directory.h).
#include "router/internal/table_directory.h"

#include <algorithm>
#include <mutex>
#include <utility>

#include "model/table_attributes.h"
#include "model/table_name.h"
#include "router/internal/reshape_state.h"

namespace bloomroute::router_internal {

TableState::TableState(CatalogTable t) : record(std::move(t)) {
  for (const CatalogRegion& r : record.regions) {
    regions_by_server[r.server].push_back(r.region_id);
  }
}

size_t TableState::RegionFor(std::string_view row) const {
  // Regions are sorted by start key and cover every key; the first region
  // starts at "".
  auto it = std::upper_bound(record.regions.begin(), record.regions.end(), row,
                             [](std::string_view key, const CatalogRegion& r) {
                               return key < r.start_key;
                             });
  return static_cast<size_t>(it - record.regions.begin()) - 1;
}

RegionDescriptor TableState::Descriptor(size_t region) const {
  const CatalogRegion& r = record.regions[region];
  return RegionDescriptor{r.region_id, ServerDescriptor(record.descriptor),
                          r.start_key, r.end_key};
}

void TableDirectory::SetRunning(std::shared_ptr<ReshapeState> op) {
  std::lock_guard<std::mutex> lock(running_mu_);
  running_ = std::move(op);
}

std::shared_ptr<ReshapeState> TableDirectory::Running() const {
  std::lock_guard<std::mutex> lock(running_mu_);
  return running_;
}

void TableDirectory::Publish(const CatalogStore::TableList& tables,
                             uint64_t new_generation) {
  const std::shared_ptr<ReshapeState> running = Running();
  std::map<uint64_t, std::shared_ptr<const int>> generations;
  {
    std::shared_lock<std::shared_mutex> lock(mu_);
    for (const auto& [name, state] : tables_) {
      generations[state->record.descriptor.table_id] = state->generation;
    }
  }
  std::map<std::string, std::shared_ptr<const TableState>, std::less<>> next;
  for (const CatalogTable& t : tables) {
    if (t.state != CatalogTable::State::kReady) continue;
    auto state = std::make_shared<TableState>(t);
    // A region operation is made the running one before it is recorded, so
    // the state that first has it copying carries it.
    if (running != nullptr && running->table_id == t.descriptor.table_id &&
        !t.region_ops.empty() &&
        t.region_ops.front().state == CatalogRegionOp::State::kCopying) {
      state->reshape = running;
    }
    auto it = generations.find(t.descriptor.table_id);
    state->generation = it != generations.end() && it->second != nullptr &&
                                t.descriptor.table_id != new_generation
                            ? it->second
                            : std::make_shared<const int>(0);
    next.emplace(t.descriptor.name, std::move(state));
  }
  std::unique_lock<std::shared_mutex> lock(mu_);
  tables_.swap(next);
}

StatusOr<std::shared_ptr<const TableState>> TableDirectory::FindAnyState(
    std::string_view name) const {
  // "default:t" is "t" (model/table_name.h); only a name with a ':'
  // needs the canonical form made.
  const std::string canonical = name.find(':') == std::string_view::npos
                                    ? std::string()
                                    : CanonicalTableName(name);
  std::shared_lock<std::shared_mutex> lock(mu_);
  auto it = tables_.find(canonical.empty() ? name : canonical);
  if (it == tables_.end()) {
    return Status::NotFound("table " + QuoteForMessage(name) +
                            " does not exist");
  }
  return it->second;
}

StatusOr<std::shared_ptr<const TableState>> TableDirectory::Find(
    std::string_view name) const {
  BLOOMROUTE_ASSIGN_OR_RETURN(std::shared_ptr<const TableState> state,
                              FindAnyState(name));
  if (!state->record.enabled) {
    return Status::InvalidArgument("table " + QuoteForMessage(name) +
                                   " is disabled");
  }
  return state;
}

TableDirectory::Snapshot TableDirectory::Tables() const {
  std::shared_lock<std::shared_mutex> lock(mu_);
  Snapshot out;
  out.reserve(tables_.size());
  for (const auto& [name, state] : tables_) out.push_back(state);
  return out;
}

std::weak_ptr<const int> TableDirectory::Generation(
    std::string_view name) const {
  std::shared_lock<std::shared_mutex> lock(mu_);
  auto it = tables_.find(name);
  if (it == tables_.end()) return {};
  return it->second->generation;
}

}  // namespace bloomroute::router_internal
