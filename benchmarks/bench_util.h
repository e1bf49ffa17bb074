// What the benchmarks that build a cluster share.
#ifndef BLOOMROUTE_BENCHMARKS_BENCH_UTIL_H_
#define BLOOMROUTE_BENCHMARKS_BENCH_UTIL_H_

#include <benchmark/benchmark.h>
#include <stdlib.h>
#include <sys/resource.h>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <mutex>
#include <string>
#include <system_error>
#include <vector>

namespace bloomroute::bench {

// A new directory under the system's temporary directory, removed when the
// benchmark exits (a cluster's stores take hundreds of MB a run: left
// behind, a few dozen runs filled a disk). BLOOMROUTE_BENCH_KEEP=1 keeps
// them, for a look at the data after a run.
inline std::string TempDir() {
  static std::mutex mu;
  static std::vector<std::string>* made = nullptr;  // never freed: atexit
  std::error_code no_tmp;
  const std::filesystem::path tmp =
      std::filesystem::temp_directory_path(no_tmp);
  std::string tmpl = (tmp / "bloomroute-bench-XXXXXX").string();
  if (no_tmp || mkdtemp(tmpl.data()) == nullptr) {
    std::perror(("benchmark: cannot create " + tmpl).c_str());
    std::exit(1);  // no cluster to measure
  }
  std::lock_guard<std::mutex> lock(mu);
  if (made == nullptr) {
    made = new std::vector<std::string>();
    const char* keep = std::getenv("BLOOMROUTE_BENCH_KEEP");
    if (keep == nullptr || std::string(keep) != "1") {
      std::atexit([] {
        for (const std::string& dir : *made) {
          std::error_code ignored;
          std::filesystem::remove_all(dir, ignored);
        }
      });
    }
  }
  made->push_back(tmpl);
  return tmpl;
}

// The selective value number `v` of region server `server`: present on that
// server only.
inline std::string Value(int server, int v) {
  return "s" + std::to_string(server) + "-" + std::to_string(v);
}

// Context switches of every live thread of this process, voluntary and not,
// from /proc/self/task/*/status: a benchmark whose servers run in its own
// process reads the hand-offs of a call on both sides as the difference
// across its loop. 0 where /proc is missing.
inline uint64_t ProcessContextSwitches() {
  uint64_t total = 0;
  std::error_code error;
  for (const auto& task :
       std::filesystem::directory_iterator("/proc/self/task", error)) {
    std::ifstream status(task.path() / "status");
    std::string line;
    while (std::getline(status, line)) {
      if (line.find("ctxt_switches:") == std::string::npos) continue;
      total += std::strtoull(line.c_str() + line.find(':') + 1, nullptr, 10);
    }
  }
  return total;
}

// CPU seconds (user and system) of every thread of this process so far.
inline double ProcessCpuSeconds() {
  rusage usage{};
  getrusage(RUSAGE_SELF, &usage);
  return static_cast<double>(usage.ru_utime.tv_sec + usage.ru_stime.tv_sec) +
         static_cast<double>(usage.ru_utime.tv_usec + usage.ru_stime.tv_usec) /
             1e6;
}

// What the whole process spent on the calls of a benchmark loop: its
// context switches and CPU time. Taken on each benchmark thread around its
// loop; every thread sees all threads' costs, so Report shares them out
// over all threads' calls.
class ProcessCost {
 public:
  ProcessCost()
      : switches_(ProcessContextSwitches()), cpu_(ProcessCpuSeconds()) {}
  // Sets the counters `switches` and `cpu_us` per call.
  void Report(benchmark::State& state) const {
    using benchmark::Counter;
    const double calls = static_cast<double>(
        std::max<int64_t>(1, state.iterations()) * state.threads());
    state.counters["switches"] = Counter(
        static_cast<double>(ProcessContextSwitches() - switches_) / calls,
        Counter::kAvgThreads);
    state.counters["cpu_us"] = Counter(
        (ProcessCpuSeconds() - cpu_) * 1e6 / calls, Counter::kAvgThreads);
  }

 private:
  const uint64_t switches_;
  const double cpu_;
};

}  // namespace bloomroute::bench

#endif  // BLOOMROUTE_BENCHMARKS_BENCH_UTIL_H_
