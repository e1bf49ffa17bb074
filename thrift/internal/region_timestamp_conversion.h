// Conversions of cell timestamps, delete specs and time ranges between
// model/rows.h and region_service.thrift (TColumnValue.timestamp,
// TMutation.timestamp / deleteSpecs, TTimeRange), kept apart from
// conversion/region_conversion.cc, which calls them.
//
// Every field is optional on the wire, so that a peer built before cell
// timestamps gets its old behaviour: a request without them means "now" /
// every cell (kLatestTimestamp, the default TimeRange); a result cell
// without a timestamp (from an older server) gets 0, as rows stored before
// timestamps read. A request value that cannot be right gives
// InvalidArgument naming the field ("mutations[1].columnValues[0].timestamp
// is negative (-3)"); a result one gives Corruption.
// Thread-safety: pure functions.
#ifndef BLOOMROUTE_THRIFT_INTERNAL_REGION_TIMESTAMP_CONVERSION_H_
#define BLOOMROUTE_THRIFT_INTERNAL_REGION_TIMESTAMP_CONVERSION_H_

#include <optional>
#include <string>
#include <vector>

#include "common/status.h"
#include "model/rows.h"
#include "thrift/gen-cpp/region_service_types.h"

namespace bloomroute::thrift_internal {

// Requests: server side. `cells` were converted from `in` (same order).
Status CellTimestampsFromThrift(const std::vector<rpc::TColumnValue>& in,
                                const std::string& f, std::vector<Cell>* cells);
// The mutation's timestamp and delete specs; InvalidArgument for a spec
// given with a PUT.
Status MutationTimestampsFromThrift(const rpc::TMutation& in,
                                    const std::string& f, Mutation* out);
// Unset: every cell. InvalidArgument for a bound missing or negative, or
// maxStamp < minStamp.
Status TimeRangeFromThrift(bool isset, const rpc::TTimeRange& in,
                           const std::string& f, TimeRange* out);

// Requests: client side. Only what differs from the defaults is sent.
void CellTimestampsToThrift(const std::vector<Cell>& cells,
                            std::vector<rpc::TColumnValue>* out);
void MutationTimestampsToThrift(const Mutation& in, rpc::TMutation* out);
// Nullopt for every cell (the field is then left unset).
std::optional<rpc::TTimeRange> TimeRangeToThrift(const TimeRange& in);

// Result rows with their cells' timestamps, moved into `out` (keys, columns
// and values are not copied: the generated __set_ methods would); `rows`
// is left empty.
void MoveResultRowsToThrift(std::vector<Row>&& rows,
                            std::vector<rpc::TResult>* out);
// Results: server side, after the rows were converted (same order).
void ResultTimestampsToThrift(const std::vector<std::optional<Row>>& rows,
                              std::vector<rpc::TResult>* out);
// Results: client side, after the rows were converted (same order).
// Corruption for a timestamp outside [0, kLatestTimestamp).
// Cells of a reply (a write's outcome), as ResultTimestampsFromThrift.
Status ResultCellTimestampsFromThrift(const std::vector<rpc::TColumnValue>& in,
                                      const std::string& f,
                                      std::vector<Cell>* cells);
Status ResultTimestampsFromThrift(const std::vector<rpc::TResult>& in,
                                  const std::string& f, std::vector<Row>* rows);
Status ResultTimestampsFromThrift(const std::vector<rpc::TResult>& in,
                                  const std::string& f,
                                  std::vector<std::optional<Row>>* rows);

}  // namespace bloomroute::thrift_internal

#endif  // BLOOMROUTE_THRIFT_INTERNAL_REGION_TIMESTAMP_CONVERSION_H_
