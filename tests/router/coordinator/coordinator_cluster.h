// CoordinatorCluster: the pieces a RouterContext points at (catalog, global
// index, server set, tables, write path, fan-out, metrics), built over a
// StoreCluster without a RouterImpl, so that the coordinator's components
// (RegionOps, RegionCopy, Balancing) can be tested by themselves. Each
// member's filter has the cluster's config and its replica is current.
#ifndef BLOOMROUTE_TESTS_ROUTER_COORDINATOR_COORDINATOR_CLUSTER_H_
#define BLOOMROUTE_TESTS_ROUTER_COORDINATOR_COORDINATOR_CLUSTER_H_

#include <gtest/gtest.h>

#include <atomic>
#include <cstdio>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "router/cluster_filter_config.h"
#include "router/coordinator/region_copy.h"
#include "router/internal/router_context.h"
#include "tests/router/router_test_util.h"
#include "tests/router/store_cluster.h"

namespace bloomroute::router_internal::testing {

using bloomroute::testing::StoreCluster;

inline std::string RowKey(int i) {
  char buf[16];
  std::snprintf(buf, sizeof buf, "r%04d", i);
  return buf;
}

class CoordinatorCluster {
 public:
  explicit CoordinatorCluster(int servers)
      : stores_(servers),
        options_(bloomroute::testing::RouterOptionsFor(stores_)),
        servers_(stores_.Factory()) {
    catalog_ = std::move(Catalog::Open(options_.data_dir)).value();
    config_ = router::ClusterFilterConfig(options_.filter, servers).value();
    index_ =
        std::move(router::GlobalIndex::Create(config_, 1ull << 32)).value();
    for (const std::string& address : stores_.Addresses()) {
      bool added = false;
      auto entry = servers_.Add(address, catalog_.get(), index_.get(), &added);
      EXPECT_TRUE(entry.ok()) << entry.status().ToString();
      if (entry.ok()) ids_.push_back((*entry)->ref.id);
    }
    write_path_ = std::make_unique<WritePath>(
        index_.get(), &servers_, &tables_, config_,
        WritePath::Hooks{[] {},
                         [](const ServerEntry&) { return Status::OK(); }});
    write_path_->CatchUpReplicas();
    fan_out_ = std::make_unique<FanOut>(2);
    metrics_ = std::make_unique<RouterMetrics>(
        [] { return RouterMetrics::Snapshot(); });
    ctx_.options = &options_;
    ctx_.filter_config = config_;
    ctx_.catalog = catalog_.get();
    ctx_.index = index_.get();
    ctx_.fan_out = fan_out_.get();
    ctx_.metrics = metrics_.get();
    ctx_.servers = &servers_;
    ctx_.tables = &tables_;
    ctx_.write_path = write_path_.get();
    ctx_.ddl_mu = &ddl_mu_;
    ctx_.wake = [this] { ++wakes_; };
  }

  const RouterContext& ctx() const { return ctx_; }
  StoreCluster& stores() { return stores_; }
  // The member id of store `node`.
  ServerId id(int node) const { return ids_[node]; }
  const ServerEntry& server(int node) const { return servers_.Get(ids_[node]); }
  int wakes() const { return wakes_; }

  // Creates table `name` (indexed on d:country) in the catalog, region i
  // of [splits) on store nodes[i], opens its regions and publishes it.
  CatalogTable CreateTable(const std::string& name,
                           const std::vector<std::string>& splits,
                           const std::vector<int>& nodes) {
    CatalogTable t;
    t.descriptor.table_id = catalog_->NextTableId();
    t.descriptor.name = name;
    t.descriptor.indexed_columns = {{1, "d:country"}};
    t.descriptor.families = {"d"};
    t.next_column_id = 2;
    for (size_t i = 0; i <= splits.size(); ++i) {
      t.regions.push_back(
          {catalog_->NextRegionId(), i == 0 ? std::string() : splits[i - 1],
           i < splits.size() ? splits[i] : std::string(), ids_[nodes[i]]});
    }
    EXPECT_TRUE(catalog_->PutTable(t).ok());
    for (const CatalogRegion& r : t.regions) {
      EXPECT_TRUE(servers_.Get(r.server)
                      .client->OpenRegion(DescriptorOf(t, r), 0)
                      .ok());
    }
    ctx_.PublishTables();
    return t;
  }

  // The table's record in the catalog now.
  CatalogTable Table(uint64_t table_id) const {
    for (const CatalogTable& t : *catalog_->Tables()) {
      if (t.descriptor.table_id == table_id) return t;
    }
    ADD_FAILURE() << "no table " << table_id;
    return CatalogTable();
  }

  // Writes rows [begin, end) (country "c<i % 3>") into `region`.
  void PutRows(const CatalogRegion& region, int begin, int end) {
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
  std::optional<Row> GetRow(const CatalogRegion& region,
                            const std::string& key) {
    GetRequest g;
    g.region_id = region.region_id;
    g.row_key = key;
    auto rows = servers_.Get(region.server).client->Get({g}, 1 << 20);
    EXPECT_TRUE(rows.ok() && rows->size() == 1)
        << (rows.ok() ? "" : rows.status().ToString());
    return rows.ok() && rows->size() == 1 ? (*rows)[0] : std::nullopt;
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

 private:
  StoreCluster stores_;
  router::RouterOptions options_;
  SscbfConfig config_;
  std::unique_ptr<Catalog> catalog_;
  std::unique_ptr<router::GlobalIndex> index_;
  ServerDirectory servers_;
  std::vector<ServerId> ids_;
  TableDirectory tables_;
  std::unique_ptr<WritePath> write_path_;
  std::unique_ptr<FanOut> fan_out_;
  std::unique_ptr<RouterMetrics> metrics_;
  std::timed_mutex ddl_mu_;
  RouterContext ctx_;
  std::atomic<int> wakes_{0};
};

}  // namespace bloomroute::router_internal::testing

#endif  // BLOOMROUTE_TESTS_ROUTER_COORDINATOR_COORDINATOR_CLUSTER_H_
