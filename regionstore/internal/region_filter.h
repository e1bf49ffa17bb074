// RegionFilter: the region server's filter and everything that keeps it
// (DESIGN.md, "The global index and its invariants", 2-6): the SSCBF over the
// server's distinct indexed values, the value records it is derived from (a
// row count and a stage per value), its op log, checkpoints, the write fence,
// and the bits-only image pages a router reads. RocksRegionStore holds one
// and hands it every write's value changes; the region store's filter calls
// (region_store.h: Snapshot, SnapshotImagePage, OpsSince, GetFilterStatus,
// RaiseFence, CompactFilter, SetFilterConfig) are this class's.
//
//   auto filter = RegionFilter::Open(db, {values_cf, oplog_cf, meta_cf},
//                                    options, incarnation);
//   rocksdb::WriteBatch batch;  // the write's rows and index entries
//   ValueDeltas deltas;
//   AddDelta(&deltas, table_id, column_id, "NO", +1);
//   StatusOr<WriteResult> done = (*filter)->CommitWithValueChanges(
//       &batch, deltas, fence_token,
//       [&](rocksdb::WriteBatch* b) { return FromRocks(db->Write(wo, b)); });
//
// Persistence. Everything lives in three column families of the store's
// RocksDB, in records.h's encodings (keys.h's keys):
//   values: a ValueRecord (count, stage) per (table, column, value) that some
//     row holds, under ValueKey;
//   oplog: each filter change (epoch, insert/remove, hash, stage, occupancy
//     mask) under OpKey(seq);
//   meta: the checkpoint (epoch, seq, the serialized filter), the epoch mark
//     (the newest epoch and seq handed out, written with every checkpoint)
//     and the config a router set.
// A commit puts the value records and ops in the caller's WriteBatch, beside
// its rows and index entries: one atomic write holds a row and what it did to
// the filter. A checkpoint is written every Options::checkpoint_interval ops;
// the op log keeps the ops after the previous one, so a reader up to one
// interval behind catches up with OpsSince. A compaction writes the rebuilt
// filter, its records' new stages and its checkpoint in one batch.
//
// Counts. A value's record is written when its count crosses zero (it
// carries the stage) and when the counts are folded; every commit also
// appends one count journal entry (meta, CountJournalKey(seq)) holding the
// new count of each value it changed. A value's count is its newest journal
// entry's, else its record's; ReadValueRecords applies the journal, so what
// it returns is exact. Folding writes the journaled counts into the records
// and deletes the journal in one batch, when the journal holds
// Options::max_journaled_counts counts and on a compaction. Open replays
// the journal, so a restart reads at most that many. In memory, the journaled
// records (dirty_) and a cache of stored ones (value_record_cache.h) answer a
// commit without a RocksDB read. A record's count read directly lags by the
// counts journaled since the last fold; lookup planning asks PlanningCount.
//
// Recovery. Open restores the checkpoint and replays the ops after it (each
// must land where it did); if that fails -- checkpoint unreadable or
// missing, another config, an op that does not replay -- the filter is
// rebuilt from the value records under the mark's epoch + 1, from a seq past
// the mark and the op log: within one run an (epoch, seq) never names two
// different ops. Across runs without Options::sync the unsynced tail of the
// WAL can take ops readers have seen; the incarnation (drawn per run, never
// persisted, carried by every reply) tells them to take a snapshot.
//
// Thread-safety: every method may be called concurrently. mu_ (the filter
// lock) guards the filter, its sequence numbers, the fence and the config,
// and orders every read-modify-write of a value record and every op-log
// write: commits are serialized by it. Image pages are served under a lock
// of their own, taken after mu_ is released. Callers may hold locks of
// their own when they call in (the store holds its regions and row locks):
// under mu_ the filter calls nothing of theirs but a commit's writer.
//
// Errors: InvalidArgument for bad input (nothing changes), Aborted for a
// fenced write, IOError / Corruption from storage. When a failed write left
// changes in the filter that storage could not undo, the filter is broken:
// Snapshot, SnapshotImagePage and OpsSince answer Unavailable until a
// rebuild succeeds, and a commit first tries that rebuild (IOError when it
// fails).
#ifndef BLOOMROUTE_REGIONSTORE_INTERNAL_REGION_FILTER_H_
#define BLOOMROUTE_REGIONSTORE_INTERNAL_REGION_FILTER_H_

#include <rocksdb/db.h>
#include <rocksdb/snapshot.h>
#include <rocksdb/write_batch.h>

#include <chrono>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <random>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

#include "common/statusor.h"
#include "index/scalable_split_counting_bloom_filter.h"
#include "model/region_protocol.h"
#include "regionstore/internal/filter_log.h"
#include "regionstore/internal/records.h"
#include "regionstore/internal/router_fences.h"
#include "regionstore/internal/value_record_cache.h"
#include "regionstore/region_store.h"

namespace bloomroute::regionstore_internal {

// Net change of the number of rows holding one (table, column, value).
struct ValueDelta {
  uint64_t table_id = 0;
  uint32_t column_id = 0;
  std::string value;
  int64_t delta = 0;
};
// Keyed by ValueKey(), so values are processed in one deterministic order.
using ValueDeltas = std::map<std::string, ValueDelta>;
// Adds `delta` to the change of (table, column, value).
void AddDelta(ValueDeltas* deltas, uint64_t table, uint32_t column,
              const std::string& value, int64_t delta);

// Every value record: (value key, record), in key order.
using ValueRecords = std::vector<std::pair<std::string, ValueRecord>>;

// The column families of the store's RocksDB that hold the filter's state
// (see "Persistence" above). Not owned.
struct FilterColumnFamilies {
  rocksdb::ColumnFamilyHandle* values = nullptr;
  rocksdb::ColumnFamilyHandle* oplog = nullptr;
  rocksdb::ColumnFamilyHandle* meta = nullptr;
};

// The bits-only image readers page through (RegionStore::SnapshotImagePage):
// at most one is kept, dropped after its last page is served or when no page
// of it was asked for during the idle time. Thread-safe (mu_).
class FilterImagePages {
 public:
  FilterImagePages(size_t page_bytes, uint64_t idle_ms);
  FilterImagePages(const FilterImagePages&) = delete;
  FilterImagePages& operator=(const FilterImagePages&) = delete;

  // With `fresh`: keeps it under a new random nonzero id (replacing the
  // kept image) and returns its page at `offset`. Without: the page at
  // `offset` of kept image `image_id`; NotFound ("expired; start a new one")
  // when it is not kept. A page is at most page_bytes; InvalidArgument for
  // an offset not below the image's size.
  StatusOr<FilterImagePage> Page(std::optional<FilterImage> fresh,
                                 uint64_t image_id, uint64_t offset);

 private:
  struct KeptImage {
    FilterImage image;
    uint64_t id = 0;
    std::chrono::steady_clock::time_point last_used;
  };
  const size_t page_bytes_;
  const std::chrono::milliseconds idle_;
  std::mutex mu_;  // guards kept_ and ids_
  std::optional<KeptImage> kept_;
  std::mt19937_64 ids_;  // seeded at random
};

class RegionFilter {
 public:
  // Restores the filter from `db` (see "Recovery"), or creates it for a new
  // store, and persists a checkpoint. The config is the one a router set
  // (persisted), else options.filter. `db` and the column families must
  // outlive the filter. Corruption when the checkpoint is unusable and the
  // epoch mark unreadable (no unused epoch can be chosen) or a record does
  // not decode; IOError from storage.
  static StatusOr<std::unique_ptr<RegionFilter>> Open(
      rocksdb::DB* db, const FilterColumnFamilies& cfs,
      const RegionStoreOptions& options, uint64_t incarnation);
  RegionFilter(const RegionFilter&) = delete;
  RegionFilter& operator=(const RegionFilter&) = delete;

  // What a write must do to the filter, then the write itself, under mu_:
  //   1. Aborted, nothing written and `write` not called, when fence_token
  //      is nonzero and below the fence;
  //   2. applies `deltas` to the value records: a count going 0 -> n
  //      inserts the value's element (the record keeps its stage), one
  //      going n -> 0 removes it from its recorded stage and deletes the
  //      record; each such change is an op with the next seq. The records
  //      and ops are added to `batch`. When the filter has no stage left for
  //      the new values, it is first rebuilt sized for them under a new
  //      epoch;
  //   3. `write(batch)` stores the batch, all of it or nothing (its Status
  //      is returned when not OK); it runs under mu_;
  //   4. writes a checkpoint, or compacts, when one is due.
  // The result carries the ops (none when the epoch changed: readers take a
  // snapshot), the incarnation, epoch and last_seq. On any error nothing of
  // the batch is stored and the filter is as the value records describe it.
  // Corruption when a count would go below zero.
  using BatchWriter = std::function<Status(rocksdb::WriteBatch*)>;
  StatusOr<WriteResult> CommitWithValueChanges(rocksdb::WriteBatch* batch,
                                               const ValueDeltas& deltas,
                                               uint64_t fence_token,
                                               const BatchWriter& write);

  // Rebuilds the filter right-sized from the value records under a new
  // epoch (RegionStore::CompactFilter). Holds commits off meanwhile.
  [[nodiscard]] Status Compact();
  // RegionStore::SetFilterConfig: a no-op for the filter's config; else
  // persists `config` and compacts with it. InvalidArgument for an invalid
  // config.
  [[nodiscard]] Status SetConfig(const SscbfConfig& config);
  // From now on, commits with a nonzero fence token of `token`'s router
  // below `token` are refused (RouterFences). The fence only rises; it
  // lives in memory.
  void RaiseFence(uint64_t token);

  // RegionStore::Snapshot. Unavailable while the filter is broken.
  StatusOr<FilterSnapshot> Snapshot() const;
  // RegionStore::SnapshotImagePage: image_id 0 raises the fence to
  // `fence_token` under mu_ and takes a new image (offset must be 0).
  StatusOr<FilterImagePage> SnapshotImagePage(uint64_t fence_token,
                                              uint64_t image_id,
                                              uint64_t offset);
  // RegionStore::OpsSince: at most Options::max_ops_per_call ops after
  // `seq`, read from a RocksDB snapshot taken under mu_ (the log exactly as
  // of last_seq) without holding mu_.
  StatusOr<FilterOpsSince> OpsSince(uint64_t incarnation, uint64_t epoch,
                                    uint64_t seq) const;
  FilterStatus GetStatus() const;

  // A RocksDB snapshot and the serialized filter, taken together under mu_:
  // the value records as of the snapshot are those the filter holds.
  // snapshot->snapshot() is null when the database gives none.
  struct SnapshotAndFilter {
    std::unique_ptr<rocksdb::ManagedSnapshot> snapshot;
    std::string filter;  // ScalableSplitCountingBloomFilter::Serialize()
  };
  SnapshotAndFilter TakeSnapshotAndFilter() const;
  // The count a lookup plans by for the value at `value_key` whose record
  // says `recorded`: the journal's newer count when it holds one. Takes mu_
  // for a hash lookup.
  uint64_t PlanningCount(const std::string& value_key, uint64_t recorded) const;
  // Every value record as of `snapshot` (null: now), without mu_, with the
  // count journal's counts. Corruption for a record or journal entry that
  // does not decode, or a journal that names a value with no record.
  [[nodiscard]] Status ReadValueRecords(const rocksdb::Snapshot* snapshot,
                                        ValueRecords* records) const;
  // A filter starting at ladder stage `first_stage` with every record's
  // element in its recorded stage: what the records say the filter is.
  static StatusOr<ScalableSplitCountingBloomFilter> RebuildAtRecordedStages(
      const SscbfConfig& config, uint32_t first_stage,
      const ValueRecords& records);

 private:
  RegionFilter(rocksdb::DB* db, const FilterColumnFamilies& cfs,
               const RegionStoreOptions& options, uint64_t incarnation);

  // --- Open. Every *Locked method needs mu_ held.
  // Restores or creates the filter (see Open).
  Status LoadLocked();
  // The persisted config a router set, or Options::filter when none is.
  Status LoadConfigLocked();
  // The checkpoint with the later ops replayed. `unmasked_ops`: whether
  // some of them were recorded without their occupancy mask (format 1).
  StatusOr<FilterLog> RestoreFromCheckpoint(const std::string& bytes,
                                            bool* unmasked_ops) const;
  // Takes `restored` as the filter and checkpoints it, trimming the ops a
  // bits-only reader cannot use.
  Status ResumeLocked(FilterLog restored, bool unmasked_ops);

  // --- Commits.
  Status CheckFenceLocked(uint64_t fence_token) const;
  // AddValueChangesLocked, rebuilding the filter first (under a new epoch)
  // when it has no stage left for the batch's new values.
  Status AddValueChangesOrRebuildLocked(rocksdb::WriteBatch* batch,
                                        const ValueDeltas& deltas,
                                        std::vector<FilterOp>* ops);
  // Unavailable, for the caller to rebuild, when the filter has no stage
  // left for a new value.
  // The batch's new records wait in pending_records_ until its write
  // succeeds.
  Status AddValueChangesLocked(rocksdb::WriteBatch* batch,
                               const ValueDeltas& deltas,
                               std::vector<FilterOp>* ops);
  // The records of `keys` as stored, from the cache or else read (and then
  // cached); (*journaled)[i] points at keys[i]'s entry in dirty_, or is null
  // when dirty_ has none.
  Status FindRecordsLocked(const std::vector<const std::string*>& keys,
                           std::vector<ValueRecord>* records,
                           std::vector<ValueRecord*>* journaled);

  // The journal as of `snapshot` (null: now): each value's newest count,
  // and the seq one past the newest entry (0: none).
  Status ReadCountJournal(const rocksdb::Snapshot* snapshot,
                          std::map<std::string, uint64_t>* counts,
                          uint64_t* next_seq) const;
  // dirty_ and the journal's next seq from storage, the cache emptied.
  Status ReplayCountJournalLocked();
  // Writes dirty_'s counts into the records and deletes the journal.
  Status FoldCountsLocked();

  // --- Upkeep.
  // Rebuilds right-sized (for the records plus `extra_values`) with
  // `config` under `new_epoch`, rewriting each record's stage, and persists
  // it with a checkpoint (and `config` as the store's, when it is not
  // config_ already).
  Status CompactLocked(const SscbfConfig& config, uint64_t new_epoch,
                       uint64_t last_seq, uint64_t extra_values);
  // Persists the filter and the mark; drops the ops up to `trim_through`.
  Status WriteCheckpointLocked(uint64_t trim_through);
  // After a failed write: back to the state the records describe.
  void RestoreLocked(uint64_t epoch, uint64_t last_seq);
  // If a failed write left the filter broken, rebuild it; IOError if that
  // fails too.
  Status RepairLocked();
  // A checkpoint or a compaction, when one is due.
  void MaintainLocked();
  // Raises the fence and takes the filter's occupancy image, serialized,
  // under mu_ (the serialization outside it).
  StatusOr<FilterImage> TakeImage(uint64_t fence_token);

  rocksdb::DB* const db_;
  const FilterColumnFamilies cfs_;
  const RegionStoreOptions options_;
  const uint64_t incarnation_;
  rocksdb::WriteOptions write_options_;

  // The filter lock: guards everything below but pages_, and orders every
  // value-record read-modify-write and op-log write.
  mutable std::mutex mu_;
  std::optional<FilterLog> filter_;  // set by Open
  // The store's filter config: the one a router set (persisted), else
  // options_.filter. Compactions and rebuilds use it.
  SscbfConfig config_;
  bool config_persisted_ = false;    // config_ is a router's, in meta
  uint64_t checkpoint_seq_ = 0;      // seq of the newest persisted checkpoint
  uint64_t first_retained_seq_ = 1;  // the oldest op still in the op log
  // Set when a failed write left changes in the filter that storage could
  // not undo; commits repair it first, snapshots and ops wait for that.
  bool broken_ = false;
  // Commits with a nonzero token below their router's fence are refused.
  RouterFences fences_;
  // Counts (see "Counts"): the records whose count is journaled, by value
  // key; a cache of stored records; the records the commit in progress
  // writes, journaled once its write succeeded.
  std::unordered_map<std::string, ValueRecord> dirty_;
  ValueRecordCache records_;
  struct PendingRecord {
    const std::string* key;  // the commit's ValueDeltas key
    ValueRecord record;
    ValueRecord* journaled;  // the key's entry in dirty_, or null
  };
  std::vector<PendingRecord> pending_records_;
  uint64_t journal_next_seq_ = 0;  // key of the next journal entry
  uint64_t journal_counts_ = 0;    // counts in the journal since the fold
  // The (epoch, last_seq) at which NeedsCompaction last said no; {0, 0}:
  // none. See MaintainLocked.
  std::pair<uint64_t, uint64_t> compaction_checked_{0, 0};

  FilterImagePages pages_;  // taken after mu_ is released
};

}  // namespace bloomroute::regionstore_internal

#endif  // BLOOMROUTE_REGIONSTORE_INTERNAL_REGION_FILTER_H_
