// Membership: the router's server set at start (the catalog's members) and
// servers added, re-pointed and removed while it runs. The set is an
// immutable map published by pointer; see the locking note of
// server_directory.h.
#include "router/internal/server_directory.h"

#include <algorithm>
#include <cstdlib>
#include <set>
#include <utility>

#include "common/log.h"
#include "common/sync_point.h"
#include "router/router.h"

namespace bloomroute::router_internal {

using router::ServerRef;

namespace {

// Every region list of `t` that places regions on servers: its regions, the
// retired ones, and the old and new regions of its operation in flight (a
// move's target holds rows before the switch, its source until its drop).
std::vector<const std::vector<CatalogRegion>*> PlacedRegions(
    const CatalogTable& t) {
  std::vector<const std::vector<CatalogRegion>*> out = {&t.regions,
                                                        &t.retired_regions};
  for (const CatalogRegionOp& op : t.region_ops) {
    out.push_back(&op.sources);
    out.push_back(&op.targets);
  }
  return out;
}

// The regions of all tables (retired ones, those of operations in flight,
// and tables being deleted, too) on `server`, and how many tables they
// belong to.
std::pair<size_t, size_t> RegionsOn(const CatalogStore::TableList& tables,
                                    ServerId server) {
  size_t regions = 0;
  size_t holding = 0;
  for (const CatalogTable& t : tables) {
    std::set<uint64_t> ids;  // an operation's lists repeat the table's
    for (const auto* list : PlacedRegions(t)) {
      for (const CatalogRegion& r : *list) {
        if (r.server == server) ids.insert(r.region_id);
      }
    }
    regions += ids.size();
    if (!ids.empty()) ++holding;
  }
  return {regions, holding};
}

}  // namespace

Status ValidateServerAddress(const std::string& address) {
  const bool control = std::any_of(address.begin(), address.end(), [](char c) {
    return static_cast<unsigned char>(c) <= ' ';
  });
  if (address.empty() || address.size() > 300 || control) {
    return Status::InvalidArgument("region server address " +
                                   QuoteForMessage(address) +
                                   " is not host:port (at most 300 bytes)");
  }
  return Status::OK();
}

ServerDirectory::ServerDirectory(
    std::shared_ptr<router::RegionClientFactory> factory)
    : factory_(std::move(factory)) {}

std::shared_ptr<const ServerMap> ServerDirectory::Snapshot() const {
  std::lock_guard<std::mutex> lock(mu_);
  return servers_;
}

void ServerDirectory::Publish(ServerMap next,
                              std::shared_ptr<ServerEntry> retired) {
  auto published = std::make_shared<const ServerMap>(std::move(next));
  std::lock_guard<std::mutex> lock(mu_);
  if (retired != nullptr) {
    if (published->count(retired->ref.id) == 0) {
      removed_[retired->ref.id] = std::move(retired);
    } else {
      replaced_.push_back(std::move(retired));
    }
  }
  servers_ = std::move(published);
}

ServerEntry* ServerDirectory::Find(ServerId id) const {
  std::lock_guard<std::mutex> lock(mu_);
  auto it = servers_->find(id);
  if (it != servers_->end()) return it->second.get();
  auto removed = removed_.find(id);
  return removed == removed_.end() ? nullptr : removed->second.get();
}

ServerEntry& ServerDirectory::Get(ServerId id) const {
  ServerEntry* entry = Find(id);
  // Every id a caller holds came from the catalog, the index or a server
  // map, and each of them names only published members (Add publishes
  // before it indexes; nothing leaves removed_): an unknown id is a bug in
  // the router, not input, and is stopped here rather than dereferenced.
  if (entry == nullptr) {
    Log(LogLevel::kError, "router",
        "bug: region server " + std::to_string(id) +
            " is neither a member nor a removed one");
    std::abort();
  }
  return *entry;
}

StatusOr<std::shared_ptr<ServerEntry>> ServerDirectory::Connect(
    ServerId id, const std::string& address) {
  BLOOMROUTE_ASSIGN_OR_RETURN(std::unique_ptr<router::RegionClient> client,
                              factory_->Connect(id, address));
  auto entry = std::make_shared<ServerEntry>();
  entry->ref = ServerRef{id, address};
  entry->client = std::move(client);
  return entry;
}

Status ServerDirectory::ConnectMembers(const CatalogStore& catalog,
                                       router::GlobalIndex* index) {
  ServerMap members;
  for (const CatalogServer& s : catalog.Servers()) {
    if (s.removed) continue;
    BLOOMROUTE_ASSIGN_OR_RETURN(std::shared_ptr<ServerEntry> entry,
                                Connect(s.id, s.address));
    members.emplace(s.id, std::move(entry));
    BLOOMROUTE_RETURN_IF_ERROR(index->AddServer(s.id));
  }
  // Remove leaves no region on a server it removes; a region on a server
  // that is not a member is a damaged catalog.
  const std::shared_ptr<const CatalogStore::TableList> tables =
      catalog.Tables();
  for (const CatalogTable& t : *tables) {
    for (const auto* list : PlacedRegions(t)) {
      for (const CatalogRegion& r : *list) {
        if (members.count(r.server) != 0) continue;
        return Status::Corruption(
            "catalog: region " + std::to_string(r.region_id) + " of table " +
            QuoteForMessage(t.descriptor.name) + " is on region server " +
            std::to_string(r.server) + ", which is not a member");
      }
    }
  }
  Publish(std::move(members), nullptr);
  return Status::OK();
}

StatusOr<std::shared_ptr<ServerEntry>> ServerDirectory::Add(
    const std::string& address, CatalogStore* catalog,
    router::GlobalIndex* index, bool* added) {
  *added = false;
  BLOOMROUTE_RETURN_IF_ERROR(ValidateServerAddress(address));
  ServerMap next = *Snapshot();
  for (const auto& [id, member] : next) {
    if (member->ref.address == address) return member;
  }
  if (next.size() >= router::RouterOptions::kMaxServers) {
    return Status::InvalidArgument(
        "the cluster has " + std::to_string(next.size()) +
        " region servers, the limit (RouterOptions::kMaxServers)");
  }
  // Persisted before the server hears of its id.
  BLOOMROUTE_ASSIGN_OR_RETURN(const ServerId id, catalog->AddServer(address));
  StatusOr<std::shared_ptr<ServerEntry>> connected = Connect(id, address);
  if (!connected.ok()) {
    (void)catalog->RemoveServer(id);  // it holds nothing yet
    return connected.status().WithContext("adding region server " + address);
  }
  std::shared_ptr<ServerEntry> entry = std::move(connected).value();
  // Published before the index lists it: whoever finds the id in the
  // index (IndexStats, a lookup's plan) finds its entry. A failed Add
  // leaves the entry among the removed ones.
  const ServerMap before = next;
  next.emplace(id, entry);
  Publish(std::move(next), nullptr);
  BLOOMROUTE_SYNC_POINT("AddServer:Published");
  const Status indexed = index->AddServer(id);
  BLOOMROUTE_SYNC_POINT("AddServer:Indexed");
  if (!indexed.ok()) {
    entry->client->ReleaseConnections();
    Publish(before, entry);
    (void)catalog->RemoveServer(id);  // it holds nothing yet
    return indexed.WithContext("adding region server " + address);
  }
  *added = true;
  return entry;
}

StatusOr<std::shared_ptr<ServerEntry>> ServerDirectory::Repoint(
    ServerId id, const std::string& address, CatalogStore* catalog,
    router::GlobalIndex* index) {
  BLOOMROUTE_RETURN_IF_ERROR(ValidateServerAddress(address));
  ServerMap next = *Snapshot();
  auto it = next.find(id);
  if (it == next.end()) {
    return Status::NotFound("no region server " + std::to_string(id));
  }
  const std::string old_address = it->second->ref.address;
  if (old_address == address) return std::shared_ptr<ServerEntry>();
  BLOOMROUTE_RETURN_IF_ERROR(catalog->SetServerAddress(id, address));
  StatusOr<std::shared_ptr<ServerEntry>> connected = Connect(id, address);
  if (!connected.ok()) {
    (void)catalog->SetServerAddress(id, old_address);
    return connected.status().WithContext("re-pointing region server " +
                                          std::to_string(id));
  }
  std::shared_ptr<ServerEntry> entry = std::move(connected).value();
  std::shared_ptr<ServerEntry> old = std::move(it->second);
  it->second = entry;
  // The old entry stays (a call under way may hold it) but lets go of its
  // connections to the old address.
  old->client->ReleaseConnections();
  Publish(std::move(next), std::move(old));
  // Whatever answers there now is loaded afresh.
  (void)index->MarkStale(id);
  return entry;
}

Status ServerDirectory::Remove(ServerId id, CatalogStore* catalog,
                               router::GlobalIndex* index) {
  ServerMap next = *Snapshot();
  auto it = next.find(id);
  if (it == next.end()) {
    return Status::NotFound("no region server " + std::to_string(id));
  }
  const auto [regions, tables] = RegionsOn(*catalog->Tables(), id);
  if (regions > 0) {
    return Status::InvalidArgument(
        "region server " + std::to_string(id) + " (" + it->second->ref.address +
        ") still holds " + std::to_string(regions) + " region(s) of " +
        std::to_string(tables) +
        " table(s), counting tables being deleted, regions still to be "
        "dropped and region operations in flight; move them to other "
        "servers first (or let the operations end)");
  }
  BLOOMROUTE_RETURN_IF_ERROR(catalog->RemoveServer(id));
  std::shared_ptr<ServerEntry> removed = std::move(it->second);
  next.erase(it);
  Publish(std::move(next), std::move(removed));
  index->RemoveServer(id);
  return Status::OK();
}

void ServerDirectory::SetDraining(ServerId id, bool draining) {
  std::lock_guard<std::mutex> lock(mu_);
  if (draining) {
    draining_.insert(id);
  } else {
    draining_.erase(id);
  }
}

bool ServerDirectory::Draining(ServerId id) const {
  std::lock_guard<std::mutex> lock(mu_);
  return draining_.count(id) != 0;
}

}  // namespace bloomroute::router_internal
