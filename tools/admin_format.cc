#include "tools/admin_format.h"

#include <algorithm>
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
  std::vector<std::vector<std::string>> rows = {{"ID", "ADDRESS", "REACHABLE",
                                                 "REGIONS", "NOT-SERVED",
                                                 "ROWS", "BYTES", "REPLICA"}};
  uint64_t regions = 0, rows_total = 0, bytes = 0;
  std::string errors;
  for (const router::ServerSummary& x : s) {
    rows.push_back({std::to_string(x.server.id), x.server.address,
                    x.reachable ? "yes" : "NO", std::to_string(x.regions),
                    std::to_string(x.regions_not_served),
                    x.reachable ? std::to_string(x.rows) : "?",
                    x.reachable ? std::to_string(x.bytes) : "?",
                    x.replica_current ? "current" : "behind"});
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
        << ",\"replica_current\":" << Bool(x.replica_current) << "}";
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
  return Aligned(rows) + "(table " + TableField(table) + ": " +
         std::to_string(r.size()) + " regions, " + std::to_string(rows_total) +
         " rows, about " + std::to_string(bytes) + " bytes)\n";
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
        << ",\"index_bytes\":" << x.index_bytes << "}";
    rows += x.rows;
    bytes += x.row_bytes + x.index_bytes;
  }
  out << "],\"total\":{\"regions\":" << r.size() << ",\"rows\":" << rows
      << ",\"bytes\":" << bytes << "}}\n";
  return out.str();
}

}  // namespace bloomroute
