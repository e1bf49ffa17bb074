// SortedBatch: a write's entries, handed to RocksDB sorted by column family
// and key. RocksDB's memtable keeps the search path ("splice") of its previous
// insert (InlineSkipList::Insert); keys arriving in order reuse most of it,
// while random keys recompute it from the top. Recomputing was ~39 % of put
// time with 2 indexed columns (perf, put_benchmark).
#ifndef BLOOMROUTE_REGIONSTORE_INTERNAL_SORTED_BATCH_H_
#define BLOOMROUTE_REGIONSTORE_INTERNAL_SORTED_BATCH_H_

#include <rocksdb/db.h>
#include <rocksdb/write_batch.h>

#include <algorithm>
#include <string>
#include <vector>

#include "regionstore/internal/rocks_status.h"

namespace bloomroute::regionstore_internal {

class SortedBatch {
 public:
  void Put(rocksdb::ColumnFamilyHandle* cf, std::string key,
           std::string value) {
    entries_.push_back({cf, std::move(key), std::move(value), false});
  }
  void Delete(rocksdb::ColumnFamilyHandle* cf, std::string key) {
    entries_.push_back({cf, std::move(key), std::string(), true});
  }
  // Every entry, sorted; entries for the same key keep their order.
  Status Build(rocksdb::WriteBatch* wb) {
    std::stable_sort(entries_.begin(), entries_.end(),
                     [](const Entry& a, const Entry& b) {
                       if (a.cf->GetID() != b.cf->GetID()) {
                         return a.cf->GetID() < b.cf->GetID();
                       }
                       return a.key < b.key;
                     });
    for (const Entry& e : entries_) {
      rocksdb::Status s =
          e.is_delete ? wb->Delete(e.cf, e.key) : wb->Put(e.cf, e.key, e.value);
      if (!s.ok()) return FromRocks(s);
    }
    return Status::OK();
  }

 private:
  struct Entry {
    rocksdb::ColumnFamilyHandle* cf;
    std::string key;
    std::string value;
    bool is_delete;
  };
  std::vector<Entry> entries_;
};

}  // namespace bloomroute::regionstore_internal

#endif  // BLOOMROUTE_REGIONSTORE_INTERNAL_SORTED_BATCH_H_
