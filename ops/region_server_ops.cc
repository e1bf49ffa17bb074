#include "ops/region_server_ops.h"

#include <time.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "common/statusor.h"
#include "ops/html.h"

namespace bloomroute::ops {
namespace {

constexpr RegionState kStates[] = {RegionState::kOpen, RegionState::kStaged,
                                   RegionState::kClosed,
                                   RegionState::kDropping};

uint64_t RegionsIn(const StoreStats& stats, RegionState state) {
  return stats.regions[static_cast<int>(state)];
}

// Row and index bytes of the first kMaxLabelledRegions regions: size
// estimates only (count_rows false), no row read.
void WriteRegionBytes(const RegionStore& store, metrics::Writer& w) {
  RegionStatsRequest request;
  request.max_regions = kMaxLabelledRegions;
  request.count_rows = false;
  StatusOr<RegionStatsPage> page = store.GetRegionStats(request);
  if (!page.ok()) return;  // a scrape shows what it can
  std::vector<HostedRegion> hosted = store.HostedRegions();
  for (const RegionStats& r : page->regions) {
    auto it = std::lower_bound(hosted.begin(), hosted.end(), r.region_id,
                               [](const HostedRegion& h, uint64_t id) {
                                 return h.descriptor.region_id < id;
                               });
    const std::string table =
        it != hosted.end() && it->descriptor.region_id == r.region_id
            ? it->descriptor.table.name
            : std::to_string(r.table_id);
    w.Gauge("bloomroute_regionserver_region_bytes",
            "Bytes of one region's rows and index entries (RocksDB's "
            "estimate), for the first 1000 regions by id.",
            {{"region", std::to_string(r.region_id)}, {"table", table}},
            static_cast<double>(r.row_bytes + r.index_bytes));
  }
}

void WriteStoreMetrics(const StoreStats& s, metrics::Writer& w) {
  for (RegionState state : kStates) {
    w.Gauge("bloomroute_regionserver_regions",
            "Regions the server knows, by state: open (served), staged "
            "(being filled), closed (kept, not served), dropping.",
            {{"state", RegionStateName(state)}},
            static_cast<double>(RegionsIn(s, state)));
  }
  w.Gauge("bloomroute_regionserver_rows",
          "Rows on the server, all regions (RocksDB's estimate: exact for "
          "inserts, off by overwrites and deletes until compaction).",
          {}, static_cast<double>(s.estimated_rows));
  w.Gauge("bloomroute_regionserver_bytes",
          "Bytes of rows and index entries: live SST files (compressed) "
          "plus memtables.",
          {}, static_cast<double>(s.estimated_bytes));
  w.Counter("bloomroute_regionserver_writes_total",
            "Mutations applied by committed writes (puts, deletes, "
            "increments, appends, bulk-loaded rows, rows of dropped regions).",
            {}, static_cast<double>(s.mutations_applied));
  w.Counter("bloomroute_regionserver_wal_syncs_total",
            "WAL syncs: write batches committed with --sync, and explicit "
            "syncs before region moves.",
            {}, static_cast<double>(s.wal_syncs));
}

void WriteFilterMetrics(const FilterStatus& f, metrics::Writer& w) {
  w.Gauge("bloomroute_regionserver_filter_stages",
          "Stages of the server's scalable split counting Bloom filter.", {},
          static_cast<double>(f.stats.stages.size()));
  for (const StageStats& stage : f.stats.stages) {
    w.Gauge("bloomroute_regionserver_filter_fill_ratio",
            "Mean fraction (0 to 1) of nonzero counters in the slices of each "
            "filter stage, by ladder stage; a stage is full at its config's "
            "full fill (0.5 by default).",
            {{"stage", std::to_string(stage.geometry.stage)}}, stage.fill);
  }
  w.Gauge("bloomroute_regionserver_filter_estimated_fpr",
          "Estimated false positive rate (0 to 1) of the whole filter now: "
          "1 - prod(1 - FPR of each stage).",
          {}, f.stats.estimated_fpr);
}

void WriteRocksDbMetrics(const StorageEngineStats& r, metrics::Writer& w) {
  w.Counter("bloomroute_rocksdb_block_cache_hits_total",
            "Block cache hits (data, index and filter blocks) of the "
            "server's RocksDB.",
            {}, static_cast<double>(r.block_cache_hits));
  w.Counter("bloomroute_rocksdb_block_cache_misses_total",
            "Block cache misses of the server's RocksDB: blocks read from "
            "files (or the OS page cache).",
            {}, static_cast<double>(r.block_cache_misses));
  w.Counter("bloomroute_rocksdb_write_stall_seconds_total",
            "Seconds writes spent slowed down or stopped by RocksDB "
            "(STALL_MICROS).",
            {}, static_cast<double>(r.stall_micros) / 1e6);
  w.Gauge("bloomroute_rocksdb_pending_compaction_bytes",
          "Bytes compaction must rewrite to bring every level under its "
          "target (RocksDB's estimate, all column families).",
          {}, static_cast<double>(r.pending_compaction_bytes));
  w.Gauge("bloomroute_rocksdb_write_stopped",
          "1 while RocksDB stops writes (too many L0 files, memtables or "
          "pending compaction bytes), else 0.",
          {}, r.write_stopped ? 1 : 0);
  w.Gauge("bloomroute_rocksdb_delayed_write_rate_bytes_per_second",
          "Bytes per second RocksDB holds writes to while it slows them "
          "down; 0 while they are not slowed.",
          {}, static_cast<double>(r.delayed_write_rate));
  w.Gauge("bloomroute_rocksdb_block_cache_capacity_bytes",
          "Capacity of the block cache every column family of the server's "
          "RocksDB shares (--block-cache-bytes).",
          {}, static_cast<double>(r.block_cache_capacity));
  w.Gauge("bloomroute_rocksdb_block_cache_usage_bytes",
          "Bytes of blocks in the server's block cache now.", {},
          static_cast<double>(r.block_cache_usage));
  w.Gauge("bloomroute_rocksdb_memtable_bytes",
          "Bytes of the server's memtables now, all column families, those "
          "being flushed included.",
          {}, static_cast<double>(r.memtable_bytes));
  w.Gauge("bloomroute_rocksdb_memtable_limit_bytes",
          "The memtables' bound (--memtable-bytes): past it the server "
          "flushes one.",
          {}, static_cast<double>(r.memtable_limit));
}

// --- The status page.

std::string FormatTime(std::chrono::system_clock::time_point t) {
  const time_t seconds = std::chrono::system_clock::to_time_t(t);
  struct tm utc;
  char buf[32];
  if (gmtime_r(&seconds, &utc) == nullptr ||
      strftime(buf, sizeof(buf), "%Y-%m-%d %H:%M:%S UTC", &utc) == 0) {
    return "?";
  }
  return buf;
}

std::string RegionCounts(const StoreStats& s) {
  std::string out;
  for (RegionState state : kStates) {
    if (!out.empty()) out += ", ";
    out += FormatCount(RegionsIn(s, state)) + " " + RegionStateName(state);
  }
  return out;
}

KeyValueList SummaryItems(const RegionServerPageInfo& info,
                          const StoreStats& s) {
  const auto up = std::chrono::duration_cast<std::chrono::seconds>(
      std::chrono::system_clock::now() - info.start_time);
  return {
      {"Address", info.address},
      {"Server id", info.server_id.empty() ? "not known" : info.server_id},
      {"Version", info.version},
      {"Started", FormatTime(info.start_time)},
      {"Uptime", FormatDuration(up.count())},
      {"Regions", RegionCounts(s)},
      {"Rows (estimate)", FormatCount(s.estimated_rows)},
      {"Bytes (rows and index)", FormatBytes(s.estimated_bytes)},
      {"Writes (mutations applied)", FormatCount(s.mutations_applied)},
      {"WAL syncs", FormatCount(s.wal_syncs)},
  };
}

// A region's key bound: printable, or what an empty bound means.
std::string KeyCell(const std::string& key, const char* empty) {
  return key.empty() ? empty : PrintableBytes(key);
}

// The statistics of the first kMaxPageRegions regions, ascending by id;
// `count_rows` as RegionStatsRequest's.
StatusOr<std::vector<RegionStats>> PageRegionStats(const RegionStore& store,
                                                   bool count_rows) {
  std::vector<RegionStats> out;
  RegionStatsRequest request;
  request.count_rows = count_rows;
  while (out.size() < kMaxPageRegions) {
    request.max_regions = kMaxPageRegions - out.size();
    BLOOMROUTE_ASSIGN_OR_RETURN(RegionStatsPage page,
                                store.GetRegionStats(request));
    out.insert(out.end(), page.regions.begin(), page.regions.end());
    if (!page.more || page.regions.empty()) break;
    request.after_region_id = page.regions.back().region_id;
  }
  return out;
}

std::vector<std::string> RegionRow(const HostedRegion& region,
                                   const RegionStats* stats, bool counted) {
  const RegionDescriptor& d = region.descriptor;
  std::string rows = "?";
  std::string bytes = "?";
  if (stats != nullptr) {
    rows = counted ? FormatCount(stats->rows) : "not counted";
    bytes = FormatBytes(stats->row_bytes + stats->index_bytes);
  }
  return {std::to_string(d.region_id),
          d.table.name,
          KeyCell(d.start_key, "(table start)"),
          KeyCell(d.end_key, "(table end)"),
          rows,
          bytes,
          RegionStateName(region.state)};
}

// The table's rows: the first kMaxPageRegions of `hosted`, each with its
// statistics from `stats` when they are there (both ascend by id).
std::vector<std::vector<std::string>> RegionRows(
    const std::vector<HostedRegion>& hosted,
    const std::vector<RegionStats>& stats, bool counted) {
  std::vector<std::vector<std::string>> rows;
  auto next = stats.begin();
  for (const HostedRegion& r : hosted) {
    if (rows.size() == kMaxPageRegions) break;
    const uint64_t id = r.descriptor.region_id;
    while (next != stats.end() && next->region_id < id) ++next;
    const bool found = next != stats.end() && next->region_id == id;
    rows.push_back(RegionRow(r, found ? &*next : nullptr, counted));
  }
  return rows;
}

void AddRegions(const RegionStore& store, const RegionServerPageInfo& info,
                const StoreStats& s, HtmlPage* page) {
  const bool count = s.estimated_rows <= info.count_rows_up_to;
  const std::vector<HostedRegion> hosted = store.HostedRegions();
  StatusOr<std::vector<RegionStats>> stats = PageRegionStats(store, count);
  const std::vector<std::vector<std::string>> rows = RegionRows(
      hosted, stats.ok() ? *stats : std::vector<RegionStats>(), count);
  page->Section("region-list", "Regions");
  if (!stats.ok()) {
    page->Paragraph("Region statistics unavailable: " +
                    stats.status().ToString());
  }
  if (!count) {
    page->Paragraph("Rows are not counted: the server holds about " +
                    FormatCount(s.estimated_rows) +
                    " rows, more than a page reload should scan.");
  }
  page->Table("regions",
              {"id", "table", "start key", "end key", "rows", "bytes", "state"},
              rows);
  if (hosted.size() > rows.size()) {
    page->Paragraph("The first " + FormatCount(rows.size()) + " of " +
                    FormatCount(hosted.size()) + " regions.");
  }
}

void AddFilter(const FilterStatus& f, HtmlPage* page) {
  const SscbfConfig& c = f.config;
  page->Section("filter-stages", "Filter");
  page->KeyValues({
      {"Stages", FormatCount(f.stats.stages.size())},
      {"Elements (distinct values)", FormatCount(f.stats.elements)},
      {"Estimated FPR", FormatRatio(f.stats.estimated_fpr)},
      {"Bound of the open stages", FormatRatio(f.stats.compounded_bound)},
      {"Memory", FormatBytes(f.stats.memory_bytes)},
      {"Config", "P " + FormatRatio(c.target_fpr) + ", r " +
                     FormatRatio(c.tightening_ratio) + ", s " +
                     FormatRatio(c.growth_factor) + ", n0 " +
                     FormatCount(c.initial_capacity) + ", full at " +
                     FormatRatio(c.full_fill)},
  });
  std::vector<std::vector<std::string>> rows;
  for (const StageStats& st : f.stats.stages) {
    const StageGeometry& g = st.geometry;
    rows.push_back({std::to_string(g.stage), std::to_string(g.slices),
                    FormatCount(g.slice_length), FormatCount(g.capacity),
                    FormatCount(st.elements), FormatRatio(st.fill),
                    FormatRatio(st.estimated_fpr), std::to_string(st.planes),
                    FormatBytes(st.memory_bytes)});
  }
  page->Table("filter",
              {"stage", "slices (k)", "slice length (m)", "capacity (n)",
               "elements", "fill", "estimated FPR", "planes", "memory"},
              rows);
}

std::string Hex(uint64_t v) {
  char buf[24];
  snprintf(buf, sizeof(buf), "%016llx", static_cast<unsigned long long>(v));
  return buf;
}

void AddOpLog(const FilterStatus& f, HtmlPage* page) {
  page->Section("oplog", "Op log");
  page->KeyValues({{"Incarnation", Hex(f.incarnation)},
                   {"Epoch", std::to_string(f.epoch)},
                   {"Last sequence number", std::to_string(f.last_seq)}});
}

void AddRocksDb(const StorageEngineStats& r, HtmlPage* page) {
  const uint64_t lookups = r.block_cache_hits + r.block_cache_misses;
  page->Section("rocksdb", "RocksDB");
  page->KeyValues({
      {"Block cache hits", FormatCount(r.block_cache_hits)},
      {"Block cache misses", FormatCount(r.block_cache_misses)},
      {"Block cache hit ratio",
       lookups == 0
           ? "-"
           : FormatRatio(static_cast<double>(r.block_cache_hits) / lookups)},
      {"Block cache", FormatBytes(r.block_cache_usage) + " of " +
                          FormatBytes(r.block_cache_capacity)},
      {"Memtables",
       FormatBytes(r.memtable_bytes) + " of " + FormatBytes(r.memtable_limit)},
      {"Pending compaction", FormatBytes(r.pending_compaction_bytes)},
      {"Writes stopped", r.write_stopped ? "yes" : "no"},
      {"Writes delayed to", r.delayed_write_rate == 0
                                ? "not delayed"
                                : FormatBytes(r.delayed_write_rate) + "/s"},
      {"Write stalls (total)", FormatDuration(r.stall_micros / 1000000) + " (" +
                                   FormatCount(r.stall_micros) + " us)"},
  });
}

// Links to the process's other endpoints, and to turn refreshing on or off.
std::string Links(int refresh_seconds) {
  return std::string(
             "<p class=\"meta\"><a href=\"/metrics\">/metrics</a> "
             "<a href=\"/healthz\">/healthz</a> "
             "<a href=\"/readyz\">/readyz</a> ") +
         (refresh_seconds > 0
              ? "<a href=\"?\">stop refreshing</a>"
              : "<a href=\"?refresh=5\">refresh every 5 s</a>") +
         "</p>\n";
}

}  // namespace

// A scrape costs what GetStoreStats, GetFilterStatus and the region size
// estimates cost, the last nearly all of it. Measured (RelWithDebInfo, a
// loaded 2-core machine): 40 us with 10 regions; 2-11 ms with 1,000
// regions of 100-300 rows, in memtables or flushed.
metrics::Registry::CollectorHandle AddRegionServerMetrics(
    const RegionStore* store, metrics::Registry* registry) {
  return registry->AddCollector([store](metrics::Writer& w) {
    const StoreStats stats = store->GetStoreStats();
    WriteStoreMetrics(stats, w);
    WriteRegionBytes(*store, w);
    WriteFilterMetrics(store->GetFilterStatus(), w);
    WriteRocksDbMetrics(stats.rocksdb, w);
  });
}

Readiness RegionServerReadiness(const RegionStore* store) {
  if (store == nullptr) return {false, "the region store is still opening"};
  const StoreStats stats = store->GetStoreStats();
  const uint64_t open = RegionsIn(stats, RegionState::kOpen);
  const uint64_t closed = RegionsIn(stats, RegionState::kClosed);
  std::string reason =
      open == 0 ? "ready; no region is open: the server serves nothing until "
                  "a router opens one"
                : "ready; serving " + std::to_string(open) +
                      (open == 1 ? " region" : " regions");
  if (closed != 0) {
    reason += "; " + std::to_string(closed) +
              " closed (kept until a router opens or drops them)";
  }
  if (stats.rocksdb.write_stopped) {
    reason += "; RocksDB is stopping writes until compaction catches up";
  }
  return {true, std::move(reason)};
}

std::string RegionServerStatusPage(const RegionStore& store,
                                   const RegionServerPageInfo& info) {
  const StoreStats stats = store.GetStoreStats();
  const FilterStatus filter = store.GetFilterStatus();
  HtmlPage page("bloomroute region server " + info.address,
                info.refresh_seconds);
  page.Raw(Links(info.refresh_seconds));
  page.Section("summary", "Summary").KeyValues(SummaryItems(info, stats));
  AddRegions(store, info, stats, &page);
  AddFilter(filter, &page);
  AddOpLog(filter, &page);
  AddRocksDb(stats.rocksdb, &page);
  return page.Finish();
}

}  // namespace bloomroute::ops
