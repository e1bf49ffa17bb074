// What a region server shows its operators over HTTP: its metrics (for
// /metrics), its readiness (/readyz) and its status page (/status). The HTTP
// server and the command that runs the region server wire these in; this
// file only turns the RegionStore's own statistics (GetStoreStats,
// GetFilterStatus, HostedRegions, GetRegionStats) into text.
//
// Example (a region server's main, after its store is open):
//   metrics::Registry& registry = metrics::DefaultRegistry();
//   auto handle = ops::AddRegionServerMetrics(store.get(), &registry);
//   ...
//   // GET /status?refresh=5
//   ops::RegionServerPageInfo info{"127.0.0.1:9091", "rs-1", "0.1.0",
//                                  start_time,
//                                  ops::RefreshSecondsFromQuery(query)};
//   std::string html = ops::RegionServerStatusPage(*store, info);
//
// Thread-safety: every function may be called from any thread, concurrently
// with the store's calls.
#ifndef BLOOMROUTE_OPS_REGION_SERVER_OPS_H_
#define BLOOMROUTE_OPS_REGION_SERVER_OPS_H_

#include <chrono>
#include <cstdint>
#include <string>

#include "common/metrics.h"
#include "ops/ops_handler.h"
#include "regionstore/region_store.h"

namespace bloomroute::ops {

// Regions labelled in bloomroute_regionserver_region_bytes, at most (the
// first ones by id): a bound on the series one server adds.
inline constexpr uint32_t kMaxLabelledRegions = 1000;

// Adds to `registry` a collector that, at each scrape, reads `store`'s
// statistics and writes (gauges unless _total):
//   bloomroute_regionserver_regions{state}      regions by state: open,
//                                                staged, closed, dropping
//   bloomroute_regionserver_rows                 rows (RocksDB's estimate)
//   bloomroute_regionserver_bytes                rows and index bytes
//   bloomroute_regionserver_region_bytes{region,table}
//                                                per region (row + index
//                                                bytes), the first
//                                                kMaxLabelledRegions regions
//   bloomroute_regionserver_writes_total         mutations applied
//   bloomroute_regionserver_wal_syncs_total      WAL syncs
//   bloomroute_regionserver_filter_stages        stages of the SSCBF
//   bloomroute_regionserver_filter_fill_ratio{stage}
//                                                mean slice fill per stage
//   bloomroute_regionserver_filter_estimated_fpr the whole filter's FPR now
//   bloomroute_rocksdb_block_cache_hits_total
//   bloomroute_rocksdb_block_cache_misses_total
//   bloomroute_rocksdb_write_stall_seconds_total
//   bloomroute_rocksdb_pending_compaction_bytes
//   bloomroute_rocksdb_write_stopped             1 while writes are stopped
//   bloomroute_rocksdb_delayed_write_rate_bytes_per_second
// Rows are not counted per region: that is a scan of the region's rows
// (GetRegionStats), too slow for a scrape. A scrape reads no row: the
// store's counters and RocksDB's properties, and two size estimates per
// labelled region (2-11 ms with 1,000 regions; see region_server_ops.cc).
// The collector runs until the handle is destroyed; `store` and `registry`
// must outlive the handle.
[[nodiscard]] metrics::Registry::CollectorHandle AddRegionServerMetrics(
    const RegionStore* store, metrics::Registry* registry);

// Ready once the store is open: RegionStore::Open has returned, so its
// database, its region records and its filter are loaded and it answers
// calls. `store` is null while it is still opening: not ready. The regions
// a restarted server knows stay closed until a router opens them again
// (RegionStore::OpenRegion), and the router does that by calling this
// server: so neither closed regions nor having no region at all make it
// unready (a server with none serves nothing; the reason says so). The
// reason also says when RocksDB stops writes, which leaves it ready (reads
// are served; the stop ends when compaction catches up).
Readiness RegionServerReadiness(const RegionStore* store);

// What the status page says about the process, beyond the store.
struct RegionServerPageInfo {
  std::string address;    // the Thrift HOST:PORT, named in the title
  std::string server_id;  // empty when not known
  std::string version;    // e.g. "0.1.0"
  std::chrono::system_clock::time_point start_time;
  int refresh_seconds = 0;  // > 0: the page reloads itself this often
  // Rows of each region are counted exactly (a scan of its row keys,
  // GetRegionStats) when the store holds about this many rows or fewer
  // (StoreStats::estimated_rows); above it the rows column says "not
  // counted", so that a page that reloads every few seconds stays cheap.
  // Counting reads rows past the block cache (it would evict hot blocks),
  // so each count adds to the block cache misses. Measured: a page of 1,000
  // regions with 300,000 rows counted takes 80-120 ms.
  uint64_t count_rows_up_to = 1000000;
};

// Regions listed on the status page, at most (the first ones by id).
inline constexpr uint32_t kMaxPageRegions = 1000;

// The region server's /status page, a complete HTML5 document
// (ops/html.h): a summary (address, server id, version, uptime, regions,
// rows, bytes, writes, WAL syncs), the regions in a table id="regions" (id,
// table, start and end key as printable text, rows, bytes, state), the
// filter's stages in a table id="filter" (geometry, elements, fill,
// estimated FPR), the op log's position (incarnation, epoch, sequence), and
// RocksDB's figures (block cache, compaction, stalls). Every name and key
// is escaped. Storage errors while reading region statistics are shown on
// the page, not returned.
std::string RegionServerStatusPage(const RegionStore& store,
                                   const RegionServerPageInfo& info);

}  // namespace bloomroute::ops

#endif  // BLOOMROUTE_OPS_REGION_SERVER_OPS_H_
