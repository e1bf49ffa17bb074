// The data model of HBase rows that the router, the region server and the
// Thrift adapters share: tables, regions, cells, rows, mutations, gets and
// scans. Plain values with no behaviour beyond validation.
//
// Columns are named "family:qualifier" as in HBase: the family is non-empty and
// has no ':'; the qualifier may be empty. Row keys and values are bytes.
#ifndef BLOOMROUTE_MODEL_ROWS_H_
#define BLOOMROUTE_MODEL_ROWS_H_

#include <cstdint>
#include <iosfwd>
#include <limits>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "common/status.h"

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
  // The rows of the same range [start_row, stop_row) in descending key
  // order (HBase's reversed scan; the caller turns HBase's reversed bounds
  // into this range). resume_row is then the next call's stop_row.
  bool reversed = false;
};

struct ScanResult {
  // In key order (descending for a reversed scan), each within
  // [start_row, stop_row).
  std::vector<Row> rows;
  // Set when rows may remain in the range. Forward: pass it as the next
  // start_row; it sorts after every row returned and after the request's
  // start_row. Reversed: pass it as the next stop_row; it is no greater
  // than every row returned, less than the request's stop_row (when set)
  // and greater than its start_row. Either way a scan stopped by the
  // server's work bound may return no row, but always moves on.
  std::optional<std::string> resume_row;
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
// A region server's default largest cell value: HBase's client default
// (hbase.client.keyvalue.maxsize, 10 MiB), so that a client with HBase's
// defaults can write here what it writes to HBase.
inline constexpr size_t kDefaultMaxValueBytes = 10 << 20;
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
// The same for the paths that check every cell of a write: `field()` makes
// the name only for a negative timestamp (building "timestamp of column
// 'd:name'" for each of 19 cells was 2.8 % of a bulk import's server CPU).
template <typename FieldName>
Status ValidateTimestampNamed(int64_t ts, const FieldName& field) {
  return ts >= 0 ? Status::OK() : ValidateTimestamp(ts, field());
}
// InvalidArgument for a bad column (a family name for kFamily), a kind
// outside the enum, or a negative timestamp.
Status ValidateDeleteSpec(const DeleteSpec& spec);
// InvalidArgument for a negative min or max < min.
Status ValidateTimeRange(const TimeRange& range);
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

#endif  // BLOOMROUTE_MODEL_ROWS_H_
