// The balancer: automatic splits of regions past their split size, then
// moves that even the servers' region counts (and, among the regions that
// could move, their bytes). Each step is a region operation of
// router_reshape.cc, one at a time.
//
// The policy is HBase's simple one (SimpleLoadBalancer: even region counts,
// at most one apart) with bytes as the tie-breaker, and its stepping split
// policy (the first region of a table on a server splits early). It reads
// sizes from the servers' region statistics each run: nothing is kept
// between runs, so a run after a restart of the router decides the same.
#include <algorithm>
#include <chrono>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "router/internal/router_impl.h"

namespace bloomroute::router_internal {

using router::BalanceReport;

namespace {

struct RegionLoad {
  uint64_t region_id = 0;
  uint64_t table_id = 0;
  ServerId server = 0;
  uint64_t bytes = 0;  // rows and index entries, as the server estimated
};

// Regions a server may report beyond those the catalog gives it, as
// router_admin.cc allows.
constexpr size_t kStatsRegionSlack = 100000;

// A move that evens the region counts: region `region` (an index in
// BalancerLoad::regions) from server `from` to server `to`.
struct MoveChoice {
  size_t region = 0;
  ServerId from = 0;
  ServerId to = 0;
};

}  // namespace

// One look at the cluster: where every region of the ready tables is and
// how large, asked again before each step of a run.
struct BalancerLoad {
  std::vector<RegionLoad> regions;
  // Every member, with the indexes in `regions` of the regions on it.
  std::map<ServerId, std::vector<size_t>> by_server;
  // Draining members: their regions are the decommission's to move.
  std::set<ServerId> skip;
  // The regions of each member, by id, as the catalog counts them.
  std::map<ServerId, size_t> expected;
  std::map<std::pair<uint64_t, ServerId>, uint32_t> table_on_server;
  // Regions whose last operation failed and wait out their backoff.
  std::set<uint64_t> backed_off;
  // The members that are not draining.
  std::vector<ServerId> movable;
};

namespace {

// The first region past its split size (the first region of a table on a
// server splits early: HBase's stepping policy), of those not skipped.
std::optional<size_t> NextSplit(const BalancerLoad& load,
                                uint64_t split_bytes) {
  if (split_bytes == 0) return std::nullopt;
  for (size_t i = 0; i < load.regions.size(); ++i) {
    const RegionLoad& r = load.regions[i];
    if (load.skip.count(r.server) != 0) continue;  // leaving anyway
    if (load.backed_off.count(r.region_id) != 0) continue;
    const uint64_t split_at =
        load.table_on_server.at({r.table_id, r.server}) == 1
            ? std::min(split_bytes, router::RouterOptions::kFirstSplitBytes)
            : split_bytes;
    if (r.bytes > split_at) return i;
  }
  return std::nullopt;
}

// The move from the member with the most regions to the one with the
// fewest, when they are more than one apart: of the regions not skipped,
// the one closest to half their byte difference (what evens the two).
// None: balanced (report->balanced) or every candidate skipped
// (report->stopped).
std::optional<MoveChoice> NextMove(const BalancerLoad& load,
                                   router::BalanceReport* report) {
  const auto count = [&](ServerId id) { return load.by_server.at(id).size(); };
  const auto fewer = [&](ServerId a, ServerId b) {
    return count(a) < count(b);
  };
  const std::vector<ServerId>& movable = load.movable;
  if (movable.empty()) {
    report->balanced = true;
    return std::nullopt;
  }
  const ServerId most =
      *std::max_element(movable.begin(), movable.end(), fewer);
  const ServerId least =
      *std::min_element(movable.begin(), movable.end(), fewer);
  if (count(most) <= count(least) + 1) {
    report->balanced = true;
    return std::nullopt;
  }
  const std::vector<RegionLoad>& regions = load.regions;
  uint64_t most_bytes = 0, least_bytes = 0;
  for (size_t r : load.by_server.at(most)) most_bytes += regions[r].bytes;
  for (size_t r : load.by_server.at(least)) least_bytes += regions[r].bytes;
  const uint64_t half =
      most_bytes > least_bytes ? (most_bytes - least_bytes) / 2 : 0;
  const auto off = [&](size_t x) {
    return regions[x].bytes > half ? regions[x].bytes - half
                                   : half - regions[x].bytes;
  };
  std::optional<size_t> best;
  for (size_t r : load.by_server.at(most)) {
    if (load.backed_off.count(regions[r].region_id) != 0) continue;
    if (!best || off(r) < off(*best)) best = r;
  }
  if (!best) {
    report->stopped = "the regions of region server " + std::to_string(most) +
                      " that could move are skipped after failing "
                      "(admin regions says why)";
    return std::nullopt;
  }
  return MoveChoice{*best, most, least};
}

}  // namespace

StatusOr<BalanceReport> RouterImpl::Balance(uint32_t max_operations) {
  return RunBalancer(max_operations, /*moves=*/true);
}

BalanceReport RouterImpl::RunBalancer(uint32_t max_operations, bool moves) {
  BalanceReport report = RunBalancerSteps(max_operations, moves);
  metrics_->RecordBalancerRun(report);
  return report;
}

BalanceReport RouterImpl::RunBalancerSteps(uint32_t max_operations,
                                           bool moves) {
  if (max_operations == 0) max_operations = options_.balancer_max_operations;
  BalanceReport report;
  uint32_t made = 0;
  for (;;) {
    // Where every region is and how large, asked again after each step.
    BalancerLoad load = PlaceBalancerLoad();
    const Status measured = MeasureBalancerLoad(&load);
    if (!measured.ok()) {
      report.stopped = "a server did not answer: " + measured.ToString();
      report.failed = true;
      return report;
    }
    std::optional<BalanceReport::Step> step =
        NextBalancerStep(load, moves, &report);
    if (!step) return report;
    if (made == max_operations) {
      report.stopped = "the limit of " + std::to_string(max_operations) +
                       " operations per run was reached";
      return report;
    }
    ++made;
    if (!RunBalancerStep(std::move(*step), &report)) return report;
  }
}

BalancerLoad RouterImpl::PlaceBalancerLoad() {
  BalancerLoad load;
  const std::shared_ptr<const ServerMap> members = servers_.Snapshot();
  for (const auto& [id, server] : *members) {
    load.by_server[id];
    if (Draining(id)) load.skip.insert(id);
  }
  std::set<uint64_t> existing;
  for (const CatalogTable& t : *catalog_->Tables()) {
    if (t.state != CatalogTable::State::kReady) continue;
    for (const CatalogRegion& r : t.regions) {
      ++load.expected[r.server];
      ++load.table_on_server[{t.descriptor.table_id, r.server}];
      load.by_server[r.server].push_back(load.regions.size());
      load.regions.push_back({r.region_id, t.descriptor.table_id, r.server, 0});
      existing.insert(r.region_id);
    }
  }
  // Regions whose last operation failed wait out their backoff; the
  // others go on (a region of one huge row never splits).
  load.backed_off = backoff_.Skipped(existing);
  for (const auto& [id, list] : load.by_server) {
    if (load.skip.count(id) == 0) load.movable.push_back(id);
  }
  return load;
}

Status RouterImpl::MeasureBalancerLoad(BalancerLoad* load) {
  std::vector<ServerId> ids;
  for (const auto& [id, list] : load->by_server) ids.push_back(id);
  std::vector<StatusOr<std::map<uint64_t, RegionStats>>> stats(
      ids.size(), Status::Unavailable("not asked"));
  // Looked up here: the workers must not insert into `expected` (a member
  // without regions is not in it).
  std::vector<size_t> expected_of(ids.size(), 0);
  for (size_t i = 0; i < ids.size(); ++i) {
    auto it = load->expected.find(ids[i]);
    if (it != load->expected.end()) expected_of[i] = it->second;
  }
  fan_out_->Run(ids.size(), [&](size_t i) {
    // Bytes decide: the rows are not counted (a scan of every region).
    stats[i] = FetchRegionStats(servers_.Get(ids[i]), 0,
                                expected_of[i] + kStatsRegionSlack,
                                /*count_rows=*/false);
  });
  for (size_t i = 0; i < ids.size(); ++i) {
    if (!stats[i].ok()) return stats[i].status();
    for (size_t r : load->by_server[ids[i]]) {
      RegionLoad& region = load->regions[r];
      auto it = stats[i]->find(region.region_id);
      if (it == stats[i]->end()) continue;
      region.bytes = it->second.row_bytes + it->second.index_bytes;
    }
  }
  return Status::OK();
}

std::optional<BalanceReport::Step> RouterImpl::NextBalancerStep(
    const BalancerLoad& load, bool moves, BalanceReport* report) {
  // A split first, then a move.
  std::optional<BalanceReport::Step> step;
  if (std::optional<size_t> split =
          NextSplit(load, options_.region_split_bytes)) {
    const RegionLoad& r = load.regions[*split];
    step.emplace();
    step->kind = BalanceReport::Step::Kind::kSplit;
    step->region_id = r.region_id;
    step->from = step->to = servers_.Get(r.server).ref;
    return step;
  }
  if (!moves) {
    report->balanced = true;  // of splits: none is due
    return std::nullopt;
  }
  std::optional<MoveChoice> move = NextMove(load, report);
  if (!move) return std::nullopt;
  step.emplace();
  step->kind = BalanceReport::Step::Kind::kMove;
  step->region_id = load.regions[move->region].region_id;
  step->from = servers_.Get(move->from).ref;
  step->to = servers_.Get(move->to).ref;
  return step;
}

bool RouterImpl::RunBalancerStep(BalanceReport::Step step,
                                 BalanceReport* report) {
  const bool split = step.kind == BalanceReport::Step::Kind::kSplit;
  // After any operation running now (a user's, a decommission's).
  StatusOr<router::RegionOpResult> result =
      RunRegionOp(true, [&]() -> StatusOr<PlannedOp> {
        return split ? PlanSplit(step.region_id, std::nullopt)
                     : PlanMove(step.region_id, step.to.id);
      });
  if (!result.ok()) {
    const std::string error = result.status().ToString();
    const std::string what = std::string(split ? "splitting" : "moving") +
                             " region " + std::to_string(step.region_id) +
                             " failed: " + error;
    report->failed = true;
    // Unavailable is the cluster's, not the region's (another operation
    // in flight or in doubt, a server that did not answer): the run stops
    // and no region is skipped for it.
    if (result.status().IsUnavailable()) {
      report->failures.push_back(what);
      report->stopped = what;
      return false;
    }
    const std::chrono::seconds backoff =
        backoff_.NoteFailure(step.region_id, error);
    report->failures.push_back(what + "; the balancer skips it for " +
                               std::to_string(backoff.count()) + " s");
    return true;  // planned again, without it
  }
  backoff_.NoteSuccess(step.region_id);
  step.result = std::move(result).value();
  report->steps.push_back(std::move(step));
  return true;
}

bool RouterImpl::Draining(ServerId id) const {
  std::lock_guard<std::mutex> lock(reshape_mu_);
  return draining_.count(id) != 0;
}

StatusOr<std::vector<BalanceReport::Step>> RouterImpl::DecommissionServer(
    ServerId id) {
  if (servers_.Snapshot()->count(id) == 0) {
    return Status::NotFound("server " + std::to_string(id) +
                            " is not a member of the cluster");
  }
  {
    std::lock_guard<std::mutex> lock(reshape_mu_);
    draining_.insert(id);
  }
  std::vector<BalanceReport::Step> moves;
  Status s = DrainServer(id, &moves);
  if (s.ok()) s = RemoveServer(id);
  {
    std::lock_guard<std::mutex> lock(reshape_mu_);
    draining_.erase(id);
  }
  if (!s.ok()) {
    return s.WithContext("decommissioning server " + std::to_string(id) +
                         " stopped after " + std::to_string(moves.size()) +
                         " region moves; run it again");
  }
  return moves;
}

Status RouterImpl::DrainServer(ServerId id,
                               std::vector<BalanceReport::Step>* moves) {
  // Regions that another operation changed between the look and the move.
  constexpr int kMaxReplans = 100;
  int replanned = 0;
  for (;;) {
    // Region counts of the other members, and the next region to move.
    std::map<ServerId, size_t> load;
    const std::shared_ptr<const ServerMap> members = servers_.Snapshot();
    for (const auto& [member, entry] : *members) {
      if (member != id && !Draining(member)) load[member] = 0;
    }
    if (load.empty()) {
      return Status::InvalidArgument(
          "no other member (that is not draining) can take its regions");
    }
    uint64_t next = 0;
    for (const CatalogTable& t : *catalog_->Tables()) {
      if (t.state != CatalogTable::State::kReady) continue;
      for (const CatalogRegion& r : t.regions) {
        if (load.count(r.server) != 0) ++load[r.server];
        if (r.server == id && next == 0) next = r.region_id;
      }
    }
    if (next == 0) {
      // A move whose old region could not be dropped yet still needs the
      // server: finish it (RemoveServer refuses while it is pending).
      MaintainRegionOps();
      return Status::OK();
    }
    const ServerId to =
        std::min_element(load.begin(), load.end(), [](auto& a, auto& b) {
          return a.second < b.second;
        })->first;
    // After any operation running now (the balancer's, a user's); the
    // region may have moved meanwhile, so it is planned again.
    StatusOr<router::RegionOpResult> moved =
        RunRegionOp(true, [&] { return PlanMove(next, to); });
    if (moved.status().IsNotFound() && ++replanned < kMaxReplans) continue;
    BLOOMROUTE_ASSIGN_OR_RETURN(router::RegionOpResult result,
                                std::move(moved));
    BalanceReport::Step step;
    step.kind = BalanceReport::Step::Kind::kMove;
    step.region_id = next;
    step.from = servers_.Get(id).ref;
    step.to = servers_.Get(to).ref;
    step.result = std::move(result);
    moves->push_back(std::move(step));
  }
}

void RouterImpl::RunBalancerPass(bool moves) {
  // A failed run is tried again at the next interval.
  (void)RunBalancer(0, moves);
}

}  // namespace bloomroute::router_internal
