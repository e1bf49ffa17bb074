// Membership as the Router interface offers it: the router's server set at
// start (the catalog's members plus new region_servers flags), and servers
// added, re-pointed and removed while it runs. ServerDirectory
// (internal/server_directory.h) holds the set; this file serializes the
// changes with placement (ddl_mu_) and does what follows them: the filter
// config, reopening regions, waking maintenance.
#include <set>
#include <utility>

#include "router/internal/router_impl.h"

namespace bloomroute::router_internal {

using router::ServerRef;

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

StatusOr<ServerRef> RouterImpl::AddServer(const std::string& address) {
  BLOOMROUTE_RETURN_IF_ERROR(ValidateServerAddress(address));
  std::shared_ptr<ServerEntry> entry;
  {
    std::lock_guard<std::timed_mutex> lock(ddl_mu_);
    bool added = false;
    BLOOMROUTE_ASSIGN_OR_RETURN(
        entry, servers_.Add(address, catalog_.get(), index_.get(), &added));
    if (!added) return entry->ref;
  }
  // Outside ddl_mu_: a server that does not answer may take a timeout.
  // Maintenance retries (and loads the replica) either way.
  (void)write_path_->EnsureFilterConfig(entry->ref.id, *entry);
  maintenance_.Wake();
  return entry->ref;
}

Status RouterImpl::SetServerAddress(ServerId id, const std::string& address) {
  BLOOMROUTE_RETURN_IF_ERROR(ValidateServerAddress(address));
  std::lock_guard<std::timed_mutex> lock(ddl_mu_);
  BLOOMROUTE_ASSIGN_OR_RETURN(
      std::shared_ptr<ServerEntry> entry,
      servers_.Repoint(id, address, catalog_.get(), index_.get()));
  if (entry == nullptr) return Status::OK();  // the address it had
  // Whatever answers there now has its regions reopened.
  const Status reopened = placement_->ReopenServerLocked(*entry);
  entry->SetReopenError(reopened.ok() ? "" : reopened.ToString());
  if (reopened.ok()) entry->reopen = false;
  maintenance_.Wake();
  return Status::OK();
}

Status RouterImpl::RemoveServer(ServerId id) {
  std::lock_guard<std::timed_mutex> lock(ddl_mu_);
  return servers_.Remove(id, catalog_.get(), index_.get());
}

}  // namespace bloomroute::router_internal
