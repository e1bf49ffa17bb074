#include "regionstore/internal/value_record_cache.h"

namespace bloomroute::regionstore_internal {

void ValueRecordCache::Put(const std::string& key, const ValueRecord& rec) {
  if (max_entries_ == 0) return;
  auto it = records_.find(key);
  if (it != records_.end()) {
    it->second = rec;
    return;
  }
  // Evicting the first entry is O(1) and, under a hash, arbitrary: a working
  // set larger than the cache degrades to one read per missed value (the
  // cost without a cache), never to a rescan.
  if (records_.size() >= max_entries_) records_.erase(records_.begin());
  records_.emplace(key, rec);
}

}  // namespace bloomroute::regionstore_internal
