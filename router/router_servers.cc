// Membership: the router's server set at start (the catalog's members plus
// new region_servers flags), and servers added, re-pointed and removed while
// it runs. The set is an immutable map published by pointer; see the
// locking note of router_impl.h.
#include <algorithm>
#include <cstdlib>
#include <set>
#include <utility>

#include "common/log.h"
#include "common/sync_point.h"
#include "router/internal/router_impl.h"

namespace bloomroute::router_internal {

using router::ServerRef;

namespace {

// What RouterOptions::Validate accepts for a flag: the router does not
// parse addresses (its factory does), but bounds what it stores.
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
std::pair<size_t, size_t> RegionsOn(const Catalog::TableList& tables,
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

std::shared_ptr<const RouterImpl::ServerMap> RouterImpl::ServerSnapshot()
    const {
  std::lock_guard<std::mutex> lock(servers_mu_);
  return servers_;
}

void RouterImpl::PublishServers(ServerMap next,
                                std::shared_ptr<ServerEntry> retired) {
  auto published = std::make_shared<const ServerMap>(std::move(next));
  std::lock_guard<std::mutex> lock(servers_mu_);
  if (retired != nullptr) {
    if (published->count(retired->ref.id) == 0) {
      removed_servers_[retired->ref.id] = std::move(retired);
    } else {
      replaced_servers_.push_back(std::move(retired));
    }
  }
  servers_ = std::move(published);
}

ServerEntry* RouterImpl::FindServer(ServerId id) const {
  std::lock_guard<std::mutex> lock(servers_mu_);
  auto it = servers_->find(id);
  if (it != servers_->end()) return it->second.get();
  auto removed = removed_servers_.find(id);
  return removed == removed_servers_.end() ? nullptr : removed->second.get();
}

ServerEntry& RouterImpl::Server(ServerId id) const {
  ServerEntry* entry = FindServer(id);
  // Every id a caller holds came from the catalog, the index or a server
  // map, and each of them names only published members (AddServer
  // publishes before it indexes; nothing leaves removed_servers_): an
  // unknown id is a bug in this file, not input, and is stopped here
  // rather than dereferenced.
  if (entry == nullptr) {
    Log(LogLevel::kError, "router",
        "bug: region server " + std::to_string(id) +
            " is neither a member nor a removed one");
    std::abort();
  }
  return *entry;
}

Status RouterImpl::AddFlaggedServers() {
  // Counted and checked before anything is persisted: a start refused for
  // its options leaves the catalog as it was.
  std::set<std::string> members;
  for (const CatalogServer& s : catalog_->Servers()) {
    if (!s.removed) members.insert(s.address);
  }
  std::vector<std::string> added;
  for (const std::string& address : options_.region_servers) {
    if (members.count(address) == 0) added.push_back(address);
  }
  const size_t count = members.size() + added.size();
  if (count == 0) {
    return Status::InvalidArgument(
        "no region server: name at least one (region_servers, "
        "--regionserver); the catalog has no member yet");
  }
  if (count > router::RouterOptions::kMaxServers) {
    return Status::InvalidArgument(
        "the catalog and region_servers name " + std::to_string(count) +
        " region servers, over the limit of " +
        std::to_string(router::RouterOptions::kMaxServers));
  }
  BLOOMROUTE_ASSIGN_OR_RETURN(
      filter_config_, router::ClusterFilterConfig(options_.filter, count));
  for (const std::string& address : added) {
    BLOOMROUTE_RETURN_IF_ERROR(catalog_->AddServer(address).status());
  }
  return Status::OK();
}

StatusOr<std::shared_ptr<ServerEntry>> RouterImpl::ConnectEntry(
    ServerId id, const std::string& address) {
  BLOOMROUTE_ASSIGN_OR_RETURN(std::unique_ptr<router::RegionClient> client,
                              factory_->Connect(id, address));
  auto entry = std::make_shared<ServerEntry>();
  entry->ref = ServerRef{id, address};
  entry->client = std::move(client);
  return entry;
}

Status RouterImpl::ConnectMembers() {
  ServerMap members;
  for (const CatalogServer& s : catalog_->Servers()) {
    if (s.removed) continue;
    BLOOMROUTE_ASSIGN_OR_RETURN(std::shared_ptr<ServerEntry> entry,
                                ConnectEntry(s.id, s.address));
    members.emplace(s.id, std::move(entry));
    BLOOMROUTE_RETURN_IF_ERROR(index_->AddServer(s.id));
  }
  // RemoveServer leaves no region on a server it removes; a region on a
  // server that is not a member is a damaged catalog.
  for (const CatalogTable& t : *catalog_->Tables()) {
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
  PublishServers(std::move(members), nullptr);
  return Status::OK();
}

StatusOr<ServerRef> RouterImpl::AddServer(const std::string& address) {
  BLOOMROUTE_RETURN_IF_ERROR(ValidateServerAddress(address));
  std::shared_ptr<ServerEntry> entry;
  {
    std::lock_guard<std::timed_mutex> lock(ddl_mu_);
    ServerMap next = *ServerSnapshot();
    for (const auto& [id, member] : next) {
      if (member->ref.address == address) return member->ref;
    }
    if (next.size() >= router::RouterOptions::kMaxServers) {
      return Status::InvalidArgument(
          "the cluster has " + std::to_string(next.size()) +
          " region servers, the limit (RouterOptions::kMaxServers)");
    }
    // Persisted before the server hears of its id.
    BLOOMROUTE_ASSIGN_OR_RETURN(const ServerId id,
                                catalog_->AddServer(address));
    StatusOr<std::shared_ptr<ServerEntry>> connected =
        ConnectEntry(id, address);
    if (!connected.ok()) {
      (void)catalog_->RemoveServer(id);  // it holds nothing yet
      return connected.status().WithContext("adding region server " + address);
    }
    entry = std::move(connected).value();
    // Published before the index lists it: whoever finds the id in the
    // index (IndexStats, a lookup's plan) finds its entry. A failed
    // AddServer leaves the entry among the removed ones.
    const ServerMap before = next;
    next.emplace(id, entry);
    PublishServers(std::move(next), nullptr);
    BLOOMROUTE_SYNC_POINT("AddServer:Published");
    const Status indexed = index_->AddServer(id);
    BLOOMROUTE_SYNC_POINT("AddServer:Indexed");
    if (!indexed.ok()) {
      entry->client->ReleaseConnections();
      PublishServers(before, entry);
      (void)catalog_->RemoveServer(id);  // it holds nothing yet
      return indexed.WithContext("adding region server " + address);
    }
  }
  // Outside ddl_mu_: a server that does not answer may take a timeout.
  // Maintenance retries (and loads the replica) either way.
  (void)EnsureFilterConfig(entry->ref.id, *entry);
  WakeMaintenance();
  return entry->ref;
}

Status RouterImpl::SetServerAddress(ServerId id, const std::string& address) {
  BLOOMROUTE_RETURN_IF_ERROR(ValidateServerAddress(address));
  std::lock_guard<std::timed_mutex> lock(ddl_mu_);
  ServerMap next = *ServerSnapshot();
  auto it = next.find(id);
  if (it == next.end()) {
    return Status::NotFound("no region server " + std::to_string(id));
  }
  const std::string old_address = it->second->ref.address;
  if (old_address == address) return Status::OK();
  BLOOMROUTE_RETURN_IF_ERROR(catalog_->SetServerAddress(id, address));
  StatusOr<std::shared_ptr<ServerEntry>> connected = ConnectEntry(id, address);
  if (!connected.ok()) {
    (void)catalog_->SetServerAddress(id, old_address);
    return connected.status().WithContext("re-pointing region server " +
                                          std::to_string(id));
  }
  std::shared_ptr<ServerEntry> entry = std::move(connected).value();
  std::shared_ptr<ServerEntry> old = std::move(it->second);
  it->second = entry;
  // The old entry stays (a call under way may hold it) but lets go of its
  // connections to the old address.
  old->client->ReleaseConnections();
  PublishServers(std::move(next), std::move(old));
  // Whatever answers there now is loaded afresh, its regions reopened.
  (void)index_->MarkStale(id);
  const Status reopened = ReopenServerLocked(*entry);
  entry->SetReopenError(reopened.ok() ? "" : reopened.ToString());
  if (reopened.ok()) entry->reopen = false;
  WakeMaintenance();
  return Status::OK();
}

Status RouterImpl::RemoveServer(ServerId id) {
  std::lock_guard<std::timed_mutex> lock(ddl_mu_);
  ServerMap next = *ServerSnapshot();
  auto it = next.find(id);
  if (it == next.end()) {
    return Status::NotFound("no region server " + std::to_string(id));
  }
  const auto [regions, tables] = RegionsOn(*catalog_->Tables(), id);
  if (regions > 0) {
    return Status::InvalidArgument(
        "region server " + std::to_string(id) + " (" + it->second->ref.address +
        ") still holds " + std::to_string(regions) + " region(s) of " +
        std::to_string(tables) +
        " table(s), counting tables being deleted, regions still to be "
        "dropped and region operations in flight; move them to other "
        "servers first (or let the operations end)");
  }
  BLOOMROUTE_RETURN_IF_ERROR(catalog_->RemoveServer(id));
  std::shared_ptr<ServerEntry> removed = std::move(it->second);
  next.erase(it);
  PublishServers(std::move(next), std::move(removed));
  index_->RemoveServer(id);
  return Status::OK();
}

}  // namespace bloomroute::router_internal
