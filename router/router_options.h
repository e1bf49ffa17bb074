// RouterOptions: what a router is opened with (Router::Open, router/router.h)
// and the bounds Validate holds each field to.
//
// Each numeric field's bounds are a FieldRange constant beside it (kXRange);
// Validate checks the fields against them, and `bloomroute router` takes its
// flags' bounds and --help from the same constants
// (tools/router_command.cc), so a bound is stated once.
#ifndef BLOOMROUTE_ROUTER_ROUTER_OPTIONS_H_
#define BLOOMROUTE_ROUTER_ROUTER_OPTIONS_H_

#include <cstdint>
#include <limits>
#include <string>
#include <vector>

#include "common/status.h"
#include "model/rows.h"
#include "router/cluster_filter_config.h"

namespace bloomroute::router {

// The values a numeric field accepts: [min, max], and 0 as well when
// `zero_allowed` (the field's "off"). kNoUpperBound as max: no upper bound.
struct FieldRange {
  static constexpr int64_t kNoUpperBound = std::numeric_limits<int64_t>::max();
  int64_t min;
  int64_t max;
  bool zero_allowed = false;
};

struct RouterOptions {
  static constexpr uint32_t kMaxServers = 4096;
  static constexpr uint32_t kMaxFanoutThreads = 1024;
  static constexpr uint64_t kMaxReplyBytes = 1 << 30;

  // The embedded catalog's RocksDB, created when missing (Router::Open
  // without a CatalogStore refuses an empty one); unused with a store.
  std::string data_dir;
  // This run's coordinator epoch (its start count in the catalog) is at
  // least this (0: none). For a router whose catalog was wiped or restored
  // from an old copy while region servers saw a higher epoch, which refuse
  // it (regionstore/region_store.h, "Coordinator epochs"): set it above the
  // epoch their refusal names, once sure that no other router coordinates.
  // Below 2^24 (a router's fence tokens are the epoch times 2^24 in 48
  // bits, model/op_push.h).
  static constexpr FieldRange kMinCoordinatorEpochRange{0,
                                                        (int64_t{1} << 24) - 1};
  uint64_t min_coordinator_epoch = 0;
  // Region server addresses, "host:port", no duplicates: those that are not
  // members of the catalog yet become members (Router::AddServer). May be
  // empty when the catalog has members.
  std::vector<std::string> region_servers;
  // Threads asking region servers in parallel (lookups, multi-server writes),
  // besides the calling thread.
  static constexpr FieldRange kFanoutThreadsRange{0, kMaxFanoutThreads};
  uint32_t fanout_threads = 16;
  // Calls one request may have in flight on one region server at once, in
  // [1, kMaxFanoutThreads]; its further calls to that server wait for these.
  // (A getMultiple of 17,000 keys on one server is 17 calls of 1,000 gets:
  // unbounded, one request would take as many of the server's connections
  // and workers as there are fan-out threads.)
  static constexpr FieldRange kServerCallsPerRequestRange{1, kMaxFanoutThreads};
  uint32_t server_calls_per_request = 4;
  // How often the background task retries unreachable servers, reopens
  // regions a server no longer serves, catches up replicas that are not
  // current and finishes interrupted deletions.
  static constexpr FieldRange kMaintenanceIntervalMsRange{10, 3600000};
  int maintenance_interval_ms = 1000;
  // Run that task on a thread of its own. Off, maintenance happens only when
  // the owner calls Router::RunMaintenance (deterministic fault tests drive
  // it so); replicas that are not current then stay so until it is called.
  bool background_maintenance = true;
  // The router's id in its write fence tokens (model/op_push.h): region
  // servers keep a fence per router id. 1 for the one embedded router;
  // with many routers each has its own (from the coordination service).
  static constexpr FieldRange kRouterIdRange{1, 65535};
  uint32_t router_id = 1;
  // Op subscriptions (many routers; router/op_subscriber.h): where region
  // servers push this router the ops they commit ("host:port" of its push
  // service, or a name an in-process transport knows). Empty (the default:
  // one router) subscribes to nothing; replicas stay current from the
  // router's own writes, and a write costs what it did. Set, every
  // maintenance pass renews the leases due (a third of op_lease_ms old), so
  // maintenance_interval_ms must stay well below op_lease_ms / 3.
  std::string op_push_address;
  // The lease asked for (L, ms), within the region servers' bounds
  // (OpSubscribeRequest::kMinLeaseMs, kMaxLeaseMs).
  static constexpr FieldRange kOpLeaseMsRange{100, 600000};
  uint32_t op_lease_ms = 10000;
  // Open scanners at once, of all clients, of one client (ScannerClient:
  // one connection of the router's server) and of one principal (a TLS
  // client's certificate name or token user, over all its connections), and
  // how long an unused one lives. Each open scanner holds its key range and
  // position (no rows). A client may open min(max_scanners_per_client,
  // max_scanners_per_principal, max_scanners). The per-principal bound
  // keeps one user from taking every scanner with many connections; it
  // is half of max_scanners by default. Callers without a principal (no
  // TLS, the router's own process) share no principal and are bounded per
  // client only. Each of the three in kScannersRange; the idle time at
  // least a second.
  static constexpr FieldRange kScannersRange{1, 1000000};
  static constexpr FieldRange kScannerIdleTimeoutMsRange{
      1000, FieldRange::kNoUpperBound};
  uint32_t max_scanners = 1000;
  uint32_t max_scanners_per_client = 100;
  uint32_t max_scanners_per_principal = 500;
  int scanner_idle_timeout_ms = 60000;
  // Bytes of rows (ReplyBytes, model/rows.h) in one answer of Get, Scan,
  // ScannerNext, Lookup and LookupMultiple, about: an answer stops after
  // the row that passes it and says where it stopped. The default keeps a
  // reply (this, plus one row of at most a region server's max_row_bytes,
  // 16 MiB, plus the encoding) within a client's 64 MiB frame limit.
  static constexpr FieldRange kMaxReplyBytesRange{1, kMaxReplyBytes};
  uint64_t max_reply_bytes = 32 << 20;
  // Time one call may work before it answers with what it has, in ms: a
  // scanner batch or a scan that has rows returns them (fewer than asked;
  // the scan goes on), and LookupMultiple answers a prefix of its lookups
  // (at least one). A batch with no row yet goes on until it finds one or
  // the scan ends, since an empty batch ends an HBase scan.
  static constexpr FieldRange kCallWorkBudgetMsRange{1, 3600000};
  int call_work_budget_ms = 1000;

  // Bounds on the catalog, chosen so that listTables and describeTable
  // replies fit the 64 MiB default frame of every client:
  // listTables holds per table at most 255 bytes of name and
  // TableSpec::kMaxIndexedColumnBytes (16 KiB) of column names plus about
  // 15 bytes of encoding per column (256 columns), ~21 KiB: 3,000 tables are
  // ~60 MiB. describeTable holds each split key twice (the end of a region
  // and the start of the next), the column names once and ~350 bytes per
  // region (its id and server address): with 16 MiB of split keys and 1,024
  // regions that is ~33 MiB.
  static constexpr uint32_t kMaxTablesLimit = 3000;
  static constexpr uint64_t kMinTableBytes = 64 << 10;
  static constexpr uint64_t kMaxTableBytes = 16 << 20;
  // Tables in the catalog (counting those still being deleted), in
  // [1, kMaxTablesLimit]; CreateTable beyond it is InvalidArgument naming
  // --max-tables.
  static constexpr FieldRange kMaxTablesRange{1, kMaxTablesLimit};
  uint32_t max_tables = 1000;
  // Bytes of split keys and indexed column names of one table, in
  // [kMinTableBytes, kMaxTableBytes]; a spec over it is InvalidArgument
  // naming --max-table-bytes.
  static constexpr FieldRange kMaxTableBytesRange{kMinTableBytes,
                                                  kMaxTableBytes};
  uint64_t max_table_bytes = 1 << 20;
  // Bytes of one filter string (ScanSpec::filter, GetRequest::filter), in
  // [1, kMaxFilterTextBytes]; a longer one is InvalidArgument naming
  // --max-filter-bytes. Parsing is linear in it, and a scanner keeps its
  // parsed filter while open.
  static constexpr FieldRange kMaxFilterBytesRange{1, kMaxFilterTextBytes};
  uint64_t max_filter_bytes = 64 << 10;
  // Bytes of the descriptors of all tables together (names, indexed column
  // names plus 16 bytes of encoding each, families, attributes): what a
  // listing of every table's descriptor (HBase's getTableDescriptors)
  // holds. Families (16 KiB) and attributes (64 KiB) of 3,000 tables could
  // pass a 64 MiB frame; CreateTable past this bound is InvalidArgument
  // naming it. In [kMinTableBytes, kMaxListedDescriptorBytes].
  static constexpr uint64_t kMaxListedDescriptorBytes = 48 << 20;
  static constexpr FieldRange kMaxListedDescriptorBytesRange{
      kMinTableBytes, kMaxListedDescriptorBytes};
  uint64_t max_listed_descriptor_bytes = kMaxListedDescriptorBytes;

  // Index builds and drops (Router::AddIndex / DropIndex): rows (or index
  // entries) one backfill (or drop) call of a region server handles, in
  // [1, kMaxRowsPerCall] (a region server handles at most its
  // max_mutations_per_batch of them), and such calls one maintenance pass
  // makes, >= 1, before it lets other maintenance run (it then goes on at
  // once). The calls go in rounds, one to each server with a region left,
  // at once; each round costs one synchronous catalog write (its progress).
  static constexpr FieldRange kIndexChunkRowsRange{1, kMaxRowsPerCall};
  static constexpr FieldRange kIndexChunksPerPassRange{
      1, FieldRange::kNoUpperBound};
  uint32_t index_chunk_rows = 1000;
  uint32_t index_chunks_per_pass = 200;

  // The balancer (Router::Balance, router/coordinator/balancing.cc): how
  // often the background runs it (0: never; `bloomroute admin balance` runs it
  // on demand), in ms, at most kMaxBalancerIntervalMs; and the region
  // operations one run makes at most, in [1, kMaxBalancerOperations].
  static constexpr int kMaxBalancerIntervalMs = 7 * 24 * 3600 * 1000;
  static constexpr uint32_t kMaxBalancerOperations = 1000;
  static constexpr FieldRange kBalancerIntervalMsRange{0,
                                                       kMaxBalancerIntervalMs};
  static constexpr FieldRange kBalancerMaxOperationsRange{
      1, kMaxBalancerOperations};
  int balancer_interval_ms = 300000;  // HBase's hbase.balancer.period
  uint32_t balancer_max_operations = 10;
  // A region whose rows and local index entries pass this many bytes
  // (RocksDB's estimate) is split at its median by the balancer; 0: never.
  // The first split of a table on a server comes sooner: a table with one
  // region on a server splits it at min(this, kFirstSplitBytes), as HBase's
  // SteppingSplitPolicy splits at twice the flush size, so that a new
  // table spreads before it is large. At least kMinRegionSplitBytes.
  static constexpr uint64_t kFirstSplitBytes = 256 << 20;
  static constexpr uint64_t kMinRegionSplitBytes = 1 << 20;
  static constexpr FieldRange kRegionSplitBytesRange{
      kMinRegionSplitBytes, FieldRange::kNoUpperBound, true};
  uint64_t region_split_bytes = 1ULL << 30;
  // How often the background checks for regions past region_split_bytes
  // and splits them, in ms (0: only when the balancer runs), whether or not
  // the balancer runs; at most kMaxBalancerIntervalMs. A check asks each
  // server for its regions' byte estimates (no row is read).
  static constexpr FieldRange kSplitCheckIntervalMsRange{
      0, kMaxBalancerIntervalMs};
  int split_check_interval_ms = 60000;

  // The cluster's filter config (router/cluster_filter_config.h): every
  // region server's filter gets ClusterFilterConfig(filter,
  // members at Open), set by the router before it first loads the
  // server's replica and again after the server restarted or showed another
  // config.
  ClusterFilterOptions filter;

  // InvalidArgument naming the first bad field.
  Status Validate() const;
};

}  // namespace bloomroute::router

#endif  // BLOOMROUTE_ROUTER_ROUTER_OPTIONS_H_
