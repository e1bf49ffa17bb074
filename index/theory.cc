#include "index/theory.h"

#include <cmath>
#include <limits>

namespace bloomroute::theory {

namespace {

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();
// Relative size below which further tail terms cannot change a double sum.
constexpr double kNegligible = 1e-18;
// Below this, log(n!/(n-t)!) is summed term by term: lgamma(n+1) -
// lgamma(n-t+1) cancels catastrophically for large n (an error of ~1e-16 * n ln
// n).
constexpr uint64_t kDirectFallingLimit = 100000;

// log P(X = t) for X ~ Binomial(n, p), 0 < p < 1, t <= n.
double LogBinomialPmf(double n, double p, uint64_t t) {
  const double dt = static_cast<double>(t);
  double log_falling = 0;  // log(n (n-1) ... (n-t+1))
  if (t <= kDirectFallingLimit) {
    for (uint64_t i = 0; i < t; ++i) log_falling += std::log(n - i);
  } else {
    log_falling = std::lgamma(n + 1) - std::lgamma(n - dt + 1);
  }
  return log_falling - std::lgamma(dt + 1) + dt * std::log(p) +
         (n - dt) * std::log1p(-p);
}

// Sums a unimodal series from its term at `start` away from the mode, where
// each step multiplies the term by ratio(t) (t is the index just left), until
// the terms are negligible or `last` is passed. The first term is the largest,
// so the loop ends within a few hundred steps past any realistic start.
template <typename Ratio>
double SumAwayFromMode(double first_term, int64_t start, int64_t step,
                       int64_t last, Ratio ratio) {
  double term = first_term, sum = 0;
  for (int64_t t = start;; t += step) {
    sum += term;
    if (term <= sum * kNegligible || t == last) break;
    term *= ratio(t);
    if (term == 0.0) break;
  }
  return sum;
}

}  // namespace

double StageFalsePositiveRate(double fill, uint32_t slices) {
  if (!(fill >= 0.0 && fill <= 1.0)) return kNaN;
  return std::pow(fill, static_cast<double>(slices));
}

uint32_t OptimalSliceCount(double fpr, double fill) {
  if (!(fpr > 0.0 && fpr < 1.0) || !(fill > 0.0 && fill < 1.0)) return 0;
  const double k = std::log(1.0 / fpr) / std::log(1.0 / fill);
  // 1e-9 absorbs the rounding of log() for exact powers such as P = 2^-10.
  const double rounded = std::ceil(k - 1e-9);
  if (rounded < 1.0) return 1;
  // No filter has 2^32 slices; refuse rather than convert out of range.
  if (!(rounded < 4294967296.0)) return 0;
  return static_cast<uint32_t>(rounded);
}

double CapacityAtFill(double slice_length, double fill) {
  if (!(fill > 0.0 && fill < 1.0)) return kNaN;
  return -slice_length * std::log1p(-fill);
}

uint64_t SliceLengthForCapacity(double capacity, double fill) {
  if (!(fill > 0.0 && fill < 1.0) || !(capacity > 0.0)) return 0;
  const double m = std::ceil(capacity / -std::log1p(-fill));
  if (!(m < 18446744073709551616.0)) return 0;  // not representable (>= 2^64)
  return static_cast<uint64_t>(m);
}

double ExpectedFill(double elements, double slice_length) {
  if (!(slice_length >= 1.0)) return kNaN;
  return -std::expm1(elements * std::log1p(-1.0 / slice_length));
}

double SbfCompoundedBound(double p0, double r, uint32_t stages) {
  if (!(p0 > 0.0 && p0 < 1.0) || !(r > 0.0 && r < 1.0)) return kNaN;
  double log_pass = 0.0;  // log prod (1 - P_i)
  double p = p0;
  for (uint32_t i = 0; i < stages; ++i, p *= r) log_pass += std::log1p(-p);
  return -std::expm1(log_pass);
}

double SbfCompoundedLimit(double p0, double r) {
  if (!(p0 > 0.0 && p0 < 1.0) || !(r > 0.0 && r < 1.0)) return kNaN;
  return p0 / (1.0 - r);
}

double BinomialTailAtLeast(uint64_t n, double p, uint64_t j) {
  if (!(p >= 0.0 && p <= 1.0)) return kNaN;
  if (j == 0) return 1.0;
  if (j > n || p == 0.0) return 0.0;
  if (p == 1.0) return 1.0;
  const double dn = static_cast<double>(n);
  // The sums walk about 9 standard deviations; beyond this variance (loads no
  // filter counter sees) they would take seconds.
  if (dn * p * (1.0 - p) > 1e12) return kNaN;
  const double odds = p / (1.0 - p);
  const double tail_start = static_cast<double>(j);
  if (tail_start > dn * p) {
    // j is above the mean: the tail's terms fall from pmf(j) onwards, and
    // pmf(t+1) / pmf(t) = (n - t) / (t + 1) * p / q.
    const double first = std::exp(LogBinomialPmf(dn, p, j));
    const double sum = SumAwayFromMode(
        first, static_cast<int64_t>(j), 1, static_cast<int64_t>(n),
        [&](int64_t t) { return (dn - t) / (t + 1.0) * odds; });
    return sum > 1.0 ? 1.0 : sum;
  }
  // j is at or below the mean: the answer is at least about 1/2, so 1 - head
  // loses nothing, and the head's terms fall from pmf(j-1) downwards with
  // pmf(t-1) / pmf(t) = t / (n - t + 1) * q / p.
  const double first = std::exp(LogBinomialPmf(dn, p, j - 1));
  const double head =
      SumAwayFromMode(first, static_cast<int64_t>(j - 1), -1, 0,
                      [&](int64_t t) { return t / (dn - t + 1.0) / odds; });
  return head > 1.0 ? 0.0 : 1.0 - head;
}

double PoissonTailAtLeast(double lambda, uint64_t j) {
  if (!(lambda >= 0.0 && lambda <= 1e12)) return kNaN;
  if (j == 0) return 1.0;
  if (lambda == 0.0) return 0.0;
  const double log_lambda = std::log(lambda);
  auto log_pmf = [&](uint64_t t) {
    const double dt = static_cast<double>(t);
    return -lambda + dt * log_lambda - std::lgamma(dt + 1);
  };
  if (static_cast<double>(j) > lambda) {
    // Above the mean: terms fall from pmf(j), pmf(t+1) = pmf(t) * lambda/(t+1).
    const double sum = SumAwayFromMode(
        std::exp(log_pmf(j)), static_cast<int64_t>(j), 1, INT64_MAX,
        [&](int64_t t) { return lambda / (t + 1.0); });
    return sum > 1.0 ? 1.0 : sum;
  }
  // At or below the mean: 1 - head, the head summed downwards from pmf(j-1),
  // pmf(t-1) = pmf(t) * t / lambda. (Summing upwards from pmf(j) would start
  // from a term that underflows for lambda beyond ~745.)
  const double head =
      SumAwayFromMode(std::exp(log_pmf(j - 1)), static_cast<int64_t>(j - 1), -1,
                      0, [&](int64_t t) { return t / lambda; });
  return head > 1.0 ? 0.0 : 1.0 - head;
}

double AnyCounterReaches(double p, uint64_t counters) {
  if (!(p >= 0.0 && p <= 1.0)) return kNaN;
  if (p == 1.0) return counters > 0 ? 1.0 : 0.0;
  return -std::expm1(static_cast<double>(counters) * std::log1p(-p));
}

}  // namespace bloomroute::theory
