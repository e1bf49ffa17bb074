// The one place RocksDB statuses become bloomroute statuses.
#ifndef BLOOMROUTE_REGIONSTORE_INTERNAL_ROCKS_STATUS_H_
#define BLOOMROUTE_REGIONSTORE_INTERNAL_ROCKS_STATUS_H_

#include <rocksdb/status.h>

#include "common/status.h"

namespace bloomroute::regionstore_internal {

inline Status FromRocks(const rocksdb::Status& s) {
  if (s.ok()) return Status::OK();
  const std::string msg = "rocksdb: " + s.ToString();
  if (s.IsNotFound()) return Status::NotFound(msg);
  if (s.IsCorruption()) return Status::Corruption(msg);
  // Busy / TryAgain / TimedOut are transient: the caller may retry.
  if (s.IsBusy() || s.IsTryAgain() || s.IsTimedOut()) {
    return Status::Unavailable(msg);
  }
  return Status::IOError(msg);
}

}  // namespace bloomroute::regionstore_internal

#endif  // BLOOMROUTE_REGIONSTORE_INTERNAL_ROCKS_STATUS_H_
