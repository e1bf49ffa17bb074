// RegionService: the RPC interface of a bloomroute region server.
//
// One call per RegionStore method (regionstore/region_store.h); every struct
// mirrors a type of regionstore/types.h field by field. Style follows HBase
// Thrift2 (hbase.thrift): T-prefixed structs, `binary` for row keys, column
// names and values, batch calls that return results in request order.
//
// Thrift has no unsigned integers. Ids, sequence numbers, epochs, counts and
// limits are unsigned on the server and sent as i64 / i32: a negative value
// from a client is rejected with TIllegalArgument naming the field. The two
// halves of a 128-bit element hash, incarnations and fence tokens are bit
// patterns, sent as i64 with the same bits (they may be negative).
//
// Incarnation: a random number a region server draws at every start and
// never persists; results, snapshots and ops carry it, so that a router can
// tell that a server restarted (and may have lost, and will renumber, the
// unsynced tail of its filter ops). Fence token: writes carry the sending
// router's token; a router raises the server's fence (the fenceToken of
// getFilterSnapshot / getFilterOpsSince) before it catches up after a write
// whose fate it does not know, and a write whose nonzero token is below the
// fence is refused with TIOError "Aborted: ..." and nothing written.
//
// Coordinator epoch: the calls only the router that coordinates the cluster
// makes -- openRegion, closeRegion, dropRegion, updateTableIndexes,
// backfillIndex, dropIndexEntries, setFilterConfig -- carry its epoch (u64,
// the last argument; absent or 0: not a coordinator, as a tool or an older
// router sends, never refused). The server persists the highest epoch it has
// seen and refuses a call with a lower one, doing nothing, with TIOError
// "Aborted: coordinator epoch N is older than M: another router coordinates
// this cluster now" (regionstore/region_store.h, "Coordinator epochs").
//
// Fields use default requiredness so that a request with a missing field is
// answered with TIllegalArgument naming it, not dropped as a protocol error.
// Columns are "family:qualifier" (the family non-empty, without ':').
//
// Limits: rows per call at most 100000; a row key at most 32767 bytes; a
// column name at most 1024 bytes; a value at most the server's
// --max-value-bytes; a request frame at most the server's --max-frame-bytes.

include "errors.thrift"

namespace cpp bloomroute.rpc
namespace py bloomroute.rpc.region_service

struct TIndexedColumn {
  1: i32 columnId  // u32, unique within the table, part of the element hash
  2: binary name   // "family:qualifier"
  // Added to a table holding rows and not yet backfilled: writes maintain
  // it without trusting old rows to have entries; lookups refuse it.
  // Absent: false.
  3: optional bool building
}

struct TTableDescriptor {
  1: i64 tableId  // u64, assigned by the router, never reused
  2: binary name
  3: list<TIndexedColumn> indexedColumns
  // The table's declared column families (unset or empty: any family):
  // bulkLoad refuses cells of other families, as the router refuses puts.
  4: optional list<binary> families
}

struct TRegionDescriptor {
  1: i64 regionId  // u64, unique per server
  2: TTableDescriptor table
  3: binary startKey  // inclusive; empty = from the first row
  4: binary endKey    // exclusive; empty = to the last row
}

struct TColumnValue {
  1: binary column  // "family:qualifier"
  2: binary value
  // ms since the Unix epoch, >= 0. In a put, unset = the put's timestamp
  // (or the server's clock); in a result always set.
  3: optional i64 timestamp
}

// A row: cells sorted by column. In getMultiple's answer a row that does not
// exist (or has none of the requested columns) is a TResult without `row` and
// with no cells, as in HBase.
struct TResult {
  1: optional binary row
  2: list<TColumnValue> columnValues
}

// The values of TMutation.type. The field is an i32, not the enum: the C++
// generated code would store any number a client sends in the enum, which is
// undefined behaviour for values outside it. An unknown value is rejected
// with TIllegalArgument.
enum TMutationType {
  PUT = 1,
  DELETE = 2,
  INCREMENT = 3,
  APPEND = 4
}

// The values of TCondition.compareOp: HBase's CompareOperator (an i32 for
// the reason given at TMutationType).
enum TCompareOp {
  LESS = 0,
  LESS_OR_EQUAL = 1,
  EQUAL = 2,
  NOT_EQUAL = 3,
  GREATER_OR_EQUAL = 4,
  GREATER = 5
}

// HBase's checkAndMutate check on one cell of the mutation's row: the GIVEN
// value is compared against the cell's (LESS holds when value < the cell's
// value); an unset or empty value means "the cell is absent or empty" (with
// NOT_EQUAL: "present and not empty"). model/atomic_ops.h has the rule.
struct TCondition {
  1: binary column  // "family:qualifier"
  2: i32 compareOp  // a TCompareOp
  3: optional binary value
}

struct TColumnIncrement {
  1: binary column  // "family:qualifier"
  2: i64 amount
}

// The values of TDeleteSpec.type (an i32, as TMutation.type), HBase's
// TDeleteType.
enum TDeleteSpecType {
  DELETE_COLUMN = 0,   // the cell if its timestamp equals the one given
                       // (none: whatever its timestamp)
  DELETE_COLUMNS = 1,  // the cell if its timestamp <= the one given
  DELETE_FAMILY = 2    // every cell of the family with timestamp <= it
}

struct TDeleteSpec {
  1: i32 type       // a TDeleteSpecType
  2: binary column  // "family:qualifier"; "family" for DELETE_FAMILY
  // >= 0; unset = the mutation's timestamp, else (DELETE_COLUMNS,
  // DELETE_FAMILY) the server's clock
  3: optional i64 timestamp
}

struct TMutation {
  1: i32 type  // a TMutationType
  2: i64 regionId
  3: binary row
  // PUT: the columns to add or overwrite (at least one); a cell older than
  // the stored one is ignored (one version per cell). APPEND: the bytes to
  // append to each column's value (at least one).
  4: list<TColumnValue> columnValues
  // DELETE: the columns to remove whatever their timestamps, and
  // deleteSpecs; both empty removes the whole row (the cells with
  // timestamp <= `timestamp`, unset = the server's clock).
  5: list<binary> columns
  // INCREMENT: the columns and amounts (at least one); each cell holds an
  // 8-byte big-endian signed long (a missing one counts as 0).
  6: list<TColumnIncrement> increments
  // Applied only when this holds on the row as it was before the batch.
  7: optional TCondition condition
  // PUT: the timestamp of cells without one; DELETE: see above. >= 0;
  // unset = the server's clock.
  8: optional i64 timestamp
  9: optional list<TDeleteSpec> deleteSpecs
}

// Cells with timestamps in [minStamp, maxStamp) (HBase's TTimeRange);
// unset = every cell.
struct TTimeRange {
  1: i64 minStamp
  2: i64 maxStamp
}

// `columns` in TGet, TScan and TIndexQuery: each entry is a family or a
// "family:qualifier"; empty = every column.
struct TGet {
  1: i64 regionId
  2: binary row
  3: list<binary> columns
  4: optional TTimeRange timeRange
}

struct TScan {
  1: i64 regionId
  2: binary startRow  // inclusive; empty = region start
  3: binary stopRow   // exclusive; empty = region end
  4: i32 limit        // rows, in [1, 100000]
  5: list<binary> columns
  // Reply bytes, about (the server's own --max-result-bytes when smaller,
  // unset or 0): the scan stops after the row that passes it.
  6: optional i64 maxBytes
  // HBase filter language, at most 1 MiB; unset or empty = none. Applied to
  // each row after `columns`; rows it drops count against the work bound.
  7: optional binary filter
  8: optional TTimeRange timeRange
  // Unset or false: the rows in ascending key order. true: the rows of the
  // same range [startRow, stopRow) in descending key order (the router
  // turns HBase's reversed bounds into this range), and resumeRow is the
  // next call's stopRow. Optional, and sent only when true: a forward scan
  // reads as before; a server from before the field would answer a
  // reversed one in ascending order, which the router's reply check
  // refuses (Corruption) rather than return.
  9: optional bool reversed
}

struct TScanResult {
  // In key order (descending for a reversed scan), within [startRow,
  // stopRow).
  1: list<TResult> rows
  // Set when rows may remain in the range. Forward: pass it as the next
  // startRow; it sorts after every row returned and after the request's
  // startRow. Reversed: pass it as the next stopRow; it is no greater than
  // any row returned, below the request's stopRow (when set) and above its
  // startRow. Either way a scan stopped by the server's work bound
  // (--max-examined-rows, --max-examined-bytes) may return no row but
  // always moves on.
  2: optional binary resumeRow
}

struct TEqualityPredicate {
  1: binary column  // an indexed column
  2: binary value
}

// column in [lower, upper) in byte order; an unset bound is open.
struct TRangePredicate {
  1: binary column  // an indexed column
  2: optional binary lower
  3: optional binary upper
}

// column in {values}: 1 to 1024 distinct values (kMaxIndexPredicateValues).
struct TInPredicate {
  1: binary column  // an indexed column
  2: list<binary> values
}

// A conjunction: every equality, IN list and range must hold; at least one
// predicate, at most 64, with at most 1024 values and 1 MiB of them in all
// (model/index_query.h, kMaxIndexPredicate*).
struct TIndexQuery {
  1: i64 tableId
  // Regions of the table to search; empty = every open region of the table.
  2: list<i64> regionIds
  3: list<TEqualityPredicate> equals
  4: optional TRangePredicate range
  5: i32 limit  // rows, in [1, 100000]
  6: list<binary> columns
  // Only rows whose key sorts after this one.
  7: optional binary afterRow
  // Reply bytes, about, as TScan.maxBytes.
  8: optional i64 maxBytes
  // Only cells in the range count, for the predicates and the answer.
  9: optional TTimeRange timeRange
  10: optional list<TInPredicate> inLists
  // More ranges, ANDed with `range`.
  11: optional list<TRangePredicate> ranges
  // Count the matches (TIndexQueryResult.count) instead of returning them;
  // the limit and the reply budget do not stop a count.
  12: optional bool countOnly
}

struct TIndexQueryResult {
  // By row key, whatever the predicates. A matching row is always there,
  // with the projected cells it has (possibly none). None with countOnly.
  1: list<TResult> rows
  // The answer stopped early (the limit, the byte budget, or the server's
  // work bound); the rest sort after resumeAfter.
  2: bool truncated
  // Set when truncated: the last row key the answer covers, the last row
  // returned or a later key examined (the work bound may stop an answer
  // with no row). Pass it as afterRow to continue.
  3: optional binary resumeAfter
  // countOnly: the matching rows up to resumeAfter (all when not truncated).
  4: optional i64 count
}

// The values of TFilterOp.kind (an i32 for the reason given at TMutationType).
enum TFilterOpKind {
  INSERT = 1,
  REMOVE = 2
}

// One change to the server's filter: the unit a router replays.
struct TFilterOp {
  1: i64 seq  // dense, increasing; 1 is the first op ever
  2: i32 kind  // a TFilterOpKind
  3: i64 hashLow   // the element hash's low 64 bits
  4: i64 hashHigh  // the element hash's high 64 bits
  5: i32 stage     // stage inserted into / removed from
  // The occupancy bits the op changed in `stage` (bits, as the hash): bit j
  // set <=> slice j's probed counter went 0 -> 1 (an insert) or 1 -> 0 (a
  // remove); what a copy that keeps occupancy bits only applies.
  6: i64 mask
}

// What a write changed in the filter. When `epoch` differs from the reader's,
// the filter was rebuilt: take a snapshot instead of applying `ops`.
// What one mutation of a batch did.
struct TMutationOutcome {
  1: bool applied  // false: its condition did not hold
  // INCREMENT / APPEND when applied: the columns' new cells, one per entry.
  2: list<TColumnValue> cells
}

struct TWriteResult {
  1: i64 epoch
  2: list<TFilterOp> ops
  // The filter's newest op when the write committed (covers concurrent
  // writes' ops): a replica below it may lack an insert this row relies on.
  3: i64 lastSeq
  4: i64 incarnation  // the server's run (bits; never 0)
  // One per mutation, in order, when the batch held a condition, an
  // increment or an append; unset otherwise.
  5: optional list<TMutationOutcome> outcomes
}

struct TFilterSnapshot {
  1: i64 epoch
  2: i64 lastSeq  // the ops up to here are in `filter`
  3: binary filter  // the serialized scalable split counting Bloom filter
  4: i64 incarnation
}

// One page of a bits-only snapshot of the filter: bytes [offset, offset +
// size) of the serialized occupancy image (index/occupancy_image.h) of the
// filter at (incarnation, epoch, lastSeq). Every page of one image carries
// the same imageId (bits, never 0), incarnation, epoch, lastSeq and
// totalBytes.
struct TFilterImagePage {
  1: i64 epoch
  2: i64 lastSeq     // the ops up to here are in the image
  3: i64 incarnation
  4: i64 imageId
  5: i64 totalBytes  // of the whole image
  6: i64 offset      // of `bytes` in the image
  7: binary bytes    // at most the server's --filter-image-page-bytes
}

struct TFilterOpsSince {
  1: i64 epoch
  // The requested ops were trimmed or belong to another epoch or
  // incarnation: take a snapshot. `ops` is empty then.
  2: bool tooOld
  3: list<TFilterOp> ops  // seq > the requested one, in order
  4: i64 lastSeq          // the newest op; ops may stop before it
  5: i64 incarnation
}

struct TStageStats {
  1: i32 stage
  2: double targetFpr   // P_i
  3: i32 slices         // k_i
  4: i64 sliceLength    // m_i
  5: i64 capacity       // n_i
  6: i32 firstProbe
  7: i64 elements
  8: double fill        // mean slice fill
  9: double estimatedFpr
  10: i32 planes        // most DDCF planes in any slice
  11: i64 memoryBytes
}

// The configuration of a scalable split counting Bloom filter
// (SscbfConfig); every stage's geometry follows from it and the stage index.
// The router owns it and sets it on every region server (setFilterConfig).
struct TFilterConfig {
  1: double targetFpr        // P, the compounded bound, in (0, 1)
  2: double tighteningRatio  // r, in (0, 1)
  3: double growthFactor     // s, in [1, 16]
  4: i64 initialCapacity     // n0, elements in stage 0, >= 1
  5: i32 baseBits            // DDCF counter base bits x, in [1, 16]
  6: double fullFill         // a stage is full at this mean fill
}

struct TFilterStatus {
  1: i64 epoch
  2: i64 lastSeq
  3: list<TStageStats> stages
  4: i64 elements
  5: double estimatedFpr
  6: double compoundedBound
  7: i64 memoryBytes
  8: i64 incarnation
  // The config the filter has (absent from servers before it was added).
  9: optional TFilterConfig config
}

struct TIndexReport {
  1: i64 rows
  2: i64 indexEntriesValid
  3: i64 indexEntriesMissing  // implied by a row, absent
  4: i64 indexEntriesExtra    // present, not implied by any row
  5: i64 values               // distinct (table, column, value)
  6: i64 valueCountsWrong     // count differs from the rows
  7: bool filterMatchesRebuild
  8: list<string> problems    // the first few
  9: bool ok                  // index, counts and filter all agree
  // Values whose element is not in the filter at the stage recorded with
  // the value (the filter would miss their rows).
  10: i64 valuesNotInFilter
  // The table the counts cover; absent: every table on the server.
  // filterMatchesRebuild is always server-wide (all tables share the filter).
  11: optional i64 tableId
  // Indexed columns still building (their rows are not checked for
  // entries, nor their counts against rows). Absent: 0.
  12: optional i64 buildingColumns
}

// One chunk of an index build or drop on one region.
struct TIndexChunkResult {
  1: TWriteResult written  // the filter ops it made, as a write's
  2: i64 rows            // rows (backfill) or entries (drop) examined
  3: i64 entries         // index entries added (backfill) or removed (drop)
  4: bool done           // nothing of the region is left to do
  // Backfill, when not done: the last row examined (the next chunk's
  // afterRow).
  5: binary resumeAfter
}

// Where a region the server knows stands (RegionState in model/region_protocol.h).
enum TRegionState {
  OPEN = 0,      // served
  CLOSED = 1,    // data kept, not served (a restart, closeRegion)
  DROPPING = 2,  // dropRegion is deleting its rows
  // Open for calls naming it, not serving (openRegion with staging). A
  // reader older than this value answers "is not a region state".
  STAGED = 3,
}

// What one region holds (RegionStore::GetRegionStats).
struct TRegionStats {
  1: i64 regionId
  2: i64 tableId
  // A TRegionState, declared i32: a generated router would otherwise hold
  // any i32 a region server sends in the enum type (undefined behaviour
  // for a value outside it; the router refuses one as Corruption).
  3: i32 state
  4: i64 rows        // exact: its row keys counted when asked
  5: i64 rowBytes    // approximate (RocksDB's estimate, memtables included)
  6: i64 indexBytes  // approximate, its local index entries
}

// RegionStore::SplitPoint: a row key splitting a region's rows about in
// half; unset when the region has fewer than 2 rows. At most the server's
// row key bound (32767 bytes), never empty.
struct TSplitPoint {
  1: optional binary key
}

// A slice of a region's rows as a bulk file (exportRows).
struct TExportedRows {
  1: binary file                // a bulk file; empty when no row is there
  2: i64 rows
  3: optional binary resumeRow  // the next row, when rows are left
}

// A router asks to be pushed the server's filter ops, with a lease
// (model/op_push.h has the protocol and the lease arithmetic).
struct TOpSubscribeRequest {
  1: i64 routerId   // as in its fence tokens: in [1, 65535]
  2: i64 session    // drawn per router process (bits)
  3: string address // where to push: "host:port" of its OpPushService
  4: i64 leaseMs    // in [100, the server's --max-op-lease-ms]
  5: i64 tag        // echoed in every push (bits)
}

struct TOpSubscribeGrant {
  // true: continued a subscription whose every push was acknowledged;
  // false: new, starting at (incarnation, epoch, lastSeq).
  1: bool renewed
  2: i64 incarnation  // bits
  3: i64 epoch
  4: i64 lastSeq
  5: i64 leaseMs
}

struct TRegionStatsPage {
  1: list<TRegionStats> regions  // ascending region ids
  2: bool more                   // regions are left: ask after the last
}

service RegionService {
  // Starts serving a region (idempotent for an identical descriptor). A
  // restarted server serves no region until it is opened again. With a
  // nonzero incarnation, refused (TIOError "Aborted: ...") unless it is the
  // server's: the caller saw an earlier run. With staging (absent: false,
  // as an older router sends it) the region is opened STAGED for a move or
  // split: calls naming it work, it is checked for overlap only against
  // other staged regions, and lookups over every region of the table skip
  // it. openRegion without staging promotes a staged region to serving
  // when no serving region overlaps it; serving is never demoted
  // (RegionStore::OpenRegion).
  void openRegion(1: TRegionDescriptor region, 2: i64 incarnation,
                  3: bool staging, 4: i64 coordinatorEpoch)
      throws (1: errors.TIOError io, 2: errors.TIllegalArgument ia)
  // A row key splitting open region regionId (staged or serving) about in
  // half: the median of a sample of at most 1,024 of its keys, of at most
  // the server's --max-examined-rows keys read (RegionStore::SplitPoint).
  // TIOError (NotFound) for a region that is not open.
  TSplitPoint splitPoint(1: i64 regionId)
      throws (1: errors.TIOError io, 2: errors.TIllegalArgument ia)
  // Stops serving a region; its data stays.
  void closeRegion(1: i64 regionId, 2: i64 coordinatorEpoch)
      throws (1: errors.TIOError io, 2: errors.TIllegalArgument ia)
  // Deletes every row of an open region and closes it.
  void dropRegion(1: i64 regionId, 2: i64 coordinatorEpoch)
      throws (1: errors.TIOError io, 2: errors.TIllegalArgument ia)
  list<TRegionDescriptor> listRegions()
      throws (1: errors.TIOError io, 2: errors.TIllegalArgument ia)
  // The ids of the open regions, ascending: listRegions without the key
  // ranges, which the router asks every maintenance pass.
  list<i64> listRegionIds()
      throws (1: errors.TIOError io, 2: errors.TIllegalArgument ia)

  // What the server's regions (open, closed or being dropped) hold: of
  // table tableId (0: every table), ids above afterRegionId, at most
  // maxRegions (1 to 1000) a page, and the page ends early after the
  // region whose rows bring those counted past 4,000,000. Rows are counted
  // by a scan (about as slow as reading them); bytes are approximate.
  // skipRowCount (absent: false, as older routers send it): rows are left
  // 0 and only the byte estimates are made (cheap: the balancer's view).
  TRegionStatsPage getRegionStats(1: i64 tableId, 2: i64 afterRegionId,
                                  3: i32 maxRegions, 4: bool skipRowCount)
      throws (1: errors.TIOError io, 2: errors.TIllegalArgument ia)

  // Applies the mutations as one atomic batch, in order. Any invalid mutation
  // rejects the whole batch (nothing is written); so does a fence token
  // below the server's fence (TIOError "Aborted: ..."). Conditions,
  // increments and appends are evaluated under the rows' locks
  // (regionstore/region_store.h, Apply); the result says what each did. An
  // increment of a cell that is not 8 bytes rejects the batch.
  TWriteResult mutateRows(1: list<TMutation> mutations, 2: i64 fenceToken)
      throws (1: errors.TIOError io, 2: errors.TIllegalArgument ia)
  // The rows in request order (see TResult for missing rows): a prefix of
  // the requests when the reply passed the byte budget (maxBytes, or the
  // server's --max-result-bytes when smaller, unset or 0); at least one.
  // Ask again for the rest.
  list<TResult> getMultiple(1: list<TGet> gets, 2: i64 maxBytes)
      throws (1: errors.TIOError io, 2: errors.TIllegalArgument ia)
  TScanResult scan(1: TScan scan)
      throws (1: errors.TIOError io, 2: errors.TIllegalArgument ia)
  // The exact answer from the region-local inverted index.
  TIndexQueryResult lookup(1: TIndexQuery query)
      throws (1: errors.TIOError io, 2: errors.TIllegalArgument ia)

  // Both first raise the fence to fenceToken (0: leave it).
  TFilterSnapshot getFilterSnapshot(1: i64 fenceToken)
      throws (1: errors.TIOError io, 2: errors.TIllegalArgument ia)
  // The ops after (incarnation, epoch, seq); tooOld when they are not here.
  TFilterOpsSince getFilterOpsSince(1: i64 epoch, 2: i64 seq,
                                    3: i64 incarnation, 4: i64 fenceToken)
      throws (1: errors.TIOError io, 2: errors.TIllegalArgument ia)
  // A page of a bits-only snapshot of the filter. imageId 0 (offset 0)
  // raises the fence to fenceToken, takes a new image (the server keeps
  // one, replacing any other) and returns its first page; imageId N the
  // page of image N at `offset` (fenceToken ignored). An image is dropped
  // after its last page or when unused for 60 s; asking for it then is
  // TIOError "NotFound: filter image N expired; start a new one".
  TFilterImagePage getFilterImagePage(1: i64 fenceToken, 2: i64 imageId,
                                      3: i64 offset)
      throws (1: errors.TIOError io, 2: errors.TIllegalArgument ia)
  TFilterStatus getFilterStatus()
      throws (1: errors.TIOError io, 2: errors.TIllegalArgument ia)
  // Rebuilds the filter right-sized under a new epoch.
  void compactFilter()
      throws (1: errors.TIOError io, 2: errors.TIllegalArgument ia)
  // Checks from scratch that rows, index entries, value counts and the filter
  // agree: for one table, or every table when tableId is 0. Holds writes off
  // while it runs.
  TIndexReport verifyIndex(1: i64 tableId)
      throws (1: errors.TIOError io, 2: errors.TIllegalArgument ia)

  // Loads a bulk file (a sorted SST file of one region's rows, written with
  // bloomroute's BulkFileWriter) into an open region: each row is a put of
  // its cells, with the same result as mutateRows of those puts, ingested
  // atomically. The whole file is checked first; a bad file (not a bulk
  // file, a bad checksum, a row outside the region, a value over the limit,
  // over the server's file size or row limit) is TIllegalArgument and
  // nothing is written.
  TWriteResult bulkLoad(1: i64 regionId, 2: binary file, 3: i64 fenceToken)
      throws (1: errors.TIOError io, 2: errors.TIllegalArgument ia)

  // RegionStore::ExportRows: the rows of an open region in [startRow,
  // stopRow) (empty: the region's start / end) as a bulk file that
  // bulkLoad of another server's region takes, with the cells' timestamps:
  // the first copy of a region move, split or merge. At most maxRows (1 to
  // 100,000) rows; the file ends before the row that would take it past
  // maxBytes (1 to the server's bulk file limit), so only a file of one row
  // is larger (bulkLoad takes such a file up to the row limit), and
  // resumeRow is the next row.
  TExportedRows exportRows(1: i64 regionId, 2: binary startRow,
                           3: binary stopRow, 4: i32 maxRows, 5: i64 maxBytes)
      throws (1: errors.TIOError io, 2: errors.TIllegalArgument ia)

  // The index lifecycle (RegionStore::UpdateTableIndexes, BackfillIndex,
  // DropIndexEntries). updateTableIndexes gives every region of the table
  // on this server the table's indexed columns (table id and name must be
  // the server's): every write that starts after it returns maintains
  // exactly them. TIOError (NotFound) when the server hosts no region of
  // the table.
  void updateTableIndexes(1: TTableDescriptor table, 2: i64 coordinatorEpoch)
      throws (1: errors.TIOError io, 2: errors.TIllegalArgument ia)
  // Adds the missing entries of building column columnId for the next rows
  // of an open region after afterRow (empty: from its start), at most
  // maxRows (the server's batch limit caps it), under the rows' locks;
  // idempotent. Fenced as mutateRows.
  TIndexChunkResult backfillIndex(1: i64 regionId, 2: i32 columnId,
                                  3: binary afterRow, 4: i32 maxRows,
                                  5: i64 fenceToken, 6: i64 coordinatorEpoch)
      throws (1: errors.TIOError io, 2: errors.TIllegalArgument ia)
  // Removes up to maxEntries index entries of a column the region's table
  // no longer indexes (TIllegalArgument while it does), with their counts
  // and filter elements. Fenced as mutateRows.
  TIndexChunkResult dropIndexEntries(1: i64 regionId, 2: i32 columnId,
                                     3: i32 maxEntries, 4: i64 fenceToken,
                                     5: i64 coordinatorEpoch)
      throws (1: errors.TIOError io, 2: errors.TIllegalArgument ia)

  // Gives the server's filter the cluster's config (the router owns it): a
  // no-op when the filter has exactly this config; otherwise the server
  // persists it and rebuilds its filter with it under a new epoch, as
  // compactFilter does (readers of the old epoch take a snapshot). The
  // server keeps it across restarts. An invalid config is TIllegalArgument
  // naming the field, and changes nothing.
  void setFilterConfig(1: TFilterConfig config, 2: i64 coordinatorEpoch)
      throws (1: errors.TIOError io, 2: errors.TIllegalArgument ia)

  // Syncs the server's WAL: every write acknowledged before the call is then
  // durable against power loss, on a server without --sync too. The router
  // calls it on a region operation's target before the switch and before
  // it drops the source.
  void syncWal()
      throws (1: errors.TIOError io, 2: errors.TIllegalArgument ia)

  // Subscribes the calling router to the server's filter ops, or renews its
  // lease (RegionStore::SubscribeOps): the server then pushes every op it
  // commits to the router's OpPushService (op_push_service.thrift) and
  // acknowledges a write only once every router holding an unexpired lease
  // has the write's ops. TIOError "Unsupported: ..." from a server started
  // without --op-push; "Unavailable: ..." past its subscriber bound.
  TOpSubscribeGrant subscribeOps(1: TOpSubscribeRequest request)
      throws (1: errors.TIOError io, 2: errors.TIllegalArgument ia)
}
