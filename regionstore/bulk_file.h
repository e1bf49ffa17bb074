// Bulk files: one region's rows in a sorted SST file, the unit of a bulk
// load (RegionStore::BulkLoad).
//
// Format (version 3; version 2 as below with rows without timestamps). A
// RocksDB block-based table (format_version 2, CRC32c block checksums, no
// compression, binary-search index) written with SstFileWriter: key = the
// user's row key, value = the row's cells in the store's versioned row encoding
// (a version byte, then the cells sorted by column), with the property
// "bloomroute.bulk.format" = the version. Keys are strictly ascending, each row
// once. Then our trailer, 32 bytes:
//   sst_bytes   fixed64   length of the table before the trailer
//   version     fixed32   kBulkFileFormatVersion
//   reserved    fixed32   0
//   checksum    fixed64   XXH3-64 of every byte before it
//   magic       8 bytes   "BRBULKFT"
//
// Reading a file a client wrote. The file comes from a client, so RocksDB's
// parser (footer, index, properties, blocks) must never see bytes it could
// misread: before RocksDB opens anything, ReadBulkFile checks
//   1. the size (max_file_bytes) before reading, then reads the whole file;
//   2. the trailer: magic, version, length and the whole-file checksum, which
//      catches damage in transit or on disk (not a hostile writer, who can
//      compute it: hence 3);
//   3. the table's structure (internal/bulk_table_check.h): footer magic,
//      format version and checksum type; every block handle (metaindex,
//      properties, index, each data block) inside the table and in order;
//      every block uncompressed by its own trailer byte (a compressed block
//      states its own expanded size, so a few bytes could ask for GiBs);
//      every block's restart array and entry lengths in bounds; no meta
//      block but the properties, and a binary-search index, so RocksDB reads
//      no block that was not checked; data blocks without a hash index.
// Only then does RocksDB open the checked bytes (from memory, so they
// cannot change in between), with paranoid checks and every block checksum
// verified; the properties are checked (version, no compression, row count
// and decoded bytes within limits, puts only) and, while iterating, each
// key's and row's size and the running totals, since properties can lie.
// This is enough because every byte RocksDB interprets has passed a bound
// check of ours or a checksum RocksDB verifies before use, and nothing it
// allocates is sized by a field we did not bound. tests/regionstore/
// bulk_file_fuzz_test.cc mutates valid files (fixing up the checksum) to
// hold it to that.
//
// Usage (the import tool, per region):
//   auto w = BulkFileWriter::Create("/tmp/region-3.sst");
//   if (!w.ok()) return w.status();
//   for (const Row& row : rows_sorted_by_key) {
//     BLOOMROUTE_RETURN_IF_ERROR((*w)->Add(row.key, row.cells));
//     if ((*w)->EstimatedBytes() > kCap) { ... finish, start the next file }
//   }
//   std::string bytes;
//   BLOOMROUTE_RETURN_IF_ERROR((*w)->FinishAndRead(&bytes));
//   // send them with RouterClient::BulkLoad(table, region, bytes)
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
#include "model/rows.h"

namespace bloomroute {

// Version 3: rows in the row format with cell timestamps. Version 2 files
// (rows without timestamps) still load: their cells get the loading
// server's clock, as the import that wrote them meant them to be put then
// (loading them as timestamp 0 would make them older than any cell they
// should overwrite). Other versions are Corruption.
inline constexpr uint32_t kBulkFileFormatVersion = 3;
inline constexpr uint32_t kBulkFileFormatVersionNoTimestamps = 2;
inline constexpr size_t kBulkFileTrailerBytes = 32;

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
  // online put of the same cells with their timestamps; a cell whose
  // timestamp is kLatestTimestamp gets the writer's clock when it was
  // created (one reading per file). InvalidArgument (nothing added) unless
  // `row_key` is 1..kMaxRowKeyBytes bytes and greater than the previous row's
  // key, `cells` is non-empty, every column is a valid name given once, and
  // no timestamp is negative.
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
  // Finish, and the whole file's bytes (what a bulk load sends) in *bytes:
  // Finish reads the table back once to checksum it, so a caller that
  // sends the file need not read it again.
  [[nodiscard]] virtual Status FinishAndRead(std::string* bytes) = 0;

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
// column), checking it first as described above: size, row count and
// decoded bytes within `limits` (InvalidArgument, before they are
// allocated); the trailer, table structure, format version, no compression,
// every block checksum, strictly ascending keys and well-formed rows
// (Corruption otherwise). Never crashes on any input.
StatusOr<std::vector<Row>> ReadBulkFile(const std::string& path,
                                        const BulkFileLimits& limits);

// `sst` (a table's bytes) followed by its trailer: what Finish writes. For
// tests that change a file's table bytes and must fix up its checksum.
std::string SealBulkFile(std::string_view sst);

}  // namespace bloomroute

#endif  // BLOOMROUTE_REGIONSTORE_BULK_FILE_H_
