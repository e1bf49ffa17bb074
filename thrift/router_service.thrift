// RouterService: the client API of bloomroute, served by the router on one
// port. It is three services, each extending the one before, by audience:
//
// 1. THBaseService (hbase_service.thrift): HBase 2.x's Thrift2 API, for
//    HBase data clients; its header states the conventions of all three
//    (tables, cells, errors, requiredness, enums, numbers, limits).
// 2. IndexService (index_service.thrift): bloomroute's index calls, for its
//    data clients.
// 3. RouterService (here): bloomroute's admin calls, for operators (the
//    `bloomroute admin` commands): the global index and cluster status,
//    servers and regions, membership, region operations and the balancer,
//    quotas, and index scrutiny.
//
// A client generated from this file speaks all three; one generated from
// hbase_service.thrift (or HBase's own hbase.thrift) or index_service.thrift
// speaks its part. The wire does not name the service, only the method.

include "errors.thrift"
include "index_service.thrift"

namespace cpp bloomroute.rpc.client
namespace py bloomroute.rpc.router_service

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
  1: index_service.TServerRef server
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
  1: index_service.TServerRef server
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
  1: index_service.TServerRef server
  2: bool reachable           // it answered its region statistics just now
  3: optional string error    // why not, when not reachable
  4: i32 regions              // regions the catalog places on it
  5: i32 regionsNotServed     // of those, not open on it right now
  6: i64 rows                 // exact, over those regions (0: unreachable)
  7: i64 bytes                // approximate: rows and local index entries
  8: bool replicaCurrent
  // In a ZooKeeper cluster: whether the server holds its liveness node
  // (runs with --zookeeper; getClusterMembers); unset otherwise.
  9: optional bool live
}

// The live members of a ZooKeeper cluster (getClusterMembers; bloomroute
// admin routers): routers in election order, and region servers started
// with --zookeeper (coord/cluster_members.h).
struct TRouterMember {
  1: string address
  2: bool serving   // the elected router: it serves and coordinates
  3: i32 routerId   // its fence-token id; 0: none claimed yet (a standby)
  4: i64 epoch      // its candidacy's sequence number
}

struct TLiveRegionServer {
  1: string address
  2: string registered  // "incarnation=<hex> started=<unix ms>"
}

struct TClusterMembers {
  1: list<TRouterMember> routers
  2: list<TLiveRegionServer> liveRegionServers
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
  4: index_service.TServerRef server
  // A TRegionServing, declared i32 (see "Enums" in hbase_service.thrift):
  // a generated client would otherwise hold any i32 a router sends in the
  // enum type.
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
  // The new regions, by start key.
  1: list<index_service.TRegionLocation> regions
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
  // A TBalanceStepKind, declared i32 (see "Enums" in hbase_service.thrift):
  // a generated client would otherwise hold any i32 a router sends in the
  // enum type.
  1: i32 kind
  2: i64 regionId        // the region split or moved
  3: index_service.TServerRef source
  4: index_service.TServerRef target   // the region's own server for a split
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
  1: index_service.TServerRef server
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

service RouterService extends index_service.IndexService {
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
  // The cluster's live routers and region servers as ZooKeeper holds them
  // (bloomroute admin routers). TIllegalArgument from a router that keeps
  // its catalog alone (--data): it has no such members; TIOError
  // "Unavailable: ..." when ZooKeeper does not answer.
  TClusterMembers getClusterMembers()
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
  index_service.TServerRef addServer(1: string address)
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

  // Index scrutiny: every region server holding regions of the table checks,
  // from scratch, its rows against its index entries, value counts and
  // filter, and the router compares its copy of each server's filter with
  // the server's. Slow (each server reads everything it stores, holding its
  // writes off meanwhile). A server that fails is reported in its entry;
  // TIllegalArgument for an unknown table.
  TVerifyReport verifyIndex(1: string table)
      throws (1: errors.TIOError io, 2: errors.TIllegalArgument ia)
}
