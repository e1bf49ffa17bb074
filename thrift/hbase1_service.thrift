// Hbase: HBase 2.x's older Thrift API (the "Thrift1" service of the
// hbase-thrift module, which happybase and other older clients speak), as
// bloomroute's router serves it on its own port (`bloomroute router
// --thrift1-listen`, `bloomroute local --thrift1-port`).
//
// This file is bloomroute's own, written from HBase's published API: the
// service name, method names, argument ids, struct field ids, types, default
// values and declared exceptions are HBase's, so a client generated from
// HBase's own Hbase.thrift (framed or buffered transport, binary or compact
// protocol) works unchanged. The router serves these calls over the same core
// as the Thrift2 ones (hbase_service.thrift): same tables, rows, filter
// language and index. docs/clients.md says, method by method, what each call
// does here and what is refused and why.
//
// Conventions of the API:
//   - A column is "family:qualifier"; "family" (or "family:" in a
//     ColumnDescriptor) names a whole family.
//   - Tables are named as in Thrift2 data calls: "t" or "ns:t".
//   - Timestamps of the *Ts calls bound what is read or deleted (cells at or
//     below the timestamp for deletes, strictly below it for reads), as
//     HBase does; a write without one gets the current time.
//   - `attributes` maps are accepted and ignored.
//   - Errors: IOError for a failure (its message starts with the status
//     code name, e.g. "InvalidArgument: ..."), IllegalArgument where the
//     method declares it, AlreadyExists for createTable of a table that
//     exists.

namespace cpp bloomroute.rpc.hbase1
namespace py bloomroute.rpc.hbase1

typedef binary Text
typedef binary Bytes
typedef i32 ScannerID

// One cell's value and the timestamp it carries.
struct TCell {
  1: Bytes value,
  2: i64 timestamp
}

// A column family: what createTable is given and getColumnDescriptors
// answers. `name` ends with ':'. Only settings that do not change answers
// may differ from the values getColumnDescriptors reports (maxVersions 1:
// one version per cell is kept).
struct ColumnDescriptor {
  1: Text name,
  2: i32 maxVersions = 3,
  3: string compression = "NONE",
  4: bool inMemory = 0,
  5: string bloomFilterType = "NONE",
  6: i32 bloomFilterVectorSize = 0,
  7: i32 bloomFilterNbHashes = 0,
  8: bool blockCacheEnabled = 0,
  9: i32 timeToLive = 0x7fffffff
}

// A region of a table and the server that holds it.
struct TRegionInfo {
  1: Text startKey,
  2: Text endKey,
  3: i64 id,
  4: Text name,
  5: i8 version,
  6: Text serverName,
  7: i32 port
}

// One change to one column of a row: a put of `value`, or (isDelete) a
// delete of the column (of the whole family when `column` has no
// qualifier). writeToWAL is a durability hint, ignored.
struct Mutation {
  1: bool isDelete = 0,
  2: Text column,
  3: Text value,
  4: bool writeToWAL = 1
}

// The mutations of one row, for mutateRows.
struct BatchMutation {
  1: Text row,
  2: list<Mutation> mutations
}

// An increment of one counter cell (the field is spelled as HBase spells
// it).
struct TIncrement {
  1: Text table,
  2: Text row,
  3: Text column,
  4: i64 ammount
}

// A column's name and its cell, for sorted results.
struct TColumn {
  1: Text columnName,
  2: TCell cell
}

// A row: its cells by column name, or in column order (sortedColumns)
// when the scan asked for sortColumns.
struct TRowResult {
  1: Text row,
  2: optional map<Text, TCell> columns,
  3: optional list<TColumn> sortedColumns
}

// What scannerOpenWithScan reads: rows in [startRow, stopRow), cells
// older than `timestamp`, the given columns (all when none), and rows that
// pass `filterString` (the filter language of docs/filter-language.md,
// which pins on indexed columns are served by the index).
struct TScan {
  1: optional Text startRow,
  2: optional Text stopRow,
  3: optional i64 timestamp,
  4: optional list<Text> columns,
  5: optional i32 caching,
  6: optional Text filterString,
  7: optional i32 batchSize,
  8: optional bool sortColumns,
  9: optional bool reversed,
  10: optional bool cacheBlocks
}

// Bytes to append to columns of one row, values[i] to columns[i].
struct TAppend {
  1: Text table,
  2: Text row,
  3: list<Text> columns,
  4: list<Text> values
}

// A failure; canRetry when the same call may succeed later.
exception IOError {
  1: string message
  2: bool canRetry
}

// A request that can never succeed as sent.
exception IllegalArgument {
  1: string message
}

// createTable of a table that exists.
exception AlreadyExists {
  1: string message
}

enum TThriftServerType {
  ONE = 1,
  TWO = 2
}

enum TPermissionScope {
  TABLE = 0,
  NAMESPACE = 1
}

// A permission to grant or revoke: the router's grants, as Thrift2's
// (docs/security.md).
struct TAccessControlEntity {
  1: required string username
  2: required TPermissionScope scope
  4: required string actions
  5: optional Bytes tableName
  6: optional string nsName
}

service Hbase {
  // ---- Tables ----
  void enableTable(1: Bytes tableName) throws (1: IOError io)
  void disableTable(1: Bytes tableName) throws (1: IOError io)
  bool isTableEnabled(1: Bytes tableName) throws (1: IOError io)
  // Compactions are RocksDB's own: the table must exist, nothing else is
  // done.
  void compact(1: Bytes tableNameOrRegionName) throws (1: IOError io)
  void majorCompact(1: Bytes tableNameOrRegionName) throws (1: IOError io)
  list<Text> getTableNames() throws (1: IOError io)
  map<Text, bool> getTableNamesWithIsTableEnabled() throws (1: IOError io)
  map<Text, ColumnDescriptor> getColumnDescriptors(1: Text tableName)
      throws (1: IOError io)
  list<TRegionInfo> getTableRegions(1: Text tableName)
      throws (1: IOError io)
  void createTable(1: Text tableName,
                   2: list<ColumnDescriptor> columnFamilies)
      throws (1: IOError io, 2: IllegalArgument ia, 3: AlreadyExists exist)
  // The table must be disabled first, as in HBase.
  void deleteTable(1: Text tableName) throws (1: IOError io)

  // ---- Reads of one row ----
  list<TCell> get(1: Text tableName, 2: Text row, 3: Text column,
                  4: map<Text, Text> attributes) throws (1: IOError io)
  // One version per cell is kept: numVersions >= 1 answers that one.
  list<TCell> getVer(1: Text tableName, 2: Text row, 3: Text column,
                     4: i32 numVersions, 5: map<Text, Text> attributes)
      throws (1: IOError io)
  list<TCell> getVerTs(1: Text tableName, 2: Text row, 3: Text column,
                       4: i64 timestamp, 5: i32 numVersions,
                       6: map<Text, Text> attributes) throws (1: IOError io)
  list<TRowResult> getRow(1: Text tableName, 2: Text row,
                          3: map<Text, Text> attributes)
      throws (1: IOError io)
  list<TRowResult> getRowWithColumns(1: Text tableName, 2: Text row,
                                     3: list<Text> columns,
                                     4: map<Text, Text> attributes)
      throws (1: IOError io)
  list<TRowResult> getRowTs(1: Text tableName, 2: Text row, 3: i64 timestamp,
                            4: map<Text, Text> attributes)
      throws (1: IOError io)
  list<TRowResult> getRowWithColumnsTs(1: Text tableName, 2: Text row,
                                       3: list<Text> columns,
                                       4: i64 timestamp,
                                       5: map<Text, Text> attributes)
      throws (1: IOError io)

  // ---- Reads of many rows (rows that do not exist are left out) ----
  list<TRowResult> getRows(1: Text tableName, 2: list<Text> rows,
                           3: map<Text, Text> attributes)
      throws (1: IOError io)
  list<TRowResult> getRowsWithColumns(1: Text tableName, 2: list<Text> rows,
                                      3: list<Text> columns,
                                      4: map<Text, Text> attributes)
      throws (1: IOError io)
  list<TRowResult> getRowsTs(1: Text tableName, 2: list<Text> rows,
                             3: i64 timestamp,
                             4: map<Text, Text> attributes)
      throws (1: IOError io)
  list<TRowResult> getRowsWithColumnsTs(1: Text tableName,
                                        2: list<Text> rows,
                                        3: list<Text> columns,
                                        4: i64 timestamp,
                                        5: map<Text, Text> attributes)
      throws (1: IOError io)

  // ---- Writes ----
  // One row's mutations at once (deletes before puts, as HBase applies
  // them).
  void mutateRow(1: Text tableName, 2: Text row, 3: list<Mutation> mutations,
                 4: map<Text, Text> attributes)
      throws (1: IOError io, 2: IllegalArgument ia)
  void mutateRowTs(1: Text tableName, 2: Text row,
                   3: list<Mutation> mutations, 4: i64 timestamp,
                   5: map<Text, Text> attributes)
      throws (1: IOError io, 2: IllegalArgument ia)
  // Each row's mutations at once; rows one after the other.
  void mutateRows(1: Text tableName, 2: list<BatchMutation> rowBatches,
                  3: map<Text, Text> attributes)
      throws (1: IOError io, 2: IllegalArgument ia)
  void mutateRowsTs(1: Text tableName, 2: list<BatchMutation> rowBatches,
                    3: i64 timestamp, 4: map<Text, Text> attributes)
      throws (1: IOError io, 2: IllegalArgument ia)
  // The counter's value after adding `value` (an 8-byte big-endian cell).
  i64 atomicIncrement(1: Text tableName, 2: Text row, 3: Text column,
                      4: i64 value)
      throws (1: IOError io, 2: IllegalArgument ia)
  void deleteAll(1: Text tableName, 2: Text row, 3: Text column,
                 4: map<Text, Text> attributes) throws (1: IOError io)
  void deleteAllTs(1: Text tableName, 2: Text row, 3: Text column,
                   4: i64 timestamp, 5: map<Text, Text> attributes)
      throws (1: IOError io)
  void deleteAllRow(1: Text tableName, 2: Text row,
                    3: map<Text, Text> attributes) throws (1: IOError io)
  void increment(1: TIncrement increment) throws (1: IOError io)
  void incrementRows(1: list<TIncrement> increments) throws (1: IOError io)
  void deleteAllRowTs(1: Text tableName, 2: Text row, 3: i64 timestamp,
                      4: map<Text, Text> attributes) throws (1: IOError io)

  // ---- Scanners (each belongs to the connection that opened it) ----
  ScannerID scannerOpenWithScan(1: Text tableName, 2: TScan scan,
                                3: map<Text, Text> attributes)
      throws (1: IOError io)
  ScannerID scannerOpen(1: Text tableName, 2: Text startRow,
                        3: list<Text> columns,
                        4: map<Text, Text> attributes)
      throws (1: IOError io)
  ScannerID scannerOpenWithStop(1: Text tableName, 2: Text startRow,
                                3: Text stopRow, 4: list<Text> columns,
                                5: map<Text, Text> attributes)
      throws (1: IOError io)
  ScannerID scannerOpenWithPrefix(1: Text tableName, 2: Text startAndPrefix,
                                  3: list<Text> columns,
                                  4: map<Text, Text> attributes)
      throws (1: IOError io)
  ScannerID scannerOpenTs(1: Text tableName, 2: Text startRow,
                          3: list<Text> columns, 4: i64 timestamp,
                          5: map<Text, Text> attributes)
      throws (1: IOError io)
  ScannerID scannerOpenWithStopTs(1: Text tableName, 2: Text startRow,
                                  3: Text stopRow, 4: list<Text> columns,
                                  5: i64 timestamp,
                                  6: map<Text, Text> attributes)
      throws (1: IOError io)
  // The next row, or an empty list at the end.
  list<TRowResult> scannerGet(1: ScannerID id)
      throws (1: IOError io, 2: IllegalArgument ia)
  // Up to nbRows next rows; an empty list at the end.
  list<TRowResult> scannerGetList(1: ScannerID id, 2: i32 nbRows)
      throws (1: IOError io, 2: IllegalArgument ia)
  void scannerClose(1: ScannerID id)
      throws (1: IOError io, 2: IllegalArgument ia)

  // ---- Regions and atomic operations ----
  // The region holding a row, given as a catalog key "table,row,..." (the
  // part after the last ',' is ignored).
  TRegionInfo getRegionInfo(1: Text row) throws (1: IOError io)
  // The appended cells.
  list<TCell> append(1: TAppend append) throws (1: IOError io)
  // Puts mput when the cell `column` holds `value` (an empty or unset value:
  // when the cell is absent or empty).
  bool checkAndPut(1: Text tableName, 2: Text row, 3: Text column,
                   5: Text value, 6: Mutation mput,
                   7: map<Text, Text> attributes)
      throws (1: IOError io, 2: IllegalArgument ia)

  // ---- Server ----
  TThriftServerType getThriftServerType()
  string getClusterId()
  // HBase's access control lists are not kept here: refused.
  bool grant(1: required TAccessControlEntity info) throws (1: IOError io)
  bool revoke(1: required TAccessControlEntity info) throws (1: IOError io)
}
