// THBaseService: HBase 2.x's Thrift2 API (the THBaseService of the
// hbase-thrift module) as bloomroute's router serves it, for HBase data
// clients. The first of the three files of the router's client API:
// RouterService (router_service.thrift, bloomroute's admin calls) extends
// IndexService (index_service.thrift, bloomroute's index calls), which
// extends THBaseService; the router serves all three on one port.
//
// The data and table calls below keep HBase's method names, argument ids,
// struct field ids, types and declared exceptions, so that a client
// generated from HBase's own hbase.thrift, with framed transport and the
// binary protocol, works unchanged. This file is bloomroute's own, written
// from HBase's published API; structs and fields HBase has that bloomroute
// never reads are left out (a Thrift reader skips unknown field ids, so an
// HBase client may still send them). Where HBase has a feature bloomroute
// does not (more than one version per cell, visibility labels and
// authorizations, region replicas and
// TIMELINE consistency, per-family time ranges, serialized filters), a request that asks for it is refused with an error naming the
// feature, never answered differently. Hints that do not change an answer
// (caching, cacheBlocks, readType, durability, attributes on a mutation) are
// accepted and ignored.
//
// The conventions below hold for the whole client API (the three files).
//
// Tables. HBase names tables with `binary table` in data calls ("t",
// "default:t" or "ns:t") and TTableName in table calls. Tables live in
// namespaces, as in HBase: "t" and "default:t" name the same table;
// `default` and `hbase` always exist (`hbase` holds no table a user can
// create; tableExists answers true for hbase:meta); other namespaces are
// made with createNamespace. Indexed columns are declared through HBase's createTable: the
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
// (TDeleteType, TDurability, TConsistency, TReadType, TCompareOperator, and a
// column family's TBloomFilterType, TCompressionAlgorithm,
// TDataBlockEncoding and TKeepDeletedCells) are
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
namespace py bloomroute.rpc.hbase_service

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
  // Unset: reads, the whole family; deletes, see TDeleteType.
  2: optional binary qualifier
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
  3: optional bool stale = false  // never set: no replicas
  // Set on a part of a row that is not its last (TScan.batchSize); a
  // row's last or only TResult leaves it unset.
  4: optional bool partial = false
}

// DELETE_COLUMN: the cell of the column if its timestamp equals the given
// one (unset: the cell, whatever its timestamp). DELETE_COLUMNS: the cell if
// its timestamp is <= the given one (unset: the cell). A TColumn without
// qualifier is, for both, the column with the empty qualifier (as HBase
// 2.x's ThriftUtilities reads it), not the family. DELETE_FAMILY (TColumns
// without qualifier): every cell of each family <= the timestamp.
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
// timestamp <= `timestamp` (unset: every cell). Otherwise each TColumn is
// deleted by `deleteType` (see TDeleteType): a column, or with DELETE_FAMILY
// a family; the column's timestamp, else the delete's, else all. Deleting what does not exist is not an error. HBase
// keeps delete markers that hide later puts with older timestamps; bloomroute
// does not (see docs/clients.md, "Differences from HBase"). cellVisibility
// (HBase 2.x's field 8) must be unset, as TPut's.
struct TDelete {
  1: binary row
  2: optional list<TColumn> columns
  3: optional i64 timestamp
  4: optional i32 deleteType = 1  // a TDeleteType
  6: optional map<binary, binary> attributes
  7: optional i32 durability  // a TDurability
  8: optional TCellVisibility cellVisibility
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
// all). batchSize (HBase's Scan.setBatch): at most this many cells per
// TResult; a row with more is returned as several TResults in order, each
// but the last with `partial` set, and a scanner's next call continues a
// row where the last one stopped; numRows counts these TResults, limit
// counts rows (unset, 0 or negative, as HBase's default -1: whole rows).
// maxVersions unset or 1. reversed (HBase's Scan.setReversed): the rows in
// descending key order from startRow, the largest key and inclusive
// (unset: from the table's last row), down to stopRow, the smallest and
// exclusive (unset: to the first row); scanners page it across calls and
// regions, and filters and limit apply as to a forward scan (a filter that
// pins an indexed column is then applied by the region servers during the
// scan, not answered from the index). Must be unset: colFamTimeRangeMap
// (or empty), authorizations, targetReplicaId, filterBytes; consistency
// STRONG. caching, cacheBlocks and readType are hints, ignored.
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

// ns: unset or empty is "default". In replies ns is always set.
struct TTableName {
  1: optional binary ns
  2: binary qualifier
}

// HBase's enums of a column family's storage settings (values as HBase's).
enum TBloomFilterType {
  NONE = 0,
  ROW = 1,
  ROWCOL = 2,
  ROWPREFIX_FIXED_LENGTH = 3
}
enum TCompressionAlgorithm {
  LZO = 0,
  GZ = 1,
  NONE = 2,
  SNAPPY = 3,
  LZ4 = 4,
  BZIP2 = 5,
  ZSTD = 6
}
enum TDataBlockEncoding {
  NONE = 0,
  PREFIX = 2,
  DIFF = 3,
  FAST_DIFF = 4,
  ROW_INDEX_V1 = 7
}
enum TKeepDeletedCells {
  FALSE = 0,
  TRUE = 1,
  TTL = 2
}

// A column family. Settings that change answers must keep their HBase
// defaults: maxVersions unset or 1, timeToLive unset or 2147483647
// (forever), keepDeletedCells unset or FALSE (0); minVersions unset or 0.
// Storage settings (block size, Bloom filter type, compression, encoding,
// caching, replication scope, ...) change no answer here: createTable keeps
// them as given (an enum must hold one of its values; blockSize is positive,
// dfsReplication and scope not negative), with the attributes and the
// configuration, and getTableDescriptor gives them back. In replies every
// field is set: a setting never given is HBase 2.x's default
// (ColumnFamilyDescriptorBuilder: blockSize 65536, bloomnFilterType ROW,
// compressionType NONE, dfsReplication 0, dataBlockEncoding NONE, scope 0,
// blockCacheEnabled and compressTags true, the other flags false).
struct TColumnFamilyDescriptor {
  1: binary name
  2: optional map<binary, binary> attributes
  3: optional map<string, string> configuration
  4: optional i32 blockSize
  5: optional i32 bloomnFilterType  // a TBloomFilterType (HBase's spelling)
  6: optional i32 compressionType  // a TCompressionAlgorithm
  7: optional i16 dfsReplication
  8: optional i32 dataBlockEncoding  // a TDataBlockEncoding
  9: optional i32 keepDeletedCells  // a TKeepDeletedCells
  10: optional i32 maxVersions
  11: optional i32 minVersions
  12: optional i32 scope
  13: optional i32 timeToLive
  14: optional bool blockCacheEnabled
  15: optional bool cacheBloomsOnWrite
  16: optional bool cacheDataOnWrite
  17: optional bool cacheIndexesOnWrite
  18: optional bool compressTags
  19: optional bool evictBlocksOnClose
  20: optional bool inMemory
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

// A namespace (HBase's NamespaceDescriptor). name: 1 to 128 of
// [A-Za-z0-9_] (HBase's TableName.isLegalNamespaceName). configuration:
// kept as given and answered back; at most 64 KiB of keys and values per
// namespace, 1 MiB for all namespaces together.
struct TNamespaceDescriptor {
  1: string name
  2: optional map<string, string> configuration
}

enum TThriftServerType {
  ONE = 1,
  TWO = 2
}

// getSlowLogResponses' log (HBase's TLogType): SLOW_LOG the calls that took
// the router's --slow-call-ms or more; LARGE_LOG (HBase's calls with large
// replies) is kept by no bloomroute server: asking for it answers nothing.
enum TLogType {
  SLOW_LOG = 1,
  LARGE_LOG = 2
}

// How getSlowLogResponses combines the filters given (HBase's
// TFilterByOperator): AND all of them, OR any of them.
enum TFilterByOperator {
  AND,
  OR
}

// getSlowLogResponses' filter (HBase's TLogQueryFilter). Unset or empty
// fields filter nothing; given ones compare exactly:
//   regionName     matches no record (a router call is not one region's)
//   clientAddress  the caller's "host:port"
//   tableName      the table the call named (HBase matches a prefix of the
//                  region name, so "t" there also finds table "t1")
//   userName       the caller's principal (TLS), empty without TLS
// limit: the newest `limit` records that pass (0..; unset: 10, as HBase).
// logType and filterByOperator are a TLogType and a TFilterByOperator; an
// unknown value is refused naming the field.
struct TLogQueryFilter {
  1: optional string regionName
  2: optional string clientAddress
  3: optional string tableName
  4: optional string userName
  5: optional i32 limit = 10
  6: optional i32 logType = 1           // a TLogType: SLOW_LOG
  7: optional i32 filterByOperator = 1  // a TFilterByOperator: OR
}

// One slow call (HBase's TOnlineLogRecord), newest first. What the router
// fills: startTime (ms since the Unix epoch), processingTime (ms, from the
// whole request to the reply), responseSize (the reply's bytes),
// clientAddress ("host:port"), serverClass ("RouterServer"), methodName (the
// Thrift call, e.g. "getScannerRows"), callDetails ("<method> table T: asked
// N servers, returned N rows: <outcome>"), param (the table, or empty),
// userName (the caller's principal, empty without TLS). Left at their
// defaults: queueTime (0: not measured), the multi* counts (0: HBase's
// counts of a multi call's parts), regionName and blockBytesScanned (unset).
struct TOnlineLogRecord {
  1: i64 startTime
  2: i32 processingTime
  3: i32 queueTime
  4: i64 responseSize
  5: string clientAddress
  6: string serverClass
  7: string methodName
  8: string callDetails
  9: string param
  10: string userName
  11: i32 multiGetsCount
  12: i32 multiMutationsCount
  13: i32 multiServiceCalls
  14: optional string regionName
  15: optional i64 blockBytesScanned
}

// HBase's grant / revoke (its AccessControlClient through Thrift2): the
// scope of a grant is one table or one namespace.
enum TPermissionScope {
  TABLE = 0,
  NAMESPACE = 1
}

// A grant or revoke: `actions` are HBase's letters (R, W, X, C, A);
// `tableName` ("ns:t" or "t") names the table of a TABLE grant and `nsName`
// the namespace of a NAMESPACE grant. Field 3 is unused, as in HBase.
struct TAccessControlEntity {
  1: required string username
  2: required TPermissionScope scope
  4: required string actions
  5: optional string tableName
  6: optional string nsName
}

service THBaseService {
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

  // Scanners: open one over a key range, fetch rows in key order (or
  // descending, TScan.reversed) across regions, close it. Its id is random
  // (31 bits, positive). Under TLS a scanner belongs to its user (the
  // certificate's name or the token's user), as HBase's are not tied to a
  // connection: any connection of that user may use or close it, and it
  // stays open when the connection that opened it closes. Without TLS a
  // client has no identity to prove a scanner its own, so a scanner
  // belongs to the connection that opened it and is closed with it. Others
  // get NotFound for it. A scanner unused for
  // the router's scanner idle timeout (60 s by default) is closed by the
  // router. The error names the limit when the connection has the router's
  // max_scanners_per_client open (100 by default) or all connections
  // max_scanners (1000).
  i32 openScanner(1: binary table, 2: TScan tscan)
      throws (1: errors.TIOError io)
  // Up to numRows (0..100000) rows, fewer when they pass the router's reply
  // byte budget (--max-reply-bytes); an empty list means the scan is done,
  // but for numRows 0, which answers none (as HBase's next(0)).
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

  // Tables whose whole name matches `regex` (HBase's Pattern.matches); an
  // unset or empty regex lists every table. bloomroute has no system
  // tables, so includeSysTables changes nothing (HBase's hbase:meta and
  // hbase:namespace are never listed). The regex is at most 1024 bytes and
  // in the subset of Java's syntax that ECMAScript shares: literals, ., [..]
  // classes and ranges, \d \D \s \S \w \W \b \B, escaped punctuation,
  // groups (..) and (?:..), lookahead (?=..) (?!..), alternation, greedy
  // and lazy quantifiers (counts {n,m} at most 255), ^ and $; matching
  // takes time polynomial in the name. Java-only constructs are refused
  // naming them: possessive quantifiers (*+ ++ ?+ }+), \p{..} / \P{..} classes,
  // named groups and lookbehind ((?<..), atomic groups ((?>..), inline flags
  // ((?i) ...), \Q..\E quoting, \A \Z \z \G \h \H \R \X \k \e \a \0
  // escapes, backreferences (\1 ..., which would make matching exponential)
  // and class unions or intersections ([a[b]], [a&&b]).
  list<TTableDescriptor> getTableDescriptorsByPattern(1: string regex,
      2: bool includeSysTables) throws (1: errors.TIOError io)
  list<TTableName> getTableNamesByPattern(1: string regex,
      2: bool includeSysTables) throws (1: errors.TIOError io)
  // Exists, enabled, and, as HBase's isTableAvailable(table, splitKeys)
  // (compareRegionsWithSplitKeys): the first region and the regions that
  // start at one of `splitKeys` number splitKeys.size() + 1 -- every
  // (distinct) split key starts a region; regions starting elsewhere are not
  // counted, and a repeated key answers false. An empty or unset list (the
  // two cannot be told apart here) is true. False for an unknown table.
  bool isTableAvailableWithSplit(1: TTableName tableName,
      2: list<binary> splitKeys) throws (1: errors.TIOError io)
  // The router's slow calls (HBase's online slow log): the last 256 calls
  // that took --slow-call-ms or more (at most 256 KiB of records; older ones
  // are dropped), newest first, filtered by logQueryFilter (TLogQueryFilter
  // says which fields count). Each router keeps its own: serverNames only
  // needs to name one server (any name; an empty set answers nothing, as
  // HBase's). Region servers' slow calls are in their logs, not here. This
  // call and clearSlowLogResponses need role admin (who called what).
  list<TOnlineLogRecord> getSlowLogResponses(1: set<TServerName> serverNames,
      2: TLogQueryFilter logQueryFilter) throws (1: errors.TIOError io)
  // Empties the router's slow-call ring; true for each of serverNames.
  list<bool> clearSlowLogResponses(1: set<TServerName> serverNames)
      throws (1: errors.TIOError io)
  // The cluster's id: a UUID made once and kept in the router's catalog
  // (every router of the cluster answers the same, across restarts).
  string getClusterId()

  // ---------------- Namespaces (HBase's Admin namespace calls) ----------
  // Kept in the router's catalog (embedded or ZooKeeper), each change one
  // atomic write; they need role admin. Errors name HBase's exception:
  //   createNamespace  "InvalidArgument: namespace 'ns' already exists
  //                    (NamespaceExistException)" (default and hbase always
  //                    exist); an illegal name is InvalidArgument naming
  //                    the character.
  //   modifyNamespace  replaces the configuration; "NotFound: namespace 'ns'
  //                    does not exist (NamespaceNotFoundException)".
  //   deleteNamespace  "InvalidArgument: Only empty namespaces can be
  //                    removed. Namespace 'ns' has N tables
  //                    (ConstraintException)"; default and hbase: "Reserved
  //                    namespace ... cannot be removed"; NotFound as above.
  //   getNamespaceDescriptor  NotFound as above.
  //   listNamespaceDescriptors / listNamespaces  every namespace by name,
  //                    default and hbase included.
  //   getTableDescriptorsByNamespace / getTableNamesByNamespace  its tables
  //                    (enabled or not) by name; NotFound as above; hbase
  //                    lists none (bloomroute has no system tables).
  // createTable in a namespace that does not exist is NotFound as above; in
  // hbase, InvalidArgument.
  list<TTableDescriptor> getTableDescriptorsByNamespace(1: string name)
      throws (1: errors.TIOError io)
  list<TTableName> getTableNamesByNamespace(1: string name)
      throws (1: errors.TIOError io)
  void createNamespace(1: TNamespaceDescriptor namespaceDesc)
      throws (1: errors.TIOError io)
  void modifyNamespace(1: TNamespaceDescriptor namespaceDesc)
      throws (1: errors.TIOError io)
  void deleteNamespace(1: string name) throws (1: errors.TIOError io)
  TNamespaceDescriptor getNamespaceDescriptor(1: string name)
      throws (1: errors.TIOError io)
  list<TNamespaceDescriptor> listNamespaceDescriptors()
      throws (1: errors.TIOError io)
  list<string> listNamespaces() throws (1: errors.TIOError io)

  // ---------------- Online schema changes (role admin) ----------------
  // modifyTable: desc is the table's whole new descriptor (HBase replaces
  // it): families, their settings, attributes. The table stays enabled and
  // serving. Indexed columns follow the bloomroute.index attribute: a
  // column it adds is built online as `bloomroute index add` builds it
  // (lookups answer "building" until the backfill is done), one it no
  // longer names is dropped as `bloomroute index drop` drops it; a
  // descriptor without the attribute drops every index. A family the new
  // descriptor leaves out must hold no cell: the router does not delete a
  // family's cells on the region servers, so that is refused naming the
  // family and a row ("InvalidArgument: table 't' holds cells of family
  // 'f' ..."); delete the cells (or truncate) first. Declaring families on
  // a table that declared none needs it empty likewise.
  // addColumnFamily / modifyColumnFamily / deleteColumnFamily: modifyTable
  // of the current descriptor with that one family added, replaced or
  // removed (indexed columns unchanged, building ones included), with
  // HBase's errors (InvalidFamilyOperationException): adding a family that
  // exists, modifying or deleting one that does not, deleting the only
  // family, or deleting a family that has an indexed column (drop the
  // index first) is InvalidArgument. They read, then write the
  // descriptor: concurrent schema changes of one table may overwrite each
  // other's families (the last one wins), as two HBase clients' modifyTable.
  void addColumnFamily(1: TTableName tableName,
      2: TColumnFamilyDescriptor column) throws (1: errors.TIOError io)
  void deleteColumnFamily(1: TTableName tableName, 2: binary column)
      throws (1: errors.TIOError io)
  void modifyColumnFamily(1: TTableName tableName,
      2: TColumnFamilyDescriptor column) throws (1: errors.TIOError io)
  void modifyTable(1: TTableDescriptor desc) throws (1: errors.TIOError io)

  // ---------------- Grants (HBase's grant / revoke) ----------------
  // Kept in the router's catalog (embedded or ZooKeeper), so they survive a
  // restart and every router applies them; docs/security.md has the rules.
  // The letters map onto bloomroute's roles: R read, W write, C and A
  // admin; X (exec) is kept but allows nothing (no coprocessor endpoints).
  // A user's role on a table is the highest of its certificate's or
  // token's role and its grants on the table and on the table's namespace.
  // grant adds the letters to the user's at that scope (HBase merges);
  // revoke takes the named letters away (none named: all). Both answer
  // true. They need role admin, or A on the grant's table or namespace
  // (the table's namespace counts for a TABLE grant). A letter that is no
  // action, a missing or illegal tableName / nsName, or an empty username
  // is an IOError naming it; past the catalog's bounds (4,096 user and
  // scope pairs, 1 MiB of names) likewise.
  bool grant(1: TAccessControlEntity info) throws (1: errors.TIOError io)
  bool revoke(1: TAccessControlEntity info) throws (1: errors.TIOError io)
}
