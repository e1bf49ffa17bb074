// How regions are placed, opened, reopened and dropped: a new table's
// regions assigned to servers (PlanTable, PlaceRegions), opening them
// (OpenRegions), dropping them (DropRegions, DropRetiredRegions), opening a
// server's regions again after it restarted or failed (ReopenServer), and
// noticing a server that lost some (FlagServersMissingRegions).
#include "router/coordinator/region_placement.h"

#include <algorithm>
#include <map>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "router/coordinator/index_tasks.h"

namespace bloomroute::router_internal {

using router::TableSpec;

bool IsStagedTarget(const CatalogTable& table, const CatalogRegion& region) {
  if (table.region_ops.empty()) return false;
  const CatalogRegionOp& op = table.region_ops.front();
  return op.state == CatalogRegionOp::State::kSwitched &&
         std::find(op.targets.begin(), op.targets.end(), region) !=
             op.targets.end();
}

namespace {

// `n` regions splitting the first one or two key bytes evenly, as HBase's
// createTable(desc, startKey, endKey, numRegions) does over its range.
std::vector<std::string> EvenSplitKeys(uint32_t n) {
  std::vector<std::string> keys;
  const int bytes = n <= 256 ? 1 : 2;
  const uint64_t space = bytes == 1 ? 256 : 65536;
  for (uint32_t i = 1; i < n; ++i) {
    const uint64_t v = space * i / n;
    std::string k;
    if (bytes == 2) k.push_back(static_cast<char>(v >> 8));
    k.push_back(static_cast<char>(v & 0xff));
    keys.push_back(std::move(k));
  }
  return keys;
}

}  // namespace

RegionPlacement::RegionPlacement(const RouterContext& ctx) : ctx_(ctx) {}

CatalogTable RegionPlacement::PlanTable(const TableSpec& spec) const {
  CatalogTable t;
  t.descriptor.table_id = ctx_.catalog->NextTableId();
  t.descriptor.name = spec.name;
  for (size_t i = 0; i < spec.indexed_columns.size(); ++i) {
    t.descriptor.indexed_columns.push_back(
        {static_cast<uint32_t>(i + 1), spec.indexed_columns[i]});
  }
  t.descriptor.families = spec.families;
  t.descriptor.attributes = spec.attributes;
  std::vector<std::string> splits = spec.split_keys;
  if (splits.empty()) {
    const uint32_t n =
        spec.region_count > 0
            ? spec.region_count
            : static_cast<uint32_t>(ctx_.servers->Snapshot()->size());
    splits = EvenSplitKeys(n);
  }
  t.regions = PlaceRegions(splits, t.descriptor.table_id);
  return t;
}

std::vector<CatalogRegion> RegionPlacement::PlaceRegions(
    const std::vector<std::string>& splits, uint64_t skip_table) const {
  // Balance: each region goes to the server with the fewest regions of any
  // table so far, ties to the lowest id.
  std::map<ServerId, size_t> load;
  const std::shared_ptr<const ServerMap> servers = ctx_.servers->Snapshot();
  for (const auto& [id, entry] : *servers) {
    if (!ctx_.servers->Draining(id)) load[id] = 0;
  }
  // Every member draining: place on them anyway (their regions move when
  // the decommission gets to them).
  if (load.empty()) {
    for (const auto& [id, entry] : *servers) load[id] = 0;
  }
  const std::shared_ptr<const CatalogStore::TableList> tables =
      ctx_.catalog->Tables();
  for (const CatalogTable& other : *tables) {
    if (other.descriptor.table_id == skip_table) continue;
    for (const CatalogRegion& r : other.regions) {
      if (load.count(r.server) != 0) ++load[r.server];
    }
  }
  std::vector<CatalogRegion> regions;
  for (size_t i = 0; i <= splits.size(); ++i) {
    auto least = std::min_element(
        load.begin(), load.end(),
        [](const auto& a, const auto& b) { return a.second < b.second; });
    ++least->second;
    regions.push_back(
        {ctx_.catalog->NextRegionId(), i == 0 ? std::string() : splits[i - 1],
         i < splits.size() ? splits[i] : std::string(), least->first});
  }
  return regions;
}

Status RegionPlacement::OpenRegions(const CatalogTable& table) {
  const TableState state(table);
  std::vector<const ServerEntry*> servers;
  for (const auto& [id, regions] : state.regions_by_server) {
    servers.push_back(&ctx_.servers->Get(id));
  }
  std::vector<Status> results(servers.size());
  ctx_.fan_out->Run(servers.size(), [&](size_t i) {
    for (size_t r = 0; r < state.record.regions.size(); ++r) {
      if (state.record.regions[r].server != servers[i]->ref.id) continue;
      // A new region is empty: any run of the server may serve it.
      Status s = servers[i]->client->OpenRegion(
          state.Descriptor(r), /*incarnation=*/0, ctx_.coordinator_epoch());
      if (!s.ok()) {
        results[i] = ctx_.write_path->ServerFailed(*servers[i], s);
        return;
      }
    }
  });
  for (const Status& s : results) BLOOMROUTE_RETURN_IF_ERROR(s);
  return Status::OK();
}

Status RegionPlacement::DropRegions(const CatalogTable& table) {
  // The regions a truncation retired go too.
  CatalogTable all = table;
  all.regions.insert(all.regions.end(), table.retired_regions.begin(),
                     table.retired_regions.end());
  const TableState state(all);
  std::vector<std::pair<const ServerEntry*, const std::vector<uint64_t>*>> work;
  for (const auto& [id, regions] : state.regions_by_server) {
    work.emplace_back(&ctx_.servers->Get(id), &regions);
  }
  std::vector<Status> results(work.size());
  ctx_.fan_out->Run(work.size(), [&](size_t i) {
    const ServerEntry& server = *work[i].first;
    for (uint64_t region : *work[i].second) {
      Status s = server.client->DropRegion(region, ctx_.coordinator_epoch());
      if (!s.ok() && !s.IsNotFound()) {  // NotFound: never opened, or gone
        results[i] = ctx_.write_path->ServerFailed(server, s);
        break;
      }
    }
    // Dropping removed elements from the server's filter without handing
    // the ops to us: the replica must catch up (until then it only has
    // extra elements, which cost false routes, never misses).
    (void)ctx_.index->MarkStale(server.ref.id);
  });
  for (const Status& s : results) BLOOMROUTE_RETURN_IF_ERROR(s);
  return Status::OK();
}

Status RegionPlacement::DropRetiredRegions(CatalogTable* table) {
  CatalogTable retired = *table;
  retired.regions = std::move(retired.retired_regions);
  retired.retired_regions.clear();
  BLOOMROUTE_RETURN_IF_ERROR(DropRegions(retired));
  table->retired_regions.clear();
  return ctx_.catalog->PutTable(*table);
}

Status RegionPlacement::ReopenServer(const ServerEntry& server) {
  std::lock_guard<std::timed_mutex> lock(*ctx_.ddl_mu);
  return ReopenServerLocked(server);
}

Status RegionPlacement::ReopenServerLocked(const ServerEntry& server) {
  const std::shared_ptr<const CatalogStore::TableList> tables =
      ctx_.catalog->Tables();
  // Aborted: the server restarted again between reading its incarnation and
  // opening a region; start over with the new one.
  constexpr int kAttempts = 3;
  const CoordinatorEpoch epoch = ctx_.coordinator_epoch();
  Status s;
  for (int attempt = 0; attempt < kAttempts; ++attempt) {
    StatusOr<FilterStatus> status = server.client->GetFilterStatus();
    if (!status.ok()) {
      return ctx_.write_path->ServerFailed(server, status.status());
    }
    ctx_.write_path->NoteFilterConfig(server, *status);
    if (!ctx_.index->NoteIncarnation(server.ref.id, status->incarnation)) {
      ctx_.wake();  // a new run: its replica must be reloaded
    }
    s = Status::OK();
    for (const CatalogTable& t : *tables) {
      if (t.state != CatalogTable::State::kReady) continue;
      const TableState state(t);
      // A server that missed a change of the indexed columns (down when it
      // was made) takes the current ones before its regions open with them.
      s = IndexTasks::UpdateServerIndexes(server, state, epoch);
      for (size_t r = 0; r < t.regions.size() && s.ok(); ++r) {
        if (t.regions[r].server != server.ref.id) continue;
        s = IsStagedTarget(t, t.regions[r])
                ? server.client->OpenStagedRegion(state.Descriptor(r),
                                                  status->incarnation, epoch)
                : server.client->OpenRegion(state.Descriptor(r),
                                            status->incarnation, epoch);
      }
      if (!s.ok()) break;
    }
    if (s.ok()) server.opened_incarnation = status->incarnation;
    // Aborted for a newer coordinator is final, not a restart.
    if (!s.IsAborted() || IsCoordinatorEpochRefused(s)) break;
  }
  if (!s.ok()) return ctx_.write_path->ServerFailed(server, s);
  return Status::OK();
}

void RegionPlacement::FlagServersMissingRegions(
    const std::vector<CatalogTable>& tables) {
  // A few bytes a region: the ids the catalog assigns each server.
  std::map<ServerId, std::vector<uint64_t>> assigned;
  for (const CatalogTable& t : tables) {
    if (t.state != CatalogTable::State::kReady) continue;
    for (const CatalogRegion& r : t.regions) {
      // Not among the regions a server serves (OpenRegionIds).
      if (!IsStagedTarget(t, r)) assigned[r.server].push_back(r.region_id);
    }
  }
  // Servers due for a reopen anyway (a failed call, a new run) are skipped.
  std::vector<const ServerEntry*> check;
  const std::shared_ptr<const ServerMap> servers = ctx_.servers->Snapshot();
  std::vector<const std::vector<uint64_t>*> wanted;
  for (auto& [id, server] : *servers) {
    auto it = assigned.find(id);
    if (it != assigned.end() && !server->reopen) {
      check.push_back(server.get());
      std::sort(it->second.begin(), it->second.end());
      wanted.push_back(&it->second);
    }
  }
  ctx_.fan_out->Run(check.size(), [&](size_t i) {
    const ServerEntry& server = *check[i];
    StatusOr<std::vector<uint64_t>> open = server.client->OpenRegionIds();
    if (!open.ok()) {
      (void)ctx_.write_path->ServerFailed(server, open.status());
      return;
    }
    const std::vector<uint64_t>& want = *wanted[i];
    if (!std::includes(open->begin(), open->end(), want.begin(), want.end())) {
      server.reopen = true;
    }
  });
}

bool RegionPlacement::WorkPending() const {
  const std::shared_ptr<const ServerMap> servers = ctx_.servers->Snapshot();
  for (const auto& [id, server] : *servers) {
    if (server->reopen) return true;
  }
  const std::shared_ptr<const CatalogStore::TableList> tables =
      ctx_.catalog->Tables();
  return std::any_of(tables->begin(), tables->end(), [](const CatalogTable& t) {
    return t.state == CatalogTable::State::kDeleting ||
           !t.retired_regions.empty() || !t.index_tasks.empty() ||
           !t.region_ops.empty();
  });
}

void RegionPlacement::Maintain() {
  // A pass costs what changed: the catalog is a shared snapshot (no copy),
  // and ddl_mu is taken only when a server must be reopened or a deletion
  // finished, not every interval. Asking each server for its regions (one
  // small call per server) needs no lock: a flag only schedules a reopen,
  // which reads the catalog again under ddl_mu.
  FlagServersMissingRegions(*ctx_.catalog->Tables());
  if (WorkPending()) {
    // Under ddl_mu, so that no region of a table being deleted is reopened.
    std::lock_guard<std::timed_mutex> lock(*ctx_.ddl_mu);
    const std::shared_ptr<const CatalogStore::TableList> tables =
        ctx_.catalog->Tables();
    const std::shared_ptr<const ServerMap> servers = ctx_.servers->Snapshot();
    for (auto& [id, server] : *servers) {
      if (!server->reopen.exchange(false)) continue;
      const Status reopened = ReopenServerLocked(*server);
      server->SetReopenError(reopened.ok() ? "" : reopened.ToString());
      if (!reopened.ok()) server->reopen = true;
    }
    for (const CatalogTable& t : *tables) {
      if (t.state == CatalogTable::State::kDeleting && DropRegions(t).ok()) {
        (void)ctx_.catalog->DeleteTable(t.descriptor.table_id);
      } else if (t.state == CatalogTable::State::kReady &&
                 !t.retired_regions.empty()) {
        CatalogTable table = t;
        // Retried every pass until done.
        (void)DropRetiredRegions(&table);
      }
    }
  }
}

}  // namespace bloomroute::router_internal
