// The structural check of a bulk file's SST bytes, made before RocksDB reads
// them (see regionstore/bulk_file.h for why it is enough).
//
// It accepts exactly the layout BulkFileWriter produces: a block-based table
// of RocksDB format_version kBulkTableFormatVersion with CRC32c block
// checksums, whose footer, metaindex, meta blocks, index and data blocks are
// all
//   - within the file, in bounds of each other (data blocks ascending and
//     disjoint, before the meta blocks), each followed by its 5-byte trailer;
//   - uncompressed (the trailer's type byte is 0), so that no block expands;
//   - well-formed blocks: a restart array that fits, every entry's shared,
//     unshared and value lengths within the block and the previous key, and
//     (data blocks) no hash index (a set high bit of the restart count) and
//     every key a row key of a put with sequence number 0;
// with only the meta blocks the writer makes (properties), and a binary-search
// index (the properties' index type), so that RocksDB reads no block that was
// not checked here.
#ifndef BLOOMROUTE_REGIONSTORE_INTERNAL_BULK_TABLE_CHECK_H_
#define BLOOMROUTE_REGIONSTORE_INTERNAL_BULK_TABLE_CHECK_H_

#include <cstdint>
#include <string_view>
#include <vector>

#include "common/status.h"

namespace bloomroute::regionstore_internal {

// RocksDB's table format_version that bulk files are written in: footer
// with a checksum type, index values as full block handles.
inline constexpr uint32_t kBulkTableFormatVersion = 2;

// A block's place: `size` bytes at `offset`, then its 5-byte trailer.
struct BulkTableBlock {
  uint64_t offset = 0;
  uint64_t size = 0;
};

// OK for a table as described above; Corruption naming the first fault.
// `blocks` (may be null) receives the blocks checked, in the order checked.
Status CheckBulkTable(std::string_view sst,
                      std::vector<BulkTableBlock>* blocks = nullptr);

}  // namespace bloomroute::regionstore_internal

#endif  // BLOOMROUTE_REGIONSTORE_INTERNAL_BULK_TABLE_CHECK_H_
