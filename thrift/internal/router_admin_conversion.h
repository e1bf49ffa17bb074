// RouterService's listServers and listRegions on the wire, both ways: the
// handler's ToThrift and RouterClient's checked FromThrift (a field the
// router always sets that is missing, a negative count, an unknown serving
// state or more entries than the limit is Corruption naming the field).
//
// Thread-safety: pure functions.
#ifndef BLOOMROUTE_THRIFT_INTERNAL_ROUTER_ADMIN_CONVERSION_H_
#define BLOOMROUTE_THRIFT_INTERNAL_ROUTER_ADMIN_CONVERSION_H_

#include <vector>

#include "common/status.h"
#include "router/router.h"
#include "thrift/gen-cpp/router_service_types.h"

namespace bloomroute::thrift_internal {

// IOError when a count does not fit its wire type.
Status ServerSummariesToThrift(const std::vector<router::ServerSummary>& in,
                               std::vector<rpc::client::TServerSummary>* out);
Status RegionSummariesToThrift(const std::vector<router::RegionSummary>& in,
                               std::vector<rpc::client::TRegionSummary>* out);
// At most router::kMaxServers servers and TableSpec::kMaxRegions regions.
Status ServerSummariesFromThrift(
    const std::vector<rpc::client::TServerSummary>& in,
    std::vector<router::ServerSummary>* out);
Status RegionSummariesFromThrift(
    const std::vector<rpc::client::TRegionSummary>& in,
    std::vector<router::RegionSummary>* out);

}  // namespace bloomroute::thrift_internal

#endif  // BLOOMROUTE_THRIFT_INTERNAL_ROUTER_ADMIN_CONVERSION_H_
