// RocksDB key layouts of the region store. Every layout sorts the way its
// scans need: integers are big-endian, and an indexed value is escaped so
// that its encoding is prefix-free and keeps byte order (0x00 -> 0x00 0xFF,
// terminated by 0x00 0x01, as in FoundationDB's tuple layer). Hence:
//
//   rows   region_id(8) row_key                      one key per row
//   index  region_id(8) column_id(4) esc(value) row_key
//          (one region's index is one contiguous range; a value's rows are a
//           contiguous range sorted by row key; values sort in byte order)
//   values table_id(8) column_id(4) value            per-server count + stage
//   oplog  seq(8)                                    filter ops in order
//   meta   "region/" region_id(8)                    open region descriptors
//          "filter"                                  the filter checkpoint
//          "filter-mark"                             newest epoch and seq
//          "filter-config"                           the config a router set
//          "counts/" seq(8)                          count journal entries
#ifndef BLOOMROUTE_REGIONSTORE_INTERNAL_KEYS_H_
#define BLOOMROUTE_REGIONSTORE_INTERNAL_KEYS_H_

#include <cstdint>
#include <string>
#include <string_view>

#include "common/status.h"

namespace bloomroute::regionstore_internal {

std::string RowKey(uint64_t region_id, std::string_view row);
// Prefix of every row key of a region.
std::string RegionPrefix(uint64_t region_id);

// Appends the order-preserving, prefix-free escape of `value`.
void AppendEscaped(std::string* dst, std::string_view value);

std::string IndexKey(uint64_t region_id, uint32_t column_id,
                     std::string_view value, std::string_view row);
// All entries of one column in a region.
std::string IndexColumnPrefix(uint64_t region_id, uint32_t column_id);
// All entries of one (column, value) in a region.
std::string IndexValuePrefix(uint64_t region_id, uint32_t column_id,
                             std::string_view value);

struct IndexKeyParts {
  uint64_t region_id = 0;
  uint32_t column_id = 0;
  std::string value;
  std::string_view row;  // points into the decoded key
};
// Corruption when the key is not an index key.
Status ParseIndexKey(std::string_view key, IndexKeyParts* parts);

std::string ValueKey(uint64_t table_id, uint32_t column_id,
                     std::string_view value);
struct ValueKeyParts {
  uint64_t table_id = 0;
  uint32_t column_id = 0;
  std::string_view value;
};
Status ParseValueKey(std::string_view key, ValueKeyParts* parts);

std::string OpKey(uint64_t seq);
uint64_t ParseOpKey(std::string_view key);  // precondition: key.size() == 8

inline constexpr std::string_view kRegionMetaPrefix = "region/";
inline constexpr std::string_view kFilterCheckpointKey = "filter";
inline constexpr std::string_view kFilterMarkKey = "filter-mark";
inline constexpr std::string_view kFilterConfigKey = "filter-config";
// The count journal (region_filter.h, "Counts"): one entry per commit.
inline constexpr std::string_view kCountJournalPrefix = "counts/";
std::string CountJournalKey(uint64_t seq);
// The highest coordinator epoch seen (RegionStore, "Coordinator epochs").
inline constexpr std::string_view kCoordinatorEpochKey = "coordinator-epoch";
std::string RegionMetaKey(uint64_t region_id);

// The smallest key greater than every key with this prefix, or "" when there
// is none (all bytes 0xFF).
std::string PrefixSuccessor(std::string prefix);

// The row keys of region `region_id` ([region_start, region_end)) from row
// `start` up to row `stop` (empty: the region's end), clamped to the region:
// the key to seek to and the exclusive bound for the iterator
// (ReadOptions::iterate_upper_bound).
struct RowKeyRange {
  std::string seek;
  std::string upper;
};
RowKeyRange RegionRowRange(uint64_t region_id, std::string_view region_start,
                           std::string_view region_end, std::string_view start,
                           std::string_view stop);

}  // namespace bloomroute::regionstore_internal

#endif  // BLOOMROUTE_REGIONSTORE_INTERNAL_KEYS_H_
