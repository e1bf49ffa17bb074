// Membership as the Router interface offers it: the router's server set at
// start (the catalog's members plus new region_servers flags), and servers
// added, re-pointed and removed while it runs. ServerDirectory
// (internal/server_directory.h) holds the set; Membership serializes the
// changes with placement (the context's ddl_mu) and does what follows them:
// the filter config, reopening regions, waking maintenance. Admin calls:
// with many routers they run on the coordinator.
#ifndef BLOOMROUTE_ROUTER_COORDINATOR_MEMBERSHIP_H_
#define BLOOMROUTE_ROUTER_COORDINATOR_MEMBERSHIP_H_

#include <string>

#include "common/status.h"
#include "common/statusor.h"
#include "router/coordinator/region_placement.h"
#include "router/internal/catalog.h"
#include "router/internal/router_context.h"
#include "router/router.h"

namespace bloomroute::router_internal {

// At start, before the global index exists: adds the region_servers of
// `options` that are not members to `catalog` (persisted) and returns the
// cluster's filter config for the members. InvalidArgument for none, or
// more than RouterOptions::kMaxServers; nothing is persisted then.
StatusOr<SscbfConfig> AddFlaggedServers(CatalogStore* catalog,
                                        const router::RouterOptions& options);

class Membership {
 public:
  // `ctx` and `placement` outlive the membership.
  Membership(const RouterContext& ctx, RegionPlacement* placement);
  Membership(const Membership&) = delete;
  Membership& operator=(const Membership&) = delete;

  // The contracts of these calls are Router's (router/router.h).
  StatusOr<router::ServerRef> AddServer(const std::string& address);
  [[nodiscard]] Status SetServerAddress(ServerId id,
                                        const std::string& address);
  [[nodiscard]] Status RemoveServer(ServerId id);

 private:
  const RouterContext& ctx_;
  RegionPlacement* const placement_;
};

}  // namespace bloomroute::router_internal

#endif  // BLOOMROUTE_ROUTER_COORDINATOR_MEMBERSHIP_H_
