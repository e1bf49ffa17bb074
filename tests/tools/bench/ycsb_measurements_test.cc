#include "tools/bench/ycsb_measurements.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <random>
#include <sstream>
#include <string>
#include <vector>

namespace bloomroute::ycsb {
namespace {

class LatencyHistogramTest : public ::testing::Test {};

TEST_F(LatencyHistogramTest, SmallValuesAreExact) {
  LatencyHistogram h;
  for (uint64_t v = 1; v <= 100; ++v) h.Record(v);
  EXPECT_EQ(h.count(), 100u);
  EXPECT_EQ(h.min(), 1u);
  EXPECT_EQ(h.max(), 100u);
  EXPECT_DOUBLE_EQ(h.mean(), 50.5);
  EXPECT_EQ(h.Percentile(95), 95u);
  EXPECT_EQ(h.Percentile(99), 99u);
  EXPECT_EQ(h.Percentile(100), 100u);
}

TEST_F(LatencyHistogramTest, EmptyReportsZeros) {
  LatencyHistogram h;
  EXPECT_EQ(h.min(), 0u);
  EXPECT_EQ(h.max(), 0u);
  EXPECT_EQ(h.mean(), 0.0);
  EXPECT_EQ(h.Percentile(99), 0u);
}

// Log-normal latencies (seed 7): every percentile is at or above the exact
// one and within 1/128 of it, as the header promises.
TEST_F(LatencyHistogramTest, PercentilesAreWithinTheStatedPrecision) {
  std::mt19937_64 rng(7);
  std::lognormal_distribution<double> latency(7.0, 1.5);
  std::vector<uint64_t> values;
  LatencyHistogram h;
  for (int i = 0; i < 100'000; ++i) {
    const auto v = static_cast<uint64_t>(latency(rng));
    values.push_back(v);
    h.Record(v);
  }
  std::sort(values.begin(), values.end());
  for (double p : {50.0, 90.0, 95.0, 99.0, 99.9}) {
    const uint64_t exact =
        values[static_cast<size_t>(std::ceil(p / 100 * values.size())) - 1];
    EXPECT_GE(h.Percentile(p), exact) << p;
    EXPECT_LE(h.Percentile(p), exact + exact / 128 + 1) << p;
  }
  EXPECT_EQ(h.max(), values.back());
  EXPECT_EQ(h.min(), values.front());
}

TEST_F(LatencyHistogramTest, MergeAddsAndHugeValuesAreCapped) {
  LatencyHistogram a;
  LatencyHistogram b;
  a.Record(10);
  b.Record(1000);
  b.Record(UINT64_MAX);
  a.Merge(b);
  EXPECT_EQ(a.count(), 3u);
  EXPECT_EQ(a.min(), 10u);
  EXPECT_EQ(a.max(), LatencyHistogram::kMaxMicros);
  EXPECT_EQ(a.Percentile(100), LatencyHistogram::kMaxMicros);
}

class MeasurementsTest : public ::testing::Test {};

TEST_F(MeasurementsTest, ReportsInYcsbsFormat) {
  Measurements m;
  m.Record("UPDATE", 300, Outcome::kOk);
  m.Record("READ", 100, Outcome::kOk);
  m.Record("READ", 200, Outcome::kError);
  Measurements other;
  other.Record("READ", 600, Outcome::kNotFound);
  m.Merge(other);
  EXPECT_EQ(m.Operations("READ"), 3u);
  EXPECT_EQ(m.Operations("SCAN"), 0u);
  EXPECT_EQ(m.Failures(), 2u);
  EXPECT_EQ(m.Report(2000, 4),
            "[OVERALL], RunTime(ms), 2000\n"
            "[OVERALL], Throughput(ops/sec), 2.0\n"
            "[READ], Operations, 3\n"
            "[READ], AverageLatency(us), 300.0\n"
            "[READ], MinLatency(us), 100\n"
            "[READ], MaxLatency(us), 600\n"
            "[READ], 95thPercentileLatency(us), 600\n"
            "[READ], 99thPercentileLatency(us), 600\n"
            "[READ], Return=OK, 1\n"
            "[READ], Return=ERROR, 1\n"
            "[READ], Return=NOT_FOUND, 1\n"
            "[UPDATE], Operations, 1\n"
            "[UPDATE], AverageLatency(us), 300.0\n"
            "[UPDATE], MinLatency(us), 300\n"
            "[UPDATE], MaxLatency(us), 300\n"
            "[UPDATE], 95thPercentileLatency(us), 300\n"
            "[UPDATE], 99thPercentileLatency(us), 300\n"
            "[UPDATE], Return=OK, 1\n");
}

TEST_F(MeasurementsTest, DoublesPrintAsJavaPrintsThem) {
  EXPECT_EQ(JavaDouble(0.0), "0.0");
  EXPECT_EQ(JavaDouble(3.0), "3.0");
  EXPECT_EQ(JavaDouble(12.5), "12.5");
  EXPECT_EQ(JavaDouble(1234567.0), "1234567.0");
  EXPECT_EQ(JavaDouble(1.0 / 3), "0.3333333333333333");
  EXPECT_EQ(JavaDouble(1e7), "1.0E7");
  EXPECT_EQ(JavaDouble(12345678.5), "1.23456785E7");
  EXPECT_EQ(JavaDouble(0.0005), "5.0E-4");
}

}  // namespace
}  // namespace bloomroute::ycsb
