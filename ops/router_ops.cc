#include "ops/router_ops.h"

#include <map>
#include <utility>
#include <vector>

#include "ops/html.h"

namespace bloomroute::ops {
namespace {

using Rows = std::vector<std::vector<std::string>>;

std::string UpOrDown(bool up) { return up ? "up" : "DOWN"; }

double CounterValue(metrics::Registry* r, const char* name, const char* help) {
  return static_cast<double>(r->GetCounter(name, help).value());
}

void ServersSection(router::Router& router,
                    std::vector<router::ServerIndexStats> stats,
                    HtmlPage* page) {
  std::map<router::ServerId, router::ServerIndexStats> replicas;
  for (router::ServerIndexStats& s : stats)
    replicas[s.server.id] = std::move(s);
  Rows rows;
  for (const router::ServerSummary& s : router.ListServers()) {
    const router::ServerIndexStats& r = replicas[s.server.id];
    std::string replica = r.replica.current ? "current" : "not current";
    if (r.ops_behind != 0) {
      replica += ", " + FormatCount(r.ops_behind) + " ops behind";
    }
    rows.push_back(
        {std::to_string(s.server.id), s.server.address,
         UpOrDown(s.reachable) + (s.reachable ? "" : ": " + s.error),
         FormatCount(s.regions) +
             (s.regions_not_served != 0
                  ? " (" + FormatCount(s.regions_not_served) + " not served)"
                  : ""),
         FormatCount(s.rows), FormatBytes(s.bytes), replica,
         FormatCount(r.replica.filter.elements),
         FormatRatio(r.replica.filter.estimated_fpr),
         FormatBytes(r.replica.catch_up_bytes)});
  }
  page->Section("server-list", "Region servers")
      .Table("servers",
             {"id", "address", "state", "regions", "rows", "bytes", "replica",
              "filter elements", "estimated FPR", "caught up"},
             rows);
}

std::string IndexCell(const router::IndexState& s) {
  std::string out = s.column + " (" + router::IndexStateName(s.state);
  if (s.state != router::IndexState::State::kReady) {
    out += " " + std::to_string(s.regions_done) + "/" +
           std::to_string(s.regions_total) + " regions";
  }
  return out + ")";
}

void TablesSection(router::Router& router, HtmlPage* page) {
  Rows rows;
  for (const TableDescriptor& t : router.ListTables()) {
    std::string indexes;
    StatusOr<std::vector<router::IndexState>> states =
        router.IndexStatus(t.name);
    if (states.ok()) {
      for (const router::IndexState& s : *states) {
        indexes += (indexes.empty() ? "" : ", ") + IndexCell(s);
      }
    } else {
      indexes = states.status().ToString();
    }
    StatusOr<bool> enabled = router.IsTableEnabled(t.name);
    StatusOr<router::TableInfo> info = router.DescribeTable(t.name);
    rows.push_back(
        {t.name, enabled.ok() ? (*enabled ? "enabled" : "disabled") : "?",
         info.ok() ? FormatCount(info->regions.size()) : "?", indexes});
  }
  page->Section("table-list", "Tables")
      .Table("tables", {"table", "state", "regions", "indexes"}, rows);
}

void ActivitySection(const router::RouterActivity& a, HtmlPage* page) {
  Rows ops;
  for (const auto& op : a.region_ops) {
    ops.push_back({op.kind, std::to_string(op.region_id), op.phase,
                   FormatDuration(static_cast<int64_t>(op.age_seconds))});
  }
  page->Section("region-operations", "Region operations in flight")
      .Table("region-ops", {"operation", "region", "phase", "age"}, ops);
  page->Section("balancer", "Balancer");
  if (!a.last_balance_splits) {
    page->Paragraph("The balancer has not run since the router started.");
    return;
  }
  page->KeyValues(
      {{"Runs since start", FormatCount(a.balancer_runs)},
       {"Last run",
        FormatDuration(static_cast<int64_t>(a.last_balance_age_seconds)) +
            " ago"},
       {"Splits", FormatCount(*a.last_balance_splits)},
       {"Moves", FormatCount(a.last_balance_moves)},
       {"Failures", a.last_balance_failures.empty()
                        ? "none"
                        : std::to_string(a.last_balance_failures.size())}});
  for (const std::string& f : a.last_balance_failures) page->Paragraph(f);
}

void RoutingSection(metrics::Registry* r, HtmlPage* page) {
  const double lookups = CounterValue(r, "bloomroute_lookups_total",
                                      "Index lookups and counts served.");
  const double asked = CounterValue(r, "bloomroute_lookup_servers_asked_total",
                                    "Region servers asked by lookups.");
  const double with_rows =
      CounterValue(r, "bloomroute_lookup_servers_with_rows_total",
                   "Region servers asked by lookups that had rows.");
  const double not_current = CounterValue(
      r, "bloomroute_lookup_servers_asked_not_current_total",
      "Region servers asked by lookups because the router's replica of "
      "their filter was not current.");
  const auto per = [&](double x) {
    return lookups == 0 ? std::string("-") : FormatRatio(x / lookups);
  };
  page->Section("routing", "Routing since start")
      .KeyValues({{"Lookups", FormatCount(static_cast<uint64_t>(lookups))},
                  {"Servers asked per lookup", per(asked)},
                  {"Servers with rows per lookup", per(with_rows)},
                  {"False routes per lookup", per(asked - with_rows)},
                  {"Asked because not current, per lookup", per(not_current)}});
  const metrics::Histogram::Snapshot fanout =
      r->GetHistogram("bloomroute_lookup_fanout",
                      "Region servers asked per lookup.", {},
                      metrics::PowerOfTwoBuckets())
          .snapshot();
  Rows rows;
  double low = 0;
  for (size_t i = 0; i < fanout.counts.size(); ++i) {
    if (fanout.counts[i] == 0) {
      if (i < fanout.bounds.size()) low = fanout.bounds[i] + 1;
      continue;
    }
    std::string range =
        i < fanout.bounds.size()
            ? (low == fanout.bounds[i]
                   ? FormatCount(static_cast<uint64_t>(low))
                   : FormatCount(static_cast<uint64_t>(low)) + "-" +
                         FormatCount(static_cast<uint64_t>(fanout.bounds[i])))
            : "more";
    rows.push_back({range, FormatCount(fanout.counts[i])});
    if (i < fanout.bounds.size()) low = fanout.bounds[i] + 1;
  }
  page->Table("fanout", {"servers asked", "lookups"}, rows);
}

}  // namespace

Readiness RouterReadiness(const router::Router& router) {
  const router::RouterActivity activity = router.Activity();
  if (router.Servers().empty()) {
    return {false, "the cluster has no region server"};
  }
  if (activity.probes.empty()) {
    return {false, "no region server probed yet"};
  }
  size_t up = 0;
  std::string down;
  for (const auto& p : activity.probes) {
    if (p.up) {
      ++up;
    } else {
      down += (down.empty() ? "" : ", ") + std::to_string(p.server.id) + " (" +
              p.server.address + ")";
    }
  }
  std::string reason = "catalog loaded; " + std::to_string(up) + " of " +
                       std::to_string(activity.probes.size()) +
                       " region servers answered";
  if (!down.empty()) reason += "; down: " + down;
  return {up > 0, reason};
}

std::string RouterStatusPage(router::Router& router, const RouterPageInfo& info,
                             int refresh_seconds) {
  HtmlPage page("bloomroute router " + info.address, refresh_seconds);
  const auto uptime = std::chrono::duration_cast<std::chrono::seconds>(
      std::chrono::system_clock::now() - info.started);
  const Readiness ready = RouterReadiness(router);
  std::vector<router::ServerIndexStats> stats = router.IndexStats();
  uint64_t index_bytes = 0;  // the shares of every server sum to it
  for (const auto& s : stats) index_bytes += s.replica.filter.memory_bytes;
  page.Section("summary", "Summary")
      .KeyValues({{"Address", info.address},
                  {"Version", info.version},
                  {"Uptime", FormatDuration(uptime.count())},
                  {"Ready", (ready.ready ? "yes: " : "no: ") + ready.reason},
                  {"Router index", FormatBytes(index_bytes)}});
  ServersSection(router, std::move(stats), &page);
  TablesSection(router, &page);
  ActivitySection(router.Activity(), &page);
  RoutingSection(info.registry, &page);
  return page.Finish();
}

}  // namespace bloomroute::ops
