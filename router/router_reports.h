// What the router reports: where a region is (ServerRef, RegionLocation),
// the state of its servers and replicas (GetClusterStatus, IndexStats,
// ListServers, ListRegions), what a region operation or a balancer run did,
// index verification and index states. Split from router/router.h, which
// includes it; the contracts of the calls are there.
#ifndef BLOOMROUTE_ROUTER_ROUTER_REPORTS_H_
#define BLOOMROUTE_ROUTER_ROUTER_REPORTS_H_

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "index/sscbf_config.h"
#include "model/index_report.h"
#include "model/rows.h"
#include "router/server_id.h"

namespace bloomroute::router {

// One server's replica in the router's global index (GlobalIndex::Stats).
struct ReplicaStats {
  ServerId server = 0;
  bool loaded = false;       // a filter was ever loaded
  bool current = false;      // see the header comment
  uint64_t incarnation = 0;  // of the loaded filter; 0 when none
  uint64_t epoch = 0;        // of the loaded filter; 0 when none
  uint64_t seq = 0;          // the last op the replica holds
  // The newest (epoch, seq) a write reported for the server; when it is ahead
  // of (epoch, seq), the replica is behind by that much.
  uint64_t reported_epoch = 0;
  uint64_t reported_seq = 0;
  // Bytes fetched to catch the replica up since the router started: the
  // ops (their encoded size) and the snapshots' images.
  uint64_t catch_up_bytes = 0;
  // Stages, elements, fill and estimated FPR of the replica's bits (planes
  // are 0). memory_bytes is the server's share of the router's routing
  // memory: its column's bits plus an equal share of what no one column
  // owns (the padding of columns to 64 servers, stages no server uses now,
  // the bookkeeping); the shares of all servers sum to MemoryBytes().
  SscbfStats filter;
};

// How a replica compares with its server's filter (GlobalIndex::Compare).
enum class ReplicaAgreement {
  kMatches,     // current, at the server's (epoch, seq), the same filter
  kNotCurrent,  // not current, or at another (incarnation, epoch, seq):
                // lookups ask the server anyway and a catch-up will fix it;
                // not an error
  kDiffers,     // current and at the server's (epoch, seq), yet another
                // filter: lookups may wrongly skip the server
};

struct ReplicaComparison {
  ReplicaAgreement agreement = ReplicaAgreement::kNotCurrent;
  std::string detail;  // why, for a person: "replica at 2/40, server at 2/41"
};

struct ServerRef {
  ServerId id = 0;
  std::string address;
  friend bool operator==(const ServerRef& a, const ServerRef& b) {
    return a.id == b.id && a.address == b.address;
  }
};

struct RegionLocation {
  RegionDescriptor region;
  ServerRef server;
};

struct ServerIndexStats {
  ServerRef server;
  ReplicaStats replica;
  // Ops the replica lacks that writes already reported (same epoch), or 0.
  uint64_t ops_behind = 0;
  // The cluster's filter config (the same for every server): the options'
  // target of false routes per lookup F, and the config derived from it,
  // whose target_fpr is the per-server P.
  double target_false_routes = 0;
  SscbfConfig cluster_config;
  // The router set the cluster config on this run of the server (or saw
  // that it had it); until then lookups ask the server.
  bool has_cluster_config = false;
};

struct ServerStatus {
  ServerRef server;
  bool reachable = false;  // it answered a status call just now
  std::string error;       // why not, when not reachable
  uint32_t regions = 0;    // regions the catalog places on it
  bool replica_current = false;
  // Of those, the ones it does not serve right now (asked when reachable):
  // closed by someone else or lost with a restart; maintenance reopens them.
  uint32_t regions_not_served = 0;
  // Why the last reopening of its regions failed; empty once one succeeded.
  std::string reopen_error;
};

struct ClusterStatus {
  std::vector<ServerStatus> servers;  // ascending by id
  uint32_t tables = 0;
  uint32_t regions = 0;
};

// One region server as `bloomroute admin servers` shows it
// (Router::ListServers).
struct ServerSummary {
  ServerRef server;
  bool reachable = false;  // it answered its region statistics just now
  std::string error;       // why not, when not reachable
  uint32_t regions = 0;    // regions of ready tables the catalog places on it
  // Of those, the ones it does not serve right now (asked when reachable).
  uint32_t regions_not_served = 0;
  // Over those regions, as the server reported them (RegionStats): rows
  // exact, bytes (rows and local index entries) approximate. 0 when not
  // reachable.
  uint64_t rows = 0;
  uint64_t bytes = 0;
  bool replica_current = false;  // the router's copy of its filter
  // In a ZooKeeper cluster: whether the server holds its liveness node
  // (it runs with --zookeeper: coord/cluster_members.h); unset otherwise.
  std::optional<bool> live;
};

// Whether a region is being served (RegionSummary::serving).
enum class RegionServing {
  kOpen = 0,         // its server has it open
  kNotServed = 1,    // its server answered without it open (maintenance
                     // reopens it)
  kUnreachable = 2,  // its server did not answer: unknown
  // A region operation's new region, open staged on its server: it takes
  // writes and answers reads that name it, and serves fully once the old
  // regions are dropped (coordinator/region_ops.cc).
  kStaged = 3,
};
// "open", "not served", "unreachable", "staged".
const char* RegionServingName(RegionServing serving);

// One region of a table as `bloomroute admin regions` shows it
// (Router::ListRegions).
struct RegionSummary {
  uint64_t region_id = 0;
  std::string start_key;  // inclusive; empty: from the first row
  std::string end_key;    // exclusive; empty: to the last row
  ServerRef server;
  RegionServing serving = RegionServing::kUnreachable;
  // As its server reported them (0 when unreachable): rows exact, bytes
  // approximate.
  uint64_t rows = 0;
  uint64_t row_bytes = 0;
  uint64_t index_bytes = 0;
  // Why the balancer skips the region (its last split or move failed:
  // that error), and in how many seconds it is tried again; empty and 0
  // when it is not skipped.
  std::string balancer_skipped;
  uint64_t balancer_retry_seconds = 0;
};

// What a region operation (Router::MoveRegion, SplitRegion, MergeRegions)
// did.
struct RegionOpResult {
  std::vector<RegionLocation> regions;  // the new regions, by start key
  // Rows written to the new regions: the first copy, then the rows written
  // to the old ones meanwhile, copied again (catch_up_rounds rounds, the
  // last one while writes waited).
  uint64_t rows_copied = 0;
  // Bytes of the first copy's bulk files, then ReplyBytes of the rows
  // copied again.
  uint64_t bytes_copied = 0;
  uint32_t catch_up_rounds = 0;
  // How long writes to the old regions waited at the switch: the last
  // catch-up and one catalog write. It grows with the rows written during
  // the copy's last round, not with the region's size.
  uint64_t switch_micros = 0;
  // From the start to the switch: when the new regions took the table's
  // reads and writes (the copy, the catch-up rounds and the switch).
  uint64_t switched_micros = 0;
  // The whole operation: the above, then the drop of the old regions
  // (which deletes their rows on their servers).
  uint64_t total_micros = 0;
};

// What the router is doing and last saw, for operators (Router::Activity):
// its status page and readiness.
struct RouterActivity {
  struct RegionOp {
    std::string kind;        // "move", "split", "merge"
    std::string phase;       // "opening targets", "copying", "switching", ...
    uint64_t region_id = 0;  // the (first) source region
    double age_seconds = 0;
  };
  struct ServerProbe {
    ServerRef server;
    bool up = false;
    std::string error;       // why not, when not up
    double age_seconds = 0;  // since the probe
  };
  std::vector<RegionOp> region_ops;  // running now
  // The last probe of each member (maintenance probes every few seconds);
  // a member not probed yet is absent.
  std::vector<ServerProbe> probes;
  uint64_t balancer_runs = 0;
  // The last run's splits and moves and failures, and how long ago it
  // ended; none before the first run.
  std::optional<uint32_t> last_balance_splits;
  uint32_t last_balance_moves = 0;
  std::vector<std::string> last_balance_failures;
  double last_balance_age_seconds = 0;
};

// What one run of the balancer did (Router::Balance).
struct BalanceReport {
  struct Step {
    enum class Kind { kSplit, kMove } kind = Kind::kMove;
    uint64_t region_id = 0;  // the region split or moved
    ServerRef from;
    ServerRef to;  // the region's server for a split
    RegionOpResult result;
  };
  std::vector<Step> steps;  // in the order made
  // The operations of this run that failed, one line each ("splitting
  // region 5 failed: ...; skipped for 60 s"). A region whose operation
  // fails for a reason of its own (not Unavailable) is skipped by the
  // balancer for a backoff that doubles with each failure
  // (RegionBackoff::kFirst to kMost,
  // router/coordinator/region_backoff.h), and the run goes on with the others:
  // one region that cannot split stops neither the splits of other regions
  // nor the moves. An Unavailable failure (a server, another operation)
  // stops the run.
  std::vector<std::string> failures;
  // Afterwards, no region passes its split size and the servers' region
  // counts differ by at most one, leaving aside the regions skipped after
  // a failure (Router::ListRegions says which, and why).
  bool balanced = false;
  // Why the run stopped before that: the operation limit, a server that
  // did not answer, or the only regions left to move being skipped. Empty
  // when balanced.
  std::string stopped;
  // An operation failed (see failures) or a server did not answer.
  bool failed = false;
};

// One region server's part of Router::VerifyIndex.
struct ServerVerifyReport {
  ServerRef server;
  uint32_t regions = 0;  // regions of the table the catalog places on it
  // Why the server's check or filter could not be had ("region server
  // 127.0.0.1:9092: ..."); empty when it answered. The rest is empty then.
  std::string error;
  // The server's own check (RegionClient::VerifyIndex), for the table's rows,
  // index entries and values; filter_matches_rebuild is server-wide.
  IndexReport index;
  // The router's replica of the server's filter against the server's filter.
  ReplicaComparison replica;
  bool ok() const {
    return error.empty() && index.ok() &&
           replica.agreement != ReplicaAgreement::kDiffers;
  }
};

struct VerifyReport {
  TableDescriptor table;
  std::vector<ServerVerifyReport> servers;  // holding regions; ascending by id
  bool ok() const {
    for (const ServerVerifyReport& s : servers) {
      if (!s.ok()) return false;
    }
    return true;
  }
};

// One indexed column of a table and where its index stands
// (Router::IndexStatus).
struct IndexState {
  enum class State { kReady, kBuilding, kDropping };
  std::string column;
  uint32_t column_id = 0;
  State state = State::kReady;
  // Building: regions backfilled; dropping: regions whose entries are
  // gone; ready: every region.
  uint32_t regions_done = 0;
  uint32_t regions_total = 0;
  // Building: index entries the backfill added (rows that had none);
  // dropping: entries removed so far; ready: 0.
  uint64_t rows = 0;
  friend bool operator==(const IndexState& a, const IndexState& b) {
    return a.column == b.column && a.column_id == b.column_id &&
           a.state == b.state && a.regions_done == b.regions_done &&
           a.regions_total == b.regions_total && a.rows == b.rows;
  }
};
// "ready", "building" or "dropping".
const char* IndexStateName(IndexState::State state);

}  // namespace bloomroute::router

#endif  // BLOOMROUTE_ROUTER_ROUTER_REPORTS_H_
