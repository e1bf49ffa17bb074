// RegionStore bulk loads: a bulk file's rows go through the write path of
// Apply (region_store_write.cc), and the prepared batch is ingested as sorted
// SST files instead of being written through the WAL.
//
// Why ingestion is sound here. The batch holds, per column family, puts and
// deletes of distinct keys (rows, index entries, value records, op-log
// entries); sorting them gives one valid SST file each. IngestExternalFiles
// publishes the files of all column families in one MANIFEST record (all or
// nothing across a crash), gives them sequence numbers above every earlier
// write (flushing a memtable whose keys overlap), and keeps them out of
// snapshots taken before, so readers, which all read under a snapshot, see
// the load whole or not at all, as they see a WriteBatch. The filter lock is
// held across it, as across an online commit, so sequence numbers and counts
// stay in order with concurrent writes.
#include <rocksdb/env.h>
#include <rocksdb/sst_file_writer.h>

#include <algorithm>
#include <filesystem>
#include <map>
#include <memory>
#include <mutex>
#include <string_view>

#include "model/table_attributes.h"
#include "regionstore/bulk_file.h"
#include "regionstore/internal/keys.h"
#include "regionstore/internal/records.h"
#include "regionstore/internal/rocks_region_store.h"
#include "regionstore/internal/rocks_status.h"

namespace bloomroute::regionstore_internal {
namespace {

constexpr const char* kStagingDir = "bulk-staging";

struct Entry {
  std::string_view key;    // points into the batch
  std::string_view value;  // empty for a delete
  bool is_delete = false;
};

// The batch's entries by column family id, in batch order.
class ByColumnFamily : public rocksdb::WriteBatch::Handler {
 public:
  rocksdb::Status PutCF(uint32_t cf, const rocksdb::Slice& key,
                        const rocksdb::Slice& value) override {
    entries_[cf].push_back(Entry{key.ToStringView(), value.ToStringView()});
    return rocksdb::Status::OK();
  }
  rocksdb::Status DeleteCF(uint32_t cf, const rocksdb::Slice& key) override {
    entries_[cf].push_back(Entry{key.ToStringView(), {}, true});
    return rocksdb::Status::OK();
  }
  // Every other kind of entry is refused by the Handler's defaults: the
  // write path produces none.

  std::map<uint32_t, std::vector<Entry>>& entries() { return entries_; }

 private:
  std::map<uint32_t, std::vector<Entry>> entries_;
};

// Sorted by key, each key once: the last entry of a key wins, as it would
// in the WriteBatch.
void SortKeepingLast(std::vector<Entry>* entries) {
  std::stable_sort(
      entries->begin(), entries->end(),
      [](const Entry& a, const Entry& b) { return a.key < b.key; });
  size_t out = 0;
  for (size_t i = 0; i < entries->size(); ++i) {
    if (i + 1 < entries->size() && (*entries)[i + 1].key == (*entries)[i].key) {
      continue;
    }
    (*entries)[out++] = (*entries)[i];
  }
  entries->resize(out);
}

// Removes the files it holds when it goes out of scope, whatever happened.
class StagedFiles {
 public:
  StagedFiles() = default;
  StagedFiles(const StagedFiles&) = delete;
  StagedFiles& operator=(const StagedFiles&) = delete;
  ~StagedFiles() {
    for (const std::string& f : files_) {
      std::error_code ignored;
      std::filesystem::remove(f, ignored);
    }
  }
  std::string Add(std::string file) {
    files_.push_back(file);
    return file;
  }

 private:
  std::vector<std::string> files_;
};

}  // namespace

Status RocksRegionStore::ResetStagingDir() {
  const std::filesystem::path dir = std::filesystem::path(path_) / kStagingDir;
  std::error_code ec;
  std::filesystem::remove_all(dir, ec);
  if (!ec) std::filesystem::create_directories(dir, ec);
  if (ec) {
    return Status::IOError("preparing " + dir.string() + ": " + ec.message());
  }
  return Status::OK();
}

std::string RocksRegionStore::StagingFile(std::string_view what) {
  return (std::filesystem::path(path_) / kStagingDir /
          (std::string(what) + "-" + std::to_string(++next_staging_file_) +
           ".sst"))
      .string();
}

Status RocksRegionStore::IngestBatch(rocksdb::WriteBatch* batch) {
  ByColumnFamily collected;
  BLOOMROUTE_RETURN_IF_ERROR(FromRocks(batch->Iterate(&collected)));
  StagedFiles staged;
  std::vector<rocksdb::IngestExternalFileArg> args;
  for (auto& [cf_id, entries] : collected.entries()) {
    auto handle = std::find_if(handles_.begin(), handles_.end(),
                               [&](auto* h) { return h->GetID() == cf_id; });
    if (handle == handles_.end()) {
      return Status::Corruption("a write to an unknown column family");
    }
    SortKeepingLast(&entries);
    const std::string file = staged.Add(StagingFile((*handle)->GetName()));
    rocksdb::Options options(db_->GetDBOptions(), db_->GetOptions(*handle));
    rocksdb::SstFileWriter writer(rocksdb::EnvOptions(), options, *handle);
    rocksdb::Status s = writer.Open(file);
    for (size_t i = 0; s.ok() && i < entries.size(); ++i) {
      const Entry& e = entries[i];
      s = e.is_delete ? writer.Delete(e.key) : writer.Put(e.key, e.value);
    }
    if (s.ok()) s = writer.Finish();  // syncs the file
    BLOOMROUTE_RETURN_IF_ERROR(FromRocks(s));
    rocksdb::IngestExternalFileArg arg;
    arg.column_family = *handle;
    arg.external_files = {file};
    // A hard link (same file system): no copy of the data.
    arg.options.move_files = true;
    arg.options.write_global_seqno = false;
    args.push_back(std::move(arg));
  }
  if (args.empty()) return Status::OK();
  // The load was computed from rows and counts that earlier writes may hold
  // only in the WAL's unsynced tail, while an ingestion is durable at once:
  // sync the WAL first, so a power loss never keeps the load without them.
  BLOOMROUTE_RETURN_IF_ERROR(FromRocks(db_->FlushWAL(/*sync=*/true)));
  return FromRocks(db_->IngestExternalFiles(args));
}

uint64_t RocksRegionStore::BulkFileLimit() const {
  // A file of one row the server accepted (a region copy ships such a row
  // in a file of its own): the row, its key and the SST's own blocks. Only
  // such a file may pass max_bulk_file_bytes (BulkLoad checks its rows).
  constexpr uint64_t kOneRowFileSlack = 128 << 10;
  return std::max<uint64_t>(options_.max_bulk_file_bytes,
                            options_.max_row_bytes + kOneRowFileSlack);
}

StatusOr<WriteResult> RocksRegionStore::BulkLoadUnpushed(
    uint64_t region_id, const std::string& path, uint64_t fence_token) {
  // Past max_bulk_file_bytes only a file of one row (what ExportRows makes
  // of a large row) is taken: such a file is read with a limit of one row,
  // so a larger one is refused before its rows are decoded.
  std::error_code size_error;
  const uint64_t file_bytes = std::filesystem::file_size(path, size_error);
  const bool one_row_only =
      !size_error && file_bytes > options_.max_bulk_file_bytes;
  const BulkFileLimits limits{one_row_only ? 1 : options_.max_bulk_rows,
                              BulkFileLimit(), 2 * BulkFileLimit()};
  StatusOr<std::vector<Row>> rows = ReadBulkFile(path, limits);
  if (one_row_only && !rows.ok()) {
    return Status::InvalidArgument(
        "the bulk file is " + std::to_string(file_bytes) +
        " bytes, over the limit of " +
        std::to_string(options_.max_bulk_file_bytes) +
        ", and is not one row (only a file of one row may be larger): " +
        rows.status().message());
  }
  if (rows.status().IsCorruption()) {
    // The file came from a client: a damaged one is bad input, not damage
    // to this server's storage.
    return Status::InvalidArgument("bad bulk file: " + rows.status().message());
  }
  BLOOMROUTE_RETURN_IF_ERROR(rows.status());
  std::shared_lock lock(regions_mu_);
  BLOOMROUTE_ASSIGN_OR_RETURN(const RegionDescriptor* region,
                              OpenRegionLocked(region_id));
  std::vector<Mutation> puts;
  puts.reserve(rows->size());
  for (Row& row : *rows) {
    Mutation m =
        Mutation::Put(region_id, std::move(row.key), std::move(row.cells));
    Status s = ValidateMutation(m, *region);
    // The table's declared families, as a put through the router is held
    // to (empty: any family).
    if (s.ok()) s = CheckMutationFamilies(region->table, m);
    if (!s.ok()) return Status::InvalidArgument("bulk file: " + s.message());
    puts.push_back(std::move(m));
  }
  const std::vector<const RegionDescriptor*> regions(puts.size(), region);
  StatusOr<WriteResult> result =
      ApplyResolved(puts, regions, WriteMode::kIngest, fence_token);
  // A load can bring a million new values: more ops than one reply should
  // carry (the reply must fit a client's frame). Without them the router
  // sees last_seq ahead of its replica, treats the replica as not current
  // (lookups ask this server) and catches up with OpsSince in pages.
  if (result.ok() && result->ops.size() > options_.max_ops_per_call) {
    result->ops.clear();
  }
  return result;
}

StatusOr<WriteResult> RocksRegionStore::BulkLoadBytes(uint64_t region_id,
                                                      std::string_view file,
                                                      uint64_t fence_token) {
  if (file.size() > BulkFileLimit()) {
    return Status::InvalidArgument(
        "the bulk file is " + std::to_string(file.size()) +
        " bytes; the limit is " + std::to_string(BulkFileLimit()) +
        " (the larger of the bulk file limit and a row's)");
  }
  StagedFiles staged;
  const std::string path = staged.Add(StagingFile("upload"));
  Status s = FromRocks(rocksdb::WriteStringToFile(
      db_->GetEnv(), rocksdb::Slice(file.data(), file.size()), path));
  if (!s.ok()) return Status::IOError("storing the bulk file: " + s.message());
  return BulkLoad(region_id, path, fence_token);
}

// A region's rows leave as a bulk file rather than as scanned rows: a row of
// ten cells costs a Thrift struct per cell both ways through the router,
// which made a copy cost about 46 us a row where the store's own write
// path takes 14 (BM_MoveRegion, reshape_benchmark). The file carries the
// stored row encoding; BulkLoad on the target checks it as any client's.
StatusOr<ExportedRows> RocksRegionStore::ExportRows(const ExportRequest& req) {
  if (req.max_rows < 1 || req.max_rows > kMaxExportRows) {
    return Status::InvalidArgument("max_rows must be in [1, " +
                                   std::to_string(kMaxExportRows) + "]");
  }
  if (req.max_bytes < 1 || req.max_bytes > options_.max_bulk_file_bytes) {
    return Status::InvalidArgument(
        "max_bytes must be in [1, " +
        std::to_string(options_.max_bulk_file_bytes) +
        "] (the bulk file size limit)");
  }
  std::shared_lock lock(regions_mu_);
  BLOOMROUTE_ASSIGN_OR_RETURN(const RegionDescriptor* r,
                              OpenRegionLocked(req.region_id));
  const RowKeyRange range = RegionRowRange(
      r->region_id, r->start_key, r->end_key, req.start_row, req.stop_row);
  const std::string prefix = RegionPrefix(r->region_id);
  rocksdb::Slice upper_slice(range.upper);
  rocksdb::ReadOptions ro;
  ro.iterate_upper_bound = &upper_slice;
  ro.fill_cache = false;  // read once, to leave the server
  std::unique_ptr<rocksdb::Iterator> it(db_->NewIterator(ro, rows_cf_));
  StagedFiles staged;
  const std::string path = staged.Add(StagingFile("export"));
  std::unique_ptr<BulkFileWriter> writer;
  ExportedRows out;
  for (it->Seek(range.seek); it->Valid(); it->Next()) {
    const std::string_view key = it->key().ToStringView().substr(prefix.size());
    // A file ends before the row that would take it past max_bytes: a row
    // larger than that travels alone, in a file the target takes up to its
    // row limit (BulkFileLimit), never past a file limit it could not take.
    if (writer != nullptr &&
        (writer->rows() == req.max_rows ||
         writer->EstimatedBytes() + key.size() + it->value().size() >
             req.max_bytes)) {
      out.resume_row = std::string(key);
      break;
    }
    if (writer == nullptr) {
      BLOOMROUTE_ASSIGN_OR_RETURN(writer, BulkFileWriter::Create(path));
    }
    std::vector<Cell> cells;
    BLOOMROUTE_RETURN_IF_ERROR(
        DecodeRowCells(it->value().ToStringView(), &cells));
    BLOOMROUTE_RETURN_IF_ERROR(writer->Add(key, std::move(cells)));
  }
  BLOOMROUTE_RETURN_IF_ERROR(FromRocks(it->status()));
  if (writer == nullptr) return out;  // no row in the range
  BLOOMROUTE_RETURN_IF_ERROR(writer->FinishAndRead(&out.file));
  out.rows = writer->rows();
  return out;
}

}  // namespace bloomroute::regionstore_internal
