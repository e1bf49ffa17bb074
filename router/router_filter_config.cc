// The router owns the cluster's filter config (DESIGN.md invariant 4): it
// sets it on every region server before it loads the server's replica, and
// again when the server restarted or shows another config.
#include "router/internal/router_impl.h"

namespace bloomroute::router_internal {

void RouterImpl::NoteFilterConfig(const ServerEntry& server,
                                  const FilterStatus& status) {
  if (!(status.config == filter_config_)) {
    server.config_incarnation = 0;
    maintenance_.Wake();
  }
}

bool RouterImpl::EnsureFilterConfig(ServerId id, const ServerEntry& server) {
  // A replica of a run known to have the config needs no call: the config
  // persists across the server's restarts, and only a status can show that
  // someone changed it (NoteFilterConfig).
  const uint64_t known = server.config_incarnation;
  if (known != 0 && index_->IsCurrent(id) && index_->Incarnation(id) == known) {
    return true;
  }
  StatusOr<FilterStatus> status = server.client->GetFilterStatus();
  Status s = status.status();
  if (s.ok() && !(status->config == filter_config_)) {
    // The server rebuilds its filter under a new epoch; until the replica
    // is loaded from it, lookups ask the server.
    s = server.client->SetFilterConfig(filter_config_);
    if (s.ok()) s = index_->MarkStale(id);
  }
  if (s.ok()) NoteIncarnation(server, status->incarnation);
  if (!s.ok()) {
    server.config_incarnation = 0;
    (void)index_->MarkStale(id);
    return false;
  }
  server.config_incarnation = status->incarnation;
  return true;
}

}  // namespace bloomroute::router_internal
