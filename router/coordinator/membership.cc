// Membership as the Router interface offers it (membership.h).
#include "router/coordinator/membership.h"

#include <mutex>
#include <set>
#include <utility>

#include "router/cluster_filter_config.h"

namespace bloomroute::router_internal {

using router::ServerRef;

StatusOr<SscbfConfig> AddFlaggedServers(CatalogStore* catalog,
                                        const router::RouterOptions& options) {
  // Counted and checked before anything is persisted: a start refused for
  // its options leaves the catalog as it was.
  std::set<std::string> members;
  for (const CatalogServer& s : catalog->Servers()) {
    if (!s.removed) members.insert(s.address);
  }
  std::vector<std::string> added;
  for (const std::string& address : options.region_servers) {
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
      const SscbfConfig config,
      router::ClusterFilterConfig(options.filter, count));
  for (const std::string& address : added) {
    BLOOMROUTE_RETURN_IF_ERROR(catalog->AddServer(address).status());
  }
  return config;
}

Membership::Membership(const RouterContext& ctx, RegionPlacement* placement)
    : ctx_(ctx), placement_(placement) {}

StatusOr<ServerRef> Membership::AddServer(const std::string& address) {
  BLOOMROUTE_RETURN_IF_ERROR(ValidateServerAddress(address));
  std::shared_ptr<ServerEntry> entry;
  {
    std::lock_guard<std::timed_mutex> lock(*ctx_.ddl_mu);
    bool added = false;
    BLOOMROUTE_ASSIGN_OR_RETURN(
        entry, ctx_.servers->Add(address, ctx_.catalog, ctx_.index, &added));
    if (!added) return entry->ref;
  }
  // Outside ddl_mu: a server that does not answer may take a timeout.
  // Maintenance retries (and loads the replica) either way.
  (void)ctx_.write_path->EnsureFilterConfig(entry->ref.id, *entry);
  ctx_.wake();
  return entry->ref;
}

Status Membership::SetServerAddress(ServerId id, const std::string& address) {
  BLOOMROUTE_RETURN_IF_ERROR(ValidateServerAddress(address));
  std::lock_guard<std::timed_mutex> lock(*ctx_.ddl_mu);
  BLOOMROUTE_ASSIGN_OR_RETURN(
      std::shared_ptr<ServerEntry> entry,
      ctx_.servers->Repoint(id, address, ctx_.catalog, ctx_.index));
  if (entry == nullptr) return Status::OK();  // the address it had
  // Whatever answers there now has its regions reopened.
  const Status reopened = placement_->ReopenServerLocked(*entry);
  entry->SetReopenError(reopened.ok() ? "" : reopened.ToString());
  if (reopened.ok()) entry->reopen = false;
  ctx_.wake();
  return Status::OK();
}

Status Membership::RemoveServer(ServerId id) {
  std::lock_guard<std::timed_mutex> lock(*ctx_.ddl_mu);
  return ctx_.servers->Remove(id, ctx_.catalog, ctx_.index);
}

}  // namespace bloomroute::router_internal
