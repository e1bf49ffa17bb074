// Rows, cells and results in HBase's shape, both ways, and the requests
// RouterClient sends (declared in thrift/conversion/hbase_conversion.h).
#include <algorithm>
#include <map>
#include <optional>
#include <string>
#include <type_traits>
#include <utility>

#include "model/cell_order.h"
#include "model/table_attributes.h"
#include "thrift/conversion/hbase_conversion.h"
#include "thrift/internal/checked_conversion.h"
#include "thrift/server/thrift_server.h"

namespace bloomroute::thrift_internal {
namespace {

namespace client = rpc::client;

// The family and qualifier of a model column; `qualifier` is nullopt for a
// whole family (no ':').
void SplitColumn(const std::string& column, std::string* family,
                 std::optional<std::string>* qualifier) {
  const size_t colon = column.find(':');
  if (colon == std::string::npos) {
    *family = column;
    qualifier->reset();
    return;
  }
  *family = column.substr(0, colon);
  *qualifier = column.substr(colon + 1);
}

// A TResult or a TPut: `row` and its cells, in order.
template <typename T>
T WithCells(const std::string& row, const std::vector<Cell>& cells) {
  T out;
  out.__set_row(row);
  out.__set_columnValues(CellsToHBase(cells));
  return out;
}

}  // namespace

Status TimestampFromHBase(int64_t in, const std::string& f, int64_t* out) {
  if (in < 0) {
    return Status::InvalidArgument(f + " " + std::to_string(in) +
                                   " is negative");
  }
  *out = in;
  return Status::OK();
}

Status TimeRangeFromHBase(const client::TTimeRange& in, const std::string& f,
                          TimeRange* out) {
  BLOOMROUTE_RETURN_IF_ERROR(RequireAll(kBadRequest, f,
                                        {{in.__isset.minStamp, ".minStamp"},
                                         {in.__isset.maxStamp, ".maxStamp"}}));
  BLOOMROUTE_RETURN_IF_ERROR(
      TimestampFromHBase(in.minStamp, f + ".minStamp", &out->min));
  BLOOMROUTE_RETURN_IF_ERROR(
      TimestampFromHBase(in.maxStamp, f + ".maxStamp", &out->max));
  if (out->min > out->max) {
    return Status::InvalidArgument(
        f + ": minStamp " + std::to_string(out->min) + " is above maxStamp " +
        std::to_string(out->max));
  }
  return Status::OK();
}

std::string JoinColumn(std::string_view family, std::string_view qualifier) {
  std::string column;
  column.reserve(family.size() + 1 + qualifier.size());
  column.append(family).append(1, ':').append(qualifier);
  return column;
}

client::TColumn ProjectionEntryToThrift(const std::string& entry) {
  client::TColumn out;
  std::string family;
  std::optional<std::string> qualifier;
  SplitColumn(entry, &family, &qualifier);
  out.__set_family(std::move(family));
  if (qualifier) out.__set_qualifier(std::move(*qualifier));
  return out;
}

std::vector<client::TColumn> ProjectionToThrift(const Projection& in) {
  std::vector<client::TColumn> out;
  out.reserve(in.size());
  for (const std::string& entry : in) {
    out.push_back(ProjectionEntryToThrift(entry));
  }
  return out;
}

namespace {

// CellsToHBase, moving each value when `Cells` is an rvalue: a reply's
// values are then not copied again on their way out (the generated
// __set_ methods copy, so fields are assigned directly). The cells go out
// in HBase's order (model/cell_order.h); `in` is in the model's, which is
// the same but for rows whose families order differently.
template <typename Cells>
std::vector<client::TColumnValue> CellsToHBaseFrom(Cells&& in) {
  std::vector<client::TColumnValue> out(in.size());
  std::vector<size_t> order;
  if (!InHBaseOrder(in)) {
    order.resize(in.size());
    for (size_t i = 0; i < in.size(); ++i) order[i] = i;
    std::stable_sort(order.begin(), order.end(), [&](size_t a, size_t b) {
      return HBaseColumnLess(in[a].column, in[b].column);
    });
  }
  for (size_t o = 0; o < in.size(); ++o) {
    const size_t i = order.empty() ? o : order[o];
    std::string family;
    std::optional<std::string> qualifier;
    SplitColumn(in[i].column, &family, &qualifier);
    out[o].__set_family(std::move(family));
    out[o].__set_qualifier(qualifier ? std::move(*qualifier) : std::string());
    if constexpr (std::is_rvalue_reference_v<Cells&&>) {
      out[o].value = std::move(in[i].value);
    } else {
      out[o].value = in[i].value;
    }
    out[o].__isset.value = true;
    // A returned cell always has one; a cell to write may have none.
    if (in[i].timestamp != kLatestTimestamp) {
      out[o].__set_timestamp(in[i].timestamp);
    }
  }
  return out;
}

}  // namespace

std::vector<client::TColumnValue> CellsToHBase(const std::vector<Cell>& in) {
  return CellsToHBaseFrom(in);
}

client::TResult RowToHBase(const Row& row) {
  return WithCells<client::TResult>(row.key, row.cells);
}

std::vector<client::TResult> RowsToHBase(const std::vector<Row>& rows) {
  std::vector<client::TResult> out;
  out.reserve(rows.size());
  for (const Row& row : rows) out.push_back(RowToHBase(row));
  return out;
}

std::vector<client::TResult> RowsToHBase(std::vector<Row>&& rows) {
  std::vector<client::TResult> out(rows.size());
  for (size_t i = 0; i < rows.size(); ++i) {
    out[i].row = std::move(rows[i].key);
    out[i].__isset.row = true;
    out[i].__set_columnValues(CellsToHBaseFrom(std::move(rows[i].cells)));
  }
  rows.clear();
  return out;
}

std::vector<client::TResult> OptionalRowsToHBase(
    const std::vector<std::optional<Row>>& in) {
  std::vector<client::TResult> out(in.size());
  for (size_t i = 0; i < in.size(); ++i) {
    if (in[i]) {
      out[i] = RowToHBase(*in[i]);
    } else {
      out[i].__isset.columnValues = true;
    }
  }
  return out;
}

Status RowFromHBase(const client::TResult& in, const std::string& f, Row* out) {
  BLOOMROUTE_RETURN_IF_ERROR(Require(in.__isset.row, kBadResult, f + ".row"));
  out->key = in.row;
  out->cells.clear();
  out->cells.reserve(in.columnValues.size());
  for (size_t i = 0; i < in.columnValues.size(); ++i) {
    const client::TColumnValue& c = in.columnValues[i];
    const std::string cf = At(f + ".columnValues", i);
    BLOOMROUTE_RETURN_IF_ERROR(RequireAll(kBadResult, cf,
                                          {{c.__isset.family, ".family"},
                                           {c.__isset.qualifier, ".qualifier"},
                                           {c.__isset.value, ".value"}}));
    Cell cell{JoinColumn(c.family, c.qualifier), c.value};
    if (c.__isset.timestamp) {
      if (c.timestamp < 0) {
        return Status::Corruption(cf + ".timestamp " +
                                  std::to_string(c.timestamp) + " is negative");
      }
      cell.timestamp = c.timestamp;
    }
    out->cells.push_back(std::move(cell));
  }
  // A reply's cells come in HBase's order (CellsToHBaseFrom); a model row
  // keeps the model's, which Row::Find searches.
  ToModelOrder(&out->cells);
  return Status::OK();
}

Status RowsFromHBase(const std::vector<client::TResult>& in,
                     const std::string& f, std::vector<Row>* out) {
  return RowsFromThrift(in, f, out, &RowFromHBase);
}

Status OptionalRowsFromHBase(const std::vector<client::TResult>& in,
                             const std::string& f,
                             std::vector<std::optional<Row>>* out) {
  return OptionalRowsFromThrift(in, f, out, &RowFromHBase);
}

}  // namespace bloomroute::thrift_internal

namespace bloomroute {
namespace {

namespace client = rpc::client;
using thrift_internal::kBadRequest;
using thrift_internal::Narrow;
using thrift_internal::Widen;

}  // namespace

Status CountFromThrift(int32_t in, const char* field, uint32_t* out) {
  return Narrow(in, kBadRequest, field, out);
}

// ---- Results ----

Status HBaseDescriptorToThrift(const TableDescriptor& in,
                               client::TTableDescriptor* out) {
  *out = client::TTableDescriptor();
  out->__set_tableName(TableNameToThrift(in.name));
  std::map<std::string, std::string> attributes =
      WithIndexAttribute(in).attributes;
  std::map<std::string, FamilySettings> settings;
  auto kept = attributes.find(std::string(kFamilySettingsAttribute));
  if (kept != attributes.end()) {
    StatusOr<std::map<std::string, FamilySettings>> parsed =
        ParseFamilySettings(kept->second);
    if (!parsed.ok()) {
      return parsed.status().WithContext("table " + QuoteForMessage(in.name));
    }
    settings = std::move(*parsed);
    attributes.erase(kept);
  }
  // The declared families; a table that declares none (made by
  // createIndexedTable or the import tool): those of its indexed columns,
  // each once, in order.
  std::vector<std::string> names = in.families;
  if (names.empty()) {
    for (const IndexedColumn& c : in.indexed_columns) {
      std::string family = c.name.substr(0, c.name.find(':'));
      if (std::find(names.begin(), names.end(), family) == names.end()) {
        names.push_back(std::move(family));
      }
    }
  }
  std::vector<client::TColumnFamilyDescriptor> families(names.size());
  for (size_t i = 0; i < names.size(); ++i) {
    families[i] = thrift_internal::FamilyToThrift(names[i], settings[names[i]]);
  }
  out->__set_columns(std::move(families));
  out->__set_attributes(std::move(attributes));
  return Status::OK();
}

Status ToThrift(const router::TableInfo& in,
                std::vector<client::THRegionLocation>* out) {
  out->assign(in.regions.size(), client::THRegionLocation());
  for (size_t i = 0; i < in.regions.size(); ++i) {
    const router::RegionLocation& r = in.regions[i];
    client::THRegionLocation& location = (*out)[i];
    int64_t region_id = 0;
    BLOOMROUTE_RETURN_IF_ERROR(
        Widen(r.region.region_id, "region_id", &region_id));
    location.regionInfo.__set_regionId(region_id);
    location.regionInfo.__set_tableName(in.descriptor.name);
    location.regionInfo.__set_startKey(r.region.start_key);
    location.regionInfo.__set_endKey(r.region.end_key);
    std::string host;
    int port = 0;
    const Status parsed = ParseListenAddress(r.server.address, &host, &port);
    if (!parsed.ok()) {
      return Status::IOError("server " + std::to_string(r.server.id) +
                             " address: " + parsed.message());
    }
    location.serverName.__set_hostName(host);
    location.serverName.__set_port(port);
    location.__isset.regionInfo = true;
    location.__isset.serverName = true;
  }
  return Status::OK();
}

Status ToThrift(const std::vector<std::optional<Row>>& in,
                std::vector<client::TResult>* out) {
  *out = thrift_internal::OptionalRowsToHBase(in);
  return Status::OK();
}

Status ToThrift(const std::vector<Row>& in, std::vector<client::TResult>* out) {
  *out = thrift_internal::RowsToHBase(in);
  return Status::OK();
}

Status ToThrift(std::vector<Row>&& in, std::vector<client::TResult>* out) {
  *out = thrift_internal::RowsToHBase(std::move(in));
  return Status::OK();
}

}  // namespace bloomroute

namespace bloomroute::thrift_internal {

// ---- RouterClient's requests ----

client::TPut PutToThrift(const Mutation& put) {
  return WithCells<client::TPut>(put.row_key, put.cells);
}

client::TDelete DeleteToThrift(const Mutation& del) {
  client::TDelete out;
  out.__set_row(del.row_key);
  out.__set_columns(ProjectionToThrift(del.columns));
  return out;
}

namespace {

client::TTimeRange TimeRangeToThrift(const TimeRange& in) {
  client::TTimeRange range;
  range.__set_minStamp(in.min);
  range.__set_maxStamp(in.max);
  return range;
}

}  // namespace

std::vector<client::TGet> GetsToThrift(const std::vector<GetRequest>& in) {
  std::vector<client::TGet> out(in.size());
  for (size_t i = 0; i < in.size(); ++i) {
    out[i].__set_row(in[i].row_key);
    out[i].__set_columns(ProjectionToThrift(in[i].columns));
    if (!in[i].filter.empty()) out[i].__set_filterString(in[i].filter);
    if (!in[i].time_range.IsAllTime()) {
      out[i].__set_timeRange(TimeRangeToThrift(in[i].time_range));
    }
  }
  return out;
}

client::TScan ScanToThrift(const router::ScanSpec& in) {
  client::TScan out;
  if (in.reversed) {
    // FromThrift's range inverted: each bound is an HBase key's successor
    // (key + 0x00). HBase's reversed bounds cannot say any other range; a
    // bound that is no successor is sent as it is (the row at stop_row
    // would be read, the one at start_row not).
    auto hbase_key = [](const std::string& bound) {
      return !bound.empty() && bound.back() == '\0'
                 ? bound.substr(0, bound.size() - 1)
                 : bound;
    };
    out.__set_reversed(true);
    if (!in.stop_row.empty()) out.__set_startRow(hbase_key(in.stop_row));
    if (!in.start_row.empty()) out.__set_stopRow(hbase_key(in.start_row));
  } else {
    if (!in.start_row.empty()) out.__set_startRow(in.start_row);
    if (!in.stop_row.empty()) out.__set_stopRow(in.stop_row);
  }
  out.__set_columns(ProjectionToThrift(in.columns));
  if (!in.filter.empty()) out.__set_filterString(in.filter);
  if (!in.time_range.IsAllTime()) {
    out.__set_timeRange(TimeRangeToThrift(in.time_range));
  }
  return out;
}

}  // namespace bloomroute::thrift_internal
