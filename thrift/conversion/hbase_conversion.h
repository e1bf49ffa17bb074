// Conversions of hbase_service.thrift (HBase's THBaseService: TGet, TPut,
// TDelete, TScan, TResult, TTableDescriptor, ...) both ways: the RouterService
// handler's requests from Thrift and results to Thrift, and RouterClient's
// requests to Thrift and results from Thrift. hbase_conversion.cc holds the
// requests from Thrift; hbase_conversion_rows.cc rows, cells, results and
// RouterClient's requests.
//
// Requests. Every field the IDL documents is looked at. Three outcomes for a
// field:
//   used       converted (row, columns, values, start and stop rows, ...);
//   ignored    a hint that does not change an answer (caching,
//              cacheBlocks, readType, durability, mutation attributes);
//   refused    InvalidArgument naming the field path and the feature, e.g.
//              "tget.maxVersions 3: more than one version per cell is not
//              supported".
// A field the router needs that is missing is InvalidArgument "<path> is
// missing". Field paths start at the argument names of the IDL ("tput",
// "tputs[2]", "tget", "tscan", "desc"). Semantic checks (empty row key,
// column name syntax, limits) stay the Router's; these functions translate
// and refuse what has no translation.
//
// Rows and cells. The model names a column "family:qualifier"
// (model/types.h), HBase's TColumnValue and TColumn carry the family and the
// qualifier apart. A model column splits at its first ':' (a family has
// none). A projection entry without ':' is a whole family: a TColumn without
// qualifier. Every reply cell the router sends carries its timestamp
// (TColumnValue.timestamp). Reading a reply (RouterClient) drops it: the
// cells read have kLatestTimestamp, as RouterClient's callers compare rows
// by columns and values.
//
// Thread-safety: pure functions.
#ifndef BLOOMROUTE_THRIFT_CONVERSION_HBASE_CONVERSION_H_
#define BLOOMROUTE_THRIFT_CONVERSION_HBASE_CONVERSION_H_

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "common/status.h"
#include "model/rows.h"
#include "model/table_attributes.h"
#include "router/router.h"
#include "thrift/gen-cpp/hbase_service_types.h"
#include "thrift/internal/enum_map.h"

namespace bloomroute {

// ---- Projections ----

// Read columns (TGet, TScan, TIndexQuery: "<f>[i]"): a family, or a family and
// qualifier; TColumn.timestamp is ignored on reads (as HBase does).
// InvalidArgument "<f>[i].family is missing".
Status ProjectionFromThrift(const std::vector<rpc::client::TColumn>& in,
                            const std::string& f, Projection* out);

// ---- Table names ----

// A data call's `binary table`, as the router names it
// (model/table_name.h): "t" or "default:t" is table "t", "ns:t" stays.
Status TableFromThrift(const std::string& table, std::string* out);
// A TTableName: ns unset or empty is "default"; qualifier required. `f` is
// the argument's name, for messages.
Status TableFromThrift(const rpc::client::TTableName& in, const std::string& f,
                       std::string* out);
// The TTableName of a table the router names `table`: ns always set.
rpc::client::TTableName TableNameToThrift(std::string_view table);

// ---- Namespaces ----

// createNamespace / modifyNamespace: "namespaceDesc.name" is required; the
// configuration is copied (its bounds are the catalog's).
Status FromThrift(const rpc::client::TNamespaceDescriptor& in,
                  router::NamespaceDescriptor* out);
rpc::client::TNamespaceDescriptor ToThrift(
    const router::NamespaceDescriptor& in);

// ---- Rows ----

// put / putMultiple: "tput" and "tputs[i]". A put has at least one cell
// (checked by the router).
Status FromThrift(const rpc::client::TPut& in, Mutation* out);
Status FromThrift(const std::vector<rpc::client::TPut>& in,
                  std::vector<Mutation>* out);
// deleteSingle / deleteMultiple: "tdelete" and "tdeletes[i]". No columns:
// the whole row.
Status FromThrift(const rpc::client::TDelete& in, Mutation* out);
Status FromThrift(const std::vector<rpc::client::TDelete>& in,
                  std::vector<Mutation>* out);

// A get and what its reply keeps.
struct HBaseGet {
  GetRequest request;
  bool existence_only = false;  // the reply has the row key and no cells
};
// get / exists: "tget"; getMultiple / existsAll: "tgets[i]".
Status FromThrift(const rpc::client::TGet& in, HBaseGet* out);
Status FromThrift(const std::vector<rpc::client::TGet>& in,
                  std::vector<HBaseGet>* out);

// A scan, its row limit (0 = every row) and its cells per result
// (TScan.batchSize, HBase's Scan.setBatch; 0 = whole rows).
struct HBaseScan {
  router::ScanSpec spec;
  uint64_t limit = 0;
  uint32_t batch_cells = 0;
};
// openScanner / getScannerResults: "tscan". A reversed scan (HBase's
// startRow the largest key, inclusive; stopRow the smallest, exclusive)
// becomes spec.reversed over [stopRow + 0x00, startRow + 0x00).
Status FromThrift(const rpc::client::TScan& in, HBaseScan* out);

// ---- Tables ----

// createTable: "desc". Indexed columns from the kIndexAttribute attribute;
// no split keys: one region (HBase's rule), else N + 1 regions. Column
// family settings that would change answers are refused (see the IDL).
// The family names go to TableSpec::families and every attribute (the
// index attribute too) to TableSpec::attributes: the router takes the
// indexed columns from kIndexAttribute (model/table_attributes.h), which is
// parsed here first only so that its errors name "desc.attributes[...]".
// The families' other settings go to the attribute kFamilySettingsAttribute
// (when some family has any), which a client may not give itself.
Status FromThrift(const rpc::client::TTableDescriptor& in,
                  const std::vector<std::string>& split_keys,
                  router::TableSpec* out);

// ---- Atomic row operations ----

// The condition of checkAndPut / checkAndDelete / checkAndMutate: the cell
// `column` of `row` compared with `value` by `compare`.
struct HBaseCheck {
  std::string row;
  std::string column;  // "family:qualifier"
  std::string value;
  rpc::client::TCompareOperator::type compare =
      rpc::client::TCompareOperator::EQUAL;
};
// TCompareOperator's values but NO_OP (which compares nothing), each the
// CompareOp of the same name.
inline constexpr thrift_internal::EnumMap<CompareOp, 6> kHBaseCompareOps(
    {{{CompareOp::kLess, rpc::client::TCompareOperator::LESS},
      {CompareOp::kLessOrEqual, rpc::client::TCompareOperator::LESS_OR_EQUAL},
      {CompareOp::kEqual, rpc::client::TCompareOperator::EQUAL},
      {CompareOp::kNotEqual, rpc::client::TCompareOperator::NOT_EQUAL},
      {CompareOp::kGreaterOrEqual,
       rpc::client::TCompareOperator::GREATER_OR_EQUAL},
      {CompareOp::kGreater, rpc::client::TCompareOperator::GREATER}}},
    "{field} {value} is not a TCompareOperator");

// The row / family / qualifier / operator arguments ("row", "family",
// "qualifier", "compareOperator"): a family must be non-empty; an operator
// must be one of TCompareOperator's values.
Status CheckFromThrift(const std::string& row, const std::string& family,
                       const std::string& qualifier, const std::string& value,
                       int32_t compare, HBaseCheck* out);
// Each mutation of a row: its row must equal `row` (field "<f>.row").
Status RowMutationFromThrift(const Mutation& mutation, const std::string& row,
                             const std::string& f);
// mutateRow / checkAndMutate: "trowMutations" or "rowMutations"; each
// TMutation has exactly one of put and deleteSingle, for `row`.
Status FromThrift(const rpc::client::TRowMutations& in, const std::string& f,
                  std::vector<Mutation>* out);

// increment: "tincrement"; cells by column with the amount to add.
// return_results: TIncrement.returnResults, unset = true (HBase's default).
struct HBaseIncrement {
  std::string row;
  std::vector<std::pair<std::string, int64_t>> amounts;
  bool return_results = true;
};
Status FromThrift(const rpc::client::TIncrement& in, HBaseIncrement* out);
// append: "tappend"; the bytes to append per cell (a put-shaped Mutation).
// return_results as HBaseIncrement's.
struct HBaseAppend {
  Mutation cells;
  bool return_results = true;
};
Status FromThrift(const rpc::client::TAppend& in, HBaseAppend* out);

// A row count passed as a call argument (getScannerRows' numRows).
Status CountFromThrift(int32_t in, const char* field, uint32_t* out);

// ---- Results ----

// HBase's view of a table (getTableDescriptor): its name (TableNameToThrift),
// its attributes with the bloomroute.index attribute (when it has
// indexed columns) but without kFamilySettingsAttribute, and its declared
// families (none declared: the families of its indexed columns), each with
// every field set (FamilyToThrift). Corruption naming the table for a
// kFamilySettingsAttribute that does not parse.
Status HBaseDescriptorToThrift(const TableDescriptor& in,
                               rpc::client::TTableDescriptor* out);
// HBase's region locations (getAllRegionLocations), by start key: the
// server's host name and port from its "host:port" address. IOError for an
// address that does not parse or a number that does not fit.
Status ToThrift(const router::TableInfo& in,
                std::vector<rpc::client::THRegionLocation>* out);
// get / getMultiple, in request order.
Status ToThrift(const std::vector<std::optional<Row>>& in,
                std::vector<rpc::client::TResult>* out);
// Scanner rows (every row exists); the rvalue form moves their keys and
// values into the reply.
Status ToThrift(const std::vector<Row>& in,
                std::vector<rpc::client::TResult>* out);
Status ToThrift(std::vector<Row>&& in, std::vector<rpc::client::TResult>* out);
}  // namespace bloomroute

namespace bloomroute::thrift_internal {

// "family:qualifier" from its parts.
std::string JoinColumn(std::string_view family, std::string_view qualifier);

// ---- Column families (hbase_conversion_families.cc) ----

// A column family of createTable ("<f>" is "desc.columns[i]"): a missing
// name, a setting that would change answers other than its HBase default,
// an enum field outside its enum, a blockSize not positive or a negative
// dfsReplication or scope is InvalidArgument naming the field; the other
// settings, the attributes and the configuration go to `out`.
Status FamilyFromThrift(const rpc::client::TColumnFamilyDescriptor& in,
                        const std::string& f, FamilySettings* out);
// Family `name` as getTableDescriptor answers it: every field set, from
// `settings` where kept, else HBase 2.x's default (see the IDL).
rpc::client::TColumnFamilyDescriptor FamilyToThrift(
    const std::string& name, const FamilySettings& settings);

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
// The same, taking the rows' keys and values instead of copying them (the
// rows are left empty).
std::vector<rpc::client::TResult> RowsToHBase(std::vector<Row>&& rows);
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

// ---- RouterClient's requests ----

rpc::client::TPut PutToThrift(const Mutation& put);
rpc::client::TDelete DeleteToThrift(const Mutation& del);
std::vector<rpc::client::TGet> GetsToThrift(const std::vector<GetRequest>& in);
rpc::client::TScan ScanToThrift(const router::ScanSpec& in);

}  // namespace bloomroute::thrift_internal

#endif  // BLOOMROUTE_THRIFT_CONVERSION_HBASE_CONVERSION_H_
