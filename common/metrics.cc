#include "common/metrics.h"

#include <dirent.h>
#include <sys/resource.h>
#include <unistd.h>

#include <algorithm>
#include <cassert>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <limits>
#include <sstream>

namespace bloomroute::metrics {
namespace {

enum Kind : int { kCounter = 0, kGauge = 1, kHistogram = 2 };

const char* KindName(int kind) {
  switch (kind) {
    case kCounter:
      return "counter";
    case kGauge:
      return "gauge";
    default:
      return "histogram";
  }
}

bool ValidName(std::string_view name, bool allow_colon) {
  if (name.empty()) return false;
  for (size_t i = 0; i < name.size(); ++i) {
    const char c = name[i];
    const bool alpha = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
                       c == '_' || (allow_colon && c == ':');
    if (!alpha && !(i > 0 && c >= '0' && c <= '9')) return false;
  }
  return true;
}

bool ValidLabels(const Labels& labels) {
  for (const auto& [name, value] : labels) {
    if (!ValidName(name, /*allow_colon=*/false)) return false;
  }
  return true;
}

Labels Sorted(Labels labels) {
  std::sort(labels.begin(), labels.end());
  return labels;
}

void AtomicAdd(std::atomic<double>* a, double delta) {
  double old = a->load(std::memory_order_relaxed);
  while (
      !a->compare_exchange_weak(old, old + delta, std::memory_order_relaxed)) {
  }
}

// A sample value as the text format reads it: integers exactly, others
// with enough digits to round-trip, and +Inf, -Inf, NaN by name.
std::string FormatValue(double v) {
  if (std::isnan(v)) return "NaN";
  if (std::isinf(v)) return v > 0 ? "+Inf" : "-Inf";
  char buf[64];
  if (v == std::floor(v) && std::fabs(v) < 1e15) {
    std::snprintf(buf, sizeof(buf), "%.0f", v);
  } else {
    std::snprintf(buf, sizeof(buf), "%.17g", v);
  }
  return buf;
}

std::string EscapeHelp(std::string_view help) {
  std::string out;
  for (char c : help) {
    if (c == '\\') {
      out += "\\\\";
    } else if (c == '\n') {
      out += "\\n";
    } else {
      out += c;
    }
  }
  return out;
}

// `{a="x",b="y"}` with `extra` (a histogram's le) last; empty for none.
std::string FormatLabels(const Labels& labels, const char* extra_name = nullptr,
                         const std::string& extra_value = "") {
  if (labels.empty() && extra_name == nullptr) return "";
  std::string out = "{";
  bool first = true;
  for (const auto& [name, value] : labels) {
    if (!first) out += ',';
    first = false;
    out += name + "=\"" + EscapeLabelValue(value) + "\"";
  }
  if (extra_name != nullptr) {
    if (!first) out += ',';
    out += std::string(extra_name) + "=\"" + extra_value + "\"";
  }
  return out + "}";
}

}  // namespace

void Gauge::Add(double delta) { AtomicAdd(&value_, delta); }

Histogram::Histogram(std::vector<double> bounds)
    : bounds_(std::move(bounds)),
      counts_(new std::atomic<uint64_t>[bounds_.size() + 1]) {
  assert(std::is_sorted(bounds_.begin(), bounds_.end()));
  for (size_t i = 0; i <= bounds_.size(); ++i) counts_[i] = 0;
}

void Histogram::Observe(double v) {
  if (std::isnan(v)) return;
  const size_t bucket =
      std::lower_bound(bounds_.begin(), bounds_.end(), v) - bounds_.begin();
  counts_[bucket].fetch_add(1, std::memory_order_relaxed);
  AtomicAdd(&sum_, v);
}

Histogram::Snapshot Histogram::snapshot() const {
  Snapshot s;
  s.bounds = bounds_;
  s.counts.resize(bounds_.size() + 1);
  for (size_t i = 0; i <= bounds_.size(); ++i) {
    s.counts[i] = counts_[i].load(std::memory_order_relaxed);
    s.count += s.counts[i];
  }
  s.sum = sum_.load(std::memory_order_relaxed);
  return s;
}

std::vector<double> LatencyBuckets() {
  return {0.0001, 0.00025, 0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05,
          0.1,    0.25,    0.5,    1,     2.5,    5,     10,   30};
}

std::vector<double> PowerOfTwoBuckets(double largest) {
  std::vector<double> bounds = {0};
  for (double b = 1; b <= largest; b *= 2) bounds.push_back(b);
  return bounds;
}

std::string EscapeLabelValue(std::string_view value) {
  std::string out;
  out.reserve(value.size());
  for (char c : value) {
    if (c == '\\') {
      out += "\\\\";
    } else if (c == '"') {
      out += "\\\"";
    } else if (c == '\n') {
      out += "\\n";
    } else {
      out += c;
    }
  }
  return out;
}

// ---- Registry ----

struct Registry::Family {
  std::string help;
  int kind = kCounter;
  std::vector<double> bounds;  // histograms
  // Series by sorted labels; the objects never move.
  std::map<Labels, std::unique_ptr<Counter>> counters;
  std::map<Labels, std::unique_ptr<metrics::Gauge>> gauges;
  std::map<Labels, std::unique_ptr<Histogram>> histograms;
};

Registry::Registry() = default;
Registry::~Registry() = default;

Registry::Family* Registry::FamilyFor(std::string_view name,
                                      std::string_view help, int kind,
                                      const std::vector<double>* bounds) {
  assert(ValidName(name, /*allow_colon=*/true));
  auto it = families_.find(name);
  if (it == families_.end()) {
    auto family = std::make_unique<Family>();
    family->help = std::string(help);
    family->kind = kind;
    if (bounds != nullptr) family->bounds = *bounds;
    it = families_.emplace(std::string(name), std::move(family)).first;
  }
  Family* family = it->second.get();
  const bool matches =
      family->kind == kind && (bounds == nullptr || family->bounds == *bounds);
  assert(matches && "a metric used with another kind or other buckets");
  return matches && ValidName(name, true) ? family : nullptr;
}

Counter& Registry::GetCounter(std::string_view name, std::string_view help,
                              const Labels& labels) {
  static Counter orphan;  // for misuse in release builds: never rendered
  std::lock_guard<std::mutex> lock(mutex_);
  Family* family = FamilyFor(name, help, kCounter, nullptr);
  if (family == nullptr || !ValidLabels(labels)) return orphan;
  auto& slot = family->counters[Sorted(labels)];
  if (slot == nullptr) slot = std::make_unique<Counter>();
  return *slot;
}

Gauge& Registry::GetGauge(std::string_view name, std::string_view help,
                          const Labels& labels) {
  static metrics::Gauge orphan;
  std::lock_guard<std::mutex> lock(mutex_);
  Family* family = FamilyFor(name, help, kGauge, nullptr);
  if (family == nullptr || !ValidLabels(labels)) return orphan;
  auto& slot = family->gauges[Sorted(labels)];
  if (slot == nullptr) slot = std::make_unique<metrics::Gauge>();
  return *slot;
}

Histogram& Registry::GetHistogram(std::string_view name, std::string_view help,
                                  const Labels& labels,
                                  const std::vector<double>& bounds) {
  static Histogram orphan({});
  std::lock_guard<std::mutex> lock(mutex_);
  Family* family = FamilyFor(name, help, kHistogram, &bounds);
  if (family == nullptr || !ValidLabels(labels)) return orphan;
  auto& slot = family->histograms[Sorted(labels)];
  if (slot == nullptr) slot = std::make_unique<Histogram>(bounds);
  return *slot;
}

Registry::CollectorHandle Registry::AddCollector(Collector collector) {
  std::lock_guard<std::mutex> lock(mutex_);
  const uint64_t id = next_collector_++;
  collectors_[id] = std::make_shared<Collector>(std::move(collector));
  return CollectorHandle(this, id);
}

void Registry::RemoveCollector(uint64_t id) {
  std::shared_ptr<Collector> removed;
  {
    std::lock_guard<std::mutex> lock(mutex_);
    auto it = collectors_.find(id);
    if (it == collectors_.end()) return;
    removed = std::move(it->second);
    collectors_.erase(it);
  }
  // A render that copied it may still run it: wait until it is done, so
  // that what the collector reads may be destroyed after the handle.
  while (removed.use_count() > 1) {
    usleep(1000);
  }
}

Registry::CollectorHandle& Registry::CollectorHandle::operator=(
    CollectorHandle&& other) noexcept {
  if (this != &other) {
    Reset();
    registry_ = other.registry_;
    id_ = other.id_;
    other.registry_ = nullptr;
  }
  return *this;
}

void Registry::CollectorHandle::Reset() {
  if (registry_ != nullptr) registry_->RemoveCollector(id_);
  registry_ = nullptr;
}

namespace {

// The text of one family being rendered.
struct RenderedFamily {
  std::string help;
  int kind = kGauge;
  std::map<Labels, std::string> lines;  // series -> its sample lines
};

class CollectingWriter : public Writer {
 public:
  explicit CollectingWriter(std::map<std::string, RenderedFamily>* out)
      : out_(out) {}
  void Gauge(std::string_view name, std::string_view help, const Labels& labels,
             double value) override {
    Add(name, help, labels, value, kGauge);
  }
  void Counter(std::string_view name, std::string_view help,
               const Labels& labels, double value) override {
    Add(name, help, labels, value, kCounter);
  }

 private:
  void Add(std::string_view name, std::string_view help, const Labels& labels,
           double value, int kind) {
    if (!ValidName(name, true) || !ValidLabels(labels)) return;
    auto [it, inserted] = out_->try_emplace(std::string(name));
    RenderedFamily& f = it->second;
    if (inserted) {
      f.help = std::string(help);
      f.kind = kind;
    } else if (f.kind != kind) {
      return;  // a name used with two kinds: keep the first
    }
    const Labels sorted = Sorted(labels);
    f.lines[sorted] = std::string(name) + FormatLabels(sorted) + " " +
                      FormatValue(value) + "\n";
  }
  std::map<std::string, RenderedFamily>* out_;
};

std::string HistogramLines(const std::string& name, const Labels& labels,
                           const Histogram::Snapshot& s) {
  std::string out;
  uint64_t cumulative = 0;
  for (size_t i = 0; i < s.counts.size(); ++i) {
    cumulative += s.counts[i];
    const std::string le =
        i < s.bounds.size() ? FormatValue(s.bounds[i]) : std::string("+Inf");
    out += name + "_bucket" + FormatLabels(labels, "le", le) + " " +
           std::to_string(cumulative) + "\n";
  }
  out += name + "_sum" + FormatLabels(labels) + " " + FormatValue(s.sum) + "\n";
  out += name + "_count" + FormatLabels(labels) + " " +
         std::to_string(cumulative) + "\n";
  return out;
}

}  // namespace

std::string Registry::Render() const {
  std::map<std::string, RenderedFamily> rendered;
  std::vector<std::shared_ptr<Collector>> collectors;
  {
    std::lock_guard<std::mutex> lock(mutex_);
    for (const auto& [name, family] : families_) {
      RenderedFamily& f = rendered[name];
      f.help = family->help;
      f.kind = family->kind;
      for (const auto& [labels, c] : family->counters) {
        f.lines[labels] = name + FormatLabels(labels) + " " +
                          std::to_string(c->value()) + "\n";
      }
      for (const auto& [labels, g] : family->gauges) {
        f.lines[labels] =
            name + FormatLabels(labels) + " " + FormatValue(g->value()) + "\n";
      }
      for (const auto& [labels, h] : family->histograms) {
        f.lines[labels] = HistogramLines(name, labels, h->snapshot());
      }
    }
    for (const auto& [id, c] : collectors_) collectors.push_back(c);
  }
  CollectingWriter writer(&rendered);
  for (const auto& c : collectors) (*c)(writer);
  collectors.clear();
  if (process_metrics_) WriteProcessMetrics(writer);

  std::string out;
  for (const auto& [name, f] : rendered) {
    if (f.lines.empty()) continue;
    out += "# HELP " + name + " " + EscapeHelp(f.help) + "\n";
    out += "# TYPE " + name + " " + KindName(f.kind) + "\n";
    for (const auto& [labels, lines] : f.lines) out += lines;
  }
  return out;
}

Registry& DefaultRegistry() {
  static Registry* registry = new Registry();
  return *registry;
}

// ---- Process metrics ----

namespace {

struct ProcessSample {
  double cpu_seconds = 0;
  double start_time_seconds = 0;
  double virtual_bytes = 0;
  double resident_bytes = 0;
  double open_fds = 0;
  double max_fds = 0;
};

// /proc/self/stat: utime and stime (fields 14, 15) in clock ticks, starttime
// (22) in ticks since boot, vsize (23) in bytes, rss (24) in pages. The
// command (field 2) is in parentheses and may hold spaces, so fields are
// counted after its closing one.
void ReadStat(ProcessSample* s) {
  std::ifstream in("/proc/self/stat");
  std::string line;
  if (!std::getline(in, line)) return;
  const size_t close = line.rfind(')');
  if (close == std::string::npos) return;
  std::istringstream fields(line.substr(close + 2));
  std::vector<std::string> f;
  for (std::string v; fields >> v;) f.push_back(v);
  // f[0] is field 3 (state).
  if (f.size() < 22) return;
  const double ticks = static_cast<double>(sysconf(_SC_CLK_TCK));
  const double page = static_cast<double>(sysconf(_SC_PAGESIZE));
  s->cpu_seconds = (std::stod(f[11]) + std::stod(f[12])) / ticks;
  s->virtual_bytes = std::stod(f[20]);
  s->resident_bytes = std::stod(f[21]) * page;
  double boot_time = 0;
  std::ifstream stat("/proc/stat");
  for (std::string key; stat >> key;) {
    if (key == "btime") {
      stat >> boot_time;
      break;
    }
  }
  s->start_time_seconds = boot_time + std::stod(f[19]) / ticks;
}

double OpenFds() {
  DIR* dir = opendir("/proc/self/fd");
  if (dir == nullptr) return 0;
  double n = 0;
  while (dirent* e = readdir(dir)) {
    if (e->d_name[0] != '.') ++n;
  }
  closedir(dir);
  return n - 1;  // the directory's own descriptor
}

}  // namespace

void WriteProcessMetrics(Writer& w) {
  ProcessSample s;
  try {
    ReadStat(&s);
  } catch (const std::exception&) {
    return;  // an unreadable /proc: no process metrics, not an error
  }
  rlimit limit{};
  if (getrlimit(RLIMIT_NOFILE, &limit) == 0) {
    s.max_fds = static_cast<double>(limit.rlim_cur);
  }
  w.Counter("process_cpu_seconds_total",
            "User and system CPU time spent in seconds.", {}, s.cpu_seconds);
  w.Gauge("process_start_time_seconds",
          "Start time of the process since unix epoch in seconds.", {},
          s.start_time_seconds);
  w.Gauge("process_virtual_memory_bytes", "Virtual memory size in bytes.", {},
          s.virtual_bytes);
  w.Gauge("process_resident_memory_bytes", "Resident memory size in bytes.", {},
          s.resident_bytes);
  w.Gauge("process_open_fds", "Number of open file descriptors.", {},
          OpenFds());
  w.Gauge("process_max_fds", "Maximum number of open file descriptors.", {},
          s.max_fds);
}

}  // namespace bloomroute::metrics
