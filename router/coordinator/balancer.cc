#include "router/coordinator/balancer.h"

#include <algorithm>
#include <chrono>
#include <string>
#include <utility>

namespace bloomroute::router_internal {

using router::BalanceReport;
using router::ServerId;

namespace {

struct RegionLoad {
  uint64_t region_id = 0;
  uint64_t table_id = 0;
  ServerId server = 0;
  uint64_t bytes = 0;  // rows and index entries, as the server estimated
};

// Regions a server may report beyond those the catalog gives it, as
// internal/cluster_view.cc allows.
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

Balancer::Balancer(const Options& options, BalancerCluster* cluster)
    : options_(options), cluster_(cluster) {}

BalanceReport Balancer::Run(uint32_t max_operations, bool moves) {
  if (max_operations == 0) max_operations = options_.max_operations;
  BalanceReport report;
  uint32_t made = 0;
  for (;;) {
    // Where every region is and how large, asked again after each step.
    BalancerLoad load = PlaceLoad();
    const Status measured = MeasureLoad(&load);
    if (!measured.ok()) {
      report.stopped = "a server did not answer: " + measured.ToString();
      report.failed = true;
      return report;
    }
    std::optional<BalanceReport::Step> step = NextStep(load, moves, &report);
    if (!step) return report;
    if (made == max_operations) {
      report.stopped = "the limit of " + std::to_string(max_operations) +
                       " operations per run was reached";
      return report;
    }
    ++made;
    if (!RunStep(std::move(*step), &report)) return report;
  }
}

BalancerLoad Balancer::PlaceLoad() {
  BalancerLoad load;
  for (ServerId id : cluster_->Members()) {
    load.by_server[id];
    if (cluster_->Draining(id)) load.skip.insert(id);
  }
  std::set<uint64_t> existing;
  const std::shared_ptr<const CatalogStore::TableList> tables =
      cluster_->Tables();
  for (const CatalogTable& t : *tables) {
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

Status Balancer::MeasureLoad(BalancerLoad* load) {
  std::vector<ServerId> ids;
  std::vector<size_t> max_regions;
  for (const auto& [id, list] : load->by_server) {
    ids.push_back(id);
    auto it = load->expected.find(id);
    max_regions.push_back((it == load->expected.end() ? 0 : it->second) +
                          kStatsRegionSlack);
  }
  const std::vector<StatusOr<std::map<uint64_t, uint64_t>>> bytes =
      cluster_->RegionBytes(ids, max_regions);
  for (size_t i = 0; i < ids.size(); ++i) {
    if (!bytes[i].ok()) return bytes[i].status();
    for (size_t r : load->by_server[ids[i]]) {
      RegionLoad& region = load->regions[r];
      auto it = bytes[i]->find(region.region_id);
      if (it != bytes[i]->end()) region.bytes = it->second;
    }
  }
  return Status::OK();
}

std::optional<BalanceReport::Step> Balancer::NextStep(const BalancerLoad& load,
                                                      bool moves,
                                                      BalanceReport* report) {
  // A split first, then a move.
  std::optional<BalanceReport::Step> step;
  if (std::optional<size_t> split = NextSplit(load, options_.split_bytes)) {
    const RegionLoad& r = load.regions[*split];
    step.emplace();
    step->kind = BalanceReport::Step::Kind::kSplit;
    step->region_id = r.region_id;
    step->from = step->to = cluster_->Ref(r.server);
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
  step->from = cluster_->Ref(move->from);
  step->to = cluster_->Ref(move->to);
  return step;
}

bool Balancer::RunStep(BalanceReport::Step step, BalanceReport* report) {
  const bool split = step.kind == BalanceReport::Step::Kind::kSplit;
  // After any operation running now (a user's, a decommission's).
  StatusOr<router::RegionOpResult> result =
      split ? cluster_->RunSplit(step.region_id)
            : cluster_->RunMove(step.region_id, step.to.id);
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

}  // namespace bloomroute::router_internal
