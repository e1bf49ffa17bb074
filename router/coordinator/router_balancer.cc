// The balancer's side of the router: Router::Balance and the background
// runs over Balancer (balancer.h), the cluster it sees (BalancerCluster),
// and decommissioning a member.
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

StatusOr<BalanceReport> RouterImpl::Balance(uint32_t max_operations) {
  return RunBalancer(max_operations, /*moves=*/true);
}

BalanceReport RouterImpl::RunBalancer(uint32_t max_operations, bool moves) {
  BalanceReport report = balancer_.Run(max_operations, moves);
  metrics_->RecordBalancerRun(report);
  return report;
}

std::set<ServerId> RouterImpl::Members() const {
  std::set<ServerId> ids;
  for (const auto& [id, server] : *servers_.Snapshot()) ids.insert(id);
  return ids;
}

std::shared_ptr<const Catalog::TableList> RouterImpl::Tables() const {
  return catalog_->Tables();
}

router::ServerRef RouterImpl::Ref(ServerId id) const {
  return servers_.Get(id).ref;
}

std::vector<StatusOr<std::map<uint64_t, uint64_t>>> RouterImpl::RegionBytes(
    const std::vector<ServerId>& ids, const std::vector<size_t>& max_regions) {
  std::vector<StatusOr<std::map<uint64_t, uint64_t>>> bytes(
      ids.size(), Status::Unavailable("not asked"));
  fan_out_->Run(ids.size(), [&](size_t i) {
    // Bytes decide: the rows are not counted (a scan of every region).
    StatusOr<std::map<uint64_t, RegionStats>> stats =
        cluster_view_->FetchRegionStats(servers_.Get(ids[i]), 0, max_regions[i],
                                        /*count_rows=*/false);
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

StatusOr<router::RegionOpResult> RouterImpl::RunSplit(uint64_t region_id) {
  return RunRegionOp(true, [&]() -> StatusOr<PlannedOp> {
    return PlanSplit(region_id, std::nullopt);
  });
}

StatusOr<router::RegionOpResult> RouterImpl::RunMove(uint64_t region_id,
                                                     ServerId to) {
  return RunRegionOp(
      true, [&]() -> StatusOr<PlannedOp> { return PlanMove(region_id, to); });
}

bool RouterImpl::Draining(ServerId id) const { return servers_.Draining(id); }

StatusOr<std::vector<BalanceReport::Step>> RouterImpl::DecommissionServer(
    ServerId id) {
  if (servers_.Snapshot()->count(id) == 0) {
    return Status::NotFound("server " + std::to_string(id) +
                            " is not a member of the cluster");
  }
  servers_.SetDraining(id, true);
  std::vector<BalanceReport::Step> moves;
  Status s = DrainServer(id, &moves);
  if (s.ok()) s = RemoveServer(id);
  servers_.SetDraining(id, false);
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
    const std::shared_ptr<const Catalog::TableList> tables = catalog_->Tables();
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
