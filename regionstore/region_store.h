// RegionStore: the core of a region server (no RPC in it).
//
// One RocksDB instance holds every region the server hosts, in column
// families: rows, the local inverted index, per-server value counts, the
// filter op log, and metadata (open regions, the filter checkpoint). The
// server also owns the authoritative SSCBF over its distinct indexed values
// (../shared/DESIGN.md, "The global index and its invariants").
//
// Writes. A batch of mutations is applied atomically: under per-row locks the
// old rows are read and the index changes computed; then, under the filter
// lock, the value counts are updated, a value's element is inserted into the
// filter when its count goes 0 -> 1 and removed from its recorded stage when
// it goes 1 -> 0, each filter change gets the next sequence number, and ONE
// RocksDB WriteBatch holds the rows, index entries, counts and filter ops.
// With Options::sync the batch is synced before the call returns.
//
// Filter access. Snapshot() returns the serialized filter with the last
// sequence number and epoch; OpsSince(epoch, seq) returns later ops or says
// "too old" (trimmed, or another epoch). A checkpoint of the filter is
// persisted every Options::checkpoint_interval ops; the op log keeps the ops
// after the previous checkpoint, so a reader up to one interval behind can
// catch up without a snapshot. When the filter has more than
// Options::max_filter_stages stages, or holds fewer than 1/sparse_factor of
// the elements its stages were sized for, it is rebuilt right-sized from the
// value records under a new epoch.
//
// Restart. Open() restores the filter from the checkpoint plus the later ops;
// if that fails (or the filter's config is not the store's) it rebuilds the
// filter from the value records under a new epoch. The store's config is the
// one a router last set (SetFilterConfig, persisted), else Options::filter.
// VerifyIndex() checks, from scratch, that rows, index entries, value counts
// and filter all agree.
//
// Incarnation. Every Open() draws a new random incarnation
// (model/region_protocol.h), carried by write results, snapshots, ops and
// status. Without --sync a power loss drops the unsynced tail of the WAL, and a
// copy of the directory put back drops more: the reopened store may then hand
// out an (epoch, seq) it handed out before, with other ops. The incarnation,
// never persisted, tells a reader that its copy of the filter came from another
// run: it takes a snapshot instead of trusting sequence numbers.
//
// Fencing. A router tags each write with its fence token and raises the
// store's fence (RaiseFence) before it catches up after a write whose fate
// it does not know. A token names its router (model/op_push.h) and the
// store keeps one fence per router id (at most
// regionstore_internal::RouterFences::kMaxRouters; older ids are retired,
// not forgotten): a write whose nonzero token is below its router's fence is
// refused with Aborted, under the lock that orders filter ops, so once
// RaiseFence returns no such write can commit: a catch-up that reads the
// filter after it sees every write the router ever sent with an older token,
// or none of it ever lands. One router's fence never refuses another's
// writes. The fences live in memory: a request sent to an earlier run of the
// server died with that run. Token 0 (a writer other than a router) is never
// fenced.
//
// Coordinator epochs. One router, the coordinator, makes the calls that
// change which regions a server holds and how (OpenRegion, CloseRegion,
// DropRegion, UpdateTableIndexes, BackfillIndex, DropIndexEntries,
// SetFilterConfig), each with its epoch (CoordinatorEpoch,
// model/region_protocol.h): the overloads taking one below, which run the
// call through RunAsCoordinator. The store keeps the highest epoch it has
// seen, persisted synchronously in its RocksDB before it acts on a call
// carrying a higher one, so a restarted store still knows it. A call with
// a lower epoch is refused with Aborted "coordinator epoch N is older than
// M: another router coordinates this cluster now" (CoordinatorEpochRefused)
// and does nothing; an equal epoch runs. A call raising the epoch waits
// until every call admitted with a lower one has returned: once a call of
// epoch M has started, nothing of an older coordinator runs here again. The
// overloads without an epoch (epoch 0: tools, tests, the server itself) are
// never refused and raise nothing. Calls on rows (Apply, BulkLoad, reads,
// lookups) and the filter's (snapshots, ops) are any router's and carry no
// epoch; ExportRows and SplitPoint only read.
//
// A wiped router catalog. Today a router's epoch is its start count in its
// catalog (router/internal/catalog.h): a router whose catalog was lost or
// restored from an old copy starts again at a low epoch, and every server
// that saw a higher one refuses it -- the router stops coordinating and says
// so in its log, and changes nothing. That is on purpose: the servers cannot
// tell such a router from a stale coordinator come back, and nothing here
// lowers an epoch (there is no reset; a store's epoch only rises). The
// operator, once sure no other router coordinates, starts the router with
// its epochs above the servers' (router --min-coordinator-epoch M+1,
// RouterOptions::min_coordinator_epoch), M being the epoch the refusal
// names.
//
// Errors: InvalidArgument for bad input (nothing is written), NotFound for an
// unknown region, IOError / Corruption from storage.
// Thread-safety: every method may be called concurrently.
#ifndef BLOOMROUTE_REGIONSTORE_REGION_STORE_H_
#define BLOOMROUTE_REGIONSTORE_REGION_STORE_H_

#include <algorithm>
#include <array>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "common/statusor.h"
#include "index/scalable_split_counting_bloom_filter.h"
#include "model/index_query.h"
#include "model/op_push.h"
#include "model/region_protocol.h"
#include "model/rows.h"

namespace bloomroute {

class OpPushSinkFactory;  // regionstore/op_subscriptions.h

struct RegionStoreOptions {
  // The filter config of a store no router has configured yet. Once one has
  // (SetFilterConfig), the store keeps the router's config, also across
  // restarts, and this is not used.
  SscbfConfig filter;
  // Sync the WAL before acknowledging a write (durable against power loss).
  bool sync = false;
  // The clock cell timestamps come from (ms since the Unix epoch, >= 0):
  // read once per write batch, it replaces kLatestTimestamp ("now") in puts
  // and deletes. Null = the system clock. Tests give a fake one.
  std::function<int64_t()> clock_ms;
  size_t max_value_bytes = kDefaultMaxValueBytes;  // one cell value
  size_t max_row_bytes = 16 << 20;  // a whole encoded row after the write
  size_t max_mutations_per_batch = 10000;
  uint64_t checkpoint_interval = 10000;  // filter ops between checkpoints
  uint32_t max_filter_stages = 8;        // rebuild above this many stages
  double sparse_factor = 8;  // rebuild when sized for > this x the elements
  // Value counts (internal/region_filter.h, "Counts"). Stored value records
  // the filter keeps in memory, at most, so that a put reads no count from
  // RocksDB (about 100 bytes each); 0: a put reads those not journaled.
  size_t value_record_cache_entries = 1 << 16;
  // Counts the count journal holds before they are folded into the value
  // records (>= 1): bounds what a restart replays (~40 bytes a count) and
  // the journaled records held in memory (~100 bytes each). With 5 indexed
  // columns and ~6,000 values in use (put_benchmark) a fold comes every
  // ~26,000 puts and writes ~6,000 records: ~0.2 a put, not one a column.
  uint64_t max_journaled_counts = 1 << 17;
  // Ops returned by one OpsSince call, at most.
  uint32_t max_ops_per_call = 100000;
  // Reply bytes (ReplyBytes, model/rows.h) of one Get, Scan or Lookup,
  // about: the call stops after the row that passes it (a get answers a
  // prefix of its requests, a scan sets resume_row, a lookup truncated), so
  // a reply -- at most this plus one row of max_row_bytes -- stays within
  // what a client's frame limit (64 MiB by default) accepts. A request may
  // ask for less.
  size_t max_result_bytes = 32 << 20;
  // Work of one Scan or Lookup, at most: rows and index entries examined,
  // and bytes of rows read (also rows a projection or a predicate then
  // drops). A call that reaches either stops where it is and says where to
  // resume (a scan's resume_row, a lookup's resume_after), possibly with no
  // row, so a scan or lookup that matches little cannot hold a worker for
  // the whole region.
  uint64_t max_examined_rows = 1000000;
  uint64_t max_examined_bytes = 256 << 20;
  // One bulk file (BulkLoad), at most: rows and bytes (bulk files are not
  // compressed, and at most twice this many bytes of keys and values are
  // read from one). A load holds the file's rows and their changes in
  // memory, so this bounds its memory.
  uint64_t max_bulk_rows = 1000000;
  uint64_t max_bulk_file_bytes = 32 << 20;
  // Bytes of one page of a bits-only filter snapshot (SnapshotImagePage),
  // at most: in [kMinFilterImagePageBytes, kMaxFilterImagePageBytes], well
  // within a client's frame limit (64 MiB by default).
  static constexpr size_t kMinFilterImagePageBytes = 4 << 10;
  static constexpr size_t kMaxFilterImagePageBytes = 32 << 20;
  size_t filter_image_page_bytes = 4 << 20;
  // A filter image not asked for during this long is dropped (>= 1).
  uint64_t filter_image_idle_ms = 60000;
  // Op subscriptions (regionstore/op_subscriptions.h): how the server
  // reaches a subscribed router. Null: SubscribeOps is refused and writes
  // wait for no one (one router, which learns its writes' ops from their
  // replies). `monotonic_ms` is the lease clock (null: steady_clock).
  std::shared_ptr<OpPushSinkFactory> op_push_sinks;
  std::function<int64_t()> monotonic_ms;
  size_t max_op_subscribers = 64;
  // The longest lease granted; after Open every write waits this long plus
  // its margin before it is acknowledged (OpSubscriptions, "Restarts"): a
  // router may still trust a lease the previous run granted.
  int64_t max_op_lease_ms = 15000;
  // RocksDB's memory (region_store.cc, "Memory", says how the defaults were
  // chosen). One LRU block cache of this many bytes that every column
  // family's blocks share, in [kMinBlockCacheBytes, kMaxBlockCacheBytes].
  static constexpr size_t kMinBlockCacheBytes = size_t{1} << 20;
  static constexpr size_t kMaxBlockCacheBytes = size_t{1} << 40;
  size_t block_cache_bytes = 32 << 20;
  // The memtables of all column families together (a WriteBufferManager):
  // past this many bytes the store flushes one to an SST file, in
  // [kMinMemtableBytes, kMaxMemtableBytes]. A flush trigger, not a stall:
  // while flushes lag behind writes the memtables may exceed it, each
  // column family's still bounded by its own size (two memtables of 64 MiB
  // at most, the index's of 16 MiB).
  static constexpr size_t kMinMemtableBytes = size_t{4} << 20;
  static constexpr size_t kMaxMemtableBytes = size_t{1} << 40;
  size_t memtable_bytes = 64 << 20;

  Status Validate() const;
};

// A region the server knows, and where it stands (RegionStore::
// HostedRegions).
struct HostedRegion {
  RegionDescriptor descriptor;
  RegionState state = RegionState::kOpen;
};

// What RocksDB reports about itself (RegionStore::GetStoreStats): its
// statistics' tickers since the store was opened, and DB properties now.
struct StorageEngineStats {
  uint64_t block_cache_hits = 0;    // BLOCK_CACHE_HIT (data, index, filter)
  uint64_t block_cache_misses = 0;  // BLOCK_CACHE_MISS
  uint64_t stall_micros = 0;        // STALL_MICROS: writes slowed or stopped
  // rocksdb.estimate-pending-compaction-bytes, summed over column families:
  // what compaction must rewrite to bring every level under its target.
  uint64_t pending_compaction_bytes = 0;
  bool write_stopped = false;  // rocksdb.is-write-stopped
  // rocksdb.actual-delayed-write-rate: bytes/s writes are held to while
  // RocksDB slows them down; 0 while they are not slowed.
  uint64_t delayed_write_rate = 0;
  // The block cache every column family shares (rocksdb.block-cache-
  // capacity and rocksdb.block-cache-usage, read through the rows column
  // family): its capacity (RegionStoreOptions::block_cache_bytes) and the
  // bytes of blocks it holds now -- blocks of any column family.
  uint64_t block_cache_capacity = 0;
  uint64_t block_cache_usage = 0;
  // Bytes of every column family's memtables now, those being flushed
  // included (the WriteBufferManager's count, which bounds them), and the
  // bound (RegionStoreOptions::memtable_bytes).
  uint64_t memtable_bytes = 0;
  uint64_t memtable_limit = 0;
};

// What a store as a whole holds and has done, for metrics and status pages
// (RegionStore::GetStoreStats). Counters count from the store's Open(): a
// restart starts them again at 0.
struct StoreStats {
  // Regions the server knows, by state (index: RegionState).
  std::array<uint64_t, kRegionStateCount> regions{};
  // RocksDB's estimate of the rows of every region the server knows
  // (rocksdb.estimate-num-keys of the rows column family): exact for rows
  // only ever inserted, off by overwrites and deletes until compaction
  // merges them. GetRegionStats counts exactly, at the price of a scan.
  uint64_t estimated_rows = 0;
  // Bytes of rows and index entries: live SST files (compressed) plus
  // memtables, of the rows and index column families.
  uint64_t estimated_bytes = 0;
  // Mutations applied by committed writes: Apply's (those whose condition
  // held), BulkLoad's rows, and DropRegion's deletes of rows.
  uint64_t mutations_applied = 0;
  // Syncs of the WAL: committed write batches written with
  // RegionStoreOptions::sync (writes, drops, index chunks), and SyncWal
  // calls.
  uint64_t wal_syncs = 0;
  StorageEngineStats rocksdb;
};

class RegionStore {
 public:
  // Opens or creates the store in directory `path`. The regions it hosted
  // keep their data but are not served until OpenRegion names them again:
  // as in HBase, a restarted server serves what its master (the router)
  // assigns it, and the router does so only after it has seen the new
  // incarnation, so that no row of this run is readable while the router
  // still trusts its copy of the previous run's filter.
  static StatusOr<std::unique_ptr<RegionStore>> Open(
      const std::string& path, const RegionStoreOptions& options);
  virtual ~RegionStore() = default;

  // Starts serving a region and persists its descriptor. Idempotent for an
  // identical descriptor. InvalidArgument when the id is known with another
  // descriptor, the table id is open with another table descriptor, or the
  // key range overlaps another open region of the table. Aborted (nothing
  // done) when `incarnation` is nonzero and not this run's: the caller saw
  // an earlier run of the server.
  //
  // Staged regions (moves and splits). The router fills a new region with a
  // copy of another's rows while the source keeps serving. With `staging`
  // the region is opened STAGED: every call that names it by id works
  // (Apply, Get, Scan, BulkLoad, Lookup listing it in region_ids, index
  // chunks, GetRegionStats, CloseRegion, DropRegion, SplitPoint), but
  //   - its key range is checked for overlap only against the other staged
  //     open regions of the table, not the serving ones (a split's
  //     daughters overlap their parent on the same server while filled);
  //   - it is not among "every open region of the table" of a Lookup with
  //     empty region_ids (it never doubles an answer), nor in ListRegions
  //     or OpenRegionIds (which list serving regions); GetRegionStats
  //     reports it as RegionState::kStaged.
  // Transitions: OpenRegion without `staging` of a region open staged
  // PROMOTES it to serving, only when no serving open region of the table
  // overlaps it (InvalidArgument naming that region otherwise, nothing
  // changed). OpenRegion with `staging` of a region already open and serving
  // is OK and changes nothing: serving is never demoted. The flag is
  // persisted in the region's record; a restart closes every region, staged
  // ones too, and OpenRegion opens it again staged or serving as it says.
  [[nodiscard]] virtual Status OpenRegion(const RegionDescriptor& region,
                                          uint64_t incarnation,
                                          bool staging) = 0;
  [[nodiscard]] Status OpenRegion(const RegionDescriptor& region,
                                  uint64_t incarnation) {
    return OpenRegion(region, incarnation, false);
  }
  [[nodiscard]] Status OpenRegion(const RegionDescriptor& region) {
    return OpenRegion(region, 0, false);
  }
  // Stops serving a region; its data stays and reopening serves it again.
  [[nodiscard]] virtual Status CloseRegion(uint64_t region_id) = 0;
  // Deletes every row of a region, open or closed (updating index, counts and
  // filter), and forgets it. NotFound for a region the server never hosted;
  // Aborted when another DropRegion of it is running. Incremental: the
  // region is closed first (its reads and writes answer NotFound, OpenRegion
  // of it Aborted, until the drop ends), then its rows are deleted in
  // batches of 1000 with no lock held between batches, so calls on other
  // regions proceed meanwhile. After a failure (or a crash) the region is
  // closed with part of its rows; dropping it again finishes the job.
  [[nodiscard]] virtual Status DropRegion(uint64_t region_id) = 0;
  virtual std::vector<RegionDescriptor> ListRegions() const = 0;
  // The ids of the open regions, ascending: what ListRegions() says without
  // the key ranges, for the router's periodic check (a few bytes a region).
  virtual std::vector<uint64_t> OpenRegionIds() const {
    std::vector<uint64_t> ids;
    for (const RegionDescriptor& r : ListRegions()) ids.push_back(r.region_id);
    std::sort(ids.begin(), ids.end());
    return ids;
  }

  // A row key that splits open region `region_id` (staged or serving)
  // about in half by rows, for the router's split: the median of a uniform
  // sample (reservoir sampling, at most kSplitPointSampleKeys keys, a fixed
  // seed so the answer is deterministic for the same rows) of the region's
  // row keys, read keys-only in key order. A sample, because HBase takes
  // the midkey of a region's largest store file and we have no per-region
  // files: every region shares the server's RocksDB column families. With
  // 1,024 keys the median's rank is within about +-1.6% (one standard
  // deviation, sqrt(0.25 / 1024)) of the half of the rows read.
  // Bounded work: at most Options::max_examined_rows keys are read (the
  // first ones in key order); a larger region is split about the middle of
  // those. The key is strictly greater than the region's first row (both
  // halves hold rows) and within the region; nullopt when fewer than 2 rows
  // are read. NotFound for a region that is not open; IOError from storage.
  // No lock is held while keys are read: writes go on meanwhile.
  static constexpr size_t kSplitPointSampleKeys = 1024;
  virtual StatusOr<std::optional<std::string>> SplitPoint(
      uint64_t region_id) const = 0;

  // What each region the server knows (open, closed, or being dropped)
  // holds, ascending by id, of table `request.table_id` (0: every table),
  // ids above `request.after_region_id`: at most `request.max_regions`, and
  // the page stops after the region that brings the rows counted past
  // kMaxRegionStatsRowsPerCall (`more` says regions are left). Rows are
  // exact, counted by a scan of the region's row keys (cost: a read of the
  // region's rows, roughly what a full scan reads; no lock is held, writes
  // go on meanwhile). Bytes are approximate (RocksDB's size estimate of the
  // region's key ranges in the row and index column families, SST files
  // and memtables). InvalidArgument for max_regions outside [1,
  // kMaxRegionStatsPerCall]; IOError from storage. With count_rows false,
  // rows are left 0 and nothing is read but the estimates.
  virtual StatusOr<RegionStatsPage> GetRegionStats(
      const RegionStatsRequest& request) const = 0;

  // Every region the server knows (open, staged, closed, or being
  // dropped), ascending by id, with its state: a copy of what the server
  // holds in memory, no storage read. The default (a store without closed
  // regions) lists ListRegions() as open.
  virtual std::vector<HostedRegion> HostedRegions() const {
    std::vector<HostedRegion> out;
    for (RegionDescriptor& r : ListRegions()) {
      out.push_back({std::move(r), RegionState::kOpen});
    }
    return out;
  }
  // The store's totals and counters (StoreStats). Cheap enough to call
  // every second: the regions are counted under the regions lock (shared:
  // writes go on) and the rest are RocksDB tickers and properties kept in
  // memory, no row read (measured 10-30 us with 1,000 regions). Writes pay
  // a relaxed atomic add or two per batch for the counters. The default (a
  // store without storage) counts ListRegions() as open regions, the rest
  // 0.
  virtual StoreStats GetStoreStats() const {
    StoreStats stats;
    stats.regions[static_cast<int>(RegionState::kOpen)] = ListRegions().size();
    return stats;
  }

  // Applies the mutations as one atomic batch, in order (a later mutation of
  // the same row sees the earlier one). All are validated first; any invalid
  // one rejects the whole batch with InvalidArgument naming it. Aborted (and
  // nothing written) when `fence_token` is nonzero and below the fence.
  //
  // Atomic row operations (HBase's checkAndMutate, increment, append,
  // mutateRow) are batches too, evaluated under the rows' locks in the same
  // RocksDB batch as the index entries, counts and filter ops: a mutation
  // with a condition is applied only when the condition holds on its row as
  // the row was before the batch (model/atomic_ops.h, ConditionHolds); an
  // increment or append computes its cells from the row as the earlier
  // mutations of the batch left it (NewCellsOf). WriteResult::outcomes says,
  // per mutation, whether it was applied and the cells an increment or
  // append wrote. InvalidArgument, and nothing written, for an increment of
  // a cell that is not 8 bytes or a new value over
  // Options::max_value_bytes.
  virtual StatusOr<WriteResult> Apply(const std::vector<Mutation>& batch,
                                      uint64_t fence_token) = 0;
  StatusOr<WriteResult> Apply(const std::vector<Mutation>& batch) {
    return Apply(batch, 0);
  }

  // Loads a bulk file (regionstore/bulk_file.h) into an open region: each
  // row is a put of its cells (added or overwritten, as Apply's puts), and
  // the result (rows, index entries, value counts, filter and its ops) is
  // exactly what Apply of the same puts gives, returned the same way. The
  // whole file is checked first; any fault rejects it with nothing written:
  // NotFound for a region that is not open; InvalidArgument for a file that
  // is not a well-formed bulk file (checksums, format version, order), one
  // over Options::max_bulk_rows or over the larger of max_bulk_file_bytes
  // and a file of one row of max_row_bytes, a row outside the
  // region, a value or row over the limits, a bad column name; IOError when
  // `path` cannot be read. The changes are written as sorted SST files, one per
  // column family, and ingested atomically (all or nothing, durable on return,
  // whatever Options::sync says). `path` is only read. A load of more than
  // Options::max_ops_per_call filter ops returns none of them (epoch and
  // last_seq only: the reader catches up with OpsSince). The load holds the
  // row locks of its rows, and of every row sharing their lock stripes,
  // until it is ingested: online writes to those rows wait for it. Fenced
  // as Apply.
  virtual StatusOr<WriteResult> BulkLoad(uint64_t region_id,
                                         const std::string& path,
                                         uint64_t fence_token) = 0;
  StatusOr<WriteResult> BulkLoad(uint64_t region_id, const std::string& path) {
    return BulkLoad(region_id, path, 0);
  }
  // The rows of open region `req.region_id` in [req.start_row,
  // req.stop_row) clamped to the region, in key order with their cells'
  // timestamps, as a bulk file (bulk_file.h) that BulkLoad of another
  // server's region takes: the copy of a region move, split or merge,
  // without a Thrift struct per cell. At most req.max_rows rows; the file
  // stops before a row that would take it past req.max_bytes, so only a
  // file of one row passes it (a row of up to max_row_bytes, which BulkLoad
  // takes whatever max_bulk_file_bytes is), and resume_row is the next row
  // then. InvalidArgument for
  // max_rows outside [1, kMaxExportRows] or max_bytes outside [1,
  // Options::max_bulk_file_bytes]; NotFound for a region that is not open.
  // The file is built in the store's staging directory and removed.
  virtual StatusOr<ExportedRows> ExportRows(const ExportRequest& req) = 0;

  // BulkLoad of a file given as bytes (as received over RPC): they are
  // written to a uniquely named file in the store's directory, loaded, and
  // the file is removed in every case.
  virtual StatusOr<WriteResult> BulkLoadBytes(uint64_t region_id,
                                              std::string_view file,
                                              uint64_t fence_token) = 0;
  StatusOr<WriteResult> BulkLoadBytes(uint64_t region_id,
                                      std::string_view file) {
    return BulkLoadBytes(region_id, file, 0);
  }

  // The rows, in request order; nullopt for a row that does not exist or has
  // none of the projected columns. A prefix of the requests when the reply
  // passed the byte budget (the smaller of Options::max_result_bytes and
  // `max_bytes`, 0 = no smaller one): it stops after the row that passed it,
  // and always answers at least the first request.
  virtual StatusOr<std::vector<std::optional<Row>>> Get(
      const std::vector<GetRequest>& requests, uint64_t max_bytes) const = 0;
  StatusOr<std::vector<std::optional<Row>>> Get(
      const std::vector<GetRequest>& requests) const {
    return Get(requests, 0);
  }
  virtual StatusOr<ScanResult> Scan(const ScanRequest& request) const = 0;
  // Exact answer from the local inverted index (see IndexQueryResult).
  virtual StatusOr<IndexQueryResult> Lookup(const IndexQuery& query) const = 0;

  virtual StatusOr<FilterSnapshot> Snapshot() const = 0;
  // A page of a bits-only snapshot of the filter (FilterImagePage,
  // model/region_protocol.h), for a reader that keeps occupancy bits only: the
  // image travels in pages of at most Options::filter_image_page_bytes, so a
  // filter of any size fits a bounded frame.
  //   image_id 0: a new image. First raises the fence to `fence_token`
  //     (as RaiseFence; 0 leaves it) under the lock that orders filter ops,
  //     then takes OccupancyImage::Of(filter) with its incarnation, epoch
  //     and last_seq; returns its page at offset 0 (InvalidArgument for
  //     another offset). The image is kept under a fresh random id.
  //   image_id N: the page of image N at `offset` (any offset below
  //     total_bytes; InvalidArgument otherwise); `fence_token` is ignored.
  // The store keeps one image: a new one replaces it; it is dropped once
  // its last page is served, or when unused for filter_image_idle_ms. An
  // image that is not kept is NotFound "filter image N expired; start a new
  // one": the reader starts again with image_id 0. Writes while pages are
  // read do not change an image. Unavailable while the filter is being
  // repaired (as Snapshot).
  virtual StatusOr<FilterImagePage> SnapshotImagePage(uint64_t fence_token,
                                                      uint64_t image_id,
                                                      uint64_t offset) = 0;
  // The ops after `seq`; too_old when `incarnation` or `epoch` is not the
  // store's or the ops were trimmed. InvalidArgument for a seq past the
  // newest op of the store's own incarnation and epoch.
  virtual StatusOr<FilterOpsSince> OpsSince(uint64_t incarnation,
                                            uint64_t epoch,
                                            uint64_t seq) const = 0;
  virtual FilterStatus GetFilterStatus() const = 0;
  // From now on, writes with a nonzero fence token of `token`'s router below
  // `token` are refused (see "Fencing" above). A fence only rises.
  virtual void RaiseFence(uint64_t token) = 0;
  // Rebuilds the filter right-sized from the value records under a new epoch.
  [[nodiscard]] virtual Status CompactFilter() = 0;

  // Subscribes a router to this server's filter ops, or renews its lease
  // (regionstore/op_subscriptions.h has the contract; model/op_push.h the
  // lease arithmetic). With subscriptions, Apply, BulkLoad, BackfillIndex
  // and DropIndexEntries return only once every other subscribed router
  // holds their ops or its lease ended; they wait holding no lock of the
  // store. InvalidArgument for a bad request or a store without
  // Options::op_push_sinks; Unavailable when it holds
  // Options::max_op_subscribers.
  virtual StatusOr<OpSubscribeGrant> SubscribeOps(
      const OpSubscribeRequest& request) {
    (void)request;
    return Status::InvalidArgument("this server takes no op subscriptions");
  }
  // Subscriptions held now.
  virtual size_t OpSubscriberCount() const { return 0; }
  // Makes every write acknowledged so far durable against power loss (syncs
  // the WAL), as if each had been written with `sync`. A region operation
  // calls it on the target before the switch and before the source is
  // dropped: its catch-up rows arrive as ordinary writes. IOError when the
  // disk refuses.
  [[nodiscard]] virtual Status SyncWal() = 0;
  // Gives the filter the cluster's config (the router owns it): a no-op
  // when the filter already has exactly `config`; otherwise persists it and
  // rebuilds the filter with it right-sized from the value records under a
  // new epoch, as CompactFilter does (readers of the old epoch take a
  // snapshot). From then on the store keeps `config`, also when it is
  // reopened (RegionStoreOptions::filter is no longer used) and when it
  // compacts. InvalidArgument (nothing changes) for an invalid config;
  // IOError / Corruption from storage (the filter is unchanged then). Holds
  // writes off while it rebuilds, as CompactFilter.
  [[nodiscard]] virtual Status SetFilterConfig(const SscbfConfig& config) = 0;

  // --- The index lifecycle (a column indexed on a table holding rows, or
  // dropped from it). The router drives it; region_store_index.cc.
  //
  // Gives every region of `table` on this server (open or closed) the
  // indexed columns of `table`, persisted in the region records so that a
  // restart keeps them. Only the indexed columns change: table id and name
  // must be the server's. Atomic with respect to writes: it waits for the
  // writes in flight (they hold the regions lock), and every write that
  // starts after it returns maintains exactly the new columns. A column
  // flagged `building` is maintained by writes without trusting that rows
  // written before it was added have entries (an old entry is removed, and
  // counted -1, only when it exists). A no-op when nothing changes.
  // NotFound when no region of the table is hosted here; InvalidArgument
  // for a bad descriptor, another table name, or a column id the server
  // knows under another name.
  [[nodiscard]] virtual Status UpdateTableIndexes(
      const TableDescriptor& table) = 0;
  // One chunk of a build: for the next rows of open region `region_id`
  // after `after_row` (empty: from the region's start) in key order, at
  // most `max_rows` of them (clamped to Options::max_mutations_per_batch),
  // adds the index entry of building column `column_id` that is missing,
  // under the rows' locks, counting its value and changing the filter as a
  // write does (an entry already there is left alone: chunks may be
  // repeated). Stops early after Options::max_examined_bytes of rows.
  // Returns the write result (filter ops) and the resume row, or done.
  // NotFound for a region that is not open; InvalidArgument for max_rows 0
  // or a column that is not building in the region's table. Fenced as
  // Apply.
  virtual StatusOr<IndexChunkResult> BackfillIndex(uint64_t region_id,
                                                   uint32_t column_id,
                                                   std::string_view after_row,
                                                   uint32_t max_rows,
                                                   uint64_t fence_token) = 0;
  // One chunk of a drop: removes up to `max_entries` (clamped as above)
  // index entries of column `column_id` in open region `region_id`,
  // counting -1 for each and changing the filter as a write does; done
  // when none is left. InvalidArgument while the column is still indexed
  // by the region's table (UpdateTableIndexes without it first: writes
  // must have stopped maintaining it). Fenced as Apply.
  virtual StatusOr<IndexChunkResult> DropIndexEntries(uint64_t region_id,
                                                      uint32_t column_id,
                                                      uint32_t max_entries,
                                                      uint64_t fence_token) = 0;

  // --- Coordinator epochs (see "Coordinator epochs" above;
  // region_store_coordinator.cc).
  //
  // Runs `call` as a call of the coordinator of `epoch`, and returns its
  // status: with epoch 0 at once; otherwise only when `epoch` is at least
  // the highest epoch seen (CoordinatorEpochRefused, without running it,
  // when it is lower). A higher epoch is first persisted synchronously
  // (IOError, and `call` not run, when it cannot be), then every call
  // running with a lower epoch is waited for. Calls of one epoch run
  // concurrently.
  [[nodiscard]] virtual Status RunAsCoordinator(
      CoordinatorEpoch epoch, const std::function<Status()>& call) = 0;
  // The highest coordinator epoch the store has seen, in this run or an
  // earlier one (0: none).
  virtual uint64_t CoordinatorEpochSeen() const = 0;

  // The coordinator's calls: each the call of the same name above, run
  // through RunAsCoordinator(epoch).
  [[nodiscard]] Status OpenRegion(const RegionDescriptor& region,
                                  uint64_t incarnation, bool staging,
                                  CoordinatorEpoch epoch);
  [[nodiscard]] Status CloseRegion(uint64_t region_id, CoordinatorEpoch epoch);
  [[nodiscard]] Status DropRegion(uint64_t region_id, CoordinatorEpoch epoch);
  [[nodiscard]] Status SetFilterConfig(const SscbfConfig& config,
                                       CoordinatorEpoch epoch);
  [[nodiscard]] Status UpdateTableIndexes(const TableDescriptor& table,
                                          CoordinatorEpoch epoch);
  StatusOr<IndexChunkResult> BackfillIndex(
      uint64_t region_id, uint32_t column_id, std::string_view after_row,
      uint32_t max_rows, uint64_t fence_token, CoordinatorEpoch epoch);
  StatusOr<IndexChunkResult> DropIndexEntries(uint64_t region_id,
                                              uint32_t column_id,
                                              uint32_t max_entries,
                                              uint64_t fence_token,
                                              CoordinatorEpoch epoch);

  // Recomputes the index entries, value counts and filter from the rows and
  // compares (see IndexReport in model/region_protocol.h). With a table id,
  // only that table's rows, index entries and values are checked (they are
  // still scanned: about as slow as the whole server); the filter, shared by
  // every table, is always compared with a rebuild from all value records. The
  // check is of one consistent state: under the filter lock it takes a
  // RocksDB snapshot and a copy of the filter, and compares them outside
  // the lock. Writes wait only while the filter is copied.
  virtual StatusOr<IndexReport> VerifyIndex(
      std::optional<uint64_t> table_id) const = 0;

 protected:
  RegionStore() = default;
  RegionStore(const RegionStore&) = delete;
  RegionStore& operator=(const RegionStore&) = delete;
};

}  // namespace bloomroute

#endif  // BLOOMROUTE_REGIONSTORE_REGION_STORE_H_
