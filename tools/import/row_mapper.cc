#include "tools/import/row_mapper.h"

#include <algorithm>
#include <set>
#include <utility>

namespace bloomroute {
namespace {

Status ValidateColumns(const RowMapperSpec& spec,
                       std::vector<std::string>* column_names) {
  if (spec.columns.empty()) return Status::InvalidArgument("no columns");
  std::set<std::string> seen;
  for (const std::string& name : spec.columns) {
    if (name.empty()) return Status::InvalidArgument("a column name is empty");
    if (!seen.insert(name).second) {
      return Status::InvalidArgument("column " + QuoteForMessage(name) +
                                     " is named twice");
    }
    std::string column = spec.family + ":" + name;
    BLOOMROUTE_RETURN_IF_ERROR(ValidateColumnName(column));
    column_names->push_back(std::move(column));
  }
  return Status::OK();
}

Status ValidateIndexed(const RowMapperSpec& spec) {
  std::set<std::string> seen;
  for (const std::string& name : spec.indexed) {
    if (std::find(spec.columns.begin(), spec.columns.end(), name) ==
        spec.columns.end()) {
      return Status::InvalidArgument("indexed column " + QuoteForMessage(name) +
                                     " is not a column of the file");
    }
    if (name == spec.row_key) {
      return Status::InvalidArgument(
          "the row key " + QuoteForMessage(name) +
          " cannot be indexed (it is not stored as a column)");
    }
    if (!seen.insert(name).second) {
      return Status::InvalidArgument("indexed column " + QuoteForMessage(name) +
                                     " is named twice");
    }
  }
  return Status::OK();
}

}  // namespace

RowMapper::RowMapper(RowMapperSpec spec, size_t row_key_field,
                     std::vector<std::string> column_names)
    : spec_(std::move(spec)),
      row_key_field_(row_key_field),
      column_names_(std::move(column_names)) {}

StatusOr<RowMapper> RowMapper::Create(RowMapperSpec spec) {
  if (spec.family.empty() || spec.family.find(':') != std::string::npos) {
    return Status::InvalidArgument("family " + QuoteForMessage(spec.family) +
                                   " must be non-empty without ':'");
  }
  if (spec.max_value_bytes == 0) {
    return Status::InvalidArgument("the value limit must be positive");
  }
  std::vector<std::string> column_names;
  BLOOMROUTE_RETURN_IF_ERROR(ValidateColumns(spec, &column_names));
  const auto key =
      std::find(spec.columns.begin(), spec.columns.end(), spec.row_key);
  if (key == spec.columns.end()) {
    return Status::InvalidArgument("row key " + QuoteForMessage(spec.row_key) +
                                   " is not a column of the file");
  }
  if (spec.columns.size() < 2) {
    return Status::InvalidArgument("no column besides the row key");
  }
  BLOOMROUTE_RETURN_IF_ERROR(ValidateIndexed(spec));
  const size_t row_key_field = static_cast<size_t>(key - spec.columns.begin());
  return RowMapper(std::move(spec), row_key_field, std::move(column_names));
}

StatusOr<Mutation> RowMapper::Map(std::vector<std::string> fields) const {
  if (fields.size() != column_names_.size()) {
    return Status::InvalidArgument(std::to_string(fields.size()) +
                                   " fields, expected " +
                                   std::to_string(column_names_.size()));
  }
  std::string& key = fields[row_key_field_];
  if (key.empty()) return Status::InvalidArgument("empty row key");
  if (key.size() > kMaxRowKeyBytes) {
    return Status::InvalidArgument("row key of " + std::to_string(key.size()) +
                                   " bytes, over " +
                                   std::to_string(kMaxRowKeyBytes));
  }
  std::vector<Cell> cells;
  cells.reserve(fields.size() - 1);
  for (size_t i = 0; i < fields.size(); ++i) {
    if (i == row_key_field_ || fields[i].empty()) continue;
    if (fields[i].size() > spec_.max_value_bytes) {
      return Status::InvalidArgument(
          "value of " + QuoteForMessage(spec_.columns[i]) + " is " +
          std::to_string(fields[i].size()) + " bytes, over " +
          std::to_string(spec_.max_value_bytes));
    }
    cells.push_back(Cell{column_names_[i], std::move(fields[i])});
  }
  if (cells.empty()) {
    return Status::InvalidArgument("no value besides the row key");
  }
  return Mutation::Put(0, std::move(key), std::move(cells));
}

std::vector<std::string> RowMapper::IndexedColumns() const {
  std::vector<std::string> out;
  for (const std::string& name : spec_.indexed) {
    out.push_back(spec_.family + ":" + name);
  }
  return out;
}

}  // namespace bloomroute
