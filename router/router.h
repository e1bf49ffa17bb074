// Router: the cluster's front end. It keeps the catalog (tables, their indexed
// columns, regions and the region server of each), routes writes and reads by
// row key, and routes index lookups through the global index (one SSCBF
// replica per region server, router/global_index.h) to the servers that may
// hold a match, asking them in parallel and merging their answers.
//
// Persistence. The catalog lives in the router's own RocksDB under
// RouterOptions::data_dir and is written synchronously: a table whose
// creation was acknowledged survives a crash of the router. Table ids and
// region ids are never reused. On Open every region of the catalog is opened
// on its server again (idempotent on the server) and every replica is caught
// up; a server that does not answer is retried in the background, and its
// replica counts as not current until then (it is asked by every lookup).
//
// Region servers are named by address ("host:port"). A server keeps its id
// for as long as the catalog exists; Open refuses to start without an address
// that hosts regions of the catalog, and adds new addresses as new servers.
//
// Consistency (../shared/DESIGN.md, "The global index and its invariants").
//   * Read-your-writes: Mutate returns only after the region server has
//     acknowledged the batch and its filter ops were applied to the replica
//     (or the replica was marked not current). A lookup that starts after
//     Mutate returned never misses the written row.
//   * A lookup asks every server whose replica says "maybe" for every
//     predicate, and every server whose replica is not current.
//   * Each row's mutation is atomic; a batch is not (as HBase's putMultiple):
//     it is sent to the region servers in parallel, in chunks of up to 1000
//     rows, and an error names the server while rows of other chunks may have
//     been applied.
//
// Errors: InvalidArgument for a bad request (unknown columns in a predicate, a
// malformed row, ...); NotFound for an unknown table or scanner; Unavailable
// naming the region server ("region server 127.0.0.1:9092: ...") when one did
// not answer; IOError / Corruption for failures inside a server or the
// catalog.
//
// Thread-safety: every method may be called concurrently.
//
// Usage:
//   auto router = Router::Open(options, factory);   // StatusOr
//   (*router)->CreateTable({"geo", {"d:cc"}, {}, 4});
//   (*router)->Mutate("geo", {Mutation::Put(0, "r1", {{"d:cc", "NO"}})});
//   LookupSpec q;
//   q.equals = {{"d:cc", "NO"}};
//   StatusOr<LookupResult> r = (*router)->Lookup("geo", q);
#ifndef BLOOMROUTE_ROUTER_ROUTER_H_
#define BLOOMROUTE_ROUTER_ROUTER_H_

#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "common/status.h"
#include "common/statusor.h"
#include "model/index_predicate.h"
#include "model/index_query.h"
#include "model/rows.h"
#include "router/catalog_store.h"
#include "router/grant.h"
#include "router/quota.h"
#include "router/router_options.h"
#include "router/router_reports.h"
#include "router/server_id.h"

namespace bloomroute {
struct OpPush;  // model/op_push.h: only the router's transport makes one
}  // namespace bloomroute

namespace bloomroute::router {

// How the router reaches region servers (router/region_client.h).
class CatalogStore;
class RegionClientFactory;

// A namespace (HBase's NamespaceDescriptor): a name and its configuration.
using NamespaceDescriptor = CatalogNamespace;

// A table to create.
struct TableSpec {
  static constexpr uint32_t kMaxRegions = 1024;
  static constexpr uint32_t kMaxIndexedColumns = 256;
  // The indexed column names together: 256 names of 64 bytes.
  static constexpr uint64_t kMaxIndexedColumnBytes = 16 << 10;

  // "qualifier" or "ns:qualifier" (model/table_name.h: "default:t" is
  // "t"); the qualifier 1..255 of [A-Za-z0-9_.-], not '.' or '..'; unique.
  std::string name;
  // "family:qualifier", distinct, at most kMaxIndexedColumns of them and
  // kMaxIndexedColumnBytes together; may be empty (no index). Column ids are
  // assigned in this order from 1.
  std::vector<std::string> indexed_columns;
  // Row keys where regions start, strictly ascending, non-empty: N keys give
  // N + 1 regions. When empty, `region_count` regions split the first byte of
  // the key space evenly (as HBase's createTable with a region count); 0 =
  // one region per region server. Split keys and indexed column names
  // together at most RouterOptions::max_table_bytes.
  std::vector<std::string> split_keys;
  uint32_t region_count = 0;
  // Column families (HBase's TTableDescriptor.columns): distinct names
  // without ':', at most kMaxFamilies (256) of them and kMaxFamilyBytes
  // (16 KiB) together (model/table_attributes.h). Empty: the table accepts
  // any family (bloomroute's own tables, the import tool). When set, every
  // indexed column's family is among them, and data calls naming another
  // family are InvalidArgument.
  std::vector<std::string> families = {};
  // Table attributes, at most kMaxAttributes (256) and kMaxAttributeBytes
  // (64 KiB) of names and values, not counting "bloomroute.index": it names
  // indexed columns (ParseIndexAttribute, with the indexed columns' limits);
  // with `indexed_columns` also given, both must name the same columns in
  // the same order. The descriptor keeps the attribute as given (formatted
  // by FormatIndexAttribute); a table created without it has none
  // (WithIndexAttribute adds it for an HBase client's getTableDescriptor).
  // Attribute bytes (but for the index attribute's value, which repeats the
  // column names) count in RouterOptions::max_table_bytes.
  std::map<std::string, std::string> attributes = {};
};

struct TableInfo {
  TableDescriptor descriptor;
  // By start key. Their descriptors are those the region servers have:
  // without families and attributes.
  std::vector<RegionLocation> regions;
  bool enabled = true;  // see Router::DisableTable
};

// An index lookup: the AND of the equality predicates.
// An index lookup: the AND of `equals` and `where` (at least one predicate
// in all, every one on an indexed column; model/index_predicate.h maps each
// kind onto the region server's forms, and ValidateIndexPredicates bounds
// them). Routing: each equality and IN list narrows the servers asked to
// those the filters cannot rule out (an IN list: the union of its values'
// candidates; the conjunction: the intersection of the predicates'); ranges
// and prefixes are checked by the servers but cannot be routed, so a lookup
// with only ranges asks every server holding regions of the table
// (RoutingInfo::broadcast_reason says so). A range whose lower bound is not
// below its upper matches nothing (an empty answer, not an error).
struct LookupSpec {
  std::vector<EqualityPredicate> equals;  // indexed columns
  uint32_t limit = 0;                     // rows; 0 = kMaxRowsPerCall
  Projection columns;                     // empty = every column
  // A server that does not answer is listed in `missing` instead of failing
  // the lookup.
  bool allow_partial = false;
  // Ask every server holding regions of the table whatever the filters say
  // (to measure routing: the servers with rows are then the ground truth).
  bool broadcast = false;
  // Only rows whose key sorts after this one (LookupResult::resume_after of
  // an earlier answer, to continue it).
  std::optional<std::string> after_row;
  // LookupResult::next_page_token of an earlier answer to this query (same
  // table, predicates, columns and time range; the limit and max_bytes may
  // differ): continues after its resume row, as after_row would. Not with
  // after_row (InvalidArgument). A token that is not one of this router's
  // (forged, corrupted, longer than kMaxPageTokenBytes), of another query,
  // or stale (the table was created again, or an index the query uses was
  // declared again) is InvalidArgument saying which (router/page_token.h).
  std::optional<std::string> page_token;
  // Reply bytes, about; 0 = RouterOptions::max_reply_bytes, which also
  // applies when it is smaller.
  uint64_t max_bytes = 0;
  // Only cells in the range count (IndexQuery::time_range).
  TimeRange time_range = TimeRange();
  // More predicates, ANDed with `equals`.
  std::vector<IndexPredicate> where = {};
};

struct RoutingInfo {
  uint32_t servers_in_cluster = 0;
  std::vector<ServerRef> asked;  // ascending by id
  // The subset of `asked` asked only because their replica was not current.
  std::vector<ServerRef> asked_not_current;
  // Asked servers that returned rows, each counted before the merged answer
  // is cut to the limit: with broadcast, the servers holding matches.
  std::vector<ServerRef> with_rows;
  // Why every server of the table was asked, when the filters did not
  // choose them: "a range alone cannot be routed: asked every server of
  // the table", or "broadcast was asked for". Empty when routed.
  std::string broadcast_reason = {};
};

// Router::Count's answer: the exact number of rows matching the lookup
// (every routed server asked until its count was complete).
struct CountResult {
  uint64_t count = 0;
  bool partial = false;  // some servers did not answer (allow_partial)
  std::vector<ServerRef> missing;
  RoutingInfo routing;  // with_rows: the servers that counted some rows
};

struct LookupResult {
  // By row key, at most the limit: a prefix of the full answer, i.e. every
  // matching row up to the last one returned. A matching row with none of
  // the projected columns is there with no cells.
  std::vector<Row> rows;
  // More rows may match after the last one returned: the limit, a byte
  // budget (a server's or the router's) or a server's work bound stopped
  // the answer. resume_after is then the key up to which the answer is
  // complete: the last row's, or a later one when a server's work bound
  // stopped it (then possibly with no row). Pass it as LookupSpec::after_row
  // to continue exactly.
  bool truncated = false;
  std::optional<std::string> resume_after;
  // Set exactly when truncated: an opaque token (at most kMaxPageTokenBytes)
  // for LookupSpec::page_token that continues after resume_after. Paging
  // with it returns every row that matches throughout the paging exactly
  // once, in row-key order. A partial answer (allow_partial) has one too:
  // the rows of the missing servers before its resume row are then not
  // returned by the pages after it either.
  std::optional<std::string> next_page_token;
  bool partial = false;  // some servers did not answer (allow_partial)
  std::vector<ServerRef> missing;
  RoutingInfo routing;
};

// A key range to scan: [start_row, stop_row); empty = unbounded.
struct ScanSpec {
  std::string start_row;
  std::string stop_row;
  Projection columns;
  // HBase filter language (model/filter_language.h); empty = none. It runs
  // on each row after the projection (a column not selected is missing to
  // it, as in HBase). A filter that pins indexed columns (PlanFilter) is
  // answered from index lookups routed through the global index: only
  // servers the index cannot rule out are asked. Any other runs on the
  // region servers during the scan. Either way the rows, cells and order
  // are those of ApplyFilter over the projected rows of the range in key
  // order. PageFilter(n): at most n rows in a scanner's whole scan, in
  // one Scan answer (which then sets no resume_row).
  std::string filter{};  // braces: aggregate inits may omit it
  // Cells outside are not returned; a row left with none is skipped.
  TimeRange time_range = TimeRange();
  // The same rows of [start_row, stop_row) in descending key order, the
  // regions walked from the last (HBase's reversed scan, its bounds turned
  // into this range by the caller). A Scan answer's resume_row is then the
  // next stop_row. A filter is applied by the region servers even when it
  // pins an indexed column: the index answers candidates in ascending
  // order only, so a reversed scan reads the regions.
  bool reversed = false;
};

// Who makes a scanner call: a scanner belongs to the client that opened it
// (and, opened with a principal, to the principal: see OpenScanner) and is
// unknown (NotFound) to every other. A server gives each connection
// its own (NewScannerClient); kLocalScannerClient is the router's own
// process (tools, tests).
using ScannerClient = uint64_t;
inline constexpr ScannerClient kLocalScannerClient = 0;
// A client id never handed out before in this process (never 0).
ScannerClient NewScannerClient();

// The most mutations (or columns of an increment / append) one atomic row
// operation may carry: it travels as one region server batch.
inline constexpr size_t kMaxMutationsPerRowOperation = 1000;

class Router {
 public:
  // Opens (or creates) the catalog, makes the addresses of
  // options.region_servers that are not members yet members, connects to
  // every member at its stored address through `factory`, reopens the
  // catalog's regions and starts catching up replicas (it does not wait for
  // servers that do not answer). InvalidArgument for bad options, or when
  // there is no member at all; IOError / Corruption for the catalog.
  static StatusOr<std::unique_ptr<Router>> Open(
      const RouterOptions& options,
      std::shared_ptr<RegionClientFactory> factory);
  // As above, over `catalog` (router/catalog_store.h) in place of the
  // embedded catalog in options.data_dir: how a router shares its catalog
  // with other routers. InvalidArgument for a null catalog.
  static StatusOr<std::unique_ptr<Router>> Open(
      const RouterOptions& options,
      std::shared_ptr<RegionClientFactory> factory,
      std::unique_ptr<CatalogStore> catalog);
  virtual ~Router() = default;
  Router(const Router&) = delete;
  Router& operator=(const Router&) = delete;

  // Tables. CreateTable places the regions on the servers with the fewest
  // regions (ties by id), opens them and returns the table; InvalidArgument
  // for a bad spec, an existing name, or a table over the limits
  // (RouterOptions::max_tables, max_table_bytes; the message names them).
  // DeleteTable drops every region (its rows, index entries and filter
  // elements) and then the table; when a server does not answer, the table is
  // gone from listings at once and its regions are dropped in the background
  // (Unavailable is returned).
  virtual StatusOr<TableInfo> CreateTable(const TableSpec& spec) = 0;
  [[nodiscard]] virtual Status DeleteTable(std::string_view table) = 0;
  // Tables by name, enabled or not.
  virtual std::vector<TableDescriptor> ListTables() const = 0;
  virtual StatusOr<TableInfo> DescribeTable(std::string_view table) const = 0;

  // Table state, as HBase's enableTable / disableTable / isTableEnabled
  // (persisted in the catalog). A disabled table refuses Mutate, Get, Scan,
  // OpenScanner, ScannerNext (its open scanners fail on their next call),
  // Lookup, LookupMultiple and BulkLoad with InvalidArgument "table 'T' is
  // disabled" (HBase's TableNotEnabledException); it is still listed,
  // described and located, and its regions stay open on their servers.
  // DisableTable of a disabled table is InvalidArgument "table 'T' is not
  // enabled", EnableTable of an enabled one "table 'T' is not disabled"
  // (HBase's TableNotEnabledException / TableNotDisabledException). NotFound
  // for an unknown table.
  [[nodiscard]] virtual Status DisableTable(std::string_view table) = 0;
  [[nodiscard]] virtual Status EnableTable(std::string_view table) = 0;
  virtual StatusOr<bool> IsTableEnabled(std::string_view table) const = 0;
  // DeleteTable as HBase's deleteTable: InvalidArgument "table 'T' is not
  // disabled" unless the table is disabled (checked under the same lock as
  // the deletion). DeleteTable itself deletes enabled tables too
  // (bloomroute's own CLI).
  [[nodiscard]] virtual Status DeleteTableIfDisabled(
      std::string_view table) = 0;
  // HBase's truncateTable: removes every row of the table, with its index
  // entries, value counts and filter elements, keeping its name, id,
  // descriptor (families, attributes, indexed columns). The table must be
  // disabled (else InvalidArgument "table 'T' is not disabled") and is
  // enabled when this returns OK or Unavailable. With `preserve_splits` the
  // new regions have the old key ranges, without it the table has one
  // region; either way under new region ids. The catalog switches to the
  // new regions in one write, listing the old ones as retired; they are
  // dropped before returning, and when a server does not answer, by
  // maintenance once it does (Unavailable is returned; no old row is
  // served meanwhile: the catalog routes only to the new regions, which
  // that server opens when it answers again).
  [[nodiscard]] virtual Status TruncateTable(std::string_view table,
                                             bool preserve_splits) = 0;
  // HBase's modifyTable, online: `spec` is the table's whole new schema --
  // its families, attributes and indexed columns (the bloomroute.index
  // attribute, or indexed_columns) -- validated as CreateTable's (split
  // keys and region_count must be unset). The table stays enabled and
  // serving throughout. A column the schema no longer indexes is dropped
  // (DropIndex) and a new one added (AddIndex: the same online backfill,
  // Lookup refuses it as "building" until every region is done); a spec
  // without the attribute and without indexed_columns drops every index,
  // as HBase replaces the whole descriptor. A family the schema no longer
  // declares must hold no cell (InvalidArgument naming it and saying why:
  // the router does not delete a family's cells on the region servers;
  // delete them first, or truncate), and declaring families on a table
  // that declared none needs the table empty. Steps in order -- drops, the
  // families and attributes, adds -- each durable; a failure stops there
  // (what ran stands) and is returned. NotFound for an unknown table.
  [[nodiscard]] virtual Status ModifyTable(const TableSpec& spec) = 0;

  // Namespaces, as HBase's (model/table_name.h): a table lives in the
  // namespace its name starts with ("ns:t"; no ':' is `default`), and
  // CreateTable refuses a table in a namespace that does not exist
  // (NotFound naming NamespaceNotFoundException) or in `hbase`
  // (InvalidArgument). `default` and `hbase` always exist.
  //   CreateNamespace: InvalidArgument for a name that is not 1..128 of
  //     [A-Za-z0-9_] (HBase's isLegalNamespaceName), for one that exists
  //     (NamespaceExistException), or a configuration over the catalog's
  //     bounds (CatalogNamespace: 64 KiB each, 1 MiB and 1,024 namespaces
  //     in all).
  //   ModifyNamespace: replaces the configuration; NotFound when the
  //     namespace does not exist.
  //   DeleteNamespace: InvalidArgument for `default` or `hbase` ("Reserved
  //     namespace ... cannot be removed") and for a namespace holding
  //     tables ("Only empty namespaces can be removed. Namespace 'ns' has N
  //     tables", HBase's ConstraintException; tables still being deleted
  //     count); NotFound when it does not exist.
  //   GetNamespace: NotFound when it does not exist. ListNamespaces: every
  //     namespace by name, `default` and `hbase` included.
  //   ListTablesInNamespace: its tables as ListTables gives them; NotFound
  //     when the namespace does not exist (`hbase` lists none: bloomroute
  //     has no system tables).
  // Every change is one atomic, durable catalog write. The changes are the
  // coordinator's (another router refuses them).
  [[nodiscard]] virtual Status CreateNamespace(
      const NamespaceDescriptor& ns) = 0;
  [[nodiscard]] virtual Status ModifyNamespace(
      const NamespaceDescriptor& ns) = 0;
  [[nodiscard]] virtual Status DeleteNamespace(std::string_view name) = 0;
  virtual StatusOr<NamespaceDescriptor> GetNamespace(
      std::string_view name) const = 0;
  virtual std::vector<NamespaceDescriptor> ListNamespaces() const = 0;
  virtual StatusOr<std::vector<TableDescriptor>> ListTablesInNamespace(
      std::string_view name) const = 0;

  // The index lifecycle. AddIndex declares `column` ("family:qualifier")
  // indexed on a table that may hold rows, under a column id the table
  // never used, and returns once the build is recorded (synchronously, in
  // the catalog) and the region servers index new writes of the column
  // (a server that did not answer gets the column when it does: then
  // Unavailable is returned, and the build still goes on). Maintenance
  // backfills the existing rows region by region in the background,
  // resuming where it stopped after any restart; writes never wait for it.
  // Until every region is done, Lookup on the column is InvalidArgument
  // naming "building" and the progress, scans with a filter on it do not
  // use it, and describeTable / ListTables do not list it (IndexStatus
  // does). InvalidArgument for a bad name, a column already indexed or
  // building, a family the table does not declare, or a table over
  // TableSpec::kMaxIndexedColumns / kMaxIndexedColumnBytes; NotFound for
  // an unknown table.
  //
  // DropIndex removes `column` from the table's indexed columns at once
  // (Lookup on it is then "not indexed"; a build of it stops), and
  // maintenance then removes its index entries, value counts and filter
  // elements region by region. InvalidArgument for a column that is not
  // indexed (nor building); NotFound for an unknown table.
  //
  // IndexStatus: every indexed, building and dropping column of the table
  // (enabled or not), indexed ones in column id order, then drops.
  [[nodiscard]] virtual Status AddIndex(std::string_view table,
                                        const std::string& column) = 0;
  [[nodiscard]] virtual Status DropIndex(std::string_view table,
                                         const std::string& column) = 0;
  virtual StatusOr<std::vector<IndexState>> IndexStatus(
      std::string_view table) const = 0;

  // The region holding `row` (HBase's getRegionLocation), its descriptor as
  // in TableInfo::regions; enabled or disabled tables. NotFound for an
  // unknown table. All regions: DescribeTable (getAllRegionLocations).
  virtual StatusOr<RegionLocation> LocateRegion(std::string_view table,
                                                std::string_view row) const = 0;

  // Rows. `region_id` in the mutations and requests is ignored: the router
  // finds each row's region. At most kMaxRowsPerCall entries per call.
  [[nodiscard]] virtual Status Mutate(std::string_view table,
                                      std::vector<Mutation> mutations) = 0;

  // Atomic row operations, as HBase's (model/atomic_ops.h has the exact
  // rules). Each is ONE write to the row's region: applied all or nothing
  // under the row's lock, in the same batch as the row's index entries and
  // filter changes, and, like Mutate, acknowledged only after the router's
  // copy of the server's filter holds them, so a lookup issued after the call
  // returns sees the result. `row` is the row key; every mutation must name
  // it (InvalidArgument naming the other row otherwise); their region_id is
  // ignored. At least one and at most kMaxMutationsPerRowOperation mutations
  // or columns (InvalidArgument naming the limit). NotFound for an unknown
  // table; the region server's InvalidArgument (a bad column, a value over
  // its max_value_bytes, an increment of a cell that is not 8 bytes:
  // "Field is not a long, it's N bytes wide") with nothing written.
  //
  // Lost replies. The router resends a write only when the server refused it
  // without writing anything (a fence or a closed region). Any other failure
  // after the request left -- a timeout, a dropped connection -- is returned
  // to the caller (Unavailable / IOError) and NOT retried: the operation may
  // or may not have been applied, exactly once at most. For puts a client
  // may simply retry; for an increment or append a retry may apply it twice
  // (HBase's clients face the same choice), so read the row first.
  //
  // CheckAndMutate: applies `mutations` (puts and deletes, in order) iff
  // `condition` holds on the row; returns whether they were applied.
  // HBase's checkAndPut / checkAndDelete are this with one mutation.
  virtual StatusOr<bool> CheckAndMutate(std::string_view table,
                                        const std::string& row,
                                        const RowCondition& condition,
                                        std::vector<Mutation> mutations) = 0;
  // Adds each amount to its column's 8-byte big-endian long (missing = 0,
  // wrapping as Java longs); returns the row with the new cells, one per
  // entry, in order.
  virtual StatusOr<Row> Increment(std::string_view table,
                                  const std::string& row,
                                  std::vector<ColumnIncrement> increments) = 0;
  // Appends each cell's value to its column's value (missing = empty);
  // returns the row with the new cells, one per entry, in order.
  virtual StatusOr<Row> Append(std::string_view table, const std::string& row,
                               std::vector<Cell> cells) = 0;
  // Puts and deletes (and increments / appends) of one row, applied
  // atomically in order.
  [[nodiscard]] virtual Status MutateRow(std::string_view table,
                                         const std::string& row,
                                         std::vector<Mutation> mutations) = 0;
  // In request order; nullopt for a missing row. A prefix of the requests
  // (at least one) when the answer passed RouterOptions::max_reply_bytes:
  // it stops after the row that passed it; ask again for the rest.
  // Corruption naming the server when a region server's answer is not a
  // non-empty prefix of what it was asked. A request's filter (HBase filter
  // language) runs on the router on its projected row: a row it drops is
  // missing (nullopt); InvalidArgument naming the request for a bad one.
  virtual StatusOr<std::vector<std::optional<Row>>> Get(
      std::string_view table, std::vector<GetRequest> requests) = 0;
  // Up to `limit` rows (1..kMaxRowsPerCall) of the range in key order, across
  // regions, stopping after the row that passes RouterOptions::
  // max_reply_bytes; resume_row is set when rows may remain (it sorts after
  // every row returned and after spec.start_row; the answer may hold no
  // row when a region server's work bound stopped it). Corruption naming
  // the server for a region server reply out of order, outside the range
  // asked, or that does not move on. A filter (ScanSpec::filter) that does
  // not parse is InvalidArgument naming the position, an unsupported one
  // naming the filter, one over RouterOptions::max_filter_bytes naming
  // --max-filter-bytes; an index-planned answer may also hold fewer rows
  // than the limit with a resume_row (candidates the filter dropped).
  virtual StatusOr<ScanResult> Scan(std::string_view table,
                                    const ScanSpec& spec, uint32_t limit) = 0;

  // Scanners (HBase's openScanner / getScannerRows / closeScanner), each
  // owned by the client that opened it.
  //
  // OpenScanner returns the new scanner's id: 31 random bits (a positive
  // number that fits HBase's i32 scanner ids, drawn from the operating
  // system's random source), so an id tells nothing about another; ids of
  // open scanners are distinct, and an id comes back after its scanner
  // closed with probability 2^-31 per id.
  // Unavailable naming the limit when the client has
  // RouterOptions::max_scanners_per_client open, its `principal` (non-empty:
  // the authenticated user) max_scanners_per_principal, or all clients
  // together max_scanners; NotFound for an unknown table.
  //
  // ScannerNext returns up to `max_rows` (0..kMaxRowsPerCall) rows, fewer
  // once RouterOptions::call_work_budget_ms has passed with some in hand;
  // an empty answer to max_rows >= 1 means the scan is complete. max_rows
  // 0 answers no rows and moves nothing (HBase's ResultScanner.next(0));
  // it is still a call of the sequence below. `call_seq` numbers the calls of
  // one scanner as HBase's nextCallSeq does, so that a call repeated after a
  // lost reply does not skip rows: the first call is 1, each next call the
  // previous one plus 1; repeating the previous number restarts the batch
  // from where that call began and returns it again (as the range holds
  // now: a row written or deleted since may differ; no row is skipped).
  // Any other number is InvalidArgument naming the expected one (reopen the
  // scanner at the last row received to continue). call_seq 0 is
  // unsequenced: the next batch, with no way to repeat it (a lost reply
  // loses its rows).
  //
  // A scanner opened with a `principal` (non-empty: the authenticated
  // user) is the principal's: ScannerNext and CloseScanner with that
  // principal use it from any client (HBase's scanner ids are not tied to
  // a connection), and CloseScanners leaves it open (it closes or expires
  // after RouterOptions::scanner_idle_timeout_ms idle). One opened without
  // is its client's alone: a client with no principal has nothing but its
  // connection to show a scanner is its own. ScannerNext and CloseScanner
  // answer NotFound for an unknown, closed or expired scanner, or one the
  // caller may not use. CloseScanners closes the scanners a client opened
  // without a principal (its connection closed).
  virtual StatusOr<int64_t> OpenScanner(std::string_view table,
                                        const ScanSpec& spec,
                                        ScannerClient client,
                                        std::string_view principal) = 0;
  virtual StatusOr<std::vector<Row>> ScannerNext(
      int64_t scanner, uint32_t max_rows, uint64_t call_seq,
      ScannerClient client, std::string_view principal) = 0;
  [[nodiscard]] virtual Status CloseScanner(int64_t scanner,
                                            ScannerClient client,
                                            std::string_view principal) = 0;
  virtual void CloseScanners(ScannerClient client) = 0;
  // The table scanner `scanner` reads, whoever opened it; "" when no such
  // scanner is open. For a table's quota, which counts the calls on the
  // table's scanners too.
  virtual std::string ScannerTable(int64_t scanner) const = 0;
  // The same with no principal; for kLocalScannerClient, unsequenced.
  StatusOr<int64_t> OpenScanner(std::string_view table, const ScanSpec& spec,
                                ScannerClient client) {
    return OpenScanner(table, spec, client, "");
  }
  StatusOr<int64_t> OpenScanner(std::string_view table, const ScanSpec& spec) {
    return OpenScanner(table, spec, kLocalScannerClient, "");
  }
  StatusOr<std::vector<Row>> ScannerNext(int64_t scanner, uint32_t max_rows,
                                         uint64_t call_seq,
                                         ScannerClient client) {
    return ScannerNext(scanner, max_rows, call_seq, client, "");
  }
  StatusOr<std::vector<Row>> ScannerNext(int64_t scanner, uint32_t max_rows) {
    return ScannerNext(scanner, max_rows, 0, kLocalScannerClient, "");
  }
  [[nodiscard]] Status CloseScanner(int64_t scanner, ScannerClient client) {
    return CloseScanner(scanner, client, "");
  }
  [[nodiscard]] Status CloseScanner(int64_t scanner) {
    return CloseScanner(scanner, kLocalScannerClient, "");
  }

  // Index lookups; see LookupSpec. InvalidArgument for a predicate on a
  // column that is not indexed.
  virtual StatusOr<LookupResult> Lookup(std::string_view table,
                                        const LookupSpec& spec) = 0;
  // The number of rows the lookup matches, routed as Lookup is; no row is
  // shipped: each server counts (IndexQuery::count_only), asked again from
  // where it stopped until its count is complete. `limit`, `columns` and
  // `max_bytes` of the spec are ignored; `after_row` counts only the rows
  // after it.
  virtual StatusOr<CountResult> Count(std::string_view table,
                                      const LookupSpec& spec) = 0;
  // The lookups in order, sharing one RouterOptions::max_reply_bytes and
  // call_work_budget_ms: a prefix of `specs` (at least one answer for a
  // non-empty list) when either is spent, the last answer possibly
  // truncated by the bytes (its resume_after says where).
  // Each lookup pages on its own: its spec's page_token, its answer's
  // next_page_token. The first failing lookup (a bad token too) fails the
  // call.
  virtual StatusOr<std::vector<LookupResult>> LookupMultiple(
      std::string_view table, const std::vector<LookupSpec>& specs) = 0;

  // The replicas (stages, elements, fill, estimated FPR, memory, epoch, how
  // far behind), ascending by server id.
  virtual std::vector<ServerIndexStats> IndexStats() const = 0;
  // The filter config every region server gets (RouterOptions::filter and
  // the number of members at Open). Fixed for the router's life.
  virtual const SscbfConfig& filter_config() const = 0;
  // Index scrutiny for one table: asks every server holding regions of it,
  // in parallel, to check its rows against its index entries, value counts
  // and filter, and compares the router's replica of each server's filter
  // with the server's. A server that fails is reported (error), not fatal.
  // NotFound for an unknown table. Slow: each server reads all it stores.
  virtual StatusOr<VerifyReport> VerifyIndex(std::string_view table) = 0;

  // One maintenance pass in the caller's thread: reopens regions on servers
  // that came back, and on servers whose region list lacks regions the
  // catalog assigns them (closed by another caller, lost with a restart on
  // an empty directory: one listRegions call per server and pass), finishes
  // interrupted deletions, catches up every replica that is not current and
  // expires idle scanners. The background task (see
  // RouterOptions::background_maintenance) runs the same pass.
  virtual void RunMaintenance() = 0;

  // Asks every server for its status (in parallel) and reports the catalog.
  virtual ClusterStatus GetClusterStatus() = 0;
  // The cluster's id (router/cluster_id.h): a UUID string made once and kept
  // in the catalog (CatalogStore::ClusterId), read when the router opened;
  // the same for every router of the cluster and across restarts.
  virtual std::string ClusterId() const = 0;
  virtual std::vector<ServerRef> Servers() const = 0;
  // What the router is doing now and last saw of its servers (in memory:
  // contacts no server). Empty by default for routers that keep nothing.
  virtual RouterActivity Activity() const { return {}; }
  // What is where (`bloomroute admin`). Every server, ascending by id, with
  // its regions, rows and bytes: each is asked for its region statistics
  // (in parallel; RegionClient::GetRegionStats, which counts rows by a
  // scan: about as slow as reading them). A server that fails is reported
  // (reachable false, error), not fatal.
  virtual std::vector<ServerSummary> ListServers() = 0;
  // The regions of `table`, in key order, with their server, serving state,
  // rows and bytes (the servers holding them asked in parallel). NotFound
  // for an unknown table; a server that fails leaves its regions
  // kUnreachable.
  virtual StatusOr<std::vector<RegionSummary>> ListRegions(
      std::string_view table) = 0;

  // Region operations (router/coordinator/region_ops.cc has how they work).
  // Each copies the rows of the old regions into new ones (new ids) while the
  // old ones keep serving, carries over the writes made meanwhile, then
  // switches the table to the new regions in one catalog write while writes
  // to the old regions wait, and drops the old ones once the reads that
  // started before the switch have ended. No lookup, get or scan misses a
  // row or sees one twice; no acknowledged write is lost. The operation is
  // recorded in the catalog before any server acts on it: after a crash of
  // the router (or a server) it is finished when it had switched and undone
  // otherwise, by maintenance. One operation runs at a time (Unavailable
  // "another region operation is running" otherwise); a table with an
  // index build or drop under way refuses them (InvalidArgument), and
  // DeleteTable, TruncateTable, AddIndex and DropIndex of a table refuse
  // while one runs on it. NotFound for an unknown region; Unavailable
  // naming the server when a server failed (the operation was undone).
  //
  // MoveRegion: region `region_id` to member `to` (InvalidArgument when it
  // is already there or `to` is unknown).
  virtual StatusOr<RegionOpResult> MoveRegion(uint64_t region_id,
                                              ServerId to) = 0;
  // SplitRegion: two regions at `split_key` (strictly inside the region),
  // or at the region's median row key (RegionClient::SplitPoint) when none
  // is given; both on the region's server. InvalidArgument for a key
  // outside the region, or a region with fewer than 2 rows and no key.
  virtual StatusOr<RegionOpResult> SplitRegion(
      uint64_t region_id, const std::optional<std::string>& split_key) = 0;
  // MergeRegions: two adjacent regions of one table (in either order) into
  // one on the server of the first in key order.
  virtual StatusOr<RegionOpResult> MergeRegions(uint64_t region_a,
                                                uint64_t region_b) = 0;
  // One run of the balancer, one operation at a time, at most
  // `max_operations` of them (0: RouterOptions::balancer_max_operations):
  // first every region past its split size (RouterOptions::
  // region_split_bytes) is split at its median, then regions move from the
  // server with the most regions to the one with the fewest until their
  // counts differ by at most one; of the regions it could move, the one
  // whose bytes best even the two servers' bytes goes. Asks every server
  // for its region statistics (which count rows by a scan: slow on large
  // regions). A run that finds a server unreachable makes no move
  // (stopped says so). Unavailable while another region operation runs.
  virtual StatusOr<BalanceReport> Balance(uint32_t max_operations) = 0;

  // Bulk import: loads a bulk file (regionstore/bulk_file.h), given as its
  // bytes, into region `region_id` of the table (DescribeTable gives the
  // regions and their key ranges). The region server applies the file's rows
  // as puts, atomically, with the result Mutate of them would give; the
  // router applies the filter ops the load produced to the server's replica
  // before returning, so a lookup that starts afterwards sees every row
  // (read-your-writes, as Mutate; when the load made more ops than one
  // reply carries, the replica is instead not current until caught up, and
  // lookups ask the server meanwhile). NotFound for an unknown table, or
  // from the server for a region it does not have open (it is being
  // reopened); InvalidArgument for an empty file, a region that is not the
  // table's, or a file the server refuses (nothing written); Unavailable
  // naming the server when it did not answer (the load may or may not have
  // happened; loading the same file again gives the same rows).
  [[nodiscard]] virtual Status BulkLoad(std::string_view table,
                                        uint64_t region_id,
                                        const std::string& file) = 0;

  // Membership. Servers are known by id; ids are never reused. Each change
  // is written to the catalog (one synchronous write) before it takes
  // effect, and survives a restart: a restarted router connects every
  // member at its stored address, with or without its region_servers flag.
  //
  // AddServer makes `address` a member: persisted first, then connected;
  // the router sets the cluster's filter config on it and maintenance loads
  // its replica (lookups ask it meanwhile). New tables place regions on it;
  // no region moves to it. A server that does not answer yet is still added
  // (no Unavailable: it is retried as any server that is down). The filter
  // config stays the one computed at Open: a member count that crosses a
  // power of two (router/cluster_filter_config.h) takes effect at the next
  // start. Returns the member (the existing one for a member's address).
  // InvalidArgument for an empty address or one over 300 bytes, past
  // RouterOptions::kMaxServers members, or when the factory refuses it
  // (nothing is then kept).
  virtual StatusOr<ServerRef> AddServer(const std::string& address) = 0;
  // Re-points member `id` to `address` (a server that came back on another
  // address): persisted first, then calls go to a new client (calls under
  // way finish on the old one), the server's regions are opened on it again
  // and its replica is reloaded (maintenance retries when it does not
  // answer; OK is returned then too). NotFound for an id that is not a
  // member; InvalidArgument for a bad address or another member's.
  [[nodiscard]] virtual Status SetServerAddress(ServerId id,
                                                const std::string& address) = 0;
  // Forgets member `id`, which must hold no region of any table (counting
  // regions retired by a truncation and tables still being deleted):
  // InvalidArgument naming how many it holds otherwise. From then on it is
  // not placed on, asked or listed (Servers, ListServers, IndexStats); its
  // address may become a member again, under a new id (a region_servers
  // flag naming it at the next start does that too). NotFound for an id
  // that is not a member.
  [[nodiscard]] virtual Status RemoveServer(ServerId id) = 0;
  // Drains member `id` and forgets it (`bloomroute admin decommission`):
  // marks it draining (new tables and the balancer place nothing on it),
  // moves its regions one at a time (MoveRegion) to the member with the
  // fewest regions that is not draining, then RemoveServer. Returns the
  // moves made. The first move that fails stops it (the error, with the
  // moves made so far; the server stays a member and is no longer
  // draining: run it again). The draining mark lives in memory: after a
  // router restart, run it again (the regions moved stay moved).
  // NotFound for an id that is not a member; InvalidArgument when no other
  // member could take its regions.
  virtual StatusOr<std::vector<BalanceReport::Step>> DecommissionServer(
      ServerId id) = 0;

  // Quotas (router/quota.h; `bloomroute admin quota`). SetQuota stores
  // `quota` in place of the user's quota on the same table (persisted
  // synchronously in the catalog before it returns), or removes that quota
  // when `quota` sets no limit (OK when there was none); the router's
  // server applies it from its next call. InvalidArgument as
  // ValidateQuota, or past Quota::kMaxQuotas. Quotas: those in force, by
  // user then table, as a snapshot that a change replaces (so a caller can
  // tell a change by the pointer); never null.
  [[nodiscard]] virtual Status SetQuota(const Quota& quota) = 0;
  // A region server's push of the filter ops it committed (model/op_push.h),
  // from the transport that received it: applied to that server's replica
  // (router/op_subscriber.h, OnPush); OK tells the server the router holds
  // them. InvalidArgument when the router subscribes to nothing
  // (RouterOptions::op_push_address empty); NotFound for a push naming no
  // server of this router.
  [[nodiscard]] virtual Status ApplyOpPush(const OpPush& push);
  virtual std::shared_ptr<const std::vector<Quota>> Quotas() const = 0;

  // Grants (router/grant.h; HBase's grant / revoke). ChangeGrant applies
  // `change` of `grant` (made by MakeGrant) in the catalog, durably, before
  // it returns; the router's server applies it from the next call. Any
  // router may change them: the catalog store serializes the changes.
  // InvalidArgument as WithGrantChange (kMaxGrants, kMaxListBytes).
  // Grants: those in force, in GrantOrder, as a snapshot that a change
  // replaces; never null.
  [[nodiscard]] virtual Status ChangeGrant(const Grant& grant,
                                           GrantChange change) = 0;
  virtual std::shared_ptr<const std::vector<Grant>> Grants() const = 0;

 protected:
  Router() = default;
};

}  // namespace bloomroute::router

#endif  // BLOOMROUTE_ROUTER_ROUTER_H_
