#include "tools/bench/ycsb_measurements.h"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <iterator>

namespace bloomroute::ycsb {
namespace {

constexpr uint64_t kExactBelow = 256;  // 2^(kSubBucketBits + 1)
constexpr uint64_t kSubBuckets = uint64_t{1}
                                 << LatencyHistogram::kSubBucketBits;

// Indexed by Outcome.
constexpr const char* kOutcomeNames[] = {"OK", "ERROR", "NOT_FOUND"};

int FloorLog2(uint64_t v) { return 63 - __builtin_clzll(v); }

void Line(const std::string& op, const std::string& name,
          const std::string& value, std::string* out) {
  *out += "[" + op + "], " + name + ", " + value + "\n";
}

}  // namespace

size_t LatencyHistogram::BucketOf(uint64_t micros) {
  if (micros < kExactBelow) return micros;
  const int k = FloorLog2(micros);  // 8..40
  const int shift = k - kSubBucketBits;
  const uint64_t sub = micros >> shift;  // [128, 256)
  return kExactBelow + static_cast<size_t>(k - 8) * kSubBuckets +
         (sub - kSubBuckets);
}

uint64_t LatencyHistogram::HighestInBucket(size_t bucket) {
  if (bucket < kExactBelow) return bucket;
  const size_t k = 8 + (bucket - kExactBelow) / kSubBuckets;
  const uint64_t sub = kSubBuckets + (bucket - kExactBelow) % kSubBuckets;
  const size_t shift = k - kSubBucketBits;
  return (sub << shift) + (uint64_t{1} << shift) - 1;
}

void LatencyHistogram::Record(uint64_t micros) {
  micros = std::min(micros, kMaxMicros);
  ++counts_[BucketOf(micros)];
  ++count_;
  min_ = std::min(min_, micros);
  max_ = std::max(max_, micros);
  sum_ += static_cast<double>(micros);
}

void LatencyHistogram::Merge(const LatencyHistogram& other) {
  for (size_t i = 0; i < kBuckets; ++i) counts_[i] += other.counts_[i];
  count_ += other.count_;
  min_ = std::min(min_, other.min_);
  max_ = std::max(max_, other.max_);
  sum_ += other.sum_;
}

double LatencyHistogram::mean() const {
  return count_ == 0 ? 0.0 : sum_ / static_cast<double>(count_);
}

uint64_t LatencyHistogram::Percentile(double percent) const {
  if (count_ == 0) return 0;
  const auto rank = std::max<uint64_t>(
      1, static_cast<uint64_t>(
             std::ceil(percent / 100.0 * static_cast<double>(count_))));
  uint64_t seen = 0;
  for (size_t i = 0; i < kBuckets; ++i) {
    seen += counts_[i];
    if (seen >= rank) return std::min(HighestInBucket(i), max_);
  }
  return max_;
}

void Measurements::Record(const std::string& op, uint64_t micros,
                          Outcome outcome) {
  OpStats& stats = ops_[op];
  stats.latency.Record(micros);
  ++stats.outcomes[outcome];
}

void Measurements::Merge(const Measurements& other) {
  for (const auto& [op, theirs] : other.ops_) {
    OpStats& mine = ops_[op];
    mine.latency.Merge(theirs.latency);
    for (const auto& [outcome, n] : theirs.outcomes)
      mine.outcomes[outcome] += n;
  }
}

uint64_t Measurements::Operations(const std::string& op) const {
  auto it = ops_.find(op);
  return it == ops_.end() ? 0 : it->second.latency.count();
}

uint64_t Measurements::Failures() const {
  uint64_t failed = 0;
  for (const auto& [op, stats] : ops_) {
    for (const auto& [outcome, n] : stats.outcomes) {
      if (outcome != Outcome::kOk) failed += n;
    }
  }
  return failed;
}

std::string Measurements::Report(uint64_t runtime_ms,
                                 uint64_t operations) const {
  std::string out;
  Line("OVERALL", "RunTime(ms)", std::to_string(runtime_ms), &out);
  const double throughput = runtime_ms == 0
                                ? 0.0
                                : 1000.0 * static_cast<double>(operations) /
                                      static_cast<double>(runtime_ms);
  Line("OVERALL", "Throughput(ops/sec)", JavaDouble(throughput), &out);
  const auto known = [](const std::string& op) {
    return std::find(std::begin(kOperationNames), std::end(kOperationNames),
                     op) != std::end(kOperationNames);
  };
  for (const char* op : kOperationNames) {
    auto it = ops_.find(op);
    if (it != ops_.end()) ReportOp(op, it->second, &out);
  }
  for (const auto& [op, stats] : ops_) {
    if (!known(op)) ReportOp(op, stats, &out);
  }
  return out;
}

void Measurements::ReportOp(const std::string& op, const OpStats& stats,
                            std::string* out) const {
  const LatencyHistogram& h = stats.latency;
  Line(op, "Operations", std::to_string(h.count()), out);
  Line(op, "AverageLatency(us)", JavaDouble(h.mean()), out);
  Line(op, "MinLatency(us)", std::to_string(h.min()), out);
  Line(op, "MaxLatency(us)", std::to_string(h.max()), out);
  Line(op, "95thPercentileLatency(us)", std::to_string(h.Percentile(95)), out);
  Line(op, "99thPercentileLatency(us)", std::to_string(h.Percentile(99)), out);
  for (const auto& [outcome, n] : stats.outcomes) {
    Line(op, std::string("Return=") + kOutcomeNames[static_cast<int>(outcome)],
         std::to_string(n), out);
  }
}

std::string JavaDouble(double value) {
  char buf[64];
  const double magnitude = std::fabs(value);
  // Java switches to computerized scientific notation outside
  // [10^-3, 10^7), with an exponent written "E7" and at least one digit
  // after the point.
  const bool scientific =
      magnitude != 0.0 && (magnitude >= 1e7 || magnitude < 1e-3);
  const auto format =
      scientific ? std::chars_format::scientific : std::chars_format::fixed;
  auto [end, ec] = std::to_chars(buf, buf + sizeof(buf), value, format);
  std::string text(buf, end);
  if (!scientific) {
    if (text.find('.') == std::string::npos) text += ".0";
    return text;
  }
  const size_t e = text.find('e');
  std::string mantissa = text.substr(0, e);
  if (mantissa.find('.') == std::string::npos) mantissa += ".0";
  const int exponent = std::stoi(text.substr(e + 1));
  return mantissa + "E" + std::to_string(exponent);
}

}  // namespace bloomroute::ycsb
