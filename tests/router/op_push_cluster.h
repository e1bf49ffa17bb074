// OpPushCluster: several routers' write paths and global indexes over
// in-process region stores with op subscriptions, for the many-routers
// invariant (model/op_push.h). Each OpPushRouterHead is what one router
// process keeps of the global index: a GlobalIndex with leases (or, for a
// negative control, without subscriptions at all), an OpSubscriber whose
// pushes arrive through OpPushTestSinks, and a client per store. Its write
// is the router's write protocol (router/internal/write_path.h): the
// server's fence token, the reply's ops applied to the replica before the
// write counts as acknowledged, a write whose reply is lost marked in
// doubt; its lookup asks the stores GlobalIndex::Candidates names (each
// answers exactly from its local index).
//
// One clock (OpPushTestClock) is every router's and every store's
// monotonic clock; nothing sleeps on it: a write that waits for a lease to
// end on the stores' clock is run on a thread while the test moves the
// clock (Write does so).
//
// Stores: kOpPushStores stores, store i serving region i+1 of PlacesTable()
// over the row keys starting with the letters of its third of "a".."z".
#ifndef BLOOMROUTE_TESTS_ROUTER_OP_PUSH_CLUSTER_H_
#define BLOOMROUTE_TESTS_ROUTER_OP_PUSH_CLUSTER_H_

#include <gtest/gtest.h>

#include <chrono>
#include <future>
#include <map>
#include <memory>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "index/element_hash.h"
#include "model/op_push.h"
#include "router/global_index.h"
#include "router/op_subscriber.h"
#include "tests/regionstore/op_push_test_sinks.h"
#include "tests/regionstore/region_store_test_util.h"
#include "tests/router/store_cluster.h"

namespace bloomroute::testing {

inline constexpr int kOpPushStores = 3;
inline constexpr int64_t kOpPushLeaseMs = 1000;

// The store whose region holds `row` (its first letter).
inline int OpPushStoreOf(const std::string& row) {
  return row.empty() || row[0] < 'i' ? 0 : row[0] < 'q' ? 1 : 2;
}

class OpPushRouterHead {
 public:
  // `subscribe` false: today's router (no leases, no subscriptions).
  OpPushRouterHead(uint64_t router_id, StoreCluster* stores,
                   OpPushTestSinks* sinks, OpPushTestClock* clock,
                   bool subscribe)
      : router_id_(router_id), sinks_(sinks), clock_(clock) {
    const SscbfConfig config = stores->node(0).options.filter;
    const uint64_t base = MakeFenceToken(router_id, uint64_t{1} << 24);
    index_ = subscribe
                 ? std::move(router::GlobalIndex::CreateWithLeases(
                                 config, base, clock->AsFunction()))
                       .value()
                 : std::move(router::GlobalIndex::Create(config, base)).value();
    (void)clock_;
    auto factory = stores->Factory();
    for (int s = 0; s < kOpPushStores; ++s) {
      EXPECT_TRUE(index_->AddServer(s).ok());
      clients_.push_back(
          std::move(factory->Connect(s, stores->node(s).address)).value());
    }
    address_ = "router-" + std::to_string(router_id);
    if (subscribe) {
      subscriber_ = std::make_shared<router::OpSubscriber>(
          index_.get(),
          router::OpSubscriber::Options{router_id, address_, kOpPushLeaseMs,
                                        clock->AsFunction(), router_id * 7919});
      // The handler keeps both alive: a store's pushing thread may still
      // be in it when this head is gone.
      std::shared_ptr<router::GlobalIndex> index = index_;
      std::shared_ptr<router::OpSubscriber> sub = subscriber_;
      sinks_->SetHandler(
          address_, [index, sub](const OpPush& p) { return sub->OnPush(p); });
    }
  }
  ~OpPushRouterHead() {
    // The process dies: pushes to it fail from now on.
    if (subscriber_) {
      sinks_->SetHandler(address_, [](const OpPush&) {
        return Status::Unavailable("router is gone");
      });
    }
  }

  uint64_t router_id() const { return router_id_; }
  const std::string& address() const { return address_; }
  router::GlobalIndex& index() { return *index_; }

  // Renews due leases and catches up replicas that are not current.
  void Maintain() {
    for (int s = 0; s < kOpPushStores; ++s) {
      if (subscriber_ && subscriber_->RenewalDue(s)) {
        (void)subscriber_->Renew(s, *clients_[s]);
      }
      if (!index_->IsCurrent(s)) (void)index_->CatchUp(s, *clients_[s]);
    }
  }

  // Sends `batch` to store `s` as the write path does. `lose_reply`: the
  // write commits but its reply is lost (in doubt). Returns the outcome;
  // the caller moves the clock while it is not ready.
  std::future<Status> WriteAsync(int s, std::vector<Mutation> batch,
                                 bool lose_reply) {
    return std::async(std::launch::async, [this, s, batch, lose_reply] {
      for (int attempt = 0; attempt < 3; ++attempt) {
        StatusOr<WriteResult> w =
            clients_[s]->Apply(batch, index_->FenceToken(s));
        if (w.status().IsAborted()) continue;  // fenced: newer token
        if (!w.ok()) return w.status();
        if (lose_reply) return index_->MarkWriteInDoubt(s);
        return index_->ApplyWriteResult(s, *w).status();
      }
      return Status::Aborted("fenced three times");
    });
  }

  // The rows whose d:country is `country`, asking the stores the index
  // names; `asked` gets how many.
  StatusOr<std::set<std::string>> Lookup(const std::string& country,
                                         int* asked) {
    const router::CandidateServers c =
        index_->Candidates({HashElement(PlacesTable().table_id, 1, country)});
    *asked = static_cast<int>(c.servers.size());
    std::set<std::string> rows;
    for (router::ServerId s : c.servers) {
      StatusOr<IndexQueryResult> r =
          clients_[s]->Lookup(Where({{"d:country", country}}, 100000));
      if (!r.ok()) return r.status();
      for (const Row& row : r->rows) rows.insert(row.key);
    }
    return rows;
  }

 private:
  const uint64_t router_id_;
  OpPushTestSinks* const sinks_;
  OpPushTestClock* const clock_;
  std::string address_;
  std::shared_ptr<router::GlobalIndex> index_;
  std::shared_ptr<router::OpSubscriber> subscriber_;
  std::vector<std::unique_ptr<router::RegionClient>> clients_;
};

class OpPushCluster {
 public:
  explicit OpPushCluster(int routers, bool subscribe = true)
      : sinks_(std::make_shared<OpPushTestSinks>()),
        stores_(kOpPushStores, StoreOptions(sinks_, &clock_)),
        subscribe_(subscribe) {
    const char* starts[] = {"", "i", "q", ""};
    for (int s = 0; s < kOpPushStores; ++s) {
      EXPECT_TRUE(
          stores_.store(s)
              ->OpenRegion(PlacesRegion(s + 1, starts[s], starts[s + 1]))
              .ok());
    }
    // Past the stores' start-up wait (OpSubscriptions, "Restarts").
    clock_.Advance(kOpPushLeaseMs + LeaseMarginMs(kOpPushLeaseMs));
    for (int r = 0; r < routers; ++r) heads_.push_back(NewHead());
  }

  OpPushRouterHead& head(int r) { return *heads_[r]; }
  int routers() const { return static_cast<int>(heads_.size()); }
  OpPushTestSinks& sinks() { return *sinks_; }
  OpPushTestClock& clock() { return clock_; }
  StoreCluster& stores() { return stores_; }

  // A new process for router `r`, with a new router id (as ZooKeeper
  // gives one per process).
  void Restart(int r) { heads_[r] = NewHead(); }

  // Runs head r's write, moving the clock by a quarter lease whenever it
  // waits (a lease ending on the stores' clock); returns its status.
  Status Write(int r, const std::vector<Mutation>& batch, bool lose_reply) {
    const int s = OpPushStoreOf(batch.front().row_key);
    std::future<Status> f = heads_[r]->WriteAsync(s, batch, lose_reply);
    while (f.wait_for(std::chrono::milliseconds(wait_step_ms_)) !=
           std::future_status::ready) {
      clock_.Advance(kOpPushLeaseMs / 4);
      ++clock_moves_;
    }
    return f.get();
  }
  int clock_moves() const { return clock_moves_; }
  // Real time Write gives a write before each move of the clock: short
  // keeps lost pushes cheap; a test that must not lapse leases of a write
  // that is merely slow (a loaded machine) gives more.
  void set_wait_step_ms(int ms) { wait_step_ms_ = ms; }

 private:
  static RegionStoreOptions StoreOptions(
      const std::shared_ptr<OpPushTestSinks>& sinks, OpPushTestClock* clock) {
    RegionStoreOptions o;
    o.op_push_sinks = sinks;
    o.monotonic_ms = clock->AsFunction();
    o.max_op_lease_ms = kOpPushLeaseMs;
    return o;
  }
  std::unique_ptr<OpPushRouterHead> NewHead() {
    return std::make_unique<OpPushRouterHead>(
        ++last_router_id_, &stores_, sinks_.get(), &clock_, subscribe_);
  }

  OpPushTestClock clock_;
  std::shared_ptr<OpPushTestSinks> sinks_;
  StoreCluster stores_;
  const bool subscribe_;
  uint64_t last_router_id_ = 0;
  int clock_moves_ = 0;
  int wait_step_ms_ = 2;
  std::vector<std::unique_ptr<OpPushRouterHead>> heads_;
};

}  // namespace bloomroute::testing

#endif  // BLOOMROUTE_TESTS_ROUTER_OP_PUSH_CLUSTER_H_
