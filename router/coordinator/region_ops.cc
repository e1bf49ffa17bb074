// How a region moves, splits and merges (the copy of rows is in
// region_copy.cc). All three are one mechanism: the
// rows of the old regions (the sources) are copied into new regions (the
// targets, new ids) while the sources keep serving, then the table switches
// to the targets. Only the targets' placement differs: a move puts one on
// another server, a split two on the source's server, a merge one on the
// first source's server.
//
// The steps, each safe to crash in (the catalog says how far it got):
//   1. Record. The operation goes into the table's catalog record
//      (kCopying) before any server hears of it.
//   2. Stage. Each target opens on its server as a staged region: it takes
//      the writes that name it and answers reads that name it, but is no
//      part of "every region of the table" and may overlap a serving region
//      (a split's daughters overlap their parent). No read names it yet.
//   3. Copy. Once every write that routed before step 1 has ended (their
//      table states let go) and the sources' servers' fences are raised
//      past every write to them whose reply was lost (FenceSources), the
//      sources' rows are copied in key order as bulk files: the source's
//      server exports a range (ExportRows), the target loads it (BulkLoad,
//      sent as a write), every cell with its timestamp. Each target
//      server's filter gains the values, and the router's replica with it
//      (read-your-writes), so a lookup that starts after the switch is
//      routed there. A row crosses the router as file bytes, not a Thrift
//      struct per cell: the copy went from about 21,000 to 51,000 rows/s
//      (BM_MoveRegion, 100,000 rows, every party on one 2-core machine).
//   4. Catch up. Writes to the sources go on during the copy. Each holds
//      the operation's gate shared while it routes and writes, and notes
//      its rows; each round copies the noted rows again (read from the
//      source, written whole: a missing row is deleted), until a round has
//      few rows left.
//   5. Switch. With the gate held exclusive -- new writes to the sources
//      wait, and those in flight have ended -- the last noted rows are
//      copied, the targets' servers sync their WALs (the catch-up rounds
//      were ordinary writes, unsynced on a server without --sync; the bulk
//      files of step 3 are durable once ingested), and ONE catalog write
//      gives the table the targets (the operation kSwitched). Waiting
//      writes then route again, to the
//      targets. The pause is the last round plus that write: it grows with
//      the writes of one round, not with the region's size. The catalog
//      lock is waited for at most kSwitchLockWait with the gate closed
//      (another DDL may hold it across slow server calls); then the gate
//      opens, another round runs, and the switch is tried again. A switch
//      write that fails may or may not be on disk: the gate stays closed
//      and maintenance writes it again (ResolveSwitchInDoubt); a restart
//      decides from the disk, which is right either way since no write to
//      the sources was acknowledged after the last copy.
//   6. Drop. Reads that started before the switch may still name the
//      sources: they hold a table state of the old generation, and the
//      sources are dropped once the last of those has ended, after the
//      targets' WALs are synced again (for an operation that maintenance
//      finishes after a restart). Dropping them
//      removes from the source server's filter the values whose last row
//      left it (the replica catches up). Then the targets are promoted to
//      serving regions and the operation is forgotten.
// A failure before the switch undoes the operation (the targets are
// dropped); after it, the operation is finished. Maintenance does either
// for an operation in the catalog that no caller is running (a router that
// restarted, a server that did not answer).
//
// Why a copy, not a split in place: a region's rows are keyed by its id in
// the store (regionstore/internal/keys.h), so a daughter's rows must be
// rewritten anyway; the copy makes the three operations one, and the pause
// does not depend on the region's size. The cost is a split that reads and
// writes the region once, where HBase's reference files cost nothing until
// compaction.
#include "router/coordinator/region_ops.h"

#include <algorithm>
#include <chrono>
#include <deque>
#include <future>
#include <memory>
#include <thread>
#include <utility>

#include "common/sync_point.h"
#include "model/table_attributes.h"

namespace bloomroute::router_internal {

using router::RegionOpResult;

namespace {

// Catch-up rounds before the switch, at most; a round with at most
// kSwitchRows rows noted ends them sooner. The switch copies what is left.
constexpr uint32_t kMaxCatchUpRounds = 16;
constexpr size_t kSwitchRows = 1000;
// The switch needs the catalog lock (RouterContext::ddl_mu) for its write,
// which another DDL may hold across server calls (a table being deleted). It
// waits this long for it with the gate closed; then it opens the gate, runs
// another round and tries again, up to kSwitchLockAttempts times: writes wait
// at most this long for the lock, never for the other DDL.
constexpr auto kSwitchLockWait = std::chrono::milliseconds(200);
constexpr int kSwitchLockAttempts = 300;  // a minute of waiting in all
// How long the drop waits for reads that started before the switch; past
// it, such a read gets NotFound from the dropped region (an error, never a
// wrong answer). A read is bounded by the servers' work bounds and the
// client timeouts, far below this.
constexpr auto kReadGraceLimit = std::chrono::seconds(60);
uint64_t MicrosSince(std::chrono::steady_clock::time_point start) {
  return static_cast<uint64_t>(
      std::chrono::duration_cast<std::chrono::microseconds>(
          std::chrono::steady_clock::now() - start)
          .count());
}

// The ready table holding region `region_id` in `tables`, and the region's
// index in it.
StatusOr<std::pair<CatalogTable, size_t>> FindRegionIn(
    const CatalogStore::TableList& tables, uint64_t region_id) {
  for (const CatalogTable& t : tables) {
    if (t.state != CatalogTable::State::kReady) continue;
    for (size_t i = 0; i < t.regions.size(); ++i) {
      if (t.regions[i].region_id == region_id) return std::make_pair(t, i);
    }
  }
  return Status::NotFound("region " + std::to_string(region_id) +
                          " is not a region of any table");
}

}  // namespace

Status CheckNoRegionOp(const CatalogTable& table) {
  if (table.region_ops.empty()) return Status::OK();
  return Status::Unavailable("a region operation is in flight on table '" +
                             table.descriptor.name +
                             "'; try again when it has ended");
}

// ---- the operations ----

StatusOr<std::pair<CatalogTable, size_t>> RegionOps::FindRegion(
    uint64_t region_id) const {
  return FindRegionIn(*ctx_.catalog->Tables(), region_id);
}

StatusOr<RegionOpResult> RegionOps::MoveRegion(uint64_t region_id,
                                               ServerId to) {
  return RunRegionOp(
      false, [&]() -> StatusOr<PlannedOp> { return PlanMove(region_id, to); });
}

StatusOr<RegionOps::PlannedOp> RegionOps::PlanMove(uint64_t region_id,
                                                   ServerId to) {
  BLOOMROUTE_ASSIGN_OR_RETURN(auto found, FindRegion(region_id));
  const CatalogRegion& source = found.first.regions[found.second];
  if (source.server == to) {
    return Status::InvalidArgument("region " + std::to_string(region_id) +
                                   " is already on server " +
                                   std::to_string(to));
  }
  CatalogRegionOp op;
  op.kind = CatalogRegionOp::Kind::kMove;
  op.sources = {source};
  CatalogRegion target = source;
  target.region_id = ctx_.catalog->NextRegionId();
  target.server = to;
  op.targets = {target};
  return PlannedOp{found.first.descriptor.table_id, std::move(op)};
}

StatusOr<RegionOpResult> RegionOps::SplitRegion(
    uint64_t region_id, const std::optional<std::string>& split_key) {
  return RunRegionOp(false, [&]() -> StatusOr<PlannedOp> {
    return PlanSplit(region_id, split_key);
  });
}

StatusOr<RegionOps::PlannedOp> RegionOps::PlanSplit(
    uint64_t region_id, const std::optional<std::string>& split_key) {
  BLOOMROUTE_ASSIGN_OR_RETURN(auto found, FindRegion(region_id));
  const CatalogRegion source = found.first.regions[found.second];
  std::string at;
  if (split_key) {
    at = *split_key;
  } else {
    const ServerEntry& server = ctx_.servers->Get(source.server);
    StatusOr<std::optional<std::string>> point =
        server.client->SplitPoint(region_id);
    if (!point.ok()) return WritePath::Named(server, point.status());
    if (!point->has_value()) {
      return Status::InvalidArgument(
          "region " + std::to_string(region_id) +
          " holds fewer than 2 rows: give the row to split at");
    }
    at = **point;
  }
  if (at.empty() || at.size() > kMaxRowKeyBytes || at <= source.start_key ||
      (!source.end_key.empty() && at >= source.end_key)) {
    return Status::InvalidArgument(
        "the split row " + QuoteForMessage(at) + " is not inside region " +
        std::to_string(region_id) + " [" + QuoteForMessage(source.start_key) +
        ", " + QuoteForMessage(source.end_key) +
        ") (it must sort after the region's start and before its end)");
  }
  CatalogRegionOp op;
  op.kind = CatalogRegionOp::Kind::kSplit;
  op.sources = {source};
  op.targets = {
      {ctx_.catalog->NextRegionId(), source.start_key, at, source.server},
      {ctx_.catalog->NextRegionId(), at, source.end_key, source.server}};
  return PlannedOp{found.first.descriptor.table_id, std::move(op)};
}

StatusOr<RegionOpResult> RegionOps::MergeRegions(uint64_t region_a,
                                                 uint64_t region_b) {
  return RunRegionOp(false, [&]() -> StatusOr<PlannedOp> {
    return PlanMerge(region_a, region_b);
  });
}

StatusOr<RegionOps::PlannedOp> RegionOps::PlanMerge(uint64_t region_a,
                                                    uint64_t region_b) {
  // One snapshot for both: another operation may change the table between
  // two looks.
  const std::shared_ptr<const CatalogStore::TableList> tables =
      ctx_.catalog->Tables();
  BLOOMROUTE_ASSIGN_OR_RETURN(auto a, FindRegionIn(*tables, region_a));
  BLOOMROUTE_ASSIGN_OR_RETURN(auto b, FindRegionIn(*tables, region_b));
  if (a.first.descriptor.table_id != b.first.descriptor.table_id) {
    return Status::InvalidArgument("regions " + std::to_string(region_a) +
                                   " and " + std::to_string(region_b) +
                                   " are of different tables");
  }
  const size_t first = std::min(a.second, b.second);
  const size_t second = std::max(a.second, b.second);
  if (second != first + 1) {
    return Status::InvalidArgument("regions " + std::to_string(region_a) +
                                   " and " + std::to_string(region_b) +
                                   " are not adjacent");
  }
  const CatalogRegion& low = a.first.regions[first];
  const CatalogRegion& high = a.first.regions[second];
  CatalogRegionOp op;
  op.kind = CatalogRegionOp::Kind::kMerge;
  op.sources = {low, high};
  op.targets = {
      {ctx_.catalog->NextRegionId(), low.start_key, high.end_key, low.server}};
  return PlannedOp{a.first.descriptor.table_id, std::move(op)};
}

StatusOr<RegionOpResult> RegionOps::RunSplit(uint64_t region_id) {
  return RunRegionOp(true, [&]() -> StatusOr<PlannedOp> {
    return PlanSplit(region_id, std::nullopt);
  });
}

StatusOr<RegionOpResult> RegionOps::RunMove(uint64_t region_id, ServerId to) {
  return RunRegionOp(
      true, [&]() -> StatusOr<PlannedOp> { return PlanMove(region_id, to); });
}

namespace {

const char* KindName(CatalogRegionOp::Kind kind) {
  switch (kind) {
    case CatalogRegionOp::Kind::kMove:
      return "move";
    case CatalogRegionOp::Kind::kSplit:
      return "split";
    case CatalogRegionOp::Kind::kMerge:
      return "merge";
  }
  return "?";
}

// A region operation shown in RouterMetrics while RunRegionOp runs it.
class RunningRegionOp {
 public:
  RunningRegionOp(RouterMetrics* metrics, const CatalogRegionOp& op)
      : metrics_(metrics),
        id_(metrics->BeginOp(
            KindName(op.kind),
            op.sources.empty() ? 0 : op.sources.front().region_id)) {}
  ~RunningRegionOp() { metrics_->EndOp(id_); }
  RunningRegionOp(const RunningRegionOp&) = delete;
  RunningRegionOp& operator=(const RunningRegionOp&) = delete;
  void Phase(const char* phase) { metrics_->SetPhase(id_, phase); }

 private:
  RouterMetrics* const metrics_;
  const uint64_t id_;
};

}  // namespace

StatusOr<RegionOpResult> RegionOps::RunRegionOp(
    bool wait, const std::function<StatusOr<PlannedOp>()>& plan) {
  std::unique_lock<std::mutex> running;
  BLOOMROUTE_RETURN_IF_ERROR(LockRegionOps(wait, &running));
  BLOOMROUTE_RETURN_IF_ERROR(ctx_.coordinator->CheckCoordinating());
  // Planned under region_ops_mu_: no other operation changes the regions
  // between the plan and its record.
  BLOOMROUTE_ASSIGN_OR_RETURN(PlannedOp planned, plan());
  const uint64_t table_id = planned.table_id;
  CatalogRegionOp& op = planned.op;
  const auto start = std::chrono::steady_clock::now();
  RunningRegionOp running_op(ctx_.metrics, op);
  auto state = std::make_shared<ReshapeState>();
  state->table_id = table_id;
  state->sources = op.sources;
  // Writes see the operation from here on; those that routed before hold a
  // table state of the generation `before_start`.
  std::weak_ptr<const int> before_start;
  BLOOMROUTE_RETURN_IF_ERROR(StartRegionOp(table_id, op, state, &before_start));
  // From here on the operation is in the catalog: a failure undoes it.
  RegionOpResult result;
  std::weak_ptr<const int> before;
  bool in_doubt = false;
  const Status s = CopyAndSwitch(
      table_id, &op, *state, before_start,
      [&](const char* phase) { running_op.Phase(phase); }, &result, &before,
      &in_doubt);
  result.switched_micros = MicrosSince(start);
  if (in_doubt) {
    // The gate stays closed and the operation running: no write to the
    // sources is acknowledged until maintenance has written the switch.
    state->op = op;
    ctx_.wake();
    return s.WithContext(
        "the switch of the region operation may not be recorded: writes to "
        "its regions wait until the router's maintenance has recorded it");
  }
  ctx_.tables->SetRunning(nullptr);
  if (!s.ok() && ctx_.coordinator->deposed()) {
    // What it started is the new coordinator's to finish or undo.
    return s.WithContext(
        "this router no longer coordinates; the region operation is left, "
        "not undone, to the router that does");
  }
  if (!s.ok()) {
    running_op.Phase("undoing");
    const Status undone = FinishRegionOp(table_id, op);
    return s.WithContext(undone.ok() ? "the region operation was undone"
                                     : "the region operation is undone by "
                                       "maintenance once the servers answer");
  }
  running_op.Phase("dropping sources");
  DropSwitchedSources(table_id, op, before, &result);
  result.total_micros = MicrosSince(start);
  return result;
}

Status RegionOps::LockRegionOps(bool wait,
                                std::unique_lock<std::mutex>* running) {
  *running = std::unique_lock<std::mutex>(region_ops_mu_, std::defer_lock);
  if (wait) {
    running->lock();
  } else if (!running->try_lock()) {
    return Status::Unavailable(
        "another region operation is running; try again when it has ended");
  }
  if (ctx_.tables->Running() != nullptr) {
    return Status::Unavailable(
        "the switch of a region operation could not be recorded in the "
        "router's catalog; maintenance retries it (writes to its regions "
        "wait meanwhile): try again when it has");
  }
  return Status::OK();
}

Status RegionOps::StartRegionOp(uint64_t table_id, const CatalogRegionOp& op,
                                const std::shared_ptr<ReshapeState>& state,
                                std::weak_ptr<const int>* before_start) {
  ctx_.tables->SetRunning(state);
  const Status s = RecordRegionOp(table_id, op, before_start);
  if (!s.ok()) ctx_.tables->SetRunning(nullptr);
  return s;
}

Status RegionOps::CopyAndSwitch(uint64_t table_id, CatalogRegionOp* op,
                                ReshapeState& state,
                                const std::weak_ptr<const int>& before_start,
                                const std::function<void(const char*)>& phase,
                                RegionOpResult* result,
                                std::weak_ptr<const int>* before,
                                bool* in_doubt) {
  phase("opening targets");
  Status s = copy_.OpenTargets(table_id, *op);
  // Every write that may not have seen the operation has ended once its
  // table state is let go: the copy reads what they wrote, and none of
  // those that went in doubt can still commit once the fences are raised.
  if (s.ok()) s = WaitForGeneration(before_start);
  if (s.ok()) s = copy_.FenceSources(*op);
  if (s.ok()) phase("copying");
  if (s.ok()) s = copy_.CopyRegionRows(*op, result);
  if (s.ok()) {
    phase("switching");
    s = CatchUpAndSwitch(table_id, op, state, result, before, in_doubt);
  }
  return s;
}

void RegionOps::DropSwitchedSources(uint64_t table_id,
                                    const CatalogRegionOp& op,
                                    const std::weak_ptr<const int>& before,
                                    RegionOpResult* result) {
  // Reads that may name the sources hold a table state of the generation
  // before the switch. Past the limit the drop goes ahead: such a read
  // then fails (NotFound from the dropped region), it never answers wrong.
  (void)WaitForGeneration(before);
  // The switch stands; a failure here is finished by maintenance.
  if (!FinishRegionOp(table_id, op).ok()) ctx_.wake();
  CatalogTable table;
  const std::shared_ptr<const CatalogStore::TableList> tables =
      ctx_.catalog->Tables();
  for (const CatalogTable& t : *tables) {
    if (t.descriptor.table_id == table_id) table = t;
  }
  for (const CatalogRegion& t : op.targets) {
    result->regions.push_back(
        {DescriptorOf(table, t), ctx_.servers->Get(t.server).ref});
  }
}

Status RegionOps::CatchUpAndSwitch(uint64_t table_id, CatalogRegionOp* op,
                                   ReshapeState& state, RegionOpResult* result,
                                   std::weak_ptr<const int>* before,
                                   bool* in_doubt) {
  size_t noted = kSwitchRows + 1;
  Status s;
  while (s.ok() && noted > kSwitchRows &&
         result->catch_up_rounds < kMaxCatchUpRounds) {
    s = copy_.CopyWrittenRows(*op, state, result, &noted);
  }
  for (int attempt = 1; s.ok(); ++attempt) {
    const auto pause = std::chrono::steady_clock::now();
    state.gate.Close();
    BLOOMROUTE_SYNC_POINT("RunRegionOp:GateClosed");
    s = copy_.CopyWrittenRows(*op, state, result, &noted);
    std::unique_lock<std::timed_mutex> ddl(*ctx_.ddl_mu, std::defer_lock);
    if (s.ok() && !ddl.try_lock_for(kSwitchLockWait)) {
      // Another DDL holds the catalog: let the writes go on meanwhile.
      state.gate.Open();
      result->switch_micros =
          std::max(result->switch_micros, MicrosSince(pause));
      if (attempt == kSwitchLockAttempts) {
        return Status::Unavailable(
            "the router's catalog stayed busy with other table changes; "
            "try again");
      }
      s = copy_.CopyWrittenRows(*op, state, result, &noted);
      continue;
    }
    // The catch-up rounds wrote the targets as ordinary writes: on a server
    // without --sync they sit in the WAL's unsynced tail until synced here,
    // before the switch makes the targets the only copy that takes writes.
    // One fsync per target server while writes wait (about a millisecond).
    if (s.ok()) s = copy_.SyncTargets(*op);
    if (s.ok()) {
      BLOOMROUTE_SYNC_POINT("RunRegionOp:Switching");
      s = SwitchRegionOpLocked(table_id, op, before);
      if (s.ok()) {
        state.switched = true;
      } else if (!s.IsAborted()) {
        // The write failed; whether it is on disk is not known.
        state.switch_in_doubt = true;
        *in_doubt = true;
      }
    }
    if (!*in_doubt) state.gate.Open();
    result->switch_micros = std::max(result->switch_micros, MicrosSince(pause));
    return s;
  }
  return s;
}

Status RegionOps::WaitForGeneration(const std::weak_ptr<const int>& old) {
  const auto deadline = std::chrono::steady_clock::now() + kReadGraceLimit;
  while (!old.expired()) {
    if (std::chrono::steady_clock::now() > deadline) {
      return Status::Unavailable(
          "calls that started before the region operation did not end "
          "within 60 s");
    }
    std::this_thread::sleep_for(std::chrono::microseconds(200));
  }
  return Status::OK();
}

Status RegionOps::PutTableNewGeneration(const CatalogTable& table,
                                        std::weak_ptr<const int>* before) {
  BLOOMROUTE_RETURN_IF_ERROR(ctx_.catalog->PutTable(table));
  *before = ctx_.tables->Generation(table.descriptor.name);
  ctx_.PublishTables(table.descriptor.table_id);
  return Status::OK();
}

Status RegionOps::RecordRegionOp(uint64_t table_id, const CatalogRegionOp& op,
                                 std::weak_ptr<const int>* before) {
  std::lock_guard<std::timed_mutex> lock(*ctx_.ddl_mu);
  const std::shared_ptr<const CatalogStore::TableList> tables =
      ctx_.catalog->Tables();
  auto it = std::find_if(tables->begin(), tables->end(), [&](const auto& t) {
    return t.descriptor.table_id == table_id &&
           t.state == CatalogTable::State::kReady;
  });
  if (it == tables->end()) {
    return Status::NotFound("the table of the region no longer exists");
  }
  CatalogTable table = *it;
  if (!table.index_tasks.empty()) {
    return Status::InvalidArgument(
        "table '" + table.descriptor.name +
        "' has an index build or drop under way; region operations wait "
        "for it to end (bloomroute index status)");
  }
  BLOOMROUTE_RETURN_IF_ERROR(CheckNoRegionOp(table));
  // Another operation, or a truncation, may have replaced the sources since
  // the caller looked.
  for (const CatalogRegion& source : op.sources) {
    if (std::find(table.regions.begin(), table.regions.end(), source) ==
        table.regions.end()) {
      return Status::Unavailable("region " + std::to_string(source.region_id) +
                                 " changed meanwhile; try again");
    }
  }
  BLOOMROUTE_RETURN_IF_ERROR(CheckTargetServers(op));
  if (op.kind == CatalogRegionOp::Kind::kSplit) {
    // A split adds a region and a split key: the bounds CreateTable keeps.
    uint64_t key_bytes = op.targets.back().start_key.size();
    for (const CatalogRegion& r : table.regions)
      key_bytes += r.start_key.size();
    if (table.regions.size() + 1 > router::TableSpec::kMaxRegions ||
        key_bytes > ctx_.options->max_table_bytes) {
      return Status::InvalidArgument(
          "table '" + table.descriptor.name + "' has " +
          std::to_string(table.regions.size()) +
          " regions; a split would pass the limit of " +
          std::to_string(router::TableSpec::kMaxRegions) +
          " regions or of --max-table-bytes for its split keys");
    }
  }
  table.region_ops = {op};
  return PutTableNewGeneration(table, before);
}

Status RegionOps::CheckTargetServers(const CatalogRegionOp& op) const {
  // Membership changes take ddl_mu too: a member checked under it stays
  // one until the operation has ended, since RemoveServer counts its
  // regions.
  const std::shared_ptr<const ServerMap> members = ctx_.servers->Snapshot();
  for (const CatalogRegion& target : op.targets) {
    const bool moves = target.server != op.sources.front().server;
    if (members->count(target.server) == 0) {
      return Status::InvalidArgument("server " + std::to_string(target.server) +
                                     " is not a member of the cluster");
    }
    if (moves && ctx_.servers->Draining(target.server)) {
      return Status::InvalidArgument(
          "server " + std::to_string(target.server) +
          " is being decommissioned: no region moves to it");
    }
  }
  return Status::OK();
}

Status RegionOps::SwitchRegionOpLocked(uint64_t table_id, CatalogRegionOp* op,
                                       std::weak_ptr<const int>* before) {
  const std::shared_ptr<const CatalogStore::TableList> tables =
      ctx_.catalog->Tables();
  auto it = std::find_if(tables->begin(), tables->end(), [&](const auto& t) {
    return t.descriptor.table_id == table_id;
  });
  if (it == tables->end() || it->region_ops.size() != 1 ||
      !(it->region_ops[0] == *op)) {
    return Status::Aborted("the region operation left the catalog");
  }
  CatalogTable table = *it;
  std::vector<CatalogRegion> regions;
  for (const CatalogRegion& r : table.regions) {
    if (r == op->sources.front()) {
      regions.insert(regions.end(), op->targets.begin(), op->targets.end());
    } else if (std::find(op->sources.begin(), op->sources.end(), r) ==
               op->sources.end()) {
      regions.push_back(r);
    }
  }
  table.regions = std::move(regions);
  CatalogRegionOp switched = *op;
  switched.state = CatalogRegionOp::State::kSwitched;
  table.region_ops = {switched};
  // Only once written: a failed write leaves the caller's op copying.
  BLOOMROUTE_RETURN_IF_ERROR(PutTableNewGeneration(table, before));
  *op = std::move(switched);
  return Status::OK();
}

Status RegionOps::FinishRegionOp(uint64_t table_id, const CatalogRegionOp& op) {
  const bool switched = op.state == CatalogRegionOp::State::kSwitched;
  // The sources go only once the targets' copy is durable (synced at the
  // switch already; again here for an operation a restarted router
  // finishes): a source dropped before would leave the rows in the
  // targets' unsynced tail alone.
  if (switched) BLOOMROUTE_RETURN_IF_ERROR(copy_.SyncTargets(op));
  // Undo: the targets go. Finish: the sources go, then the targets serve.
  for (const CatalogRegion& r : switched ? op.sources : op.targets) {
    const ServerEntry& server = ctx_.servers->Get(r.server);
    const Status s =
        server.client->DropRegion(r.region_id, ctx_.coordinator_epoch());
    if (!s.ok() && !s.IsNotFound())
      return ctx_.write_path->ServerFailed(server, s);
    // The drop removed elements without handing us the ops.
    (void)ctx_.index->MarkStale(server.ref.id);
  }
  ctx_.wake();
  std::lock_guard<std::timed_mutex> lock(*ctx_.ddl_mu);
  const std::shared_ptr<const CatalogStore::TableList> tables =
      ctx_.catalog->Tables();
  auto it = std::find_if(tables->begin(), tables->end(), [&](const auto& t) {
    return t.descriptor.table_id == table_id;
  });
  if (it == tables->end()) return Status::OK();
  if (switched) {
    for (const CatalogRegion& r : op.targets) {
      const ServerEntry& server = ctx_.servers->Get(r.server);
      const Status s = server.client->OpenRegion(
          DescriptorOf(*it, r), server.opened_incarnation.load(),
          ctx_.coordinator_epoch());
      if (!s.ok()) return ctx_.write_path->ServerFailed(server, s);
    }
  }
  CatalogTable table = *it;
  table.region_ops.clear();
  BLOOMROUTE_RETURN_IF_ERROR(ctx_.catalog->PutTable(table));
  ctx_.PublishTables();
  return Status::OK();
}

void RegionOps::ResolveSwitchInDoubt() {
  const std::shared_ptr<ReshapeState> state = ctx_.tables->Running();
  if (state == nullptr || !state->switch_in_doubt) return;
  std::weak_ptr<const int> before;
  CatalogRegionOp op = state->op;
  {
    std::lock_guard<std::timed_mutex> lock(*ctx_.ddl_mu);
    // Written again whatever the disk holds: either record was right until
    // now (no write to the sources was acknowledged since the last copy),
    // and from here on the switch is.
    if (!SwitchRegionOpLocked(state->table_id, &op, &before).ok()) return;
  }
  state->switched = true;
  state->switch_in_doubt = false;
  state->gate.Open();
  ctx_.tables->SetRunning(nullptr);
  // MaintainRegionOps finishes it (it is kSwitched in the catalog now) once
  // the reads of before the switch have ended.
  (void)WaitForGeneration(before);
}

void RegionOps::MaintainRegionOps() {
  std::unique_lock<std::mutex> running(region_ops_mu_, std::try_to_lock);
  if (!running.owns_lock()) return;         // its caller finishes or undoes it
  if (ctx_.coordinator->deposed()) return;  // the coordinator's to finish
  ResolveSwitchInDoubt();
  const std::shared_ptr<ReshapeState> in_doubt = ctx_.tables->Running();
  const std::shared_ptr<const CatalogStore::TableList> tables =
      ctx_.catalog->Tables();
  for (const CatalogTable& t : *tables) {
    if (t.region_ops.empty()) continue;
    // Still in doubt: neither finished nor undone until written again.
    if (in_doubt != nullptr && in_doubt->table_id == t.descriptor.table_id) {
      continue;
    }
    (void)FinishRegionOp(t.descriptor.table_id, t.region_ops.front());
  }
}

}  // namespace bloomroute::router_internal
