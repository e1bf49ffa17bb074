// Conversions for RouterClient (router_client.h), the other direction of
// router_types_conversion.h: requests to Thrift, results from Thrift.
//
// Requests fail with InvalidArgument only when a number does not fit its wire
// type or a predicate's column is not "family:qualifier" (nothing is sent).
// Rows and cells travel in HBase's shape (hbase_rows.h). Results are checked as
// the region client checks its own (checked_conversion.h): a field the router
// always sets that is missing, or a negative count or id, is Corruption naming
// the field.
//
// Thread-safety: pure functions.
#ifndef BLOOMROUTE_THRIFT_INTERNAL_ROUTER_CLIENT_CONVERSION_H_
#define BLOOMROUTE_THRIFT_INTERNAL_ROUTER_CLIENT_CONVERSION_H_

#include <optional>
#include <string>
#include <vector>

#include "common/status.h"
#include "model/rows.h"
#include "router/router.h"
#include "thrift/gen-cpp/router_service_types.h"

namespace bloomroute::thrift_internal {

// ---- Requests ----
Status TableSpecToThrift(const router::TableSpec& in,
                         rpc::client::TTableSpec* out);
rpc::client::TPut PutToThrift(const Mutation& put);
rpc::client::TDelete DeleteToThrift(const Mutation& del);
std::vector<rpc::client::TGet> GetsToThrift(const std::vector<GetRequest>& in);
rpc::client::TScan ScanToThrift(const router::ScanSpec& in);
Status QueryToThrift(const router::LookupSpec& in,
                     rpc::client::TIndexQuery* out);

// ---- Results ----
Status TableInfoFromThrift(const rpc::client::TTableInfo& in,
                           router::TableInfo* out);
Status DescriptorsFromThrift(const std::vector<rpc::client::TIndexedTable>& in,
                             std::vector<TableDescriptor>* out);
Status LookupResultFromThrift(const rpc::client::TIndexResult& in,
                              router::LookupResult* out);
// Corruption for a negative count or a missing routing.
Status CountResultFromThrift(const rpc::client::TIndexCount& in,
                             router::CountResult* out);
Status IndexStatsFromThrift(
    const std::vector<rpc::client::TServerIndexStats>& in,
    std::vector<router::ServerIndexStats>* out);
Status ClusterStatusFromThrift(const rpc::client::TClusterStatus& in,
                               router::ClusterStatus* out);
// A server entry with `error` set carries nothing else. ok() is recomputed
// from the counts (the wire's `ok` is the same rule applied by the router).
Status VerifyReportFromThrift(const rpc::client::TVerifyReport& in,
                              router::VerifyReport* out);
// Corruption for an unknown state or a negative count.
Status IndexStatusFromThrift(const std::vector<rpc::client::TIndexStatus>& in,
                             std::vector<router::IndexState>* out);

// A server reference in a reply (Corruption naming field `f` when it is
// incomplete or its id does not fit).
Status ServerFromThrift(const rpc::client::TServerRef& in, const std::string& f,
                        router::ServerRef* out);
// A region with its server in a reply (Corruption naming field `f`); the
// region's table is left empty (the reply names it elsewhere, if at all).
Status LocationFromThrift(const rpc::client::TRegionLocation& in,
                          const std::string& f, router::RegionLocation* out);

}  // namespace bloomroute::thrift_internal

#endif  // BLOOMROUTE_THRIFT_INTERNAL_ROUTER_CLIENT_CONVERSION_H_
