// Bulk files: one region's rows in a sorted SST file, the unit of a bulk
// load (RegionStore::BulkLoad).
//
// Format. A RocksDB block-based table (every block checksummed) written with
// SstFileWriter: key = the user's row key, value = the row's cells in the
// store's versioned row encoding (a version byte, then the cells sorted by
// column). The table carries the property "bloomroute.bulk.format" with the
// file format version (kBulkFileFormatVersion); a reader refuses any other.
// Keys are strictly ascending, each row once.
//
// Usage (the import tool, per region):
//   auto w = BulkFileWriter::Create("/tmp/region-3.sst");
//   if (!w.ok()) return w.status();
//   for (const Row& row : rows_sorted_by_key) {
//     BLOOMROUTE_RETURN_IF_ERROR((*w)->Add(row.key, row.cells));
//     if ((*w)->EstimatedBytes() > kCap) { ... finish, start the next file }
//   }
//   BLOOMROUTE_RETURN_IF_ERROR((*w)->Finish());
//   // send the file's bytes with RouterClient::BulkLoad(table, region, bytes)
//
// Thread-safety: a writer is used by one thread; ReadBulkFile is reentrant.
#ifndef BLOOMROUTE_REGIONSTORE_BULK_FILE_H_
#define BLOOMROUTE_REGIONSTORE_BULK_FILE_H_

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "common/statusor.h"
#include "model/types.h"

namespace bloomroute {

inline constexpr uint32_t kBulkFileFormatVersion = 1;

class BulkFileWriter {
 public:
  // Creates (or truncates) the file at `path`. IOError when it cannot be
  // created.
  static StatusOr<std::unique_ptr<BulkFileWriter>> Create(
      const std::string& path);
  virtual ~BulkFileWriter() = default;
  BulkFileWriter(const BulkFileWriter&) = delete;
  BulkFileWriter& operator=(const BulkFileWriter&) = delete;

  // Adds a row: its cells are put (added or overwritten) when loaded, as an
  // online put of the same cells. InvalidArgument (nothing added) unless
  // `row_key` is 1..kMaxRowKeyBytes bytes and greater than the previous row's
  // key, `cells` is non-empty, and every column is a valid name given once.
  // Cells may come in any order. Value sizes are checked by the server that
  // loads the file (its limit is its own).
  [[nodiscard]] virtual Status Add(std::string_view row_key,
                                   std::vector<Cell> cells) = 0;
  // Rows added so far.
  virtual uint64_t rows() const = 0;
  // About the size of the file if it were finished now (for size caps).
  virtual uint64_t EstimatedBytes() const = 0;
  // Completes and syncs the file. InvalidArgument when no row was added
  // (an empty file is never a valid bulk file). No Add after Finish.
  [[nodiscard]] virtual Status Finish() = 0;

 protected:
  BulkFileWriter() = default;
};

struct BulkFileLimits {
  uint64_t max_rows = 1000000;
  uint64_t max_file_bytes = 32 << 20;
  // Keys and values read, in all: bulk files are not compressed, but keys
  // are stored as deltas of their neighbours, so a small file can still
  // stand for more bytes than its size.
  uint64_t max_decoded_bytes = 64 << 20;
};

// Reads a whole bulk file into rows (keys ascending, cells sorted by
// column), checking it first: size, row count and decoded bytes within
// `limits` (InvalidArgument, before they are allocated), the format version,
// no compression (a compressed block could expand without bound), every
// block checksum, strictly ascending keys and well-formed rows (Corruption
// otherwise).
StatusOr<std::vector<Row>> ReadBulkFile(const std::string& path,
                                        const BulkFileLimits& limits);

}  // namespace bloomroute

#endif  // BLOOMROUTE_REGIONSTORE_BULK_FILE_H_
