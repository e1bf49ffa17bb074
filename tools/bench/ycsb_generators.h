// The number generators of YCSB's core workload (Cooper et al., "Benchmarking
// Cloud Serving Systems with YCSB", SoCC 2010), written from their published
// definitions: which record an operation touches, how long a scan is, which
// operation comes next.
//
// Each generator draws from a caller's Rng, so that a worker thread owns its
// generators and its Rng and nothing is shared or locked; the same seed gives
// the same draws. A generator is not thread-safe; give each thread its own.
//
// Example:
//   ycsb::Rng rng(seed);
//   ycsb::ScrambledZipfianGenerator keys(0, 999);   // 1000 records
//   uint64_t record = keys.Next(rng);               // in [0, 999]
//   std::string key = ycsb::KeyName(record);        //
//   "user6284781860667377211"
#ifndef BLOOMROUTE_TOOLS_BENCH_YCSB_GENERATORS_H_
#define BLOOMROUTE_TOOLS_BENCH_YCSB_GENERATORS_H_

#include <cstdint>
#include <mutex>
#include <random>
#include <set>
#include <string>
#include <vector>

namespace bloomroute::ycsb {

using Rng = std::mt19937_64;

// YCSB's zipfian constant (theta): item i (0-based) is drawn with
// probability proportional to 1 / (i + 1)^theta.
inline constexpr double kZipfianConstant = 0.99;

// YCSB's Utils.fnvhash64: FNV-1a 64 over the 8 bytes of `value`, low byte
// first, made non-negative as Java's Math.abs of the signed result (which
// leaves only 2^63 itself negative; returned here as 2^63).
uint64_t FnvHash64(uint64_t value);

// The row key of record `record` with YCSB's insertorder=hashed:
// "user" + decimal FnvHash64(record).
std::string KeyName(uint64_t record);

// Uniform over [min, max] (YCSB's UniformLongGenerator).
class UniformGenerator {
 public:
  UniformGenerator(uint64_t min, uint64_t max) : dist_(min, max) {}
  uint64_t Next(Rng& rng) { return dist_(rng); }

 private:
  std::uniform_int_distribution<uint64_t> dist_;
};

// zeta(n, theta) = sum over i = 1..n of 1 / i^theta.
double Zeta(uint64_t n, double theta);

// Zipfian over [min, max] with constant theta, the most popular item being
// `min` (YCSB's ZipfianGenerator): Gray et al., "Quickly generating
// billion-record synthetic databases" (SIGMOD 1994), section 5. With
// u uniform in [0, 1) and zetan = zeta(n, theta):
//   u * zetan < 1                       -> item 0 (probability 1 / zetan)
//   u * zetan < 1 + 0.5^theta           -> item 1 (probability 0.5^theta /
//   zetan) otherwise  n * (eta * u - eta + 1)^alpha, where alpha = 1 / (1 -
//   theta)
//              and eta = (1 - (2 / n)^(1 - theta)) / (1 - zeta(2) / zetan)
// Items 0 and 1 are exact; the tail follows the zipfian law closely (the
// paper's approximation). Building costs O(n) for zeta; Next(rng, n) with a
// larger n extends zeta by the new terms only (the "latest" distribution
// grows with the inserts).
class ZipfianGenerator {
 public:
  // Requires min <= max and 0 < theta < 1.
  ZipfianGenerator(uint64_t min, uint64_t max, double theta = kZipfianConstant);
  // Over a count of items whose zeta is known (ScrambledZipfianGenerator).
  ZipfianGenerator(uint64_t min, uint64_t max, double theta, double zetan);

  // In [min, max].
  uint64_t Next(Rng& rng);
  // In [min, min + items - 1] for `items` >= 1; items above the count so far
  // extend zeta incrementally, items below recompute it.
  uint64_t Next(Rng& rng, uint64_t items);

  uint64_t items() const { return items_; }
  double zetan() const { return zetan_; }

 private:
  void SetItems(uint64_t items);

  uint64_t min_;
  uint64_t items_;
  double theta_;
  double alpha_;
  double zeta2theta_;
  double zetan_;
  double eta_;
};

// Zipfian over [min, max] with the popular items scattered over the range
// (YCSB's ScrambledZipfianGenerator): draw from a zipfian over
// kScrambledItems items, then hash the draw (FnvHash64) modulo the range's
// size. As in YCSB, theta is kZipfianConstant and zeta(kScrambledItems) is
// the constant kScrambledZetan, so building is O(1) whatever the range; the
// most popular item's probability is therefore about 1 / kScrambledZetan
// (3.8%) plus what collisions of the hash add, for any range size.
class ScrambledZipfianGenerator {
 public:
  static constexpr uint64_t kScrambledItems = 10'000'000'000ULL;
  // zeta(10^10, 0.99), YCSB's ZETAN.
  static constexpr double kScrambledZetan = 26.46902820178302;

  // Requires min <= max.
  ScrambledZipfianGenerator(uint64_t min, uint64_t max);
  uint64_t Next(Rng& rng);

 private:
  uint64_t min_;
  uint64_t items_;
  ZipfianGenerator zipfian_;
};

// The highest record number acknowledged as inserted, while inserts of
// several threads complete out of order (YCSB's AcknowledgedCounterGenerator):
// Next() hands out record numbers from `start`; Acknowledge(n) marks n done;
// Last() is the highest n such that every record below n+1 from `start` is
// done (start - 1 before any; records below start count as loaded).
// Thread-safe.
class InsertSequence {
 public:
  explicit InsertSequence(uint64_t start) : next_(start), done_below_(start) {}
  InsertSequence(const InsertSequence&) = delete;
  InsertSequence& operator=(const InsertSequence&) = delete;

  uint64_t Next();
  void Acknowledge(uint64_t record);
  // Requires start >= 1 or an acknowledged insert.
  uint64_t Last() const;

 private:
  mutable std::mutex mutex_;
  uint64_t next_;        // guarded by mutex_
  uint64_t done_below_;  // guarded by mutex_: every record below is done
  std::set<uint64_t> done_above_;  // guarded by mutex_: done, not contiguous
};

// Recent records favoured (YCSB's SkewedLatestGenerator): the record
// `Last() - z`, with z zipfian over the Last() + 1 records inserted so far,
// so the newest record is the most popular and the popularity falls off
// with age. (YCSB draws z over Last() items, which never picks record 0;
// here every inserted record can be drawn.)
class SkewedLatestGenerator {
 public:
  explicit SkewedLatestGenerator(const InsertSequence* inserted);
  uint64_t Next(Rng& rng);

 private:
  const InsertSequence* inserted_;
  ZipfianGenerator zipfian_;
};

// One of several choices with given weights (YCSB's DiscreteGenerator):
// choice i with probability weights[i] / sum(weights). Weights are >= 0 with
// a positive sum.
class DiscreteGenerator {
 public:
  explicit DiscreteGenerator(std::vector<double> weights);
  size_t Next(Rng& rng);

 private:
  std::vector<double> cumulative_;
};

}  // namespace bloomroute::ycsb

#endif  // BLOOMROUTE_TOOLS_BENCH_YCSB_GENERATORS_H_
