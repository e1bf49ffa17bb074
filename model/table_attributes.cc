#include "model/table_attributes.h"

#include <set>
#include <utility>

#include "common/coding.h"

namespace bloomroute {
namespace {

std::string_view Trim(std::string_view s) {
  while (!s.empty() && s.front() == ' ') s.remove_prefix(1);
  while (!s.empty() && s.back() == ' ') s.remove_suffix(1);
  return s;
}

std::string Entry(size_t i) { return "entry " + std::to_string(i + 1); }

Status CheckIndexEntry(std::string_view column, size_t i) {
  if (column.empty()) {
    return Status::InvalidArgument(std::string(kIndexAttribute) + ": " +
                                   Entry(i) + " is empty");
  }
  const Status valid = ValidateColumnName(column);
  if (column.find(':') == std::string_view::npos || !valid.ok()) {
    return Status::InvalidArgument(
        std::string(kIndexAttribute) + ": " + Entry(i) + " " +
        QuoteForMessage(column) + " is not a column name family:qualifier" +
        (valid.ok() ? "" : " (" + valid.message() + ")"));
  }
  return Status::OK();
}

// Family settings: written in version 1.
constexpr uint8_t kFamilySettingsVersion = 1;

void PutStringMap(const std::map<std::string, std::string>& map,
                  std::string* out) {
  PutFixed32(out, static_cast<uint32_t>(map.size()));
  for (const auto& [k, v] : map) {
    PutLengthPrefixed(out, k);
    PutLengthPrefixed(out, v);
  }
}

// A count of entries of at least `min_bytes` each, bounded by the input.
Status ReadCount(ByteReader* r, uint32_t min_bytes, const char* what,
                 uint32_t* n) {
  BLOOMROUTE_RETURN_IF_ERROR(r->ReadFixed32(n, what));
  if (*n > r->remaining() / min_bytes) {
    return Status::Corruption(std::string("family settings: ") + what);
  }
  return Status::OK();
}

Status ReadStringMap(ByteReader* r, const char* what,
                     std::map<std::string, std::string>* out) {
  uint32_t n = 0;
  BLOOMROUTE_RETURN_IF_ERROR(ReadCount(r, 8, what, &n));
  for (uint32_t i = 0; i < n; ++i) {
    std::string_view k, v;
    BLOOMROUTE_RETURN_IF_ERROR(r->ReadLengthPrefixed(&k, what));
    BLOOMROUTE_RETURN_IF_ERROR(r->ReadLengthPrefixed(&v, what));
    if (!out->emplace(k, v).second) {
      return Status::Corruption(std::string("family settings: ") + what +
                                " named twice");
    }
  }
  return Status::OK();
}

Status ReadFamily(ByteReader* r, FamilySettings* out) {
  uint32_t n = 0;
  BLOOMROUTE_RETURN_IF_ERROR(ReadCount(r, 12, "settings", &n));
  for (uint32_t i = 0; i < n; ++i) {
    std::string_view name;
    uint64_t value = 0;
    BLOOMROUTE_RETURN_IF_ERROR(r->ReadLengthPrefixed(&name, "setting"));
    BLOOMROUTE_RETURN_IF_ERROR(r->ReadFixed64(&value, "setting value"));
    if (!out->settings.emplace(name, static_cast<int64_t>(value)).second) {
      return Status::Corruption("family settings: a setting named twice");
    }
  }
  BLOOMROUTE_RETURN_IF_ERROR(ReadStringMap(r, "attributes", &out->attributes));
  return ReadStringMap(r, "configuration", &out->configuration);
}

std::string_view FamilyOf(std::string_view column) {
  const size_t colon = column.find(':');
  return colon == std::string_view::npos ? column : column.substr(0, colon);
}

}  // namespace

StatusOr<std::vector<std::string>> ParseIndexAttribute(std::string_view value) {
  const std::string name(kIndexAttribute);
  if (value.size() > kMaxIndexAttributeBytes) {
    return Status::InvalidArgument(
        name + " takes " + std::to_string(value.size()) +
        " bytes, over the limit of " + std::to_string(kMaxIndexAttributeBytes));
  }
  if (Trim(value).empty()) {
    return Status::InvalidArgument(
        name + " is empty; leave the attribute out to index no column");
  }
  std::vector<std::string> columns;
  std::set<std::string_view> seen;
  uint64_t bytes = 0;
  size_t start = 0;
  for (size_t i = 0;; ++i) {
    const size_t comma = value.find(',', start);
    const std::string_view column = Trim(value.substr(
        start, comma == std::string_view::npos ? value.npos : comma - start));
    BLOOMROUTE_RETURN_IF_ERROR(CheckIndexEntry(column, i));
    if (!seen.insert(column).second) {
      return Status::InvalidArgument(
          name + ": column " + QuoteForMessage(column) + " is named twice");
    }
    bytes += column.size();
    columns.emplace_back(column);
    if (comma == std::string_view::npos) break;
    start = comma + 1;
  }
  if (columns.size() > kMaxIndexedColumnsPerTable) {
    return Status::InvalidArgument(name + ": a table has at most " +
                                   std::to_string(kMaxIndexedColumnsPerTable) +
                                   " indexed columns");
  }
  if (bytes > kMaxIndexedColumnBytesPerTable) {
    return Status::InvalidArgument(
        name + ": the column names take " + std::to_string(bytes) +
        " bytes, over the limit of " +
        std::to_string(kMaxIndexedColumnBytesPerTable));
  }
  return columns;
}

std::string FormatIndexAttribute(const std::vector<std::string>& columns) {
  std::string out;
  for (const std::string& c : columns) {
    if (!out.empty()) out += ',';
    out += c;
  }
  return out;
}

Status ValidateFamilies(const std::vector<std::string>& families) {
  if (families.size() > kMaxFamilies) {
    return Status::InvalidArgument("a table has at most " +
                                   std::to_string(kMaxFamilies) +
                                   " column families");
  }
  std::set<std::string_view> seen;
  uint64_t bytes = 0;
  for (size_t i = 0; i < families.size(); ++i) {
    const std::string& f = families[i];
    if (f.empty()) {
      return Status::InvalidArgument("column family " + std::to_string(i + 1) +
                                     " is empty");
    }
    if (f.find(':') != std::string::npos || f.size() > kMaxColumnNameBytes) {
      return Status::InvalidArgument("column family " + QuoteForMessage(f) +
                                     " must not hold ':' and takes at most " +
                                     std::to_string(kMaxColumnNameBytes) +
                                     " bytes");
    }
    if (!seen.insert(f).second) {
      return Status::InvalidArgument("column family " + QuoteForMessage(f) +
                                     " is declared twice");
    }
    bytes += f.size();
  }
  if (bytes > kMaxFamilyBytes) {
    return Status::InvalidArgument(
        "the column family names take " + std::to_string(bytes) +
        " bytes, over the limit of " + std::to_string(kMaxFamilyBytes));
  }
  return Status::OK();
}

uint64_t AttributeBytes(const std::map<std::string, std::string>& attributes) {
  uint64_t bytes = 0;
  for (const auto& [k, v] : attributes) bytes += k.size() + v.size();
  return bytes;
}

Status ValidateAttributes(
    const std::map<std::string, std::string>& attributes) {
  if (attributes.size() > kMaxAttributes) {
    return Status::InvalidArgument("a table has at most " +
                                   std::to_string(kMaxAttributes) +
                                   " attributes");
  }
  if (attributes.count("") != 0) {
    return Status::InvalidArgument("an empty attribute name");
  }
  const uint64_t bytes = AttributeBytes(attributes);
  if (bytes > kMaxAttributeBytes) {
    return Status::InvalidArgument(
        "the attribute names and values take " + std::to_string(bytes) +
        " bytes, over the limit of " + std::to_string(kMaxAttributeBytes));
  }
  return Status::OK();
}

Status CheckColumnFamily(const TableDescriptor& table,
                         std::string_view column) {
  if (table.families.empty()) return Status::OK();
  const std::string_view family = FamilyOf(column);
  for (const std::string& f : table.families) {
    if (f == family) return Status::OK();
  }
  return Status::InvalidArgument("column family " + QuoteForMessage(family) +
                                 " does not exist in table " +
                                 QuoteForMessage(table.name));
}

Status CheckProjectionFamilies(const TableDescriptor& table,
                               const Projection& columns) {
  for (const std::string& c : columns) {
    BLOOMROUTE_RETURN_IF_ERROR(CheckColumnFamily(table, c));
  }
  return Status::OK();
}

Status CheckMutationFamilies(const TableDescriptor& table,
                             const Mutation& mutation) {
  for (const Cell& c : mutation.cells) {
    BLOOMROUTE_RETURN_IF_ERROR(CheckColumnFamily(table, c.column));
  }
  for (const std::string& c : mutation.columns) {
    BLOOMROUTE_RETURN_IF_ERROR(CheckColumnFamily(table, c));
  }
  for (const DeleteSpec& d : mutation.deletes) {
    BLOOMROUTE_RETURN_IF_ERROR(CheckColumnFamily(table, d.column));
  }
  for (const ColumnIncrement& inc : mutation.increments) {
    BLOOMROUTE_RETURN_IF_ERROR(CheckColumnFamily(table, inc.column));
  }
  if (mutation.condition) {
    BLOOMROUTE_RETURN_IF_ERROR(
        CheckColumnFamily(table, mutation.condition->column));
  }
  return Status::OK();
}

TableDescriptor WithIndexAttribute(const TableDescriptor& table) {
  TableDescriptor out = table;
  if (table.indexed_columns.empty()) return out;
  std::vector<std::string> names;
  for (const IndexedColumn& c : table.indexed_columns) names.push_back(c.name);
  out.attributes[std::string(kIndexAttribute)] = FormatIndexAttribute(names);
  return out;
}

std::string FormatFamilySettings(
    const std::map<std::string, FamilySettings>& families) {
  std::map<std::string_view, const FamilySettings*> kept;
  for (const auto& [name, f] : families) {
    if (!f.empty()) kept.emplace(name, &f);
  }
  std::string out(1, static_cast<char>(kFamilySettingsVersion));
  PutFixed32(&out, static_cast<uint32_t>(kept.size()));
  for (const auto& [name, f] : kept) {
    PutLengthPrefixed(&out, name);
    PutFixed32(&out, static_cast<uint32_t>(f->settings.size()));
    for (const auto& [setting, value] : f->settings) {
      PutLengthPrefixed(&out, setting);
      PutFixed64(&out, static_cast<uint64_t>(value));
    }
    PutStringMap(f->attributes, &out);
    PutStringMap(f->configuration, &out);
  }
  return out;
}

StatusOr<std::map<std::string, FamilySettings>> ParseFamilySettings(
    std::string_view value) {
  ByteReader r(value);
  uint8_t version = 0;
  BLOOMROUTE_RETURN_IF_ERROR(r.ReadFixed8(&version, "format version"));
  if (version != kFamilySettingsVersion) {
    return Status::Corruption("family settings of unknown format version " +
                              std::to_string(version));
  }
  uint32_t n = 0;
  // A family takes at least 16 bytes: its name's length and three counts.
  BLOOMROUTE_RETURN_IF_ERROR(ReadCount(&r, 16, "families", &n));
  std::map<std::string, FamilySettings> out;
  for (uint32_t i = 0; i < n; ++i) {
    std::string_view name;
    BLOOMROUTE_RETURN_IF_ERROR(r.ReadLengthPrefixed(&name, "family"));
    FamilySettings f;
    BLOOMROUTE_RETURN_IF_ERROR(ReadFamily(&r, &f));
    if (!out.emplace(name, std::move(f)).second) {
      return Status::Corruption("family settings: a family named twice");
    }
  }
  if (!r.empty()) return Status::Corruption("family settings: trailing bytes");
  return out;
}

TableDescriptor ServerDescriptor(const TableDescriptor& table) {
  TableDescriptor out;
  out.table_id = table.table_id;
  out.name = table.name;
  out.indexed_columns = table.indexed_columns;
  out.families = table.families;  // a region server checks bulk loads
  return out;
}

}  // namespace bloomroute
