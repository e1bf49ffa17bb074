// SchemaEditMutex: one online schema change of the router's tables at a
// time, from every connection of this process (both Thrift ports).
//
// HBase's family calls (addColumnFamily, modifyColumnFamily,
// deleteColumnFamily) read the table's current descriptor and write it
// back whole (Router::ModifyTable). Two at once would each write a
// descriptor without the other's family; an addIndex or dropIndex between
// a family call's read and its write would be undone by it. HBase runs
// these as procedures under the table's exclusive lock; here modifyTable,
// the family calls, addIndex and dropIndex hold this mutex across their
// read and write. Schema changes are rare and return once the catalog is
// written (index builds run later, in maintenance), so one mutex for every
// table costs nothing measurable. With several routers (one process each)
// the coordinator that runs DDL must hold the same rule.
#ifndef BLOOMROUTE_THRIFT_INTERNAL_SCHEMA_EDITS_H_
#define BLOOMROUTE_THRIFT_INTERNAL_SCHEMA_EDITS_H_

#include <mutex>

namespace bloomroute::thrift_internal {

inline std::mutex& SchemaEditMutex() {
  static std::mutex* mu = new std::mutex();
  return *mu;
}

}  // namespace bloomroute::thrift_internal

#endif  // BLOOMROUTE_THRIFT_INTERNAL_SCHEMA_EDITS_H_
