#include "lab/experiments/experiments.h"

namespace bloomroute::lab {

const std::vector<Experiment>& AllExperiments() {
  static const std::vector<Experiment> kAll = {
      {"scbf-params", "SCBF parameters of a 45 KB array, then filled to 1/2",
       &RunScbfParams},
      {"overflow", "counter overflow odds at fill 1/2, SCBF vs standard CBF",
       &RunOverflow},
      {"mbmbf", "M-BMBF vs split Bloom filter vs 2BDBF, same memory",
       &RunMbmbf},
      {"ddcf", "DDCF vs DCF vs DCBF: overflow handling time and memory",
       &RunDdcf},
      {"growth", "SBF vs SSCBF grown from 1,000 elements", &RunGrowth},
  };
  return kAll;
}

StatusOr<Experiment> FindExperiment(const std::string& name) {
  for (const Experiment& e : AllExperiments()) {
    if (name == e.name) return e;
  }
  return Status::NotFound("no lab experiment named '" + name + "'");
}

}  // namespace bloomroute::lab
