// Catalog: the embedded CatalogStore (router/catalog_store.h) -- the
// router's persistent record of region servers and tables in its own
// RocksDB. Every change is one synchronous WriteBatch, so a change that
// returned OK survives a crash of the router or the machine.
//
// Ids are allocated here and never reused: the counters of server, table and
// region ids are written in the same batch as the record that uses them, so
// an id that reached a region server (which only happens after the record
// naming it was written) is never handed out again.
//
// Keys: one tag byte, then a big-endian id, so that iteration is by id;
// quotas are keyed by user and table; the namespaces are one record, and so
// are the grants. Values are
// CatalogRecords (router/catalog_records.h); RocksDB's block checksums cover
// the stored bytes.
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
#include "router/catalog_store.h"

namespace bloomroute::router_internal {

using router::CatalogIndexTask;
using router::CatalogRegion;
using router::CatalogRegionOp;
using router::CatalogServer;
using router::CatalogStore;
using router::CatalogTable;

class Catalog final : public CatalogStore {
 public:
  // Opens or creates the catalog database in `dir`. IOError when it cannot
  // be opened; Corruption for a record that does not decode.
  static StatusOr<std::unique_ptr<Catalog>> Open(const std::string& dir);
  ~Catalog() override;

  std::vector<CatalogServer> Servers() const override;
  StatusOr<router::ServerId> AddServer(const std::string& address) override;
  [[nodiscard]] Status SetServerAddress(router::ServerId id,
                                        const std::string& address) override;
  [[nodiscard]] Status RemoveServer(router::ServerId id) override;
  std::shared_ptr<const TableList> Tables() const override;
  uint64_t NextTableId() override;
  uint64_t NextRegionId() override;
  [[nodiscard]] Status PutTable(const CatalogTable& table) override;
  [[nodiscard]] Status DeleteTable(uint64_t table_id) override;
  StatusOr<uint64_t> RecordRouterStart(uint64_t at_least = 0) override;
  Counters GetCounters() const override;
  StatusOr<std::string> PageTokenKey(const std::string& fresh) override;
  StatusOr<std::string> ClusterId(const std::string& fresh) override;
  std::shared_ptr<const QuotaList> Quotas() const override;
  [[nodiscard]] Status PutQuota(const router::Quota& quota) override;
  std::shared_ptr<const NamespaceList> Namespaces() const override;
  [[nodiscard]] Status PutNamespace(
      const router::CatalogNamespace& ns) override;
  [[nodiscard]] Status DeleteNamespace(const std::string& name) override;
  std::shared_ptr<const GrantList> Grants() const override;
  [[nodiscard]] Status ChangeGrant(const router::Grant& grant,
                                   router::GrantChange change) override;

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
  std::string cluster_id_;      // empty until created
  // Written under mu_ and quotas_mu_, read under either: Quotas() takes
  // only quotas_mu_, which no write to the database holds.
  mutable std::mutex quotas_mu_;
  std::shared_ptr<const QuotaList> quotas_ = std::make_shared<QuotaList>();
  // Guarded by mu_: the namespace list, one record.
  std::shared_ptr<const NamespaceList> namespaces_ =
      std::make_shared<NamespaceList>();
  // Guarded by mu_: the grant list, one record.
  std::shared_ptr<const GrantList> grants_ = std::make_shared<GrantList>();
  // Writes `next` as the namespace list and publishes it; needs mu_ held.
  [[nodiscard]] Status WriteNamespacesLocked(NamespaceList next);
  router::ServerId next_server_id_ = 1;
  uint64_t next_table_id_ = 1;
  uint64_t next_region_id_ = 1;
};

}  // namespace bloomroute::router_internal

#endif  // BLOOMROUTE_ROUTER_INTERNAL_CATALOG_H_
