// TCompactRows (index_service.thrift), the rows of a lookup asked for with
// TIndexQuery.compactRows, both ways (declared in
// thrift/conversion/index_conversion.h).
//
// Why: a 63-row lookup of 19 columns is ~1,200 TColumnValue structs, and
// Python's generated code (the C-accelerated protocol included) builds an
// object for each: decoding the reply of `country_code = 'US'`'s first
// 1,000 rows (871 KB) took 24 ms of the lookup's 65 ms at the client
// (`make compare`'s table and client, one run on a loaded machine). Compact
// rows name each column once and make a cell a number, a value and a
// timestamp in three lists per row.
#include <string>
#include <string_view>
#include <unordered_map>
#include <utility>
#include <vector>

#include "model/cell_order.h"
#include "router/router_options.h"
#include "thrift/conversion/hbase_conversion.h"
#include "thrift/conversion/index_conversion.h"
#include "thrift/internal/checked_conversion.h"

namespace bloomroute {

namespace client = rpc::client;

namespace {

// The number of `column` in `out`, added when it is new.
int32_t ColumnNumber(const std::string& column,
                     std::unordered_map<std::string_view, int32_t>* numbers,
                     client::TCompactRows* out) {
  auto [it, added] = numbers->try_emplace(column, 0);
  if (added) {
    it->second = static_cast<int32_t>(out->families.size());
    const size_t colon = column.find(':');
    out->families.push_back(column.substr(0, colon));
    out->qualifiers.push_back(
        colon == std::string::npos ? std::string() : column.substr(colon + 1));
  }
  return it->second;
}

}  // namespace

client::TCompactRows CompactRowsToThrift(std::vector<Row>&& rows) {
  client::TCompactRows out;
  // Keys view the rows' columns, which stay put (only values move).
  std::unordered_map<std::string_view, int32_t> numbers;
  out.rows.resize(rows.size());
  const Row* previous = nullptr;
  std::vector<int32_t> previous_numbers;
  for (size_t r = 0; r < rows.size(); ++r) {
    Row& row = rows[r];
    if (!InHBaseOrder(row.cells)) ToHBaseOrder(&row.cells);
    client::TCompactRow& to = out.rows[r];
    to.row = std::move(row.key);
    const size_t n = row.cells.size();
    to.columns.reserve(n);
    to.values.reserve(n);
    to.timestamps.reserve(n);
    for (size_t i = 0; i < n; ++i) {
      Cell& cell = row.cells[i];
      // Rows of one answer mostly have the same columns: the previous row's
      // number at the same place saves the hash lookup.
      const bool same = previous != nullptr && i < previous->cells.size() &&
                        previous->cells[i].column == cell.column;
      to.columns.push_back(same ? previous_numbers[i]
                                : ColumnNumber(cell.column, &numbers, &out));
      to.values.push_back(std::move(cell.value));
      to.timestamps.push_back(cell.timestamp);
    }
    to.__isset.row = to.__isset.columns = true;
    to.__isset.values = to.__isset.timestamps = true;
    previous = &row;
    previous_numbers = to.columns;
  }
  out.__isset.families = out.__isset.qualifiers = out.__isset.rows = true;
  return out;
}

namespace {

// The answer's columns, "family:qualifier", by number: Corruption for
// lists of different lengths or a name over kMaxColumnNameBytes.
Status CompactColumns(const client::TCompactRows& in, const std::string& f,
                      std::vector<std::string>* columns) {
  if (in.families.size() != in.qualifiers.size()) {
    return Status::Corruption(f + ".families and " + f +
                              ".qualifiers differ in length");
  }
  columns->reserve(in.families.size());
  for (size_t c = 0; c < in.families.size(); ++c) {
    columns->push_back(
        thrift_internal::JoinColumn(in.families[c], in.qualifiers[c]));
    if (columns->back().size() > kMaxColumnNameBytes) {
      return Status::Corruption(thrift_internal::At(f + ".families", c) +
                                " and its qualifier are longer than " +
                                std::to_string(kMaxColumnNameBytes) + " bytes");
    }
  }
  return Status::OK();
}

}  // namespace

Status CompactRowsFromThrift(const client::TCompactRows& in,
                             const std::string& f, std::vector<Row>* out) {
  using thrift_internal::At;
  std::vector<std::string> columns;
  BLOOMROUTE_RETURN_IF_ERROR(CompactColumns(in, f, &columns));
  // A name sent once is copied into every cell of it: the rows must not
  // grow past what a router may answer (a hostile reply of a million cells
  // naming a 1 KiB column would otherwise take a GiB from 16 MB).
  uint64_t bytes = 0;
  const uint64_t max_bytes = router::RouterOptions::kMaxReplyBytes;
  out->assign(in.rows.size(), Row());
  for (size_t r = 0; r < in.rows.size(); ++r) {
    const client::TCompactRow& row = in.rows[r];
    const std::string rf = At(f + ".rows", r);
    if (!row.__isset.row) return Status::Corruption(rf + ".row is missing");
    const size_t n = row.columns.size();
    if (row.values.size() != n || row.timestamps.size() != n) {
      return Status::Corruption(rf + ".columns, values and timestamps " +
                                "differ in length");
    }
    Row& to = (*out)[r];
    to.key = row.row;
    bytes += row.row.size();
    to.cells.reserve(n);
    for (size_t i = 0; i < n; ++i) {
      const int32_t c = row.columns[i];
      if (c < 0 || static_cast<size_t>(c) >= columns.size()) {
        return Status::Corruption(At(rf + ".columns", i) + " " +
                                  std::to_string(c) + " names no column");
      }
      if (row.timestamps[i] < 0) {
        return Status::Corruption(At(rf + ".timestamps", i) + " " +
                                  std::to_string(row.timestamps[i]) +
                                  " is negative");
      }
      bytes += columns[c].size() + row.values[i].size();
      if (bytes > max_bytes) {
        return Status::Corruption(f + " holds more than " +
                                  std::to_string(max_bytes) +
                                  " bytes of cells");
      }
      to.cells.push_back(Cell{columns[c], row.values[i], row.timestamps[i]});
    }
    // The cells come in HBase's order; a model row keeps the model's.
    ToModelOrder(&to.cells);
  }
  return Status::OK();
}

}  // namespace bloomroute
