#include "thrift/internal/region_timestamp_conversion.h"

#include "thrift/internal/checked_conversion.h"
#include "thrift/internal/enum_map.h"

namespace bloomroute::thrift_internal {
namespace {

constexpr EnumMap<DeleteSpec::Kind, 3> kDeleteKinds(
    {{{DeleteSpec::Kind::kColumn, rpc::TDeleteSpecType::DELETE_COLUMN},
      {DeleteSpec::Kind::kColumns, rpc::TDeleteSpecType::DELETE_COLUMNS},
      {DeleteSpec::Kind::kFamily, rpc::TDeleteSpecType::DELETE_FAMILY}}},
    "{field} has no such value ({value})");

// A timestamp a client sent: unset = kLatestTimestamp ("now"). `field()`
// names it, called only for an error: the loops over cells below ran it
// for every cell, three strings allocated each, about a fifth of the
// allocations of a 1,000-row lookup.
template <typename FieldFn>
Status RequestTimestamp(bool isset, int64_t in, const FieldFn& field,
                        int64_t* out) {
  *out = kLatestTimestamp;
  if (!isset) return Status::OK();
  if (in < 0) {
    return Status::InvalidArgument(field() + " is negative (" +
                                   std::to_string(in) + ")");
  }
  *out = in;
  return Status::OK();
}
Status RequestTimestamp(bool isset, int64_t in, const std::string& f,
                        int64_t* out) {
  return RequestTimestamp(
      isset, in, [&] { return f; }, out);
}

Status DeleteSpecFromThrift(const rpc::TDeleteSpec& in, const std::string& f,
                            DeleteSpec* out) {
  BLOOMROUTE_RETURN_IF_ERROR(
      RequireAll(kBadRequest, f,
                 {{in.__isset.type, ".type"}, {in.__isset.column, ".column"}}));
  // An i32 on the wire: any value may arrive.
  BLOOMROUTE_ASSIGN_OR_RETURN(
      out->kind, kDeleteKinds.FromThrift(in.type, kBadRequest, f + ".type"));
  out->column = in.column;
  return RequestTimestamp(in.__isset.timestamp, in.timestamp, f + ".timestamp",
                          &out->timestamp);
}

// A timestamp a server sent: unset (an older server) = 0. `field()` as
// RequestTimestamp's.
template <typename FieldFn>
Status ResultTimestamp(const rpc::TColumnValue& in, const FieldFn& field,
                       int64_t* out) {
  *out = 0;
  if (!in.__isset.timestamp) return Status::OK();
  if (in.timestamp < 0 || in.timestamp == kLatestTimestamp) {
    return Status::Corruption(field() + " is " + std::to_string(in.timestamp));
  }
  *out = in.timestamp;
  return Status::OK();
}

void RowTimestampsToThrift(const Row& row, rpc::TResult* out) {
  for (size_t i = 0; i < row.cells.size() && i < out->columnValues.size();
       ++i) {
    out->columnValues[i].__set_timestamp(row.cells[i].timestamp);
  }
}

Status RowTimestampsFromThrift(const rpc::TResult& in, const std::string& f,
                               Row* row) {
  for (size_t i = 0; i < row->cells.size() && i < in.columnValues.size(); ++i) {
    BLOOMROUTE_RETURN_IF_ERROR(ResultTimestamp(
        in.columnValues[i],
        [&] { return At(f + ".columnValues", i) + ".timestamp"; },
        &row->cells[i].timestamp));
  }
  return Status::OK();
}

}  // namespace

Status CellTimestampsFromThrift(const std::vector<rpc::TColumnValue>& in,
                                const std::string& f,
                                std::vector<Cell>* cells) {
  for (size_t i = 0; i < in.size() && i < cells->size(); ++i) {
    BLOOMROUTE_RETURN_IF_ERROR(RequestTimestamp(
        in[i].__isset.timestamp, in[i].timestamp,
        [&] { return At(f, i) + ".timestamp"; }, &(*cells)[i].timestamp));
  }
  return Status::OK();
}

Status MutationTimestampsFromThrift(const rpc::TMutation& in,
                                    const std::string& f, Mutation* out) {
  BLOOMROUTE_RETURN_IF_ERROR(RequestTimestamp(
      in.__isset.timestamp, in.timestamp, f + ".timestamp", &out->timestamp));
  out->deletes.clear();
  if (!in.__isset.deleteSpecs || in.deleteSpecs.empty()) return Status::OK();
  if (out->kind != Mutation::Kind::kDelete) {
    return Status::InvalidArgument(f + " is not a DELETE but has deleteSpecs");
  }
  out->deletes.resize(in.deleteSpecs.size());
  for (size_t i = 0; i < in.deleteSpecs.size(); ++i) {
    BLOOMROUTE_RETURN_IF_ERROR(DeleteSpecFromThrift(
        in.deleteSpecs[i], At(f + ".deleteSpecs", i), &out->deletes[i]));
  }
  return Status::OK();
}

Status TimeRangeFromThrift(bool isset, const rpc::TTimeRange& in,
                           const std::string& f, TimeRange* out) {
  *out = TimeRange();
  if (!isset) return Status::OK();
  BLOOMROUTE_RETURN_IF_ERROR(RequireAll(kBadRequest, f,
                                        {{in.__isset.minStamp, ".minStamp"},
                                         {in.__isset.maxStamp, ".maxStamp"}}));
  if (in.minStamp < 0) {
    return Status::InvalidArgument(f + ".minStamp is negative (" +
                                   std::to_string(in.minStamp) + ")");
  }
  if (in.maxStamp < in.minStamp) {
    return Status::InvalidArgument(
        f + ".maxStamp (" + std::to_string(in.maxStamp) +
        ") is below minStamp (" + std::to_string(in.minStamp) + ")");
  }
  *out = TimeRange{in.minStamp, in.maxStamp};
  return Status::OK();
}

void CellTimestampsToThrift(const std::vector<Cell>& cells,
                            std::vector<rpc::TColumnValue>* out) {
  for (size_t i = 0; i < cells.size() && i < out->size(); ++i) {
    if (cells[i].timestamp != kLatestTimestamp) {
      (*out)[i].__set_timestamp(cells[i].timestamp);
    }
  }
}

void MutationTimestampsToThrift(const Mutation& in, rpc::TMutation* out) {
  if (in.timestamp != kLatestTimestamp) out->__set_timestamp(in.timestamp);
  if (in.deletes.empty()) return;
  std::vector<rpc::TDeleteSpec> specs(in.deletes.size());
  for (size_t i = 0; i < in.deletes.size(); ++i) {
    const DeleteSpec& d = in.deletes[i];
    specs[i].__set_type(kDeleteKinds.ToThrift(d.kind));
    specs[i].__set_column(d.column);
    if (d.timestamp != kLatestTimestamp) specs[i].__set_timestamp(d.timestamp);
  }
  out->__set_deleteSpecs(std::move(specs));
}

std::optional<rpc::TTimeRange> TimeRangeToThrift(const TimeRange& in) {
  if (in.IsAllTime()) return std::nullopt;
  rpc::TTimeRange out;
  out.__set_minStamp(in.min);
  out.__set_maxStamp(in.max);
  return out;
}

void MoveResultRowsToThrift(std::vector<Row>&& rows,
                            std::vector<rpc::TResult>* out) {
  out->assign(rows.size(), rpc::TResult());
  for (size_t i = 0; i < rows.size(); ++i) {
    Row& row = rows[i];
    rpc::TResult& result = (*out)[i];
    result.row = std::move(row.key);
    result.__isset.row = true;
    result.columnValues.resize(row.cells.size());
    for (size_t j = 0; j < row.cells.size(); ++j) {
      rpc::TColumnValue& cell = result.columnValues[j];
      cell.column = std::move(row.cells[j].column);
      cell.value = std::move(row.cells[j].value);
      cell.__isset.column = cell.__isset.value = true;
      cell.__set_timestamp(row.cells[j].timestamp);
    }
    result.__isset.columnValues = true;
  }
  rows.clear();
}

void ResultTimestampsToThrift(const std::vector<std::optional<Row>>& rows,
                              std::vector<rpc::TResult>* out) {
  for (size_t i = 0; i < rows.size() && i < out->size(); ++i) {
    if (rows[i]) RowTimestampsToThrift(*rows[i], &(*out)[i]);
  }
}

Status ResultCellTimestampsFromThrift(const std::vector<rpc::TColumnValue>& in,
                                      const std::string& f,
                                      std::vector<Cell>* cells) {
  for (size_t i = 0; i < in.size() && i < cells->size(); ++i) {
    BLOOMROUTE_RETURN_IF_ERROR(ResultTimestamp(
        in[i], [&] { return At(f, i) + ".timestamp"; },
        &(*cells)[i].timestamp));
  }
  return Status::OK();
}

Status ResultTimestampsFromThrift(const std::vector<rpc::TResult>& in,
                                  const std::string& f,
                                  std::vector<Row>* rows) {
  for (size_t i = 0; i < in.size() && i < rows->size(); ++i) {
    BLOOMROUTE_RETURN_IF_ERROR(
        RowTimestampsFromThrift(in[i], At(f, i), &(*rows)[i]));
  }
  return Status::OK();
}

Status ResultTimestampsFromThrift(const std::vector<rpc::TResult>& in,
                                  const std::string& f,
                                  std::vector<std::optional<Row>>* rows) {
  for (size_t i = 0; i < in.size() && i < rows->size(); ++i) {
    if ((*rows)[i]) {
      BLOOMROUTE_RETURN_IF_ERROR(
          RowTimestampsFromThrift(in[i], At(f, i), &*(*rows)[i]));
    }
  }
  return Status::OK();
}

}  // namespace bloomroute::thrift_internal
