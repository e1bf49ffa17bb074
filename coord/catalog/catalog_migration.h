// MigrateCatalog: copies a router's catalog (the embedded one, from --data)
// into a cluster's ZooKeeper catalog, so that a single-router cluster grows
// into routers sharing ZooKeeper without re-importing (bloomroute migrate
// --to-zookeeper).
//
// What moves: every server with its id and address (removed ones too: their
// ids stay used), every table record as it is (regions, retired regions,
// index tasks, region operations in flight), the quotas, the namespaces
// with their configuration, the grants, the page-token key
// (tokens handed out before keep paging), the cluster id (HBase's
// getClusterId answers the same), the id counters and the router
// starts (so the next router's fence tokens and coordinator epoch are above
// every earlier run's). The source is only read.
//
// The target must hold no catalog. The copy marks /catalog as migrating
// first and complete last, so a router started meanwhile refuses to open it
// (Unavailable, "run it again"); a copy that stopped half-way is removed
// and made again by the next run.
//
// Thread-safety: the caller's; nothing else may change either catalog
// meanwhile (the source's router is stopped: its RocksDB lock says so).
#ifndef BLOOMROUTE_COORD_CATALOG_CATALOG_MIGRATION_H_
#define BLOOMROUTE_COORD_CATALOG_CATALOG_MIGRATION_H_

#include <cstddef>

#include "common/status.h"
#include "common/statusor.h"
#include "coord/znode_store.h"
#include "router/catalog_store.h"

namespace bloomroute::coord {

struct MigrationReport {
  size_t servers = 0;
  size_t tables = 0;
  size_t quotas = 0;
  size_t namespaces = 0;  // those with a record (CatalogStore::Namespaces)
  size_t grants = 0;      // user and scope pairs (CatalogStore::Grants)
  uint64_t router_starts = 0;
};

// Copies `from` into `to` (a session in the cluster's chroot). InvalidArgument
// naming what it holds when `to` already has a complete catalog; the
// store's errors (Unavailable, ...) as they come, after which a new run
// starts over.
[[nodiscard]] StatusOr<MigrationReport> MigrateCatalog(
    router::CatalogStore& from, ZnodeStore* to);

}  // namespace bloomroute::coord

#endif  // BLOOMROUTE_COORD_CATALOG_CATALOG_MIGRATION_H_
