// The filter lab's experiments (issue 3): each reproduces a published table of
// ../shared/papers by running our implementations of the filters involved on
// this machine, and returns the tables it measured. `bloomroute lab` prints
// them; docs/filters.md is generated from `bloomroute lab all`.
//
//   scbf-params  SCBF paper, table 1: k, m, n of a 45 KB split filter.
//   overflow     SCBF paper, tables 2-4: counter overflow odds, SCBF vs CBF.
//   mbmbf        M-BMBF paper, table 1 and figures 3-6.
//   ddcf         DDCF paper, tables 3-8: DDCF vs DCF vs DCBF.
//   growth       Almeida et al.: SBF vs SSCBF from 1,000 to 10^7 elements.
//
// Quick mode shrinks inputs and probe counts so that every experiment runs in
// about a second (for tests); the tables keep their shape.
//
// Thread-safety: experiments are independent and single-threaded.
#ifndef BLOOMROUTE_LAB_EXPERIMENTS_EXPERIMENTS_H_
#define BLOOMROUTE_LAB_EXPERIMENTS_EXPERIMENTS_H_

#include <cstdint>
#include <string>
#include <vector>

#include "common/statusor.h"
#include "lab/experiments/report.h"

namespace bloomroute::lab {

struct LabOptions {
  bool quick = false;
  uint64_t seed = 1;  // names every element the lab inserts or probes
};

StatusOr<LabReport> RunScbfParams(const LabOptions& options);
StatusOr<LabReport> RunOverflow(const LabOptions& options);
StatusOr<LabReport> RunMbmbf(const LabOptions& options);
StatusOr<LabReport> RunDdcf(const LabOptions& options);
StatusOr<LabReport> RunGrowth(const LabOptions& options);

struct Experiment {
  const char* name;
  const char* summary;
  StatusOr<LabReport> (*run)(const LabOptions&);
};

// The five experiments, in the order `lab all` runs them.
const std::vector<Experiment>& AllExperiments();

// The experiment named `name`; NotFound otherwise.
StatusOr<Experiment> FindExperiment(const std::string& name);

}  // namespace bloomroute::lab

#endif  // BLOOMROUTE_LAB_EXPERIMENTS_EXPERIMENTS_H_
