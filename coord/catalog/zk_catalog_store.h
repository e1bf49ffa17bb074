// ZnodeCatalogStore: the router's CatalogStore (router/catalog_store.h) kept
// in a ZnodeStore (coord/znode_store.h) -- a ZooKeeper ensemble, so that
// several routers share one cluster's catalog and losing any one machine
// loses none of it. Records are CatalogRecords (router/catalog_records.h),
// the bytes the embedded store keeps.
//
// Layout, under the cluster's chroot ("/bloomroute/<cluster>"):
//   /catalog                      the layout's version (one byte, 1)
//   /catalog/ids                  next server, table and region ids; every
//                                 change sets it in the change's Multi with
//                                 the version last read (below)
//   /catalog/starts               router starts (RecordRouterStart)
//   /catalog/page_token_key       the page-token key
//   /catalog/servers/s<id>        one server record (id in 10 digits)
//   /catalog/tables/t<id>         a table's head (id in 20 digits): the
//                                 generation, chunk count, byte count and
//                                 XXH64 of its record
//   /catalog/tables/t<id>/g<generation>_<chunk>
//                                 the record's bytes, kChunkBytes a chunk
//   /catalog/quotas               the quota list's head, and its chunks
//                                 below it as a table's
// How a table of 1,024 regions is laid out: a region takes 20 bytes of its
// table's record plus its two keys, so with keys of 20 bytes 1,024 regions
// are ~61 KB: one chunk, written with its head in one Multi. Keys may be up
// to 32 KiB (HBase's bound), so a record may reach ~64 MiB: 128 chunks of
// kChunkBytes. Every node stays under ZooKeeper's 1 MiB bound
// (kMaxNodeBytes), and so does every Multi: a record that does not fit one
// Multi is written as chunks of a new generation first (unreferenced, so
// readers do not see them), then one Multi switches the head to them and
// deletes the old generation's chunks.
//
// Compare-and-set. Every change is one Multi that also sets /catalog/ids at
// the version this store last read. A change from another router in between
// fails it (bad version); the store then reloads the catalog and applies
// the change again to the new catalog, a bounded number of times (Aborted
// after that). Readers get a consistent snapshot: a load reads /catalog/ids,
// then every record, then /catalog/ids again, and starts over when its
// version moved. PutTable replaces a table's record whole: read-modify-write
// of one table is safe for one writer at a time (the coordinator: other
// routers change only server membership, quotas and their start count).
//
// Changes made by other routers arrive by a watch on /catalog/ids: the
// store reloads and publishes new snapshots (Tables() and Quotas() return
// new pointers; `on_change`, if set, is called after each reload).
//
// ZooKeeper down (the Vitess rule): reads keep serving the last catalog
// loaded; changes return Unavailable and are not applied (or, after a lost
// reply, may have been: a retry reads the catalog first, and AddServer,
// SetServerAddress, RemoveServer, PutTable and DeleteTable are idempotent).
// A session that expired is replaced by a new one (`connect`) at the next
// change, and the catalog reloaded.
//
// Thread-safety: every method may be called concurrently (one mutex, held
// across a change's round trips: changes are rare).
#ifndef BLOOMROUTE_COORD_CATALOG_ZK_CATALOG_STORE_H_
#define BLOOMROUTE_COORD_CATALOG_ZK_CATALOG_STORE_H_

#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "common/status.h"
#include "common/statusor.h"
#include "coord/znode_store.h"
#include "router/catalog_store.h"

namespace bloomroute::coord {

struct ZnodeCatalogOptions {
  // Opens a session (ConnectZooKeeper with the cluster's chroot, or a
  // FakeEnsemble's Connect in tests). Called by Open, and again after a
  // session expired.
  std::function<StatusOr<std::unique_ptr<ZnodeStore>>()> connect;
  // Called (on the store's event thread) after a change made elsewhere was
  // loaded. May be empty.
  std::function<void()> on_change;
  // Bytes of a record's chunk. A Multi carries at most kMultiBytes of data.
  size_t chunk_bytes = kChunkBytes;
  static constexpr size_t kChunkBytes = 512 << 10;
  static constexpr size_t kMultiBytes = 768 << 10;
  // Times a change is applied again after another router's change beat it.
  int max_attempts = 8;
};

// Connects, creates the layout when the chroot holds none, and loads the
// catalog. InvalidArgument for options without `connect` or a chunk size
// outside [1 KiB, kChunkBytes]; Unavailable when ZooKeeper does not
// answer; Corruption for a record that does not decode or a layout of
// another version.
StatusOr<std::unique_ptr<router::CatalogStore>> OpenZnodeCatalog(
    ZnodeCatalogOptions options);

}  // namespace bloomroute::coord

#endif  // BLOOMROUTE_COORD_CATALOG_ZK_CATALOG_STORE_H_
