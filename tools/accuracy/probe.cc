#include "tools/accuracy/probe.h"

#include <algorithm>
#include <cstdio>

#include "tools/client_command_util.h"

namespace bloomroute::accuracy {
namespace {

std::vector<ServerId> Ids(const std::vector<router::ServerRef>& servers) {
  std::vector<ServerId> ids;
  for (const router::ServerRef& s : servers) ids.push_back(s.id);
  std::sort(ids.begin(), ids.end());
  ids.erase(std::unique(ids.begin(), ids.end()), ids.end());
  return ids;
}

}  // namespace

StatusOr<ValueSample> SampleValues(RouterClient& router,
                                   const router::TableInfo& table,
                                   const std::vector<std::string>& columns,
                                   uint64_t max_rows) {
  ValueSample sample;
  for (const std::string& c : columns) sample.values[c];
  const size_t regions = table.regions.size();
  for (size_t i = 0; i < regions; ++i) {
    // Region i gets its share of the budget (the remainder to the first).
    const uint64_t budget = max_rows / regions + (i < max_rows % regions);
    if (budget == 0) continue;
    const RegionDescriptor& r = table.regions[i].region;
    router::ScanSpec spec{r.start_key, r.end_key, columns};
    BLOOMROUTE_ASSIGN_OR_RETURN(
        std::vector<Row> rows,
        ScanRows(router, table.descriptor.name, spec, budget));
    sample.rows_scanned += rows.size();
    for (const Row& row : rows) {
      for (const Cell& cell : row.cells) {
        auto it = sample.values.find(cell.column);
        if (it != sample.values.end()) it->second.insert(cell.value);
      }
    }
  }
  return sample;
}

std::vector<std::string> PickValues(const std::set<std::string>& values,
                                    size_t n, std::mt19937_64& rng) {
  std::vector<std::string> all(values.begin(), values.end());
  // A partial Fisher-Yates shuffle: the first n places get a uniform choice.
  // (std::shuffle's use of the engine is not specified, so the choice would
  // differ between standard libraries for the same seed.)
  const size_t take = std::min(n, all.size());
  for (size_t i = 0; i < take; ++i) {
    const size_t j = i + static_cast<size_t>(rng() % (all.size() - i));
    std::swap(all[i], all[j]);
  }
  all.resize(take);
  return all;
}

std::string AbsentValue(const std::set<std::string>& seen,
                        std::mt19937_64& rng) {
  while (true) {
    char buf[32];
    std::snprintf(buf, sizeof(buf), "absent-%016llx",
                  static_cast<unsigned long long>(rng()));
    if (seen.count(buf) == 0) return buf;
  }
}

StatusOr<ProbeOutcome> RunProbe(RouterClient& router, std::string_view table,
                                const std::string& column,
                                const std::string& value, bool present) {
  router::LookupSpec spec;
  spec.equals = {EqualityPredicate{column, value}};
  spec.limit = 1;
  spec.columns = {column};
  spec.broadcast = true;
  BLOOMROUTE_ASSIGN_OR_RETURN(router::LookupResult truth,
                              router.Lookup(table, spec));
  spec.broadcast = false;
  BLOOMROUTE_ASSIGN_OR_RETURN(router::LookupResult routed,
                              router.Lookup(table, spec));
  ProbeOutcome p;
  p.column = column;
  p.value = value;
  p.present = present;
  p.asked = Ids(routed.routing.asked);
  p.asked_not_current = Ids(routed.routing.asked_not_current);
  p.truth = Ids(truth.routing.with_rows);
  return p;
}

}  // namespace bloomroute::accuracy
