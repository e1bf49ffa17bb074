// RouterImpl: the Router of router/router.h. Its methods are spread over
// router.cc (opening, tables, maintenance), router_rows.cc (writes, gets,
// scans, scanners) and router_lookup.cc (index lookups and statistics).
//
// Locking. The server set is fixed by Open and read without locks. Tables are
// immutable TableState snapshots held by shared_ptr: readers copy the pointer
// under tables_mu_ (shared) and work on the snapshot; CreateTable and
// DeleteTable (serialized by ddl_mu_) publish new snapshots. Replicas lock
// themselves (GlobalIndex). Scanners: scanners_mu_ guards the map, each
// scanner its own position.
#ifndef BLOOMROUTE_ROUTER_INTERNAL_ROUTER_IMPL_H_
#define BLOOMROUTE_ROUTER_INTERNAL_ROUTER_IMPL_H_

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <shared_mutex>
#include <string>
#include <string_view>
#include <thread>
#include <vector>

#include "router/global_index.h"
#include "router/internal/catalog.h"
#include "router/internal/fan_out.h"
#include "router/router.h"

namespace bloomroute::router_internal {

using router::ServerId;

struct ServerEntry {
  router::ServerRef ref;
  std::unique_ptr<router::RegionClient> client;
  // The server's regions must be opened on it again (at start, and after it
  // failed to answer: it may have come back without them).
  mutable std::atomic<bool> reopen{true};
};

// One table as the router routes it. Immutable once published.
struct TableState {
  CatalogTable record;
  // The regions of each server, by region id.
  std::map<ServerId, std::vector<uint64_t>> regions_by_server;

  explicit TableState(CatalogTable t);
  // The index in record.regions of the region holding `row`.
  size_t RegionFor(std::string_view row) const;
  RegionDescriptor Descriptor(size_t region) const;
};

struct Scanner;

class RouterImpl : public router::Router {
 public:
  RouterImpl(const router::RouterOptions& options,
             std::shared_ptr<router::RegionClientFactory> factory);
  ~RouterImpl() override;

  [[nodiscard]] Status Init();

  StatusOr<router::TableInfo> CreateTable(
      const router::TableSpec& spec) override;
  Status DeleteTable(std::string_view table) override;
  std::vector<TableDescriptor> ListTables() const override;
  StatusOr<router::TableInfo> DescribeTable(
      std::string_view table) const override;

  Status Mutate(std::string_view table,
                std::vector<Mutation> mutations) override;
  StatusOr<std::vector<std::optional<Row>>> Get(
      std::string_view table, std::vector<GetRequest> requests) override;
  StatusOr<ScanResult> Scan(std::string_view table,
                            const router::ScanSpec& spec,
                            uint32_t limit) override;
  StatusOr<int64_t> OpenScanner(std::string_view table,
                                const router::ScanSpec& spec) override;
  StatusOr<std::vector<Row>> ScannerNext(int64_t scanner,
                                         uint32_t max_rows) override;
  Status CloseScanner(int64_t scanner) override;

  StatusOr<router::LookupResult> Lookup(
      std::string_view table, const router::LookupSpec& spec) override;
  std::vector<router::ServerIndexStats> IndexStats() const override;
  StatusOr<router::VerifyReport> VerifyIndex(std::string_view table) override;
  router::ClusterStatus GetClusterStatus() override;
  std::vector<router::ServerRef> Servers() const override;
  Status BulkLoad(std::string_view table, uint64_t region_id,
                  const std::string& file) override;

 private:
  // router.cc
  [[nodiscard]] Status RegisterServers();
  void PublishTables();
  StatusOr<std::shared_ptr<const TableState>> FindTable(
      std::string_view name) const;
  // Assigns ids and servers to a validated spec.
  CatalogTable PlanTable(const router::TableSpec& spec) const;
  [[nodiscard]] Status OpenRegions(const CatalogTable& table);
  [[nodiscard]] Status DropRegions(const CatalogTable& table);
  router::TableInfo Describe(const TableState& table) const;
  void MaintenanceLoop();
  void MaintainOnce();
  void WakeMaintenance();
  // A failed call to `server`: Unavailable means it may have lost or applied
  // writes without our knowing, so its replica is stale and its regions are
  // reopened. Returns the status naming the server.
  Status ServerFailed(const ServerEntry& server, const Status& status);
  // `status` of a call to `server`, its message naming the server.
  static Status Named(const ServerEntry& server, const Status& status);
  // Applies one server's write result to its replica (read-your-writes).
  void ApplyWrite(const ServerEntry& server, const WriteResult& result);
  ServerEntry& Server(ServerId id) const;

  // router_lookup.cc
  router::ServerVerifyReport VerifyServer(ServerId id, uint64_t table_id);

  // router_rows.cc
  // Sends `mutations` (consumed) to the server in chunks.
  [[nodiscard]] Status ApplyBatches(const ServerEntry& server,
                                    std::vector<Mutation> mutations);
  std::shared_ptr<Scanner> FindScanner(int64_t id);
  void ExpireScanners();

  const router::RouterOptions options_;
  const std::shared_ptr<router::RegionClientFactory> factory_;
  std::unique_ptr<Catalog> catalog_;
  router::GlobalIndex index_;
  std::unique_ptr<FanOut> fan_out_;
  // Fixed after Init.
  std::map<ServerId, std::unique_ptr<ServerEntry>> servers_;

  std::mutex ddl_mu_;  // serializes CreateTable and DeleteTable
  mutable std::shared_mutex tables_mu_;
  // Guarded by tables_mu_: the ready tables by name.
  std::map<std::string, std::shared_ptr<const TableState>, std::less<>> tables_;

  std::mutex scanners_mu_;
  // Guarded by scanners_mu_.
  std::map<int64_t, std::shared_ptr<Scanner>> scanners_;
  int64_t next_scanner_id_ = 1;

  std::mutex maintenance_mu_;
  std::condition_variable maintenance_cv_;
  // Guarded by maintenance_mu_.
  bool stopping_ = false;
  bool wake_ = false;
  std::thread maintenance_;
};

}  // namespace bloomroute::router_internal

#endif  // BLOOMROUTE_ROUTER_INTERNAL_ROUTER_IMPL_H_
