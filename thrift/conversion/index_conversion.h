// Conversions of index_service.thrift (bloomroute's index calls: TTableSpec,
// TIndexQuery, TTableInfo, TIndexResult, TIndexCount, TIndexStatus,
// TServerRef, TRegionLocation) both ways: the RouterService handler's
// requests from Thrift and results to Thrift (namespace bloomroute), and
// RouterClient's requests to Thrift and results from Thrift (namespace
// thrift_internal).
//
// Requests from Thrift. Every FromThrift checks what the wire cannot: a
// field the router needs is present (default requiredness sets __isset when
// a field was sent), and a number sent as i32 / i64 fits the unsigned type it
// stands for. A failed check is InvalidArgument naming the field by its
// path, with the argument names of the IDL as roots, e.g.
// "queries[2].predicates is missing", "tquery.limit is negative (-1)".
// Optional fields that are unset take the meaning the IDL documents (no
// limit, unbounded range, ...). Semantic checks (empty row key, unknown
// column, limit above the maximum, ...) are the Router's; these functions
// only translate.
//
// Results to Thrift fail only when a router value does not fit the wire type
// (IOError).
//
// RouterClient's requests fail with InvalidArgument only when a number does
// not fit its wire type or a predicate's column is not "family:qualifier"
// (nothing is sent). Its results are checked as the region client checks
// its own (checked_conversion.h): a field the router always sets that is
// missing, or a negative count or id, is Corruption naming the field.
//
// Thread-safety: pure functions.
#ifndef BLOOMROUTE_THRIFT_CONVERSION_INDEX_CONVERSION_H_
#define BLOOMROUTE_THRIFT_CONVERSION_INDEX_CONVERSION_H_

#include <string>
#include <vector>

#include "common/status.h"
#include "model/rows.h"
#include "router/router.h"
#include "thrift/gen-cpp/index_service_types.h"

namespace bloomroute {

// ---- Requests ----

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

// ---- Results ----

Status ToThrift(const router::TableInfo& in, rpc::client::TTableInfo* out);
Status ToThrift(const std::vector<TableDescriptor>& in,
                std::vector<rpc::client::TIndexedTable>* out);
Status ToThrift(const router::LookupResult& in, rpc::client::TIndexResult* out);
// The same, moving the rows' keys and values into the reply (a reply of
// 1,000 rows no longer copies each value once more).
Status ToThrift(router::LookupResult&& in, rpc::client::TIndexResult* out);
// The same with the rows in compactRows when `compact_rows` (the query's
// TIndexQuery.compactRows), else in rows.
Status ToThrift(router::LookupResult&& in, bool compact_rows,
                rpc::client::TIndexResult* out);
// TIndexResult.compactRows of `rows` (their keys and values moved): each
// column numbered in its first appearance, each row's cells in HBase's
// order (model/cell_order.h).
rpc::client::TCompactRows CompactRowsToThrift(std::vector<Row>&& rows);
// The inverse, for RouterClient: Corruption naming the field ("<f>.rows[i]
// ...") for lists of different lengths, a column number out of range, a
// negative timestamp or a row without its key.
Status CompactRowsFromThrift(const rpc::client::TCompactRows& in,
                             const std::string& f, std::vector<Row>* out);
Status ToThrift(const router::CountResult& in, rpc::client::TIndexCount* out);
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

namespace bloomroute::thrift_internal {

// ---- RouterClient's requests ----

Status TableSpecToThrift(const router::TableSpec& in,
                         rpc::client::TTableSpec* out);
Status QueryToThrift(const router::LookupSpec& in,
                     rpc::client::TIndexQuery* out);

// ---- RouterClient's results ----
Status TableInfoFromThrift(const rpc::client::TTableInfo& in,
                           router::TableInfo* out);
Status DescriptorsFromThrift(const std::vector<rpc::client::TIndexedTable>& in,
                             std::vector<TableDescriptor>* out);
Status LookupResultFromThrift(const rpc::client::TIndexResult& in,
                              router::LookupResult* out);
// Corruption for a negative count or a missing routing.
Status CountResultFromThrift(const rpc::client::TIndexCount& in,
                             router::CountResult* out);
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

#endif  // BLOOMROUTE_THRIFT_CONVERSION_INDEX_CONVERSION_H_
