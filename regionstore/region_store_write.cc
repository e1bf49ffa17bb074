// RegionStore writes: validation, row read-modify-write, index maintenance,
// and the atomic commit, whose value counts and filter ops the store's
// RegionFilter adds (internal/region_filter.h).
#include <algorithm>
#include <chrono>
#include <functional>
#include <unordered_map>

#include "model/atomic_ops.h"
#include "regionstore/internal/keys.h"
#include "regionstore/internal/rocks_region_store.h"
#include "regionstore/internal/rocks_status.h"

namespace bloomroute::regionstore_internal {

namespace {

// "row 'key'", for messages: made only when one is (it was per write).
std::string RowForMessage(std::string_view row_key) {
  return "row " + QuoteForMessage(row_key);
}

Status ValueFits(const std::string& column, const std::string& value,
                 std::string_view row_key, size_t limit, const char* what) {
  if (value.size() <= limit) return Status::OK();
  return Status::InvalidArgument(
      std::string(what) + " of column " + QuoteForMessage(column) + " in " +
      RowForMessage(row_key) + " is " + std::to_string(value.size()) +
      " bytes; the limit is " + std::to_string(limit) + " (max_value_bytes)");
}

// The mutations of a committed batch of `batch_size` that were applied:
// every one when `outcomes` is empty (ApplyToRows leaves it empty when all
// are unconditional puts and deletes), else those it says were.
uint64_t AppliedCount(const std::vector<MutationOutcome>& outcomes,
                      size_t batch_size) {
  if (outcomes.empty()) return batch_size;
  return std::count_if(outcomes.begin(), outcomes.end(),
                       [](const MutationOutcome& o) { return o.applied; });
}

}  // namespace

Status RocksRegionStore::ValidateCondition(const RowCondition& c,
                                           std::string_view row_key) const {
  BLOOMROUTE_RETURN_IF_ERROR(
      ValidateColumnName(c.column).WithContext("condition"));
  const int op = static_cast<int>(c.op);
  if (op < 0 || op >= kCompareOpCount) {
    return Status::InvalidArgument("condition on " + RowForMessage(row_key) +
                                   " has an unknown compare operator " +
                                   std::to_string(op));
  }
  return c.value ? ValueFits(c.column, *c.value, row_key,
                             options_.max_value_bytes, "condition value")
                 : Status::OK();
}

Status RocksRegionStore::ValidateMutation(const Mutation& m,
                                          const RegionDescriptor& r) const {
  const auto row = [&] { return RowForMessage(m.row_key); };
  if (m.row_key.empty()) return Status::InvalidArgument("empty row key");
  if (m.row_key.size() > kMaxRowKeyBytes) {
    return Status::InvalidArgument(
        row() + " is " + std::to_string(m.row_key.size()) +
        " bytes; the limit is " + std::to_string(kMaxRowKeyBytes));
  }
  if (!r.ContainsRow(m.row_key)) {
    return Status::InvalidArgument(
        row() + " is outside region " + std::to_string(r.region_id) + " [" +
        QuoteForMessage(r.start_key) + ", " + QuoteForMessage(r.end_key) + ")");
  }
  if (m.condition) {
    BLOOMROUTE_RETURN_IF_ERROR(ValidateCondition(*m.condition, m.row_key));
  }
  BLOOMROUTE_RETURN_IF_ERROR(ValidateTimestampNamed(
      m.timestamp, [&] { return "timestamp of the mutation of " + row(); }));
  switch (m.kind) {
    case Mutation::Kind::kDelete:
      for (const auto& c : m.columns) {
        BLOOMROUTE_RETURN_IF_ERROR(ValidateColumnName(c));
      }
      for (const DeleteSpec& d : m.deletes) {
        BLOOMROUTE_RETURN_IF_ERROR(ValidateDeleteSpec(d));
      }
      return Status::OK();
    case Mutation::Kind::kIncrement:
      if (m.increments.empty()) {
        return Status::InvalidArgument("increment of " + row() +
                                       " has no columns");
      }
      for (const auto& inc : m.increments) {
        BLOOMROUTE_RETURN_IF_ERROR(ValidateColumnName(inc.column));
      }
      return Status::OK();
    case Mutation::Kind::kPut:
    case Mutation::Kind::kAppend:
      break;
  }
  if (m.cells.empty()) {
    return Status::InvalidArgument(
        (m.kind == Mutation::Kind::kPut ? "put of " : "append to ") + row() +
        " has no columns");
  }
  for (const auto& c : m.cells) {
    BLOOMROUTE_RETURN_IF_ERROR(ValidateColumnName(c.column));
    BLOOMROUTE_RETURN_IF_ERROR(ValidateTimestampNamed(c.timestamp, [&] {
      return "timestamp of column " + QuoteForMessage(c.column);
    }));
    BLOOMROUTE_RETURN_IF_ERROR(ValueFits(c.column, c.value, m.row_key,
                                         options_.max_value_bytes, "value"));
  }
  return Status::OK();
}

int64_t RocksRegionStore::NowMs() const {
  if (options_.clock_ms) return options_.clock_ms();
  return std::chrono::duration_cast<std::chrono::milliseconds>(
             std::chrono::system_clock::now().time_since_epoch())
      .count();
}

StatusOr<WriteResult> RocksRegionStore::ApplyUnpushed(
    const std::vector<Mutation>& batch, uint64_t fence_token) {
  if (batch.size() > options_.max_mutations_per_batch) {
    return Status::InvalidArgument(
        "batch of " + std::to_string(batch.size()) +
        " mutations; the limit is " +
        std::to_string(options_.max_mutations_per_batch));
  }
  std::shared_lock lock(regions_mu_);
  std::vector<const RegionDescriptor*> regions;
  regions.reserve(batch.size());
  for (size_t i = 0; i < batch.size(); ++i) {
    auto r = OpenRegionLocked(batch[i].region_id);
    Status s = r.ok() ? ValidateMutation(batch[i], **r) : r.status();
    if (!s.ok()) {
      // Name the mutation: in a batch of thousands the row alone is not
      // enough to find it.
      const std::string where = "mutation " + std::to_string(i) + ": ";
      return s.IsNotFound() ? Status::NotFound(where + s.message())
                            : Status::InvalidArgument(where + s.message());
    }
    regions.push_back(*r);
  }
  return ApplyResolved(batch, regions, WriteMode::kWriteBatch, fence_token);
}

namespace {

// The put's cells as a VERSIONS => 1 reader sees them: a cell replaces the
// stored one unless its timestamp is lower.
void ApplyPut(const Mutation& m, int64_t now, std::vector<Cell>* row) {
  const int64_t put_ts = m.timestamp == kLatestTimestamp ? now : m.timestamp;
  // Room for every cell at once: a new row otherwise grew (and moved its
  // cells) once per doubling, ~1.6 % of a put (perf, put_benchmark).
  row->reserve(row->size() + m.cells.size());
  for (const Cell& c : m.cells) {
    const int64_t ts = c.timestamp == kLatestTimestamp ? put_ts : c.timestamp;
    auto it = std::lower_bound(
        row->begin(), row->end(), c.column,
        [](const Cell& a, const std::string& col) { return a.column < col; });
    if (it != row->end() && it->column == c.column) {
      if (ts < it->timestamp) continue;
      it->value = c.value;
      it->timestamp = ts;
    } else {
      row->insert(it, Cell{c.column, c.value, ts});
    }
  }
}

// Whether `d` (with the mutation's timestamp when it has none) removes `c`.
bool DeleteSpecRemoves(const DeleteSpec& d, int64_t mutation_ts, int64_t now,
                       const Cell& c) {
  const int64_t given =
      d.timestamp != kLatestTimestamp ? d.timestamp : mutation_ts;
  const int64_t upto = given == kLatestTimestamp ? now : given;
  switch (d.kind) {
    case DeleteSpec::Kind::kColumn:  // the latest version, or exactly `given`
      return c.column == d.column &&
             (given == kLatestTimestamp || c.timestamp == given);
    case DeleteSpec::Kind::kColumns:
      return c.column == d.column && c.timestamp <= upto;
    case DeleteSpec::Kind::kFamily:
      return std::string_view(c.column).substr(0, c.column.find(':')) ==
                 d.column &&
             c.timestamp <= upto;
  }
  return false;
}

void ApplyDelete(const Mutation& m, int64_t now, std::vector<Cell>* row) {
  std::function<bool(const Cell&)> removes;
  if (m.columns.empty() && m.deletes.empty()) {
    const int64_t upto = m.timestamp == kLatestTimestamp ? now : m.timestamp;
    removes = [upto](const Cell& c) { return c.timestamp <= upto; };
  } else {
    removes = [&](const Cell& c) {
      if (std::find(m.columns.begin(), m.columns.end(), c.column) !=
          m.columns.end()) {
        return true;
      }
      for (const DeleteSpec& d : m.deletes) {
        if (DeleteSpecRemoves(d, m.timestamp, now, c)) return true;
      }
      return false;
    };
  }
  row->erase(std::remove_if(row->begin(), row->end(), removes), row->end());
}

// The timestamps of an increment's or append's new cells, as HBase's
// (HRegion): the clock, or one more than the cell's current timestamp when
// that is not older, so the new value always replaces the old one.
void StampNewCells(const std::vector<Cell>& row, int64_t now,
                   std::vector<Cell>* cells) {
  for (Cell& c : *cells) {
    c.timestamp = now;
    auto it = std::lower_bound(
        row.begin(), row.end(), c.column,
        [](const Cell& a, const std::string& col) { return a.column < col; });
    if (it != row.end() && it->column == c.column && it->timestamp >= now) {
      c.timestamp = std::min(it->timestamp + 1, kLatestTimestamp - 1);
    }
  }
}

}  // namespace

Status RocksRegionStore::AddIndexChanges(const RowChange& change,
                                         std::vector<IndexWrite>* writes,
                                         ValueDeltas* deltas) const {
  const RegionDescriptor& r = *change.region;
  for (const IndexedColumn& col : r.table.indexed_columns) {
    auto find = [&](const std::vector<Cell>& cells) -> const Cell* {
      for (const Cell& cell : cells) {
        if (cell.column == col.name) return &cell;
      }
      return nullptr;
    };
    const Cell* old_cell = find(change.before);
    const Cell* new_cell = find(change.after);
    if (old_cell && new_cell && old_cell->value == new_cell->value) continue;
    if (old_cell) {
      std::string key =
          IndexKey(r.region_id, col.column_id, old_cell->value, change.row_key);
      bool exists = true;
      if (col.building) {
        // The backfill may not have reached this row: only an entry that
        // is there is removed and counted (region_store_index.cc). Under
        // the row's lock, so no backfill adds it meanwhile.
        std::string ignored;
        rocksdb::Status s =
            db_->Get(rocksdb::ReadOptions(), index_cf_, key, &ignored);
        if (!s.ok() && !s.IsNotFound()) return FromRocks(s);
        exists = s.ok();
      }
      if (exists) {
        writes->push_back({std::move(key), /*remove=*/true});
        AddDelta(deltas, r.table.table_id, col.column_id, old_cell->value, -1);
      }
    }
    if (new_cell) {
      writes->push_back({IndexKey(r.region_id, col.column_id, new_cell->value,
                                  change.row_key),
                         /*remove=*/false});
      AddDelta(deltas, r.table.table_id, col.column_id, new_cell->value, +1);
    }
  }
  return Status::OK();
}

namespace {

// The distinct rows a batch touches, in first-touched order: their keys
// (RowKey), one RowChange each (before and after still empty), and for each
// mutation the index of its row.
void GroupByRow(const std::vector<Mutation>& batch,
                const std::vector<const RegionDescriptor*>& regions,
                std::vector<std::string>* keys, std::vector<RowChange>* changes,
                std::vector<size_t>* change_of) {
  change_of->resize(batch.size());
  if (batch.size() == 1) {  // one row: no map to build (a write of one put)
    keys->push_back(RowKey(batch[0].region_id, batch[0].row_key));
    changes->push_back(RowChange{regions[0], batch[0].row_key, {}, {}});
    return;
  }
  std::unordered_map<std::string, size_t> slot;  // key -> index in changes
  for (size_t i = 0; i < batch.size(); ++i) {
    std::string key = RowKey(batch[i].region_id, batch[i].row_key);
    auto [it, added] = slot.emplace(key, changes->size());
    (*change_of)[i] = it->second;
    if (added) {
      keys->push_back(std::move(key));
      changes->push_back(RowChange{regions[i], batch[i].row_key, {}, {}});
    }
  }
}

}  // namespace

StatusOr<WriteResult> RocksRegionStore::ApplyResolved(
    const std::vector<Mutation>& batch,
    const std::vector<const RegionDescriptor*>& regions, WriteMode mode,
    uint64_t fence_token) {
  std::vector<std::string> keys;
  std::vector<RowChange> changes;
  std::vector<size_t> change_of;  // mutation -> its row
  GroupByRow(batch, regions, &keys, &changes, &change_of);
  std::vector<std::string_view> key_views(keys.begin(), keys.end());
  auto row_locks = row_locks_.LockAll(key_views);

  BLOOMROUTE_RETURN_IF_ERROR(ReadRowsLocked(keys, &changes));
  std::vector<MutationOutcome> outcomes;
  // One clock reading for the batch: every "now" in it is the same.
  BLOOMROUTE_RETURN_IF_ERROR(
      ApplyToRows(batch, change_of, NowMs(), &changes, &outcomes));
  rocksdb::WriteBatch wb;
  ValueDeltas deltas;
  BLOOMROUTE_RETURN_IF_ERROR(AddRowWrites(keys, changes, &wb, &deltas));
  StatusOr<WriteResult> result = Commit(&wb, deltas, mode, fence_token);
  if (!result.ok()) return result;
  mutations_applied_.fetch_add(AppliedCount(outcomes, batch.size()),
                               std::memory_order_relaxed);
  result->outcomes = std::move(outcomes);
  return result;
}

Status RocksRegionStore::ReadRowsLocked(const std::vector<std::string>& keys,
                                        std::vector<RowChange>* changes) const {
  std::vector<rocksdb::Slice> slices(keys.begin(), keys.end());
  std::vector<rocksdb::PinnableSlice> values(keys.size());
  std::vector<rocksdb::Status> statuses(keys.size());
  db_->MultiGet(rocksdb::ReadOptions(), rows_cf_, keys.size(), slices.data(),
                values.data(), statuses.data());
  for (size_t i = 0; i < keys.size(); ++i) {
    if (statuses[i].IsNotFound()) continue;
    BLOOMROUTE_RETURN_IF_ERROR(FromRocks(statuses[i]));
    RowChange& c = (*changes)[i];
    BLOOMROUTE_RETURN_IF_ERROR(
        DecodeRowCells(values[i].ToStringView(), &c.before));
    c.after = c.before;
  }
  return Status::OK();
}

// Each column family's writes go into the batch in key order. RocksDB
// inserts a batch into each memtable in batch order, and its skiplist starts
// each insert from where the previous one went (InlineSkipList's sequential
// splice), so sorted keys skip most of the descent that random ones repeat:
// the memtable inserts were ~55 % of a put (perf, put_benchmark).
Status RocksRegionStore::AddRowWrites(const std::vector<std::string>& keys,
                                      const std::vector<RowChange>& changes,
                                      rocksdb::WriteBatch* wb,
                                      ValueDeltas* deltas) const {
  std::vector<size_t> order(changes.size());
  for (size_t i = 0; i < order.size(); ++i) order[i] = i;
  std::sort(order.begin(), order.end(),
            [&](size_t a, size_t b) { return keys[a] < keys[b]; });
  std::vector<IndexWrite> index_writes;
  for (size_t i : order) {
    const RowChange& c = changes[i];
    if (c.after.empty()) {
      if (!c.before.empty()) wb->Delete(rows_cf_, keys[i]);
    } else {
      std::string encoded = EncodeRowCells(c.after);
      if (encoded.size() > options_.max_row_bytes) {
        return Status::InvalidArgument(
            "row " + QuoteForMessage(c.row_key) + " would be " +
            std::to_string(encoded.size()) + " bytes; the limit is " +
            std::to_string(options_.max_row_bytes));
      }
      wb->Put(rows_cf_, keys[i], encoded);
    }
    BLOOMROUTE_RETURN_IF_ERROR(AddIndexChanges(c, &index_writes, deltas));
  }
  // Distinct keys (an entry names its row, and a batch's rows are grouped):
  // their order in the batch changes nothing but the cost.
  std::sort(index_writes.begin(), index_writes.end());
  for (const IndexWrite& w : index_writes) {
    if (w.remove) {
      wb->Delete(index_cf_, w.key);
    } else {
      wb->Put(index_cf_, w.key, rocksdb::Slice());
    }
  }
  return Status::OK();
}

Status RocksRegionStore::ApplyToRows(
    const std::vector<Mutation>& batch, const std::vector<size_t>& change_of,
    int64_t now, std::vector<RowChange>* changes,
    std::vector<MutationOutcome>* outcomes) const {
  const bool plain =
      std::all_of(batch.begin(), batch.end(), [](const Mutation& m) {
        return !m.condition && (m.kind == Mutation::Kind::kPut ||
                                m.kind == Mutation::Kind::kDelete);
      });
  if (!plain) outcomes->resize(batch.size());
  for (size_t i = 0; i < batch.size(); ++i) {
    const Mutation& m = batch[i];
    RowChange& c = (*changes)[change_of[i]];
    // Against the row before the batch: every mutation of a checkAndMutate
    // carries the same condition and must see the same row.
    if (m.condition && !ConditionHolds(*m.condition, c.before)) {
      (*outcomes)[i].applied = false;
      continue;
    }
    switch (m.kind) {
      case Mutation::Kind::kPut:
        ApplyPut(m, now, &c.after);
        break;
      case Mutation::Kind::kDelete:
        ApplyDelete(m, now, &c.after);
        break;
      case Mutation::Kind::kIncrement:
      case Mutation::Kind::kAppend: {
        BLOOMROUTE_ASSIGN_OR_RETURN(std::vector<Cell> cells,
                                    NewCellsOf(m, c.after));
        StampNewCells(c.after, now, &cells);
        for (const Cell& cell : cells) {
          BLOOMROUTE_RETURN_IF_ERROR(
              ValueFits(cell.column, cell.value, m.row_key,
                        options_.max_value_bytes, "the new value")
                  .WithContext("mutation " + std::to_string(i)));
        }
        ApplyPut(Mutation::Put(m.region_id, m.row_key, cells), now, &c.after);
        (*outcomes)[i].cells = std::move(cells);
        break;
      }
    }
  }
  return Status::OK();
}

StatusOr<WriteResult> RocksRegionStore::Commit(rocksdb::WriteBatch* batch,
                                               const ValueDeltas& deltas,
                                               WriteMode mode,
                                               uint64_t fence_token) {
  return filter_->CommitWithValueChanges(
      batch, deltas, fence_token,
      [this, mode](rocksdb::WriteBatch* b) { return WriteBatchAs(mode, b); });
}

Status RocksRegionStore::WriteBatchAs(WriteMode mode,
                                      rocksdb::WriteBatch* batch) {
  if (mode == WriteMode::kIngest) return IngestBatch(batch);
  BLOOMROUTE_RETURN_IF_ERROR(FromRocks(db_->Write(write_options_, batch)));
  if (write_options_.sync) {
    wal_syncs_.fetch_add(1, std::memory_order_relaxed);
  }
  return Status::OK();
}

Status RocksRegionStore::SyncWal() {
  // FlushWAL(true) writes RocksDB's WAL buffer and fsyncs the file: what a
  // write with WriteOptions::sync does, for all writes before it at once.
  BLOOMROUTE_RETURN_IF_ERROR(FromRocks(db_->FlushWAL(/*sync=*/true)));
  wal_syncs_.fetch_add(1, std::memory_order_relaxed);
  return Status::OK();
}

}  // namespace bloomroute::regionstore_internal
