// Striped row locks: a fixed array of mutexes, a row maps to one by hash.
// Two rows may share a stripe (harmless: they serialize); a batch locks its
// stripes in ascending order, so batches cannot deadlock.
#ifndef BLOOMROUTE_REGIONSTORE_INTERNAL_ROW_LOCKS_H_
#define BLOOMROUTE_REGIONSTORE_INTERNAL_ROW_LOCKS_H_

#include <algorithm>
#include <functional>
#include <mutex>
#include <string_view>
#include <vector>

namespace bloomroute::regionstore_internal {

class RowLocks {
 public:
  explicit RowLocks(size_t stripes = 4096) : mutexes_(stripes) {}
  RowLocks(const RowLocks&) = delete;
  RowLocks& operator=(const RowLocks&) = delete;

  // Locks every stripe the keys map to, each once, in ascending order. The
  // locks are held until the returned vector is destroyed.
  std::vector<std::unique_lock<std::mutex>> LockAll(
      const std::vector<std::string_view>& keys) {
    std::vector<size_t> stripes;
    stripes.reserve(keys.size());
    for (auto k : keys) {
      stripes.push_back(std::hash<std::string_view>()(k) % mutexes_.size());
    }
    std::sort(stripes.begin(), stripes.end());
    stripes.erase(std::unique(stripes.begin(), stripes.end()), stripes.end());
    std::vector<std::unique_lock<std::mutex>> held;
    held.reserve(stripes.size());
    for (size_t s : stripes) held.emplace_back(mutexes_[s]);
    return held;
  }

 private:
  std::vector<std::mutex> mutexes_;
};

}  // namespace bloomroute::regionstore_internal

#endif  // BLOOMROUTE_REGIONSTORE_INTERNAL_ROW_LOCKS_H_
