// Conversions of the HBase Thrift2 requests of router_service.thrift (the
// THBaseService calls: TGet, TPut, TDelete, TScan, TTableDescriptor, ...) to
// the router's types, for the RouterService handler.
//
// Every field the IDL documents is looked at. Three outcomes for a field:
//   used       converted (row, columns, values, start and stop rows, ...);
//   ignored    a hint that does not change an answer (caching, batchSize,
//              cacheBlocks, readType, durability, mutation attributes);
//   refused    InvalidArgument naming the field path and the feature, e.g.
//              "tget.maxVersions 3: more than one version per cell is not
//              supported".
// A field the router needs that is missing is InvalidArgument "<path> is
// missing". Field paths start at the argument names of the IDL ("tput",
// "tputs[2]", "tget", "tscan", "desc").
//
// Semantic checks (empty row key, column name syntax, limits) stay the
// Router's; these functions translate and refuse what has no translation.
//
// Thread-safety: pure functions.
#ifndef BLOOMROUTE_THRIFT_HBASE_REQUEST_CONVERSION_H_
#define BLOOMROUTE_THRIFT_HBASE_REQUEST_CONVERSION_H_

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "common/status.h"
#include "model/rows.h"
#include "router/router.h"
#include "thrift/gen-cpp/router_service_types.h"

namespace bloomroute {

// ---- Table names ----

// A data call's `binary table`: "t" or "default:t" is table "t"; another
// namespace is InvalidArgument naming it.
Status TableFromThrift(const std::string& table, std::string* out);
// A TTableName: ns unset, empty or "default"; qualifier required. `f` is the
// argument's name, for messages.
Status TableFromThrift(const rpc::client::TTableName& in, const std::string& f,
                       std::string* out);

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

// A scan and its row limit (0 = every row).
struct HBaseScan {
  router::ScanSpec spec;
  uint64_t limit = 0;
};
// openScanner / getScannerResults: "tscan".
Status FromThrift(const rpc::client::TScan& in, HBaseScan* out);

// ---- Tables ----

// createTable: "desc". Indexed columns from the kIndexAttribute attribute;
// no split keys: one region (HBase's rule), else N + 1 regions. Column
// family settings that would change answers are refused (see the IDL).
// The family names go to TableSpec::families and every attribute (the
// index attribute too) to TableSpec::attributes: the router takes the
// indexed columns from kIndexAttribute (model/table_attributes.h), which is
// parsed here first only so that its errors name "desc.attributes[...]".
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

}  // namespace bloomroute

#endif  // BLOOMROUTE_THRIFT_HBASE_REQUEST_CONVERSION_H_
