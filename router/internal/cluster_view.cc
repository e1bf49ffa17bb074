// ClusterView: what operators see (cluster_view.h). What is where, for
// `bloomroute admin servers` and `admin regions`: the catalog's placement of
// regions joined with each server's report of what its regions hold
// (RegionClient::GetRegionStats); the replicas' statistics, index
// scrutiny and the cluster's status; metrics and probes.
#include "router/internal/cluster_view.h"

#include <algorithm>
#include <map>
#include <string>
#include <utility>
#include <vector>

namespace bloomroute::router {

const char* RegionServingName(RegionServing serving) {
  switch (serving) {
    case RegionServing::kOpen:
      return "open";
    case RegionServing::kNotServed:
      return "not served";
    case RegionServing::kUnreachable:
      return "unreachable";
    case RegionServing::kStaged:
      return "staged";
  }
  return "unknown";
}

}  // namespace bloomroute::router

namespace bloomroute::router_internal {

ClusterView::ClusterView(const RouterContext& ctx, Hooks hooks)
    : ctx_(ctx), hooks_(std::move(hooks)) {}

StatusOr<std::map<uint64_t, RegionStats>> ClusterView::FetchRegionStats(
    const ServerEntry& server, uint64_t table_id, size_t max_regions,
    bool count_rows) {
  std::map<uint64_t, RegionStats> out;
  RegionStatsRequest request;
  request.table_id = table_id;
  request.count_rows = count_rows;
  while (true) {
    StatusOr<RegionStatsPage> page = server.client->GetRegionStats(request);
    if (!page.ok()) return ctx_.write_path->ServerFailed(server, page.status());
    for (const RegionStats& r : page->regions) out[r.region_id] = r;
    if (!page->more) return out;
    // A page that does not advance, or more regions than the catalog could
    // place there (with slack for regions of deleted tables not yet
    // dropped), is a server we cannot trust to end.
    if (page->regions.empty() || out.size() > max_regions) {
      return WritePath::Named(
          server,
          Status::Corruption("region statistics do not end: " +
                             std::to_string(out.size()) + " regions so far"));
    }
    request.after_region_id = page->regions.back().region_id;
  }
}

namespace {

// The regions of ready tables the catalog places on each server, by server.
std::map<ServerId, std::vector<uint64_t>> AssignedRegions(
    const CatalogStore::TableList& tables) {
  std::map<ServerId, std::vector<uint64_t>> assigned;
  for (const CatalogTable& t : tables) {
    if (t.state != CatalogTable::State::kReady) continue;
    for (const CatalogRegion& r : t.regions) {
      assigned[r.server].push_back(r.region_id);
    }
  }
  return assigned;
}

// Regions a server may report beyond those the catalog gives it: regions of
// tables being deleted and retired ones, not yet dropped.
constexpr size_t kStatsRegionSlack = 100000;

}  // namespace

std::vector<router::ServerSummary> ClusterView::ListServers() {
  std::vector<router::ServerSummary> out;
  const std::shared_ptr<const ServerMap> servers = ctx_.servers->Snapshot();
  for (const auto& [id, server] : *servers) {
    router::ServerSummary s;
    s.server = server->ref;
    s.replica_current = ctx_.index->IsCurrent(id);
    out.push_back(std::move(s));
  }
  const std::map<ServerId, std::vector<uint64_t>> assigned =
      AssignedRegions(*ctx_.catalog->Tables());
  ctx_.fan_out->Run(out.size(), [&](size_t i) {
    router::ServerSummary& s = out[i];
    auto it = assigned.find(s.server.id);
    const std::vector<uint64_t> none;
    const std::vector<uint64_t>& want =
        it == assigned.end() ? none : it->second;
    s.regions = static_cast<uint32_t>(want.size());
    StatusOr<std::map<uint64_t, RegionStats>> stats = FetchRegionStats(
        ctx_.servers->Get(s.server.id), 0, want.size() + kStatsRegionSlack);
    s.reachable = stats.ok();
    if (!stats.ok()) {
      s.error = stats.status().ToString();
      return;
    }
    for (uint64_t region : want) {
      auto found = stats->find(region);
      if (found == stats->end() ||
          (found->second.state != RegionState::kOpen &&
           found->second.state != RegionState::kStaged)) {
        ++s.regions_not_served;
      }
      if (found == stats->end()) continue;
      s.rows += found->second.rows;
      s.bytes += found->second.row_bytes + found->second.index_bytes;
    }
  });
  return out;
}

StatusOr<std::vector<router::RegionSummary>> ClusterView::ListRegions(
    std::string_view table) {
  BLOOMROUTE_ASSIGN_OR_RETURN(std::shared_ptr<const TableState> state,
                              ctx_.tables->FindAnyState(table));
  // Copied, and the state let go: a region operation waits for every
  // holder of a state from before its start, and the servers may take long
  // to count rows.
  const CatalogTable record = state->record;
  const std::map<ServerId, std::vector<uint64_t>> regions_by_server =
      state->regions_by_server;
  state.reset();
  std::vector<router::RegionSummary> out;
  for (const CatalogRegion& r : record.regions) {
    router::RegionSummary s;
    s.region_id = r.region_id;
    s.start_key = r.start_key;
    s.end_key = r.end_key;
    s.server = ctx_.servers->Get(r.server).ref;
    hooks_.describe_region(&s);
    out.push_back(std::move(s));
  }
  std::vector<ServerId> servers;
  std::vector<size_t> region_counts;
  for (const auto& [id, regions] : regions_by_server) {
    servers.push_back(id);
    region_counts.push_back(regions.size());
  }
  std::vector<StatusOr<std::map<uint64_t, RegionStats>>> stats(
      servers.size(), Status::Unavailable("not asked"));
  ctx_.fan_out->Run(servers.size(), [&](size_t i) {
    stats[i] = FetchRegionStats(ctx_.servers->Get(servers[i]),
                                record.descriptor.table_id,
                                region_counts[i] + kStatsRegionSlack);
  });
  std::map<ServerId, const std::map<uint64_t, RegionStats>*> by_server;
  for (size_t i = 0; i < servers.size(); ++i) {
    if (stats[i].ok()) by_server[servers[i]] = &*stats[i];
  }
  for (router::RegionSummary& s : out) {
    auto server = by_server.find(s.server.id);
    if (server == by_server.end()) continue;  // kUnreachable
    auto found = server->second->find(s.region_id);
    if (found == server->second->end()) {
      s.serving = router::RegionServing::kNotServed;
      continue;
    }
    s.serving = found->second.state == RegionState::kOpen
                    ? router::RegionServing::kOpen
                : found->second.state == RegionState::kStaged
                    ? router::RegionServing::kStaged
                    : router::RegionServing::kNotServed;
    s.rows = found->second.rows;
    s.row_bytes = found->second.row_bytes;
    s.index_bytes = found->second.index_bytes;
  }
  return out;
}

// ---- Replicas, index scrutiny and the cluster's status ----

std::vector<router::ServerIndexStats> ClusterView::IndexStats() const {
  std::vector<router::ServerIndexStats> out;
  for (const router::ReplicaStats& r : ctx_.index->Stats()) {
    // The index may list a server an AddServer has not finished (published
    // first, but a failed add takes it back): it is reported once listed.
    const ServerEntry* entry = ctx_.servers->Find(r.server);
    if (entry == nullptr) continue;
    router::ServerIndexStats s;
    s.server = entry->ref;
    s.replica = r;
    if (r.loaded && r.reported_epoch == r.epoch && r.reported_seq > r.seq) {
      s.ops_behind = r.reported_seq - r.seq;
    }
    s.target_false_routes = ctx_.options->filter.target_false_routes;
    s.cluster_config = ctx_.filter_config;
    const uint64_t configured = entry->config_incarnation;
    s.has_cluster_config = configured != 0 && configured == r.incarnation;
    out.push_back(std::move(s));
  }
  return out;
}

StatusOr<router::VerifyReport> ClusterView::VerifyIndex(
    std::string_view table) {
  // Disabled tables too: their regions stay open on their servers.
  BLOOMROUTE_ASSIGN_OR_RETURN(std::shared_ptr<const TableState> state,
                              ctx_.tables->FindAnyState(table));
  router::VerifyReport out;
  out.table = state->record.descriptor;
  std::vector<ServerId> ids;
  std::vector<uint32_t> regions;
  for (const auto& [id, on_server] : state->regions_by_server) {
    ids.push_back(id);
    regions.push_back(static_cast<uint32_t>(on_server.size()));
  }
  // Let go before the servers check (long): a region operation waits for
  // every holder of a state from before its start.
  state.reset();
  out.servers.resize(ids.size());
  ctx_.fan_out->Run(ids.size(), [&](size_t i) {
    out.servers[i] = VerifyServer(ids[i], out.table.table_id);
    out.servers[i].regions = regions[i];
  });
  return out;
}

router::ServerVerifyReport ClusterView::VerifyServer(ServerId id,
                                                     uint64_t table_id) {
  const ServerEntry& server = ctx_.servers->Get(id);
  router::ServerVerifyReport out;
  out.server = server.ref;
  // Read-only calls: a failure here says nothing about writes, so it does
  // not mark the replica stale (as ServerFailed would).
  StatusOr<IndexReport> index = server.client->VerifyIndex(table_id);
  if (!index.ok()) {
    out.error = WritePath::Named(server, index.status()).ToString();
    return out;
  }
  out.index = std::move(index).value();
  // The server's filter after its check, against the replica: equal unless
  // writes came in between (then "not current", not an error).
  StatusOr<FilterImage> snapshot = server.client->SnapshotImage(/*fence=*/0);
  if (!snapshot.ok()) {
    out.error = WritePath::Named(server, snapshot.status()).ToString();
    return out;
  }
  // A server that restarted behind our back is reloaded and reopened.
  ctx_.write_path->NoteIncarnation(server, snapshot->incarnation);
  StatusOr<router::ReplicaComparison> compared =
      ctx_.index->Compare(id, *snapshot);
  if (!compared.ok()) {
    out.error = WritePath::Named(server, compared.status()).ToString();
    return out;
  }
  out.replica = std::move(compared).value();
  return out;
}

router::ClusterStatus ClusterView::GetClusterStatus() {
  router::ClusterStatus out;
  const std::shared_ptr<const ServerMap> servers = ctx_.servers->Snapshot();
  for (const auto& [id, server] : *servers) {
    router::ServerStatus s;
    s.server = server->ref;
    s.replica_current = ctx_.index->IsCurrent(id);
    s.reopen_error = server->ReopenError();
    out.servers.push_back(std::move(s));
  }
  // The regions the catalog places on each server, and those of them it
  // lists as open (all but staged targets).
  std::vector<uint32_t> placed(out.servers.size(), 0);
  std::vector<std::vector<uint64_t>> assigned(out.servers.size());
  {
    const TableDirectory::Snapshot tables = ctx_.tables->Tables();
    out.tables = static_cast<uint32_t>(tables.size());
    std::map<ServerId, size_t> index_of;
    for (size_t i = 0; i < out.servers.size(); ++i) {
      index_of[out.servers[i].server.id] = i;
    }
    for (const auto& table : tables) {
      out.regions += static_cast<uint32_t>(table->record.regions.size());
      for (const CatalogRegion& r : table->record.regions) {
        auto it = index_of.find(r.server);
        if (it == index_of.end()) continue;
        ++placed[it->second];
        // Staged targets are served, but not listed by OpenRegionIds.
        if (!hooks_.is_staged_target(table->record, r)) {
          assigned[it->second].push_back(r.region_id);
        }
      }
    }
  }
  ctx_.fan_out->Run(out.servers.size(), [&](size_t i) {
    router::ServerStatus& s = out.servers[i];
    const ServerEntry& server = ctx_.servers->Get(s.server.id);
    StatusOr<FilterStatus> status = server.client->GetFilterStatus();
    s.reachable = status.ok();
    if (!status.ok()) s.error = status.status().ToString();
    // A server that restarted behind our back is reloaded and reopened.
    if (status.ok()) {
      ctx_.write_path->NoteIncarnation(server, status->incarnation);
      ctx_.write_path->NoteFilterConfig(server, *status);
    }
    std::vector<uint64_t>& want = assigned[i];
    s.regions = placed[i];
    if (!s.reachable) return;
    StatusOr<std::vector<uint64_t>> open = server.client->OpenRegionIds();
    if (!open.ok()) return;
    std::sort(want.begin(), want.end());
    for (uint64_t id : want) {
      if (!std::binary_search(open->begin(), open->end(), id)) {
        ++s.regions_not_served;
      }
    }
  });
  return out;
}

// ---- Operators' view: metrics and activity ----

RouterMetrics::Snapshot ClusterView::MetricsSnapshot() const {
  RouterMetrics::Snapshot s;
  s.replicas = IndexStats();
  s.index_bytes = ctx_.index->MemoryBytes();
  const TableDirectory::Snapshot tables = ctx_.tables->Tables();
  s.tables = static_cast<uint32_t>(tables.size());
  for (const auto& table : tables) {
    s.regions += static_cast<uint32_t>(table->record.regions.size());
  }
  return s;
}

router::RouterActivity ClusterView::Activity() const {
  return ctx_.metrics->Activity();
}

void ClusterView::ProbeServers() {
  const std::shared_ptr<const ServerMap> servers = ctx_.servers->Snapshot();
  std::vector<const ServerEntry*> entries;
  for (const auto& [id, server] : *servers) entries.push_back(server.get());
  // In parallel: a server that does not answer costs its call timeout once,
  // not once per server after it.
  for (const auto& [id, probe] : ctx_.metrics->Probes()) {
    if (servers->count(id) == 0) ctx_.metrics->ForgetServer(id);
  }
  ctx_.fan_out->Run(entries.size(), [&](size_t i) {
    const ServerEntry& server = *entries[i];
    StatusOr<FilterStatus> status = server.client->GetFilterStatus();
    ctx_.metrics->NoteProbe(server.ref.id, server.ref.address, status.ok(),
                            status.ok() ? "" : status.status().ToString());
  });
}

}  // namespace bloomroute::router_internal
