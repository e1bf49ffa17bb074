#include "thrift/internal/hbase_rows.h"

#include <utility>

#include "thrift/internal/checked_conversion.h"

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
  BLOOMROUTE_RETURN_IF_ERROR(
      Require(in.__isset.minStamp, kBadRequest, f + ".minStamp"));
  BLOOMROUTE_RETURN_IF_ERROR(
      Require(in.__isset.maxStamp, kBadRequest, f + ".maxStamp"));
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

std::vector<client::TColumnValue> CellsToHBase(const std::vector<Cell>& in) {
  std::vector<client::TColumnValue> out(in.size());
  for (size_t i = 0; i < in.size(); ++i) {
    std::string family;
    std::optional<std::string> qualifier;
    SplitColumn(in[i].column, &family, &qualifier);
    out[i].__set_family(std::move(family));
    out[i].__set_qualifier(qualifier ? std::move(*qualifier) : std::string());
    out[i].__set_value(in[i].value);
    // A returned cell always has one; a cell to write may have none.
    if (in[i].timestamp != kLatestTimestamp) {
      out[i].__set_timestamp(in[i].timestamp);
    }
  }
  return out;
}

client::TResult RowToHBase(const Row& row) {
  client::TResult out;
  out.__set_row(row.key);
  out.__set_columnValues(CellsToHBase(row.cells));
  return out;
}

std::vector<client::TResult> RowsToHBase(const std::vector<Row>& rows) {
  std::vector<client::TResult> out;
  out.reserve(rows.size());
  for (const Row& row : rows) out.push_back(RowToHBase(row));
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
    BLOOMROUTE_RETURN_IF_ERROR(
        Require(c.__isset.family, kBadResult, cf + ".family"));
    BLOOMROUTE_RETURN_IF_ERROR(
        Require(c.__isset.qualifier, kBadResult, cf + ".qualifier"));
    BLOOMROUTE_RETURN_IF_ERROR(
        Require(c.__isset.value, kBadResult, cf + ".value"));
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
