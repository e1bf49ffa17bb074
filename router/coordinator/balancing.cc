// The balancer's side of the router: Router::Balance and the background
// runs over Balancer (balancer.h), the cluster it sees (BalancerCluster),
// and decommissioning a member.
#include "router/coordinator/balancing.h"

#include <algorithm>
#include <chrono>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <utility>
#include <vector>

namespace bloomroute::router_internal {

using router::BalanceReport;

namespace {

// The balancer's split size and operations per run of `options`.
Balancer::Options BalancerOptions(const router::RouterOptions& options) {
  Balancer::Options b;
  b.split_bytes = options.region_split_bytes;
  b.max_operations = options.balancer_max_operations;
  return b;
}

}  // namespace

Balancing::Balancing(const RouterContext& ctx, RegionOps* region_ops,
                     Hooks hooks)
    : ctx_(ctx),
      region_ops_(region_ops),
      hooks_(std::move(hooks)),
      balancer_(BalancerOptions(*ctx.options), this) {}

StatusOr<BalanceReport> Balancing::Balance(uint32_t max_operations) {
  return RunBalancer(max_operations, /*moves=*/true);
}

BalanceReport Balancing::RunBalancer(uint32_t max_operations, bool moves) {
  BalanceReport report = balancer_.Run(max_operations, moves);
  ctx_.metrics->RecordBalancerRun(report);
  return report;
}

std::set<ServerId> Balancing::Members() const {
  std::set<ServerId> ids;
  for (const auto& [id, server] : *ctx_.servers->Snapshot()) ids.insert(id);
  return ids;
}

std::shared_ptr<const CatalogStore::TableList> Balancing::Tables() const {
  return ctx_.catalog->Tables();
}

router::ServerRef Balancing::Ref(ServerId id) const {
  return ctx_.servers->Get(id).ref;
}

std::vector<StatusOr<std::map<uint64_t, uint64_t>>> Balancing::RegionBytes(
    const std::vector<ServerId>& ids, const std::vector<size_t>& max_regions) {
  std::vector<StatusOr<std::map<uint64_t, uint64_t>>> bytes(
      ids.size(), Status::Unavailable("not asked"));
  ctx_.fan_out->Run(ids.size(), [&](size_t i) {
    // Bytes decide: the rows are not counted (a scan of every region).
    StatusOr<std::map<uint64_t, RegionStats>> stats = hooks_.region_stats(
        ctx_.servers->Get(ids[i]), 0, max_regions[i], /*count_rows=*/false);
    if (!stats.ok()) {
      bytes[i] = stats.status();
      return;
    }
    std::map<uint64_t, uint64_t> of_region;
    for (const auto& [id, r] : *stats) {
      of_region[id] = r.row_bytes + r.index_bytes;
    }
    bytes[i] = std::move(of_region);
  });
  return bytes;
}

StatusOr<router::RegionOpResult> Balancing::RunSplit(uint64_t region_id) {
  return region_ops_->RunSplit(region_id);
}

StatusOr<router::RegionOpResult> Balancing::RunMove(uint64_t region_id,
                                                    ServerId to) {
  return region_ops_->RunMove(region_id, to);
}

bool Balancing::Draining(ServerId id) const {
  return ctx_.servers->Draining(id);
}

StatusOr<std::vector<BalanceReport::Step>> Balancing::DecommissionServer(
    ServerId id) {
  if (ctx_.servers->Snapshot()->count(id) == 0) {
    return Status::NotFound("server " + std::to_string(id) +
                            " is not a member of the cluster");
  }
  ctx_.servers->SetDraining(id, true);
  std::vector<BalanceReport::Step> moves;
  Status s = DrainServer(id, &moves);
  if (s.ok()) s = hooks_.remove_server(id);
  ctx_.servers->SetDraining(id, false);
  if (!s.ok()) {
    return s.WithContext("decommissioning server " + std::to_string(id) +
                         " stopped after " + std::to_string(moves.size()) +
                         " region moves; run it again");
  }
  return moves;
}

Status Balancing::DrainServer(ServerId id,
                              std::vector<BalanceReport::Step>* moves) {
  // Regions that another operation changed between the look and the move.
  constexpr int kMaxReplans = 100;
  int replanned = 0;
  for (;;) {
    // Region counts of the other members, and the next region to move.
    std::map<ServerId, size_t> load;
    const std::shared_ptr<const ServerMap> members = ctx_.servers->Snapshot();
    for (const auto& [member, entry] : *members) {
      if (member != id && !Draining(member)) load[member] = 0;
    }
    if (load.empty()) {
      return Status::InvalidArgument(
          "no other member (that is not draining) can take its regions");
    }
    uint64_t next = 0;
    const std::shared_ptr<const CatalogStore::TableList> tables =
        ctx_.catalog->Tables();
    for (const CatalogTable& t : *tables) {
      if (t.state != CatalogTable::State::kReady) continue;
      for (const CatalogRegion& r : t.regions) {
        if (load.count(r.server) != 0) ++load[r.server];
        if (r.server == id && next == 0) next = r.region_id;
      }
    }
    if (next == 0) {
      // A move whose old region could not be dropped yet still needs the
      // server: finish it (RemoveServer refuses while it is pending).
      region_ops_->MaintainRegionOps();
      return Status::OK();
    }
    const ServerId to =
        std::min_element(load.begin(), load.end(), [](auto& a, auto& b) {
          return a.second < b.second;
        })->first;
    // After any operation running now (the balancer's, a user's); the
    // region may have moved meanwhile, so it is planned again.
    StatusOr<router::RegionOpResult> moved = region_ops_->RunMove(next, to);
    if (moved.status().IsNotFound() && ++replanned < kMaxReplans) continue;
    BLOOMROUTE_ASSIGN_OR_RETURN(router::RegionOpResult result,
                                std::move(moved));
    BalanceReport::Step step;
    step.kind = BalanceReport::Step::Kind::kMove;
    step.region_id = next;
    step.from = ctx_.servers->Get(id).ref;
    step.to = ctx_.servers->Get(to).ref;
    step.result = std::move(result);
    moves->push_back(std::move(step));
  }
}

void Balancing::RunBalancerPass(bool moves) {
  // A failed run is tried again at the next interval.
  (void)RunBalancer(0, moves);
}

}  // namespace bloomroute::router_internal
