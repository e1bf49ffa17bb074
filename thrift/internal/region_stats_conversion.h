// RegionService's getRegionStats on the wire, both ways (the handler and
// the router's ThriftRegionClient). The client's side checks the reply: a
// region server is not trusted to bound it.
//
// Thread-safety: pure functions.
#ifndef BLOOMROUTE_THRIFT_INTERNAL_REGION_STATS_CONVERSION_H_
#define BLOOMROUTE_THRIFT_INTERNAL_REGION_STATS_CONVERSION_H_

#include <cstdint>

#include "common/status.h"
#include "model/region_protocol.h"
#include "thrift/gen-cpp/region_service_types.h"

namespace bloomroute::thrift_internal {

// The request's arguments as received: InvalidArgument for a negative id or
// a maxRegions outside [1, kMaxRegionStatsPerCall].
Status RegionStatsRequestFromThrift(int64_t table_id, int64_t after_region_id,
                                    int32_t max_regions,
                                    RegionStatsRequest* out);
// IOError when a count does not fit the wire's i64.
Status RegionStatsPageToThrift(const RegionStatsPage& in,
                               rpc::TRegionStatsPage* out);
// Corruption naming the field for a missing field, a negative number, an
// unknown state, more than request.max_regions regions, ids not ascending
// above request.after_region_id, or a region of another table when
// request.table_id is not 0.
Status RegionStatsPageFromThrift(const rpc::TRegionStatsPage& in,
                                 const RegionStatsRequest& request,
                                 RegionStatsPage* out);

}  // namespace bloomroute::thrift_internal

#endif  // BLOOMROUTE_THRIFT_INTERNAL_REGION_STATS_CONVERSION_H_
