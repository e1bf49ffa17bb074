// Rows and cells in the HBase shape of router_service.thrift, both ways: the
// model names a column "family:qualifier" (model/rows.h), HBase's
// TColumnValue and TColumn carry the family and the qualifier apart. Shared
// by the RouterService handler's conversions (router_types_conversion.h) and
// RouterClient's (router_client_conversion.h).
//
// A model column splits at its first ':' (a family has none). A projection
// entry without ':' is a whole family: a TColumn without qualifier.
// Every reply cell the router sends carries its timestamp
// (TColumnValue.timestamp). Reading a reply (RouterClient) drops it: the
// cells read have kLatestTimestamp, as RouterClient's callers compare rows
// by columns and values.
//
// Thread-safety: pure functions.
#ifndef BLOOMROUTE_THRIFT_INTERNAL_HBASE_ROWS_H_
#define BLOOMROUTE_THRIFT_INTERNAL_HBASE_ROWS_H_

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "common/status.h"
#include "model/rows.h"
#include "thrift/gen-cpp/router_service_types.h"

namespace bloomroute::thrift_internal {

// "family:qualifier" from its parts.
std::string JoinColumn(std::string_view family, std::string_view qualifier);

// ---- Timestamps of requests ----

// A timestamp given by a client: InvalidArgument "<f> -1 is negative".
// kLatestTimestamp is HBase's LATEST_TIMESTAMP: "now" in a write.
Status TimestampFromHBase(int64_t in, const std::string& f, int64_t* out);
// [minStamp, maxStamp): InvalidArgument naming "<f>.minStamp" or
// "<f>.maxStamp" for a missing or negative bound, "<f>: minStamp M is above
// maxStamp N" for a reversed range (an equal pair is an empty range).
Status TimeRangeFromHBase(const rpc::client::TTimeRange& in,
                          const std::string& f, TimeRange* out);

// ---- Model to Thrift ----

rpc::client::TColumn ProjectionEntryToThrift(const std::string& entry);
std::vector<rpc::client::TColumn> ProjectionToThrift(const Projection& in);
// TColumnValue.timestamp is set unless the cell's is kLatestTimestamp
// (a cell to write without one; a stored cell never has it).
std::vector<rpc::client::TColumnValue> CellsToHBase(
    const std::vector<Cell>& in);
// A row: `row` set, its cells in order.
rpc::client::TResult RowToHBase(const Row& row);
std::vector<rpc::client::TResult> RowsToHBase(const std::vector<Row>& rows);
// A missing row is a TResult without `row` and with an (explicitly set)
// empty list of cells, as HBase answers.
std::vector<rpc::client::TResult> OptionalRowsToHBase(
    const std::vector<std::optional<Row>>& in);

// ---- Thrift results to model (a client reading a reply) ----

// Corruption naming the field ("<f>.columnValues[i].family is missing") for
// a row without `row`, a cell without family, qualifier or value, or a
// negative timestamp. A cell without a timestamp gets kLatestTimestamp.
Status RowFromHBase(const rpc::client::TResult& in, const std::string& f,
                    Row* out);
Status RowsFromHBase(const std::vector<rpc::client::TResult>& in,
                     const std::string& f, std::vector<Row>* out);
// A TResult without `row` is a missing row and must have no cells.
Status OptionalRowsFromHBase(const std::vector<rpc::client::TResult>& in,
                             const std::string& f,
                             std::vector<std::optional<Row>>* out);

}  // namespace bloomroute::thrift_internal

#endif  // BLOOMROUTE_THRIFT_INTERNAL_HBASE_ROWS_H_
