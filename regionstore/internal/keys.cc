#include "regionstore/internal/keys.h"

#include <algorithm>

#include "common/coding.h"

namespace bloomroute::regionstore_internal {

std::string RegionPrefix(uint64_t region_id) {
  std::string k;
  PutBigEndian64(&k, region_id);
  return k;
}

std::string RowKey(uint64_t region_id, std::string_view row) {
  std::string k = RegionPrefix(region_id);
  k.append(row);
  return k;
}

void AppendEscaped(std::string* dst, std::string_view value) {
  for (char c : value) {
    dst->push_back(c);
    if (c == '\0') dst->push_back('\xff');
  }
  dst->push_back('\0');
  dst->push_back('\x01');
}

std::string IndexColumnPrefix(uint64_t region_id, uint32_t column_id) {
  std::string k = RegionPrefix(region_id);
  PutBigEndian32(&k, column_id);
  return k;
}

std::string IndexValuePrefix(uint64_t region_id, uint32_t column_id,
                             std::string_view value) {
  std::string k = IndexColumnPrefix(region_id, column_id);
  AppendEscaped(&k, value);
  return k;
}

// Built in one allocation: a put builds one per indexed column, and growing
// the key byte by byte reallocated it two or three times.
std::string IndexKey(uint64_t region_id, uint32_t column_id,
                     std::string_view value, std::string_view row) {
  std::string k;
  k.reserve(8 + 4 + value.size() + 2 + row.size() + 4);  // + a few escapes
  PutBigEndian64(&k, region_id);
  PutBigEndian32(&k, column_id);
  AppendEscaped(&k, value);
  k.append(row);
  return k;
}

Status ParseIndexKey(std::string_view key, IndexKeyParts* parts) {
  if (key.size() < 12 + 2) return Status::Corruption("index key too short");
  parts->region_id = DecodeBigEndian(key.data(), 8);
  parts->column_id = static_cast<uint32_t>(DecodeBigEndian(key.data() + 8, 4));
  parts->value.clear();
  for (size_t i = 12; i < key.size(); ++i) {
    if (key[i] != '\0') {
      parts->value.push_back(key[i]);
      continue;
    }
    if (i + 1 >= key.size()) break;
    if (key[i + 1] == '\x01') {
      parts->row = key.substr(i + 2);
      return Status::OK();
    }
    if (key[i + 1] != '\xff') break;
    parts->value.push_back('\0');
    ++i;
  }
  return Status::Corruption("index key has a malformed value escape");
}

std::string ValueKey(uint64_t table_id, uint32_t column_id,
                     std::string_view value) {
  std::string k;
  k.reserve(8 + 4 + value.size());
  PutBigEndian64(&k, table_id);
  PutBigEndian32(&k, column_id);
  k.append(value);
  return k;
}

Status ParseValueKey(std::string_view key, ValueKeyParts* parts) {
  if (key.size() < 12) return Status::Corruption("value key too short");
  parts->table_id = DecodeBigEndian(key.data(), 8);
  parts->column_id = static_cast<uint32_t>(DecodeBigEndian(key.data() + 8, 4));
  parts->value = key.substr(12);
  return Status::OK();
}

std::string OpKey(uint64_t seq) {
  std::string k;
  PutBigEndian64(&k, seq);
  return k;
}

std::string CountJournalKey(uint64_t seq) {
  std::string k(kCountJournalPrefix);
  PutBigEndian64(&k, seq);
  return k;
}

uint64_t ParseOpKey(std::string_view key) {
  return DecodeBigEndian(key.data(), 8);
}

std::string RegionMetaKey(uint64_t region_id) {
  std::string k(kRegionMetaPrefix);
  PutBigEndian64(&k, region_id);
  return k;
}

std::string PrefixSuccessor(std::string prefix) {
  while (!prefix.empty()) {
    if (static_cast<uint8_t>(prefix.back()) != 0xff) {
      prefix.back() =
          static_cast<char>(static_cast<uint8_t>(prefix.back()) + 1);
      return prefix;
    }
    prefix.pop_back();
  }
  return prefix;
}

RowKeyRange RegionRowRange(uint64_t region_id, std::string_view region_start,
                           std::string_view region_end, std::string_view start,
                           std::string_view stop) {
  if (stop.empty() || (!region_end.empty() && region_end < stop)) {
    stop = region_end;
  }
  return RowKeyRange{RowKey(region_id, std::max(start, region_start)),
                     stop.empty() ? PrefixSuccessor(RegionPrefix(region_id))
                                  : RowKey(region_id, stop)};
}

}  // namespace bloomroute::regionstore_internal
