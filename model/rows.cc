#include "model/rows.h"

#include <algorithm>
#include <ostream>
#include <set>

namespace bloomroute {

const IndexedColumn* TableDescriptor::FindIndexed(
    std::string_view column) const {
  for (const auto& c : indexed_columns) {
    if (c.name == column) return &c;
  }
  return nullptr;
}

const Cell* Row::Find(std::string_view column) const {
  auto it = std::lower_bound(
      cells.begin(), cells.end(), column,
      [](const Cell& c, std::string_view col) { return c.column < col; });
  return it != cells.end() && it->column == column ? &*it : nullptr;
}

namespace {

Mutation Of(Mutation::Kind kind, uint64_t region, std::string row) {
  Mutation m;
  m.kind = kind;
  m.region_id = region;
  m.row_key = std::move(row);
  return m;
}

}  // namespace

Mutation Mutation::Put(uint64_t region, std::string row,
                       std::vector<Cell> cells) {
  Mutation m = Of(Kind::kPut, region, std::move(row));
  m.cells = std::move(cells);
  return m;
}

Mutation Mutation::Delete(uint64_t region, std::string row,
                          std::vector<std::string> columns) {
  Mutation m = Of(Kind::kDelete, region, std::move(row));
  m.columns = std::move(columns);
  return m;
}

Mutation Mutation::Increment(uint64_t region, std::string row,
                             std::vector<ColumnIncrement> increments) {
  Mutation m = Of(Kind::kIncrement, region, std::move(row));
  m.increments = std::move(increments);
  return m;
}

Mutation Mutation::Append(uint64_t region, std::string row,
                          std::vector<Cell> cells) {
  Mutation m = Of(Kind::kAppend, region, std::move(row));
  m.cells = std::move(cells);
  return m;
}

std::string QuoteForMessage(std::string_view s) {
  // Names may hold any bytes; keep messages printable and short.
  std::string out = "'";
  for (char c : s.substr(0, 64)) {
    out += (c >= 0x20 && c < 0x7f) ? c : '?';
  }
  if (s.size() > 64) out += "...";
  return out + "'";
}

std::ostream& operator<<(std::ostream& os, const Cell& cell) {
  os << QuoteForMessage(cell.column) << '=' << QuoteForMessage(cell.value);
  if (cell.timestamp == kLatestTimestamp) return os << "@now";
  return os << '@' << cell.timestamp;
}

std::ostream& operator<<(std::ostream& os, const Row& row) {
  os << QuoteForMessage(row.key) << ": {";
  for (size_t i = 0; i < row.cells.size(); ++i) {
    os << (i == 0 ? "" : ", ") << row.cells[i];
  }
  return os << '}';
}

Status ValidateColumnName(std::string_view column) {
  const size_t colon = column.find(':');
  if (colon == std::string_view::npos || colon == 0) {
    return Status::InvalidArgument("column " + QuoteForMessage(column) +
                                   " is not family:qualifier");
  }
  if (column.size() > kMaxColumnNameBytes) {
    return Status::InvalidArgument(
        "column name of " + std::to_string(column.size()) + " bytes exceeds " +
        std::to_string(kMaxColumnNameBytes));
  }
  return Status::OK();
}

Status ValidateProjection(const Projection& columns) {
  for (const auto& c : columns) {
    if (c.empty() || c.size() > kMaxColumnNameBytes) {
      return Status::InvalidArgument("projected column " + QuoteForMessage(c) +
                                     " is empty or too long");
    }
    if (c.find(':') != std::string::npos) {
      BLOOMROUTE_RETURN_IF_ERROR(ValidateColumnName(c));
    }
  }
  return Status::OK();
}

Status ValidateTimestamp(int64_t ts, std::string_view field) {
  if (ts < 0) {
    return Status::InvalidArgument(std::string(field) + " " +
                                   std::to_string(ts) + " is negative");
  }
  return Status::OK();
}

Status ValidateDeleteSpec(const DeleteSpec& spec) {
  switch (spec.kind) {
    case DeleteSpec::Kind::kColumn:
    case DeleteSpec::Kind::kColumns:
      BLOOMROUTE_RETURN_IF_ERROR(ValidateColumnName(spec.column));
      break;
    case DeleteSpec::Kind::kFamily:
      if (spec.column.empty() || spec.column.size() > kMaxColumnNameBytes ||
          spec.column.find(':') != std::string::npos) {
        return Status::InvalidArgument("family " +
                                       QuoteForMessage(spec.column) +
                                       " of a family delete is not a family");
      }
      break;
    default:
      return Status::InvalidArgument(
          "delete kind " + std::to_string(static_cast<int>(spec.kind)) +
          " is not one of column, columns, family");
  }
  return ValidateTimestamp(spec.timestamp, "timestamp of the delete of " +
                                               QuoteForMessage(spec.column));
}

Status ValidateTimeRange(const TimeRange& range) {
  BLOOMROUTE_RETURN_IF_ERROR(ValidateTimestamp(range.min, "time range min"));
  if (range.max < range.min) {
    return Status::InvalidArgument(
        "time range max " + std::to_string(range.max) + " is below its min " +
        std::to_string(range.min));
  }
  return Status::OK();
}

std::vector<Cell> CellsInRange(std::vector<Cell> cells,
                               const TimeRange& range) {
  if (range.IsAllTime()) return cells;
  cells.erase(std::remove_if(
                  cells.begin(), cells.end(),
                  [&](const Cell& c) { return !range.Contains(c.timestamp); }),
              cells.end());
  return cells;
}

Status ValidateTable(const TableDescriptor& table) {
  if (table.name.empty()) {
    return Status::InvalidArgument("table name is empty");
  }
  std::set<uint32_t> ids;
  std::set<std::string> names;
  for (const auto& c : table.indexed_columns) {
    BLOOMROUTE_RETURN_IF_ERROR(ValidateColumnName(c.name));
    if (!ids.insert(c.column_id).second) {
      return Status::InvalidArgument("table " + QuoteForMessage(table.name) +
                                     " repeats indexed column id " +
                                     std::to_string(c.column_id));
    }
    if (!names.insert(c.name).second) {
      return Status::InvalidArgument("table " + QuoteForMessage(table.name) +
                                     " repeats indexed column " +
                                     QuoteForMessage(c.name));
    }
  }
  return Status::OK();
}

Status ValidateRegion(const RegionDescriptor& region) {
  BLOOMROUTE_RETURN_IF_ERROR(ValidateTable(region.table));
  if (!region.end_key.empty() && region.start_key >= region.end_key) {
    return Status::InvalidArgument("region " +
                                   std::to_string(region.region_id) +
                                   " has start key >= end key");
  }
  if (region.start_key.size() > kMaxRowKeyBytes ||
      region.end_key.size() > kMaxRowKeyBytes) {
    return Status::InvalidArgument("region key longer than " +
                                   std::to_string(kMaxRowKeyBytes));
  }
  return Status::OK();
}

bool Selected(const Projection& columns, std::string_view column) {
  if (columns.empty()) return true;
  const std::string_view family = column.substr(0, column.find(':'));
  for (const auto& c : columns) {
    if (c == column || c == family) return true;
  }
  return false;
}

size_t ReplyBytes(const Row& row) {
  size_t n = row.key.size() + kReplyBytesPerCell;
  for (const Cell& c : row.cells) {
    n += c.column.size() + c.value.size() + kReplyBytesPerCell;
  }
  return n;
}

}  // namespace bloomroute
