// The RocksDB implementation of RegionStore. Private to regionstore/; its
// methods are spread over region_store*.cc by concern (open and regions,
// writes, reads, filter, verification). The filter and what keeps it (value
// records, op log, checkpoints, fence, image pages) are a RegionFilter's
// (region_filter.h): writes commit through it, the filter calls delegate.
#ifndef BLOOMROUTE_REGIONSTORE_INTERNAL_ROCKS_REGION_STORE_H_
#define BLOOMROUTE_REGIONSTORE_INTERNAL_ROCKS_REGION_STORE_H_

#include <rocksdb/db.h>
#include <rocksdb/snapshot.h>
#include <rocksdb/statistics.h>
#include <rocksdb/write_batch.h>
#include <rocksdb/write_buffer_manager.h>

#include <atomic>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <set>
#include <shared_mutex>
#include <string>
#include <unordered_map>
#include <vector>

#include "regionstore/internal/coordinator_epoch_gate.h"
#include "regionstore/internal/records.h"
#include "regionstore/internal/region_filter.h"
#include "regionstore/internal/row_locks.h"
#include "regionstore/op_subscriptions.h"
#include "regionstore/region_store.h"

namespace bloomroute::regionstore_internal {

// How a prepared write reaches RocksDB: one WriteBatch through the WAL, or
// (bulk loads) the same batch turned into one sorted SST file per column
// family and ingested atomically.
enum class WriteMode { kWriteBatch, kIngest };

// What one read call (Get, Scan, Lookup) may spend and has spent
// (RegionStoreOptions::max_result_bytes, max_examined_rows,
// max_examined_bytes). A call stops after the row that passes a bound.
struct ReadBudget {
  uint64_t max_reply_bytes = 0;
  uint64_t max_examined_rows = 0;
  uint64_t max_read_bytes = 0;
  uint64_t reply_bytes = 0;    // ReplyBytes of the rows answered
  uint64_t examined_rows = 0;  // rows and index entries looked at
  uint64_t read_bytes = 0;     // stored row bytes read
  std::string last_examined;   // a lookup's last index entry's row
  bool ReplyFull() const { return reply_bytes >= max_reply_bytes; }
  bool WorkDone() const {
    return examined_rows >= max_examined_rows || read_bytes >= max_read_bytes;
  }
};

// InvalidArgument unless `limit` is in [1, kMaxRowsPerCall].
Status ValidateReadLimit(uint32_t limit);
// The row with only the projected cells (every cell for an empty
// projection).
Row Project(std::string_view key, std::vector<Cell> cells,
            const Projection& columns);

class LookupRun;  // region_store_lookup.cc

// One row touched by a write batch: its cells before the batch and after it.
struct RowChange {
  const RegionDescriptor* region = nullptr;
  std::string row_key;
  std::vector<Cell> before;  // empty = the row did not exist
  std::vector<Cell> after;   // empty = the row is deleted
};

class RocksRegionStore final : public RegionStore {
 public:
  RocksRegionStore(std::string path, const RegionStoreOptions& options);
  ~RocksRegionStore() override;

  // Opens the database, the regions and the filter. Called once by Open().
  Status Init();

  using RegionStore::OpenRegion;
  Status OpenRegion(const RegionDescriptor& region, uint64_t incarnation,
                    bool staging) override;
  Status CloseRegion(uint64_t region_id) override;
  Status DropRegion(uint64_t region_id) override;
  std::vector<RegionDescriptor> ListRegions() const override;
  std::vector<uint64_t> OpenRegionIds() const override;
  StatusOr<std::optional<std::string>> SplitPoint(
      uint64_t region_id) const override;
  StatusOr<RegionStatsPage> GetRegionStats(
      const RegionStatsRequest& request) const override;
  std::vector<HostedRegion> HostedRegions() const override;
  StoreStats GetStoreStats() const override;

  using RegionStore::Apply;
  using RegionStore::BulkLoad;
  StatusOr<ExportedRows> ExportRows(const ExportRequest& req) override;
  using RegionStore::BulkLoadBytes;
  StatusOr<WriteResult> Apply(const std::vector<Mutation>& batch,
                              uint64_t fence_token) override;
  StatusOr<WriteResult> BulkLoad(uint64_t region_id, const std::string& path,
                                 uint64_t fence_token) override;
  StatusOr<WriteResult> BulkLoadBytes(uint64_t region_id, std::string_view file,
                                      uint64_t fence_token) override;

  using RegionStore::Get;
  StatusOr<std::vector<std::optional<Row>>> Get(
      const std::vector<GetRequest>& requests,
      uint64_t max_bytes) const override;
  StatusOr<ScanResult> Scan(const ScanRequest& request) const override;
  StatusOr<IndexQueryResult> Lookup(const IndexQuery& query) const override;

  StatusOr<FilterSnapshot> Snapshot() const override;
  StatusOr<FilterImagePage> SnapshotImagePage(uint64_t fence_token,
                                              uint64_t image_id,
                                              uint64_t offset) override;
  StatusOr<FilterOpsSince> OpsSince(uint64_t incarnation, uint64_t epoch,
                                    uint64_t seq) const override;
  FilterStatus GetFilterStatus() const override;
  void RaiseFence(uint64_t token) override;
  Status CompactFilter() override;
  Status SyncWal() override;
  // The largest bulk file BulkLoad takes: max_bulk_file_bytes, or a file
  // of one row of max_row_bytes when that is larger.
  uint64_t BulkFileLimit() const;
  Status SetFilterConfig(const SscbfConfig& config) override;

  StatusOr<IndexReport> VerifyIndex(
      std::optional<uint64_t> table_id) const override;

  Status UpdateTableIndexes(const TableDescriptor& table) override;
  StatusOr<IndexChunkResult> BackfillIndex(uint64_t region_id,
                                           uint32_t column_id,
                                           std::string_view after_row,
                                           uint32_t max_rows,
                                           uint64_t fence_token) override;
  StatusOr<IndexChunkResult> DropIndexEntries(uint64_t region_id,
                                              uint32_t column_id,
                                              uint32_t max_entries,
                                              uint64_t fence_token) override;

  // Coordinator epochs (region_store_coordinator.cc).
  using RegionStore::BackfillIndex;
  using RegionStore::CloseRegion;
  using RegionStore::DropIndexEntries;
  using RegionStore::DropRegion;
  using RegionStore::SetFilterConfig;
  using RegionStore::UpdateTableIndexes;
  Status RunAsCoordinator(CoordinatorEpoch epoch,
                          const std::function<Status()>& call) override;
  uint64_t CoordinatorEpochSeen() const override;
  // Op subscriptions (regionstore/op_subscriptions.h, region_store_push.cc).
  StatusOr<OpSubscribeGrant> SubscribeOps(
      const OpSubscribeRequest& request) override;
  size_t OpSubscriberCount() const override;

  // Test hooks, each called (when set) in the middle of a long operation,
  // so that a test can check what other calls may do meanwhile:
  // drop_batch_done after each batch of a DropRegion's deletes,
  // verify_scanning when VerifyIndex has taken its state and starts
  // scanning. Set before the store is used concurrently.
  struct LongWorkHooks {
    std::function<void()> drop_batch_done;
    std::function<void()> verify_scanning;
  };
  void SetLongWorkHooksForTesting(LongWorkHooks hooks) {
    hooks_ = std::move(hooks);
  }

 private:
  // --- open and regions (region_store.cc)
  Status OpenDatabase();
  Status LoadRegions();
  // An open region, or NotFound naming it. Caller holds regions_mu_.
  StatusOr<const RegionDescriptor*> OpenRegionLocked(uint64_t region_id) const;
  Status PutRegionRecord(const StoredRegion& region);
  // OpenRegion's checks of `region` against the regions the server knows:
  // the same descriptor for a known id, the same table descriptor, no
  // overlap with an open region of the same plane (staged or serving, as
  // `staged` says). Caller holds regions_mu_.
  Status CheckOpenLocked(const RegionDescriptor& region, bool staged) const;
  // DropRegion's steps: closes the region and marks it dropping (NotFound
  // for an unknown region, Aborted when another drop of it runs); deletes
  // its rows in batches of kDropBatchRows, holding no lock between them.
  StatusOr<RegionDescriptor> BeginDrop(uint64_t region_id);
  Status DeleteRegionRows(const RegionDescriptor& region);
  static constexpr size_t kDropBatchRows = 1000;

  // --- coordinator epochs (region_store_coordinator.cc)
  // Reads the persisted epoch into coordinator_gate_ (Init).
  Status LoadCoordinatorEpoch();

  // --- region statistics (region_store_stats.cc)
  // The rows of one region, counted (keys only) from a snapshot-free
  // iterator; IOError from storage.
  StatusOr<uint64_t> CountRegionRows(uint64_t region_id) const;
  // RocksDB's size estimate of `region_id`'s keys in `cf`.
  uint64_t ApproximateRegionBytes(rocksdb::ColumnFamilyHandle* cf,
                                  uint64_t region_id) const;
  // Where a region the server knows stands. Caller holds regions_mu_.
  RegionState StateLocked(uint64_t region_id, const StoredRegion& r) const;
  // RocksDB's integer property `name` of `cf`, 0 when it has none.
  uint64_t IntProperty(rocksdb::ColumnFamilyHandle* cf,
                       const std::string& name) const;
  StorageEngineStats EngineStats() const;

  // --- the index lifecycle (region_store_index.cc)
  // UpdateTableIndexes with regions_mu_ held exclusively.
  Status UpdateTableIndexesLocked(const TableDescriptor& table);
  // The next keys (without the region prefix) of the region after `after`,
  // at most `max`; `*end` is set when the region has no more.
  Status NextRowKeys(const RegionDescriptor& region, std::string_view after,
                     size_t max, std::vector<std::string>* keys,
                     bool* end) const;
  // The first index entries (whole keys) of column `column_id` in region
  // `region_id`, at most `max`; `*end` is set when the column has no more.
  Status FirstIndexEntries(uint64_t region_id, uint32_t column_id, size_t max,
                           std::vector<std::string>* entries, bool* end) const;
  // Under the locks of `rows` (keys without the region prefix, ascending):
  // adds the missing entries of `col` and commits them with their counts
  // and filter ops into `out`. Needs regions_mu_ held (shared).
  Status BackfillRows(const RegionDescriptor& region, const IndexedColumn& col,
                      const std::vector<std::string>& rows,
                      uint64_t fence_token, IndexChunkResult* out);
  // An index entry a backfill wants (IndexKey) and its value.
  struct BackfillEntry {
    std::string key;
    std::string value;
  };
  // The entries of `col` that `rows` (with their RowKeys `keys`, both
  // ascending) hold now, in key order; rows without the column, or gone,
  // have none. Needs the rows' locks held.
  Status IndexEntriesOfRowsLocked(uint64_t region_id, const IndexedColumn& col,
                                  const std::vector<std::string>& rows,
                                  const std::vector<std::string>& keys,
                                  std::vector<BackfillEntry>* wanted) const;
  // Puts into `wb` those of `wanted` (in key order) that are not stored,
  // each counted +1 in `deltas`. Needs their rows' locks held.
  Status AddMissingEntriesLocked(uint64_t table_id, uint32_t column_id,
                                 const std::vector<BackfillEntry>& wanted,
                                 rocksdb::WriteBatch* wb,
                                 ValueDeltas* deltas) const;

  // --- writes (region_store_write.cc)
  Status ValidateMutation(const Mutation& m, const RegionDescriptor& r) const;
  // `row` names the row for messages.
  Status ValidateCondition(const RowCondition& c,
                           std::string_view row_key) const;
  // Applies the batch's mutations, in order, to the rows' `after` cells
  // (mutation i to (*changes)[change_of[i]]): a mutation whose condition
  // does not hold on the row's `before` is skipped. `outcomes` gets one
  // entry per mutation unless every mutation is an unconditional put or
  // delete. InvalidArgument (nothing to be written) for an increment of a
  // cell that is not a long or a new value over max_value_bytes.
  // `now`: the batch's clock reading, for cells without a timestamp.
  Status ApplyToRows(const std::vector<Mutation>& batch,
                     const std::vector<size_t>& change_of, int64_t now,
                     std::vector<RowChange>* changes,
                     std::vector<MutationOutcome>* outcomes) const;
  // The clock cell timestamps come from (RegionStoreOptions::clock_ms).
  int64_t NowMs() const;
  // Under the rows' locks: reads the old rows, computes the rows, index
  // entries and count changes, and commits them. The one write path of
  // The writes as they were before op pushes: Apply, BulkLoad,
  // BackfillIndex and DropIndexEntries wait for the subscribed routers
  // (Pushed) after these returned and released their locks.
  StatusOr<WriteResult> ApplyUnpushed(const std::vector<Mutation>& batch,
                                      uint64_t fence_token);
  StatusOr<WriteResult> BulkLoadUnpushed(uint64_t region_id,
                                         const std::string& path,
                                         uint64_t fence_token);
  StatusOr<IndexChunkResult> BackfillIndexUnpushed(uint64_t region_id,
                                                   uint32_t column_id,
                                                   std::string_view after_row,
                                                   uint32_t max_rows,
                                                   uint64_t fence_token);
  StatusOr<IndexChunkResult> DropIndexEntriesUnpushed(uint64_t region_id,
                                                      uint32_t column_id,
                                                      uint32_t max_entries,
                                                      uint64_t fence_token);
  // Waits until the write's ops reached the subscribed routers
  // (OpSubscriptions::AwaitDelivered); no lock may be held.
  void AwaitPushed(uint64_t fence_token, const WriteResult& result);
  // Creates subscriptions_ when Options::op_push_sinks is set.
  void StartOpSubscriptions();

  // Apply, BulkLoad and DropRegion.
  StatusOr<WriteResult> ApplyResolved(
      const std::vector<Mutation>& batch,
      const std::vector<const RegionDescriptor*>& regions, WriteMode mode,
      uint64_t fence_token);
  // The batch with its value changes, through the filter
  // (RegionFilter::CommitWithValueChanges), written as `mode` says.
  StatusOr<WriteResult> Commit(rocksdb::WriteBatch* batch,
                               const ValueDeltas& deltas, WriteMode mode,
                               uint64_t fence_token);
  // Writes the batch as `mode` says; what Commit hands the filter.
  Status WriteBatchAs(WriteMode mode, rocksdb::WriteBatch* batch);
  // Reads the rows at `keys` (RowKey) into (*changes)[i].before and .after
  // (left empty for a row that does not exist). Caller holds the rows'
  // locks.
  Status ReadRowsLocked(const std::vector<std::string>& keys,
                        std::vector<RowChange>* changes) const;
  // Puts each changed row (at keys[i]) into `wb`, or deletes it, with its
  // index entries, each column family's in key order; the count changes
  // into `deltas`. InvalidArgument for a row over max_row_bytes.
  Status AddRowWrites(const std::vector<std::string>& keys,
                      const std::vector<RowChange>& changes,
                      rocksdb::WriteBatch* wb, ValueDeltas* deltas) const;
  // An index entry to put (or, `remove`, to delete).
  struct IndexWrite {
    std::string key;
    bool remove = false;
    bool operator<(const IndexWrite& o) const { return key < o.key; }
  };
  // The index entries and count changes that take `change` from before to
  // after (building columns: an old entry only when it exists).
  Status AddIndexChanges(const RowChange& change,
                         std::vector<IndexWrite>* writes,
                         ValueDeltas* deltas) const;

  // --- bulk loads (region_store_bulk.cc)
  // Empties (creating it if needed) the directory for uploaded and prepared
  // bulk files; leftovers are from a crash in the middle of a load.
  Status ResetStagingDir();
  // A new file name in the staging directory, unique for this process.
  std::string StagingFile(std::string_view what);
  // Stores the batch as one SST file per column family, ingested at once.
  Status IngestBatch(rocksdb::WriteBatch* batch);

  // --- verification (region_store_verify.cc)
  // One consistent state of the store, taken under the locks and checked
  // without them.
  struct VerifyState {
    std::map<uint64_t, StoredRegion> regions;
    std::unique_ptr<rocksdb::ManagedSnapshot> snapshot;  // rows and index
    ValueRecords records;
    std::optional<ScalableSplitCountingBloomFilter> filter;
  };
  Status TakeVerifyState(VerifyState* state) const;
  // `expected` receives each value key's count as the rows imply it.
  Status VerifyRows(const rocksdb::ReadOptions& ro, const VerifyState& state,
                    std::optional<uint64_t> table_id,
                    std::unordered_map<std::string, uint64_t>* expected,
                    IndexReport* report) const;
  Status VerifyIndexEntries(const rocksdb::ReadOptions& ro,
                            const VerifyState& state,
                            std::optional<uint64_t> table_id,
                            IndexReport* report) const;
  Status VerifyValues(const VerifyState& state,
                      std::optional<uint64_t> table_id,
                      std::unordered_map<std::string, uint64_t> expected,
                      IndexReport* report) const;

  // --- reads (region_store_read.cc)
  // The row's projected cells within `time_range` (nullopt when none is
  // left); adds the stored row's size to `budget->read_bytes` when `budget`
  // is given.
  StatusOr<std::optional<Row>> ReadRow(const rocksdb::ReadOptions& ro,
                                       const RegionDescriptor& region,
                                       std::string_view row_key,
                                       const Projection& columns,
                                       const TimeRange& time_range,
                                       ReadBudget* budget = nullptr) const;
  // The budget of one read call: the options' bounds, and `max_bytes` of
  // the request when it is nonzero and smaller.
  ReadBudget BudgetFor(uint64_t max_bytes) const;
  StatusOr<std::vector<const RegionDescriptor*>> LookupRegionsLocked(
      const IndexQuery& query, const TableDescriptor** table) const;
  // One Lookup's work over the regions (region_store_lookup.cc).
  friend class LookupRun;

  const std::string path_;
  const RegionStoreOptions options_;
  const uint64_t incarnation_;  // drawn at random for this run
  // RocksDB's tickers (GetStoreStats); set before the database opens.
  std::shared_ptr<rocksdb::Statistics> statistics_;
  // Bounds every memtable of the store (Options::memtable_bytes; set before
  // the database opens): GetStoreStats reads its count.
  std::shared_ptr<rocksdb::WriteBufferManager> write_buffers_;
  std::unique_ptr<rocksdb::DB> db_;
  std::vector<rocksdb::ColumnFamilyHandle*> handles_;  // owned
  rocksdb::ColumnFamilyHandle* rows_cf_ = nullptr;
  rocksdb::ColumnFamilyHandle* index_cf_ = nullptr;
  rocksdb::ColumnFamilyHandle* values_cf_ = nullptr;
  rocksdb::ColumnFamilyHandle* oplog_cf_ = nullptr;
  rocksdb::ColumnFamilyHandle* meta_cf_ = nullptr;
  rocksdb::WriteOptions write_options_;

  // Guards regions_ and dropping_. Writes and reads hold it shared for their
  // whole run, so closing a region or starting to drop one waits for them.
  mutable std::shared_mutex regions_mu_;
  std::map<uint64_t, StoredRegion> regions_;
  // Regions a DropRegion is deleting (closed; not reopened meanwhile).
  std::set<uint64_t> dropping_;

  RowLocks row_locks_;
  std::atomic<uint64_t> next_staging_file_{0};
  // GetStoreStats' counters (relaxed: totals, not ordering).
  std::atomic<uint64_t> mutations_applied_{0};
  std::atomic<uint64_t> wal_syncs_{0};

  // The filter, its value records, op log, checkpoints and fence; set by
  // Init. Writes commit through it (Commit).
  std::unique_ptr<RegionFilter> filter_;
  // Admits the coordinator's calls by epoch; set by Init.
  std::unique_ptr<CoordinatorEpochGate> coordinator_gate_;
  // Set by Init when Options::op_push_sinks is; destroyed before filter_
  // (its threads read the op log).
  std::unique_ptr<OpSubscriptions> subscriptions_;

  LongWorkHooks hooks_;
};

}  // namespace bloomroute::regionstore_internal

#endif  // BLOOMROUTE_REGIONSTORE_INTERNAL_ROCKS_REGION_STORE_H_
