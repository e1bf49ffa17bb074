// ComponentCluster: the pieces a RouterContext points at (catalog, global
// index, ServerDirectory, TableDirectory, WritePath, fan-out, metrics, page
// tokens, the DDL mutex and a wake that counts) assembled over a
// StoreCluster without a RouterImpl, so that a test drives one router
// component (RowCalls, Scans, LookupPlanner, ClusterView) or coordinator
// component (RegionOps, RegionCopy, Balancing, RegionPlacement, IndexTasks)
// by itself on real region stores.
//
// Every store is a member (ids in store order) with the cluster's filter
// config; its client is a HookClient, so a test counts, fails or watches
// its calls and changes its answers (hooks()). No table exists until a test
// creates one (CreateTable) or writes one to the catalog (PutTable); no
// replica is current until CatchUp.
//
//   ComponentCluster cluster(3);
//   cluster.CreateTable("t", {"g", "p"}, {0, 1, 2});
//   cluster.Put("t", {{"a1", "NO", "city"}});
//   cluster.CatchUp();
//   LookupPlanner planner(cluster.ctx(), cluster.page_tokens(), hooks);
#ifndef BLOOMROUTE_TESTS_ROUTER_COMPONENT_CLUSTER_H_
#define BLOOMROUTE_TESTS_ROUTER_COMPONENT_CLUSTER_H_

#include <gtest/gtest.h>

#include <atomic>
#include <cstdio>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "common/metrics.h"
#include "router/cluster_filter_config.h"
#include "router/coordinator/region_copy.h"
#include "router/internal/router_context.h"
#include "router/page_token.h"
#include "tests/router/hook_client.h"
#include "tests/router/router_test_util.h"
#include "tests/router/store_cluster.h"

namespace bloomroute::testing {

// Row key `i` as PutRows writes it ("r0007"): keys sort as their numbers.
inline std::string RowKey(int i) {
  char buf[16];
  std::snprintf(buf, sizeof buf, "r%04d", i);
  return buf;
}

class ComponentCluster {
 public:
  // `servers` stores, each a member; the options are RouterOptionsFor's.
  explicit ComponentCluster(int servers)
      : stores_(servers),
        options_(RouterOptionsFor(stores_)),
        servers_(std::make_shared<HookFactory>(&stores_, hooks_)) {
    catalog_ =
        std::move(router_internal::Catalog::Open(options_.data_dir)).value();
    filter_config_ =
        std::move(router::ClusterFilterConfig(options_.filter, servers))
            .value();
    // Fence tokens above 2^32, as a router's first run has them.
    index_ = std::move(router::GlobalIndex::Create(filter_config_, 1ull << 32))
                 .value();
    AddMembers();
    BuildPieces();
    FillContext();
  }
  ComponentCluster(const ComponentCluster&) = delete;
  ComponentCluster& operator=(const ComponentCluster&) = delete;

  const router_internal::RouterContext& ctx() const { return ctx_; }
  // Changes before a component is created are seen by it.
  router::RouterOptions& options() { return options_; }
  StoreCluster& stores() { return stores_; }
  // What the clients run before and after each call, and what they count.
  Hooks& hooks() { return *hooks_; }
  router_internal::Catalog& catalog() { return *catalog_; }
  router::GlobalIndex& index() { return *index_; }
  router_internal::ServerDirectory& servers() { return servers_; }
  router_internal::WritePath& write_path() { return *write_path_; }
  router_internal::CoordinatorStanding& coordinator() { return coordinator_; }
  const router::PageTokenCodec* page_tokens() const { return &*page_tokens_; }
  // The member id of store `node`, and its entry.
  router::ServerId id(int node) const { return ids_[node]; }
  const router_internal::ServerEntry& server(int node) const {
    return servers_.Get(ids_[node]);
  }
  // Calls of the context's wake and of WritePath's (a replica to catch up,
  // regions to reopen, work left).
  int wakes() const { return wakes_; }
  // Replaces WritePath's reopen hook, which by default opens again every
  // region the published tables place on the server.
  void set_reopen(
      std::function<Status(const router_internal::ServerEntry&)> reopen) {
    reopen_ = std::move(reopen);
  }

  // Calls named `call` that reached store `node` (HookClient's names).
  int Calls(int node, const std::string& call) {
    std::lock_guard<std::mutex> lock(hooks_->mu);
    return hooks_->calls[{node, call}];
  }
  void ResetCalls() {
    std::lock_guard<std::mutex> lock(hooks_->mu);
    hooks_->calls.clear();
    hooks_->sequence.clear();
  }
  // Every call to store `node` answers Unavailable (-1: none); replaces
  // hooks().before.
  void Fail(int node) {
    std::lock_guard<std::mutex> lock(hooks_->mu);
    hooks_->before = [node](int n, const std::string&, uint64_t) {
      return n == node ? Status::Unavailable("down for the test")
                       : Status::OK();
    };
  }

  // Creates table `name` (family "d", indexed d:country and d:feature)
  // with region i of [splits) on store nodes[i] (splits.size() + 1 nodes):
  // recorded in the catalog, its regions opened on their stores, published.
  router_internal::CatalogTable CreateTable(
      const std::string& name, const std::vector<std::string>& splits,
      const std::vector<int>& nodes) {
    router_internal::CatalogTable t;
    t.descriptor.table_id = catalog_->NextTableId();
    t.descriptor.name = name;
    t.descriptor.families = {"d"};
    t.descriptor.indexed_columns = {{1, "d:country"}, {2, "d:feature"}};
    t.next_column_id = 3;
    for (size_t i = 0; i <= splits.size(); ++i) {
      t.regions.push_back(
          {catalog_->NextRegionId(), i == 0 ? std::string() : splits[i - 1],
           i < splits.size() ? splits[i] : std::string(), ids_[nodes[i]]});
    }
    EXPECT_TRUE(catalog_->PutTable(t).ok());
    for (const router_internal::CatalogRegion& r : t.regions) {
      const Status opened = servers_.Get(r.server).client->OpenRegion(
          router_internal::DescriptorOf(t, r), 0);
      EXPECT_TRUE(opened.ok()) << opened.ToString();
    }
    ctx_.PublishTables();
    return t;
  }
  // Writes `table` to the catalog and publishes it (opens no region).
  void PutTable(const router_internal::CatalogTable& table) {
    ASSERT_TRUE(catalog_->PutTable(table).ok());
    ctx_.PublishTables();
  }
  // The catalog's record of table `table_id` (an empty one, and a test
  // failure, when missing).
  router_internal::CatalogTable Record(uint64_t table_id) const {
    for (const router_internal::CatalogTable& t : *catalog_->Tables()) {
      if (t.descriptor.table_id == table_id) return t;
    }
    ADD_FAILURE() << "no table " << table_id;
    return router_internal::CatalogTable();
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
  // Writes rows RowKey(begin) .. RowKey(end - 1) (country "c<i % 3>") into
  // `region` through the write path.
  void PutRows(const router_internal::CatalogRegion& region, int begin,
               int end) {
    std::vector<Mutation> puts;
    for (int i = begin; i < end; ++i) {
      puts.push_back(
          Mutation::Put(region.region_id, RowKey(i),
                        {{"d:country", "c" + std::to_string(i % 3)}}));
    }
    const Status s =
        write_path_->ApplyBatches(servers_.Get(region.server), std::move(puts));
    ASSERT_TRUE(s.ok()) << s.ToString();
  }
  // The row `key` of `region` on its server (nullopt: missing).
  std::optional<Row> GetRow(const router_internal::CatalogRegion& region,
                            const std::string& key) {
    GetRequest g;
    g.region_id = region.region_id;
    g.row_key = key;
    auto rows = servers_.Get(region.server).client->Get({g}, 1 << 20);
    EXPECT_TRUE(rows.ok() && rows->size() == 1)
        << (rows.ok() ? "" : rows.status().ToString());
    return rows.ok() && rows->size() == 1 ? (*rows)[0] : std::nullopt;
  }

  // Makes every replica current (the servers given the cluster's config).
  void CatchUp() {
    write_path_->CatchUpReplicas();
    for (router::ServerId id : ids_) {
      EXPECT_TRUE(index_->IsCurrent(id)) << "server " << id;
    }
  }
  // The ids of the regions store `node` knows (serving, staged or closed).
  std::set<uint64_t> StoreRegions(int node) {
    std::set<uint64_t> out;
    auto page = stores_.store(node)->GetRegionStats(RegionStatsRequest());
    EXPECT_TRUE(page.ok() && !page->more);
    if (page.ok()) {
      for (const RegionStats& r : page->regions) out.insert(r.region_id);
    }
    return out;
  }
  // The ids of the regions store `node` serves (empty while it is down).
  std::vector<uint64_t> OpenIds(int node) {
    std::shared_ptr<RegionStore> store = stores_.store(node);
    return store == nullptr ? std::vector<uint64_t>{} : store->OpenRegionIds();
  }

 private:
  void AddMembers() {
    for (const std::string& address : stores_.Addresses()) {
      bool added = false;
      auto entry = servers_.Add(address, catalog_.get(), index_.get(), &added);
      EXPECT_TRUE(entry.ok()) << entry.status().ToString();
      if (entry.ok()) ids_.push_back((*entry)->ref.id);
    }
  }
  void BuildPieces() {
    write_path_ = std::make_unique<router_internal::WritePath>(
        index_.get(), &servers_, &tables_, filter_config_,
        router_internal::WritePath::Hooks{
            [this] { ++wakes_; },
            [this](const router_internal::ServerEntry& server) {
              return reopen_ ? reopen_(server) : ReopenPublished(server);
            },
            &coordinator_});
    fan_out_ =
        std::make_unique<router_internal::FanOut>(options_.fanout_threads);
    metrics_ = std::make_unique<router_internal::RouterMetrics>(
        [] { return router_internal::RouterMetrics::Snapshot(); }, &registry_);
    page_tokens_.emplace(
        std::move(router::PageTokenCodec::Create(
                      std::move(router::NewPageTokenKey()).value()))
            .value());
  }
  void FillContext() {
    ctx_.options = &options_;
    ctx_.filter_config = filter_config_;
    ctx_.catalog = catalog_.get();
    ctx_.index = index_.get();
    ctx_.fan_out = fan_out_.get();
    ctx_.metrics = metrics_.get();
    ctx_.servers = &servers_;
    ctx_.tables = &tables_;
    ctx_.write_path = write_path_.get();
    ctx_.ddl_mu = &ddl_mu_;
    ctx_.coordinator = &coordinator_;
    ctx_.wake = [this] { ++wakes_; };
  }
  // Opens again every region the published tables place on `server`.
  Status ReopenPublished(const router_internal::ServerEntry& server) {
    for (const auto& table : tables_.Tables()) {
      for (size_t r = 0; r < table->record.regions.size(); ++r) {
        if (table->record.regions[r].server != server.ref.id) continue;
        BLOOMROUTE_RETURN_IF_ERROR(
            server.client->OpenRegion(table->Descriptor(r), 0));
      }
    }
    return Status::OK();
  }

  StoreCluster stores_;
  const std::shared_ptr<Hooks> hooks_ = std::make_shared<Hooks>();
  router::RouterOptions options_;
  SscbfConfig filter_config_;
  std::unique_ptr<router_internal::Catalog> catalog_;
  std::unique_ptr<router::GlobalIndex> index_;
  router_internal::ServerDirectory servers_;
  std::vector<router::ServerId> ids_;
  router_internal::TableDirectory tables_;
  std::unique_ptr<router_internal::WritePath> write_path_;
  std::unique_ptr<router_internal::FanOut> fan_out_;
  metrics::Registry registry_;
  std::unique_ptr<router_internal::RouterMetrics> metrics_;
  std::optional<router::PageTokenCodec> page_tokens_;
  std::timed_mutex ddl_mu_;
  // Coordinator epoch 1, as a router's first run has (its fence tokens).
  router_internal::CoordinatorStanding coordinator_{1};
  std::atomic<int> wakes_{0};
  std::function<Status(const router_internal::ServerEntry&)> reopen_;
  router_internal::RouterContext ctx_;
};

}  // namespace bloomroute::testing

#endif  // BLOOMROUTE_TESTS_ROUTER_COMPONENT_CLUSTER_H_
