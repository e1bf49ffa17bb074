// Catalog: the router's persistent record of region servers and tables, in
// its own RocksDB. Every change is one synchronous WriteBatch, so a change
// that returned OK survives a crash of the router or the machine.
//
// Ids are allocated here and never reused: the counters of server, table and
// region ids are written in the same batch as the record that uses them, so
// an id that reached a region server (which only happens after the record
// naming it was written) is never handed out again.
//
// Quotas (router/quota.h) are one record each, keyed by user and table.
//
// Record format: one version byte, then fixed-width and length-prefixed
// fields (common/coding.h); RocksDB's block checksums cover the stored bytes.
// Decoding bounds every length by the bytes present and reports Corruption.
// Server records are written in version 2 (version 1 plus the removed
// flag); version 1 still reads, as a member.
// Table records are written in version 4 (version 3 plus the region
// operations in flight); version 3 is version 2 -- families, attributes,
// the enabled flag and retired regions -- plus the next column id, each
// indexed column's building flag and the index tasks. Versions 1 (an
// enabled table without declared families), 2 and 3 still read.
//
// Thread-safety: every method may be called concurrently (one mutex).
#ifndef BLOOMROUTE_ROUTER_INTERNAL_CATALOG_H_
#define BLOOMROUTE_ROUTER_INTERNAL_CATALOG_H_

#include <cstdint>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "common/status.h"
#include "common/statusor.h"
#include "model/rows.h"
#include "router/quota.h"
#include "router/region_client.h"

namespace bloomroute::router_internal {

// A region server, by id. A removed server's id is never used again; its
// address is free for a new member.
struct CatalogServer {
  router::ServerId id = 0;
  std::string address;
  bool removed = false;  // forgotten by RemoveServer
};

struct CatalogRegion {
  uint64_t region_id = 0;
  std::string start_key;  // inclusive; empty = from the first row
  std::string end_key;    // exclusive; empty = to the last row
  router::ServerId server = 0;

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

class Catalog {
 public:
  // Opens or creates the catalog database in `dir`. IOError when it cannot
  // be opened; Corruption for a record that does not decode.
  static StatusOr<std::unique_ptr<Catalog>> Open(const std::string& dir);
  ~Catalog();
  Catalog(const Catalog&) = delete;
  Catalog& operator=(const Catalog&) = delete;

  // The servers ever added, removed ones too, ascending by id.
  std::vector<CatalogServer> Servers() const;
  // The id of the member at `address`, adding it (persisted) under a new id
  // when no member has it.
  StatusOr<router::ServerId> AddServer(const std::string& address);
  // Membership changes, each one synchronous write. SetServerAddress
  // re-points member `id` (OK when it has that address already);
  // InvalidArgument when another member has `address`. RemoveServer marks
  // member `id` removed (the caller checks that it holds no region). Both
  // NotFound for an id that is not a member.
  [[nodiscard]] Status SetServerAddress(router::ServerId id,
                                        const std::string& address);
  [[nodiscard]] Status RemoveServer(router::ServerId id);

  // The tables, ascending by id: an immutable snapshot, shared rather than
  // copied (PutTable and DeleteTable publish a new one), so that reading
  // the catalog costs a pointer copy however large it is. Hold the pointer
  // while reading the list: `for (t : *Tables())` holds only the list, whose
  // pointer dies before the loop runs, so a publish meanwhile frees it.
  using TableList = std::vector<CatalogTable>;
  std::shared_ptr<const TableList> Tables() const;

  // Reserves ids for a table and its regions. They are not persisted until
  // PutTable writes a record using them, and are never handed out again by
  // this process.
  uint64_t NextTableId();
  uint64_t NextRegionId();

  // Inserts or replaces the table's record (by id). InvalidArgument when
  // another table already has its name.
  [[nodiscard]] Status PutTable(const CatalogTable& table);
  // Forgets the table. OK when it is not there.
  [[nodiscard]] Status DeleteTable(uint64_t table_id);

  // Counts one more start of the router (persisted, synchronously) and
  // returns the count: 1 for the first start, and every later call, in this
  // process or a later one, returns more. Fence tokens are derived from it,
  // and today the coordinator's epoch is it. With `at_least`, the count
  // jumps to `at_least` when it would be below (RouterOptions::
  // min_coordinator_epoch).
  StatusOr<uint64_t> RecordRouterStart(uint64_t at_least = 0);

  // The key page tokens are signed with (router/page_token.h): the stored
  // one, or, on the first call ever, `fresh` (router::kPageTokenKeyBytes
  // random bytes), persisted synchronously before it is returned, so tokens
  // survive a restart. InvalidArgument for a `fresh` of another size;
  // IOError when it cannot be stored. The key is kept in the clear, as the
  // rest of the router's data directory.
  StatusOr<std::string> PageTokenKey(const std::string& fresh);

  // The quotas (router/quota.h), by user then table: an immutable snapshot
  // as Tables(); PutQuota publishes a new one, so a reader can tell a change
  // by the pointer.
  using QuotaList = std::vector<router::Quota>;
  std::shared_ptr<const QuotaList> Quotas() const;
  // Stores `quota` in place of the user's quota on the same table (one
  // synchronous write), or forgets that quota when `quota` sets no limit.
  // InvalidArgument when ValidateQuota refuses it, or when it would be
  // quota number router::Quota::kMaxQuotas + 1.
  [[nodiscard]] Status PutQuota(const router::Quota& quota);

  // Record encodings, exposed for tests. A server record holds neither its
  // id (the key does) nor, decoded, sets `out->id`.
  static std::string EncodeServer(const CatalogServer& server);
  [[nodiscard]] static Status DecodeServer(std::string_view in,
                                           CatalogServer* out);
  static std::string EncodeTable(const CatalogTable& table);
  [[nodiscard]] static Status DecodeTable(std::string_view in,
                                          CatalogTable* out);
  // A quota's key names its user and table; its value holds the limits.
  static std::string QuotaKey(const router::Quota& quota);
  static std::string EncodeQuota(const router::Quota& quota);
  [[nodiscard]] static Status DecodeQuota(std::string_view key,
                                          std::string_view value,
                                          router::Quota* out);

 private:
  struct Db;
  explicit Catalog(std::unique_ptr<Db> db);
  [[nodiscard]] Status Load();
  // One record of the database into the catalog's fields, `tables` or
  // `quotas`; Corruption for a record it cannot read or an unknown key.
  [[nodiscard]] Status LoadRecord(std::string_view key, std::string_view value,
                                  TableList* tables, QuotaList* quotas);
  // Raises the id counters past every id `tables` and the members use.
  void RaiseIdCounters(const TableList& tables);
  [[nodiscard]] Status WriteLocked(const std::string& key,
                                   const std::string* value);
  // The member with `id`, or null; needs mu_ held.
  CatalogServer* MemberLocked(router::ServerId id);

  const std::unique_ptr<Db> db_;
  mutable std::mutex mu_;
  // Guarded by mu_: the state as stored, plus ids reserved in memory.
  std::vector<CatalogServer> servers_;
  std::shared_ptr<const TableList> tables_ = std::make_shared<TableList>();
  uint64_t router_starts_ = 0;
  std::string page_token_key_;  // empty until created
  // Written under mu_ and quotas_mu_, read under either: Quotas() takes
  // only quotas_mu_, which no write to the database holds.
  mutable std::mutex quotas_mu_;
  std::shared_ptr<const QuotaList> quotas_ = std::make_shared<QuotaList>();
  router::ServerId next_server_id_ = 1;
  uint64_t next_table_id_ = 1;
  uint64_t next_region_id_ = 1;
};

}  // namespace bloomroute::router_internal

#endif  // BLOOMROUTE_ROUTER_INTERNAL_CATALOG_H_
