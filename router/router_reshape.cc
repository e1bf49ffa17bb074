// How a region moves, splits and merges. All three are one mechanism: the
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
//   3. Copy. The sources are scanned in key order and their rows written to
//      the targets (puts that keep each cell's timestamp), through the
//      write path: each target server's filter gains the values, and the
//      router's replica with it (read-your-writes), so a lookup that
//      starts after the switch is routed there.
//   4. Catch up. Writes to the sources go on during the copy. Each holds
//      the operation's gate shared while it routes and writes, and notes
//      its rows; each round copies the noted rows again (read from the
//      source, written whole: a missing row is deleted), until a round has
//      few rows left.
//   5. Switch. With the gate held exclusive -- new writes to the sources
//      wait, and those in flight have ended -- the last noted rows are
//      copied, and ONE catalog write gives the table the targets (the
//      operation kSwitched). Waiting writes then route again, to the
//      targets. The pause is the last round plus that write: it grows with
//      the writes of one round, not with the region's size.
//   6. Drop. Reads that started before the switch may still name the
//      sources: they hold a table state of the old generation, and the
//      sources are dropped once the last of those has ended. Dropping them
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
#include <algorithm>
#include <chrono>
#include <thread>
#include <utility>

#include "model/table_attributes.h"
#include "router/internal/router_impl.h"

namespace bloomroute::router_internal {

using router::RegionOpResult;

namespace {

// One copy call carries at most this many rows or (about) bytes, as the
// write path's calls (kRowsPerRpc, kBytesPerRpc in router_rows.cc).
constexpr uint32_t kCopyRowsPerCall = 1000;
constexpr uint64_t kCopyBytesPerCall = 8 << 20;
// Catch-up rounds before the switch, at most; a round with at most
// kSwitchRows rows noted ends them sooner. The switch copies what is left.
constexpr uint32_t kMaxCatchUpRounds = 16;
constexpr size_t kSwitchRows = 1000;
// How long the drop waits for reads that started before the switch; past
// it, such a read gets NotFound from the dropped region (an error, never a
// wrong answer). A read is bounded by the servers' work bounds and the
// client timeouts, far below this.
constexpr auto kReadGraceLimit = std::chrono::seconds(60);
// A whole-row delete of every cell: timestamps are below kLatestTimestamp.
constexpr int64_t kEveryCell = kLatestTimestamp - 1;

uint64_t MicrosSince(std::chrono::steady_clock::time_point start) {
  return static_cast<uint64_t>(
      std::chrono::duration_cast<std::chrono::microseconds>(
          std::chrono::steady_clock::now() - start)
          .count());
}

// The index of the region of `regions` (by start key, contiguous) holding
// `row`; regions.size() when none does.
size_t RegionOf(const std::vector<CatalogRegion>& regions,
                std::string_view row) {
  for (size_t i = 0; i < regions.size(); ++i) {
    if (row >= regions[i].start_key &&
        (regions[i].end_key.empty() || row < regions[i].end_key)) {
      return i;
    }
  }
  return regions.size();
}

// Whether a write failure leaves the write in doubt (it may still commit):
// anything but a refusal that wrote nothing (RouterImpl::WriteFailed).
bool InDoubt(const Status& s) {
  return !s.ok() && !s.IsInvalidArgument() && !s.IsNotFound() && !s.IsAborted();
}

RegionDescriptor DescriptorOf(const CatalogTable& table,
                              const CatalogRegion& r) {
  return RegionDescriptor{r.region_id, ServerDescriptor(table.descriptor),
                          r.start_key, r.end_key};
}

}  // namespace

// ---- ReshapeState ----

bool ReshapeState::Covers(uint64_t table, uint64_t region_id) const {
  if (table != table_id) return false;
  return std::any_of(
      sources.begin(), sources.end(),
      [&](const CatalogRegion& r) { return r.region_id == region_id; });
}

void ReshapeState::NoteWritten(const std::string& row) {
  std::lock_guard<std::mutex> lock(mu_);
  if (overflow_) return;
  // About what a set node costs besides the key.
  constexpr uint64_t kNodeBytes = 64;
  if (written_.insert(row).second) {
    written_bytes_ += row.size() + kNodeBytes;
    if (written_bytes_ > kMaxDirtyBytes) overflow_ = true;
  }
}

void ReshapeState::NoteInDoubt() {
  std::lock_guard<std::mutex> lock(mu_);
  in_doubt_ = true;
}

std::vector<std::string> ReshapeState::TakeWritten(bool* overflow,
                                                   bool* in_doubt) {
  std::lock_guard<std::mutex> lock(mu_);
  *overflow = overflow_;
  *in_doubt = in_doubt_;
  std::vector<std::string> out(std::make_move_iterator(written_.begin()),
                               std::make_move_iterator(written_.end()));
  written_.clear();
  written_bytes_ = 0;
  return out;
}

// ---- the write path's side ----

void WriteRoute::Note(const std::string& row, size_t region,
                      const Status& status) const {
  if (op == nullptr) return;
  if (!op->Covers(state->record.descriptor.table_id,
                  state->record.regions[region].region_id)) {
    return;
  }
  op->NoteWritten(row);
  if (InDoubt(status)) op->NoteInDoubt();
}

void ReshapeState::Gate::Enter() {
  std::unique_lock<std::mutex> lock(mu_);
  cv_.wait(lock, [&] { return !closed_; });
  ++inside_;
}

void ReshapeState::Gate::Leave() {
  std::lock_guard<std::mutex> lock(mu_);
  if (--inside_ == 0) cv_.notify_all();
}

void ReshapeState::Gate::Close() {
  std::unique_lock<std::mutex> lock(mu_);
  closed_ = true;
  cv_.wait(lock, [&] { return inside_ == 0; });
}

void ReshapeState::Gate::Open() {
  std::lock_guard<std::mutex> lock(mu_);
  closed_ = false;
  cv_.notify_all();
}

WriteRoute::WriteRoute(WriteRoute&& other) noexcept
    : state(std::move(other.state)), op(std::move(other.op)) {}

WriteRoute::~WriteRoute() {
  if (op != nullptr) op->gate.Leave();
}

StatusOr<WriteRoute> RouterImpl::RouteWrite(
    std::string_view table, const std::vector<std::string_view>& rows) {
  for (;;) {
    WriteRoute route;
    BLOOMROUTE_ASSIGN_OR_RETURN(route.state, FindTable(table));
    std::shared_ptr<ReshapeState> op = ActiveReshape();
    if (op == nullptr) return route;
    const uint64_t id = route.state->record.descriptor.table_id;
    const bool touches = std::any_of(rows.begin(), rows.end(), [&](auto row) {
      const size_t r = route.state->RegionFor(row);
      return op->Covers(id, route.state->record.regions[r].region_id);
    });
    if (!touches) return route;
    op->gate.Enter();
    route.op = std::move(op);  // left by ~WriteRoute
    // Switched while we waited: the table has new regions; route again.
    if (!route.op->switched) return route;
  }
}

std::shared_ptr<ReshapeState> RouterImpl::ActiveReshape() const {
  std::lock_guard<std::mutex> lock(reshape_mu_);
  return active_reshape_;
}

Status RouterImpl::CheckNoRegionOp(const CatalogTable& table) {
  if (table.region_ops.empty()) return Status::OK();
  return Status::Unavailable("a region operation is in flight on table '" +
                             table.descriptor.name +
                             "'; try again when it has ended");
}

// ---- the operations ----

StatusOr<std::pair<CatalogTable, size_t>> RouterImpl::FindRegion(
    uint64_t region_id) const {
  for (const CatalogTable& t : *catalog_->Tables()) {
    if (t.state != CatalogTable::State::kReady) continue;
    for (size_t i = 0; i < t.regions.size(); ++i) {
      if (t.regions[i].region_id == region_id) return std::make_pair(t, i);
    }
  }
  return Status::NotFound("region " + std::to_string(region_id) +
                          " is not a region of any table");
}

StatusOr<RegionOpResult> RouterImpl::MoveRegion(uint64_t region_id,
                                                ServerId to) {
  BLOOMROUTE_ASSIGN_OR_RETURN(auto found, FindRegion(region_id));
  const CatalogRegion& source = found.first.regions[found.second];
  if (ServerSnapshot()->count(to) == 0) {
    return Status::InvalidArgument("server " + std::to_string(to) +
                                   " is not a member of the cluster");
  }
  if (source.server == to) {
    return Status::InvalidArgument("region " + std::to_string(region_id) +
                                   " is already on server " +
                                   Server(to).ref.address);
  }
  CatalogRegionOp op;
  op.kind = CatalogRegionOp::Kind::kMove;
  op.sources = {source};
  CatalogRegion target = source;
  target.region_id = catalog_->NextRegionId();
  target.server = to;
  op.targets = {target};
  return RunRegionOp(found.first.descriptor.table_id, std::move(op));
}

StatusOr<RegionOpResult> RouterImpl::SplitRegion(
    uint64_t region_id, const std::optional<std::string>& split_key) {
  BLOOMROUTE_ASSIGN_OR_RETURN(auto found, FindRegion(region_id));
  const CatalogRegion source = found.first.regions[found.second];
  std::string at;
  if (split_key) {
    at = *split_key;
  } else {
    const ServerEntry& server = Server(source.server);
    StatusOr<std::optional<std::string>> point =
        server.client->SplitPoint(region_id);
    if (!point.ok()) return Named(server, point.status());
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
  op.targets = {{catalog_->NextRegionId(), source.start_key, at, source.server},
                {catalog_->NextRegionId(), at, source.end_key, source.server}};
  return RunRegionOp(found.first.descriptor.table_id, std::move(op));
}

StatusOr<RegionOpResult> RouterImpl::MergeRegions(uint64_t region_a,
                                                  uint64_t region_b) {
  BLOOMROUTE_ASSIGN_OR_RETURN(auto a, FindRegion(region_a));
  BLOOMROUTE_ASSIGN_OR_RETURN(auto b, FindRegion(region_b));
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
      {catalog_->NextRegionId(), low.start_key, high.end_key, low.server}};
  return RunRegionOp(a.first.descriptor.table_id, std::move(op));
}

StatusOr<RegionOpResult> RouterImpl::RunRegionOp(uint64_t table_id,
                                                 CatalogRegionOp op) {
  std::unique_lock<std::mutex> running(region_ops_mu_, std::try_to_lock);
  if (!running.owns_lock()) {
    return Status::Unavailable(
        "another region operation is running; try again when it has ended");
  }
  const auto start = std::chrono::steady_clock::now();
  auto state = std::make_shared<ReshapeState>();
  state->table_id = table_id;
  state->sources = op.sources;
  {
    std::lock_guard<std::mutex> lock(reshape_mu_);
    active_reshape_ = state;
  }
  // Writes see the operation from here on; those that routed before hold a
  // table state of the generation `before_start`.
  std::weak_ptr<const int> before_start;
  Status s = RecordRegionOp(table_id, op, &before_start);
  if (!s.ok()) {
    std::lock_guard<std::mutex> lock(reshape_mu_);
    active_reshape_.reset();
    return s;
  }
  // From here on the operation is in the catalog: a failure undoes it.
  RegionOpResult result;
  s = OpenTargets(table_id, op);
  // Every write that may not have seen the operation has ended once its
  // table state is let go: the copy reads what they wrote.
  if (s.ok()) s = WaitForGeneration(before_start);
  if (s.ok()) s = CopyRegionRows(op, &result);
  size_t noted = kSwitchRows + 1;
  while (s.ok() && noted > kSwitchRows &&
         result.catch_up_rounds < kMaxCatchUpRounds) {
    s = CopyWrittenRows(op, *state, &result, &noted);
  }
  std::weak_ptr<const int> before;
  if (s.ok()) {
    const auto pause = std::chrono::steady_clock::now();
    state->gate.Close();
    s = CopyWrittenRows(op, *state, &result, &noted);
    if (s.ok()) s = SwitchRegionOp(table_id, &op, &before);
    if (s.ok()) state->switched = true;
    state->gate.Open();
    result.switch_micros = MicrosSince(pause);
  }
  {
    std::lock_guard<std::mutex> lock(reshape_mu_);
    active_reshape_.reset();
  }
  if (!s.ok()) {
    const Status undone = FinishRegionOp(table_id, op);
    return s.WithContext(undone.ok() ? "the region operation was undone"
                                     : "the region operation is undone by "
                                       "maintenance once the servers answer");
  }
  // Reads that may name the sources hold a table state of the generation
  // before the switch. Past the limit the drop goes ahead: such a read
  // then fails (NotFound from the dropped region), it never answers wrong.
  (void)WaitForGeneration(before);
  // The switch stands; a failure here is finished by maintenance.
  if (!FinishRegionOp(table_id, op).ok()) WakeMaintenance();
  CatalogTable table;
  for (const CatalogTable& t : *catalog_->Tables()) {
    if (t.descriptor.table_id == table_id) table = t;
  }
  for (const CatalogRegion& t : op.targets) {
    result.regions.push_back({DescriptorOf(table, t), Server(t.server).ref});
  }
  result.total_micros = MicrosSince(start);
  return result;
}

Status RouterImpl::WaitForGeneration(const std::weak_ptr<const int>& old) {
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

Status RouterImpl::PutTableNewGeneration(const CatalogTable& table,
                                         std::weak_ptr<const int>* before) {
  BLOOMROUTE_RETURN_IF_ERROR(catalog_->PutTable(table));
  {
    std::shared_lock<std::shared_mutex> read(tables_mu_);
    auto state = tables_.find(table.descriptor.name);
    if (state != tables_.end()) *before = state->second->generation;
  }
  PublishTables(table.descriptor.table_id);
  return Status::OK();
}

Status RouterImpl::RecordRegionOp(uint64_t table_id, const CatalogRegionOp& op,
                                  std::weak_ptr<const int>* before) {
  std::lock_guard<std::mutex> lock(ddl_mu_);
  const std::shared_ptr<const Catalog::TableList> tables = catalog_->Tables();
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
  table.region_ops = {op};
  return PutTableNewGeneration(table, before);
}

Status RouterImpl::OpenTargets(uint64_t table_id, const CatalogRegionOp& op) {
  CatalogTable table;
  for (const CatalogTable& t : *catalog_->Tables()) {
    if (t.descriptor.table_id == table_id) table = t;
  }
  for (const CatalogRegion& target : op.targets) {
    const ServerEntry& server = Server(target.server);
    const Status s =
        server.client->OpenStagedRegion(DescriptorOf(table, target), 0);
    if (!s.ok()) return ServerFailed(server, s);
  }
  return Status::OK();
}

Status RouterImpl::CopyRegionRows(const CatalogRegionOp& op,
                                  RegionOpResult* result) {
  for (const CatalogRegion& source : op.sources) {
    const ServerEntry& from = Server(source.server);
    ScanRequest request;
    request.region_id = source.region_id;
    request.limit = kCopyRowsPerCall;
    request.max_bytes = kCopyBytesPerCall;
    for (;;) {
      StatusOr<ScanResult> page = from.client->Scan(request);
      if (!page.ok()) return ServerFailed(from, page.status());
      // An untrusted reply: rows ascending within the source, and progress.
      std::vector<std::string> keys;
      std::vector<std::optional<Row>> rows;
      for (Row& row : page->rows) {
        if (RegionOf({source}, row.key) != 0 ||
            (!keys.empty() && row.key <= keys.back()) ||
            row.key < request.start_row) {
          return Named(
              from, Status::Corruption(
                        "a scan of region " + std::to_string(source.region_id) +
                        " answered a row out of order or range"));
        }
        keys.push_back(row.key);
        result->bytes_copied += ReplyBytes(row);
        rows.emplace_back(std::move(row));
      }
      result->rows_copied += keys.size();
      BLOOMROUTE_RETURN_IF_ERROR(WriteToTargets(op, keys, rows, false));
      if (!page->resume_row) break;
      if (*page->resume_row <= request.start_row) {
        return Named(from, Status::Corruption("a scan of region " +
                                              std::to_string(source.region_id) +
                                              " did not move on"));
      }
      request.start_row = *page->resume_row;
    }
  }
  return Status::OK();
}

Status RouterImpl::CopyWrittenRows(const CatalogRegionOp& op,
                                   ReshapeState& state, RegionOpResult* result,
                                   size_t* noted) {
  bool overflow = false, in_doubt = false;
  const std::vector<std::string> keys = state.TakeWritten(&overflow, &in_doubt);
  ++result->catch_up_rounds;
  *noted = keys.size();
  if (overflow) {
    return Status::Unavailable(
        "writes to the region outpaced the copy (over 64 MiB of row keys "
        "written during one round); try again when fewer writes arrive");
  }
  if (in_doubt) {
    // It may still commit on the source after the last round.
    return Status::Unavailable(
        "a write to the region failed with its outcome unknown; try again");
  }
  // Keys are sorted: each source's are one run.
  size_t begin = 0;
  while (begin < keys.size()) {
    const size_t s = RegionOf(op.sources, keys[begin]);
    if (s == op.sources.size())
      return Status::Corruption("a noted row outside the sources");
    size_t end = begin;
    std::vector<GetRequest> requests;
    while (end < keys.size() && requests.size() < kCopyRowsPerCall &&
           RegionOf(op.sources, keys[end]) == s) {
      GetRequest g;
      g.region_id = op.sources[s].region_id;
      g.row_key = keys[end++];
      requests.push_back(std::move(g));
    }
    const ServerEntry& from = Server(op.sources[s].server);
    size_t done = 0;
    while (done < requests.size()) {
      const std::vector<GetRequest> rest(requests.begin() + done,
                                         requests.end());
      StatusOr<std::vector<std::optional<Row>>> rows =
          from.client->Get(rest, kCopyBytesPerCall);
      if (!rows.ok()) return ServerFailed(from, rows.status());
      if (rows->empty() || rows->size() > rest.size()) {
        return Named(from,
                     Status::Corruption("a get answered " +
                                        std::to_string(rows->size()) + " of " +
                                        std::to_string(rest.size()) + " rows"));
      }
      std::vector<std::string> part;
      for (size_t i = 0; i < rows->size(); ++i) {
        const std::optional<Row>& row = (*rows)[i];
        if (row && row->key != rest[i].row_key) {
          return Named(from, Status::Corruption("a get answered another row"));
        }
        part.push_back(rest[i].row_key);
        if (row) result->bytes_copied += ReplyBytes(*row);
      }
      BLOOMROUTE_RETURN_IF_ERROR(WriteToTargets(op, part, *rows, true));
      result->rows_copied += part.size();
      done += rows->size();
    }
    begin = end;
  }
  return Status::OK();
}

Status RouterImpl::WriteToTargets(const CatalogRegionOp& op,
                                  const std::vector<std::string>& keys,
                                  const std::vector<std::optional<Row>>& rows,
                                  bool replace) {
  std::vector<std::vector<Mutation>> batches(op.targets.size());
  for (size_t i = 0; i < keys.size(); ++i) {
    const size_t t = RegionOf(op.targets, keys[i]);
    if (t == op.targets.size())
      return Status::Corruption("a copied row outside the targets");
    const uint64_t region = op.targets[t].region_id;
    if (replace) {
      Mutation d = Mutation::Delete(region, keys[i]);
      d.timestamp = kEveryCell;
      batches[t].push_back(std::move(d));
    }
    // A row always has a cell; a put keeps each cell's timestamp.
    if (rows[i] && !rows[i]->cells.empty()) {
      batches[t].push_back(Mutation::Put(region, keys[i], rows[i]->cells));
    }
  }
  for (size_t t = 0; t < batches.size(); ++t) {
    if (batches[t].empty()) continue;
    BLOOMROUTE_RETURN_IF_ERROR(
        ApplyBatches(Server(op.targets[t].server), std::move(batches[t])));
  }
  return Status::OK();
}

Status RouterImpl::SwitchRegionOp(uint64_t table_id, CatalogRegionOp* op,
                                  std::weak_ptr<const int>* before) {
  std::lock_guard<std::mutex> lock(ddl_mu_);
  const std::shared_ptr<const Catalog::TableList> tables = catalog_->Tables();
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
  op->state = CatalogRegionOp::State::kSwitched;
  table.region_ops = {*op};
  return PutTableNewGeneration(table, before);
}

Status RouterImpl::FinishRegionOp(uint64_t table_id,
                                  const CatalogRegionOp& op) {
  const bool switched = op.state == CatalogRegionOp::State::kSwitched;
  // Undo: the targets go. Finish: the sources go, then the targets serve.
  for (const CatalogRegion& r : switched ? op.sources : op.targets) {
    const ServerEntry& server = Server(r.server);
    const Status s = server.client->DropRegion(r.region_id);
    if (!s.ok() && !s.IsNotFound()) return ServerFailed(server, s);
    // The drop removed elements without handing us the ops.
    (void)index_->MarkStale(server.ref.id);
  }
  WakeMaintenance();
  std::lock_guard<std::mutex> lock(ddl_mu_);
  const std::shared_ptr<const Catalog::TableList> tables = catalog_->Tables();
  auto it = std::find_if(tables->begin(), tables->end(), [&](const auto& t) {
    return t.descriptor.table_id == table_id;
  });
  if (it == tables->end()) return Status::OK();
  if (switched) {
    for (const CatalogRegion& r : op.targets) {
      const ServerEntry& server = Server(r.server);
      const Status s = server.client->OpenRegion(
          DescriptorOf(*it, r), server.opened_incarnation.load());
      if (!s.ok()) return ServerFailed(server, s);
    }
  }
  CatalogTable table = *it;
  table.region_ops.clear();
  BLOOMROUTE_RETURN_IF_ERROR(catalog_->PutTable(table));
  PublishTables();
  return Status::OK();
}

void RouterImpl::MaintainRegionOps() {
  std::unique_lock<std::mutex> running(region_ops_mu_, std::try_to_lock);
  if (!running.owns_lock()) return;  // its caller finishes or undoes it
  const std::shared_ptr<const Catalog::TableList> tables = catalog_->Tables();
  for (const CatalogTable& t : *tables) {
    if (t.region_ops.empty()) continue;
    (void)FinishRegionOp(t.descriptor.table_id, t.region_ops.front());
  }
}

}  // namespace bloomroute::router_internal
