// The data model the region server, the router and the Thrift adapters share:
// tables, regions, rows, mutations, index queries and filter ops. Plain
// values with no behaviour beyond validation. One definition serves both
// sides of the RegionService wire (regionstore/ and router/ never include
// each other, but both include this), so one set of Thrift conversions
// serves the server's handler and the router's client.
//
// Columns are named "family:qualifier" as in HBase: the family is non-empty and
// has no ':'; the qualifier may be empty. Row keys and values are bytes.
#ifndef BLOOMROUTE_MODEL_TYPES_H_
#define BLOOMROUTE_MODEL_TYPES_H_

#include <cstdint>
#include <iosfwd>
#include <limits>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "common/status.h"
#include "index/element_hash.h"
#include "index/scalable_split_counting_bloom_filter.h"

namespace bloomroute {

struct IndexedColumn {
  uint32_t column_id = 0;  // unique within the table; part of the element hash
  std::string name;        // "family:qualifier"
  // Added to a table that holds rows and not yet backfilled everywhere
  // (RegionStore::BackfillIndex): writes maintain its entries, but rows
  // written before it was added may have none yet, so lookups refuse it and
  // verification skips it.
  bool building = false;

  friend bool operator==(const IndexedColumn& a, const IndexedColumn& b) {
    return a.column_id == b.column_id && a.name == b.name &&
           a.building == b.building;
  }
};

struct TableDescriptor {
  uint64_t table_id = 0;  // assigned by the router, never reused
  std::string name;
  std::vector<IndexedColumn> indexed_columns;
  // Declared column families (HBase's TTableDescriptor.columns), distinct,
  // no ':'; empty = any family is accepted (model/table_attributes.h).
  // Region servers get them too, to check bulk loads; a region keeps the
  // families of the last descriptor it was opened with.
  std::vector<std::string> families = {};
  // Table attributes (HBase's map<binary, binary>), e.g. "bloomroute.index".
  std::map<std::string, std::string> attributes = {};

  // The indexed column with this name, or nullptr.
  const IndexedColumn* FindIndexed(std::string_view column) const;

  friend bool operator==(const TableDescriptor& a, const TableDescriptor& b) {
    return a.table_id == b.table_id && a.name == b.name &&
           a.indexed_columns == b.indexed_columns && a.families == b.families &&
           a.attributes == b.attributes;
  }
};

struct RegionDescriptor {
  uint64_t region_id = 0;  // unique per server
  TableDescriptor table;
  std::string start_key;  // inclusive; empty = from the first row
  std::string end_key;    // exclusive; empty = to the last row

  bool ContainsRow(std::string_view row) const {
    return row >= start_key && (end_key.empty() || row < end_key);
  }
  friend bool operator==(const RegionDescriptor& a, const RegionDescriptor& b) {
    return a.region_id == b.region_id && a.table == b.table &&
           a.start_key == b.start_key && a.end_key == b.end_key;
  }
};

// Cell timestamps, as in HBase: ms since the Unix epoch, never negative.
// kLatestTimestamp (HBase's HConstants.LATEST_TIMESTAMP) in a write means
// "now": the region server replaces it by its clock when it applies the
// write. A stored or returned cell never carries it.
inline constexpr int64_t kLatestTimestamp = std::numeric_limits<int64_t>::max();

// Cells hold one version each (HBase's VERSIONS => 1): a put of a cell with
// a timestamp below the stored cell's leaves the stored cell as it is; an
// equal or higher timestamp replaces it.
struct Cell {
  std::string column;  // "family:qualifier"
  std::string value;
  int64_t timestamp = kLatestTimestamp;  // last, so {column, value} inits
  friend bool operator==(const Cell& a, const Cell& b) {
    return a.column == b.column && a.value == b.value &&
           a.timestamp == b.timestamp;
  }
};

// Timestamps in [min, max), as HBase's TimeRange (HBase's "timestamp T" of
// a get is [T, T + 1)). The default selects every cell.
struct TimeRange {
  int64_t min = 0;
  int64_t max = kLatestTimestamp;
  bool Contains(int64_t ts) const { return ts >= min && ts < max; }
  bool IsAllTime() const { return min == 0 && max == kLatestTimestamp; }
  friend bool operator==(const TimeRange& a, const TimeRange& b) {
    return a.min == b.min && a.max == b.max;
  }
};

// A row as stored: cells sorted by column, each column at most once.
struct Row {
  std::string key;
  std::vector<Cell> cells;
  const Cell* Find(std::string_view column) const;
  friend bool operator==(const Row& a, const Row& b) {
    return a.key == b.key && a.cells == b.cells;
  }
};

// For test failures and logs: `'f:q'='v'@ts` (kLatestTimestamp as "@now"),
// bytes quoted as QuoteForMessage does.
std::ostream& operator<<(std::ostream& os, const Cell& cell);
std::ostream& operator<<(std::ostream& os, const Row& row);

// Columns to return: each entry is "family" (the whole family) or
// "family:qualifier". Empty = every column.
using Projection = std::vector<std::string>;

// HBase's CompareOperator (without NO_OP): for filters
// (model/filter_language.h) and RowCondition.
enum class CompareOp {
  kLess,
  kLessOrEqual,
  kEqual,
  kNotEqual,
  kGreaterOrEqual,
  kGreater
};
inline constexpr int kCompareOpCount = 6;

// The check of HBase's checkAndMutate on one cell of the mutation's row
// (model/atomic_ops.h, ConditionHolds, gives the exact rule and direction:
// the GIVEN value is compared against the cell's, as HBase does).
struct RowCondition {
  std::string column;  // "family:qualifier"
  CompareOp op = CompareOp::kEqual;
  // Unset (or empty, as in HBase): "the cell is absent or empty".
  std::optional<std::string> value;
  friend bool operator==(const RowCondition& a, const RowCondition& b) {
    return a.column == b.column && a.op == b.op && a.value == b.value;
  }
};

// kIncrement: add `amount` to the column's 8-byte big-endian signed value.
struct ColumnIncrement {
  std::string column;  // "family:qualifier"
  int64_t amount = 1;
  friend bool operator==(const ColumnIncrement& a, const ColumnIncrement& b) {
    return a.column == b.column && a.amount == b.amount;
  }
};

// One part of a delete (HBase's TDelete columns with their TDeleteType).
// `timestamp` kLatestTimestamp = none given.
//   kColumn  (DELETE_COLUMN): "family:qualifier"; removes the cell when its
//            timestamp equals the one given; with none, removes the cell
//            (its latest version) whatever its timestamp.
//   kColumns (DELETE_COLUMNS): "family:qualifier"; removes the cell when its
//            timestamp is <= the one given (none: the server's clock).
//   kFamily  (DELETE_FAMILY): "family"; removes every cell of the family
//            whose timestamp is <= the one given (none: the server's clock).
// Unlike HBase we keep no delete markers: a delete removes what is stored
// when it is applied, and a later put with an older timestamp is stored
// (HBase would hide it behind the marker until a major compaction).
struct DeleteSpec {
  enum class Kind : uint8_t { kColumn = 0, kColumns = 1, kFamily = 2 };
  Kind kind = Kind::kColumns;
  std::string column;  // "family:qualifier", or "family" for kFamily
  int64_t timestamp = kLatestTimestamp;
  friend bool operator==(const DeleteSpec& a, const DeleteSpec& b) {
    return a.kind == b.kind && a.column == b.column &&
           a.timestamp == b.timestamp;
  }
};

struct Mutation {
  enum class Kind { kPut, kDelete, kIncrement, kAppend };
  Kind kind = Kind::kPut;
  uint64_t region_id = 0;
  std::string row_key;
  // kPut: the columns to add or overwrite (at least one). A cell whose
  // timestamp is kLatestTimestamp gets `timestamp` (HBase's TPut.timestamp),
  // and when that is kLatestTimestamp too, the server's clock.
  std::vector<Cell> cells;
  // kDelete: the columns to remove whatever their timestamps, and `deletes`;
  // both empty removes the whole row: every cell whose timestamp is <=
  // `timestamp` (kLatestTimestamp: the server's clock when applied).
  std::vector<std::string> columns;
  // kIncrement: the columns to increment (at least one), in order.
  // kAppend uses `cells`: the bytes to append to each column's value.
  std::vector<ColumnIncrement> increments;
  // Any kind: the mutation is applied only when the condition holds on its
  // row as the row was BEFORE the batch (so that several mutations carrying
  // one condition -- a checkAndMutate -- are applied all or none).
  std::optional<RowCondition> condition;
  std::vector<DeleteSpec> deletes;
  int64_t timestamp = kLatestTimestamp;

  static Mutation Put(uint64_t region, std::string row,
                      std::vector<Cell> cells);
  static Mutation Delete(uint64_t region, std::string row,
                         std::vector<std::string> columns = {});
  static Mutation Increment(uint64_t region, std::string row,
                            std::vector<ColumnIncrement> increments);
  static Mutation Append(uint64_t region, std::string row,
                         std::vector<Cell> cells);
};

// What one mutation of a batch did (WriteResult::outcomes).
struct MutationOutcome {
  bool applied = true;  // false: its condition did not hold
  // kIncrement / kAppend when applied: the columns' new cells, one per
  // entry of the mutation, in its order.
  std::vector<Cell> cells;
  friend bool operator==(const MutationOutcome& a, const MutationOutcome& b) {
    return a.applied == b.applied && a.cells == b.cells;
  }
};

struct GetRequest {
  uint64_t region_id = 0;
  std::string row_key;
  Projection columns;
  // HBase filter language (model/filter_language.h); empty = none. Applied
  // by the router to the projected row (a row it drops is missing); a
  // region server refuses a get with a filter (its wire does not carry it).
  std::string filter{};  // braces: aggregate inits may omit it
  // Cells outside are not returned; a row left with none is missing.
  TimeRange time_range = TimeRange();
};

struct ScanRequest {
  uint64_t region_id = 0;
  std::string start_row;  // inclusive; empty = region start
  std::string stop_row;   // exclusive; empty = region end
  uint32_t limit = 0;     // rows, in [1, kMaxRowsPerCall]
  Projection columns;
  // Reply bytes (ReplyBytes of the rows), about: the scan stops after the
  // row that passes it. 0 = the server's own budget, which also applies
  // when it is smaller.
  uint64_t max_bytes = 0;
  // HBase filter language (model/filter_language.h), at most
  // kMaxFilterTextBytes; empty = none. Applied to each row after the
  // projection (as HBase: a column the scan does not select is missing to
  // the filter); rows it drops are not returned but count as examined.
  // PageFilter passes every row here: its limit is the caller's to apply.
  std::string filter{};  // braces: aggregate inits may omit it
  // Cells outside are not returned; a row left with none is skipped.
  TimeRange time_range = TimeRange();
};

struct ScanResult {
  // In key order, each within [start_row, stop_row).
  std::vector<Row> rows;
  // Set when rows may remain in the range: pass it as the next start_row.
  // It sorts after every row returned and after the request's start_row
  // (a scan stopped by the server's work bound may return no row, but
  // always moves on).
  std::optional<std::string> resume_row;
};

struct EqualityPredicate {
  std::string column;  // an indexed column
  std::string value;
};

// column in {values}: 1 to kMaxInValues distinct values.
struct InPredicate {
  std::string column;  // an indexed column
  std::vector<std::string> values;
};

// column in [lower, upper) in byte order; an unset bound is open. Other
// bounds map onto this form exactly (model/index_predicate.h): `> v` and
// `<= v` use v + '\0', the next value in byte order; a prefix P is
// [P, PrefixSuccessor(P)). lower >= upper matches nothing (not an error).
struct RangePredicate {
  std::string column;                // an indexed column
  std::optional<std::string> lower;  // inclusive
  std::optional<std::string> upper;  // exclusive
};

// A conjunction: every equality, IN list and range must hold. At least one
// predicate; at most kMaxIndexPredicates in all, whose values (equalities',
// IN lists', range bounds') hold at most kMaxIndexPredicateValues values
// and kMaxIndexPredicateBytes bytes.
//
// The region server drives the lookup from the most selective equality or
// IN list (fewest rows on the server; an IN's count is the sum of its
// values'), merging an IN's per-value index streams (each in row order), so
// the answer is in row-key order; the other predicates are checked by index
// point lookups (equalities) or on the row. A range (or ranges) alone is
// answered in row-key order too: per region its index entries are scanned
// keeping the `limit` smallest row keys, or, when the region's range holds
// more entries than half the work left, the region's rows are scanned in
// key order. Either way the answer is an exact prefix by row key.
struct IndexQuery {
  uint64_t table_id = 0;
  // Regions of the table to search; empty = every open region of the table
  // on this server.
  std::vector<uint64_t> region_ids;
  std::vector<EqualityPredicate> equals;
  std::optional<RangePredicate> range;
  uint32_t limit = 0;  // rows, in [1, kMaxRowsPerCall]
  Projection columns;
  // Only rows whose key sorts after this one (a lookup resumed where an
  // earlier answer stopped).
  std::optional<std::string> after_row;
  // Reply bytes, about, as ScanRequest::max_bytes. 0 = the server's own.
  uint64_t max_bytes = 0;
  // Only cells in the range count: a row matches when its cells in the
  // range satisfy every predicate (what a scan of the range, kept to rows
  // whose cells equal the values, returns), and only those are returned.
  TimeRange time_range = TimeRange();
  std::vector<InPredicate> in = {};
  // More ranges, ANDed with `range` (on the same or other columns).
  std::vector<RangePredicate> ranges = {};
  // Count the matching rows (IndexQueryResult::count) instead of returning
  // them: no rows, and neither `limit` nor the reply budget stops the
  // count (only the work bound does).
  bool count_only = false;
};

struct IndexQueryResult {
  // By row key (the regions are searched in key order), whatever the
  // predicates. A matching row is always returned, with the projected cells
  // it has (possibly none). Empty with count_only.
  std::vector<Row> rows;
  // The answer stopped early: the limit, the reply byte budget or the
  // server's work bound (rows examined, bytes read). `rows` are every match
  // up to and including resume_after, and the rest sort after it.
  bool truncated = false;
  // Set when truncated: the last row key the answer covers -- the last row
  // returned, or a later key examined when the work bound stopped the
  // search (possibly with no row). Pass it as IndexQuery::after_row to
  // continue.
  std::optional<std::string> resume_after;
  // count_only: the number of matching rows up to resume_after (all of
  // them when not truncated).
  uint64_t count = 0;
};

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

// A verification pass over what a region server stores (RegionStore::
// VerifyIndex): everything derived from the rows recomputed and compared.
struct IndexReport {
  // The table checked; nullopt: every table on the server.
  std::optional<uint64_t> table_id;
  uint64_t rows = 0;
  uint64_t index_entries_valid = 0;
  uint64_t index_entries_missing = 0;  // implied by a row, absent
  uint64_t index_entries_extra = 0;    // present, not implied by any row
  uint64_t values = 0;                 // distinct (table, column, value)
  uint64_t value_counts_wrong = 0;     // count differs from the rows
  // Values whose element the filter does not contain at the stage recorded
  // with the value (a false negative waiting to happen).
  uint64_t values_not_in_filter = 0;
  // The server's filter equals one rebuilt from every value record at its
  // recorded stage (server-wide: the filter is shared by all tables).
  bool filter_matches_rebuild = false;
  // Indexed columns of the tables checked that are still building: their
  // rows are not checked for entries, nor their value counts against rows
  // (their entries must still each be implied by a row).
  uint64_t building_columns = 0;
  std::vector<std::string> problems;  // the first few, for the log
  // Entries that are wrong rather than missing or extra.
  uint64_t invalid() const { return value_counts_wrong + values_not_in_filter; }
  bool ok() const {
    return index_entries_missing == 0 && index_entries_extra == 0 &&
           invalid() == 0 && filter_matches_rebuild;
  }
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

struct RegionStatsPage {
  std::vector<RegionStats> regions;  // ascending region ids
  // Regions after the last one are left: ask again after it.
  bool more = false;
};

// What `row` costs in a reply, about: its key, column names and values, and
// kReplyBytesPerCell for each cell's encoding (lengths, field headers), so
// that rows of many small cells are not undercounted. Reply byte budgets
// (scans, gets, lookups) are counted in it.
inline constexpr size_t kReplyBytesPerCell = 16;
size_t ReplyBytes(const Row& row);

// Limits shared by every call.
inline constexpr uint32_t kMaxRowsPerCall = 100000;
inline constexpr size_t kMaxRowKeyBytes = 32767;  // as HBase (Short.MAX_VALUE)
inline constexpr size_t kMaxColumnNameBytes = 1024;
// One index query (IndexQuery, the router's LookupSpec): predicates, and
// values in them (an equality is one, an IN list its count, a range its
// bounds) and their bytes.
inline constexpr size_t kMaxIndexPredicates = 64;
inline constexpr size_t kMaxIndexPredicateValues = 1024;
inline constexpr size_t kMaxIndexPredicateBytes = 1 << 20;
// A filter string (ScanRequest::filter) on the region service's wire. The
// router's own limit (--max-filter-bytes) is at most this.
inline constexpr size_t kMaxFilterTextBytes = 1 << 20;

// InvalidArgument unless `column` is "family:qualifier" with a non-empty family
// and the whole name at most kMaxColumnNameBytes.
Status ValidateColumnName(std::string_view column);
// InvalidArgument unless every entry is a valid column or family name.
Status ValidateProjection(const Projection& columns);
// InvalidArgument naming `field` for a negative timestamp.
Status ValidateTimestamp(int64_t ts, std::string_view field);
// InvalidArgument for a bad column (a family name for kFamily), a kind
// outside the enum, or a negative timestamp.
Status ValidateDeleteSpec(const DeleteSpec& spec);
// InvalidArgument for a negative min or max < min.
Status ValidateTimeRange(const TimeRange& range);
// InvalidArgument, naming the limit, unless the query's predicates are 1 to
// kMaxIndexPredicates, each on a valid column name, every IN list has 1 to
// kMaxIndexPredicateValues distinct values, and the values and bounds of
// all predicates are at most kMaxIndexPredicateValues values and
// kMaxIndexPredicateBytes bytes. Whether the columns are indexed is the
// caller's to check.
Status ValidateIndexPredicates(const IndexQuery& query);
// The cells within `range` (all of them for the default range).
std::vector<Cell> CellsInRange(std::vector<Cell> cells, const TimeRange& range);
// InvalidArgument for an empty name, a bad indexed column name, or duplicate
// column ids or names.
Status ValidateTable(const TableDescriptor& table);
// ValidateTable, and start < end when both are set.
Status ValidateRegion(const RegionDescriptor& region);
// `bytes` quoted for an error message: printable ASCII kept, other bytes as
// '?', cut after 64 bytes.
std::string QuoteForMessage(std::string_view bytes);
// True when `column` is selected by the projection (empty selects all).
bool Selected(const Projection& columns, std::string_view column);

}  // namespace bloomroute

#endif  // BLOOMROUTE_MODEL_TYPES_H_
