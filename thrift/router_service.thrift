// RouterService: the client API of bloomroute, served by the router.
//
// Modelled on the HBase Thrift2 API (hbase.thrift, THBaseService) so that HBase
// users feel at home: T-prefixed structs (TColumnValue, TColumn, TPut, TGet,
// TDelete, TScan, TResult), `binary` row keys, column names and values, the
// table name as the first argument, TIOError / TIllegalArgument with a
// message, and batch calls with the suffix `Multiple` that answer in request
// order. Index lookups are new calls (getByIndex, getByIndexMultiple) that
// also say how the router routed them.
//
// Differences from HBase. Columns keep bloomroute's single name
// "family:qualifier" (the family non-empty, without ':'; the qualifier may be
// empty) instead of separate family and qualifier fields; a whole family is
// named by "family" alone where a call accepts one. There are no timestamps
// or versions: a put overwrites. Each row's put or delete is atomic; a batch
// is not (as HBase's putMultiple): it is sent to the region servers in
// parallel, in chunks, and a failure names the server while rows of other
// chunks may have been applied.
//
// Requiredness. Fields use default requiredness, so that a request missing a
// field the router needs is answered with TIllegalArgument naming it (e.g.
// "puts[2].row is missing"), not dropped as a protocol error. Fields marked
// `optional` may be left unset; each says what unset means. A list left unset
// is an empty list.
//
// Numbers. Thrift has no unsigned integers: ids, counts and limits are
// unsigned in the router and sent as i64 / i32; a negative value from a client
// is rejected with TIllegalArgument naming the field.
//
// Errors.
//   TIllegalArgument  the request can never succeed as sent: a missing or
//                     malformed field, an unknown table or scanner, a
//                     predicate on a column that is not indexed, a value over
//                     a limit. Nothing was written.
//   TIOError          the router or a region server failed or did not answer;
//                     the message names the region server, e.g.
//                     "Unavailable: region server 127.0.0.1:9092: ...".
// The message starts with the status code name ("InvalidArgument: ...",
// "NotFound: ...", "Unavailable: ...") so a client can tell them apart.
//
// Limits: rows per call (puts, gets, deletes, scanner rows, lookup limit) at
// most 100000; a row key 1..32767 bytes; a column name at most 1024 bytes; a
// value at most the region servers' --max-value-bytes; a request frame at most
// the router's --max-frame-bytes.

include "errors.thrift"

namespace cpp bloomroute.rpc.client
namespace py bloomroute.rpc.router_service

// ---- Tables ----

struct TIndexedColumn {
  1: i32 columnId  // assigned by the router from 1, in the order created
  2: binary name   // "family:qualifier"
}

struct TTableDescriptor {
  1: i64 tableId  // assigned by the router, never reused
  2: string name
  3: list<TIndexedColumn> indexedColumns
}

// A table to create.
struct TTableSpec {
  // 1..255 characters of [A-Za-z0-9_.-], not "." or ".."; unique.
  1: string name
  // "family:qualifier" names, distinct, at most 256 and 16 KiB together;
  // empty = no index (lookups are then rejected). The order gives the
  // column ids. Split keys and these names together take at most the
  // router's --max-table-bytes (1 MiB by default), and the router holds at
  // most --max-tables tables (1000): TIllegalArgument naming the limit.
  2: list<binary> indexedColumns
  // Row keys where regions start, strictly ascending, non-empty: N keys give
  // N + 1 regions. When empty, `regionCount` decides.
  3: list<binary> splitKeys
  // With no split keys: this many regions (1..1024) splitting the first byte
  // of the key space evenly, as HBase's createTable with a region count.
  // Unset or 0 = one region per region server.
  4: optional i32 regionCount
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
  1: TTableDescriptor descriptor
  2: list<TRegionLocation> regions  // by start key
}

// ---- Rows ----

// One cell: a column and its value.
struct TColumnValue {
  1: binary column  // "family:qualifier"
  2: binary value
}

// A column ("family:qualifier") or, where a call accepts it, a whole family
// ("family").
struct TColumn {
  1: binary column
}

// Adds or overwrites the given columns of a row (the row is created when
// missing). At least one column.
struct TPut {
  1: binary row
  2: list<TColumnValue> columnValues
}

// Reads one row. `columns`: each a family or a "family:qualifier"; empty =
// every column.
struct TGet {
  1: binary row
  2: list<TColumn> columns
}

// Removes the given columns ("family:qualifier" each) of a row; empty =
// the whole row. Deleting what does not exist is not an error.
struct TDelete {
  1: binary row
  2: list<TColumn> columns
}

// A key range: [startRow, stopRow) in byte order.
struct TScan {
  1: optional binary startRow  // inclusive; unset or empty = the first row
  2: optional binary stopRow   // exclusive; unset or empty = past the last row
  3: list<TColumn> columns     // as in TGet
}

// A row: its cells sorted by column. A row that does not exist (or has none
// of the requested columns) is a TResult without `row` and with no cells, as
// in HBase.
struct TResult {
  1: optional binary row
  2: list<TColumnValue> columnValues
}

// ---- Index lookups ----

struct TEqualityPredicate {
  1: binary column  // an indexed column of the table
  2: binary value
}

// An index lookup: rows where every predicate holds (AND).
struct TIndexQuery {
  1: list<TEqualityPredicate> predicates  // at least one
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
}

struct TRoutingInfo {
  1: i32 serversInCluster
  2: list<TServerRef> serversAsked  // ascending by id
  // The subset of serversAsked asked only because the router's copy of their
  // filter was not known to be current (never skipped: no false negatives).
  3: list<TServerRef> serversAskedNotCurrent
  4: list<TServerRef> serversWithRows  // asked servers that returned rows
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
  // Authentication by bearer token (thrift/security.h): the first call of a
  // client without a client certificate, on a TLS connection. The token's
  // role then holds for every later call on this connection. A token the
  // router does not know, or a connection without TLS, gets TIOError
  // "PermissionDenied: ..." and the connection stays unauthenticated. The
  // router's connection layer answers this call; it never reaches the
  // handler.
  void authenticate(1: string token)
      throws (1: errors.TIOError io, 2: errors.TIllegalArgument ia)

  // Tables. createTable places the regions on the servers with the fewest
  // regions and opens them; TIllegalArgument for a bad spec or a name in use.
  TTableInfo createTable(1: TTableSpec spec)
      throws (1: errors.TIOError io, 2: errors.TIllegalArgument ia)
  // Drops every row and region of the table, then the table. When a region
  // server does not answer, the table is gone from listings at once, its
  // regions are dropped later, and TIOError says so.
  void deleteTable(1: string table)
      throws (1: errors.TIOError io, 2: errors.TIllegalArgument ia)
  // Every table, by name.
  list<TTableDescriptor> listTables()
      throws (1: errors.TIOError io, 2: errors.TIllegalArgument ia)
  TTableInfo describeTable(1: string table)
      throws (1: errors.TIOError io, 2: errors.TIllegalArgument ia)

  // Rows. The table must exist (TIllegalArgument otherwise). A put or delete
  // is acknowledged once the region server applied it and the router's index
  // holds it: a lookup that starts afterwards sees it.
  void put(1: string table, 2: TPut tput)
      throws (1: errors.TIOError io, 2: errors.TIllegalArgument ia)
  // A malformed put (missing field, empty row key, bad column name) rejects
  // the whole call before anything is written. A region server's refusal
  // (e.g. a value over its limit) or silence fails the call naming the
  // server; rows of other chunks may have been applied (see the top).
  void putMultiple(1: string table, 2: list<TPut> puts)
      throws (1: errors.TIOError io, 2: errors.TIllegalArgument ia)
  TResult get(1: string table, 2: TGet tget)
      throws (1: errors.TIOError io, 2: errors.TIllegalArgument ia)
  // In request order (see TResult for missing rows). When the rows pass the
  // router's reply byte budget (--max-reply-bytes, 32 MiB), the answer is a
  // prefix of the gets, at least one, ending with the row that passed it:
  // ask again with the gets after it.
  list<TResult> getMultiple(1: string table, 2: list<TGet> gets)
      throws (1: errors.TIOError io, 2: errors.TIllegalArgument ia)
  void deleteSingle(1: string table, 2: TDelete tdelete)
      throws (1: errors.TIOError io, 2: errors.TIllegalArgument ia)
  // As putMultiple. (HBase returns the deletes that failed; here a failure
  // is an exception naming the server.)
  void deleteMultiple(1: string table, 2: list<TDelete> deletes)
      throws (1: errors.TIOError io, 2: errors.TIllegalArgument ia)

  // Scanners: open one over a key range, fetch rows in key order across
  // regions, close it. A scanner belongs to the connection that opened it:
  // its id is random (63 bits, positive), other connections get
  // TIllegalArgument (NotFound) for it, and it is closed when its
  // connection closes. A scanner unused for the router's scanner idle
  // timeout (60 s by default) is closed by the router; an unknown, closed or
  // expired scanner is TIllegalArgument. TIOError naming the limit when the
  // connection has the router's max_scanners_per_client open (100 by
  // default) or all connections max_scanners (1000).
  i64 openScanner(1: string table, 2: TScan tscan)
      throws (1: errors.TIOError io, 2: errors.TIllegalArgument ia)
  // Up to numRows (1..100000) rows, fewer when they pass the router's reply
  // byte budget (--max-reply-bytes); an empty list means the scan is done.
  // callSeq numbers a scanner's calls (HBase's nextCallSeq): 1 for the
  // first, then one more for each next call. Repeating the previous number
  // (a retry after a lost reply) returns that batch again, read anew from
  // where it began, so no row is skipped; another number is
  // TIllegalArgument naming the expected one. 0 or absent: unsequenced, the
  // next batch with no way to repeat it.
  list<TResult> getScannerRows(1: i64 scannerId, 2: i32 numRows,
                               3: i64 callSeq)
      throws (1: errors.TIOError io, 2: errors.TIllegalArgument ia)
  void closeScanner(1: i64 scannerId)
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
  // possibly truncated with its resumeAfter; ask again for the rest.
  list<TIndexResult> getByIndexMultiple(1: string table,
                                        2: list<TIndexQuery> queries)
      throws (1: errors.TIOError io, 2: errors.TIllegalArgument ia)

  // The global index: one entry per region server, ascending by id.
  list<TServerIndexStats> getIndexStats()
      throws (1: errors.TIOError io, 2: errors.TIllegalArgument ia)
  // Asks every region server for its status (in parallel).
  TClusterStatus getClusterStatus()
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
}
