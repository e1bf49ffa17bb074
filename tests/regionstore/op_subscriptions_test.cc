// Op subscriptions on a real store: a write returns only after every other
// subscribed router acknowledged its ops or that router's lease ended on the
// server's clock; pushes to one router are contiguous and in seq order;
// leases renew, lapse and are bounded.
#include "regionstore/op_subscriptions.h"

#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <future>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "model/op_push.h"
#include "tests/regionstore/op_push_test_sinks.h"
#include "tests/regionstore/region_store_test_util.h"

namespace bloomroute {
namespace {

using testing::OpPushTestClock;
using testing::OpPushTestSinks;

constexpr int64_t kLeaseMs = 1000;
constexpr int64_t kMaxLeaseMs = 2000;
constexpr int64_t kQuietMs = kMaxLeaseMs + 200;  // + LeaseMarginMs

class OpPushSubscriptionsTest : public ::testing::Test {
 protected:
  void SetUp() override {
    RegionStoreOptions options;
    options.filter.initial_capacity = 64;
    options.op_push_sinks = sinks_;
    options.monotonic_ms = clock_.AsFunction();
    options.max_op_subscribers = 3;
    options.max_op_lease_ms = kMaxLeaseMs;
    store_ = testing::OpenStoreWithRegions(dir_.path(), options,
                                           {testing::PlacesRegion(1, "", "")});
    ASSERT_NE(store_, nullptr);
    clock_.Advance(kQuietMs);  // past the start-up wait
  }

  StatusOr<OpSubscribeGrant> Subscribe(uint64_t router, uint64_t session = 1,
                                       int64_t lease_ms = kLeaseMs) {
    OpSubscribeRequest r;
    r.router_id = router;
    r.session = session;
    r.address = "router-" + std::to_string(router);
    r.lease_ms = lease_ms;
    r.tag = 40 + router;
    return store_->SubscribeOps(r);
  }

  // Puts a row with a new country (one insert op) through router `router`.
  std::future<StatusOr<WriteResult>> PutAsync(uint64_t router, int i) {
    return std::async(std::launch::async, [this, router, i] {
      return store_->Apply({testing::PutPlace(1, "r" + std::to_string(i),
                                              "C" + std::to_string(i), "PPL")},
                           MakeFenceToken(router, 1));
    });
  }

  static bool Returned(std::future<StatusOr<WriteResult>>& f, int ms = 50) {
    return f.wait_for(std::chrono::milliseconds(ms)) ==
           std::future_status::ready;
  }

  testing::TempDir dir_;
  OpPushTestClock clock_;
  std::shared_ptr<OpPushTestSinks> sinks_ = std::make_shared<OpPushTestSinks>();
  std::unique_ptr<RegionStore> store_;
};

TEST_F(OpPushSubscriptionsTest, WithNoSubscriberAWritePushesNothing) {
  auto w = PutAsync(1, 0).get();
  ASSERT_TRUE(w.ok()) << w.status().ToString();
  EXPECT_EQ(w->ops.size(), 2u);  // its country and the feature "PPL"
  EXPECT_EQ(sinks_->Attempts(), 0);
  EXPECT_EQ(store_->OpSubscriberCount(), 0u);
}

TEST_F(OpPushSubscriptionsTest, AWriteWaitsUntilAnotherRouterHoldsItsOps) {
  ASSERT_TRUE(Subscribe(2).ok());
  sinks_->SetHolding("router-2", true);
  auto w = PutAsync(1, 0);
  EXPECT_FALSE(Returned(w, 200)) << "acknowledged before router 2 had it";
  sinks_->SetHolding("router-2", false);
  ASSERT_TRUE(w.get().ok());
  const std::vector<OpPush> got = sinks_->Delivered("router-2");
  ASSERT_FALSE(got.empty());
  EXPECT_EQ(got.back().tag, 42u);
  EXPECT_EQ(got.back().result.last_seq, 2u);
  ASSERT_EQ(got.back().result.ops.size(), 2u);  // country and feature
  EXPECT_EQ(got.back().result.ops[0].seq, 1u);
}

// A new run of the server knows no subscription, while a router may still
// trust a lease the last run granted: writes wait out the longest lease
// (plus its margin) after the store opened, with or without subscribers.
TEST_F(OpPushSubscriptionsTest, AfterARestartWritesWaitOutEveryOldLease) {
  store_.reset();
  RegionStoreOptions options;
  options.filter.initial_capacity = 64;
  options.op_push_sinks = sinks_;
  options.monotonic_ms = clock_.AsFunction();
  options.max_op_lease_ms = kMaxLeaseMs;
  auto reopened = RegionStore::Open(dir_.path(), options);
  ASSERT_TRUE(reopened.ok()) << reopened.status().ToString();
  store_ = std::move(reopened).value();
  ASSERT_TRUE(store_->OpenRegion(testing::PlacesRegion(1, "", "")).ok());
  auto w = PutAsync(1, 0);
  EXPECT_FALSE(Returned(w, 200));
  clock_.Advance(kQuietMs - 1);
  EXPECT_FALSE(Returned(w, 100));
  clock_.Advance(1);
  EXPECT_TRUE(Returned(w, 5000));
  EXPECT_TRUE(Subscribe(2, 1, kMaxLeaseMs + 1).status().IsInvalidArgument());
}

TEST_F(OpPushSubscriptionsTest, TheSendingRouterIsNotWaitedFor) {
  ASSERT_TRUE(Subscribe(2).ok());
  sinks_->SetHolding("router-2", true);
  auto w = PutAsync(2, 0);  // router 2's own write: its reply has the ops
  EXPECT_TRUE(Returned(w, 5000));
  sinks_->SetHolding("router-2", false);
}

TEST_F(OpPushSubscriptionsTest, AWriteWithoutOpsWaitsForTheOpsBeforeIt) {
  ASSERT_TRUE(PutAsync(1, 0).get().ok());  // seqs 1-2, nobody subscribed
  ASSERT_TRUE(Subscribe(2).ok());
  sinks_->SetHolding("router-2", true);
  auto first = PutAsync(1, 1);  // seq 3
  // The second write starts once the first committed seq 3 (its push held):
  // started earlier, it could commit first and make the op itself.
  for (int i = 0; i < 5000 && store_->GetFilterStatus().last_seq < 3; ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
  }
  ASSERT_EQ(store_->GetFilterStatus().last_seq, 3u);
  // Same country as row 1: no op, but its row relies on seq 3.
  auto second = std::async(std::launch::async, [this] {
    return store_->Apply({testing::PutPlace(1, "s", "C1", "PPL")},
                         MakeFenceToken(3, 1));
  });
  EXPECT_FALSE(second.wait_for(std::chrono::milliseconds(200)) ==
               std::future_status::ready);
  sinks_->SetHolding("router-2", false);
  auto w = second.get();
  ASSERT_TRUE(w.ok());
  EXPECT_TRUE(w->ops.empty());
  EXPECT_EQ(w->last_seq, 3u);
  ASSERT_TRUE(first.get().ok());
}

// A lost push: the write waits for the lease to end on the server's clock,
// then the subscription is dropped and its renewal starts a new one.
TEST_F(OpPushSubscriptionsTest, AFailedPushHoldsTheWriteUntilTheLeaseEnds) {
  ASSERT_TRUE(Subscribe(2).ok());
  sinks_->SetLosing("router-2", true);
  auto w = PutAsync(1, 0);
  EXPECT_FALSE(Returned(w, 200));
  clock_.Advance(kLeaseMs - 1);
  EXPECT_FALSE(Returned(w, 100));
  clock_.Advance(1);
  ASSERT_TRUE(Returned(w, 5000));
  EXPECT_TRUE(w.get().ok());
  EXPECT_EQ(store_->OpSubscriberCount(), 0u);
  sinks_->SetLosing("router-2", false);
  auto again = Subscribe(2);
  ASSERT_TRUE(again.ok());
  EXPECT_FALSE(again->renewed) << "the router missed a push";
  EXPECT_EQ(again->last_seq, 2u);
}

// A renewal while a push is failing must not count as a continuation, and
// it must not let writes through before the (extended) lease ends.
TEST_F(OpPushSubscriptionsTest, RenewalAfterAFailedPushStartsOver) {
  ASSERT_TRUE(Subscribe(2).ok());
  sinks_->SetLosing("router-2", true);
  auto w = PutAsync(1, 0);
  EXPECT_FALSE(Returned(w, 200));
  auto renewed = Subscribe(2);
  ASSERT_TRUE(renewed.ok());
  EXPECT_FALSE(renewed->renewed);
  clock_.Advance(kLeaseMs);
  EXPECT_TRUE(Returned(w, 5000));
}

TEST_F(OpPushSubscriptionsTest, RenewalContinuesOnlyTheSameSession) {
  auto first = Subscribe(2, /*session=*/7);
  ASSERT_TRUE(first.ok());
  EXPECT_FALSE(first->renewed);
  clock_.Advance(kLeaseMs / 2);
  auto second = Subscribe(2, 7);
  ASSERT_TRUE(second.ok());
  EXPECT_TRUE(second->renewed);
  clock_.Advance(kLeaseMs / 2 + 10);  // past the first lease, not the second
  EXPECT_TRUE(Subscribe(2, 7)->renewed);
  EXPECT_FALSE(Subscribe(2, 8)->renewed) << "another process of router 2";
  clock_.Advance(kLeaseMs);
  EXPECT_FALSE(Subscribe(2, 8)->renewed) << "the lease had ended";
}

TEST_F(OpPushSubscriptionsTest, RequestsAreCheckedAndSubscribersBounded) {
  EXPECT_TRUE(Subscribe(0).status().IsInvalidArgument());
  EXPECT_TRUE(Subscribe(kMaxFenceRouterId + 1).status().IsInvalidArgument());
  EXPECT_TRUE(Subscribe(2, 1, 10).status().IsInvalidArgument());
  OpSubscribeRequest no_address;
  no_address.router_id = 2;
  no_address.lease_ms = kLeaseMs;
  EXPECT_TRUE(store_->SubscribeOps(no_address).status().IsInvalidArgument());
  for (uint64_t r = 1; r <= 3; ++r) ASSERT_TRUE(Subscribe(r).ok());
  EXPECT_TRUE(Subscribe(4).status().IsUnavailable());
  clock_.Advance(kLeaseMs);  // every lease ends: room again
  EXPECT_TRUE(Subscribe(4).ok());
}

// Concurrent writers through three routers; each subscriber sees one
// contiguous run of ops from its grant on, in seq order, with no gap.
TEST_F(OpPushSubscriptionsTest, PushesToOneRouterAreContiguousAndInOrder) {
  ASSERT_TRUE(Subscribe(1).ok());
  ASSERT_TRUE(Subscribe(2).ok());
  std::vector<std::thread> writers;
  std::atomic<int> failed{0};
  for (int t = 0; t < 3; ++t) {
    writers.emplace_back([&, t] {
      for (int i = 0; i < 40; ++i) {
        const int n = t * 1000 + i;
        if (!PutAsync(t + 1, n).get().ok()) ++failed;
      }
    });
  }
  for (auto& w : writers) w.join();
  // Router 3 is subscribed by no one: its write waits for routers 1 and 2.
  ASSERT_TRUE(PutAsync(3, 9999).get().ok());
  EXPECT_EQ(failed.load(), 0);
  for (const char* address : {"router-1", "router-2"}) {
    uint64_t next = 1;
    for (const OpPush& p : sinks_->Delivered(address)) {
      EXPECT_EQ(p.after_seq + 1, next) << address;
      for (const FilterOp& op : p.result.ops) EXPECT_EQ(op.seq, next++);
      EXPECT_EQ(p.result.last_seq + 1, next);
    }
    EXPECT_EQ(next, 123u) << address << " missed ops";  // 121 + "PPL"
  }
}

TEST_F(OpPushSubscriptionsTest, AnEpochChangeIsPushedAsAResync) {
  ASSERT_TRUE(Subscribe(2).ok());
  ASSERT_TRUE(PutAsync(1, 0).get().ok());
  ASSERT_TRUE(store_->CompactFilter().ok());
  const uint64_t epoch = store_->GetFilterStatus().epoch;
  ASSERT_TRUE(PutAsync(1, 1).get().ok());
  const std::vector<OpPush> got = sinks_->Delivered("router-2");
  bool resync = false;
  for (const OpPush& p : got) {
    if (p.result.epoch == epoch && p.after_seq == 2 && p.result.ops.empty()) {
      resync = true;
    }
  }
  EXPECT_TRUE(resync);
  EXPECT_EQ(got.back().result.epoch, epoch);
  EXPECT_EQ(got.back().result.last_seq, store_->GetFilterStatus().last_seq);
}

}  // namespace
}  // namespace bloomroute
