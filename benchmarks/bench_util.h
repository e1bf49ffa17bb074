// What the benchmarks that build a cluster share.
#ifndef BLOOMROUTE_BENCHMARKS_BENCH_UTIL_H_
#define BLOOMROUTE_BENCHMARKS_BENCH_UTIL_H_

#include <stdlib.h>

#include <filesystem>
#include <string>

namespace bloomroute::bench {

// A new directory under the system's temporary directory; the benchmark
// leaves it (its data may be worth a look after a run).
inline std::string TempDir() {
  std::string tmpl =
      (std::filesystem::temp_directory_path() / "bloomroute-bench-XXXXXX")
          .string();
  return mkdtemp(tmpl.data());
}

// The selective value number `v` of region server `server`: present on that
// server only.
inline std::string Value(int server, int v) {
  return "s" + std::to_string(server) + "-" + std::to_string(v);
}

}  // namespace bloomroute::bench

#endif  // BLOOMROUTE_BENCHMARKS_BENCH_UTIL_H_
