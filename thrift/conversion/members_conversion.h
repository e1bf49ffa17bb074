// The cluster's live members (coord/cluster_members.h) to and from
// router_service.thrift's TClusterMembers, with the checks of
// region_conversion.h: a reply that fails one is Corruption naming the
// field.
//
// Thread-safety: pure functions.
#ifndef BLOOMROUTE_THRIFT_CONVERSION_MEMBERS_CONVERSION_H_
#define BLOOMROUTE_THRIFT_CONVERSION_MEMBERS_CONVERSION_H_

#include "common/status.h"
#include "coord/cluster_members.h"
#include "thrift/gen-cpp/router_service_types.h"

namespace bloomroute {

void MembersToThrift(const coord::ClusterMembers& in,
                     rpc::client::TClusterMembers* out);
Status MembersFromThrift(const rpc::client::TClusterMembers& in,
                         coord::ClusterMembers* out);

}  // namespace bloomroute

#endif  // BLOOMROUTE_THRIFT_CONVERSION_MEMBERS_CONVERSION_H_
