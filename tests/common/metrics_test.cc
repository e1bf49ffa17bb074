#include "common/metrics.h"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <string>
#include <thread>
#include <vector>

namespace bloomroute::metrics {
namespace {

class MetricsTest : public testing::Test {
 protected:
  Registry registry_;
};

TEST_F(MetricsTest, CounterRendersWithHelpTypeAndSortedLabels) {
  registry_
      .GetCounter("bloomroute_calls_total", "Calls served.",
                  {{"outcome", "ok"}, {"method", "get"}})
      .Increment(3);
  registry_
      .GetCounter("bloomroute_calls_total", "ignored help",
                  {{"method", "get"}, {"outcome", "ok"}})
      .Increment();
  EXPECT_EQ(registry_.Render(),
            "# HELP bloomroute_calls_total Calls served.\n"
            "# TYPE bloomroute_calls_total counter\n"
            "bloomroute_calls_total{method=\"get\",outcome=\"ok\"} 4\n");
}

TEST_F(MetricsTest, SameSeriesIsTheSameObject) {
  Counter& a = registry_.GetCounter("x_total", "x", {{"a", "1"}, {"b", "2"}});
  Counter& b = registry_.GetCounter("x_total", "x", {{"b", "2"}, {"a", "1"}});
  EXPECT_EQ(&a, &b);
  EXPECT_NE(&a, &registry_.GetCounter("x_total", "x", {{"a", "2"}}));
}

TEST_F(MetricsTest, GaugeValuesAreExactAndSpecialValuesNamed) {
  registry_.GetGauge("g", "g", {{"k", "int"}}).Set(42);
  registry_.GetGauge("g", "g", {{"k", "frac"}}).Set(0.25);
  registry_.GetGauge("g", "g", {{"k", "inf"}})
      .Set(std::numeric_limits<double>::infinity());
  registry_.GetGauge("g", "g", {{"k", "nan"}}).Set(std::nan(""));
  Gauge& added = registry_.GetGauge("g", "g", {{"k", "add"}});
  added.Add(1.5);
  added.Add(-0.5);
  const std::string text = registry_.Render();
  EXPECT_NE(text.find("g{k=\"int\"} 42\n"), std::string::npos) << text;
  EXPECT_NE(text.find("g{k=\"frac\"} 0.25\n"), std::string::npos) << text;
  EXPECT_NE(text.find("g{k=\"inf\"} +Inf\n"), std::string::npos) << text;
  EXPECT_NE(text.find("g{k=\"nan\"} NaN\n"), std::string::npos) << text;
  EXPECT_NE(text.find("g{k=\"add\"} 1\n"), std::string::npos) << text;
}

TEST_F(MetricsTest, HistogramBucketsAreCumulative) {
  Histogram& h =
      registry_.GetHistogram("lat_seconds", "Latency.", {}, {0.1, 1});
  h.Observe(0.05);
  h.Observe(0.1);  // a bound is inclusive (le)
  h.Observe(0.5);
  h.Observe(7);
  h.Observe(std::nan(""));  // dropped
  EXPECT_EQ(registry_.Render(),
            "# HELP lat_seconds Latency.\n"
            "# TYPE lat_seconds histogram\n"
            "lat_seconds_bucket{le=\"0.10000000000000001\"} 2\n"
            "lat_seconds_bucket{le=\"1\"} 3\n"
            "lat_seconds_bucket{le=\"+Inf\"} 4\n"
            "lat_seconds_sum 7.6500000000000004\n"
            "lat_seconds_count 4\n");
}

TEST_F(MetricsTest, LabelValuesAndHelpAreEscaped) {
  registry_.GetGauge("e", "a \\ b\nc", {{"v", "q\"\\\n"}}).Set(1);
  EXPECT_EQ(registry_.Render(),
            "# HELP e a \\\\ b\\nc\n"
            "# TYPE e gauge\n"
            "e{v=\"q\\\"\\\\\\n\"} 1\n");
}

TEST_F(MetricsTest, CollectorsAddFamiliesWhenScrapedAndStopWithTheirHandle) {
  double value = 5;
  {
    Registry::CollectorHandle handle = registry_.AddCollector([&](Writer& w) {
      w.Gauge("bytes", "Bytes held.", {{"server", "1"}}, value);
      w.Counter("done_total", "Done.", {}, 9);
      w.Gauge("bad name", "invalid names are dropped", {}, 1);
    });
    EXPECT_EQ(registry_.Render(),
              "# HELP bytes Bytes held.\n"
              "# TYPE bytes gauge\n"
              "bytes{server=\"1\"} 5\n"
              "# HELP done_total Done.\n"
              "# TYPE done_total counter\n"
              "done_total 9\n");
    value = 6;
    EXPECT_NE(registry_.Render().find("bytes{server=\"1\"} 6\n"),
              std::string::npos);
  }
  EXPECT_EQ(registry_.Render(), "");
}

TEST_F(MetricsTest, ConcurrentUpdatesAreAllCounted) {
  Counter& c = registry_.GetCounter("c_total", "c");
  Histogram& h = registry_.GetHistogram("h", "h", {}, PowerOfTwoBuckets(8));
  std::vector<std::thread> threads;
  for (int t = 0; t < 4; ++t) {
    threads.emplace_back([&] {
      for (int i = 0; i < 10000; ++i) {
        c.Increment();
        h.Observe(1);
      }
    });
  }
  for (auto& t : threads) t.join();
  EXPECT_EQ(c.value(), 40000u);
  const Histogram::Snapshot s = h.snapshot();
  EXPECT_EQ(s.count, 40000u);
  EXPECT_DOUBLE_EQ(s.sum, 40000);
}

TEST_F(MetricsTest, ProcessMetricsReportThisProcess) {
  EXPECT_EQ(registry_.Render(), "");
  registry_.IncludeProcessMetrics();
  registry_.IncludeProcessMetrics();  // idempotent
  const std::string text = registry_.Render();
  // CPU time may still be 0 ticks in a test this short: present is enough.
  EXPECT_NE(text.find("\nprocess_cpu_seconds_total "), std::string::npos);
  for (const char* name :
       {"process_resident_memory_bytes ", "process_open_fds ",
        "process_max_fds ", "process_start_time_seconds "}) {
    const size_t at = text.find(std::string("\n") + name);
    ASSERT_NE(at, std::string::npos) << name << " in\n" << text;
    EXPECT_GT(std::stod(text.substr(at + 1 + std::string(name).size())), 0)
        << name;
  }
  EXPECT_EQ(text.find("# TYPE process_open_fds gauge"),
            text.rfind("# TYPE process_open_fds gauge"));
}

TEST_F(MetricsTest, BucketHelpers) {
  EXPECT_EQ(PowerOfTwoBuckets(4), (std::vector<double>{0, 1, 2, 4}));
  const std::vector<double> latency = LatencyBuckets();
  EXPECT_DOUBLE_EQ(latency.front(), 0.0001);
  EXPECT_DOUBLE_EQ(latency.back(), 30);
}

}  // namespace
}  // namespace bloomroute::metrics
