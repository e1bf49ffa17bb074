// RouterService: the client API of bloomroute, served by the router.
//
// It is two APIs on one port:
//
// 1. HBase 2.x's Thrift2 API (THBaseService of the hbase-thrift module): the
//    data and table calls below keep HBase's method names, argument ids,
//    struct field ids, types and declared exceptions, so that a client
//    generated from HBase's own hbase.thrift, with framed transport and the
//    binary protocol, works unchanged. This file is bloomroute's own,
//    written from HBase's published API; structs and fields HBase has that
//    bloomroute never reads are left out (a Thrift reader skips unknown
//    field ids, so an HBase client may still send them). Where HBase has a
//    feature bloomroute does not (more than one version per cell,
//    visibility labels and authorizations, namespaces other than `default`,
//    region replicas and TIMELINE consistency, reversed scans, per-family
//    time ranges, serialized filters), a request that asks for it is
//    refused with an error naming the feature, never answered differently.
//    Hints that do not change an answer (caching, batchSize, cacheBlocks,
//    readType, durability, attributes on a mutation) are accepted and
//    ignored.
// 2. bloomroute's own calls: index lookups that say how the router routed
//    them (getByIndex, getByIndexMultiple), the global index and cluster
//    status, bulk loads, index scrutiny, and table creation with a region
//    count (createIndexedTable), listTables and describeTable.
//
// Tables. HBase names tables with `binary table` in data calls ("t" or
// "default:t") and TTableName in table calls; only the `default` namespace
// exists. Indexed columns are declared through HBase's createTable: the
// table attribute `bloomroute.index` (TTableDescriptor.attributes), its value
// the indexed columns as `family:qualifier` separated by commas.
//
// Cells carry a timestamp (ms since the Unix epoch): the one given, or the
// region server's clock when the write is applied. One version per cell, as
// an HBase family with VERSIONS => 1.
//
// Errors. Every call throws only the exceptions it declares (an undeclared
// exception would reach an HBase client as a protocol error). The HBase calls
// declare TIOError alone, except getScannerRows and closeScanner, which also
// declare TIllegalArgument: a bad argument to the others is a TIOError. The
// message always starts with the status code name, so a client can tell the
// cases apart:
//   "InvalidArgument: ..."  the request can never succeed as sent (a missing
//                           or malformed field, an unknown table, a value
//                           over a limit, an unsupported feature). Nothing
//                           was written.
//   "NotFound: ..."         an unknown table or scanner.
//   "Unavailable: ..."      a region server (named) or the router failed or
//                           did not answer; worth retrying (canRetry is set).
//   "IOError: ...", "Corruption: ...", "Aborted: ..."  a server failed.
// bloomroute's own calls declare both exceptions: TIllegalArgument for
// InvalidArgument and NotFound, TIOError for the rest.
//
// Requiredness. Fields use default requiredness where HBase has `required`,
// so that a request missing a field the router needs is answered with an
// error naming it (e.g. "tputs[2].row is missing"), not dropped as a protocol
// error; in replies such fields are always written, as an HBase reader
// requires. `optional` fields may be left unset; each says what unset means.
//
// Enums. Fields and arguments a client sends with one of HBase's enum types
// (TDeleteType, TDurability, TConsistency, TReadType, TCompareOperator) are
// declared i32 here, the same bytes on the wire: a generated C++ server
// would otherwise hold any i32 a client sends in the enum type, whose range
// is smaller (undefined behaviour). The router checks the value against the
// enum and refuses an unknown one naming the field.
//
// Numbers. Thrift has no unsigned integers: ids, counts and limits are
// unsigned in the router and sent as i64 / i32; a negative value from a
// client is rejected naming the field.
//
// Limits: rows per call (puts, gets, deletes, scanner rows, lookup limit) at
// most 100000; a row key 1..32767 bytes; a column name at most 1024 bytes; a
// value at most the region servers' --max-value-bytes; a request frame at most
// the router's --max-frame-bytes.

include "errors.thrift"

namespace cpp bloomroute.rpc.client
namespace py bloomroute.rpc.router_service

// =====================================================================
// HBase Thrift2 structs (field ids and types as HBase's hbase.thrift)
// =====================================================================

// [minStamp, maxStamp): cells whose timestamp is in it.
struct TTimeRange {
  1: i64 minStamp
  2: i64 maxStamp
}

// A family, or a family and qualifier ("family:qualifier" is the column).
// A timestamp is used by deletes only (see TDelete); reads ignore it.
struct TColumn {
  1: binary family
  2: optional binary qualifier  // unset = the whole family
  3: optional i64 timestamp
}

// One cell.
struct TColumnValue {
  1: binary family
  2: binary qualifier
  3: binary value
  // Puts: unset = the put's timestamp, else the server's clock. Replies:
  // always set.
  4: optional i64 timestamp
  // Cell tags (HBase internals): must be unset or empty.
  5: optional binary tags
  // The cell type (HBase's KeyValue.Type): must be unset; replies leave it
  // unset.
  6: optional i8 type
}

struct TColumnIncrement {
  1: binary family
  2: binary qualifier
  3: optional i64 amount = 1
}

// A row and its cells, sorted by family then qualifier. A row that does not
// exist (or has no cell the request selects) has no `row` and no cells.
struct TResult {
  1: optional binary row
  2: list<TColumnValue> columnValues
  3: optional bool stale = false    // never set: no replicas
  4: optional bool partial = false  // never set: rows are whole
}

// DELETE_COLUMN: the cell of the column if its timestamp equals the given
// one (unset: the cell, whatever its timestamp). DELETE_COLUMNS: the cell if
// its timestamp is <= the given one (unset: the cell). DELETE_FAMILY (a
// TColumn without qualifier): every cell of the family <= the timestamp.
// DELETE_FAMILY_VERSION is not supported.
enum TDeleteType {
  DELETE_COLUMN = 0,
  DELETE_COLUMNS = 1,
  DELETE_FAMILY = 2,
  DELETE_FAMILY_VERSION = 3
}

// Accepted and ignored: every write is as durable as the region server's
// --sync setting makes it.
enum TDurability {
  USE_DEFAULT = 0,
  SKIP_WAL = 1,
  ASYNC_WAL = 2,
  SYNC_WAL = 3,
  FSYNC_WAL = 4
}

// Visibility labels are not supported: must be unset or empty.
struct TAuthorization {
  1: optional list<string> labels
}
struct TCellVisibility {
  1: optional string expression
}

// STRONG only (there are no region replicas).
enum TConsistency {
  STRONG = 1,
  TIMELINE = 2
}

// Reads one row. `columns`: families or columns; unset or empty = all.
// `timestamp` T selects [T, T+1) and wins over `timeRange`. `filterString`:
// HBase's filter language (see TScan). maxVersions: unset or 1 (one version
// per cell). existence_only: the reply has the row key and no cells when the
// row exists. Must be unset: authorizations (or empty), targetReplicaId (or
// 0), storeLimit, storeOffset, filterBytes; consistency STRONG.
struct TGet {
  1: binary row
  2: optional list<TColumn> columns
  3: optional i64 timestamp
  4: optional TTimeRange timeRange
  5: optional i32 maxVersions
  6: optional binary filterString
  7: optional map<binary, binary> attributes
  8: optional TAuthorization authorizations
  9: optional i32 consistency  // a TConsistency
  10: optional i32 targetReplicaId
  11: optional bool cacheBlocks
  12: optional i32 storeLimit
  13: optional i32 storeOffset
  14: optional bool existence_only
  15: optional binary filterBytes
}

// Adds or overwrites cells of a row (the row is created when missing); at
// least one cell. `timestamp`: for cells without one; unset = the server's
// clock. A cell with a timestamp older than the stored cell's leaves the
// stored cell (one version per cell). cellVisibility must be unset.
struct TPut {
  1: binary row
  2: list<TColumnValue> columnValues
  3: optional i64 timestamp
  5: optional map<binary, binary> attributes
  6: optional i32 durability  // a TDurability
  7: optional TCellVisibility cellVisibility
}

// Removes cells of a row. `columns` unset or empty: every cell with a
// timestamp <= `timestamp` (unset: every cell). Otherwise each TColumn names
// a family (every cell of it <= its timestamp, else the delete's, else all)
// or a column (by `deleteType`, see TDeleteType; the column's timestamp,
// else the delete's). Deleting what does not exist is not an error. HBase
// keeps delete markers that hide later puts with older timestamps; bloomroute
// does not (see docs/clients.md, "Differences from HBase").
struct TDelete {
  1: binary row
  2: optional list<TColumn> columns
  3: optional i64 timestamp
  4: optional i32 deleteType = 1  // a TDeleteType
  6: optional map<binary, binary> attributes
  7: optional i32 durability  // a TDurability
}

// Adds `amount` to 8-byte big-endian integers (a missing cell counts as 0;
// a cell of another width is an error: "Field is not a long, it's N bytes
// wide"). The reply holds the new values; returnResults false: an empty
// TResult (unset: true, as HBase).
struct TIncrement {
  1: binary row
  2: list<TColumnIncrement> columns
  4: optional map<binary, binary> attributes
  5: optional i32 durability  // a TDurability
  6: optional TCellVisibility cellVisibility
  7: optional bool returnResults
}

// Appends bytes to cells (a missing cell is created). Reply as TIncrement.
struct TAppend {
  1: binary row
  2: list<TColumnValue> columns
  3: optional map<binary, binary> attributes
  4: optional i32 durability  // a TDurability
  5: optional TCellVisibility cellVisibility
  6: optional bool returnResults
}

// Accepted and ignored.
enum TReadType {
  DEFAULT = 1,
  STREAM = 2,
  PREAD = 3
}

// A scan of [startRow, stopRow) in key order. columns and timeRange as in
// TGet. filterString: HBase's filter language, at least
// SingleColumnValueFilter, PrefixFilter, PageFilter, KeyOnlyFilter,
// FirstKeyOnlyFilter and ColumnPrefixFilter with AND, OR and parentheses
// (model/filter_language.h); a filter that pins an indexed column to a value
// is answered from the index. limit: at most this many rows (unset or 0:
// all). maxVersions unset or 1. Must be unset: reversed (or false),
// colFamTimeRangeMap (or empty), authorizations, targetReplicaId,
// filterBytes; consistency STRONG. caching, batchSize, cacheBlocks and
// readType are hints, ignored.
struct TScan {
  1: optional binary startRow
  2: optional binary stopRow
  3: optional list<TColumn> columns
  4: optional i32 caching
  5: optional i32 maxVersions = 1
  6: optional TTimeRange timeRange
  7: optional binary filterString
  8: optional i32 batchSize
  9: optional map<binary, binary> attributes
  10: optional TAuthorization authorizations
  11: optional bool reversed
  12: optional bool cacheBlocks
  13: optional map<binary, TTimeRange> colFamTimeRangeMap
  14: optional i32 readType  // a TReadType
  15: optional i32 limit
  16: optional i32 consistency  // a TConsistency
  17: optional i32 targetReplicaId
  18: optional binary filterBytes
}

// A put or a delete (exactly one set).
union TMutation {
  1: TPut put
  2: TDelete deleteSingle
}

// Mutations of one row, applied atomically in order; each mutation's row
// must equal `row`.
struct TRowMutations {
  1: binary row
  2: list<TMutation> mutations
}

struct THRegionInfo {
  1: i64 regionId
  2: binary tableName
  3: optional binary startKey  // inclusive; empty = from the first row
  4: optional binary endKey    // exclusive; empty = to the last row
  5: optional bool offline
  6: optional bool split
  7: optional i32 replicaId
}

struct TServerName {
  1: string hostName
  2: optional i32 port
  3: optional i64 startCode  // unset: bloomroute has none
}

struct THRegionLocation {
  1: TServerName serverName
  2: THRegionInfo regionInfo
}

// checkAndMutate: HBase compares the given value with the cell's, so LESS
// passes when the given value sorts before the cell's value.
enum TCompareOperator {
  LESS = 0,
  LESS_OR_EQUAL = 1,
  EQUAL = 2,
  NOT_EQUAL = 3,
  GREATER_OR_EQUAL = 4,
  GREATER = 5,
  NO_OP = 6
}

// ns: unset, empty or "default" (the only namespace).
struct TTableName {
  1: optional binary ns
  2: binary qualifier
}

// A column family. Settings that change answers must keep their HBase
// defaults: maxVersions unset or 1, timeToLive unset or 2147483647
// (forever), keepDeletedCells unset or FALSE (0); minVersions unset or 0.
// Storage settings (block size, compression, Bloom filter type, encoding,
// caching, replication scope, ...) are accepted and ignored (their field
// ids are skipped). attributes and configuration are kept as given.
struct TColumnFamilyDescriptor {
  1: binary name
  2: optional map<binary, binary> attributes
  3: optional map<string, string> configuration
  9: optional i32 keepDeletedCells  // HBase's TKeepDeletedCells enum
  10: optional i32 maxVersions
  11: optional i32 minVersions
  13: optional i32 timeToLive
}

// HBase's table descriptor. columns: the table's column families (a table
// that declares some accepts only columns of those families). attributes:
// kept as given; `bloomroute.index` declares the indexed columns (see the
// top). durability: accepted and ignored. getTableDescriptor answers with
// the declared families (for a table that declares none -- made by
// createIndexedTable or the import tool -- the families of its indexed
// columns) and the attributes, `bloomroute.index` naming the indexed
// columns of every indexed table.
struct TTableDescriptor {
  1: TTableName tableName
  2: optional list<TColumnFamilyDescriptor> columns
  3: optional map<binary, binary> attributes
  4: optional i32 durability  // a TDurability
}

enum TThriftServerType {
  ONE = 1,
  TWO = 2
}

// =====================================================================
// bloomroute's own structs
// =====================================================================

struct TIndexedColumn {
  1: i32 columnId  // assigned by the router from 1, in the order created
  2: binary name   // "family:qualifier"
}

// A table as bloomroute's own calls show it.
struct TIndexedTable {
  1: i64 tableId  // assigned by the router, never reused
  2: string name
  3: list<TIndexedColumn> indexedColumns
  // The column families the table declares (as HBase's); unset or empty:
  // the table accepts any family.
  4: optional list<binary> families
}

// One index of a table (getIndexStatus).
struct TIndexStatus {
  1: binary column  // "family:qualifier"
  2: i32 columnId   // u32, never reused within the table
  3: string state   // "ready", "building" or "dropping"
  // Building: regions backfilled; dropping: regions whose entries are gone;
  // ready: every region.
  4: i32 regionsDone
  5: i32 regionsTotal
  // Building: index entries the backfill added so far; dropping: entries
  // removed so far; ready: 0.
  6: i64 rowsBackfilled
}

// A table to create with createIndexedTable.
struct TTableSpec {
  // 1..255 characters of [A-Za-z0-9_.-], not "." or ".."; unique.
  1: string name
  // "family:qualifier" names, distinct, at most 256 and 16 KiB together;
  // empty = no index (lookups are then rejected). The order gives the
  // column ids. Split keys and these names together take at most the
  // router's --max-table-bytes (1 MiB by default), and the router holds at
  // most --max-tables tables (1000): an error naming the limit.
  2: list<binary> indexedColumns
  // Row keys where regions start, strictly ascending, non-empty: N keys give
  // N + 1 regions. When empty, `regionCount` decides.
  3: list<binary> splitKeys
  // With no split keys: this many regions (1..1024) splitting the first byte
  // of the key space evenly, as HBase's createTable with a region count.
  // Unset or 0 = one region per region server.
  4: optional i32 regionCount
  // Column families to declare, as HBase's TTableDescriptor.columns: names
  // without ':', distinct, at most 256 and 16 KiB together; every indexed
  // column's family among them, and data calls naming another family are
  // refused. Unset or empty: the table accepts any family.
  5: optional list<binary> families
}

// A region server as the router names it: a small id that the catalog never
// gives to another server, and its address.
struct TServerRef {
  1: i32 id
  2: string address  // "host:port"
}

struct TRegionLocation {
  1: i64 regionId
  2: binary startKey  // inclusive; empty = from the first row
  3: binary endKey    // exclusive; empty = to the last row
  4: TServerRef server
}

struct TTableInfo {
  1: TIndexedTable descriptor
  2: list<TRegionLocation> regions  // by start key
}

// ---- Index lookups ----

// column = value, the column "family:qualifier" an indexed column of the
// table.
struct TEqualityPredicate {
  1: binary family
  2: binary qualifier
  3: binary value
}

// The values of TIndexPredicate.op (an i32, not the enum: see "Enums" above).
// Every range maps exactly onto [lower, upper) in byte order: <= v and > v
// use v + 0x00, the next value after v; PREFIX p is [p, p with its last
// non-0xFF byte incremented).
enum TIndexOperator {
  EQUAL = 0,             // one value
  IN = 1,                // 1..1024 distinct values
  LESS = 2,              // one value
  LESS_OR_EQUAL = 3,     // one value
  GREATER = 4,           // one value
  GREATER_OR_EQUAL = 5,  // one value
  PREFIX = 6,            // one non-empty value
  BETWEEN = 7            // two values, low and high, both included
}

// A predicate on an indexed column "family:qualifier". A range whose low
// end is above its high end matches nothing (no error). Equalities and IN
// lists route through the global index (an IN list: the union of its values'
// servers); a query of ranges and prefixes alone asks every server of the
// table (TRoutingInfo.broadcastReason says so).
struct TIndexPredicate {
  1: binary family
  2: binary qualifier
  3: i32 op  // a TIndexOperator
  4: list<binary> values
}

// An index lookup: rows where every predicate holds (AND). At most 64
// predicates in fields 1 and 8 together, with at most 1024 values and 1 MiB
// of values in all: more is TIllegalArgument naming the limit.
struct TIndexQuery {
  // At least one predicate here or in `where`; may be empty when `where`
  // has one.
  1: list<TEqualityPredicate> predicates
  // At most this many rows (1..100000); unset = 100000.
  2: optional i32 limit
  3: list<TColumn> columns  // projected columns, as in TGet
  // When a region server does not answer: false (unset) fails the lookup with
  // TIOError naming it; true answers from the others and sets
  // TIndexResult.partial and missingServers.
  4: optional bool allowPartial = false
  // Ask every region server holding regions of the table whatever the global
  // index says (broadcast), to measure routing: serversWithRows is then the
  // ground truth. Unset = false (routed).
  5: optional bool askAll = false
  // Only rows whose key sorts after this one: pass a result's resumeAfter to
  // get the rows after it. Unset = from the first row.
  6: optional binary afterRow
  // Only cells whose timestamp is in it, as TScan's: a row whose matching
  // cell is outside it does not match. Unset = all.
  7: optional TTimeRange timeRange
  // More predicates of any kind, ANDed with `predicates`.
  8: optional list<TIndexPredicate> where
  // A result's nextPageToken: the next page of the same query (same table,
  // predicates, columns and time range; limit may differ). Opaque bytes, at
  // most 32,840. Not with afterRow. TIllegalArgument for a token that is not
  // valid (forged or corrupted, or longer), one issued for a different
  // query, or a stale one (the table or an index it uses was created
  // again: start again without a token).
  9: optional binary pageToken
}

struct TRoutingInfo {
  1: i32 serversInCluster
  2: list<TServerRef> serversAsked  // ascending by id
  // The subset of serversAsked asked only because the router's copy of their
  // filter was not known to be current (never skipped: no false negatives).
  3: list<TServerRef> serversAskedNotCurrent
  4: list<TServerRef> serversWithRows  // asked servers that returned rows
  // Set when every server of the table was asked without routing, and why
  // ("a range alone cannot be routed: asked every server of the table").
  5: optional string broadcastReason
}

// countByIndex's answer: the exact number of matching rows.
struct TIndexCount {
  1: i64 count
  2: bool partial  // some servers did not answer (allowPartial)
  3: list<TServerRef> missingServers
  4: TRoutingInfo routing  // serversWithRows: servers that counted rows
}

struct TIndexResult {
  // By row key, at most the limit: every matching row up to the last one
  // returned (a matching row without any projected column comes back with
  // no columns).
  1: list<TResult> rows
  // More rows may match after the last one returned (the limit, or a
  // server's or the router's byte budget, stopped the answer).
  2: bool truncated
  3: bool partial        // some servers did not answer (allowPartial)
  4: list<TServerRef> missingServers
  5: TRoutingInfo routing
  // Set when truncated: the key up to which the answer is complete (the
  // last row returned, or a later key when a region server's work bound
  // stopped the search, possibly with no row); pass it as
  // TIndexQuery.afterRow to continue.
  6: optional binary resumeAfter
  // Set exactly when truncated: pass it as TIndexQuery.pageToken for the
  // next page. Paging so returns every row that matches throughout the
  // paging exactly once, in row-key order. A partial answer has one too
  // (the missing servers' rows before resumeAfter are then skipped).
  7: optional binary nextPageToken
}

// ---- Status ----

// One stage of a scalable split counting Bloom filter (as the region
// server's RegionService reports it).
struct TStageStats {
  1: i32 stage
  2: double targetFpr   // P_i
  3: i32 slices         // k_i
  4: i64 sliceLength    // m_i, counters per slice
  5: i64 capacity       // n_i, elements before the stage is full
  6: i32 firstProbe     // k_0 + ... + k_{i-1}
  7: i64 elements
  8: double fill        // mean slice fill; the stage is full at 0.5
  9: double estimatedFpr  // product of the slice fills
  10: i32 planes        // most DDCF bit-planes in any slice
  11: i64 memoryBytes
}

// The filter config the router gives every region server, derived from a
// target of false routes per lookup F and the number of servers N:
// P = F / 2^ceil(log2 N) per server, so N * P <= F.
struct TClusterFilterConfig {
  1: double targetFalseRoutes  // F, expected false routes per lookup
  2: double targetFpr          // P, each server's compounded bound
  3: double tighteningRatio    // r
  4: double growthFactor       // s
  5: i64 initialCapacity       // n0
  6: i32 baseBits              // DDCF counter base bits
  7: double fullFill           // a stage is full at this mean fill
}

// The router's replica of one region server's filter (the global index).
struct TServerIndexStats {
  1: TServerRef server
  2: bool loaded   // a filter was ever loaded; when false the rest is zero
  // The replica holds every op writes reported: lookups may skip this server
  // when the filter says no. When false, every lookup asks it.
  3: bool current
  4: i64 epoch     // of the loaded filter (a rebuilt filter has a new one)
  5: i64 seq       // the last filter op the replica holds
  6: i64 opsBehind // ops writes reported that the replica lacks (same epoch)
  7: i32 stages
  8: i64 elements  // distinct indexed values on the server
  // Fill of the newest stage, the one taking inserts (full at 0.5); 0 when
  // none is loaded.
  9: double fill
  10: double estimatedFpr     // of the whole filter now
  11: double compoundedBound  // what the geometry guarantees
  12: i64 memoryBytes
  13: list<TStageStats> stageStats
  // The cluster's filter config (the same for every server).
  14: optional TClusterFilterConfig clusterFilter
  // The router gave this run of the server the cluster config (or saw that
  // it had it); until then lookups ask the server.
  15: optional bool hasClusterConfig
}

struct TServerStatus {
  1: TServerRef server
  2: bool reachable             // it answered a status call just now
  3: optional string error      // why not, when not reachable
  4: i32 regions                // regions the catalog places on it
  5: bool replicaCurrent
  // Of those, the ones it does not serve right now (closed by someone else,
  // lost with a restart); the router's maintenance reopens them.
  6: optional i32 regionsNotServed
  // Why the router's last reopening of its regions failed; absent once one
  // succeeded.
  7: optional string reopenError
}

struct TClusterStatus {
  1: list<TServerStatus> servers  // ascending by id
  2: i32 tables
  3: i32 regions
}

// One region server with what it holds (listServers).
struct TServerSummary {
  1: TServerRef server
  2: bool reachable           // it answered its region statistics just now
  3: optional string error    // why not, when not reachable
  4: i32 regions              // regions the catalog places on it
  5: i32 regionsNotServed     // of those, not open on it right now
  6: i64 rows                 // exact, over those regions (0: unreachable)
  7: i64 bytes                // approximate: rows and local index entries
  8: bool replicaCurrent
}

// Whether a region is served (TRegionSummary.serving).
enum TRegionServing {
  OPEN = 0,         // its server has it open
  NOT_SERVED = 1,   // its server answered without it open
  UNREACHABLE = 2,  // its server did not answer
  // A region operation's new region, open staged: it takes writes and
  // answers reads that name it, and serves fully once the old regions are
  // dropped.
  STAGED = 3,
}

// One region of a table with its server and what it holds (listRegions).
struct TRegionSummary {
  1: i64 regionId
  2: binary startKey  // inclusive; empty = from the first row
  3: binary endKey    // exclusive; empty = to the last row
  4: TServerRef server
  // A TRegionServing, declared i32 (see "Enums" above): a generated client
  // would otherwise hold any i32 a router sends in the enum type.
  5: i32 serving
  6: i64 rows         // exact (0 when UNREACHABLE)
  7: i64 rowBytes     // approximate
  8: i64 indexBytes   // approximate
  // Set while the balancer skips the region after a failed split or move:
  // that error (at most 1,024 bytes), and the seconds until it is tried
  // again.
  9: optional string balancerSkipped
  10: optional i64 balancerRetrySeconds
}

// What a region operation did (moveRegion, splitRegion, mergeRegions).
struct TRegionOpResult {
  1: list<TRegionLocation> regions  // the new regions, by start key
  // Rows written to the new regions: the first copy, then the rows written
  // to the old ones meanwhile, copied again in catchUpRounds rounds.
  2: i64 rowsCopied
  3: i64 bytesCopied
  4: i32 catchUpRounds
  5: i64 switchMicros  // how long writes to the old regions waited
  6: i64 totalMicros   // the whole operation, with the old regions' drop
  7: i64 switchedMicros  // from its start until the new regions served
}

enum TBalanceStepKind {
  SPLIT = 1,
  MOVE = 2,
}

// One region operation of the balancer or of a decommission.
struct TBalanceStep {
  // A TBalanceStepKind, declared i32 (see "Enums" above): a generated
  // client would otherwise hold any i32 a router sends in the enum type.
  1: i32 kind
  2: i64 regionId        // the region split or moved
  3: TServerRef source
  4: TServerRef target   // the region's own server for a split
  5: TRegionOpResult result
}

// What one run of the balancer did (balance).
struct TBalanceReport {
  1: list<TBalanceStep> steps  // in the order made
  // No region passes its split size and the servers' region counts differ
  // by at most one.
  2: bool balanced
  3: optional string stopped   // why the run stopped before that
  // An operation failed (see failures) or a server did not answer.
  4: bool failed
  // The operations of this run that failed, one line each; the balancer
  // skips each such region for a backoff and goes on with the others.
  5: optional list<string> failures
}

// A limit of a quota: `amount` per `seconds` (1 to 86400).
struct TQuotaLimit {
  1: i64 amount
  2: i32 seconds
}

// What one principal (a token's user or a certificate's name) may ask of
// the router per unit of time, as HBase's RPC throttles. Each call counts
// one request, and its request's and reply's frames in bytes. With a table,
// the quota counts only the calls that name the table (field 1 of their
// arguments) or one of its scanners; without, every call of the user. An unset limit is none.
struct TQuota {
  1: string user
  2: string table = ""
  3: optional TQuotaLimit requests
  4: optional TQuotaLimit bytes
}

// The router's copy of a region server's filter against the server's own.
enum TReplicaAgreement {
  MATCHES = 1,      // the same filter at the same epoch and sequence number
  NOT_CURRENT = 2,  // behind or being caught up: lookups ask the server
                    // anyway; not an error
  DIFFERS = 3,      // at the same epoch and sequence number, another filter:
                    // lookups may wrongly skip the server
}

// One region server's index scrutiny for a table (verifyIndex). The counts
// cover the table's rows on the server; filterMatchesRebuild and the replica
// check cover the server's whole filter, which all tables share.
struct TServerVerifyReport {
  1: TServerRef server
  2: i32 regions               // of the table on this server
  // The server did not answer or failed its check; the counts are 0 then.
  3: optional string error
  4: i64 rows
  5: i64 indexEntriesValid
  6: i64 indexEntriesMissing   // implied by a row, absent
  7: i64 indexEntriesExtra     // present, not implied by any row
  8: i64 values                // distinct (column, value) on the server
  9: i64 valueCountsWrong      // a value's row count differs from the rows
  // A value whose element is not in the filter at the stage recorded with it.
  10: i64 valuesNotInFilter
  11: bool filterMatchesRebuild  // the filter equals a rebuild from records
  12: list<string> problems      // the first few, for a person
  13: TReplicaAgreement replica
  14: string replicaDetail
  15: bool ok                    // no error, everything agrees, no DIFFERS
}

struct TVerifyReport {
  1: string table
  2: i64 tableId
  3: list<TServerVerifyReport> servers  // holding regions; ascending by id
  4: bool ok                            // every server ok
}

service RouterService {
  // ---------------- HBase THBaseService calls ----------------
  // `table` is the table name ("t" or "default:t"). A put, delete or other
  // mutation is acknowledged once the region server applied it and the
  // router's index holds it: a lookup or filtered scan that starts
  // afterwards sees it. A batch (putMultiple, deleteMultiple) is not atomic,
  // as in HBase: it is sent to the region servers in parallel, in chunks, and
  // rows of other chunks may have been applied when one fails.

  // Whether the row has a cell the TGet selects.
  bool exists(1: binary table, 2: TGet tget) throws (1: errors.TIOError io)
  list<bool> existsAll(1: binary table, 2: list<TGet> tgets)
      throws (1: errors.TIOError io)
  TResult get(1: binary table, 2: TGet tget) throws (1: errors.TIOError io)
  // In request order; a missing row is an empty TResult. When the rows pass
  // the router's reply byte budget (--max-reply-bytes, 32 MiB), the call
  // fails naming it: ask for fewer rows.
  list<TResult> getMultiple(1: binary table, 2: list<TGet> tgets)
      throws (1: errors.TIOError io)
  void put(1: binary table, 2: TPut tput) throws (1: errors.TIOError io)
  // Atomically: when the check holds, the put is applied; true if it was.
  // The check is EQUAL. `value` unset or empty: the check is that the column
  // is absent or empty (HBase treats unset and empty alike).
  bool checkAndPut(1: binary table, 2: binary row, 3: binary family,
                   4: binary qualifier, 5: binary value, 6: TPut tput)
      throws (1: errors.TIOError io)
  void putMultiple(1: binary table, 2: list<TPut> tputs)
      throws (1: errors.TIOError io)
  void deleteSingle(1: binary table, 2: TDelete tdelete)
      throws (1: errors.TIOError io)
  // Every delete is applied or the call fails: the list returned is empty
  // (as HBase's, which throws rather than return failed deletes).
  list<TDelete> deleteMultiple(1: binary table, 2: list<TDelete> tdeletes)
      throws (1: errors.TIOError io)
  bool checkAndDelete(1: binary table, 2: binary row, 3: binary family,
                      4: binary qualifier, 5: binary value, 6: TDelete tdelete)
      throws (1: errors.TIOError io)
  // Not idempotent: after a lost reply the increment may or may not have
  // been applied (as in HBase).
  TResult increment(1: binary table, 2: TIncrement tincrement)
      throws (1: errors.TIOError io)
  TResult append(1: binary table, 2: TAppend tappend)
      throws (1: errors.TIOError io)

  // Scanners: open one over a key range, fetch rows in key order across
  // regions, close it. A scanner belongs to the connection that opened it:
  // its id is random (31 bits, positive), other connections get NotFound for
  // it, and it is closed when its connection closes. A scanner unused for
  // the router's scanner idle timeout (60 s by default) is closed by the
  // router. The error names the limit when the connection has the router's
  // max_scanners_per_client open (100 by default) or all connections
  // max_scanners (1000).
  i32 openScanner(1: binary table, 2: TScan tscan)
      throws (1: errors.TIOError io)
  // Up to numRows (1..100000) rows, fewer when they pass the router's reply
  // byte budget (--max-reply-bytes); an empty list means the scan is done.
  // TIllegalArgument for an unknown, closed or expired scanner.
  // callSeq (a bloomroute extension HBase clients never send) numbers a
  // scanner's calls: 1 for the first, then one more for each next call.
  // Repeating the previous number (a retry after a lost reply) returns that
  // batch again, read anew from where it began, so no row is skipped;
  // another number is TIllegalArgument naming the expected one. 0 or absent:
  // unsequenced, the next batch with no way to repeat it.
  list<TResult> getScannerRows(1: i32 scannerId, 2: i32 numRows = 1,
                               3: i64 callSeq)
      throws (1: errors.TIOError io, 2: errors.TIllegalArgument ia)
  void closeScanner(1: i32 scannerId)
      throws (1: errors.TIOError io, 2: errors.TIllegalArgument ia)
  void mutateRow(1: binary table, 2: TRowMutations trowMutations)
      throws (1: errors.TIOError io)
  // Opens a scanner, reads up to numRows rows, closes it.
  list<TResult> getScannerResults(1: binary table, 2: TScan tscan,
                                  3: i32 numRows = 1)
      throws (1: errors.TIOError io)
  // The region holding the row (reload: ignored, the router's catalog is
  // the truth).
  THRegionLocation getRegionLocation(1: binary table, 2: binary row,
                                     3: bool reload)
      throws (1: errors.TIOError io)
  list<THRegionLocation> getAllRegionLocations(1: binary table)
      throws (1: errors.TIOError io)
  // Atomically: when the check holds, the mutations are applied in order.
  // `value` unset or empty: the column is absent or empty (NOT_EQUAL: it
  // has a non-empty value). NO_OP with a value is an error (HBase fails it);
  // without one it is the absent check.
  bool checkAndMutate(1: binary table, 2: binary row, 3: binary family,
                      4: binary qualifier,
                      5: i32 compareOperator,  // a TCompareOperator
                      6: binary value, 7: TRowMutations rowMutations)
      throws (1: errors.TIOError io)

  TTableDescriptor getTableDescriptor(1: TTableName table)
      throws (1: errors.TIOError io)
  list<TTableDescriptor> getTableDescriptors(1: list<TTableName> tables)
      throws (1: errors.TIOError io)
  bool tableExists(1: TTableName tableName) throws (1: errors.TIOError io)
  // N split keys give N + 1 regions, placed on the servers with the fewest
  // regions; no split keys: one region. The attribute `bloomroute.index`
  // declares the indexed columns.
  void createTable(1: TTableDescriptor desc, 2: list<binary> splitKeys)
      throws (1: errors.TIOError io)
  // The table must be disabled (else "table 'T' is not disabled", as
  // HBase's TableNotDisabledException). Drops every row and region of the
  // table, then the table. When a region server does not answer, the table
  // is gone from listings at once, its regions are dropped later, and the
  // error says so.
  void deleteTable(1: TTableName tableName) throws (1: errors.TIOError io)
  // The table must be disabled; it is enabled again afterwards. Removes
  // every row, keeping the table's descriptor; preserveSplits keeps its
  // region boundaries, else it ends with one region.
  void truncateTable(1: TTableName tableName, 2: bool preserveSplits)
      throws (1: errors.TIOError io)
  // A disabled table refuses reads, writes, scans and lookups ("table 'T'
  // is disabled"); it is still listed, described and located. Enabling an
  // enabled table ("is not disabled") or disabling a disabled one ("is not
  // enabled") is an error, as in HBase.
  void enableTable(1: TTableName tableName) throws (1: errors.TIOError io)
  void disableTable(1: TTableName tableName) throws (1: errors.TIOError io)
  bool isTableEnabled(1: TTableName tableName) throws (1: errors.TIOError io)
  bool isTableDisabled(1: TTableName tableName)
      throws (1: errors.TIOError io)
  // Exists and enabled (every region is served once created); false for an
  // unknown table.
  bool isTableAvailable(1: TTableName tableName)
      throws (1: errors.TIOError io)
  // TWO: this is a Thrift2 server.
  TThriftServerType getThriftServerType()

  // ---------------- bloomroute's own calls ----------------

  // Authentication by bearer token (thrift/security.h): the first call of a
  // client without a client certificate, on a TLS connection. The token's
  // role then holds for every later call on this connection. A token the
  // router does not know, or a connection without TLS, gets TIOError
  // "PermissionDenied: ..." and the connection stays unauthenticated. The
  // router's connection layer answers this call; it never reaches the
  // handler.
  void authenticate(1: string token)
      throws (1: errors.TIOError io, 2: errors.TIllegalArgument ia)

  // createTable with bloomroute's spec: indexed columns, split keys or a
  // region count. TIllegalArgument for a bad spec or a name in use.
  TTableInfo createIndexedTable(1: TTableSpec spec)
      throws (1: errors.TIOError io, 2: errors.TIllegalArgument ia)
  // Every table, by name.
  list<TIndexedTable> listTables()
      throws (1: errors.TIOError io, 2: errors.TIllegalArgument ia)
  TTableInfo describeTable(1: string table)
      throws (1: errors.TIOError io, 2: errors.TIllegalArgument ia)

  // Index lookups, routed through the global index to the region servers
  // that may hold a match (and every server whose filter copy is not
  // current), asked in parallel. TIllegalArgument for a predicate on a column
  // that is not indexed.
  TIndexResult getByIndex(1: string table, 2: TIndexQuery tquery)
      throws (1: errors.TIOError io, 2: errors.TIllegalArgument ia)
  // In request order; the first failing query fails the call. The answers
  // share the router's reply byte budget (--max-reply-bytes): when they pass
  // it, the list is a prefix of the queries (at least one), the last answer
  // possibly truncated with its resumeAfter; ask again for the rest. Each
  // query pages on its own (its pageToken, its answer's nextPageToken); a bad
  // token fails the call as in getByIndex.
  list<TIndexResult> getByIndexMultiple(1: string table,
                                        2: list<TIndexQuery> queries)
      throws (1: errors.TIOError io, 2: errors.TIllegalArgument ia)
  // The number of rows getByIndex would return without a limit, routed the
  // same way; no row is shipped (each region server counts). The query's
  // limit and columns are ignored; afterRow counts the rows after it.
  TIndexCount countByIndex(1: string table, 2: TIndexQuery tquery)
      throws (1: errors.TIOError io, 2: errors.TIllegalArgument ia)

  // The global index: one entry per region server, ascending by id.
  list<TServerIndexStats> getIndexStats()
      throws (1: errors.TIOError io, 2: errors.TIllegalArgument ia)
  // Asks every region server for its status (in parallel).
  TClusterStatus getClusterStatus()
      throws (1: errors.TIOError io, 2: errors.TIllegalArgument ia)

  // What is where (bloomroute admin servers / regions). listServers: every
  // region server, ascending by id, with its regions, rows and bytes;
  // listRegions: the regions of a table in key order, with their server,
  // whether it serves them, rows and bytes (TIllegalArgument for an unknown
  // table). Each asks the servers in parallel; rows
  // are counted by a scan on each server, about as slow as reading them.
  // A server that fails is reported, not fatal.
  list<TServerSummary> listServers()
      throws (1: errors.TIOError io, 2: errors.TIllegalArgument ia)
  list<TRegionSummary> listRegions(1: string table)
      throws (1: errors.TIOError io, 2: errors.TIllegalArgument ia)

  // Membership (bloomroute admin add-server / set-address / remove-server),
  // each persisted by the router before it takes effect. addServer: makes
  // `address` ("host:port", at most 300 bytes) a member and returns it (the
  // existing member for a member's address); a server that does not answer
  // yet is still added. New tables place regions on it; none move.
  // setServerAddress: re-points member `serverId` to `address` (a server
  // that came back there); TIllegalArgument for an unknown id or another
  // member's address. removeServer: forgets a member that holds no region
  // (TIllegalArgument naming how many it holds otherwise: move them first);
  // it is listed no more. Ids are never reused.
  TServerRef addServer(1: string address)
      throws (1: errors.TIOError io, 2: errors.TIllegalArgument ia)
  void setServerAddress(1: i32 serverId, 2: string address)
      throws (1: errors.TIOError io, 2: errors.TIllegalArgument ia)
  void removeServer(1: i32 serverId)
      throws (1: errors.TIOError io, 2: errors.TIllegalArgument ia)

  // Region operations (bloomroute admin move / split / merge / balance /
  // decommission). Each copies the old regions' rows into new regions while
  // the old ones serve, carries over the writes made meanwhile, and
  // switches the table in one catalog write; no read misses a row or sees
  // one twice. Each is recorded in the router's catalog before any server
  // acts on it, and finished or undone after a crash. One runs at a time
  // (TIOError "Unavailable: another region operation is running"
  // otherwise). Each answers when done: a call may take as long as copying
  // the region's rows. moveRegion: to member `serverId`. splitRegion: at
  // `splitRow`, strictly inside the region; empty: at the region's median
  // key, from a sample. mergeRegions: two adjacent regions of one table, onto
  // the server of the first in key order. balance: at most `maxOperations`
  // splits and moves (0: the router's --balancer-max-operations).
  // decommissionServer: moves every region off member `serverId`, then
  // forgets it; the moves made.
  TRegionOpResult moveRegion(1: i64 regionId, 2: i32 serverId)
      throws (1: errors.TIOError io, 2: errors.TIllegalArgument ia)
  TRegionOpResult splitRegion(1: i64 regionId, 2: binary splitRow)
      throws (1: errors.TIOError io, 2: errors.TIllegalArgument ia)
  TRegionOpResult mergeRegions(1: i64 regionA, 2: i64 regionB)
      throws (1: errors.TIOError io, 2: errors.TIllegalArgument ia)
  TBalanceReport balance(1: i32 maxOperations)
      throws (1: errors.TIOError io, 2: errors.TIllegalArgument ia)
  list<TBalanceStep> decommissionServer(1: i32 serverId)
      throws (1: errors.TIOError io, 2: errors.TIllegalArgument ia)

  // Quotas (bloomroute admin quota set / list / remove), persisted in the
  // router's catalog before setQuota returns and applied from the next
  // call. setQuota replaces the user's quota on the same table; one with
  // no limit set removes it. A call over a quota is answered with TIOError
  // "RpcThrottlingException: ... - wait <time>", canRetry true, without
  // running. listQuotas: every quota, by user then table.
  void setQuota(1: TQuota quota)
      throws (1: errors.TIOError io, 2: errors.TIllegalArgument ia)
  list<TQuota> listQuotas()
      throws (1: errors.TIOError io, 2: errors.TIllegalArgument ia)

  // Bulk import: loads a bulk file (a sorted SST file of rows of one region,
  // written with bloomroute's BulkFileWriter; see describeTable for the
  // regions and their key ranges) into region `regionId` of the table. The
  // rows are puts with the same result as putMultiple of them, applied
  // atomically on the region server, and acknowledged once the router's
  // index holds them. TIllegalArgument for a region not of the table or a
  // bad file (nothing written).
  void bulkLoad(1: string table, 2: i64 regionId, 3: binary file)
      throws (1: errors.TIOError io, 2: errors.TIllegalArgument ia)

  // Index scrutiny: every region server holding regions of the table checks,
  // from scratch, its rows against its index entries, value counts and
  // filter, and the router compares its copy of each server's filter with
  // the server's. Slow (each server reads everything it stores, holding its
  // writes off meanwhile). A server that fails is reported in its entry;
  // TIllegalArgument for an unknown table.
  TVerifyReport verifyIndex(1: string table)
      throws (1: errors.TIOError io, 2: errors.TIllegalArgument ia)

  // The index lifecycle (router::Router::AddIndex, DropIndex, IndexStatus).
  // addIndex declares `column` ("family:qualifier") indexed on a table that
  // may hold rows and returns once the build is recorded and the region
  // servers index new writes of it; the router backfills the existing rows
  // in the background (getIndexStatus shows how far), resuming after any
  // restart. Until it is complete, getByIndex on the column is
  // TIllegalArgument "... is building (N of M regions done) ...", and
  // describeTable / listTables do not list it. TIllegalArgument for a bad
  // name, a column already indexed, or a table at its limit of indexed
  // columns; TIOError (NotFound) for an unknown table.
  void addIndex(1: string table, 2: binary column)
      throws (1: errors.TIOError io, 2: errors.TIllegalArgument ia)
  // Stops indexing `column` at once (lookups on it: "not indexed") and
  // removes its entries, value counts and filter elements in the
  // background. TIllegalArgument for a column that is not indexed.
  void dropIndex(1: string table, 2: binary column)
      throws (1: errors.TIOError io, 2: errors.TIllegalArgument ia)
  // Every indexed, building and dropping column of the table.
  list<TIndexStatus> getIndexStatus(1: string table)
      throws (1: errors.TIOError io, 2: errors.TIllegalArgument ia)
}
