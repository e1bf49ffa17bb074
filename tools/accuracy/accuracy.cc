#include "tools/accuracy/accuracy.h"

#include <algorithm>
#include <cmath>
#include <tuple>

namespace bloomroute::accuracy {
namespace {

bool Holds(const std::vector<ServerId>& sorted, ServerId id) {
  return std::binary_search(sorted.begin(), sorted.end(), id);
}

void AddProbe(uint64_t false_routes, FalseRoutes* group) {
  ++group->probes;
  group->false_routes += false_routes;
}

void Finish(FalseRoutes* group) {
  group->mean = group->probes == 0 ? 0
                                   : static_cast<double>(group->false_routes) /
                                         static_cast<double>(group->probes);
}

// Adds one probe's outcome at every server; returns its false routes.
uint64_t CountProbe(const ProbeOutcome& p, AccuracyFigures* f) {
  uint64_t false_routes = 0;
  bool false_negative = false;
  for (ServerAccuracy& s : f->servers) {
    const ServerId id = s.filter.id;
    const bool asked = Holds(p.asked, id);
    if (Holds(p.truth, id)) {
      if (!asked) {
        ++s.false_negatives;
        ++f->false_negatives;
        false_negative = true;
      }
    } else if (Holds(p.asked_not_current, id)) {
      ++s.asked_not_current;
      ++f->asked_not_current;
    } else {
      ++s.probes_tested;
      if (asked) {
        ++s.false_positives;
        ++false_routes;
      }
    }
  }
  if (false_negative) ++f->probes_with_false_negatives;
  return false_routes;
}

}  // namespace

AccuracyFigures ComputeAccuracy(const std::vector<ProbeOutcome>& outcomes,
                                const std::vector<ServerFilter>& servers) {
  AccuracyFigures f;
  for (const ServerFilter& s : servers) {
    f.servers.push_back(ServerAccuracy{s});
  }
  uint64_t fanout_sum = 0;
  for (const ProbeOutcome& p : outcomes) {
    ++f.probes;
    const uint64_t false_routes = CountProbe(p, &f);
    AddProbe(false_routes, &f.all);
    AddProbe(false_routes, p.present ? &f.present : &f.absent);
    uint32_t fanout = 0;
    for (const ServerAccuracy& s : f.servers) {
      if (Holds(p.asked, s.filter.id) &&
          !Holds(p.asked_not_current, s.filter.id)) {
        ++fanout;
      }
    }
    ++f.fanout[fanout];
    fanout_sum += fanout;
  }
  Finish(&f.all);
  Finish(&f.present);
  Finish(&f.absent);
  if (f.probes > 0) {
    f.mean_fanout =
        static_cast<double>(fanout_sum) / static_cast<double>(f.probes);
  }
  for (ServerAccuracy& s : f.servers) {
    if (s.probes_tested > 0) {
      s.measured_fpr = static_cast<double>(s.false_positives) /
                       static_cast<double>(s.probes_tested);
    }
    std::tie(s.ci_low, s.ci_high) =
        WilsonInterval(s.false_positives, s.probes_tested);
  }
  return f;
}

std::pair<double, double> WilsonInterval(uint64_t successes, uint64_t trials,
                                         double z) {
  if (trials == 0) return {0.0, 1.0};
  const double n = static_cast<double>(trials);
  const double p = static_cast<double>(successes) / n;
  const double z2 = z * z;
  const double center = p + z2 / (2 * n);
  const double spread = z * std::sqrt(p * (1 - p) / n + z2 / (4 * n * n));
  const double denominator = 1 + z2 / n;
  return {std::max(0.0, (center - spread) / denominator),
          std::min(1.0, (center + spread) / denominator)};
}

}  // namespace bloomroute::accuracy
