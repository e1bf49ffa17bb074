#include "index/theory.h"

#include <cmath>
#include <limits>

namespace bloomroute::theory {

namespace {
constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();
// Relative size below which further tail terms cannot change a double sum.
constexpr double kNegligible = 1e-18;
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
  return rounded < 1.0 ? 1u : static_cast<uint32_t>(rounded);
}

double CapacityAtFill(double slice_length, double fill) {
  if (!(fill > 0.0 && fill < 1.0)) return kNaN;
  return -slice_length * std::log1p(-fill);
}

uint64_t SliceLengthForCapacity(double capacity, double fill) {
  if (!(fill > 0.0 && fill < 1.0) || !(capacity > 0.0)) return 0;
  return static_cast<uint64_t>(std::ceil(capacity / -std::log1p(-fill)));
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
  const double log_p = std::log(p);
  const double log_q = std::log1p(-p);
  const double mean = dn * p;
  // pmf(t) = C(n,t) p^t q^(n-t); summed upward from j. Past the mode each term
  // shrinks by (n-t)/(t+1) * p/q, so the loop ends within a few hundred terms
  // for the tails we ask about; it is also bounded by n.
  double sum = 0.0;
  for (uint64_t t = j; t <= n; ++t) {
    const double dt = static_cast<double>(t);
    const double log_term = std::lgamma(dn + 1) - std::lgamma(dt + 1) -
                            std::lgamma(dn - dt + 1) + dt * log_p +
                            (dn - dt) * log_q;
    const double term = std::exp(log_term);
    sum += term;
    if (dt > mean && term <= sum * kNegligible) break;
  }
  return sum > 1.0 ? 1.0 : sum;
}

double PoissonTailAtLeast(double lambda, uint64_t j) {
  // The sum runs to about lambda + 40 sqrt(lambda) terms; loads beyond 1e6 per
  // counter are outside any filter's operating range.
  if (!(lambda >= 0.0 && lambda <= 1e6)) return kNaN;
  if (j == 0) return 1.0;
  if (lambda == 0.0) return 0.0;
  const double dj = static_cast<double>(j);
  double term = std::exp(-lambda + dj * std::log(lambda) - std::lgamma(dj + 1));
  double sum = 0.0;
  for (double t = dj;; t += 1.0) {
    sum += term;
    if (t > lambda && term <= sum * kNegligible) break;
    if (term == 0.0 && t > lambda) break;
    term *= lambda / (t + 1.0);
  }
  return sum > 1.0 ? 1.0 : sum;
}

double AnyCounterReaches(double p, uint64_t counters) {
  if (!(p >= 0.0 && p <= 1.0)) return kNaN;
  if (p == 1.0) return counters > 0 ? 1.0 : 0.0;
  return -std::expm1(static_cast<double>(counters) * std::log1p(-p));
}

}  // namespace bloomroute::theory
