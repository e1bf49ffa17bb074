#include "common/sync_point.h"

#include <gtest/gtest.h>

#include <atomic>
#include <thread>

namespace bloomroute {
namespace {

class SyncPointsTest : public ::testing::Test {
 protected:
  void TearDown() override { SyncPoints::ClearAll(); }
};

TEST_F(SyncPointsTest, APointRunsItsCallbackWithTheArgument) {
  int seen = 0;
  SyncPoints::Set("A", [&](void* arg) { seen += *static_cast<int*>(arg); });
  int three = 3;
  BLOOMROUTE_SYNC_POINT_ARG("A", &three);
  BLOOMROUTE_SYNC_POINT("B");  // no callback: nothing
  EXPECT_EQ(seen, 3);
  SyncPoints::Set("A", [&](void*) { seen = -1; });  // replaced
  BLOOMROUTE_SYNC_POINT("A");
  EXPECT_EQ(seen, -1);
  SyncPoints::ClearAll();
  BLOOMROUTE_SYNC_POINT("A");
  EXPECT_EQ(seen, -1);
}

TEST_F(SyncPointsTest, ACallbackCanHoldAThreadUntilAnotherArrives) {
  std::atomic<int> order{0};
  std::atomic<bool> released{false};
  int first = 0, second = 0;
  SyncPoints::Set("Hold", [&](void*) {
    while (!released) std::this_thread::yield();
    first = ++order;
  });
  SyncPoints::Set("Release", [&](void*) {
    second = ++order;
    released = true;
  });
  std::thread held([] { BLOOMROUTE_SYNC_POINT("Hold"); });
  std::thread releaser([] { BLOOMROUTE_SYNC_POINT("Release"); });
  held.join();
  releaser.join();
  EXPECT_EQ(second, 1);
  EXPECT_EQ(first, 2);
}

}  // namespace
}  // namespace bloomroute
