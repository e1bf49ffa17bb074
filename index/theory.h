// Closed-form filter math, used to size filters and to check measurements.
//
// Notation follows the papers in ../shared/papers: a split filter has k slices
// of m slots; n elements give each slot a non-zero probability (fill) f = 1 -
// (1 - 1/m)^n ~ 1 - e^(-n/m); the false-positive rate is f^k. A scalable filter
// (Almeida et al., 2007) has stages i = 0, 1, ... with error P_i = P0 r^i; the
// whole series stays below P0 / (1 - r).
//
// All functions are pure and thread-safe. Arguments out of their domain (a
// probability outside (0, 1), m = 0) give NaN rather than a crash; callers that
// take user input validate it first (see SscbfConfig::Validate).
#ifndef BLOOMROUTE_INDEX_THEORY_H_
#define BLOOMROUTE_INDEX_THEORY_H_

#include <cstdint>

namespace bloomroute::theory {

// f^k: the false-positive rate of a split filter whose k slices have fill f.
double StageFalsePositiveRate(double fill, uint32_t slices);

// The slice count that reaches `fpr` at fill `fill`: ceil(log(1/P) / log(1/f)),
// which is ceil(log2(1/P)) at f = 1/2. At least 1. Exact powers are not rounded
// up by floating-point noise (P = 2^-10 gives 10).
uint32_t OptimalSliceCount(double fpr, double fill = 0.5);

// Elements a slice of m slots holds when its fill reaches f: -m ln(1 - f),
// which is m ln 2 at f = 1/2.
double CapacityAtFill(double slice_length, double fill = 0.5);

// The slice length whose capacity at fill f is at least n: ceil(n / -ln(1-f)),
// i.e. ceil(n / ln 2) at f = 1/2.
uint64_t SliceLengthForCapacity(double capacity, double fill = 0.5);

// Expected fill of a slice of m slots after n insertions: 1 - (1 - 1/m)^n.
double ExpectedFill(double elements, double slice_length);

// The compounded false-positive rate of a scalable filter with `stages` stages
// of error P0 r^i: 1 - prod_{i<stages} (1 - P0 r^i).
double SbfCompoundedBound(double p0, double r, uint32_t stages);
// Its limit over infinitely many stages, bounded by sum_i P0 r^i = P0 / (1 -
// r).
double SbfCompoundedLimit(double p0, double r);

// Exact P(X >= j) for X ~ Binomial(n, p): the probability that a given counter
// reaches j when n elements each hit it with probability p (p = 1/m for a slice
// of m counters). For j above the mean the tail is summed directly from pmf(j)
// (computed in log space), so tails far below 1e-300 relative to 1 are still
// right (not a bound, not 1 - head); for j at or below the mean it is 1 minus
// the head, which is then at most about 1/2. Either sum starts at its largest
// term and stops when further terms cannot change it, so the cost is a few
// hundred steps at filter loads (about 9 standard deviations in general).
// NaN when n p (1 - p) > 1e12.
double BinomialTailAtLeast(uint64_t n, double p, uint64_t j);

// Exact P(X >= j) for X ~ Poisson(lambda) (the large-m limit, lambda = n/m),
// computed like BinomialTailAtLeast. lambda must be in [0, 1e12] (NaN
// otherwise).
double PoissonTailAtLeast(double lambda, uint64_t j);

// The probability that at least one of `counters` independent counters, each
// reaching the threshold with probability `p`, does: 1 - (1 - p)^counters.
double AnyCounterReaches(double p, uint64_t counters);

}  // namespace bloomroute::theory

#endif  // BLOOMROUTE_INDEX_THEORY_H_
