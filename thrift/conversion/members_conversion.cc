#include "thrift/conversion/members_conversion.h"

#include <string>
#include <vector>

#include "thrift/internal/checked_conversion.h"

namespace bloomroute {

using thrift_internal::At;
using thrift_internal::kBadResult;
using thrift_internal::RequireAll;

void MembersToThrift(const coord::ClusterMembers& in,
                     rpc::client::TClusterMembers* out) {
  std::vector<rpc::client::TRouterMember> routers(in.routers.size());
  for (size_t i = 0; i < in.routers.size(); ++i) {
    const coord::LiveRouter& r = in.routers[i];
    routers[i].__set_address(r.address);
    routers[i].__set_serving(r.leading);
    routers[i].__set_routerId(static_cast<int32_t>(r.router_id));
    routers[i].__set_epoch(r.epoch);
  }
  std::vector<rpc::client::TLiveRegionServer> servers(in.region_servers.size());
  for (size_t i = 0; i < in.region_servers.size(); ++i) {
    servers[i].__set_address(in.region_servers[i].address);
    servers[i].__set_registered(in.region_servers[i].data);
  }
  out->__set_routers(std::move(routers));
  out->__set_liveRegionServers(std::move(servers));
}

Status MembersFromThrift(const rpc::client::TClusterMembers& in,
                         coord::ClusterMembers* out) {
  BLOOMROUTE_RETURN_IF_ERROR(
      RequireAll(kBadResult, "members",
                 {{in.__isset.routers, ".routers"},
                  {in.__isset.liveRegionServers, ".liveRegionServers"}}));
  out->routers.clear();
  for (size_t i = 0; i < in.routers.size(); ++i) {
    const rpc::client::TRouterMember& r = in.routers[i];
    const std::string f = At("members.routers", i);
    BLOOMROUTE_RETURN_IF_ERROR(RequireAll(kBadResult, f,
                                          {{r.__isset.address, ".address"},
                                           {r.__isset.serving, ".serving"},
                                           {r.__isset.routerId, ".routerId"},
                                           {r.__isset.epoch, ".epoch"}}));
    if (r.routerId < 0 || r.epoch < 0) {
      return Status::Corruption(f + " has a negative id or epoch");
    }
    coord::LiveRouter router;
    router.address = r.address;
    router.leading = r.serving;
    router.router_id = static_cast<uint32_t>(r.routerId);
    router.epoch = r.epoch;
    out->routers.push_back(std::move(router));
  }
  out->region_servers.clear();
  for (size_t i = 0; i < in.liveRegionServers.size(); ++i) {
    const rpc::client::TLiveRegionServer& s = in.liveRegionServers[i];
    BLOOMROUTE_RETURN_IF_ERROR(
        RequireAll(kBadResult, At("members.liveRegionServers", i),
                   {{s.__isset.address, ".address"},
                    {s.__isset.registered, ".registered"}}));
    out->region_servers.push_back({s.address, s.registered, 0});
  }
  return Status::OK();
}

}  // namespace bloomroute
