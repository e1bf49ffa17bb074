// Probing a table's routing through the router (for `bloomroute accuracy`):
// sampling values the table holds, generating values it does not hold, and
// looking each one up routed and broadcast (tools/accuracy/accuracy.h says
// what the two lookups measure).
//
// The figures assume the table does not change while it is probed: a write
// between a probe's two lookups can show as a false positive or negative.
//
// Thread-safety: as the RouterClient passed in (every function may run
// concurrently with different state).
#ifndef BLOOMROUTE_TOOLS_ACCURACY_PROBE_H_
#define BLOOMROUTE_TOOLS_ACCURACY_PROBE_H_

#include <cstdint>
#include <map>
#include <random>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "common/statusor.h"
#include "router/router.h"
#include "thrift/router_client.h"
#include "tools/accuracy/accuracy.h"

namespace bloomroute::accuracy {

struct ValueSample {
  uint64_t rows_scanned = 0;
  // column -> the distinct values seen in it.
  std::map<std::string, std::set<std::string>> values;
};

// Scans up to `max_rows` rows of `table` (projected on `columns`) and
// collects the distinct values of each column. The budget is split evenly
// over the table's regions, each scanned from its start, so that every
// server contributes values (a prefix of the whole table would cover only
// its first regions). The router's error otherwise.
StatusOr<ValueSample> SampleValues(RouterClient& router,
                                   const router::TableInfo& table,
                                   const std::vector<std::string>& columns,
                                   uint64_t max_rows);

// Up to `n` of `values`, chosen uniformly at random by `rng` (all of them,
// in random order, when there are fewer).
std::vector<std::string> PickValues(const std::set<std::string>& values,
                                    size_t n, std::mt19937_64& rng);

// "absent-" followed by 16 random hex digits, not in `seen`.
std::string AbsentValue(const std::set<std::string>& seen,
                        std::mt19937_64& rng);

// Looks `column` = `value` up twice, broadcast (the truth) then routed,
// each with limit 1 and a projection on `column` (the servers that hold
// matches answer non-empty all the same; the router notes a server's rows
// before it truncates the merged answer). A server that does not answer
// fails the probe (Unavailable naming it).
StatusOr<ProbeOutcome> RunProbe(RouterClient& router, std::string_view table,
                                const std::string& column,
                                const std::string& value, bool present);

}  // namespace bloomroute::accuracy

#endif  // BLOOMROUTE_TOOLS_ACCURACY_PROBE_H_
