#include "thrift/conversion/hbase1_conversion.h"

#include <strings.h>

#include <utility>

namespace bloomroute {
namespace {

namespace h1 = rpc::hbase1;
namespace h2 = rpc::client;

constexpr int32_t kForeverTtl = 0x7fffffff;  // HBase's HConstants.FOREVER

std::string At(const std::string& f, size_t i) {
  return f + "[" + std::to_string(i) + "]";
}

Status Refused(const std::string& what, const std::string& feature) {
  return Status::InvalidArgument(what + ": " + feature + " is not supported");
}

// A column's family and (after the first ':') qualifier, as
// CellUtil.parseColumn splits it; `has_qualifier` false for no ':'.
Status SplitColumn(const std::string& column, const std::string& f,
                   std::string* family, std::string* qualifier,
                   bool* has_qualifier) {
  const size_t colon = column.find(':');
  *family = column.substr(0, colon);
  *has_qualifier = colon != std::string::npos;
  *qualifier = *has_qualifier ? column.substr(colon + 1) : std::string();
  if (family->empty()) {
    return Status::InvalidArgument(f + " \"" + column +
                                   "\": the family is empty");
  }
  return Status::OK();
}

// The value of `name` (any case) in a generated enum's names.
Status EnumByName(const std::map<int, const char*>& names,
                  const std::string& name, const std::string& f, int32_t* out) {
  for (const auto& [value, text] : names) {
    if (strcasecmp(text, name.c_str()) == 0) {
      *out = value;
      return Status::OK();
    }
  }
  return Status::InvalidArgument(f + " \"" + name + "\" is not known");
}

std::string EnumName(const std::map<int, const char*>& names, int32_t value) {
  auto it = names.find(value);
  return it == names.end() ? std::to_string(value) : it->second;
}

}  // namespace

Status Thrift1ColumnToThrift2(const std::string& column, const std::string& f,
                              h2::TColumn* out) {
  std::string family, qualifier;
  bool has_qualifier = false;
  BLOOMROUTE_RETURN_IF_ERROR(
      SplitColumn(column, f, &family, &qualifier, &has_qualifier));
  *out = h2::TColumn();
  out->__set_family(family);
  out->__isset.family = true;
  if (has_qualifier) out->__set_qualifier(qualifier);
  return Status::OK();
}

Status Thrift1ColumnsToThrift2(const std::vector<std::string>& columns,
                               const std::string& f,
                               std::vector<h2::TColumn>* out) {
  out->assign(columns.size(), h2::TColumn());
  for (size_t i = 0; i < columns.size(); ++i) {
    BLOOMROUTE_RETURN_IF_ERROR(
        Thrift1ColumnToThrift2(columns[i], At(f, i), &(*out)[i]));
  }
  return Status::OK();
}

Status Thrift1TableToThrift2(const std::string& table, const std::string& f,
                             h2::TTableName* out) {
  const size_t colon = table.find(':');
  const std::string ns =
      colon == std::string::npos ? "default" : table.substr(0, colon);
  const std::string qualifier =
      colon == std::string::npos ? table : table.substr(colon + 1);
  if (ns.empty() || qualifier.empty()) {
    return Status::InvalidArgument(f + " \"" + table + "\" is no table name");
  }
  *out = h2::TTableName();
  out->__set_ns(ns);
  out->__set_qualifier(qualifier);
  out->__isset.qualifier = true;
  out->__isset.qualifier = true;
  return Status::OK();
}

std::string Thrift1TableName(const h2::TTableName& in) {
  if (!in.__isset.ns || in.ns.empty() || in.ns == "default") {
    return in.qualifier;
  }
  return in.ns + ":" + in.qualifier;
}

Status TimestampBound(int64_t timestamp, const std::string& f,
                      h2::TTimeRange* out) {
  if (timestamp < 0) {
    return Status::InvalidArgument(f + " " + std::to_string(timestamp) +
                                   " is negative");
  }
  *out = h2::TTimeRange();
  out->__set_minStamp(0);
  out->__isset.minStamp = true;
  out->__set_maxStamp(timestamp);
  out->__isset.maxStamp = true;
  return Status::OK();
}

// ---- Results ----

std::vector<h1::TCell> Thrift1Cells(const h2::TResult& in) {
  std::vector<h1::TCell> cells;
  cells.reserve(in.columnValues.size());
  for (const h2::TColumnValue& c : in.columnValues) {
    h1::TCell cell;
    cell.__set_value(c.value);
    cell.__isset.value = true;
    cell.__set_timestamp(c.timestamp);
    cells.push_back(std::move(cell));
  }
  return cells;
}

h1::TRowResult Thrift1Row(const h2::TResult& in, bool sorted) {
  h1::TRowResult row;
  row.__set_row(in.row);
  row.__isset.row = true;
  std::vector<h1::TCell> cells = Thrift1Cells(in);
  for (size_t i = 0; i < cells.size(); ++i) {
    const h2::TColumnValue& c = in.columnValues[i];
    std::string name = c.family + ":" + c.qualifier;
    if (sorted) {
      h1::TColumn column;
      column.__set_columnName(std::move(name));
      column.__set_cell(std::move(cells[i]));
      row.sortedColumns.push_back(std::move(column));
    } else {
      row.columns[std::move(name)] = std::move(cells[i]);
    }
  }
  if (sorted) {
    row.__isset.sortedColumns = true;
  } else {
    row.__isset.columns = true;
  }
  return row;
}

std::vector<h1::TRowResult> Thrift1Rows(const std::vector<h2::TResult>& in,
                                        bool sorted) {
  std::vector<h1::TRowResult> rows;
  rows.reserve(in.size());
  for (const h2::TResult& result : in) {
    if (!result.__isset.row || result.columnValues.empty()) continue;
    rows.push_back(Thrift1Row(result, sorted));
  }
  return rows;
}

// ---- Writes ----

namespace {

// The delete of a family or column (field `f`) of `row`.
Status DeleteOf(const std::string& row, const std::string& name,
                std::optional<int64_t> timestamp, const std::string& f,
                h2::TDelete* out) {
  std::string family, qualifier;
  bool has_qualifier = false;
  BLOOMROUTE_RETURN_IF_ERROR(
      SplitColumn(name, f, &family, &qualifier, &has_qualifier));
  h2::TColumn column;
  column.__set_family(family);
  column.__isset.family = true;
  if (has_qualifier) column.__set_qualifier(qualifier);
  *out = h2::TDelete();
  out->__set_row(row);
  out->__isset.row = true;
  out->__set_columns({column});
  out->__isset.columns = true;
  out->__set_deleteType(has_qualifier ? h2::TDeleteType::DELETE_COLUMNS
                                      : h2::TDeleteType::DELETE_FAMILY);
  if (timestamp.has_value()) out->__set_timestamp(*timestamp);
  return Status::OK();
}

}  // namespace

Status Thrift1MutationsToThrift2(const std::string& row,
                                 const std::vector<h1::Mutation>& in,
                                 std::optional<int64_t> timestamp,
                                 const std::string& f, h2::TRowMutations* out) {
  *out = h2::TRowMutations();
  out->__set_row(row);
  out->__isset.row = true;
  h2::TPut put;
  put.__set_row(row);
  put.__isset.row = true;
  if (timestamp.has_value()) put.__set_timestamp(*timestamp);
  for (size_t i = 0; i < in.size(); ++i) {
    const h1::Mutation& m = in[i];
    if (m.isDelete) {
      h2::TMutation mutation;
      BLOOMROUTE_RETURN_IF_ERROR(DeleteOf(row, m.column, timestamp,
                                          At(f, i) + ".column",
                                          &mutation.deleteSingle));
      mutation.__isset.deleteSingle = true;
      out->mutations.push_back(std::move(mutation));
      continue;
    }
    std::string family, qualifier;
    bool has_qualifier = false;
    BLOOMROUTE_RETURN_IF_ERROR(SplitColumn(
        m.column, At(f, i) + ".column", &family, &qualifier, &has_qualifier));
    if (!has_qualifier) {
      return Status::InvalidArgument(
          At(f, i) + ".column \"" + m.column +
          "\": a put names a column (\"family:qualifier\"), not a family");
    }
    h2::TColumnValue cell;
    cell.__set_family(family);
    cell.__isset.family = true;
    cell.__set_qualifier(qualifier);
    cell.__isset.qualifier = true;
    cell.__set_value(m.value);
    cell.__isset.value = true;
    put.columnValues.push_back(std::move(cell));
  }
  if (!put.columnValues.empty()) {
    put.__isset.columnValues = true;
    h2::TMutation mutation;
    mutation.__set_put(std::move(put));
    out->mutations.push_back(std::move(mutation));
  }
  out->__isset.mutations = true;
  return Status::OK();
}

Status Thrift1DeleteToThrift2(const std::string& row, const std::string& column,
                              std::optional<int64_t> timestamp,
                              h2::TDelete* out) {
  return DeleteOf(row, column, timestamp, "column", out);
}

Status Thrift1IncrementToThrift2(const h1::TIncrement& in, const std::string& f,
                                 std::string* table, h2::TIncrement* out) {
  std::string family, qualifier;
  bool has_qualifier = false;
  BLOOMROUTE_RETURN_IF_ERROR(SplitColumn(in.column, f + ".column", &family,
                                         &qualifier, &has_qualifier));
  *table = in.table;
  h2::TColumnIncrement column;
  column.__set_family(family);
  column.__isset.family = true;
  column.__set_qualifier(qualifier);
  column.__isset.qualifier = true;
  column.__set_amount(in.ammount);
  *out = h2::TIncrement();
  out->__set_row(in.row);
  out->__isset.row = true;
  out->__set_columns({column});
  out->__isset.columns = true;
  return Status::OK();
}

Status Thrift1AppendToThrift2(const h1::TAppend& in, std::string* table,
                              h2::TAppend* out) {
  if (in.columns.size() != in.values.size()) {
    return Status::InvalidArgument(
        "append: " + std::to_string(in.columns.size()) + " columns but " +
        std::to_string(in.values.size()) + " values");
  }
  *table = in.table;
  *out = h2::TAppend();
  out->__set_row(in.row);
  out->__isset.row = true;
  for (size_t i = 0; i < in.columns.size(); ++i) {
    std::string family, qualifier;
    bool has_qualifier = false;
    BLOOMROUTE_RETURN_IF_ERROR(SplitColumn(in.columns[i],
                                           At("append.columns", i), &family,
                                           &qualifier, &has_qualifier));
    h2::TColumnValue cell;
    cell.__set_family(family);
    cell.__isset.family = true;
    cell.__set_qualifier(qualifier);
    cell.__isset.qualifier = true;
    cell.__set_value(in.values[i]);
    cell.__isset.value = true;
    out->columns.push_back(std::move(cell));
  }
  out->__isset.columns = true;
  out->__set_returnResults(true);
  return Status::OK();
}

Status CounterValue(const h2::TResult& in, const std::string& column,
                    int64_t* out) {
  if (in.columnValues.size() != 1 || in.columnValues[0].value.size() != 8) {
    return Status::IOError("column \"" + column +
                           "\" does not hold an 8-byte counter");
  }
  uint64_t value = 0;
  for (unsigned char byte : in.columnValues[0].value) {
    value = (value << 8) | byte;
  }
  *out = static_cast<int64_t>(value);
  return Status::OK();
}

// ---- Scans ----

Status Thrift1ScanToThrift2(const h1::TScan& in, h2::TScan* out) {
  *out = h2::TScan();
  const auto& is = in.__isset;
  if (is.startRow) out->__set_startRow(in.startRow);
  if (is.stopRow) out->__set_stopRow(in.stopRow);
  if (is.timestamp) {
    h2::TTimeRange range;
    BLOOMROUTE_RETURN_IF_ERROR(
        TimestampBound(in.timestamp, "scan.timestamp", &range));
    out->__set_timeRange(range);
  }
  if (is.columns && !in.columns.empty()) {
    std::vector<h2::TColumn> columns;
    BLOOMROUTE_RETURN_IF_ERROR(
        Thrift1ColumnsToThrift2(in.columns, "scan.columns", &columns));
    out->__set_columns(std::move(columns));
    out->__isset.columns = true;
  }
  if (is.caching) out->__set_caching(in.caching);
  if (is.filterString) out->__set_filterString(in.filterString);
  if (is.batchSize) out->__set_batchSize(in.batchSize);
  if (is.reversed) out->__set_reversed(in.reversed);
  if (is.cacheBlocks) out->__set_cacheBlocks(in.cacheBlocks);
  return Status::OK();
}

std::string PrefixStopRow(const std::string& prefix) {
  std::string stop = prefix;
  while (!stop.empty() && static_cast<unsigned char>(stop.back()) == 0xff) {
    stop.pop_back();
  }
  if (!stop.empty()) stop.back() = static_cast<char>(stop.back() + 1);
  return stop;
}

// ---- Table metadata ----

namespace {

// The settings of a family that change answers: HBase's defaults only.
Status CheckAnswerSettings(const h1::ColumnDescriptor& in,
                           const std::string& f) {
  if (in.maxVersions != 1) {
    return Refused(f + ".maxVersions " + std::to_string(in.maxVersions),
                   "more than one version per cell (give maxVersions 1)");
  }
  if (in.timeToLive != kForeverTtl && in.timeToLive != -1) {
    return Refused(f + ".timeToLive " + std::to_string(in.timeToLive),
                   "a cell time-to-live");
  }
  return Status::OK();
}

}  // namespace

Status ColumnDescriptorToThrift2(const h1::ColumnDescriptor& in,
                                 const std::string& f,
                                 h2::TColumnFamilyDescriptor* out) {
  const std::string family = in.name.substr(0, in.name.find(':'));
  if (family.empty()) {
    return Status::InvalidArgument(f + ".name \"" + in.name +
                                   "\" names no family");
  }
  BLOOMROUTE_RETURN_IF_ERROR(CheckAnswerSettings(in, f));
  int32_t compression = 0;
  BLOOMROUTE_RETURN_IF_ERROR(
      EnumByName(h2::_TCompressionAlgorithm_VALUES_TO_NAMES, in.compression,
                 f + ".compression", &compression));
  int32_t bloom = 0;
  BLOOMROUTE_RETURN_IF_ERROR(EnumByName(h2::_TBloomFilterType_VALUES_TO_NAMES,
                                        in.bloomFilterType,
                                        f + ".bloomFilterType", &bloom));
  *out = h2::TColumnFamilyDescriptor();
  out->__set_name(family);
  out->__isset.name = true;
  out->__set_compressionType(compression);
  out->__set_bloomnFilterType(bloom);
  out->__set_inMemory(in.inMemory);
  out->__set_blockCacheEnabled(in.blockCacheEnabled);
  return Status::OK();
}

h1::ColumnDescriptor ColumnDescriptorFromThrift2(
    const h2::TColumnFamilyDescriptor& in) {
  h1::ColumnDescriptor out;
  out.__set_name(in.name + ":");
  out.__isset.name = true;
  out.__set_maxVersions(in.__isset.maxVersions ? in.maxVersions : 1);
  if (in.__isset.compressionType) {
    out.__set_compression(EnumName(h2::_TCompressionAlgorithm_VALUES_TO_NAMES,
                                   in.compressionType));
  }
  out.__set_inMemory(in.__isset.inMemory && in.inMemory);
  if (in.__isset.bloomnFilterType) {
    out.__set_bloomFilterType(
        EnumName(h2::_TBloomFilterType_VALUES_TO_NAMES, in.bloomnFilterType));
  }
  out.__set_blockCacheEnabled(!in.__isset.blockCacheEnabled ||
                              in.blockCacheEnabled);
  out.__set_timeToLive(in.__isset.timeToLive ? in.timeToLive : kForeverTtl);
  return out;
}

h1::TRegionInfo RegionInfoFromThrift2(const h2::THRegionLocation& in) {
  const h2::THRegionInfo& region = in.regionInfo;
  h1::TRegionInfo out;
  out.__set_startKey(region.startKey);
  out.__set_endKey(region.endKey);
  out.__set_id(region.regionId);
  out.__set_name(region.tableName + "," + region.startKey + "," +
                 std::to_string(region.regionId));
  out.__isset.name = true;
  out.__set_version(1);
  out.__set_serverName(in.serverName.hostName);
  out.__set_port(in.serverName.port);
  return out;
}

}  // namespace bloomroute
