// ContextCluster: a RouterContext over a StoreCluster, without a router,
// for tests of the router's components (RowCalls, Scans): the servers are
// members of a ServerDirectory whose clients are HookClients (a test counts
// or fails their calls), and table "t" -- families d and f, d:country
// indexed -- is published with regions [, g) [g, p) [p, ) on servers 0, 1
// and 2, open on the stores.
#ifndef BLOOMROUTE_TESTS_ROUTER_CONTEXT_CLUSTER_H_
#define BLOOMROUTE_TESTS_ROUTER_CONTEXT_CLUSTER_H_

#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <utility>
#include <vector>

#include "router/internal/router_context.h"
#include "tests/router/hook_client.h"
#include "tests/router/store_cluster.h"

namespace bloomroute::testing {

class ContextCluster {
 public:
  static constexpr int kServers = 3;

  ContextCluster() {
    options_.fanout_threads = 4;
    catalog_ = std::move(router_internal::Catalog::Open(cluster_.router_dir()))
                   .value();
    SscbfConfig config;
    config.initial_capacity = 64;
    index_ = std::move(router::GlobalIndex::Create(config)).value();
    for (const std::string& address : cluster_.Addresses()) {
      bool added = false;
      auto entry = servers_.Add(address, catalog_.get(), index_.get(), &added);
      EXPECT_TRUE(entry.ok()) << entry.status().ToString();
      ids_.push_back((*entry)->ref.id);
    }
    write_path_ = std::make_unique<router_internal::WritePath>(
        index_.get(), &servers_, &tables_, config,
        router_internal::WritePath::Hooks{
            [] {},
            [](const router_internal::ServerEntry&) { return Status::OK(); }});
    fan_out_ =
        std::make_unique<router_internal::FanOut>(options_.fanout_threads);
    ctx_.options = &options_;
    ctx_.filter_config = config;
    ctx_.catalog = catalog_.get();
    ctx_.index = index_.get();
    ctx_.fan_out = fan_out_.get();
    ctx_.servers = &servers_;
    ctx_.tables = &tables_;
    ctx_.write_path = write_path_.get();
    ctx_.ddl_mu = &ddl_mu_;
    ctx_.wake = [] {};
    Publish(Table());
    std::lock_guard<std::mutex> lock(hooks_->mu);
    hooks_->before = [this](int node, const std::string& call, uint64_t) {
      std::lock_guard<std::mutex> calls_lock(calls_mu_);
      ++calls_[{node, call}];
      return failing_node_ == node ? Status::Unavailable("down for the test")
                                   : Status::OK();
    };
  }

  // Table "t" with its three regions, one per server.
  router_internal::CatalogTable Table() const {
    router_internal::CatalogTable t;
    t.descriptor.table_id = 1;
    t.descriptor.name = "t";
    t.descriptor.families = {"d", "f"};
    t.descriptor.indexed_columns = {{1, "d:country", false}};
    t.regions = {{10, "", "g", ids_[0]},
                 {11, "g", "p", ids_[1]},
                 {12, "p", "", ids_[2]}};
    return t;
  }
  // Publishes `t` and opens its regions on their stores.
  void Publish(const router_internal::CatalogTable& t) {
    tables_.Publish({t});
    const router_internal::TableState state(t);
    for (size_t r = 0; r < t.regions.size(); ++r) {
      const int node = static_cast<int>(
          std::find(ids_.begin(), ids_.end(), t.regions[r].server) -
          ids_.begin());
      ASSERT_TRUE(cluster_.store(node)->OpenRegion(state.Descriptor(r)).ok());
    }
  }

  // Calls named `call` that reached server `node` (HookClient's names).
  int Calls(int node, const std::string& call) {
    std::lock_guard<std::mutex> lock(calls_mu_);
    return calls_[{node, call}];
  }
  void ResetCalls() {
    std::lock_guard<std::mutex> lock(calls_mu_);
    calls_.clear();
  }
  // Every call to server `node` answers Unavailable (-1: none).
  void Fail(int node) {
    std::lock_guard<std::mutex> lock(calls_mu_);
    failing_node_ = node;
  }

  router::RouterOptions& options() { return options_; }
  const router_internal::RouterContext& ctx() const { return ctx_; }
  router::ServerId id(int node) const { return ids_[node]; }

 private:
  StoreCluster cluster_{kServers};
  std::shared_ptr<Hooks> hooks_ = std::make_shared<Hooks>();
  router::RouterOptions options_;
  std::unique_ptr<router_internal::Catalog> catalog_;
  std::unique_ptr<router::GlobalIndex> index_;
  router_internal::ServerDirectory servers_{
      std::make_shared<HookFactory>(&cluster_, hooks_)};
  router_internal::TableDirectory tables_;
  std::unique_ptr<router_internal::WritePath> write_path_;
  std::unique_ptr<router_internal::FanOut> fan_out_;
  std::timed_mutex ddl_mu_;
  router_internal::RouterContext ctx_;
  std::vector<router::ServerId> ids_;

  std::mutex calls_mu_;
  std::map<std::pair<int, std::string>, int> calls_;  // guarded by calls_mu_
  int failing_node_ = -1;                             // guarded by calls_mu_
};

}  // namespace bloomroute::testing

#endif  // BLOOMROUTE_TESTS_ROUTER_CONTEXT_CLUSTER_H_
