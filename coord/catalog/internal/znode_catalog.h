// ZnodeCatalog: the CatalogStore kept in a ZnodeStore
// (coord/catalog/zk_catalog_store.h says what it promises and how it lays
// out its znodes). Declared here so that its methods can be spread over
// files: zk_catalog_store.cc (loading, sessions, servers, tables) and
// znode_catalog_lists.cc (the records kept as one list: quotas,
// namespaces, grants).
#ifndef BLOOMROUTE_COORD_CATALOG_INTERNAL_ZNODE_CATALOG_H_
#define BLOOMROUTE_COORD_CATALOG_INTERNAL_ZNODE_CATALOG_H_

#include <condition_variable>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <random>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include "coord/catalog/internal/znode_layout.h"
#include "coord/catalog/zk_catalog_store.h"
#include "coord/znode_store.h"
#include "router/catalog_records.h"
#include "router/catalog_store.h"

namespace bloomroute::coord::catalog_internal {

using router::CatalogRecords;
using router::CatalogRegion;
using router::CatalogRegionOp;
using router::CatalogServer;
using router::CatalogTable;
using router::Quota;
using router::ServerId;
using GrantList = router::CatalogStore::GrantList;
using NamespaceList = router::CatalogStore::NamespaceList;
using QuotaList = router::CatalogStore::QuotaList;
using TableList = router::CatalogStore::TableList;

// What one attempt of a change writes (after the ids' compare-and-set) and
// what it publishes in memory once the Multi succeeded.
struct Plan {
  std::vector<ZnodeOp> ops;
  std::function<void()> commit;
};

// A snapshot as one load read it.
struct Loaded {
  Ids ids;
  int32_t ids_version = 0;
  uint64_t starts = 0;
  std::string page_token_key;
  std::string cluster_id;
  std::vector<CatalogServer> servers;
  std::shared_ptr<TableList> tables = std::make_shared<TableList>();
  std::map<uint64_t, Head> table_heads;
  std::shared_ptr<QuotaList> quotas = std::make_shared<QuotaList>();
  Head quota_head;
  std::shared_ptr<NamespaceList> namespaces = std::make_shared<NamespaceList>();
  Head namespace_head;
  bool namespaces_exist = false;
  std::shared_ptr<GrantList> grants = std::make_shared<GrantList>();
  Head grant_head;
  bool grants_exist = false;
};

class ZnodeCatalog final : public router::CatalogStore {
 public:
  explicit ZnodeCatalog(ZnodeCatalogOptions options)
      : options_(std::move(options)), rng_(std::random_device{}()) {}
  ~ZnodeCatalog() override;

  [[nodiscard]] Status Start();

  std::vector<CatalogServer> Servers() const override {
    std::lock_guard<std::mutex> lock(snap_mu_);
    return servers_;
  }
  StatusOr<ServerId> AddServer(const std::string& address) override;
  [[nodiscard]] Status SetServerAddress(ServerId id,
                                        const std::string& address) override;
  [[nodiscard]] Status RemoveServer(ServerId id) override;
  std::shared_ptr<const TableList> Tables() const override {
    std::lock_guard<std::mutex> lock(snap_mu_);
    return tables_;
  }
  uint64_t NextTableId() override {
    std::lock_guard<std::mutex> lock(mu_);
    reserved_tables_.insert(next_.table);
    // Bounded: ids reserved long ago and never written are forgotten.
    if (reserved_tables_.size() > 4096) {
      reserved_tables_.erase(reserved_tables_.begin());
    }
    return next_.table++;
  }
  uint64_t NextRegionId() override {
    std::lock_guard<std::mutex> lock(mu_);
    return next_.region++;
  }
  [[nodiscard]] Status PutTable(const CatalogTable& table) override;
  [[nodiscard]] Status DeleteTable(uint64_t table_id) override;
  StatusOr<uint64_t> RecordRouterStart(uint64_t at_least = 0) override;
  Counters GetCounters() const override {
    std::lock_guard<std::mutex> lock(mu_);
    return Counters{next_.server, next_.table, next_.region, starts_};
  }
  StatusOr<std::string> PageTokenKey(const std::string& fresh) override;
  StatusOr<std::string> ClusterId(const std::string& fresh) override;
  std::shared_ptr<const QuotaList> Quotas() const override {
    std::lock_guard<std::mutex> lock(snap_mu_);
    return quotas_;
  }
  [[nodiscard]] Status PutQuota(const Quota& quota) override;
  std::shared_ptr<const NamespaceList> Namespaces() const override {
    std::lock_guard<std::mutex> lock(snap_mu_);
    return namespaces_;
  }
  [[nodiscard]] Status PutNamespace(
      const router::CatalogNamespace& ns) override;
  [[nodiscard]] Status DeleteNamespace(const std::string& name) override;
  std::shared_ptr<const GrantList> Grants() const override {
    std::lock_guard<std::mutex> lock(snap_mu_);
    return grants_;
  }
  [[nodiscard]] Status ChangeGrant(const router::Grant& grant,
                                   router::GrantChange change) override;

 private:
  // Each needs mu_ held.
  [[nodiscard]] Status EnsureLayoutLocked();
  [[nodiscard]] Status LoadLocked();
  [[nodiscard]] Status LoadOnceLocked(Loaded* out);
  // A record written once (key, cluster id): `*out` stays empty if absent.
  [[nodiscard]] Status LoadOnceRecordLocked(const char* path, size_t bytes,
                                            const char* what, std::string* out);
  // *cached, or `fresh` stored at `path`, or another router's; takes mu_.
  StatusOr<std::string> CreateOnce(const char* path, const std::string& fresh,
                                   std::string* cached);
  [[nodiscard]] Status LoadServersLocked(Loaded* out);
  [[nodiscard]] Status LoadTablesLocked(Loaded* out);
  [[nodiscard]] StatusOr<std::string> ReadChunkedLocked(const std::string& path,
                                                        const Head& head);
  void InstallLocked(Loaded loaded);
  // Runs `plan` (built again after every reload) with the ids'
  // compare-and-set in front, until it applies, fails otherwise, or
  // max_attempts ran out.
  [[nodiscard]] Status ChangeLocked(
      const std::function<StatusOr<Plan>()>& plan);
  // The ops writing `record` as the chunked record at `head_path` (whose
  // head is `old`, or absent when `exists` is false); chunks that do not fit
  // one Multi are written now, unreferenced. Sets `*written` to the head.
  [[nodiscard]] StatusOr<std::vector<ZnodeOp>> ChunkedWriteLocked(
      const std::string& head_path, const std::string& record, bool exists,
      const Head& old, Head* written);
  // Aborted when a region of `table` has the id of another table's region
  // (two routers reserved the same ids); needs mu_.
  [[nodiscard]] Status CheckRegionIdsLocked(const CatalogTable& table) const;
  [[nodiscard]] Status ReconnectLocked();
  [[nodiscard]] Status UsableLocked();
  void WatchIds(const WatchEvent& event);
  void OnSession(SessionState state);
  void ReconnectLoop();
  Watcher IdsWatcher() {
    return [this](const WatchEvent& e) { WatchIds(e); };
  }
  // Rewrites member `changed.id`'s record as `changed`; needs mu_.
  Plan ServerChangePlan(const CatalogServer& changed);
  // The member at `address` that is not removed; needs snap_mu_ or mu_.
  const CatalogServer* MemberAt(const std::string& address) const;

  const ZnodeCatalogOptions options_;
  // Held across a change's round trips and a load; guards the fields below
  // up to snap_mu_.
  mutable std::mutex mu_;
  std::unique_ptr<ZnodeStore> store_;
  int32_t ids_version_ = -1;
  Ids next_;  // the next ids: stored ones, raised by reservations
  uint64_t starts_ = 0;
  std::string page_token_key_;
  std::string cluster_id_;
  std::map<uint64_t, Head> table_heads_;
  // Table ids NextTableId handed out that no PutTable of this store wrote.
  std::set<uint64_t> reserved_tables_;
  Head quota_head_;
  // The namespace list's head; `namespaces_exist_` false while its node
  // is missing (a catalog made before namespaces: made by the first put).
  Head namespace_head_;
  bool namespaces_exist_ = false;
  // The plan writing `next` as the namespace list; needs mu_ held.
  [[nodiscard]] StatusOr<Plan> NamespacesPlanLocked(NamespaceList next);
  // Reads the namespace list into `out` (empty when its node is missing).
  [[nodiscard]] Status LoadNamespacesLocked(Loaded* out);
  // The grant list's head, as the namespace list's.
  Head grant_head_;
  bool grants_exist_ = false;
  // Reads the grant list into `out` (empty when its node is missing).
  [[nodiscard]] Status LoadGrantsLocked(Loaded* out);
  std::mt19937_64 rng_;
  // Guards the published snapshots (written under mu_ too).
  mutable std::mutex snap_mu_;
  std::vector<CatalogServer> servers_;
  std::shared_ptr<const TableList> tables_ = std::make_shared<TableList>();
  std::shared_ptr<const QuotaList> quotas_ = std::make_shared<QuotaList>();
  std::shared_ptr<const NamespaceList> namespaces_ =
      std::make_shared<NamespaceList>();
  std::shared_ptr<const GrantList> grants_ = std::make_shared<GrantList>();
  // The reconnecting thread: wakes when the session expired.
  std::mutex reconnect_mu_;
  std::condition_variable reconnect_cv_;
  bool expired_ = false;   // guarded by reconnect_mu_
  bool stopping_ = false;  // guarded by reconnect_mu_
  std::thread reconnect_thread_;
};

}  // namespace bloomroute::coord::catalog_internal

#endif  // BLOOMROUTE_COORD_CATALOG_INTERNAL_ZNODE_CATALOG_H_
