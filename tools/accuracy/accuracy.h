// Routing accuracy: from the outcome of each probe lookup to the figures
// `bloomroute accuracy` reports. Pure computation, no I/O.
//
// A probe is one value of one indexed column, looked up twice:
//   routed     as clients do (the filters decide): `asked` is every server the
//              router asked, `asked_not_current` the subset asked only because
//              the router's replica of its filter was not current;
//   broadcast  every server holding regions of the table asked
//              (LookupSpec::broadcast): the servers that returned rows are the
//              ground truth `truth`, from their exact local indexes.
//
// Definitions (per probe p, server s among the table's servers S):
//   false negative   s in truth(p) and s not in asked(p). Must never happen
//                    (the design's first invariant); counted per (p, s).
//   filter-tested    s not in truth(p) and s not in asked_not_current(p):
//                    the filter alone decided whether to ask s.
//   false positive   s filter-tested and s in asked(p).
//   measured FPR(s)  false positives at s / probes where s was filter-tested,
//                    with a 95 % Wilson score interval.
//   false routes(p)  the false positives of p (servers asked in vain, not
//                    counting servers asked because not current).
//   fanout(p)        |asked(p)| - |asked_not_current(p)|: servers the filters
//                    sent the probe to.
//
// Example:
//   AccuracyFigures f = ComputeAccuracy(outcomes, servers);
//   if (f.false_negatives > 0) ... the routing lost rows ...
#ifndef BLOOMROUTE_TOOLS_ACCURACY_ACCURACY_H_
#define BLOOMROUTE_TOOLS_ACCURACY_ACCURACY_H_

#include <cstdint>
#include <map>
#include <string>
#include <utility>
#include <vector>

namespace bloomroute::accuracy {

using ServerId = uint32_t;

struct ProbeOutcome {
  std::string column;  // "family:qualifier"
  std::string value;
  bool present = false;  // sampled from the table (else generated, absent)
  // Each ascending, without duplicates.
  std::vector<ServerId> asked;
  std::vector<ServerId> asked_not_current;  // a subset of `asked`
  std::vector<ServerId> truth;
};

// A server holding regions of the table and what its filter replica says
// about itself (router::ServerIndexStats).
struct ServerFilter {
  ServerId id = 0;
  std::string address;
  double estimated_fpr = 0;  // SscbfStats::estimated_fpr
  double stage0_target =
      0;  // P_i of the oldest open stage: P0, unless a
          // compaction started the filter further up the
          // ladder (index/scalable_split_counting_bloom_filter.h)
  double compounded_bound = 0;  // 1 - prod(1 - P_i) over the open stages
  uint32_t stages = 0;
  uint64_t elements = 0;
};

struct ServerAccuracy {
  ServerFilter filter;
  uint64_t probes_tested = 0;  // probes where the server was filter-tested
  uint64_t false_positives = 0;
  uint64_t asked_not_current = 0;  // probes asking it because not current
  uint64_t false_negatives = 0;
  double measured_fpr = 0;  // 0 when no probe tested it
  double ci_low = 0;        // 95 % Wilson interval of measured_fpr
  double ci_high = 0;
};

// Mean false routes per probe, over a group of probes.
struct FalseRoutes {
  uint64_t probes = 0;
  uint64_t false_routes = 0;
  double mean = 0;  // false_routes / probes, 0 for no probes
};

struct AccuracyFigures {
  uint64_t probes = 0;
  FalseRoutes all;
  FalseRoutes present;
  FalseRoutes absent;
  uint64_t false_negatives = 0;  // (probe, server) pairs
  uint64_t probes_with_false_negatives = 0;
  uint64_t asked_not_current = 0;  // (probe, server) pairs
  // fanout -> probes with that fanout.
  std::map<uint32_t, uint64_t> fanout;
  double mean_fanout = 0;
  std::vector<ServerAccuracy> servers;  // in the order given
};

// The figures of `outcomes` over the table's servers `servers` (distinct
// ids). Servers in an outcome that are not in `servers` are ignored (the
// router only asks servers of the table). Never fails.
AccuracyFigures ComputeAccuracy(const std::vector<ProbeOutcome>& outcomes,
                                const std::vector<ServerFilter>& servers);

// The Wilson score interval of `successes` in `trials` at z (1.96: 95 %):
// (p + z²/2n ± z sqrt(p(1-p)/n + z²/4n²)) / (1 + z²/n) with p = successes/n,
// clamped to [0, 1]; (0, 1) for no trials.
std::pair<double, double> WilsonInterval(uint64_t successes, uint64_t trials,
                                         double z = 1.96);

}  // namespace bloomroute::accuracy

#endif  // BLOOMROUTE_TOOLS_ACCURACY_ACCURACY_H_
