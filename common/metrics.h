// Metrics: counters, gauges and histograms a process keeps about itself, and
// their rendering in Prometheus's text exposition format (version 0.0.4),
// which every /metrics endpoint serves.
//
// Our own code rather than a library: prometheus-cpp, the usual C++ client,
// is not packaged in Debian 12, and what we need -- three metric kinds with
// labels, a text rendering and scrape-time collectors -- is small.
//
// Names follow Prometheus's conventions: a `bloomroute_` prefix (the
// standard `process_` metrics excepted), base units in the name
// (`_seconds`, `_bytes`), counters ending in `_total`. A family (one name)
// has one kind and one help text; each distinct label set is one series.
//
// Example:
//   metrics::Registry& r = metrics::DefaultRegistry();
//   metrics::Counter& lookups =
//       r.GetCounter("bloomroute_lookups_total", "Lookups served.");
//   lookups.Increment();
//   r.GetHistogram("bloomroute_call_duration_seconds", "Call latency.",
//                  {{"method", "get"}}, metrics::LatencyBuckets())
//       .Observe(0.0012);
//   // Values computed when scraped (a gauge of what a component holds):
//   auto handle = r.AddCollector([&](metrics::Writer& w) {
//     w.Gauge("bloomroute_router_index_bytes", "Filter bytes.", {}, bytes());
//   });
//   std::string text = r.Render();
//
// Thread-safety: everything may be called from any thread. Counter, Gauge
// and Histogram updates are lock-free (atomics); Get* takes the registry's
// mutex, so a hot path looks a series up once and keeps the reference (a
// series lives as long as its registry). A collector runs on the thread
// that renders, under no lock of the registry's.
#ifndef BLOOMROUTE_COMMON_METRICS_H_
#define BLOOMROUTE_COMMON_METRICS_H_

#include <atomic>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace bloomroute::metrics {

// A series' labels: (name, value) pairs. Order does not matter (they are
// sorted by name); a name appears at most once.
using Labels = std::vector<std::pair<std::string, std::string>>;

// A monotonically increasing count.
class Counter {
 public:
  void Increment(uint64_t n = 1) {
    value_.fetch_add(n, std::memory_order_relaxed);
  }
  uint64_t value() const { return value_.load(std::memory_order_relaxed); }

 private:
  std::atomic<uint64_t> value_{0};
};

// A value that goes up and down.
class Gauge {
 public:
  void Set(double v) { value_.store(v, std::memory_order_relaxed); }
  void Add(double delta);
  double value() const { return value_.load(std::memory_order_relaxed); }

 private:
  std::atomic<double> value_{0};
};

// Observations counted in buckets by upper bound (Prometheus's cumulative
// `le` buckets are made when rendering), with their count and sum.
class Histogram {
 public:
  // `bounds` ascending and finite; +Inf is implicit.
  explicit Histogram(std::vector<double> bounds);
  Histogram(const Histogram&) = delete;
  Histogram& operator=(const Histogram&) = delete;

  // Counts v in the first bucket whose bound is >= v (NaN is dropped).
  void Observe(double v);

  struct Snapshot {
    std::vector<double> bounds;
    std::vector<uint64_t> counts;  // per bucket, not cumulative; +Inf last
    uint64_t count = 0;
    double sum = 0;
  };
  Snapshot snapshot() const;
  const std::vector<double>& bounds() const { return bounds_; }

 private:
  const std::vector<double> bounds_;
  std::unique_ptr<std::atomic<uint64_t>[]> counts_;  // bounds_.size() + 1
  std::atomic<double> sum_{0};
};

// Latency buckets in seconds, 100 us to 30 s, about three per decade:
// Thrift calls take 50 us (a round trip) to seconds (an admin call).
std::vector<double> LatencyBuckets();
// Buckets 0, 1, 2, 4, ..., 1024: counts such as servers asked per lookup.
std::vector<double> PowerOfTwoBuckets(double largest = 1024);

// What a collector writes when scraped: samples of families computed at
// that moment. A family named here and also registered with Get* is
// rendered once, with the registered kind and help.
class Writer {
 public:
  virtual ~Writer() = default;
  virtual void Gauge(std::string_view name, std::string_view help,
                     const Labels& labels, double value) = 0;
  // A running total kept elsewhere (it must never decrease).
  virtual void Counter(std::string_view name, std::string_view help,
                       const Labels& labels, double value) = 0;
};

class Registry {
 public:
  using Collector = std::function<void(Writer&)>;

  // Removes its collector when destroyed (after a render running it ends).
  class CollectorHandle {
   public:
    CollectorHandle() = default;
    CollectorHandle(Registry* registry, uint64_t id)
        : registry_(registry), id_(id) {}
    CollectorHandle(CollectorHandle&& other) noexcept {
      *this = std::move(other);
    }
    CollectorHandle& operator=(CollectorHandle&& other) noexcept;
    CollectorHandle(const CollectorHandle&) = delete;
    CollectorHandle& operator=(const CollectorHandle&) = delete;
    ~CollectorHandle() { Reset(); }
    void Reset();

   private:
    Registry* registry_ = nullptr;
    uint64_t id_ = 0;
  };

  Registry();
  ~Registry();
  Registry(const Registry&) = delete;
  Registry& operator=(const Registry&) = delete;

  // The series (name, labels), made on first use; the same object for the
  // same name and labels (in any order). `help` is kept from the family's
  // first use. A name must match [a-zA-Z_:][a-zA-Z0-9_:]* and label names
  // [a-zA-Z_][a-zA-Z0-9_]*; using a name with another kind, or a histogram
  // with other bounds, is a programming error and aborts in debug builds
  // (release builds return a series that is never rendered).
  Counter& GetCounter(std::string_view name, std::string_view help,
                      const Labels& labels = {});
  Gauge& GetGauge(std::string_view name, std::string_view help,
                  const Labels& labels = {});
  Histogram& GetHistogram(std::string_view name, std::string_view help,
                          const Labels& labels,
                          const std::vector<double>& bounds);

  [[nodiscard]] CollectorHandle AddCollector(Collector collector);

  // Renders the process metrics (WriteProcessMetrics) too from now on;
  // idempotent. A flag of the registry's, not a collector: it lives exactly
  // as long as the registry.
  void IncludeProcessMetrics() { process_metrics_ = true; }

  // Every family in name order, each with # HELP and # TYPE lines and its
  // series in label order: the text exposition format 0.0.4. Label values
  // and help are escaped as it says; values are printed exactly (integers
  // as integers, +Inf, NaN).
  std::string Render() const;

 private:
  struct Family;
  Family* FamilyFor(std::string_view name, std::string_view help, int kind,
                    const std::vector<double>* bounds);
  void RemoveCollector(uint64_t id);

  mutable std::mutex mutex_;
  // Guarded by mutex_: the families (their series' addresses are stable).
  std::map<std::string, std::unique_ptr<Family>, std::less<>> families_;
  std::map<uint64_t, std::shared_ptr<Collector>> collectors_;
  uint64_t next_collector_ = 1;
  std::atomic<bool> process_metrics_{false};
};

// The process's registry: what /metrics serves.
Registry& DefaultRegistry();

// Writes the standard process metrics (process_cpu_seconds_total,
// process_resident_memory_bytes, process_virtual_memory_bytes,
// process_open_fds, process_max_fds, process_start_time_seconds, read from
// /proc/self); nothing when /proc cannot be read.
void WriteProcessMetrics(Writer& w);

// Escapes a label value for the text format: backslash, double quote and
// line feed.
std::string EscapeLabelValue(std::string_view value);

}  // namespace bloomroute::metrics

#endif  // BLOOMROUTE_COMMON_METRICS_H_
