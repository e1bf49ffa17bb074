#include "coord/internal/store_events.h"

#include <gtest/gtest.h>

#include <atomic>
#include <thread>
#include <vector>

#include "tests/coord/znode_test_support.h"

namespace bloomroute::coord::internal {
namespace {

TEST(ZnodeStoreEvents, RunsTasksInOrderOnItsOwnThread) {
  StoreEvents events;
  std::vector<int> order;
  std::thread::id caller = std::this_thread::get_id();
  std::atomic<bool> on_other_thread{true};
  for (int i = 0; i < 100; ++i) {
    events.Post([&, i] {
      if (std::this_thread::get_id() == caller) on_other_thread = false;
      EXPECT_TRUE(events.OnEventThread());
      order.push_back(i);
    });
  }
  events.Drain();
  ASSERT_EQ(order.size(), 100u);
  for (int i = 0; i < 100; ++i) EXPECT_EQ(order[i], i);
  EXPECT_TRUE(on_other_thread);
  EXPECT_FALSE(events.OnEventThread());
}

TEST(ZnodeStoreEvents, ListenersHearStatesUntilRemoved) {
  StoreEvents events;
  zktest::ZnodeEventLog first, second;
  uint64_t a = events.AddListener(first.Listen());
  events.AddListener(second.Listen());
  events.PostSessionState(SessionState::kDisconnected);
  events.Drain();
  events.RemoveListener(a);
  events.PostSessionState(SessionState::kConnected);
  events.Drain();
  EXPECT_EQ(first.states(),
            std::vector<SessionState>{SessionState::kDisconnected});
  EXPECT_EQ(second.states(),
            (std::vector<SessionState>{SessionState::kDisconnected,
                                       SessionState::kConnected}));
}

TEST(ZnodeStoreEvents, AListenerMayRemoveItselfAndTasksMayPostMore) {
  StoreEvents events;
  int calls = 0;
  uint64_t id = 0;
  id = events.AddListener([&](SessionState) {
    ++calls;
    events.RemoveListener(id);  // on the event thread: must not deadlock
    events.Post([&] { ++calls; });
  });
  events.PostSessionState(SessionState::kDisconnected);
  events.PostSessionState(SessionState::kConnected);
  events.Drain();
  events.Drain();
  EXPECT_EQ(calls, 2);  // one listener call, one posted task
}

TEST(ZnodeStoreEvents, StopDropsPendingTasksAndWaitsForTheRunningOne) {
  auto events = std::make_unique<StoreEvents>();
  std::atomic<bool> started{false}, finished{false};
  std::atomic<int> later{0};
  events->Post([&] {
    started = true;
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
    finished = true;
  });
  for (int i = 0; i < 10; ++i) events->Post([&] { ++later; });
  ASSERT_TRUE(zktest::WaitFor([&] { return started.load(); }));
  events->Stop();
  EXPECT_TRUE(finished);
  EXPECT_EQ(later.load(), 0);
  events->Post([&] { later = 100; });  // dropped after Stop
  events.reset();
  EXPECT_NE(later.load(), 100);
}

}  // namespace
}  // namespace bloomroute::coord::internal
