// Table descriptors and the index lifecycle calls on the wire (declared in
// thrift/conversion/region_conversion.h).
#include <utility>
#include <vector>

#include "model/table_attributes.h"
#include "thrift/conversion/region_conversion.h"

namespace bloomroute {

using thrift_internal::At;
using thrift_internal::FailFn;
using thrift_internal::kBadResult;
using thrift_internal::Narrow;
using thrift_internal::Require;
using thrift_internal::RequireAll;
using thrift_internal::Widen;

Status TableFromThrift(const rpc::TTableDescriptor& in, FailFn fail,
                       const std::string& f, TableDescriptor* out) {
  BLOOMROUTE_RETURN_IF_ERROR(RequireAll(
      fail, f, {{in.__isset.tableId, ".tableId"}, {in.__isset.name, ".name"}}));
  BLOOMROUTE_RETURN_IF_ERROR(
      Narrow(in.tableId, fail, f + ".tableId", &out->table_id));
  out->name = in.name;
  out->indexed_columns.clear();
  for (size_t i = 0; i < in.indexedColumns.size(); ++i) {
    const rpc::TIndexedColumn& c = in.indexedColumns[i];
    const std::string cf = At(f + ".indexedColumns", i);
    IndexedColumn column;
    BLOOMROUTE_RETURN_IF_ERROR(RequireAll(
        fail, cf,
        {{c.__isset.columnId, ".columnId"}, {c.__isset.name, ".name"}}));
    BLOOMROUTE_RETURN_IF_ERROR(
        Narrow(c.columnId, fail, cf + ".columnId", &column.column_id));
    column.name = c.name;
    column.building = c.__isset.building && c.building;
    out->indexed_columns.push_back(std::move(column));
  }
  out->families.clear();
  if (in.__isset.families) {
    Status families = ValidateFamilies(in.families);
    if (!families.ok()) return fail(f + ".families: " + families.message());
    out->families = in.families;
  }
  return Status::OK();
}

Status TableToThrift(const TableDescriptor& in, rpc::TTableDescriptor* out) {
  int64_t table_id = 0;
  BLOOMROUTE_RETURN_IF_ERROR(Widen(in.table_id, "table_id", &table_id));
  out->__set_tableId(table_id);
  out->__set_name(in.name);
  std::vector<rpc::TIndexedColumn> columns;
  for (const IndexedColumn& c : in.indexed_columns) {
    rpc::TIndexedColumn column;
    int32_t id = 0;
    BLOOMROUTE_RETURN_IF_ERROR(Widen(c.column_id, "column_id", &id));
    column.__set_columnId(id);
    column.__set_name(c.name);
    // Only when set: a server of an earlier version reads the rest as
    // before (and never sees a building column: the router adds none
    // without it).
    if (c.building) column.__set_building(true);
    columns.push_back(std::move(column));
  }
  out->__set_indexedColumns(std::move(columns));
  // Only when there are some: a server of an earlier version reads the
  // rest as before (and checks no family, as it did).
  if (!in.families.empty()) out->__set_families(in.families);
  return Status::OK();
}

Status ToThrift(const IndexChunkResult& in, rpc::TIndexChunkResult* out) {
  rpc::TWriteResult write;
  BLOOMROUTE_RETURN_IF_ERROR(ToThrift(in.write, &write));
  out->__set_written(std::move(write));
  int64_t rows = 0;
  int64_t entries = 0;
  BLOOMROUTE_RETURN_IF_ERROR(Widen(in.rows, "rows", &rows));
  BLOOMROUTE_RETURN_IF_ERROR(Widen(in.entries, "entries", &entries));
  out->__set_rows(rows);
  out->__set_entries(entries);
  out->__set_done(in.done);
  out->__set_resumeAfter(in.resume_after);
  return Status::OK();
}

Status FromThrift(const rpc::TIndexChunkResult& in, IndexChunkResult* out) {
  BLOOMROUTE_RETURN_IF_ERROR(
      Require(in.__isset.written, kBadResult, "result.written"));
  BLOOMROUTE_RETURN_IF_ERROR(FromThrift(in.written, &out->write));
  BLOOMROUTE_RETURN_IF_ERROR(
      Narrow(in.rows, kBadResult, "result.rows", &out->rows));
  BLOOMROUTE_RETURN_IF_ERROR(
      Narrow(in.entries, kBadResult, "result.entries", &out->entries));
  out->done = in.done;
  // Untrusted: a resume row is a row key (the router also checks that a
  // backfill moves on).
  if (in.resumeAfter.size() > kMaxRowKeyBytes) {
    return Status::Corruption("result.resumeAfter is not a row key");
  }
  out->resume_after = in.resumeAfter;
  return Status::OK();
}

}  // namespace bloomroute
