// StoreCluster: N real region stores (RocksDB in a temporary directory) in
// this process, reached through the RegionClient interface, for router tests
// without RPC. A server can be taken down (every call answers Unavailable, as
// an unreachable server does) and brought back, optionally restarted (its
// store closed and reopened: a new filter epoch, as after a process restart).
// Addresses are "server-<i>"; Factory() connects to them.
#ifndef BLOOMROUTE_TESTS_ROUTER_STORE_CLUSTER_H_
#define BLOOMROUTE_TESTS_ROUTER_STORE_CLUSTER_H_

#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "regionstore/region_store.h"
#include "router/region_client.h"
#include "tests/regionstore/region_store_test_util.h"

namespace bloomroute::testing {

class StoreCluster {
 public:
  // One store and its state; shared with the clients connected to it.
  struct Node {
    std::string address;
    std::string path;
    RegionStoreOptions options;
    std::mutex mu;
    std::shared_ptr<RegionStore> store;  // guarded by mu; null while down
    std::atomic<int64_t> calls{0};       // calls that reached the store
    std::atomic<int> released{0};        // ReleaseConnections of its clients
    uint64_t stores_opened = 0;          // guarded by mu
    // Stores whose destructor has returned (the database is closed). Shared
    // with the stores' deleters, which may run on a caller's thread.
    std::shared_ptr<std::atomic<uint64_t>> stores_closed =
        std::make_shared<std::atomic<uint64_t>>(0);

    // Publishes a newly opened store; needs mu held (or no sharing yet).
    void Adopt(std::unique_ptr<RegionStore> opened) {
      ++stores_opened;
      store = std::shared_ptr<RegionStore>(
          opened.release(), [closed = stores_closed](RegionStore* s) {
            delete s;
            ++*closed;
          });
    }
  };

  explicit StoreCluster(int servers, RegionStoreOptions options = {}) {
    options.filter.initial_capacity = 64;  // stages open early in tests
    for (int i = 0; i < servers; ++i) {
      auto node = std::make_shared<Node>();
      node->address = "server-" + std::to_string(i);
      node->path = dir_.path() + "/" + node->address;
      node->options = options;
      node->Adopt(std::move(RegionStore::Open(node->path, options)).value());
      nodes_.push_back(std::move(node));
    }
  }

  std::vector<std::string> Addresses() const {
    std::vector<std::string> out;
    for (const auto& n : nodes_) out.push_back(n->address);
    return out;
  }
  Node& node(int i) { return *nodes_[i]; }
  std::shared_ptr<Node> shared_node(int i) { return nodes_[i]; }
  std::shared_ptr<RegionStore> store(int i) {
    std::lock_guard<std::mutex> lock(nodes_[i]->mu);
    return nodes_[i]->store;
  }
  const std::string& router_dir() const { return router_dir_; }

  // Takes server `i` down and returns once its store is closed: a call in
  // flight holds the store until it returns (the router's maintenance
  // calls every server each pass), and a test that then edits the
  // directory must not race with a store that is still open.
  //
  // (Waiting for a weak_ptr to expire is not enough: it expires when the
  // last owner lets go, before the store's destructor has closed the
  // database, which may still delete obsolete files.)
  void Down(int i) {
    Node& n = *nodes_[i];
    uint64_t opened = 0;
    {
      std::lock_guard<std::mutex> lock(n.mu);
      opened = n.stores_opened;
      n.store.reset();
    }
    while (n.stores_closed->load() < opened) {
      std::this_thread::sleep_for(std::chrono::milliseconds(1));
    }
  }
  // Reopens the store; a call still in flight on the old one may hold its
  // database lock for a moment, so opening is retried for up to 10 s.
  void Up(int i) {
    Node& n = *nodes_[i];
    std::lock_guard<std::mutex> lock(n.mu);
    for (int attempt = 0; n.store == nullptr && attempt < 1000; ++attempt) {
      StatusOr<std::unique_ptr<RegionStore>> s =
          RegionStore::Open(n.path, n.options);
      if (s.ok()) {
        n.Adopt(std::move(s).value());
      } else {
        std::this_thread::sleep_for(std::chrono::milliseconds(10));
      }
    }
    ASSERT_NE(n.store, nullptr) << "could not reopen " << n.address;
  }

  std::shared_ptr<router::RegionClientFactory> Factory();

 private:
  TempDir dir_;
  std::string router_dir_ = dir_.path() + "/router";
  std::vector<std::shared_ptr<Node>> nodes_;
};

class StoreRegionClient : public router::RegionClient {
 public:
  explicit StoreRegionClient(std::shared_ptr<StoreCluster::Node> node)
      : node_(std::move(node)) {}

  StatusOr<WriteResult> Apply(const std::vector<Mutation>& batch,
                              uint64_t fence_token) override {
    return Call([&](RegionStore& s) { return s.Apply(batch, fence_token); });
  }
  StatusOr<std::vector<std::optional<Row>>> Get(
      const std::vector<GetRequest>& requests, uint64_t max_bytes) override {
    return Call([&](RegionStore& s) { return s.Get(requests, max_bytes); });
  }
  StatusOr<ScanResult> Scan(const ScanRequest& request) override {
    return Call([&](RegionStore& s) { return s.Scan(request); });
  }
  StatusOr<IndexQueryResult> Lookup(const IndexQuery& query) override {
    return Call([&](RegionStore& s) { return s.Lookup(query); });
  }
  // As the region server's handler: the fence first.
  StatusOr<FilterSnapshot> Snapshot(uint64_t fence_token) override {
    return Call([&](RegionStore& s) {
      s.RaiseFence(fence_token);
      return s.Snapshot();
    });
  }
  StatusOr<FilterOpsSince> OpsSince(uint64_t incarnation, uint64_t epoch,
                                    uint64_t seq,
                                    uint64_t fence_token) override {
    return Call([&](RegionStore& s) {
      s.RaiseFence(fence_token);
      return s.OpsSince(incarnation, epoch, seq);
    });
  }
  // Page by page, as over RPC, so that a store's expiry and restarts and
  // the assembler's checks are what a router meets.
  StatusOr<FilterImage> SnapshotImage(uint64_t fence_token) override {
    return router::AssembleFilterImage(
        [&](uint64_t image_id, uint64_t offset) {
          return Call([&](RegionStore& s) {
            return s.SnapshotImagePage(fence_token, image_id, offset);
          });
        },
        router::FilterImageLimits());
  }
  StatusOr<FilterStatus> GetFilterStatus() override {
    return Call([&](RegionStore& s) -> StatusOr<FilterStatus> {
      return s.GetFilterStatus();
    });
  }
  // The coordinator's calls, with its epoch, as the region server's
  // handler makes them.
  using router::RegionClient::CloseRegion;
  using router::RegionClient::DropRegion;
  using router::RegionClient::OpenRegion;
  using router::RegionClient::OpenStagedRegion;
  using router::RegionClient::SetFilterConfig;
  Status SetFilterConfig(const SscbfConfig& config,
                         CoordinatorEpoch epoch) override {
    return CallStatus(
        [&](RegionStore& s) { return s.SetFilterConfig(config, epoch); });
  }
  Status OpenRegion(const RegionDescriptor& region, uint64_t incarnation,
                    CoordinatorEpoch epoch) override {
    return CallStatus([&](RegionStore& s) {
      return s.OpenRegion(region, incarnation, false, epoch);
    });
  }
  Status CloseRegion(uint64_t id, CoordinatorEpoch epoch) override {
    return CallStatus([&](RegionStore& s) { return s.CloseRegion(id, epoch); });
  }
  Status OpenStagedRegion(const RegionDescriptor& region, uint64_t incarnation,
                          CoordinatorEpoch epoch) override {
    return CallStatus([&](RegionStore& s) {
      return s.OpenRegion(region, incarnation, true, epoch);
    });
  }
  StatusOr<std::optional<std::string>> SplitPoint(uint64_t id) override {
    return Call([&](RegionStore& s) { return s.SplitPoint(id); });
  }
  StatusOr<ExportedRows> ExportRows(const ExportRequest& request) override {
    return Call([&](RegionStore& s) { return s.ExportRows(request); });
  }

  Status DropRegion(uint64_t id, CoordinatorEpoch epoch) override {
    return CallStatus([&](RegionStore& s) { return s.DropRegion(id, epoch); });
  }
  Status SyncWal() override {
    return CallStatus([&](RegionStore& s) { return s.SyncWal(); });
  }
  void ReleaseConnections() override { ++node_->released; }
  StatusOr<std::vector<RegionDescriptor>> ListRegions() override {
    return Call([&](RegionStore& s) -> StatusOr<std::vector<RegionDescriptor>> {
      return s.ListRegions();
    });
  }
  StatusOr<std::vector<uint64_t>> OpenRegionIds() override {
    return Call([&](RegionStore& s) -> StatusOr<std::vector<uint64_t>> {
      return s.OpenRegionIds();
    });
  }
  StatusOr<RegionStatsPage> GetRegionStats(
      const RegionStatsRequest& request) override {
    return Call([&](RegionStore& s) { return s.GetRegionStats(request); });
  }
  Status UpdateTableIndexes(const TableDescriptor& table,
                            CoordinatorEpoch epoch) override {
    return CallStatus(
        [&](RegionStore& s) { return s.UpdateTableIndexes(table, epoch); });
  }
  StatusOr<IndexChunkResult> BackfillIndex(uint64_t region_id,
                                           uint32_t column_id,
                                           const std::string& after_row,
                                           uint32_t max_rows,
                                           uint64_t fence_token,
                                           CoordinatorEpoch epoch) override {
    return Call([&](RegionStore& s) {
      return s.BackfillIndex(region_id, column_id, after_row, max_rows,
                             fence_token, epoch);
    });
  }
  StatusOr<IndexChunkResult> DropIndexEntries(uint64_t region_id,
                                              uint32_t column_id,
                                              uint32_t max_entries,
                                              uint64_t fence_token,
                                              CoordinatorEpoch epoch) override {
    return Call([&](RegionStore& s) {
      return s.DropIndexEntries(region_id, column_id, max_entries, fence_token,
                                epoch);
    });
  }
  StatusOr<WriteResult> BulkLoad(uint64_t region_id, const std::string& file,
                                 uint64_t fence_token) override {
    return Call([&](RegionStore& s) {
      return s.BulkLoadBytes(region_id, file, fence_token);
    });
  }

  StatusOr<IndexReport> VerifyIndex(std::optional<uint64_t> table_id) override {
    return Call([&](RegionStore& s) { return s.VerifyIndex(table_id); });
  }
  StatusOr<OpSubscribeGrant> SubscribeOps(
      const OpSubscribeRequest& request) override {
    return Call([&](RegionStore& s) { return s.SubscribeOps(request); });
  }

 private:
  std::shared_ptr<RegionStore> Store() {
    std::lock_guard<std::mutex> lock(node_->mu);
    return node_->store;
  }
  template <typename Fn>
  auto Call(Fn&& fn) -> decltype(fn(std::declval<RegionStore&>())) {
    std::shared_ptr<RegionStore> s = Store();
    if (s == nullptr) {
      return Status::Unavailable("region server " + node_->address +
                                 ": connection refused");
    }
    ++node_->calls;
    return fn(*s);
  }
  template <typename Fn>
  Status CallStatus(Fn&& fn) {
    std::shared_ptr<RegionStore> s = Store();
    if (s == nullptr) {
      return Status::Unavailable("region server " + node_->address +
                                 ": connection refused");
    }
    ++node_->calls;
    return fn(*s);
  }

  const std::shared_ptr<StoreCluster::Node> node_;
};

inline std::shared_ptr<router::RegionClientFactory> StoreCluster::Factory() {
  class Factory : public router::RegionClientFactory {
   public:
    explicit Factory(std::vector<std::shared_ptr<Node>> nodes)
        : nodes_(std::move(nodes)) {}
    StatusOr<std::unique_ptr<router::RegionClient>> Connect(
        router::ServerId, const std::string& address) override {
      for (const auto& n : nodes_) {
        if (n->address == address) {
          return std::unique_ptr<router::RegionClient>(
              std::make_unique<StoreRegionClient>(n));
        }
      }
      return Status::InvalidArgument("no server " + address);
    }

   private:
    std::vector<std::shared_ptr<Node>> nodes_;
  };
  return std::make_shared<Factory>(nodes_);
}

}  // namespace bloomroute::testing

#endif  // BLOOMROUTE_TESTS_ROUTER_STORE_CLUSTER_H_
