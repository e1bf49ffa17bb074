// RegionStore::GetRegionStats: what each region holds, for `bloomroute admin`
// and, later, the router's split and balance decisions; and GetStoreStats,
// the store's totals and counters for metrics and status pages.
//
// Rows are counted exactly by iterating the region's row keys when asked:
// no counter is kept in the write path (so writes pay nothing and data
// written before this call existed is counted like any other), at the cost
// of reading the region's rows per call -- about what a full scan of them
// reads. kMaxRegionStatsRowsPerCall bounds one call's work. Bytes come from
// RocksDB's GetApproximateSizes over the region's key range (rows and
// index column families, SST files and memtables): cheap, and approximate
// -- flushed data counts its compressed size, memtable data its larger size
// in memory.
#include <rocksdb/db.h>
#include <rocksdb/statistics.h>

#include <algorithm>
#include <memory>
#include <mutex>
#include <optional>
#include <random>
#include <shared_mutex>
#include <string>
#include <vector>

#include "regionstore/internal/keys.h"
#include "regionstore/internal/rocks_region_store.h"
#include "regionstore/internal/rocks_status.h"

namespace bloomroute::regionstore_internal {

StatusOr<uint64_t> RocksRegionStore::CountRegionRows(uint64_t region_id) const {
  const std::string prefix = RegionPrefix(region_id);
  const std::string end = PrefixSuccessor(prefix);
  rocksdb::ReadOptions ro;
  rocksdb::Slice upper(end);
  ro.iterate_upper_bound = &upper;
  // A count reads each row once: keep it out of the block cache's hot set.
  ro.fill_cache = false;
  std::unique_ptr<rocksdb::Iterator> it(db_->NewIterator(ro, rows_cf_));
  uint64_t rows = 0;
  for (it->Seek(prefix); it->Valid(); it->Next()) ++rows;
  BLOOMROUTE_RETURN_IF_ERROR(FromRocks(it->status()));
  return rows;
}

uint64_t RocksRegionStore::ApproximateRegionBytes(
    rocksdb::ColumnFamilyHandle* cf, uint64_t region_id) const {
  // Row keys and index keys both start with the region id (keys.h).
  const std::string start = RegionPrefix(region_id);
  const std::string end = PrefixSuccessor(start);
  rocksdb::Range range(start, end);
  rocksdb::SizeApproximationOptions options;
  options.include_memtables = true;
  options.include_files = true;
  uint64_t bytes = 0;
  // A failure leaves the estimate at 0: statistics, not data.
  (void)db_->GetApproximateSizes(options, cf, &range, 1, &bytes);
  return bytes;
}

RegionState RocksRegionStore::StateLocked(uint64_t region_id,
                                          const StoredRegion& r) const {
  if (dropping_.count(region_id) != 0) return RegionState::kDropping;
  if (!r.open) return RegionState::kClosed;
  return r.staging ? RegionState::kStaged : RegionState::kOpen;
}

StatusOr<RegionStatsPage> RocksRegionStore::GetRegionStats(
    const RegionStatsRequest& request) const {
  if (request.max_regions < 1 || request.max_regions > kMaxRegionStatsPerCall) {
    return Status::InvalidArgument("max_regions must be in [1, " +
                                   std::to_string(kMaxRegionStatsPerCall) +
                                   "]");
  }
  // The regions under the lock, counted without it: a long count must not
  // hold off opening, closing or dropping regions.
  std::vector<RegionStats> wanted;
  {
    std::shared_lock lock(regions_mu_);
    for (auto it = regions_.upper_bound(request.after_region_id);
         it != regions_.end(); ++it) {
      const RegionDescriptor& d = it->second.descriptor;
      if (request.table_id != 0 && d.table.table_id != request.table_id) {
        continue;
      }
      RegionStats stats;
      stats.region_id = it->first;
      stats.table_id = d.table.table_id;
      stats.state = StateLocked(it->first, it->second);
      wanted.push_back(stats);
      if (wanted.size() > request.max_regions) break;  // one more: `more`
    }
  }
  RegionStatsPage page;
  uint64_t counted = 0;
  for (RegionStats& stats : wanted) {
    if (page.regions.size() == request.max_regions ||
        counted > kMaxRegionStatsRowsPerCall) {
      page.more = true;
      break;
    }
    if (request.count_rows) {
      BLOOMROUTE_ASSIGN_OR_RETURN(stats.rows, CountRegionRows(stats.region_id));
      counted += stats.rows;
    }
    stats.row_bytes = ApproximateRegionBytes(rows_cf_, stats.region_id);
    stats.index_bytes = ApproximateRegionBytes(index_cf_, stats.region_id);
    page.regions.push_back(stats);
  }
  return page;
}

std::vector<HostedRegion> RocksRegionStore::HostedRegions() const {
  std::shared_lock lock(regions_mu_);
  std::vector<HostedRegion> out;
  out.reserve(regions_.size());
  for (const auto& [id, r] : regions_) {
    out.push_back({r.descriptor, StateLocked(id, r)});
  }
  return out;
}

uint64_t RocksRegionStore::IntProperty(rocksdb::ColumnFamilyHandle* cf,
                                       const std::string& name) const {
  uint64_t value = 0;
  // A property RocksDB cannot give leaves 0: statistics, not data.
  if (!db_->GetIntProperty(cf, name, &value)) return 0;
  return value;
}

StorageEngineStats RocksRegionStore::EngineStats() const {
  using Props = rocksdb::DB::Properties;
  StorageEngineStats out;
  out.block_cache_hits = statistics_->getTickerCount(rocksdb::BLOCK_CACHE_HIT);
  out.block_cache_misses =
      statistics_->getTickerCount(rocksdb::BLOCK_CACHE_MISS);
  out.stall_micros = statistics_->getTickerCount(rocksdb::STALL_MICROS);
  if (!db_->GetAggregatedIntProperty(Props::kEstimatePendingCompactionBytes,
                                     &out.pending_compaction_bytes)) {
    out.pending_compaction_bytes = 0;
  }
  // Whole-database properties: any column family answers them.
  out.write_stopped = IntProperty(rows_cf_, Props::kIsWriteStopped) != 0;
  out.delayed_write_rate =
      IntProperty(rows_cf_, Props::kActualDelayedWriteRate);
  // Every column family's table factory holds the one cache: the rows'
  // answers for all.
  out.block_cache_capacity = IntProperty(rows_cf_, Props::kBlockCacheCapacity);
  out.block_cache_usage = IntProperty(rows_cf_, Props::kBlockCacheUsage);
  out.memtable_bytes = write_buffers_->memory_usage();
  out.memtable_limit = write_buffers_->buffer_size();
  return out;
}

// Everything here is in memory: the regions map, RocksDB's tickers, and
// properties RocksDB keeps current (the key estimate and file sizes come
// from the current version's file metadata, the memtable sizes from
// counters), so a call reads no data block.
StoreStats RocksRegionStore::GetStoreStats() const {
  StoreStats stats;
  {
    std::shared_lock lock(regions_mu_);
    for (const auto& [id, r] : regions_) {
      ++stats.regions[static_cast<int>(StateLocked(id, r))];
    }
  }
  using Props = rocksdb::DB::Properties;
  stats.estimated_rows = IntProperty(rows_cf_, Props::kEstimateNumKeys);
  for (rocksdb::ColumnFamilyHandle* cf : {rows_cf_, index_cf_}) {
    stats.estimated_bytes += IntProperty(cf, Props::kLiveSstFilesSize) +
                             IntProperty(cf, Props::kCurSizeAllMemTables);
  }
  stats.mutations_applied = mutations_applied_.load(std::memory_order_relaxed);
  stats.wal_syncs = wal_syncs_.load(std::memory_order_relaxed);
  stats.rocksdb = EngineStats();
  return stats;
}

// Reservoir sampling (Vitter's algorithm R): key i (0-based) replaces a
// random slot with probability kSplitPointSampleKeys / (i + 1), so every
// key read is in the sample with the same probability, in one pass and
// bounded memory (kSplitPointSampleKeys keys of at most kMaxRowKeyBytes).
// A fixed seed: the same rows give the same split point, so a retried
// split asks for the same key.
StatusOr<std::optional<std::string>> RocksRegionStore::SplitPoint(
    uint64_t region_id) const {
  {
    std::shared_lock lock(regions_mu_);
    BLOOMROUTE_RETURN_IF_ERROR(OpenRegionLocked(region_id).status());
  }
  const std::string prefix = RegionPrefix(region_id);
  const std::string end = PrefixSuccessor(prefix);
  rocksdb::ReadOptions ro;
  rocksdb::Slice upper(end);
  ro.iterate_upper_bound = &upper;
  ro.fill_cache = false;  // one pass over cold rows
  std::unique_ptr<rocksdb::Iterator> it(db_->NewIterator(ro, rows_cf_));
  std::mt19937_64 rng(0x5b1175b0u);  // fixed: deterministic answers
  std::vector<std::string> sample;
  uint64_t read = 0;
  for (it->Seek(prefix); it->Valid() && read < options_.max_examined_rows;
       it->Next(), ++read) {
    std::string key = it->key().ToString().substr(prefix.size());
    if (sample.size() < kSplitPointSampleKeys) {
      sample.push_back(std::move(key));
      continue;
    }
    const uint64_t slot = std::uniform_int_distribution<uint64_t>(0, read)(rng);
    if (slot < kSplitPointSampleKeys) sample[slot] = std::move(key);
  }
  BLOOMROUTE_RETURN_IF_ERROR(FromRocks(it->status()));
  if (read < 2) return std::optional<std::string>();
  // Row keys are unique, so with 2 or more sampled keys the one at rank
  // size / 2 (>= 1) sorts after the smallest sampled key, which is at or
  // after the region's first row: both halves hold rows.
  auto median = sample.begin() + sample.size() / 2;
  std::nth_element(sample.begin(), median, sample.end());
  return std::optional<std::string>(std::move(*median));
}

}  // namespace bloomroute::regionstore_internal
