#include "tools/bench/ycsb_generators.h"

#include <algorithm>
#include <cmath>

namespace bloomroute::ycsb {
namespace {

constexpr uint64_t kFnvOffsetBasis64 = 0xCBF29CE484222325ULL;
constexpr uint64_t kFnvPrime64 = 1099511628211ULL;

// Uniform in [0, 1) from the top 53 bits of one draw.
double UnitInterval(Rng& rng) {
  return static_cast<double>(rng() >> 11) * 0x1.0p-53;
}

// zeta(to) given zeta(from) = `zeta_from`, adding the terms from+1..to.
double ExtendZeta(uint64_t from, uint64_t to, double theta, double zeta_from) {
  double sum = zeta_from;
  for (uint64_t i = from + 1; i <= to; ++i) {
    sum += 1.0 / std::pow(static_cast<double>(i), theta);
  }
  return sum;
}

}  // namespace

uint64_t FnvHash64(uint64_t value) {
  uint64_t hash = kFnvOffsetBasis64;
  for (int i = 0; i < 8; ++i) {
    hash ^= value & 0xff;
    hash *= kFnvPrime64;
    value >>= 8;
  }
  // Java's Math.abs of the signed value: two's complement negation for the
  // negative ones (2^63 stays as it is).
  if (hash > (uint64_t{1} << 63)) hash = ~hash + 1;
  return hash;
}

std::string KeyName(uint64_t record) {
  return "user" + std::to_string(FnvHash64(record));
}

double Zeta(uint64_t n, double theta) { return ExtendZeta(0, n, theta, 0.0); }

ZipfianGenerator::ZipfianGenerator(uint64_t min, uint64_t max, double theta)
    : ZipfianGenerator(min, max, theta, Zeta(max - min + 1, theta)) {}

ZipfianGenerator::ZipfianGenerator(uint64_t min, uint64_t max, double theta,
                                   double zetan)
    : min_(min),
      items_(max - min + 1),
      theta_(theta),
      alpha_(1.0 / (1.0 - theta)),
      zeta2theta_(Zeta(2, theta)),
      zetan_(zetan),
      eta_(0.0) {
  SetItems(items_);
}

void ZipfianGenerator::SetItems(uint64_t items) {
  if (items > items_) {
    zetan_ = ExtendZeta(items_, items, theta_, zetan_);
  } else if (items < items_) {
    zetan_ = Zeta(items, theta_);
  }
  items_ = items;
  // For n <= 2 eta is undefined (0/0) but unused: Next never reaches the
  // tail formula, every draw being item 0 or 1.
  const double n = static_cast<double>(items_);
  eta_ = items_ > 2 ? (1.0 - std::pow(2.0 / n, 1.0 - theta_)) /
                          (1.0 - zeta2theta_ / zetan_)
                    : 0.0;
}

uint64_t ZipfianGenerator::Next(Rng& rng) {
  const double u = UnitInterval(rng);
  const double uz = u * zetan_;
  if (uz < 1.0) return min_;
  if (items_ >= 2 && uz < 1.0 + std::pow(0.5, theta_)) return min_ + 1;
  const double n = static_cast<double>(items_);
  const auto offset =
      static_cast<uint64_t>(n * std::pow(eta_ * u - eta_ + 1.0, alpha_));
  return min_ + std::min(offset, items_ - 1);
}

uint64_t ZipfianGenerator::Next(Rng& rng, uint64_t items) {
  if (items != items_) SetItems(std::max<uint64_t>(items, 1));
  return Next(rng);
}

ScrambledZipfianGenerator::ScrambledZipfianGenerator(uint64_t min, uint64_t max)
    : min_(min),
      items_(max - min + 1),
      zipfian_(0, kScrambledItems - 1, kZipfianConstant, kScrambledZetan) {}

uint64_t ScrambledZipfianGenerator::Next(Rng& rng) {
  return min_ + FnvHash64(zipfian_.Next(rng)) % items_;
}

uint64_t InsertSequence::Next() {
  std::lock_guard<std::mutex> lock(mutex_);
  return next_++;
}

void InsertSequence::Acknowledge(uint64_t record) {
  std::lock_guard<std::mutex> lock(mutex_);
  if (record < done_below_) return;
  done_above_.insert(record);
  // The window of out-of-order completions stays as small as the number of
  // inserts in flight: one per thread.
  while (!done_above_.empty() && *done_above_.begin() == done_below_) {
    done_above_.erase(done_above_.begin());
    ++done_below_;
  }
}

uint64_t InsertSequence::Last() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return done_below_ - 1;
}

SkewedLatestGenerator::SkewedLatestGenerator(const InsertSequence* inserted)
    : inserted_(inserted), zipfian_(0, inserted->Last()) {}

uint64_t SkewedLatestGenerator::Next(Rng& rng) {
  const uint64_t last = inserted_->Last();
  return last - zipfian_.Next(rng, last + 1);
}

DiscreteGenerator::DiscreteGenerator(std::vector<double> weights) {
  double sum = 0;
  for (double w : weights) {
    sum += w;
    cumulative_.push_back(sum);
  }
  for (double& c : cumulative_) c /= sum;
}

size_t DiscreteGenerator::Next(Rng& rng) {
  const double u = UnitInterval(rng);
  for (size_t i = 0; i < cumulative_.size(); ++i) {
    if (u < cumulative_[i]) return i;
  }
  return cumulative_.size() - 1;
}

}  // namespace bloomroute::ycsb
