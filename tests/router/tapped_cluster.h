// TappedCluster: the pieces a RouterContext points at (catalog, global
// index, servers, tables, write path, fan-out, metrics) assembled over a
// StoreCluster without a RouterImpl, so that a test drives one router
// component (LookupPlanner, ClusterView) on real region stores. Tables are
// created here directly: their regions placed as the test says, opened on
// the stores, recorded in the catalog and published.
//
// Its clients (TapClient) count each server's lookups and let a test change
// what a server answers (ClientTaps): a server's answer is untrusted input,
// and the components must refuse a bad one.
#ifndef BLOOMROUTE_TESTS_ROUTER_TAPPED_CLUSTER_H_
#define BLOOMROUTE_TESTS_ROUTER_TAPPED_CLUSTER_H_

#include <gtest/gtest.h>

#include <atomic>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <utility>
#include <vector>

#include "common/metrics.h"
#include "router/cluster_filter_config.h"
#include "router/internal/router_context.h"
#include "router/page_token.h"
#include "tests/regionstore/region_store_test_util.h"
#include "tests/router/store_cluster.h"

namespace bloomroute::testing {

// What a test changes in the servers' answers, and what it counts.
struct ClientTaps {
  std::mutex mu;
  // Each Lookup answer of store `node`, before the router sees it.
  std::function<void(int node, IndexQueryResult* answer)> lookup;
  // Each page of region statistics of store `node`, likewise.
  std::function<void(int node, RegionStatsPage* page)> region_stats;
  std::map<int, int> lookups;  // Lookup calls by store

  int Lookups(int node) {
    std::lock_guard<std::mutex> lock(mu);
    return lookups[node];
  }
};

class TapClient : public StoreRegionClient {
 public:
  TapClient(std::shared_ptr<ClientTaps> taps, int node,
            std::shared_ptr<StoreCluster::Node> store)
      : StoreRegionClient(std::move(store)),
        taps_(std::move(taps)),
        node_(node) {}

  StatusOr<IndexQueryResult> Lookup(const IndexQuery& query) override {
    std::function<void(int, IndexQueryResult*)> tap;
    {
      std::lock_guard<std::mutex> lock(taps_->mu);
      ++taps_->lookups[node_];
      tap = taps_->lookup;
    }
    StatusOr<IndexQueryResult> answer = StoreRegionClient::Lookup(query);
    if (answer.ok() && tap) tap(node_, &*answer);
    return answer;
  }
  StatusOr<RegionStatsPage> GetRegionStats(
      const RegionStatsRequest& request) override {
    std::function<void(int, RegionStatsPage*)> tap;
    {
      std::lock_guard<std::mutex> lock(taps_->mu);
      tap = taps_->region_stats;
    }
    StatusOr<RegionStatsPage> page = StoreRegionClient::GetRegionStats(request);
    if (page.ok() && tap) tap(node_, &*page);
    return page;
  }

 private:
  const std::shared_ptr<ClientTaps> taps_;
  const int node_;
};

class TappedCluster {
 public:
  // `servers` stores, each a member (ids in store order); `options` as the
  // router's (the data directory and servers are set here).
  explicit TappedCluster(int servers,
                          router::RouterOptions options = DefaultOptions())
      : cluster_(servers),
        options_(std::move(options)),
        servers_(std::make_shared<Factory>(&cluster_, taps_)) {
    options_.data_dir = cluster_.router_dir();
    catalog_ =
        std::move(router_internal::Catalog::Open(options_.data_dir)).value();
    filter_config_ =
        std::move(router::ClusterFilterConfig(options_.filter, servers))
            .value();
    index_ = std::move(router::GlobalIndex::Create(filter_config_)).value();
    for (const std::string& address : cluster_.Addresses()) {
      bool added = false;
      auto entry = servers_.Add(address, catalog_.get(), index_.get(), &added);
      EXPECT_TRUE(entry.ok()) << entry.status().ToString();
      if (entry.ok()) ids_.push_back((*entry)->ref.id);
    }
    write_path_ = std::make_unique<router_internal::WritePath>(
        index_.get(), &servers_, &tables_, filter_config_,
        router_internal::WritePath::Hooks{
            [this] { ++wakes_; },
            [this](const router_internal::ServerEntry& server) {
              return Reopen(server);
            }});
    page_tokens_.emplace(
        std::move(router::PageTokenCodec::Create(
                      std::move(router::NewPageTokenKey()).value()))
            .value());
    metrics_ = std::make_unique<router_internal::RouterMetrics>(
        [] { return router_internal::RouterMetrics::Snapshot(); }, &registry_);
    ctx_.options = &options_;
    ctx_.filter_config = filter_config_;
    ctx_.catalog = catalog_.get();
    ctx_.index = index_.get();
    ctx_.fan_out = &fan_out_;
    ctx_.metrics = metrics_.get();
    ctx_.servers = &servers_;
    ctx_.tables = &tables_;
    ctx_.write_path = write_path_.get();
    ctx_.ddl_mu = &ddl_mu_;
    ctx_.wake = [this] { ++wakes_; };
  }

  static router::RouterOptions DefaultOptions() {
    router::RouterOptions o;
    o.filter.initial_capacity = 64;  // as the stores' (StoreCluster)
    return o;
  }

  const router_internal::RouterContext& ctx() const { return ctx_; }
  const router::PageTokenCodec* page_tokens() const { return &*page_tokens_; }
  StoreCluster& stores() { return cluster_; }
  ClientTaps& taps() { return *taps_; }
  router::GlobalIndex& index() { return *index_; }
  router_internal::RouterMetrics& metrics() { return *metrics_; }
  // The member id of store `node`.
  router::ServerId id(int node) const { return ids_[node]; }
  const router_internal::ServerEntry& server(int node) const {
    return servers_.Get(ids_[node]);
  }
  // How often the context's wake was called (a replica to catch up).
  int wakes() const { return wakes_; }

  // Creates table `name` (families "d", indexed d:country and d:feature)
  // with one region per entry of `placement`, region i on store
  // placement[i], split at `split_keys` (placement.size() - 1 keys); its
  // regions opened on their stores, recorded and published.
  router_internal::CatalogTable CreateTable(
      const std::string& name, const std::vector<std::string>& split_keys,
      const std::vector<int>& placement) {
    router_internal::CatalogTable t;
    t.descriptor.table_id = catalog_->NextTableId();
    t.descriptor.name = name;
    t.descriptor.families = {"d"};
    t.descriptor.indexed_columns = {{1, "d:country"}, {2, "d:feature"}};
    t.next_column_id = 3;
    for (size_t i = 0; i < placement.size(); ++i) {
      t.regions.push_back(
          {catalog_->NextRegionId(), i == 0 ? "" : split_keys[i - 1],
           i < split_keys.size() ? split_keys[i] : "", ids_[placement[i]]});
    }
    EXPECT_TRUE(catalog_->PutTable(t).ok());
    const router_internal::TableState state(t);
    for (size_t r = 0; r < t.regions.size(); ++r) {
      const Status opened = servers_.Get(t.regions[r].server)
                                .client->OpenRegion(state.Descriptor(r), 0);
      EXPECT_TRUE(opened.ok()) << opened.ToString();
    }
    ctx_.PublishTables();
    return t;
  }

  // Writes rows of `table` (row key, country, feature) through the write
  // path, each to its region's server.
  void Put(const std::string& table,
           const std::vector<std::vector<std::string>>& rows) {
    auto state = tables_.Find(table);
    ASSERT_TRUE(state.ok()) << state.status().ToString();
    std::map<router::ServerId, std::vector<Mutation>> by_server;
    for (const std::vector<std::string>& r : rows) {
      const router_internal::CatalogRegion& region =
          (*state)->record.regions[(*state)->RegionFor(r[0])];
      by_server[region.server].push_back(Mutation::Put(
          region.region_id, r[0], {{"d:country", r[1]}, {"d:feature", r[2]}}));
    }
    for (auto& [id, mutations] : by_server) {
      const Status written =
          write_path_->ApplyBatches(servers_.Get(id), std::move(mutations));
      ASSERT_TRUE(written.ok()) << written.ToString();
    }
  }

  // Makes every replica current (the servers given the cluster's config).
  void CatchUp() {
    write_path_->CatchUpReplicas();
    for (router::ServerId id : ids_) {
      EXPECT_TRUE(index_->IsCurrent(id)) << "server " << id;
    }
  }

 private:
  class Factory : public router::RegionClientFactory {
   public:
    Factory(StoreCluster* cluster, std::shared_ptr<ClientTaps> taps)
        : cluster_(cluster), taps_(std::move(taps)) {}
    StatusOr<std::unique_ptr<router::RegionClient>> Connect(
        router::ServerId, const std::string& address) override {
      const std::vector<std::string> addresses = cluster_->Addresses();
      for (size_t i = 0; i < addresses.size(); ++i) {
        if (addresses[i] != address) continue;
        return std::unique_ptr<router::RegionClient>(
            std::make_unique<TapClient>(taps_, static_cast<int>(i),
                                        cluster_->shared_node(i)));
      }
      return Status::InvalidArgument("no server " + address);
    }

   private:
    StoreCluster* const cluster_;
    const std::shared_ptr<ClientTaps> taps_;
  };

  // Opens again every region the published tables place on `server`.
  Status Reopen(const router_internal::ServerEntry& server) {
    for (const auto& table : tables_.Tables()) {
      for (size_t r = 0; r < table->record.regions.size(); ++r) {
        if (table->record.regions[r].server != server.ref.id) continue;
        BLOOMROUTE_RETURN_IF_ERROR(
            server.client->OpenRegion(table->Descriptor(r), 0));
      }
    }
    return Status::OK();
  }

  StoreCluster cluster_;
  const std::shared_ptr<ClientTaps> taps_ = std::make_shared<ClientTaps>();
  router::RouterOptions options_;
  SscbfConfig filter_config_;
  std::unique_ptr<router_internal::Catalog> catalog_;
  std::unique_ptr<router::GlobalIndex> index_;
  router_internal::ServerDirectory servers_;
  router_internal::TableDirectory tables_;
  std::unique_ptr<router_internal::WritePath> write_path_;
  router_internal::FanOut fan_out_{4};
  metrics::Registry registry_;
  std::unique_ptr<router_internal::RouterMetrics> metrics_;
  std::optional<router::PageTokenCodec> page_tokens_;
  std::timed_mutex ddl_mu_;
  std::atomic<int> wakes_{0};
  std::vector<router::ServerId> ids_;
  router_internal::RouterContext ctx_;
};

}  // namespace bloomroute::testing

#endif  // BLOOMROUTE_TESTS_ROUTER_TAPPED_CLUSTER_H_
