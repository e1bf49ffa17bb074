#include "regionstore/bulk_file.h"

#include <fcntl.h>
#include <rocksdb/env.h>
#include <rocksdb/options.h>
#include <rocksdb/sst_file_reader.h>
#include <rocksdb/sst_file_writer.h>
#include <rocksdb/table.h>
#include <rocksdb/table_properties.h>
#include <unistd.h>
#include <xxhash.h>

#include <algorithm>
#include <chrono>
#include <cstring>
#include <filesystem>
#include <fstream>

#include "common/coding.h"
#include "regionstore/internal/bulk_table_check.h"
#include "regionstore/internal/records.h"
#include "regionstore/internal/rocks_status.h"

namespace bloomroute {
namespace {

using regionstore_internal::CheckBulkTable;
using regionstore_internal::DecodeRowCells;
using regionstore_internal::EncodeRowCells;
using regionstore_internal::FromRocks;

constexpr const char* kFormatProperty = "bloomroute.bulk.format";
constexpr char kTrailerMagic[8] = {'B', 'R', 'B', 'U', 'L', 'K', 'F', 'T'};

// The trailer for `sst` (see bulk_file.h).
std::string Trailer(std::string_view sst,
                    uint32_t version = kBulkFileFormatVersion) {
  std::string t;
  PutFixed64(&t, sst.size());
  PutFixed32(&t, version);
  PutFixed32(&t, 0);
  XXH3_state_t* state = XXH3_createState();
  XXH3_64bits_reset(state);
  XXH3_64bits_update(state, sst.data(), sst.size());
  XXH3_64bits_update(state, t.data(), t.size());
  PutFixed64(&t, XXH3_64bits_digest(state));
  XXH3_freeState(state);
  t.append(kTrailerMagic, sizeof(kTrailerMagic));
  return t;
}

// The SST bytes of a bulk file, after checking its trailer; its format
// version in *version.
StatusOr<std::string_view> OpenTrailer(std::string_view file,
                                       uint32_t* version_out) {
  if (file.size() < kBulkFileTrailerBytes) {
    return Status::Corruption("bulk file shorter than its trailer");
  }
  const std::string_view t = file.substr(file.size() - kBulkFileTrailerBytes);
  if (std::memcmp(t.data() + 24, kTrailerMagic, 8) != 0) {
    return Status::Corruption("not a bulk file (no trailer)");
  }
  const uint32_t version = DecodeFixed32(t.data() + 8);
  if (version != kBulkFileFormatVersion &&
      version != kBulkFileFormatVersionNoTimestamps) {
    return Status::Corruption("bulk file format version " +
                              std::to_string(version) + " is not supported");
  }
  const std::string_view sst = file.substr(0, file.size() - t.size());
  if (DecodeFixed64(t.data()) != sst.size() || DecodeFixed32(t.data() + 12)) {
    return Status::Corruption("bulk file trailer does not fit the file");
  }
  if (Trailer(sst, version) != t) {
    return Status::Corruption("bulk file checksum mismatch");
  }
  *version_out = version;
  return sst;
}

// Stamps the format version into the table's user properties, which the
// reader checks before it reads a row.
class FormatCollector : public rocksdb::TablePropertiesCollector {
 public:
  rocksdb::Status AddUserKey(const rocksdb::Slice&, const rocksdb::Slice&,
                             rocksdb::EntryType, rocksdb::SequenceNumber,
                             uint64_t) override {
    return rocksdb::Status::OK();
  }
  rocksdb::Status Finish(rocksdb::UserCollectedProperties* props) override {
    (*props)[kFormatProperty] = std::to_string(kBulkFileFormatVersion);
    return rocksdb::Status::OK();
  }
  rocksdb::UserCollectedProperties GetReadableProperties() const override {
    return {{kFormatProperty, std::to_string(kBulkFileFormatVersion)}};
  }
  const char* Name() const override { return "BulkFileFormat"; }
};

class FormatCollectorFactory : public rocksdb::TablePropertiesCollectorFactory {
 public:
  rocksdb::TablePropertiesCollector* CreateTablePropertiesCollector(
      rocksdb::TablePropertiesCollectorFactory::Context) override {
    return new FormatCollector();
  }
  const char* Name() const override { return "BulkFileFormatFactory"; }
};

class SstBulkFileWriter final : public BulkFileWriter {
 public:
  SstBulkFileWriter(const rocksdb::Options& options, int64_t now_ms)
      : writer_(rocksdb::EnvOptions(), options), now_ms_(now_ms) {}

  Status Open(const std::string& path) {
    path_ = path;
    Status s = FromRocks(writer_.Open(path));
    if (!s.ok())
      return Status::IOError("creating " + path + ": " + s.message());
    return Status::OK();
  }

  Status Add(std::string_view row_key, std::vector<Cell> cells) override {
    if (finished_) return Status::InvalidArgument("the file is finished");
    // Made only for a message (it was for every row).
    const auto row = [&] { return "row " + QuoteForMessage(row_key); };
    if (row_key.empty() || row_key.size() > kMaxRowKeyBytes) {
      return Status::InvalidArgument(row() + ": a row key must be 1 to " +
                                     std::to_string(kMaxRowKeyBytes) +
                                     " bytes");
    }
    if (rows_ > 0 && row_key <= last_key_) {
      return Status::InvalidArgument(
          row() + " is not after the previous row " +
          QuoteForMessage(last_key_) +
          "; rows must be added in strictly ascending key order");
    }
    if (cells.empty()) {
      return Status::InvalidArgument(row() + " has no columns");
    }
    for (Cell& c : cells) {
      Status s = ValidateColumnName(c.column);
      if (s.ok()) {
        s = ValidateTimestampNamed(c.timestamp, [&] {
          return "timestamp of column " + QuoteForMessage(c.column);
        });
      }
      if (!s.ok()) return s.WithContext(row());
      if (c.timestamp == kLatestTimestamp) c.timestamp = now_ms_;
    }
    std::sort(cells.begin(), cells.end(),
              [](const Cell& a, const Cell& b) { return a.column < b.column; });
    for (size_t i = 1; i < cells.size(); ++i) {
      if (cells[i].column == cells[i - 1].column) {
        return Status::InvalidArgument(row() + " has column " +
                                       QuoteForMessage(cells[i].column) +
                                       " twice");
      }
    }
    const std::string value = EncodeRowCells(cells);
    BLOOMROUTE_RETURN_IF_ERROR(FromRocks(writer_.Put(row_key, value)));
    last_key_.assign(row_key);
    ++rows_;
    added_bytes_ += row_key.size() + value.size();
    return Status::OK();
  }

  uint64_t rows() const override { return rows_; }

  uint64_t EstimatedBytes() const override {
    // FileSize() counts only the blocks written so far, and a block is
    // written when the next row arrives, so it can lag by a whole (large)
    // row. The bytes added, plus room for the index, filter and footer
    // blocks, do not lag; uncompressed, a file is about that size.
    const uint64_t written =
        const_cast<rocksdb::SstFileWriter&>(writer_).FileSize();
    return std::max(written, added_bytes_) + 4096;
  }

  Status Finish() override { return FinishAndRead(nullptr); }

  Status FinishAndRead(std::string* bytes) override {
    if (finished_) return Status::InvalidArgument("the file is finished");
    if (rows_ == 0) return Status::InvalidArgument("a bulk file needs a row");
    finished_ = true;
    BLOOMROUTE_RETURN_IF_ERROR(FromRocks(writer_.Finish()));
    return AppendTrailer(bytes);
  }

 private:
  // Reads the SST back (a bulk file is at most tens of MiB) and appends the
  // trailer that covers it, then syncs; the whole file in *bytes when
  // given. Read in one sized read: through istreambuf_iterator, byte by
  // byte, this read and the import's second read of the same file were
  // ~18 % of `import --bulk`'s CPU (perf, cities500).
  Status AppendTrailer(std::string* bytes) {
    std::string sst;
    BLOOMROUTE_RETURN_IF_ERROR(FromRocks(
        rocksdb::ReadFileToString(rocksdb::Env::Default(), path_, &sst)));
    const std::string trailer = Trailer(sst);
    const int fd = open(path_.c_str(), O_WRONLY | O_APPEND | O_CLOEXEC);
    if (fd < 0) return Status::IOError("appending to " + path_);
    const bool ok = write(fd, trailer.data(), trailer.size()) ==
                        static_cast<ssize_t>(trailer.size()) &&
                    fsync(fd) == 0;
    close(fd);
    if (!ok) return Status::IOError("appending to " + path_);
    if (bytes != nullptr) {
      *bytes = std::move(sst);
      bytes->append(trailer);
    }
    return Status::OK();
  }

  std::string path_;
  rocksdb::SstFileWriter writer_;
  std::string last_key_;
  const int64_t now_ms_;  // the timestamp of cells added without one
  uint64_t rows_ = 0;
  uint64_t added_bytes_ = 0;  // keys and encoded rows
  bool finished_ = false;
};

rocksdb::Options BulkFileOptions() {
  rocksdb::Options options;
  // Uncompressed, so that a file's size bounds what reading it allocates;
  // the reader refuses anything else.
  options.compression = rocksdb::kNoCompression;
  // The layout CheckBulkTable accepts: a fixed format, CRC32c checksums, a
  // binary-search index and data blocks without a hash index.
  rocksdb::BlockBasedTableOptions table;
  table.format_version = regionstore_internal::kBulkTableFormatVersion;
  table.checksum = rocksdb::kCRC32c;
  table.index_type = rocksdb::BlockBasedTableOptions::kBinarySearch;
  table.data_block_index_type =
      rocksdb::BlockBasedTableOptions::kDataBlockBinarySearch;
  options.table_factory.reset(rocksdb::NewBlockBasedTableFactory(table));
  options.table_properties_collector_factories.push_back(
      std::make_shared<FormatCollectorFactory>());
  return options;
}

// The whole file, refused before it is read when over the size limit.
StatusOr<std::string> ReadWhole(const std::string& path,
                                const BulkFileLimits& limits) {
  std::error_code ec;
  const uintmax_t size = std::filesystem::file_size(path, ec);
  if (ec) return Status::IOError("reading " + path + ": " + ec.message());
  if (size > limits.max_file_bytes) {
    return Status::InvalidArgument("the bulk file is " + std::to_string(size) +
                                   " bytes; the limit is " +
                                   std::to_string(limits.max_file_bytes));
  }
  std::string bytes(static_cast<size_t>(size), '\0');
  std::ifstream in(path, std::ios::binary);
  in.read(bytes.data(), static_cast<std::streamsize>(bytes.size()));
  if (!in || in.gcount() != static_cast<std::streamsize>(size) ||
      in.peek() != std::ifstream::traits_type::eof()) {
    return Status::IOError("reading " + path + " failed or it changed");
  }
  return bytes;
}

// Puts the checked SST bytes in an in-memory file system, so that RocksDB
// reads exactly the bytes that were checked (not the file, which could
// change meanwhile).
Status StoreInMemory(rocksdb::Env* env, std::string_view sst,
                     const std::string& name) {
  std::unique_ptr<rocksdb::WritableFile> file;
  BLOOMROUTE_RETURN_IF_ERROR(
      FromRocks(env->NewWritableFile(name, &file, rocksdb::EnvOptions())));
  BLOOMROUTE_RETURN_IF_ERROR(
      FromRocks(file->Append(rocksdb::Slice(sst.data(), sst.size()))));
  return FromRocks(file->Close());
}

// `version`: the trailer's, which the table's property must repeat.
Status CheckFormat(const rocksdb::SstFileReader& reader,
                   const BulkFileLimits& limits, uint32_t version) {
  auto props = reader.GetTableProperties();
  if (props == nullptr) return Status::Corruption("no table properties");
  if (props->compression_name != "NoCompression") {
    return Status::InvalidArgument("bulk file compressed with " +
                                   props->compression_name +
                                   "; bulk files are not compressed");
  }
  auto it = props->user_collected_properties.find(kFormatProperty);
  if (it == props->user_collected_properties.end()) {
    return Status::Corruption("not a bulk file (no format version)");
  }
  if (it->second != std::to_string(version)) {
    return Status::Corruption("bulk file format version " + it->second +
                              " is not supported");
  }
  if (props->num_entries > limits.max_rows) {
    return Status::InvalidArgument(
        "the bulk file has " + std::to_string(props->num_entries) +
        " rows; the limit is " + std::to_string(limits.max_rows));
  }
  if (props->raw_key_size + props->raw_value_size > limits.max_decoded_bytes) {
    return Status::InvalidArgument(
        "the bulk file holds " +
        std::to_string(props->raw_key_size + props->raw_value_size) +
        " bytes of keys and values; the limit is " +
        std::to_string(limits.max_decoded_bytes));
  }
  if (props->num_deletions != 0 || props->num_merge_operands != 0 ||
      props->num_range_deletions != 0) {
    return Status::Corruption("a bulk file holds puts only");
  }
  return Status::OK();
}

// One row of a bulk file in format `version`: Corruption when its cells do
// not decode or are none.
StatusOr<Row> DecodeRow(std::string_view key, std::string_view value,
                        uint32_t version) {
  Row row;
  row.key.assign(key);
  Status s = DecodeRowCells(value, &row.cells);
  if (!s.ok()) return s.WithContext("bulk file row " + QuoteForMessage(key));
  if (row.cells.empty()) {
    return Status::Corruption("bulk file row " + QuoteForMessage(key) +
                              " has no columns");
  }
  if (version == kBulkFileFormatVersionNoTimestamps) {
    // Written before cells had timestamps, by an import meant to put its
    // rows as they are loaded: they get the loading server's clock.
    for (Cell& c : row.cells) c.timestamp = kLatestTimestamp;
  }
  return row;
}

// The rows of a bulk file's table, read with `it` (checksums verified), in
// the file's format `version`: InvalidArgument past the limits, Corruption
// for keys out of order or of a bad size, or a row that does not decode or
// has no cells.
Status ReadRows(rocksdb::Iterator* it, const BulkFileLimits& limits,
                uint32_t version, std::vector<Row>* rows) {
  uint64_t decoded = 0;  // the properties could lie: count as we go
  for (it->SeekToFirst(); it->Valid(); it->Next()) {
    if (rows->size() >= limits.max_rows) {
      return Status::InvalidArgument("the bulk file has more than " +
                                     std::to_string(limits.max_rows) + " rows");
    }
    decoded += it->key().size() + it->value().size();
    if (decoded > limits.max_decoded_bytes) {
      return Status::InvalidArgument("the bulk file holds more than " +
                                     std::to_string(limits.max_decoded_bytes) +
                                     " bytes of keys and values");
    }
    const std::string_view key = it->key().ToStringView();
    if (key.empty() || key.size() > kMaxRowKeyBytes) {
      return Status::Corruption("bulk file row key of " +
                                std::to_string(key.size()) + " bytes");
    }
    if (!rows->empty() && key <= rows->back().key) {
      return Status::Corruption(
          "bulk file rows are not in ascending order at " +
          QuoteForMessage(key));
    }
    BLOOMROUTE_ASSIGN_OR_RETURN(
        Row row, DecodeRow(key, it->value().ToStringView(), version));
    rows->push_back(std::move(row));
  }
  Status s = FromRocks(it->status());
  return s.ok() ? s : s.WithContext("bulk file");
}

}  // namespace

std::string SealBulkFile(std::string_view sst) {
  return std::string(sst) + Trailer(sst);
}

StatusOr<std::unique_ptr<BulkFileWriter>> BulkFileWriter::Create(
    const std::string& path) {
  // One clock reading per file: the import's "now".
  const int64_t now_ms =
      std::chrono::duration_cast<std::chrono::milliseconds>(
          std::chrono::system_clock::now().time_since_epoch())
          .count();
  auto writer = std::make_unique<SstBulkFileWriter>(BulkFileOptions(), now_ms);
  BLOOMROUTE_RETURN_IF_ERROR(writer->Open(path));
  return std::unique_ptr<BulkFileWriter>(std::move(writer));
}

StatusOr<std::vector<Row>> ReadBulkFile(const std::string& path,
                                        const BulkFileLimits& limits) {
  BLOOMROUTE_ASSIGN_OR_RETURN(const std::string file, ReadWhole(path, limits));
  uint32_t version = 0;
  BLOOMROUTE_ASSIGN_OR_RETURN(const std::string_view sst,
                              OpenTrailer(file, &version));
  BLOOMROUTE_RETURN_IF_ERROR(CheckBulkTable(sst));
  const std::unique_ptr<rocksdb::Env> env(
      rocksdb::NewMemEnv(rocksdb::Env::Default()));
  const std::string name = "/bulk.sst";
  BLOOMROUTE_RETURN_IF_ERROR(StoreInMemory(env.get(), sst, name));
  rocksdb::Options options = BulkFileOptions();
  options.env = env.get();
  options.paranoid_checks = true;
  rocksdb::SstFileReader reader(options);
  Status s = FromRocks(reader.Open(name));
  if (!s.ok()) return s.WithContext("bulk file");
  BLOOMROUTE_RETURN_IF_ERROR(CheckFormat(reader, limits, version));
  // Checks every block before a row is used; the iterator below checks the
  // blocks it reads too (ReadOptions::verify_checksums).
  s = FromRocks(reader.VerifyChecksum());
  if (!s.ok()) return s.WithContext("bulk file");
  std::vector<Row> rows;
  rocksdb::ReadOptions read;
  read.verify_checksums = true;
  std::unique_ptr<rocksdb::Iterator> it(reader.NewIterator(read));
  BLOOMROUTE_RETURN_IF_ERROR(ReadRows(it.get(), limits, version, &rows));
  if (rows.empty()) return Status::InvalidArgument("the bulk file has no rows");
  return rows;
}

}  // namespace bloomroute
