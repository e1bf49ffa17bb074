#include "router/internal/router_metrics.h"

#include <algorithm>
#include <utility>

#include "common/call_context.h"

namespace bloomroute::router_internal {
namespace {

metrics::Counter& CounterOf(metrics::Registry* r, const char* name,
                            const char* help, const metrics::Labels& l = {}) {
  return r->GetCounter(name, help, l);
}

double Seconds(std::chrono::steady_clock::duration d) {
  return std::chrono::duration<double>(d).count();
}

}  // namespace

RouterMetrics::RouterMetrics(std::function<Snapshot()> snapshot,
                             metrics::Registry* registry)
    : snapshot_(std::move(snapshot)),
      lookups_(CounterOf(registry, "bloomroute_lookups_total",
                         "Index lookups and counts served.")),
      asked_(CounterOf(registry, "bloomroute_lookup_servers_asked_total",
                       "Region servers asked by lookups.")),
      asked_not_current_(CounterOf(
          registry, "bloomroute_lookup_servers_asked_not_current_total",
          "Region servers asked by lookups because the router's replica of "
          "their filter was not current.")),
      with_rows_(CounterOf(registry,
                           "bloomroute_lookup_servers_with_rows_total",
                           "Region servers asked by lookups that had rows.")),
      rows_(CounterOf(registry, "bloomroute_lookup_rows_returned_total",
                      "Rows returned by lookups.")),
      fanout_(registry->GetHistogram("bloomroute_lookup_fanout",
                                     "Region servers asked per lookup.", {},
                                     metrics::PowerOfTwoBuckets())),
      balancer_runs_(CounterOf(registry, "bloomroute_balancer_runs_total",
                               "Runs of the balancer.")),
      balancer_splits_(CounterOf(registry, "bloomroute_balancer_moves_total",
                                 "Region splits and moves the balancer made.",
                                 {{"kind", "split"}})),
      balancer_moves_(CounterOf(registry, "bloomroute_balancer_moves_total",
                                "Region splits and moves the balancer made.",
                                {{"kind", "move"}})) {
  collector_ =
      registry->AddCollector([this](metrics::Writer& w) { Collect(w); });
}

RouterMetrics::~RouterMetrics() { collector_.Reset(); }

void RouterMetrics::RecordLookup(std::string_view table,
                                 const router::RoutingInfo& routing,
                                 uint64_t rows) {
  lookups_.Increment();
  asked_.Increment(routing.asked.size());
  asked_not_current_.Increment(routing.asked_not_current.size());
  with_rows_.Increment(routing.with_rows.size());
  rows_.Increment(rows);
  fanout_.Observe(static_cast<double>(routing.asked.size()));
  if (CallContext* call = CurrentCall()) {
    call->table = std::string(table);
    call->servers_asked += static_cast<uint32_t>(routing.asked.size());
    call->rows += rows;
  }
}

void RouterMetrics::RecordBalancerRun(const router::BalanceReport& report) {
  {
    std::lock_guard<std::mutex> lock(mu_);
    last_balance_ = report;
    last_balance_at_ = std::chrono::steady_clock::now();
  }
  balancer_runs_.Increment();
  for (const auto& step : report.steps) {
    (step.kind == router::BalanceReport::Step::Kind::kSplit ? balancer_splits_
                                                            : balancer_moves_)
        .Increment();
  }
}

router::RouterActivity RouterMetrics::Activity() const {
  const auto now = std::chrono::steady_clock::now();
  router::RouterActivity out;
  std::lock_guard<std::mutex> lock(mu_);
  for (const auto& [id, op] : ops_) {
    out.region_ops.push_back(
        {op.kind, op.phase, op.region_id, Seconds(now - op.started)});
  }
  for (const auto& [id, probe] : probes_) {
    out.probes.push_back({router::ServerRef{id, probe.address}, probe.up,
                          probe.error, Seconds(now - probe.at)});
  }
  out.balancer_runs = balancer_runs_.value();
  if (last_balance_) {
    uint32_t splits = 0;
    for (const auto& step : last_balance_->steps) {
      if (step.kind == router::BalanceReport::Step::Kind::kSplit) ++splits;
    }
    out.last_balance_splits = splits;
    out.last_balance_moves =
        static_cast<uint32_t>(last_balance_->steps.size()) - splits;
    out.last_balance_failures = last_balance_->failures;
    out.last_balance_age_seconds = Seconds(now - last_balance_at_);
  }
  return out;
}

uint64_t RouterMetrics::BeginOp(std::string kind, uint64_t region_id) {
  std::lock_guard<std::mutex> lock(mu_);
  const uint64_t id = next_op_++;
  ops_[id] = RunningOp{std::move(kind), "starting", region_id,
                       std::chrono::steady_clock::now()};
  return id;
}

void RouterMetrics::SetPhase(uint64_t op, std::string phase) {
  std::lock_guard<std::mutex> lock(mu_);
  auto it = ops_.find(op);
  if (it != ops_.end()) it->second.phase = std::move(phase);
}

void RouterMetrics::EndOp(uint64_t op) {
  std::lock_guard<std::mutex> lock(mu_);
  ops_.erase(op);
}

std::vector<RouterMetrics::RunningOp> RouterMetrics::RunningOps() const {
  std::lock_guard<std::mutex> lock(mu_);
  std::vector<RunningOp> out;
  for (const auto& [id, op] : ops_) out.push_back(op);
  return out;
}

void RouterMetrics::NoteProbe(router::ServerId server,
                              const std::string& address, bool up,
                              std::string error) {
  std::lock_guard<std::mutex> lock(mu_);
  probes_[server] =
      Probe{address, up, std::move(error), std::chrono::steady_clock::now()};
}

std::map<router::ServerId, RouterMetrics::Probe> RouterMetrics::Probes() const {
  std::lock_guard<std::mutex> lock(mu_);
  return probes_;
}

void RouterMetrics::ForgetServer(router::ServerId server) {
  std::lock_guard<std::mutex> lock(mu_);
  probes_.erase(server);
}

void RouterMetrics::Collect(metrics::Writer& w) const {
  const Snapshot s = snapshot_();
  for (const router::ServerIndexStats& r : s.replicas) {
    const metrics::Labels server = {{"server", std::to_string(r.server.id)}};
    w.Gauge("bloomroute_replica_current",
            "1 when the router's replica of the server's filter is current.",
            server, r.replica.current ? 1 : 0);
    w.Gauge("bloomroute_replica_ops_behind",
            "Filter ops the router's replica lacks that writes reported.",
            server, static_cast<double>(r.ops_behind));
    w.Counter("bloomroute_replica_catchup_bytes_total",
              "Bytes of filter ops and snapshots fetched to catch the "
              "replica up.",
              server, static_cast<double>(r.replica.catch_up_bytes));
  }
  const auto now = std::chrono::steady_clock::now();
  for (const auto& [id, probe] : Probes()) {
    w.Gauge("bloomroute_region_server_up",
            "1 when the region server answered the router's last probe.",
            {{"server", std::to_string(id)}, {"address", probe.address}},
            probe.up ? 1 : 0);
  }
  w.Gauge("bloomroute_router_index_bytes",
          "Bytes the router holds for routing (the filter replicas).", {},
          static_cast<double>(s.index_bytes));
  w.Gauge("bloomroute_tables", "Tables in the catalog.", {}, s.tables);
  w.Gauge("bloomroute_regions", "Regions of the catalog's tables.", {},
          s.regions);
  const std::vector<RunningOp> ops = RunningOps();
  double oldest = 0;
  for (const RunningOp& op : ops) {
    const double age = Seconds(now - op.started);
    oldest = std::max(oldest, age);
    w.Gauge("bloomroute_region_operation_age_seconds",
            "Age of each region operation running, by kind and phase.",
            {{"operation", op.kind},
             {"phase", op.phase},
             {"region", std::to_string(op.region_id)}},
            age);
  }
  w.Gauge("bloomroute_region_operations_running",
          "Region operations (moves, splits, merges) running.", {},
          static_cast<double>(ops.size()));
  w.Gauge("bloomroute_region_operation_oldest_age_seconds",
          "Age of the oldest region operation running; 0 when none.", {},
          oldest);
}

}  // namespace bloomroute::router_internal
