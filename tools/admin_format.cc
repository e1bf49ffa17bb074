#include "tools/admin_format.h"

#include <algorithm>
#include <cstring>
#include <sstream>

#include "tools/row_format.h"

namespace bloomroute {
namespace {

// Cells of a text table, padded to each column's widest cell.
std::string Aligned(const std::vector<std::vector<std::string>>& rows) {
  std::vector<size_t> width;
  for (const auto& row : rows) {
    width.resize(std::max(width.size(), row.size()), 0);
    for (size_t c = 0; c < row.size(); ++c) {
      width[c] = std::max(width[c], row[c].size());
    }
  }
  std::ostringstream out;
  for (const auto& row : rows) {
    std::string line;
    for (size_t c = 0; c < row.size(); ++c) {
      line += row[c];
      if (c + 1 < row.size())
        line += std::string(width[c] - row[c].size() + 2, ' ');
    }
    out << line << "\n";
  }
  return out.str();
}

std::string KeyCell(const std::string& key) {
  return key.empty() ? "-" : TableField(key);
}

const char* Bool(bool b) { return b ? "true" : "false"; }

}  // namespace

std::string FormatServersTable(const std::vector<router::ServerSummary>& s) {
  // LIVE only in a ZooKeeper cluster (the router knows liveness there).
  const bool live = std::any_of(
      s.begin(), s.end(),
      [](const router::ServerSummary& x) { return x.live.has_value(); });
  std::vector<std::vector<std::string>> rows = {{"ID", "ADDRESS", "REACHABLE",
                                                 "REGIONS", "NOT-SERVED",
                                                 "ROWS", "BYTES", "REPLICA"}};
  if (live) rows[0].push_back("LIVE");
  uint64_t regions = 0, rows_total = 0, bytes = 0;
  std::string errors;
  for (const router::ServerSummary& x : s) {
    rows.push_back({std::to_string(x.server.id), x.server.address,
                    x.reachable ? "yes" : "NO", std::to_string(x.regions),
                    std::to_string(x.regions_not_served),
                    x.reachable ? std::to_string(x.rows) : "?",
                    x.reachable ? std::to_string(x.bytes) : "?",
                    x.replica_current ? "current" : "behind"});
    if (live) rows.back().push_back(x.live.value_or(false) ? "yes" : "NO");
    regions += x.regions;
    rows_total += x.rows;
    bytes += x.bytes;
    if (!x.reachable) {
      errors += "server " + std::to_string(x.server.id) + ": " + x.error + "\n";
    }
  }
  return Aligned(rows) + errors + "(" + std::to_string(s.size()) +
         " servers, " + std::to_string(regions) + " regions, " +
         std::to_string(rows_total) + " rows, about " + std::to_string(bytes) +
         " bytes)\n";
}

std::string FormatServersJson(const std::vector<router::ServerSummary>& s) {
  std::ostringstream out;
  uint64_t regions = 0, rows = 0, bytes = 0;
  out << "{\"servers\":[";
  for (size_t i = 0; i < s.size(); ++i) {
    const router::ServerSummary& x = s[i];
    out << (i == 0 ? "" : ",") << "{\"id\":" << x.server.id
        << ",\"address\":" << JsonString(x.server.address)
        << ",\"reachable\":" << Bool(x.reachable);
    if (!x.reachable) out << ",\"error\":" << JsonString(x.error);
    out << ",\"regions\":" << x.regions
        << ",\"regions_not_served\":" << x.regions_not_served
        << ",\"rows\":" << x.rows << ",\"bytes\":" << x.bytes
        << ",\"replica_current\":" << Bool(x.replica_current);
    if (x.live.has_value()) out << ",\"live\":" << Bool(*x.live);
    out << "}";
    regions += x.regions;
    rows += x.rows;
    bytes += x.bytes;
  }
  out << "],\"total\":{\"servers\":" << s.size() << ",\"regions\":" << regions
      << ",\"rows\":" << rows << ",\"bytes\":" << bytes << "}}\n";
  return out.str();
}

std::string FormatRegionsTable(const std::string& table,
                               const std::vector<router::RegionSummary>& r) {
  std::vector<std::vector<std::string>> rows = {{"REGION", "START", "END",
                                                 "SERVER", "STATE", "ROWS",
                                                 "ROW-BYTES", "INDEX-BYTES"}};
  uint64_t rows_total = 0, bytes = 0;
  for (const router::RegionSummary& x : r) {
    const bool known = x.serving != router::RegionServing::kUnreachable;
    rows.push_back({std::to_string(x.region_id), KeyCell(x.start_key),
                    KeyCell(x.end_key),
                    std::to_string(x.server.id) + " " + x.server.address,
                    router::RegionServingName(x.serving),
                    known ? std::to_string(x.rows) : "?",
                    known ? std::to_string(x.row_bytes) : "?",
                    known ? std::to_string(x.index_bytes) : "?"});
    rows_total += x.rows;
    bytes += x.row_bytes + x.index_bytes;
  }
  std::string skipped;
  for (const router::RegionSummary& x : r) {
    if (x.balancer_skipped.empty()) continue;
    skipped += "region " + std::to_string(x.region_id) +
               ": the balancer skips it for " +
               std::to_string(x.balancer_retry_seconds) +
               " s more; its last operation failed: " + x.balancer_skipped +
               "\n";
  }
  return Aligned(rows) + "(table " + TableField(table) + ": " +
         std::to_string(r.size()) + " regions, " + std::to_string(rows_total) +
         " rows, about " + std::to_string(bytes) + " bytes)\n" + skipped;
}

std::string FormatRegionsJson(const std::string& table,
                              const std::vector<router::RegionSummary>& r) {
  std::ostringstream out;
  uint64_t rows = 0, bytes = 0;
  out << "{\"table\":" << JsonString(table) << ",\"regions\":[";
  for (size_t i = 0; i < r.size(); ++i) {
    const router::RegionSummary& x = r[i];
    out << (i == 0 ? "" : ",") << "{\"id\":" << x.region_id
        << ",\"start\":" << JsonString(x.start_key)
        << ",\"end\":" << JsonString(x.end_key)
        << ",\"server_id\":" << x.server.id
        << ",\"server\":" << JsonString(x.server.address)
        << ",\"state\":" << JsonString(router::RegionServingName(x.serving))
        << ",\"rows\":" << x.rows << ",\"row_bytes\":" << x.row_bytes
        << ",\"index_bytes\":" << x.index_bytes;
    if (!x.balancer_skipped.empty()) {
      out << ",\"balancer_skipped\":" << JsonString(x.balancer_skipped)
          << ",\"balancer_retry_seconds\":" << x.balancer_retry_seconds;
    }
    out << "}";
    rows += x.rows;
    bytes += x.row_bytes + x.index_bytes;
  }
  out << "],\"total\":{\"regions\":" << r.size() << ",\"rows\":" << rows
      << ",\"bytes\":" << bytes << "}}\n";
  return out.str();
}

namespace {

std::string Ids(const std::vector<uint64_t>& ids) {
  std::string out;
  for (size_t i = 0; i < ids.size(); ++i) {
    out += (i == 0                ? ""
            : i + 1 == ids.size() ? " and "
                                  : ", ") +
           std::to_string(ids[i]);
  }
  return out;
}

std::string Seconds(uint64_t micros) {
  std::ostringstream out;
  out.setf(std::ios::fixed);
  out.precision(3);
  out << static_cast<double>(micros) / 1e6 << " s";
  return out.str();
}

std::string Millis(uint64_t micros) {
  std::ostringstream out;
  out.setf(std::ios::fixed);
  out.precision(1);
  out << static_cast<double>(micros) / 1e3 << " ms";
  return out.str();
}

}  // namespace

std::string FormatRegionOpText(const std::string& kind,
                               const std::vector<uint64_t>& from,
                               const router::RegionOpResult& r) {
  std::string out =
      kind + ": region" + (from.size() > 1 ? "s " : " ") + Ids(from) + " -> ";
  for (size_t i = 0; i < r.regions.size(); ++i) {
    const router::RegionLocation& n = r.regions[i];
    out += (i == 0 ? "" : " and ") + std::to_string(n.region.region_id) + " [" +
           KeyCell(n.region.start_key) + ", " + KeyCell(n.region.end_key) + ")";
  }
  if (!r.regions.empty()) {
    out += " on server " + std::to_string(r.regions[0].server.id) + " " +
           r.regions[0].server.address;
  }
  return out + "; " + std::to_string(r.rows_copied) + " rows (" +
         std::to_string(r.bytes_copied) + " bytes) copied, switched after " +
         Seconds(r.switched_micros) + ", done in " + Seconds(r.total_micros) +
         ", writes waited " + Millis(r.switch_micros) + " at the switch (" +
         std::to_string(r.catch_up_rounds) + " catch-up rounds)\n";
}

std::string FormatRegionOpJson(const std::string& kind,
                               const std::vector<uint64_t>& from,
                               const router::RegionOpResult& r) {
  std::ostringstream out;
  out << "{\"operation\":" << JsonString(kind) << ",\"from\":[";
  for (size_t i = 0; i < from.size(); ++i)
    out << (i == 0 ? "" : ",") << from[i];
  out << "],\"regions\":[";
  for (size_t i = 0; i < r.regions.size(); ++i) {
    const router::RegionLocation& n = r.regions[i];
    out << (i == 0 ? "" : ",") << "{\"id\":" << n.region.region_id
        << ",\"start\":" << JsonString(n.region.start_key)
        << ",\"end\":" << JsonString(n.region.end_key)
        << ",\"server_id\":" << n.server.id
        << ",\"server\":" << JsonString(n.server.address) << "}";
  }
  out << "],\"rows_copied\":" << r.rows_copied
      << ",\"bytes_copied\":" << r.bytes_copied
      << ",\"catch_up_rounds\":" << r.catch_up_rounds
      << ",\"switch_micros\":" << r.switch_micros
      << ",\"switched_micros\":" << r.switched_micros
      << ",\"total_micros\":" << r.total_micros << "}";
  return out.str();
}

namespace {

const char* StepKind(const router::BalanceReport::Step& step) {
  return step.kind == router::BalanceReport::Step::Kind::kSplit ? "split"
                                                                : "move";
}

}  // namespace

std::string FormatStepText(const router::BalanceReport::Step& step) {
  return FormatRegionOpText(StepKind(step), {step.region_id}, step.result);
}

std::string FormatStepJson(const router::BalanceReport::Step& step) {
  return FormatRegionOpJson(StepKind(step), {step.region_id}, step.result);
}

std::string FormatBalanceText(const router::BalanceReport& report) {
  std::string out;
  for (const router::BalanceReport::Step& s : report.steps) {
    out += FormatStepText(s);
  }
  for (const std::string& f : report.failures) out += "failed: " + f + "\n";
  return out + (report.balanced ? "balanced: no region past its split size, "
                                  "region counts at most one apart\n"
                                : "stopped: " + report.stopped + "\n");
}

std::string FormatBalanceJson(const router::BalanceReport& report) {
  std::string out = std::string("{\"balanced\":") + Bool(report.balanced) +
                    ",\"failed\":" + Bool(report.failed) +
                    ",\"stopped\":" + JsonString(report.stopped) +
                    ",\"steps\":[";
  for (size_t i = 0; i < report.steps.size(); ++i) {
    out += (i == 0 ? "" : ",") + FormatStepJson(report.steps[i]);
  }
  out += "],\"failures\":[";
  for (size_t i = 0; i < report.failures.size(); ++i) {
    out += (i == 0 ? "" : ",") + JsonString(report.failures[i]);
  }
  return out + "]}\n";
}

namespace {

struct Period {
  const char* name;
  const char* alias;
  uint32_t seconds;
};
constexpr Period kPeriods[] = {{"sec", "s", 1},
                               {"min", "m", 60},
                               {"hour", "h", 3600},
                               {"day", "d", 86400}};
constexpr char kSizeUnits[] = "BKMGTP";

}  // namespace

StatusOr<router::QuotaLimit> ParseQuotaRate(const std::string& text,
                                            bool bytes) {
  const std::string accepted =
      bytes ? "a size per period, as 50M/sec (B, K, M, G, T or P; sec, "
              "min, hour or day), or none"
            : "a count per period, as 1000req/sec (sec, min, hour or day), "
              "or none";
  auto bad = [&]() {
    return Status::InvalidArgument(QuoteForMessage(text) + " is not " +
                                   accepted);
  };
  if (text == "none") return router::QuotaLimit{};
  const size_t slash = text.find('/');
  if (slash == std::string::npos || slash == 0) return bad();
  size_t digits = 0;
  while (digits < slash && text[digits] >= '0' && text[digits] <= '9') {
    ++digits;
  }
  if (digits == 0 || digits > 15) return bad();
  uint64_t amount = std::stoull(text.substr(0, digits));
  std::string unit = text.substr(digits, slash - digits);
  if (bytes) {
    if (unit.size() == 2 && unit[1] == 'B' && unit[0] != 'B') unit.pop_back();
    if (unit.size() > 1) return bad();
    if (unit.size() == 1) {
      const char* at = std::strchr(kSizeUnits, unit[0]);
      if (at == nullptr || unit[0] == '\0') return bad();
      for (const char* u = kSizeUnits; u < at; ++u) {
        if (amount > router::Quota::kMaxAmount / 1024) {
          return Status::InvalidArgument(
              QuoteForMessage(text) + " is over the limit of " +
              std::to_string(router::Quota::kMaxAmount) + " bytes");
        }
        amount *= 1024;
      }
    }
  } else if (!unit.empty() && unit != "req") {
    return bad();
  }
  const std::string period = text.substr(slash + 1);
  for (const Period& p : kPeriods) {
    if (period == p.name || period == p.alias) {
      router::QuotaLimit limit{amount, p.seconds};
      if (amount == 0 || amount > router::Quota::kMaxAmount) {
        return Status::InvalidArgument(
            QuoteForMessage(text) + ": the amount must be in [1, " +
            std::to_string(router::Quota::kMaxAmount) +
            "] (none removes the limit)");
      }
      return limit;
    }
  }
  return bad();
}

std::string FormatQuotaRate(const router::QuotaLimit& limit, bool bytes) {
  if (limit.none()) return "-";
  uint64_t amount = limit.amount;
  std::string unit = bytes ? "B" : "req";
  if (bytes) {
    for (const char* u = kSizeUnits + 1; *u != '\0' && amount % 1024 == 0;
         ++u) {
      amount /= 1024;
      unit = std::string(1, *u);
    }
  }
  std::string period = std::to_string(limit.seconds) + "sec";
  for (const Period& p : kPeriods) {
    if (p.seconds == limit.seconds) period = p.name;
  }
  return std::to_string(amount) + unit + "/" + period;
}

std::string FormatQuotasTable(const std::vector<router::Quota>& quotas) {
  std::vector<std::vector<std::string>> rows = {
      {"USER", "TABLE", "REQUESTS", "BYTES"}};
  for (const router::Quota& q : quotas) {
    rows.push_back(
        {TableField(q.user), q.table.empty() ? "-" : TableField(q.table),
         FormatQuotaRate(q.requests, false), FormatQuotaRate(q.bytes, true)});
  }
  return Aligned(rows) + "(" + std::to_string(quotas.size()) + " quotas)\n";
}

std::string FormatQuotasJson(const std::vector<router::Quota>& quotas) {
  auto limit = [](const router::QuotaLimit& l) {
    if (l.none()) return std::string("null");
    return "{\"amount\":" + std::to_string(l.amount) +
           ",\"seconds\":" + std::to_string(l.seconds) + "}";
  };
  std::string out = "{\"quotas\":[";
  for (size_t i = 0; i < quotas.size(); ++i) {
    const router::Quota& q = quotas[i];
    out += std::string(i == 0 ? "" : ",") + "{\"user\":" + JsonString(q.user) +
           ",\"table\":" + JsonString(q.table) +
           ",\"requests\":" + limit(q.requests) +
           ",\"bytes\":" + limit(q.bytes) + "}";
  }
  return out + "]}\n";
}

std::string FormatMembersText(const coord::ClusterMembers& members) {
  std::string out =
      "routers (" + std::to_string(members.routers.size()) + "):\n";
  for (const coord::LiveRouter& r : members.routers) {
    out += std::string("  ") + (r.leading ? "serving" : "standby") + "  " +
           r.address + "  id " +
           (r.router_id == 0 ? "-" : std::to_string(r.router_id)) + "  epoch " +
           std::to_string(r.epoch) + "\n";
  }
  out += "live region servers (" +
         std::to_string(members.region_servers.size()) + "):\n";
  for (const coord::LiveRegionServer& s : members.region_servers) {
    out += "  " + s.address + "  " + s.data + "\n";
  }
  return out;
}

std::string FormatMembersJson(const coord::ClusterMembers& members) {
  std::string out = "{\"routers\":[";
  for (size_t i = 0; i < members.routers.size(); ++i) {
    const coord::LiveRouter& r = members.routers[i];
    if (i > 0) out += ",";
    out += "{\"address\":" + JsonString(r.address) +
           ",\"serving\":" + (r.leading ? "true" : "false") +
           ",\"router_id\":" + std::to_string(r.router_id) +
           ",\"epoch\":" + std::to_string(r.epoch) + "}";
  }
  out += "],\"region_servers\":[";
  for (size_t i = 0; i < members.region_servers.size(); ++i) {
    const coord::LiveRegionServer& s = members.region_servers[i];
    if (i > 0) out += ",";
    out += "{\"address\":" + JsonString(s.address) +
           ",\"registered\":" + JsonString(s.data) + "}";
  }
  return out + "]}\n";
}

}  // namespace bloomroute
