// RegionStore's index lifecycle: a new column set for a table, backfill of
// a building column, and removal of a dropped column's entries.
//
// Why the new set needs no per-write check: every write (Apply, BulkLoad,
// a drop's deletes) holds regions_mu_ shared from resolving its regions to
// its commit, and keeps pointers to their descriptors meanwhile.
// UpdateTableIndexes replaces the descriptors under regions_mu_ held
// exclusively, so it waits for the writes in flight and no write commits
// with the old set after it returned.
//
// Why backfill and writes agree: both hold the row's lock while they read
// the row and decide on its entry. A write on a building column removes an
// old entry (and counts -1) only when the entry exists, and always adds the
// new one; a backfill adds the entry of the row as it is under the lock
// when it is missing. Whichever comes first, the row ends with exactly its
// entry and the count with exactly the entries.
#include <algorithm>
#include <set>

#include "regionstore/internal/keys.h"
#include "regionstore/internal/rocks_region_store.h"
#include "regionstore/internal/rocks_status.h"

namespace bloomroute::regionstore_internal {
namespace {

const IndexedColumn* FindColumnId(const TableDescriptor& table, uint32_t id) {
  for (const IndexedColumn& c : table.indexed_columns) {
    if (c.column_id == id) return &c;
  }
  return nullptr;
}

Status CheckChunkSize(uint32_t n, const char* what) {
  if (n == 0) {
    return Status::InvalidArgument(std::string(what) + " must be >= 1");
  }
  return Status::OK();
}

}  // namespace

Status RocksRegionStore::UpdateTableIndexes(const TableDescriptor& table) {
  BLOOMROUTE_RETURN_IF_ERROR(ValidateTable(table));
  {
    // Most calls (the router repeats them every maintenance pass while a
    // build runs) change nothing: answer those without waiting for writes.
    std::shared_lock lock(regions_mu_);
    bool hosted = false;
    bool same = true;
    for (const auto& [id, r] : regions_) {
      if (r.descriptor.table.table_id != table.table_id) continue;
      hosted = true;
      same = same && r.descriptor.table == table;
    }
    if (hosted && same) return Status::OK();
  }
  std::unique_lock lock(regions_mu_);
  return UpdateTableIndexesLocked(table);
}

Status RocksRegionStore::UpdateTableIndexesLocked(
    const TableDescriptor& table) {
  std::vector<StoredRegion*> of_table;
  for (auto& [id, r] : regions_) {
    if (r.descriptor.table.table_id == table.table_id) of_table.push_back(&r);
  }
  if (of_table.empty()) {
    return Status::NotFound("table " + std::to_string(table.table_id) +
                            " has no region on this server");
  }
  const TableDescriptor& now = of_table.front()->descriptor.table;
  if (now.name != table.name) {
    return Status::InvalidArgument("table " + std::to_string(table.table_id) +
                                   " is " + QuoteForMessage(now.name) +
                                   " here, not " + QuoteForMessage(table.name));
  }
  for (const IndexedColumn& c : table.indexed_columns) {
    const IndexedColumn* known = FindColumnId(now, c.column_id);
    if (known != nullptr && known->name != c.name) {
      return Status::InvalidArgument(
          "column id " + std::to_string(c.column_id) + " of table " +
          QuoteForMessage(table.name) + " is " + QuoteForMessage(known->name) +
          " here, not " + QuoteForMessage(c.name));
    }
  }
  rocksdb::WriteBatch batch;
  std::vector<StoredRegion> updated;
  for (StoredRegion* r : of_table) {
    StoredRegion u = *r;
    u.descriptor.table.indexed_columns = table.indexed_columns;
    u.descriptor.table.families = table.families;
    batch.Put(meta_cf_, RegionMetaKey(u.descriptor.region_id), EncodeRegion(u));
    updated.push_back(std::move(u));
  }
  // One batch: after a crash every region of the table has the old set or
  // every one the new.
  BLOOMROUTE_RETURN_IF_ERROR(FromRocks(db_->Write(write_options_, &batch)));
  for (size_t i = 0; i < of_table.size(); ++i) {
    *of_table[i] = std::move(updated[i]);
  }
  return Status::OK();
}

Status RocksRegionStore::NextRowKeys(const RegionDescriptor& region,
                                     std::string_view after, size_t max,
                                     std::vector<std::string>* keys,
                                     bool* end) const {
  const std::string prefix = RegionPrefix(region.region_id);
  const std::string upper_key = PrefixSuccessor(prefix);
  rocksdb::ReadOptions ro;
  rocksdb::Slice upper(upper_key);
  ro.iterate_upper_bound = &upper;
  std::unique_ptr<rocksdb::Iterator> it(db_->NewIterator(ro, rows_cf_));
  if (after.empty()) {
    it->Seek(prefix);
  } else {
    it->Seek(RowKey(region.region_id, after));
    if (it->Valid() && it->key().ToStringView().substr(prefix.size()) == after)
      it->Next();
  }
  uint64_t bytes = 0;
  for (;
       it->Valid() && keys->size() < max && bytes < options_.max_examined_bytes;
       it->Next()) {
    keys->push_back(it->key().ToString().substr(prefix.size()));
    bytes += it->key().size() + it->value().size();
  }
  BLOOMROUTE_RETURN_IF_ERROR(FromRocks(it->status()));
  *end = !it->Valid();
  return Status::OK();
}

StatusOr<IndexChunkResult> RocksRegionStore::BackfillIndexUnpushed(
    uint64_t region_id, uint32_t column_id, std::string_view after_row,
    uint32_t max_rows, uint64_t fence_token) {
  BLOOMROUTE_RETURN_IF_ERROR(CheckChunkSize(max_rows, "rows per backfill"));
  std::shared_lock lock(regions_mu_);
  BLOOMROUTE_ASSIGN_OR_RETURN(const RegionDescriptor* region,
                              OpenRegionLocked(region_id));
  const IndexedColumn* col = FindColumnId(region->table, column_id);
  if (col == nullptr || !col->building) {
    return Status::InvalidArgument(
        "column id " + std::to_string(column_id) + " is not building in " +
        "table " + QuoteForMessage(region->table.name) + " on this server");
  }
  IndexChunkResult out;
  std::vector<std::string> rows;
  const size_t max =
      std::min<size_t>(max_rows, options_.max_mutations_per_batch);
  BLOOMROUTE_RETURN_IF_ERROR(
      NextRowKeys(*region, after_row, max, &rows, &out.done));
  if (!rows.empty()) {
    BLOOMROUTE_RETURN_IF_ERROR(
        BackfillRows(*region, *col, rows, fence_token, &out));
    return out;
  }
  // Nothing left: the chunk still commits (an empty batch), so that its
  // reply carries the filter's incarnation, epoch and last_seq as a
  // write's does, and the fence holds for it.
  out.done = true;
  rocksdb::WriteBatch empty;
  BLOOMROUTE_ASSIGN_OR_RETURN(
      out.write, Commit(&empty, {}, WriteMode::kWriteBatch, fence_token));
  return out;
}

// The cost of a chunk is its reads: a Get per row and a Get per entry were
// ~87 % of BM_BackfillChunksOf1000's CPU (perf), each one walking the
// memtables and every level's Bloom filter and index block on its own.
// Now the rows are read by one scan of the chunk's range (they are
// adjacent), the entries by one MultiGet in key order, which RocksDB
// batches per SST file and data block, and the entries go into the batch
// in key order, so the memtable inserts reuse InlineSkipList's sequential
// splice as a write's do (region_store_write.cc, AddRowWrites). What is
// read, and when, is unchanged: all of it under the rows' locks, after
// they were listed. backfill_benchmark, 200,000 rows, before/after
// alternated twice in one session on a loaded 2-core machine: CPU
// 3,443-3,549 -> 1,983-2,108 ms, real 4,626-7,121 -> 2,347-3,115 ms; the
// backfill's perf samples fell from 17,053 to 4,796.
Status RocksRegionStore::BackfillRows(const RegionDescriptor& region,
                                      const IndexedColumn& col,
                                      const std::vector<std::string>& rows,
                                      uint64_t fence_token,
                                      IndexChunkResult* out) {
  const uint64_t region_id = region.region_id;
  std::vector<std::string> keys;
  keys.reserve(rows.size());
  for (const std::string& row : rows) keys.push_back(RowKey(region_id, row));
  std::vector<std::string_view> views(keys.begin(), keys.end());
  auto row_locks = row_locks_.LockAll(views);
  // Under the lock: the rows as they are now (a write may have changed or
  // deleted one since it was listed).
  std::vector<BackfillEntry> wanted;
  BLOOMROUTE_RETURN_IF_ERROR(
      IndexEntriesOfRowsLocked(region_id, col, rows, keys, &wanted));
  rocksdb::WriteBatch wb;
  ValueDeltas deltas;
  BLOOMROUTE_RETURN_IF_ERROR(AddMissingEntriesLocked(
      region.table.table_id, col.column_id, wanted, &wb, &deltas));
  out->entries = wb.Count();
  out->rows = rows.size();
  out->resume_after = rows.back();
  // Still under the rows' locks: no write decides on these rows' entries
  // before the new ones are committed.
  BLOOMROUTE_ASSIGN_OR_RETURN(
      out->write, Commit(&wb, deltas, WriteMode::kWriteBatch, fence_token));
  return Status::OK();
}

Status RocksRegionStore::IndexEntriesOfRowsLocked(
    uint64_t region_id, const IndexedColumn& col,
    const std::vector<std::string>& rows, const std::vector<std::string>& keys,
    std::vector<BackfillEntry>* wanted) const {
  // One scan of the listed range, not a lookup per row: the rows are
  // adjacent, so the scan parses each data block once. An iterator made
  // now, after the locks were taken, sees the locked rows as they are. A
  // row it meets that was not listed was written after the listing, by a
  // write that indexed the building column itself: it is skipped.
  const std::string upper_key = keys.back() + '\0';
  rocksdb::ReadOptions ro;
  rocksdb::Slice upper(upper_key);
  ro.iterate_upper_bound = &upper;
  std::unique_ptr<rocksdb::Iterator> it(db_->NewIterator(ro, rows_cf_));
  std::vector<Cell> cells;
  size_t i = 0;
  for (it->Seek(keys.front()); it->Valid() && i < keys.size(); it->Next()) {
    const std::string_view key = it->key().ToStringView();
    while (i < keys.size() && keys[i] < key) ++i;      // listed, since deleted
    if (i == keys.size() || keys[i] != key) continue;  // not listed
    cells.clear();
    BLOOMROUTE_RETURN_IF_ERROR(
        DecodeRowCells(it->value().ToStringView(), &cells));
    for (Cell& cell : cells) {
      if (cell.column != col.name) continue;
      wanted->push_back(
          {IndexKey(region_id, col.column_id, cell.value, rows[i]),
           std::move(cell.value)});
      break;
    }
    ++i;
  }
  BLOOMROUTE_RETURN_IF_ERROR(FromRocks(it->status()));
  std::sort(wanted->begin(), wanted->end(),
            [](const BackfillEntry& a, const BackfillEntry& b) {
              return a.key < b.key;
            });
  return Status::OK();
}

Status RocksRegionStore::AddMissingEntriesLocked(
    uint64_t table_id, uint32_t column_id,
    const std::vector<BackfillEntry>& wanted, rocksdb::WriteBatch* wb,
    ValueDeltas* deltas) const {
  std::vector<rocksdb::Slice> slices;
  slices.reserve(wanted.size());
  for (const BackfillEntry& e : wanted) slices.emplace_back(e.key);
  std::vector<rocksdb::PinnableSlice> values(wanted.size());
  std::vector<rocksdb::Status> statuses(wanted.size());
  db_->MultiGet(rocksdb::ReadOptions(), index_cf_, wanted.size(), slices.data(),
                values.data(), statuses.data(),
                /*sorted_input=*/true);
  for (size_t i = 0; i < wanted.size(); ++i) {
    if (statuses[i].ok()) continue;  // a write (or an earlier chunk) made it
    if (!statuses[i].IsNotFound()) return FromRocks(statuses[i]);
    wb->Put(index_cf_, wanted[i].key, rocksdb::Slice());
    AddDelta(deltas, table_id, column_id, wanted[i].value, +1);
  }
  return Status::OK();
}

Status RocksRegionStore::FirstIndexEntries(uint64_t region_id,
                                           uint32_t column_id, size_t max,
                                           std::vector<std::string>* entries,
                                           bool* end) const {
  const std::string prefix = IndexColumnPrefix(region_id, column_id);
  const std::string upper_key = PrefixSuccessor(prefix);
  rocksdb::ReadOptions ro;
  rocksdb::Slice upper(upper_key);
  ro.iterate_upper_bound = &upper;
  std::unique_ptr<rocksdb::Iterator> it(db_->NewIterator(ro, index_cf_));
  for (it->Seek(prefix); it->Valid() && entries->size() < max; it->Next()) {
    entries->push_back(it->key().ToString());
  }
  BLOOMROUTE_RETURN_IF_ERROR(FromRocks(it->status()));
  *end = !it->Valid();
  return Status::OK();
}

StatusOr<IndexChunkResult> RocksRegionStore::DropIndexEntriesUnpushed(
    uint64_t region_id, uint32_t column_id, uint32_t max_entries,
    uint64_t fence_token) {
  BLOOMROUTE_RETURN_IF_ERROR(
      CheckChunkSize(max_entries, "entries per index drop"));
  std::shared_lock lock(regions_mu_);
  BLOOMROUTE_ASSIGN_OR_RETURN(const RegionDescriptor* region,
                              OpenRegionLocked(region_id));
  if (FindColumnId(region->table, column_id) != nullptr) {
    return Status::InvalidArgument(
        "column id " + std::to_string(column_id) + " is still indexed by " +
        "table " + QuoteForMessage(region->table.name) +
        " on this server; its entries are removed after it is dropped");
  }
  const size_t max =
      std::min<size_t>(max_entries, options_.max_mutations_per_batch);
  std::vector<std::string> entries;
  IndexChunkResult out;
  BLOOMROUTE_RETURN_IF_ERROR(
      FirstIndexEntries(region_id, column_id, max, &entries, &out.done));
  // The rows' locks order this chunk against another one of the same
  // column (each entry is removed, and counted, once).
  std::vector<IndexKeyParts> parts(entries.size());
  std::vector<std::string> keys;
  for (size_t i = 0; i < entries.size(); ++i) {
    BLOOMROUTE_RETURN_IF_ERROR(ParseIndexKey(entries[i], &parts[i]));
    keys.push_back(RowKey(region_id, parts[i].row));
  }
  std::vector<std::string_view> views(keys.begin(), keys.end());
  std::sort(views.begin(), views.end());
  views.erase(std::unique(views.begin(), views.end()), views.end());
  auto row_locks = row_locks_.LockAll(views);
  rocksdb::WriteBatch wb;
  ValueDeltas deltas;
  for (size_t i = 0; i < entries.size(); ++i) {
    std::string ignored;
    rocksdb::Status s =
        db_->Get(rocksdb::ReadOptions(), index_cf_, entries[i], &ignored);
    if (s.IsNotFound()) continue;
    BLOOMROUTE_RETURN_IF_ERROR(FromRocks(s));
    wb.Delete(index_cf_, entries[i]);
    AddDelta(&deltas, region->table.table_id, column_id, parts[i].value, -1);
    ++out.entries;
  }
  out.rows = entries.size();
  BLOOMROUTE_ASSIGN_OR_RETURN(
      out.write, Commit(&wb, deltas, WriteMode::kWriteBatch, fence_token));
  return out;
}

}  // namespace bloomroute::regionstore_internal
