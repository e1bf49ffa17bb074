// IndexService: bloomroute's index calls, for its data clients: index
// lookups that say how the router routed them (getByIndex,
// getByIndexMultiple, countByIndex), tables with indexed columns and a
// region count (createIndexedTable, listTables, describeTable), bulk loads
// and the index lifecycle (addIndex, dropIndex, getIndexStatus).
//
// IndexService extends HBase's THBaseService (hbase_service.thrift) and is
// extended by RouterService (router_service.thrift), the service the router
// serves; the conventions of hbase_service.thrift's header (tables, errors,
// requiredness, enums, numbers, limits) hold here too. bloomroute's calls
// declare both exceptions: TIllegalArgument for InvalidArgument and
// NotFound, TIOError for the rest.

include "errors.thrift"
include "hbase_service.thrift"

namespace cpp bloomroute.rpc.client
namespace py bloomroute.rpc.index_service

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

// The values of TIndexPredicate.op (an i32, not the enum: see "Enums" in
// hbase_service.thrift).
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
  3: list<hbase_service.TColumn> columns  // projected columns, as in TGet
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
  7: optional hbase_service.TTimeRange timeRange
  // More predicates of any kind, ANDed with `predicates`.
  8: optional list<TIndexPredicate> where
  // A result's nextPageToken: the next page of the same query (same table,
  // predicates, columns and time range; limit may differ). Opaque bytes, at
  // most 32,840. Not with afterRow. TIllegalArgument for a token that is not
  // valid (forged or corrupted, or longer), one issued for a different
  // query, or a stale one (the table or an index it uses was created
  // again: start again without a token).
  9: optional binary pageToken
  // Answer in TIndexResult.compactRows instead of rows: the same rows and
  // cells in the same order, each family and qualifier named once for the
  // whole answer and each cell a number, a value and a timestamp instead of
  // a TColumnValue. Decoding it is cheaper for a client (Python's generated
  // code builds one object per TColumnValue) and the answer is smaller.
  // Unset = false.
  10: optional bool compactRows = false
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

// One row of TCompactRows: its cells in HBase's cell order, cell i being
// column columns[i] (an index into TCompactRows.families and qualifiers)
// with value values[i] and timestamp timestamps[i]. The three lists have
// the same length.
struct TCompactRow {
  1: binary row
  2: list<i32> columns
  3: list<binary> values
  4: list<i64> timestamps
}

// The rows of a TIndexResult asked for with TIndexQuery.compactRows: every
// column of the answer once (families[i] and qualifiers[i] name column i),
// then the rows by key.
struct TCompactRows {
  1: list<binary> families
  2: list<binary> qualifiers
  3: list<TCompactRow> rows
}

struct TIndexResult {
  // By row key, at most the limit: every matching row up to the last one
  // returned (a matching row without any projected column comes back with
  // no columns).
  1: list<hbase_service.TResult> rows
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
  // The rows when the query set compactRows (`rows` is then empty).
  8: optional TCompactRows compactRows
}

service IndexService extends hbase_service.THBaseService {
  // Authentication by bearer token (thrift/server/security.h): the first call of a
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

  // Bulk import: loads a bulk file (a sorted SST file of rows of one region,
  // written with bloomroute's BulkFileWriter; see describeTable for the
  // regions and their key ranges) into region `regionId` of the table. The
  // rows are puts with the same result as putMultiple of them, applied
  // atomically on the region server, and acknowledged once the router's
  // index holds them. TIllegalArgument for a region not of the table or a
  // bad file (nothing written).
  void bulkLoad(1: string table, 2: i64 regionId, 3: binary file)
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
