// What `bloomroute bench ycsb` measures and how it prints it: a latency
// histogram per operation type and the count of each outcome, printed as
// YCSB's client prints its summary (measurementtype=hdrhistogram), e.g.
//   [OVERALL], RunTime(ms), 5012
//   [OVERALL], Throughput(ops/sec), 1995.2114924181963
//   [READ], Operations, 5021
//   [READ], AverageLatency(us), 612.4
//   [READ], MinLatency(us), 201
//   [READ], MaxLatency(us), 20431
//   [READ], 95thPercentileLatency(us), 1103
//   [READ], 99thPercentileLatency(us), 2519
//   [READ], Return=OK, 5021
// Doubles are printed as Java's Double.toString does (the shortest digits
// that read back the same, "1.0E7" from 10^7 up), so that YCSB's own
// parsers read the lines.
//
// Thread-safety: none; each worker thread records into its own
// Measurements, merged (Merge) when the threads are done.
#ifndef BLOOMROUTE_TOOLS_BENCH_YCSB_MEASUREMENTS_H_
#define BLOOMROUTE_TOOLS_BENCH_YCSB_MEASUREMENTS_H_

#include <cstdint>
#include <map>
#include <string>
#include <vector>

namespace bloomroute::ycsb {

// Latencies in microseconds, bounded in memory (kBuckets counters, 35 KiB):
// values below 256 us are counted exactly; above, each power of two is cut
// into 128 buckets, so a percentile is at most 1/128 (0.8%) above the true
// value (a bucket reports its highest value, as HdrHistogram's
// getValueAtPercentile does, capped at the largest value recorded). Values
// above kMaxMicros (about 12.7 days) count as kMaxMicros. Min, max and mean
// are exact.
class LatencyHistogram {
 public:
  static constexpr int kSubBucketBits = 7;
  static constexpr uint64_t kMaxMicros = uint64_t{1} << 40;
  static constexpr size_t kBuckets =
      256 + (40 - kSubBucketBits) * (size_t{1} << kSubBucketBits);

  LatencyHistogram() : counts_(kBuckets, 0) {}

  void Record(uint64_t micros);
  void Merge(const LatencyHistogram& other);

  uint64_t count() const { return count_; }
  uint64_t min() const { return count_ == 0 ? 0 : min_; }
  uint64_t max() const { return max_; }
  double mean() const;
  // The smallest recorded value v such that at least `percent`% of the
  // values are <= v, within the precision above; 0 when empty. `percent`
  // in (0, 100].
  uint64_t Percentile(double percent) const;

 private:
  static size_t BucketOf(uint64_t micros);
  static uint64_t HighestInBucket(size_t bucket);

  std::vector<uint64_t> counts_;
  uint64_t count_ = 0;
  uint64_t min_ = UINT64_MAX;
  uint64_t max_ = 0;
  double sum_ = 0;
};

// How an operation ended, named as YCSB's Status codes print.
// (The report names them in this order: ycsb_measurements.cc.)
enum class Outcome { kOk, kError, kNotFound };

// The operation types, in the order the report lists them.
inline constexpr const char* kOperationNames[] = {
    "READ", "UPDATE", "INSERT", "SCAN", "READ-MODIFY-WRITE", "LOOKUP"};

class Measurements {
 public:
  // One operation of type `op` (one of kOperationNames or any other name,
  // listed after them) that took `micros`.
  void Record(const std::string& op, uint64_t micros, Outcome outcome);
  void Merge(const Measurements& other);

  // Operations of `op` recorded, and those that did not end OK.
  uint64_t Operations(const std::string& op) const;
  uint64_t Failures() const;

  // The report: the [OVERALL] lines for `operations` done in `runtime_ms`,
  // then each operation type recorded.
  std::string Report(uint64_t runtime_ms, uint64_t operations) const;

 private:
  struct OpStats {
    LatencyHistogram latency;
    std::map<Outcome, uint64_t> outcomes;
  };
  void ReportOp(const std::string& op, const OpStats& stats,
                std::string* out) const;

  std::map<std::string, OpStats> ops_;
};

// `value` as Java's Double.toString prints it ("12.5", "3.0", "1.0E7").
std::string JavaDouble(double value);

}  // namespace bloomroute::ycsb

#endif  // BLOOMROUTE_TOOLS_BENCH_YCSB_MEASUREMENTS_H_
