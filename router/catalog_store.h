// CatalogStore: where a router keeps the cluster's shape -- region servers,
// tables with their regions, index tasks and region operations in flight,
// quotas, the page-token key, the cluster id and the count of router
// starts, the namespaces, the grants -- behind one interface, so that the
// router does not know where it lives.
//
// Implementations:
//   OpenEmbeddedCatalog   the router's own RocksDB in its data directory
//                         (router/internal/catalog.h): one router, nothing
//                         more to install; what `bloomroute local` uses.
//   A store shared by several routers lives outside router/ (so that only
//   its code includes its coordination service's headers) and keeps the
//   same contract; Router::Open takes it in place of the embedded one.
//
// Contract every implementation keeps:
//   - A change that returned OK is durable: it survives a crash of the
//     router (and, for the embedded store, of the machine: synchronous
//     writes).
//   - Ids are never reused: the server, table and region ids a store hands
//     out are above every id it ever handed out, in this process or an
//     earlier one, so an id that reached a region server is never given to
//     another server, table or region.
//   - Readers get immutable snapshots (Tables(), Quotas()): reading costs a
//     pointer copy, and a change publishes a new snapshot.
//   - Every method may be called concurrently.
//
// Record encodings shared by the implementations are in
// router/catalog_records.h.
//
// Usage:
//   StatusOr<std::unique_ptr<CatalogStore>> catalog =
//       OpenEmbeddedCatalog("/var/lib/bloomroute/router");
//   if (!catalog.ok()) return catalog.status();
//   std::shared_ptr<const CatalogStore::TableList> tables =
//       (*catalog)->Tables();
//   for (const CatalogTable& t : *tables) { ... }
#ifndef BLOOMROUTE_ROUTER_CATALOG_STORE_H_
#define BLOOMROUTE_ROUTER_CATALOG_STORE_H_

#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "common/status.h"
#include "common/statusor.h"
#include "model/rows.h"
#include "router/grant.h"
#include "router/quota.h"
#include "router/server_id.h"

namespace bloomroute::router {

// A region server, by id. A removed server's id is never used again; its
// address is free for a new member.
struct CatalogServer {
  ServerId id = 0;
  std::string address;
  bool removed = false;  // forgotten by RemoveServer
};

struct CatalogRegion {
  uint64_t region_id = 0;
  std::string start_key;  // inclusive; empty = from the first row
  std::string end_key;    // exclusive; empty = to the last row
  ServerId server = 0;

  friend bool operator==(const CatalogRegion& a, const CatalogRegion& b) {
    return a.region_id == b.region_id && a.start_key == b.start_key &&
           a.end_key == b.end_key && a.server == b.server;
  }
};

// An index being built or dropped on a table (Router::AddIndex /
// DropIndex): the router's maintenance drives it region by region, and
// records here, after each chunk, how far it got, so that a restarted
// router resumes there.
struct CatalogIndexTask {
  enum class Kind : uint8_t {
    // The column is in the descriptor, flagged building: backfill.
    kBuild = 1,
    // The column has left the descriptor: its entries are removed.
    kDrop = 2,
  };
  struct Region {
    uint64_t region_id = 0;
    bool done = false;
    std::string resume_after;  // kBuild: the last row backfilled
    friend bool operator==(const Region& a, const Region& b) {
      return a.region_id == b.region_id && a.done == b.done &&
             a.resume_after == b.resume_after;
    }
  };
  Kind kind = Kind::kBuild;
  IndexedColumn column;
  // Regions of the table the task has started on (by region id; a region
  // not listed has not started). Regions no longer in the table (a
  // truncation replaced them) are ignored.
  std::vector<Region> regions;
  uint64_t rows = 0;  // rows backfilled, or entries removed, so far

  friend bool operator==(const CatalogIndexTask& a, const CatalogIndexTask& b) {
    return a.kind == b.kind && a.column == b.column && a.regions == b.regions &&
           a.rows == b.rows;
  }
};

// A region operation in flight (router/coordinator/region_ops.cc): the rows
// of `sources` (adjacent regions, by start key) are copied into `targets` (new
// regions, by start key, covering exactly the sources' key range) on their
// servers while the sources serve, then the table switches to the targets.
// Recorded before any server acts on it; a router that restarts finishes
// an operation that switched and undoes one that did not.
struct CatalogRegionOp {
  enum class Kind : uint8_t { kMove = 1, kSplit = 2, kMerge = 3 };
  enum class State : uint8_t {
    // The table's regions are the sources; the targets are staged regions
    // on their servers, being filled (undone: the targets are dropped).
    kCopying = 1,
    // The table's regions are the targets (staged on their servers until
    // the sources are dropped, then serving); the sources are to be
    // dropped (finished: drop them, promote the targets).
    kSwitched = 2,
  };
  Kind kind = Kind::kMove;
  State state = State::kCopying;
  std::vector<CatalogRegion> sources;
  std::vector<CatalogRegion> targets;

  friend bool operator==(const CatalogRegionOp& a, const CatalogRegionOp& b) {
    return a.kind == b.kind && a.state == b.state && a.sources == b.sources &&
           a.targets == b.targets;
  }
};

struct CatalogTable {
  enum class State : uint8_t {
    kReady = 1,
    // Deleted by the user; its regions are still being dropped. Hidden from
    // listings; the name stays taken until the drops finish.
    kDeleting = 2,
  };
  TableDescriptor descriptor;
  State state = State::kReady;
  // Disabled tables refuse data calls (Router::DisableTable).
  bool enabled = true;
  std::vector<CatalogRegion> regions;  // by start key, covering all keys
  // Regions the table had before a truncation, still to be dropped on their
  // servers (maintenance retries until they are); never opened again.
  std::vector<CatalogRegion> retired_regions = {};
  // The id the next indexed column gets: above every id the table ever
  // used (a dropped column's entries may linger on a server that was down,
  // so ids are never reused). 0 in records older than version 3: the
  // highest id in use + 1 (NextColumnId).
  uint32_t next_column_id = 0;
  // Builds and drops under way, at most one per column.
  std::vector<CatalogIndexTask> index_tasks = {};
  // Region operations in flight (at most one; version 4 records).
  std::vector<CatalogRegionOp> region_ops = {};

  // The id AddIndex gives the next column.
  uint32_t NextColumnId() const;

  friend bool operator==(const CatalogTable& a, const CatalogTable& b) {
    return a.descriptor == b.descriptor && a.state == b.state &&
           a.enabled == b.enabled && a.regions == b.regions &&
           a.retired_regions == b.retired_regions &&
           a.next_column_id == b.next_column_id &&
           a.index_tasks == b.index_tasks && a.region_ops == b.region_ops;
  }
};

// A namespace (HBase's NamespaceDescriptor): its name and configuration.
// `default` and `hbase` always exist; the store holds a record for them only
// once their configuration was set.
struct CatalogNamespace {
  // Namespaces a catalog keeps, and bytes of one namespace's configuration
  // (keys and values) and of every namespace's name and configuration
  // together: the list is one record, whose ZooKeeper chunks stay far
  // under a znode's 1 MiB.
  static constexpr size_t kMaxNamespaces = 1024;
  static constexpr uint64_t kMaxConfigurationBytes = 64 << 10;
  static constexpr uint64_t kMaxListBytes = 1 << 20;

  std::string name;
  std::map<std::string, std::string> configuration;

  // Bytes of the name and the configuration's keys and values.
  uint64_t Bytes() const;

  friend bool operator==(const CatalogNamespace& a, const CatalogNamespace& b) {
    return a.name == b.name && a.configuration == b.configuration;
  }
};

class CatalogStore {
 public:
  virtual ~CatalogStore() = default;
  CatalogStore(const CatalogStore&) = delete;
  CatalogStore& operator=(const CatalogStore&) = delete;

  // The servers ever added, removed ones too, ascending by id.
  virtual std::vector<CatalogServer> Servers() const = 0;
  // The id of the member at `address`, adding it (persisted) under a new id
  // when no member has it.
  virtual StatusOr<ServerId> AddServer(const std::string& address) = 0;
  // Membership changes, each one durable write. SetServerAddress re-points
  // member `id` (OK when it has that address already); InvalidArgument when
  // another member has `address`. RemoveServer marks member `id` removed
  // (the caller checks that it holds no region). Both NotFound for an id
  // that is not a member.
  [[nodiscard]] virtual Status SetServerAddress(ServerId id,
                                                const std::string& address) = 0;
  [[nodiscard]] virtual Status RemoveServer(ServerId id) = 0;

  // The tables, ascending by id: an immutable snapshot, shared rather than
  // copied (PutTable and DeleteTable publish a new one), so that reading
  // the catalog costs a pointer copy however large it is. Hold the pointer
  // while reading the list: `for (t : *Tables())` holds only the list, whose
  // pointer dies before the loop runs, so a publish meanwhile frees it.
  using TableList = std::vector<CatalogTable>;
  virtual std::shared_ptr<const TableList> Tables() const = 0;

  // Reserves ids for a table and its regions. They are not persisted until
  // PutTable writes a record using them, and are never handed out again.
  virtual uint64_t NextTableId() = 0;
  virtual uint64_t NextRegionId() = 0;

  // Inserts or replaces the table's record (by id). InvalidArgument when
  // another table already has its name.
  [[nodiscard]] virtual Status PutTable(const CatalogTable& table) = 0;
  // Forgets the table. OK when it is not there.
  [[nodiscard]] virtual Status DeleteTable(uint64_t table_id) = 0;

  // Counts one more start of a router (durably) and returns the count: 1
  // for the first start, and every later call, in this process or a later
  // one, returns more. Fence tokens are derived from it, and the
  // coordinator's epoch is it. With `at_least`, the count jumps to
  // `at_least` when it would be below (RouterOptions::
  // min_coordinator_epoch).
  virtual StatusOr<uint64_t> RecordRouterStart(uint64_t at_least = 0) = 0;

  // What the ids and starts stand at: the next server, table and region
  // ids this store hands out (above every id it ever handed out) and the
  // router starts counted. For copying a catalog into another store.
  struct Counters {
    uint64_t next_server_id = 1;
    uint64_t next_table_id = 1;
    uint64_t next_region_id = 1;
    uint64_t router_starts = 0;
  };
  virtual Counters GetCounters() const = 0;

  // The key page tokens are signed with (router/page_token.h): the stored
  // one, or, on the first call ever, `fresh` (kPageTokenKeyBytes random
  // bytes), stored durably before it is returned, so tokens survive a
  // restart. InvalidArgument for a `fresh` of another size; IOError when it
  // cannot be stored.
  virtual StatusOr<std::string> PageTokenKey(const std::string& fresh) = 0;

  // The cluster's id (router/cluster_id.h), as PageTokenKey: the stored one,
  // or, on the first call ever, `fresh` (a NewClusterId), stored durably
  // before it is returned; every router of the cluster and every restart
  // answers the same. InvalidArgument unless `fresh` IsClusterId; IOError
  // when it cannot be stored.
  virtual StatusOr<std::string> ClusterId(const std::string& fresh) = 0;

  // The quotas (router/quota.h), by user then table: an immutable snapshot
  // as Tables(); PutQuota publishes a new one, so a reader can tell a change
  // by the pointer.
  using QuotaList = std::vector<Quota>;
  virtual std::shared_ptr<const QuotaList> Quotas() const = 0;
  // Stores `quota` in place of the user's quota on the same table (one
  // durable write), or forgets that quota when `quota` sets no limit.
  // InvalidArgument when ValidateQuota refuses it, or when it would be
  // quota number Quota::kMaxQuotas + 1.
  [[nodiscard]] virtual Status PutQuota(const Quota& quota) = 0;

  // The namespaces with a record, by name: an immutable snapshot as
  // Tables(). PutNamespace stores `ns` in place of the record of the same
  // name (one durable, atomic write); InvalidArgument when it would be
  // namespace number kMaxNamespaces + 1 or the list would pass
  // kMaxListBytes, or for a configuration over kMaxConfigurationBytes.
  // DeleteNamespace forgets it (OK when there is none). Neither looks at
  // the tables: the caller (under its DDL lock) does.
  using NamespaceList = std::vector<CatalogNamespace>;
  virtual std::shared_ptr<const NamespaceList> Namespaces() const = 0;
  [[nodiscard]] virtual Status PutNamespace(const CatalogNamespace& ns) = 0;
  [[nodiscard]] virtual Status DeleteNamespace(const std::string& name) = 0;

  // The grants (router/grant.h), in GrantOrder: an immutable snapshot as
  // Tables(). ChangeGrant applies `change` of `grant` (WithGrantChange) in
  // one durable, atomic write; InvalidArgument as WithGrantChange. Grants
  // name tables and namespaces by name, whether they exist or not.
  using GrantList = std::vector<Grant>;
  virtual std::shared_ptr<const GrantList> Grants() const = 0;
  [[nodiscard]] virtual Status ChangeGrant(const Grant& grant,
                                           GrantChange change) = 0;

 protected:
  CatalogStore() = default;
};

// Opens or creates the embedded catalog: a RocksDB in `dir`, written
// synchronously. IOError when it cannot be opened (another router holds
// it, say); Corruption for a record that does not decode.
StatusOr<std::unique_ptr<CatalogStore>> OpenEmbeddedCatalog(
    const std::string& dir);

}  // namespace bloomroute::router

#endif  // BLOOMROUTE_ROUTER_CATALOG_STORE_H_
