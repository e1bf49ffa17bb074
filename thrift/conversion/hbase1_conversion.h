// Conversions between hbase1_service.thrift (HBase's Thrift1 API, service
// Hbase) and hbase_service.thrift (its Thrift2 API, THBaseService): the
// Thrift1 handler (thrift/hbase1_service_handler.h) serves each Thrift1 call
// by building the Thrift2 request HBase's own Thrift1 server would build,
// handing it to the Thrift2 handler (so that one conversion to the router's
// model, conversion/hbase_conversion.h, serves both APIs), and converting the
// Thrift2 answer back.
//
// Thrift1 names columns with one string: "family:qualifier" is a column,
// "family" a whole family, and "family:" the column of the empty qualifier
// (HBase's CellUtil.parseColumn). Field paths in messages start at the
// Thrift1 argument names ("columns[2]", "mutations[0].column",
// "columnFamilies[1].maxVersions").
//
// Thread-safety: pure functions.
#ifndef BLOOMROUTE_THRIFT_CONVERSION_HBASE1_CONVERSION_H_
#define BLOOMROUTE_THRIFT_CONVERSION_HBASE1_CONVERSION_H_

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "common/status.h"
#include "thrift/gen-cpp/hbase1_service_types.h"
#include "thrift/gen-cpp/hbase_service_types.h"

namespace bloomroute {

// ---- Columns and tables ----

// A Thrift1 column: InvalidArgument "<f> \"...\": the family is empty".
Status Thrift1ColumnToThrift2(const std::string& column, const std::string& f,
                              rpc::client::TColumn* out);
// Each of `columns` ("<f>[i]"); an empty list reads every column.
Status Thrift1ColumnsToThrift2(const std::vector<std::string>& columns,
                               const std::string& f,
                               std::vector<rpc::client::TColumn>* out);
// A Thrift1 table name ("t" or "ns:t") as a TTableName: InvalidArgument
// for an empty name or an empty part.
Status Thrift1TableToThrift2(const std::string& table, const std::string& f,
                             rpc::client::TTableName* out);
// The name Thrift1 lists a table by: "t" in the default namespace, else
// "ns:t" (HBase's TableName.getNameAsString).
std::string Thrift1TableName(const rpc::client::TTableName& in);

// The cells strictly older than `timestamp` (HBase's setTimeRange(0, ts)):
// InvalidArgument "<f> -1 is negative".
Status TimestampBound(int64_t timestamp, const std::string& f,
                      rpc::client::TTimeRange* out);

// ---- Results ----

// A result's cells, in order.
std::vector<rpc::hbase1::TCell> Thrift1Cells(const rpc::client::TResult& in);
// A row: `columns` by "family:qualifier", or (sorted) `sortedColumns` in
// order, as HBase's Thrift1 server fills one or the other.
rpc::hbase1::TRowResult Thrift1Row(const rpc::client::TResult& in, bool sorted);
// The rows that exist (a missing or empty result is left out).
std::vector<rpc::hbase1::TRowResult> Thrift1Rows(
    const std::vector<rpc::client::TResult>& in, bool sorted);

// ---- Writes ----

// One row's Thrift1 mutations ("<f>[i]") as a TRowMutations: a TDelete per
// delete (DELETE_FAMILY for a family, DELETE_COLUMNS for a column), first,
// then one TPut of every put, as HBase applies them; `timestamp` (the *Ts
// calls) on each. A put of a whole family ("family", no ':') is
// InvalidArgument (HBase drops it with a warning). Empty: nothing to do.
Status Thrift1MutationsToThrift2(const std::string& row,
                                 const std::vector<rpc::hbase1::Mutation>& in,
                                 std::optional<int64_t> timestamp,
                                 const std::string& f,
                                 rpc::client::TRowMutations* out);
// deleteAll / deleteAllTs: the column (or family) of `row`, its cells at or
// below `timestamp` when given.
Status Thrift1DeleteToThrift2(const std::string& row, const std::string& column,
                              std::optional<int64_t> timestamp,
                              rpc::client::TDelete* out);
// increment / incrementRows ("<f>"): the table it names and the Thrift2
// increment. A column without qualifier is the empty qualifier, as
// atomicIncrement's.
Status Thrift1IncrementToThrift2(const rpc::hbase1::TIncrement& in,
                                 const std::string& f, std::string* table,
                                 rpc::client::TIncrement* out);
// append ("append"): columns and values pair up (InvalidArgument when their
// counts differ); each column needs its qualifier's ':'.
Status Thrift1AppendToThrift2(const rpc::hbase1::TAppend& in,
                              std::string* table, rpc::client::TAppend* out);
// A counter cell's value (8 bytes, big-endian): IOError naming `column`
// otherwise.
Status CounterValue(const rpc::client::TResult& in, const std::string& column,
                    int64_t* out);

// ---- Scans ----

// scannerOpenWithScan's TScan ("scan") as a Thrift2 TScan.
Status Thrift1ScanToThrift2(const rpc::hbase1::TScan& in,
                            rpc::client::TScan* out);
// The first row after every row starting with `prefix` ("" when there is
// none: the prefix is empty or all 0xff bytes).
std::string PrefixStopRow(const std::string& prefix);

// ---- Table metadata ----

// createTable's family ("<f>"): its name up to its ':' (required, not
// empty); maxVersions other than 1 and a timeToLive other than forever
// (0x7fffffff or -1) are refused naming the field, an unknown compression
// or Bloom filter type is InvalidArgument; inMemory and blockCacheEnabled
// are kept; the Bloom filter vector size and hash count are ignored (as
// HBase ignores them).
Status ColumnDescriptorToThrift2(const rpc::hbase1::ColumnDescriptor& in,
                                 const std::string& f,
                                 rpc::client::TColumnFamilyDescriptor* out);
// A family as getColumnDescriptors answers it: name "family:".
rpc::hbase1::ColumnDescriptor ColumnDescriptorFromThrift2(
    const rpc::client::TColumnFamilyDescriptor& in);
// A region as getTableRegions answers it: name "table,startKey,id".
rpc::hbase1::TRegionInfo RegionInfoFromThrift2(
    const rpc::client::THRegionLocation& in);

}  // namespace bloomroute

#endif  // BLOOMROUTE_THRIFT_CONVERSION_HBASE1_CONVERSION_H_
