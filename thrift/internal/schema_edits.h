// LockSchemaEdits: one online schema change of the router's tables at a
// time, from every connection of this process (both Thrift ports).
//
// HBase's family calls (addColumnFamily, modifyColumnFamily,
// deleteColumnFamily) read the table's current descriptor and write it
// back whole (Router::ModifyTable). Two at once would each write a
// descriptor without the other's family; an addIndex or dropIndex between
// a family call's read and its write would be undone by it. HBase runs
// these as procedures under the table's exclusive lock; here modifyTable,
// the family calls, addIndex and dropIndex hold one mutex across their
// read and write. Most return once the catalog is written (index builds
// run later, in maintenance), but removing a family first scans the table
// for its cells, which on a large table takes a while: a call waits for
// the mutex at most kSchemaEditWait and then answers Unavailable, so that
// schema calls queued behind a long one do not hold the server's workers.
// With several routers (one process each) the coordinator that runs DDL
// must hold the same rule.
#ifndef BLOOMROUTE_THRIFT_INTERNAL_SCHEMA_EDITS_H_
#define BLOOMROUTE_THRIFT_INTERNAL_SCHEMA_EDITS_H_

#include <chrono>
#include <mutex>

#include "common/status.h"

namespace bloomroute::thrift_internal {

inline constexpr std::chrono::seconds kSchemaEditWait{5};

// Locks the schema-edit mutex into `*lock`; Unavailable (retry) when
// another schema change held it for kSchemaEditWait.
inline Status LockSchemaEdits(std::unique_lock<std::timed_mutex>* lock) {
  static std::timed_mutex* mu = new std::timed_mutex();
  *lock = std::unique_lock<std::timed_mutex>(*mu, std::defer_lock);
  if (lock->try_lock_for(kSchemaEditWait)) return Status::OK();
  return Status::Unavailable(
      "another schema change of this router's tables is in progress; retry");
}

}  // namespace bloomroute::thrift_internal

#endif  // BLOOMROUTE_THRIFT_INTERNAL_SCHEMA_EDITS_H_
