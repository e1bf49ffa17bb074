// Conversions between the Thrift structs of router_service.thrift (namespace
// rpc::client) and the router's types (router/router.h, model/types.h), for
// the RouterService handler: requests from Thrift, results to Thrift.
//
// Requests. Every FromThrift checks what the wire cannot: a field the router
// needs is present (default requiredness sets __isset when a field was sent),
// and a number sent as i32 / i64 fits the unsigned type it stands for. A
// failed check is InvalidArgument naming the field by its path, with the
// argument names of router_service.thrift as roots, e.g. "queries[2].predicates
// is missing", "tquery.limit is negative (-1)". Optional fields that are unset
// take the meaning the IDL documents (no limit, unbounded range, ...).
// Semantic checks (empty row key, unknown column, limit above the maximum,
// ...) are the Router's; these functions only translate.
//
// Results. ToThrift fails only when a router value does not fit the wire type
// (IOError). A missing row is a TResult without `row` and with no cells.
//
// The checks and the row and cell conversions are shared with the region
// service's conversions (thrift/internal/checked_conversion.h).
// Thread-safety: pure functions.
#ifndef BLOOMROUTE_THRIFT_ROUTER_TYPES_CONVERSION_H_
#define BLOOMROUTE_THRIFT_ROUTER_TYPES_CONVERSION_H_

#include <cstdint>
#include <optional>
#include <vector>

#include "common/status.h"
#include "model/rows.h"
#include "router/router.h"
#include "thrift/gen-cpp/router_service_types.h"

namespace bloomroute {

// ---- Requests (bloomroute's own calls; HBase's: hbase_request_conversion.h)

Status FromThrift(const rpc::client::TTableSpec& in, router::TableSpec* out);
// getByIndex / getByIndexMultiple: "tquery" and "queries[i]". An unset limit
// is 0 (the router's maximum); a limit sent as 0 is rejected, because the IDL
// promises a set limit is at least 1. timeRange: [minStamp, maxStamp).
// `where` (field 8) becomes LookupSpec::where; InvalidArgument naming the
// field for an operator outside TIndexOperator, or naming the limit
// (kMaxIndexPredicates, kMaxIndexPredicateValues, kMaxIndexPredicateBytes).
Status FromThrift(const rpc::client::TIndexQuery& in, router::LookupSpec* out);
Status FromThrift(const std::vector<rpc::client::TIndexQuery>& in,
                  std::vector<router::LookupSpec>* out);
// A row count passed as a call argument (getScannerRows' numRows).
Status CountFromThrift(int32_t in, const char* field, uint32_t* out);

// ---- Results ----

Status ToThrift(const router::TableInfo& in, rpc::client::TTableInfo* out);
Status ToThrift(const std::vector<TableDescriptor>& in,
                std::vector<rpc::client::TIndexedTable>* out);
// HBase's view of a table (getTableDescriptor): its name in namespace
// "default", the bloomroute.index attribute (when it has indexed columns)
// and, as column families, the families of its indexed columns. The
// families are a stand-in until tables carry their declared families.
rpc::client::TTableDescriptor HBaseDescriptorToThrift(
    const TableDescriptor& in);
// HBase's region locations (getAllRegionLocations), by start key: the
// server's host name and port from its "host:port" address. IOError for an
// address that does not parse or a number that does not fit.
Status ToThrift(const router::TableInfo& in,
                std::vector<rpc::client::THRegionLocation>* out);
// get / getMultiple, in request order.
Status ToThrift(const std::vector<std::optional<Row>>& in,
                std::vector<rpc::client::TResult>* out);
// Scanner rows (every row exists).
Status ToThrift(const std::vector<Row>& in,
                std::vector<rpc::client::TResult>* out);
Status ToThrift(const router::LookupResult& in, rpc::client::TIndexResult* out);
Status ToThrift(const router::CountResult& in, rpc::client::TIndexCount* out);
// `fill` is the newest stage's (the one taking inserts); 0 with no stage.
Status ToThrift(const std::vector<router::ServerIndexStats>& in,
                std::vector<rpc::client::TServerIndexStats>* out);
// `error` is set only for an unreachable server with a reason.
Status ToThrift(const router::ClusterStatus& in,
                rpc::client::TClusterStatus* out);
// A server with an error carries only server, regions and error.
Status ToThrift(const router::VerifyReport& in,
                rpc::client::TVerifyReport* out);
// state as router::IndexStateName says it.
Status ToThrift(const std::vector<router::IndexState>& in,
                std::vector<rpc::client::TIndexStatus>* out);

// A server reference in a result (IOError when its id does not fit).
Status ServerToThrift(const router::ServerRef& in,
                      rpc::client::TServerRef* out);
// A region with its server (IOError when an id does not fit).
Status LocationToThrift(const router::RegionLocation& in,
                        rpc::client::TRegionLocation* out);

}  // namespace bloomroute

#endif  // BLOOMROUTE_THRIFT_ROUTER_TYPES_CONVERSION_H_
