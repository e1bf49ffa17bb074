// RocksDB value encodings of the region store. Each starts with a format
// version byte; RocksDB's block checksums cover the stored bytes, and the
// filter inside a checkpoint carries its own checksum. Decoders bound every
// length by the input and return Corruption for anything an encoder did not
// produce.
#ifndef BLOOMROUTE_REGIONSTORE_INTERNAL_RECORDS_H_
#define BLOOMROUTE_REGIONSTORE_INTERNAL_RECORDS_H_

#include <cstdint>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "common/statusor.h"
#include "index/scalable_split_counting_bloom_filter.h"
#include "model/region_protocol.h"
#include "model/rows.h"

namespace bloomroute::regionstore_internal {

// Cells only (the key is the RocksDB key), format 2: each cell's column,
// value and timestamp. Precondition: cells sorted by column, each column
// once, timestamps in [0, kLatestTimestamp).
std::string EncodeRowCells(const std::vector<Cell>& cells);
// Decodes format 2 and format 1 (written before cells had timestamps: its
// cells get timestamp 0, older than any a client or clock gives, so any
// new put replaces them). Corruption for another version, columns not
// sorted and unique, a timestamp outside [0, kLatestTimestamp), or bytes
// that are not exactly what the encoder writes.
Status DecodeRowCells(std::string_view bytes, std::vector<Cell>* cells);

// A region the server has hosted: open (served) or closed (data kept).
// An open region is staged (RegionStore::OpenRegion) or serving. Format 3
// adds the staged flag (formats 1 and 2 decode as not staged), format 4
// the table's families (earlier ones decode with none: any family).
struct StoredRegion {
  RegionDescriptor descriptor;
  bool open = false;
  bool staging = false;
};
std::string EncodeRegion(const StoredRegion& region);
StatusOr<StoredRegion> DecodeRegion(std::string_view bytes);

// A filter op as stored in the op log, with the epoch it belongs to and its
// occupancy mask (format 2; format 1, written before ops carried masks, had
// no mask).
std::string EncodeOp(uint64_t epoch, const FilterOp& op);
// `seq` comes from the key. Decodes both formats; a format 1 record gives
// mask 0 and, when `has_mask` is given, *has_mask = false (true for format
// 2). Corruption for anything else.
Status DecodeOp(std::string_view bytes, uint64_t seq, uint64_t* epoch,
                FilterOp* op, bool* has_mask = nullptr);

// Rows on this server holding a (table, column, value), and the filter stage
// its element was inserted into.
struct ValueRecord {
  uint64_t count = 0;
  uint32_t stage = 0;
};
std::string EncodeValueRecord(const ValueRecord& v);
Status DecodeValueRecord(std::string_view bytes, ValueRecord* v);

// One commit's entry in the count journal (region_filter.h, "Counts"): the
// new row count of each value the commit changed, by value key.
using CountChanges = std::vector<std::pair<std::string, uint64_t>>;
// `keys[i]`'s new count is `counts[i]`. Precondition: equal sizes.
std::string EncodeCountJournalEntry(const std::vector<const std::string*>& keys,
                                    const std::vector<uint64_t>& counts);
Status DecodeCountJournalEntry(std::string_view bytes, CountChanges* changes);

struct Checkpoint {
  uint64_t epoch = 0;
  uint64_t seq = 0;
  std::string filter;  // ScalableSplitCountingBloomFilter::Serialize()
};
// The newest epoch and sequence number the store has used, kept apart from
// the checkpoint (and written in the same batch as every checkpoint) so that a
// checkpoint that cannot be read never makes an epoch or a sequence number
// come back.
struct FilterMark {
  uint64_t epoch = 0;
  uint64_t seq = 0;
};
std::string EncodeFilterMark(const FilterMark& m);
Status DecodeFilterMark(std::string_view bytes, FilterMark* m);

// The filter config a router set (RegionStore::SetFilterConfig). Decoding
// gives Corruption for bytes the encoder did not produce or an invalid
// config.
std::string EncodeFilterConfig(const SscbfConfig& config);
StatusOr<SscbfConfig> DecodeFilterConfig(std::string_view bytes);

// The highest coordinator epoch the server has seen (RegionStore,
// "Coordinator epochs"), format 1: the epoch. Corruption for bytes the
// encoder did not produce.
std::string EncodeCoordinatorEpoch(uint64_t epoch);
StatusOr<uint64_t> DecodeCoordinatorEpoch(std::string_view bytes);

std::string EncodeCheckpoint(const Checkpoint& c);
StatusOr<Checkpoint> DecodeCheckpoint(std::string_view bytes);

}  // namespace bloomroute::regionstore_internal

#endif  // BLOOMROUTE_REGIONSTORE_INTERNAL_RECORDS_H_
