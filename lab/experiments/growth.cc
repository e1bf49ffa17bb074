// Experiment 5, growth: Almeida et al.'s scalable filters (../shared/papers/
// 001) grown from n0 = 1,000 to 10^7 elements: the plain SBF (one bit per
// slot) against our SSCBF (4-bit DDCF counters plus a one-bit occupancy view),
// for r in {0.5, 0.8, 0.9} and s in {2, 4} at a target P = 1 %. Both use the
// same stage geometry (StageGeometryFor), so they answer every query alike and
// differ in memory and speed. Contains is timed on pre-hashed absent keys.
#include <cmath>
#include <vector>

#include "index/scalable_split_counting_bloom_filter.h"
#include "lab/experiments/experiments.h"
#include "lab/scalable_bloom_filter.h"

namespace bloomroute::lab {

namespace {

constexpr double kTargetFpr = 0.01;

struct Grown {
  uint32_t stages = 0;
  uint64_t bytes = 0;
  double insert_ns = 0, query_ns = 0, fpr = 0, estimated_fpr = 0;
};

// The SSCBF returns the stage index; the SBF a Status.
Status InsertInto(ScalableSplitCountingBloomFilter* f, const ElementHash& h) {
  return f->Insert(h).status();
}
Status InsertInto(ScalableBloomFilter* f, const ElementHash& h) {
  return f->Insert(h);
}

template <typename Filter>
StatusOr<Grown> Grow(const SscbfConfig& c, uint64_t elements,
                     const std::vector<ElementHash>& absent,
                     const LabOptions& o) {
  BLOOMROUTE_ASSIGN_OR_RETURN(Filter f, Filter::Create(c));
  Grown g;
  Stopwatch insert;
  for (uint64_t i = 0; i < elements; ++i) {
    BLOOMROUTE_RETURN_IF_ERROR(
        InsertInto(&f, LabKey(o.seed, kPresentStream, i)));
  }
  g.insert_ns = insert.ElapsedNanos() / elements;
  uint64_t positives = 0;
  Stopwatch query;
  for (const ElementHash& h : absent) positives += f.Contains(h);
  g.query_ns = query.ElapsedNanos() / absent.size();
  g.fpr = static_cast<double>(positives) / absent.size();
  g.stages = f.stage_count();
  g.bytes = f.MemoryBytes();
  g.estimated_fpr = f.EstimatedFpr();
  return g;
}

std::vector<std::string> Row(const char* name, const SscbfConfig& c,
                             uint64_t elements, const Grown& g) {
  return {name,
          FormatFixed(c.tightening_ratio, 1),
          FormatFixed(c.growth_factor, 0),
          std::to_string(g.stages),
          FormatFixed(8.0 * g.bytes / elements, 2),
          FormatFixed(g.bytes / (1024.0 * 1024.0), 1),
          FormatSci(g.fpr),
          FormatSci(g.estimated_fpr),
          FormatSci(kTargetFpr),
          FormatFixed(g.insert_ns, 0),
          FormatFixed(g.query_ns, 1)};
}

}  // namespace

StatusOr<LabReport> RunGrowth(const LabOptions& o) {
  const uint64_t elements = o.quick ? 100000 : 10000000;
  const uint64_t probes = o.quick ? 100000 : 2000000;
  std::vector<ElementHash> absent;
  absent.reserve(probes);
  for (uint64_t i = 0; i < probes; ++i) {
    absent.push_back(LabKey(o.seed, kAbsentStream, i));
  }
  MarkdownTable t({"filter", "r", "s", "stages", "bits / element", "MiB",
                   "FPR measured", "FPR estimated", "target P", "insert ns",
                   "contains ns"});
  for (double r : {0.5, 0.8, 0.9}) {
    for (double s : {2.0, 4.0}) {
      SscbfConfig c;
      c.target_fpr = kTargetFpr;
      c.tightening_ratio = r;
      c.growth_factor = s;
      c.initial_capacity = 1000;
      BLOOMROUTE_ASSIGN_OR_RETURN(
          Grown sbf, Grow<ScalableBloomFilter>(c, elements, absent, o));
      BLOOMROUTE_ASSIGN_OR_RETURN(
          Grown sscbf,
          Grow<ScalableSplitCountingBloomFilter>(c, elements, absent, o));
      t.AddRow(Row("SBF", c, elements, sbf));
      t.AddRow(Row("SSCBF", c, elements, sscbf));
    }
  }
  LabReport rep;
  rep.experiment = "growth";
  rep.title = "growth: SBF vs SSCBF from 1,000 to " + FormatCount(elements) +
              " elements (Almeida et al.)";
  rep.notes = {
      "target P = 1 % (P0 = P (1 - r)), n0 = 1,000, full at mean fill 1/2; " +
          FormatCount(elements) + " distinct elements inserted (seed " +
          std::to_string(o.seed) + ")",
      "FPR and contains ns over " + FormatCount(probes) +
          " pre-hashed absent elements; insert ns includes hashing; "
          "bits / element = 8 MemoryBytes() / elements"};
  rep.tables.push_back(std::move(t));
  rep.table_captions.push_back("");
  return rep;
}

}  // namespace bloomroute::lab
