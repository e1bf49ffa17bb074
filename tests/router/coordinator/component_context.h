// ComponentContext: the RouterContext a coordinator component takes, filled
// with real pieces over a StoreCluster (in-process region stores behind
// HookClient, so that a test can fail or watch a call), for tests of one
// component without a RouterImpl. Every store is a member; no table exists
// until a test writes one to the catalog.
#ifndef BLOOMROUTE_TESTS_ROUTER_COORDINATOR_COMPONENT_CONTEXT_H_
#define BLOOMROUTE_TESTS_ROUTER_COORDINATOR_COMPONENT_CONTEXT_H_

#include <gtest/gtest.h>

#include <atomic>
#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <utility>
#include <vector>

#include "router/cluster_filter_config.h"
#include "router/internal/catalog.h"
#include "router/internal/fan_out.h"
#include "router/internal/router_context.h"
#include "router/internal/server_directory.h"
#include "router/internal/table_directory.h"
#include "router/internal/write_path.h"
#include "tests/router/hook_client.h"
#include "tests/router/router_test_util.h"
#include "tests/router/store_cluster.h"

namespace bloomroute::router_internal {

class ComponentContext {
 public:
  explicit ComponentContext(int servers)
      : cluster_(servers),
        hooks_(std::make_shared<testing::Hooks>()),
        servers_(std::make_shared<testing::HookFactory>(&cluster_, hooks_)) {
    options_ = testing::RouterOptionsFor(cluster_);
    catalog_ = std::move(Catalog::Open(options_.data_dir)).value();
    config_ = std::move(router::ClusterFilterConfig(options_.filter, servers))
                  .value();
    index_ = std::move(router::GlobalIndex::Create(config_)).value();
    for (const std::string& address : cluster_.Addresses()) {
      bool added = false;
      auto entry = servers_.Add(address, catalog_.get(), index_.get(), &added);
      EXPECT_TRUE(entry.ok()) << entry.status().ToString();
      ids_.push_back((*entry)->ref.id);
    }
    fan_out_ = std::make_unique<FanOut>(options_.fanout_threads);
    write_path_ = std::make_unique<WritePath>(
        index_.get(), &servers_, &tables_, config_,
        WritePath::Hooks{[this] { ++wakes_; },
                         [this](const ServerEntry& server) {
                           return reopen_ ? reopen_(server)
                                          : Status::NotFound("no reopen");
                         }});
    ctx_.options = &options_;
    ctx_.filter_config = config_;
    ctx_.catalog = catalog_.get();
    ctx_.index = index_.get();
    ctx_.fan_out = fan_out_.get();
    ctx_.servers = &servers_;
    ctx_.tables = &tables_;
    ctx_.write_path = write_path_.get();
    ctx_.ddl_mu = &ddl_mu_;
    ctx_.wake = [this] { ++wakes_; };
  }

  const RouterContext& ctx() const { return ctx_; }
  testing::StoreCluster& cluster() { return cluster_; }
  testing::Hooks& hooks() { return *hooks_; }
  // Changes before the component is created are seen by it.
  router::RouterOptions& options() { return options_; }
  Catalog& catalog() { return *catalog_; }
  router::GlobalIndex& index() { return *index_; }
  ServerDirectory& servers() { return servers_; }
  WritePath& write_path() { return *write_path_; }
  // The member id of store `i`, and its entry.
  ServerId id(int i) const { return ids_[i]; }
  const ServerEntry& server(int i) const { return servers_.Get(ids_[i]); }
  // Calls of the context's wake (and WritePath's).
  int wakes() const { return wakes_; }
  // WritePath's reopen hook (unset: NotFound).
  void set_reopen(std::function<Status(const ServerEntry&)> reopen) {
    reopen_ = std::move(reopen);
  }

  // Writes `table` to the catalog and publishes it.
  void Put(const CatalogTable& table) {
    ASSERT_TRUE(catalog_->PutTable(table).ok());
    ctx_.PublishTables();
  }
  // The catalog's record of table `table_id` (an empty one when missing).
  CatalogTable Record(uint64_t table_id) const {
    for (const CatalogTable& t : *catalog_->Tables()) {
      if (t.descriptor.table_id == table_id) return t;
    }
    return CatalogTable{};
  }
  // The ids of the regions store `i` serves (empty while it is down).
  std::vector<uint64_t> OpenIds(int i) {
    std::shared_ptr<RegionStore> store = cluster_.store(i);
    return store == nullptr ? std::vector<uint64_t>{} : store->OpenRegionIds();
  }

 private:
  testing::StoreCluster cluster_;
  std::shared_ptr<testing::Hooks> hooks_;
  router::RouterOptions options_;
  SscbfConfig config_;
  std::unique_ptr<Catalog> catalog_;
  std::unique_ptr<router::GlobalIndex> index_;
  ServerDirectory servers_;
  std::vector<ServerId> ids_;
  std::unique_ptr<FanOut> fan_out_;
  TableDirectory tables_;
  std::unique_ptr<WritePath> write_path_;
  std::timed_mutex ddl_mu_;
  std::atomic<int> wakes_{0};
  std::function<Status(const ServerEntry&)> reopen_;
  RouterContext ctx_;
};

}  // namespace bloomroute::router_internal

#endif  // BLOOMROUTE_TESTS_ROUTER_COORDINATOR_COMPONENT_CONTEXT_H_
