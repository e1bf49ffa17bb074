// RegionFilter's value counts (region_filter.h, "Counts"): the records
// and count journal a commit changes, the journal's replay and fold, and
// every record as storage holds it.
#include <algorithm>
#include <map>

#include "regionstore/internal/keys.h"
#include "regionstore/internal/region_filter.h"
#include "regionstore/internal/rocks_status.h"

namespace bloomroute::regionstore_internal {
namespace {

// Applies `d` to the record `rec` of its value (count 0: none stored). Only
// a count crossing zero touches the filter, with an op appended to `ops`:
// 0 -> n inserts the value's element (`rec` keeps its stage), n -> 0 removes
// it from the recorded stage. Corruption for a count going below zero;
// Unavailable when the filter has no stage left for an insert.
Status ChangeCount(const ValueDelta& d, FilterLog* filter, ValueRecord* rec,
                   std::vector<FilterOp>* ops) {
  if (d.delta < 0 && rec->count < static_cast<uint64_t>(-d.delta)) {
    return Status::Corruption("value count below zero for " +
                              QuoteForMessage(d.value));
  }
  const uint64_t count = rec->count + d.delta;
  // Most writes move a count n -> n±1 and need no hash.
  if (rec->count == 0) {  // 0 -> count > 0: the value arrives on the server
    auto inserted =
        filter->Insert(HashElement(d.table_id, d.column_id, d.value));
    if (!inserted.ok()) {  // no stage left: the caller rebuilds and retries
      return Status::Unavailable(inserted.status().message());
    }
    rec->stage = inserted->stage;
    ops->push_back(*inserted);
  } else if (count == 0) {  // the last row holding it left
    BLOOMROUTE_ASSIGN_OR_RETURN(
        FilterOp op,
        filter->Remove(HashElement(d.table_id, d.column_id, d.value),
                       rec->stage));
    ops->push_back(op);
  }
  rec->count = count;
  return Status::OK();
}

}  // namespace

// ---- Value records

uint64_t RegionFilter::PlanningCount(const std::string& value_key,
                                     uint64_t recorded) const {
  std::lock_guard<std::mutex> lock(mu_);
  auto it = dirty_.find(value_key);
  return it == dirty_.end() ? recorded : it->second.count;
}

Status RegionFilter::ReadValueRecords(const rocksdb::Snapshot* snapshot,
                                      ValueRecords* records) const {
  rocksdb::ReadOptions ro;
  ro.snapshot = snapshot;
  std::unique_ptr<rocksdb::Iterator> it(db_->NewIterator(ro, cfs_.values));
  for (it->SeekToFirst(); it->Valid(); it->Next()) {
    ValueRecord rec;
    BLOOMROUTE_RETURN_IF_ERROR(
        DecodeValueRecord(it->value().ToStringView(), &rec));
    records->emplace_back(it->key().ToString(), rec);
  }
  BLOOMROUTE_RETURN_IF_ERROR(FromRocks(it->status()));
  std::map<std::string, uint64_t> journaled;
  uint64_t next_seq;
  BLOOMROUTE_RETURN_IF_ERROR(ReadCountJournal(snapshot, &journaled, &next_seq));
  for (const auto& [key, count] : journaled) {
    auto it = std::lower_bound(
        records->begin(), records->end(), key,
        [](const auto& r, const std::string& k) { return r.first < k; });
    const bool recorded = it != records->end() && it->first == key;
    // A commit that takes a count to 0 deletes the record; one that takes it
    // from 0 writes one.
    if (recorded != (count != 0)) {
      return Status::Corruption("count journal: value " + QuoteForMessage(key) +
                                " counted " + std::to_string(count) +
                                (recorded ? " has a record" : " has none"));
    }
    if (recorded) it->second.count = count;
  }
  return Status::OK();
}

Status RegionFilter::ReadCountJournal(const rocksdb::Snapshot* snapshot,
                                      std::map<std::string, uint64_t>* counts,
                                      uint64_t* next_seq) const {
  rocksdb::ReadOptions ro;
  ro.snapshot = snapshot;
  std::unique_ptr<rocksdb::Iterator> it(db_->NewIterator(ro, cfs_.meta));
  *next_seq = 0;
  for (it->Seek(kCountJournalPrefix);
       it->Valid() && it->key().starts_with(kCountJournalPrefix); it->Next()) {
    CountChanges changes;
    BLOOMROUTE_RETURN_IF_ERROR(
        DecodeCountJournalEntry(it->value().ToStringView(), &changes));
    for (auto& [key, count] : changes) (*counts)[std::move(key)] = count;
    const std::string_view k = it->key().ToStringView();
    if (k.size() != kCountJournalPrefix.size() + 8) {
      return Status::Corruption("count journal key of " +
                                std::to_string(k.size()) + " bytes");
    }
    *next_seq = ParseOpKey(k.substr(kCountJournalPrefix.size())) + 1;
  }
  return FromRocks(it->status());
}

Status RegionFilter::ReplayCountJournalLocked() {
  dirty_.clear();
  records_.Clear();
  journal_counts_ = 0;
  std::map<std::string, uint64_t> journaled;
  BLOOMROUTE_RETURN_IF_ERROR(
      ReadCountJournal(nullptr, &journaled, &journal_next_seq_));
  for (const auto& [key, count] : journaled) {
    // The stage is the record's; a value counted 0 has none.
    ValueRecord rec;
    if (count != 0) {
      std::string bytes;
      rocksdb::Status s =
          db_->Get(rocksdb::ReadOptions(), cfs_.values, key, &bytes);
      if (s.IsNotFound()) {
        return Status::Corruption("count journal: value " +
                                  QuoteForMessage(key) + " has no record");
      }
      BLOOMROUTE_RETURN_IF_ERROR(FromRocks(s));
      BLOOMROUTE_RETURN_IF_ERROR(DecodeValueRecord(bytes, &rec));
    }
    rec.count = count;
    dirty_.emplace(key, rec);
  }
  journal_counts_ = journaled.size();
  return Status::OK();
}

Status RegionFilter::FoldCountsLocked() {
  rocksdb::WriteBatch wb;
  for (const auto& [key, rec] : dirty_) {
    // A count that reached 0 deleted its record in that commit.
    if (rec.count != 0) {
      BLOOMROUTE_RETURN_IF_ERROR(
          FromRocks(wb.Put(cfs_.values, key, EncodeValueRecord(rec))));
    }
  }
  BLOOMROUTE_RETURN_IF_ERROR(FromRocks(
      wb.DeleteRange(cfs_.meta, kCountJournalPrefix,
                     PrefixSuccessor(std::string(kCountJournalPrefix)))));
  BLOOMROUTE_RETURN_IF_ERROR(FromRocks(db_->Write(write_options_, &wb)));
  for (const auto& [key, rec] : dirty_) records_.Put(key, rec);
  dirty_.clear();
  journal_counts_ = 0;
  return Status::OK();
}

// What a put cost per indexed column, CPU time, one put a write
// (put_benchmark; perf and runs that left a step out; ~9 us a put with no
// indexed column): ~8 us, of which ~1-2 us reading the value record (a
// MultiGet, 22 % of a put with 5 columns), ~4 us writing it (a random insert
// into a memtable that holds a version per update) and the rest the index
// entry's insert and the bookkeeping. Both record costs are gone here:
//   - the count comes from memory: dirty_ (journaled records) or the cache
//     of stored ones; RocksDB is read only for a value neither holds;
//   - the record is written only when the count crosses zero (its stage
//     changes); otherwise the new count goes into the commit's one count
//     journal entry, whose keys only grow, so RocksDB's memtable appends it
//     (the skiplist's sequential-insert splice) instead of searching.
// Measured after: ~4 us a column (18.1 us a put with 2 columns, 30.4 with 5,
// 9.2 with none; it was 24.8, 48.7 and 9.1 in the same session).
// Crash safety: the journal entry is in the caller's batch, beside the row
// and its index entries, so a crash keeps a count and the row that changed
// it together; Open replays the journal into dirty_, and the cache starts
// empty. A failed write replays it again. Concurrent writers of one value
// are serialized by mu_ (rows by their row locks first), so each sees the
// count the previous one committed.
Status RegionFilter::AddValueChangesLocked(rocksdb::WriteBatch* batch,
                                           const ValueDeltas& deltas,
                                           std::vector<FilterOp>* ops) {
  pending_records_.clear();
  std::vector<const std::string*> keys;
  std::vector<const ValueDelta*> changes;
  for (const auto& [key, d] : deltas) {
    if (d.delta == 0) continue;
    keys.push_back(&key);
    changes.push_back(&d);
  }
  if (keys.empty()) return Status::OK();
  std::vector<ValueRecord> records;
  std::vector<ValueRecord*> journaled;
  BLOOMROUTE_RETURN_IF_ERROR(FindRecordsLocked(keys, &records, &journaled));
  std::vector<uint64_t> counts(keys.size());
  for (size_t i = 0; i < keys.size(); ++i) {
    ValueRecord& rec = records[i];
    const bool was_held = rec.count != 0;
    BLOOMROUTE_RETURN_IF_ERROR(ChangeCount(*changes[i], &*filter_, &rec, ops));
    if (rec.count == 0) {
      batch->Delete(cfs_.values, *keys[i]);
    } else if (!was_held) {
      batch->Put(cfs_.values, *keys[i], EncodeValueRecord(rec));
    }
    counts[i] = rec.count;
    pending_records_.push_back({keys[i], rec, journaled[i]});
  }
  batch->Put(cfs_.meta, CountJournalKey(journal_next_seq_),
             EncodeCountJournalEntry(keys, counts));
  for (const FilterOp& op : *ops) {
    batch->Put(cfs_.oplog, OpKey(op.seq), EncodeOp(filter_->epoch(), op));
  }
  return Status::OK();
}

Status RegionFilter::FindRecordsLocked(
    const std::vector<const std::string*>& keys,
    std::vector<ValueRecord>* records, std::vector<ValueRecord*>* journaled) {
  records->resize(keys.size());
  journaled->assign(keys.size(), nullptr);
  std::vector<size_t> missed;  // indexes into keys, in key order
  for (size_t i = 0; i < keys.size(); ++i) {
    auto dirty = dirty_.find(*keys[i]);
    if (dirty != dirty_.end()) (*journaled)[i] = &dirty->second;
    const ValueRecord* cached =
        dirty != dirty_.end() ? &dirty->second : records_.Find(*keys[i]);
    if (cached) {
      (*records)[i] = *cached;
    } else {
      missed.push_back(i);
    }
  }
  if (missed.empty()) return Status::OK();
  std::vector<rocksdb::Slice> slices;
  for (size_t i : missed) slices.emplace_back(*keys[i]);
  std::vector<rocksdb::PinnableSlice> values(missed.size());
  std::vector<rocksdb::Status> statuses(missed.size());
  db_->MultiGet(rocksdb::ReadOptions(), cfs_.values, missed.size(),
                slices.data(), values.data(), statuses.data(),
                /*sorted_input=*/true);
  for (size_t j = 0; j < missed.size(); ++j) {
    ValueRecord& rec = (*records)[missed[j]];
    if (!statuses[j].IsNotFound()) {
      BLOOMROUTE_RETURN_IF_ERROR(FromRocks(statuses[j]));
      BLOOMROUTE_RETURN_IF_ERROR(
          DecodeValueRecord(values[j].ToStringView(), &rec));
    }
    // Read under mu_, which every write of a record holds: what is stored.
    records_.Put(*keys[missed[j]], rec);
  }
  return Status::OK();
}

}  // namespace bloomroute::regionstore_internal
