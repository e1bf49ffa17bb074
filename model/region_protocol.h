// The region protocol: what a region server and the routers exchange besides
// rows and index queries -- the filter's op stream, snapshots and images,
// write results, index build chunks, region stats
// and region exports. Clients of the router never see these; one definition
// serves both sides of the RegionService wire (regionstore/ and router/ never
// include each other, but both include this), so one set of Thrift
// conversions serves the server's handler and the router's client.
#ifndef BLOOMROUTE_MODEL_REGION_PROTOCOL_H_
#define BLOOMROUTE_MODEL_REGION_PROTOCOL_H_

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "common/status.h"
#include "index/element_hash.h"
#include "index/scalable_split_counting_bloom_filter.h"
#include "model/index_report.h"
#include "model/rows.h"

namespace bloomroute {

// One change to the server's filter: the unit the router replays.
struct FilterOp {
  enum class Kind : uint8_t { kInsert = 1, kRemove = 2 };
  uint64_t seq = 0;  // dense, increasing; 1 is the first op ever
  Kind kind = Kind::kInsert;
  ElementHash hash;
  uint32_t stage = 0;  // stage inserted into / removed from
  // The occupancy bits the op changed in `stage`: bit j set <=> slice j's
  // probed counter went 0 -> 1 (an insert set the bit) or 1 -> 0 (a remove
  // cleared it). Bits at or above the stage's slice count are 0. What a
  // bits-only copy applies (OccupancyImage::ApplyInsert / ApplyRemove).
  uint64_t mask = 0;
  friend bool operator==(const FilterOp& a, const FilterOp& b) {
    return a.seq == b.seq && a.kind == b.kind && a.hash == b.hash &&
           a.stage == b.stage && a.mask == b.mask;
  }
};

// Where a filter's op sequence comes from. A region server draws a new
// random incarnation every time it starts, and never persists it: whatever
// a restart lost (the unsynced tail of its WAL after a power loss, or a data
// directory restored from a copy), its (incarnation, epoch, seq) triples are
// never handed out twice, while (epoch, seq) alone may be. Within one
// incarnation epochs and sequence numbers only grow. Never 0.
//
// What a write changed in the filter. `ops` are this write's ops in sequence
// order; when `epoch` differs from the reader's, the filter was rebuilt and
// the reader must take a snapshot instead of applying ops; when the
// incarnation differs, the server restarted since the reader's copy.
struct WriteResult {
  uint64_t incarnation = 0;
  uint64_t epoch = 0;
  std::vector<FilterOp> ops;
  // The newest op of the filter when this write committed: at least the seq
  // of its own ops, and also covering ops of concurrent writes. A write that
  // changed no count to or from zero has no ops, yet its row may rely on an
  // insert another write made; a reader whose replica is below last_seq does
  // not hold that insert yet and must not rule this server out.
  uint64_t last_seq = 0;
  // One per mutation of the batch, in order, when the batch held a
  // condition, an increment or an append; empty otherwise (every mutation
  // of such a batch, and of a bulk load, was applied).
  std::vector<MutationOutcome> outcomes;
};

struct FilterSnapshot {
  uint64_t incarnation = 0;
  uint64_t epoch = 0;
  uint64_t last_seq = 0;  // the ops up to here are in `filter`
  std::string filter;     // ScalableSplitCountingBloomFilter::Serialize()
};

// One page of a bits-only snapshot of a server's filter: the bytes
// [offset, offset + bytes.size()) of OccupancyImage::Serialize() of the
// filter as it was at (incarnation, epoch, last_seq) when the image was
// taken (index/occupancy_image.h). Every page of one image names it with
// the same image_id (random, never 0) and carries the same header fields.
struct FilterImagePage {
  uint64_t incarnation = 0;
  uint64_t epoch = 0;
  uint64_t last_seq = 0;  // the ops up to here are in the image
  uint64_t image_id = 0;
  uint64_t total_bytes = 0;  // of the whole image
  uint64_t offset = 0;       // of `bytes` in the image
  std::string bytes;
};

// A whole bits-only snapshot, assembled from its pages.
struct FilterImage {
  uint64_t incarnation = 0;
  uint64_t epoch = 0;
  uint64_t last_seq = 0;  // the ops up to here are in `image`
  std::string image;      // OccupancyImage::Serialize()
};

struct FilterOpsSince {
  uint64_t incarnation = 0;
  uint64_t epoch = 0;
  // The requested ops were trimmed or belong to another epoch or
  // incarnation: take a snapshot. `ops` is empty then.
  bool too_old = false;
  std::vector<FilterOp> ops;  // seq > the requested one, in order
  uint64_t last_seq = 0;      // the newest op; ops may stop before it
};

// A server's filter: where its op sequence is and what the filter holds.
struct FilterStatus {
  uint64_t incarnation = 0;
  uint64_t epoch = 0;
  uint64_t last_seq = 0;
  SscbfStats stats;
  SscbfConfig config;  // the config the filter has
};

// One chunk of an index build or drop on one region (RegionStore::
// BackfillIndex / DropIndexEntries): the filter changes it made, returned as
// a write's are, and where the work stands.
struct IndexChunkResult {
  WriteResult write;     // its ops go to the router's replica like a write's
  uint64_t rows = 0;     // rows examined (backfill) or entries examined (drop)
  uint64_t entries = 0;  // index entries added (backfill) or removed (drop)
  bool done = false;     // nothing of the region is left to do
  // Backfill, when not done: the last row examined; the next chunk starts
  // after it.
  std::string resume_after;
};

// Where a region a server knows stands (RegionStats::state).
enum class RegionState {
  kOpen = 0,      // served
  kClosed = 1,    // data kept, not served (a restart, CloseRegion)
  kDropping = 2,  // a DropRegion is deleting its rows
  kStaged = 3,    // open for calls naming it, not serving (OpenRegion)
};
inline constexpr int kRegionStateCount = 4;
// "open", "closed", "dropping", "staged".
const char* RegionStateName(RegionState state);

// What one region a server knows holds (RegionStore::GetRegionStats).
struct RegionStats {
  uint64_t region_id = 0;
  uint64_t table_id = 0;
  RegionState state = RegionState::kOpen;
  // Exact: the region's row keys counted by a scan when asked (rows written
  // after the scan passed their key are not counted).
  uint64_t rows = 0;
  // Approximate: RocksDB's estimate (SST files and memtables) of the bytes
  // of the region's rows and of its local index entries. Flushed data counts
  // its compressed size on disk; data still in a memtable its size in
  // memory, several times more (and a region of a few rows in a memtable
  // may show 0: the memtable's estimate samples its skip list).
  uint64_t row_bytes = 0;
  uint64_t index_bytes = 0;
};

// At most this many regions in one RegionStats reply.
inline constexpr uint32_t kMaxRegionStatsPerCall = 1000;
// A RegionStats call stops after the region whose count brings the rows it
// counted past this (bounds the call's time to a few seconds); the caller
// asks again after the last region returned.
inline constexpr uint64_t kMaxRegionStatsRowsPerCall = 4000000;

// Which regions a RegionStats call covers.
struct RegionStatsRequest {
  uint64_t table_id = 0;         // 0: every table
  uint64_t after_region_id = 0;  // only regions with larger ids
  // 1 to kMaxRegionStatsPerCall.
  uint32_t max_regions = kMaxRegionStatsPerCall;
  // false: rows are not counted (RegionStats::rows is 0), only the cheap
  // byte estimates are made (the balancer's and automatic splits' view).
  bool count_rows = true;
};

// A slice of a region's rows as a bulk file (RegionStore::ExportRows), for
// copying a region to another server: the rows in [start_row, stop_row)
// (empty = the region's start / end), at most max_rows of them, and the
// file stops after the row that brings its size to max_bytes.
inline constexpr uint32_t kMaxExportRows = 100000;
struct ExportRequest {
  uint64_t region_id = 0;
  std::string start_row;
  std::string stop_row;
  uint32_t max_rows = 1000;      // 1 to kMaxExportRows
  uint64_t max_bytes = 4 << 20;  // 1 to the server's bulk file size limit
};
struct ExportedRows {
  std::string file;  // a bulk file (regionstore/bulk_file.h); empty: no row
  uint64_t rows = 0;
  // The first row not in the file, when rows are left in the range.
  std::optional<std::string> resume_row;
};

// The epoch of the router that coordinates the cluster: the one router that
// runs region operations (opens, closes, drops, moves, splits, merges),
// index builds and drops, and sets the cluster's filter config (DESIGN.md,
// "Many routers, one truth"). Epochs only grow: a router elected later has a
// higher one (today: its start count, router/internal/catalog.h,
// RecordRouterStart). Every call only the coordinator makes that changes a
// server's regions or filter carries it, and a region server refuses a call
// whose epoch is below the highest it has seen (regionstore/region_store.h,
// "Coordinator epochs"), so a coordinator that lost its leadership -- paused,
// partitioned, or an old process come back -- changes nothing. 0: the call
// does not come from a coordinator (a tool, a test): never refused, and it
// raises nothing.
struct CoordinatorEpoch {
  uint64_t value = 0;
  friend bool operator==(CoordinatorEpoch a, CoordinatorEpoch b) {
    return a.value == b.value;
  }
};

// The region server's refusal of a call from an older coordinator: Aborted
// "coordinator epoch <sent> is older than <seen>: another router coordinates
// this cluster now". Nothing was done.
Status CoordinatorEpochRefused(uint64_t sent, uint64_t seen);
// Whether `status` is that refusal (with any context added in front, as it
// has after crossing the wire or a router's WithContext): the sender is no
// longer the coordinator.
bool IsCoordinatorEpochRefused(const Status& status);

struct RegionStatsPage {
  std::vector<RegionStats> regions;  // ascending region ids
  // Regions after the last one are left: ask again after it.
  bool more = false;
};

}  // namespace bloomroute

#endif  // BLOOMROUTE_MODEL_REGION_PROTOCOL_H_
