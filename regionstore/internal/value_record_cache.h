// ValueRecordCache: the value records (records.h) a region server's commits
// last wrote or read, by value key (keys.h), so that a put learns the counts
// of its indexed values without a RocksDB read.
//
//   ValueRecordCache cache(1 << 18);
//   if (const ValueRecord* rec = cache.Find(key)) { ... }  // else read it
//   cache.Put(key, rec);  // once `rec` is what storage holds
//
// The cache is only ever a copy of what storage holds: RegionFilter (its
// sole owner) puts a record in it after the write that stored it succeeded,
// or after reading it, under the filter lock that orders every write of a
// value record; it clears the cache whenever it cannot tell what storage
// holds (a failed write, a rebuild). So a cached record is authoritative
// while the store is open, and a crash loses nothing: a reopened store
// starts with an empty cache and reads the records it needs.
//
// Not thread-safe: the owner's lock guards it.
#ifndef BLOOMROUTE_REGIONSTORE_INTERNAL_VALUE_RECORD_CACHE_H_
#define BLOOMROUTE_REGIONSTORE_INTERNAL_VALUE_RECORD_CACHE_H_

#include <cstddef>
#include <string>
#include <unordered_map>

#include "regionstore/internal/records.h"

namespace bloomroute::regionstore_internal {

class ValueRecordCache {
 public:
  // Holds at most `max_entries` records (0: caches nothing).
  explicit ValueRecordCache(size_t max_entries) : max_entries_(max_entries) {}
  ValueRecordCache(const ValueRecordCache&) = delete;
  ValueRecordCache& operator=(const ValueRecordCache&) = delete;

  // The record stored under `key` (count 0: none is stored), or null when
  // the cache does not know it.
  const ValueRecord* Find(const std::string& key) const {
    auto it = records_.find(key);
    return it == records_.end() ? nullptr : &it->second;
  }
  // `rec` is what storage holds under `key` (count 0: nothing). When full,
  // an arbitrary record makes room: an evicted value is read again.
  void Put(const std::string& key, const ValueRecord& rec);
  void Clear() { records_.clear(); }
  size_t size() const { return records_.size(); }

 private:
  const size_t max_entries_;
  std::unordered_map<std::string, ValueRecord> records_;
};

}  // namespace bloomroute::regionstore_internal

#endif  // BLOOMROUTE_REGIONSTORE_INTERNAL_VALUE_RECORD_CACHE_H_
