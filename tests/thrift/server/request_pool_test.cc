#include "thrift/server/internal/request_pool.h"

#include <gtest/gtest.h>
#include <thrift/transport/TBufferTransports.h>

#include <chrono>
#include <condition_variable>
#include <memory>
#include <mutex>
#include <thread>
#include <vector>

namespace bloomroute::thrift_internal {
namespace {

namespace at = apache::thrift;

// A connection whose frame header said `frame_bytes`.
ConnectionPtr WithFrame(uint32_t frame_bytes) {
  auto c = std::make_shared<Connection>();
  c->frame_bytes = frame_bytes;
  c->header_bytes = 4;
  return c;
}

class RequestPoolTest : public testing::Test {
 protected:
  RequestPoolTest() {
    options_.threads = 1;
    options_.max_buffered_request_bytes = 100;
    options_.max_buffered_reply_bytes = 10;
  }

  std::unique_ptr<RequestPool> Make() {
    return std::make_unique<RequestPool>(
        options_,
        [this](Connection& c) {
          std::unique_lock<std::mutex> lock(mu_);
          // A call runs until the test lets it go.
          released_.wait(lock, [&] { return release_; });
          ++runs_;
          c.reply = std::make_shared<at::transport::TMemoryBuffer>();
          return needs_io_thread_;
        },
        [this] {
          std::lock_guard<std::mutex> lock(mu_);
          ++done_;
          finished_.notify_all();
        });
  }

  // Lets the calls run and waits until `n` have finished in all.
  void RunCalls(int n) {
    std::unique_lock<std::mutex> lock(mu_);
    release_ = true;
    released_.notify_all();
    ASSERT_TRUE(finished_.wait_for(lock, std::chrono::seconds(30),
                                   [&] { return done_ >= n; }));
  }

  ServerOptions options_;
  std::mutex mu_;
  std::condition_variable released_;
  std::condition_variable finished_;
  bool release_ = false;  // guarded by mu_
  int runs_ = 0;          // guarded by mu_
  int done_ = 0;          // guarded by mu_
  // What every call says: whether the I/O thread must act on it at once.
  bool needs_io_thread_ = true;  // guarded by mu_
};

TEST_F(RequestPoolTest, FramesAreReservedInTheOrderTheyArrived) {
  auto pool = Make();
  ConnectionPtr first = WithFrame(60);
  ConnectionPtr large = WithFrame(50);
  ConnectionPtr small = WithFrame(10);
  EXPECT_TRUE(pool->Reserve(first));
  EXPECT_EQ(pool->request_stats().reserved_bytes, 60u);
  EXPECT_FALSE(pool->Reserve(large));
  EXPECT_TRUE(large->waiting_for_pool);
  // It would fit, but does not overtake the large frame waiting before it.
  EXPECT_FALSE(pool->Reserve(small));
  EXPECT_EQ(pool->request_stats().pool_waits, 2u);
  pool->GrantWaiting();
  EXPECT_TRUE(small->waiting_for_pool);
  pool->FreeFrame(*first);
  EXPECT_EQ(pool->request_stats().reserved_bytes, 0u);
  pool->GrantWaiting();
  EXPECT_FALSE(large->waiting_for_pool);
  EXPECT_FALSE(small->waiting_for_pool);
  EXPECT_EQ(pool->request_stats().reserved_bytes, 60u);
}

TEST_F(RequestPoolTest, AClosedWaiterIsSkipped) {
  auto pool = Make();
  ConnectionPtr first = WithFrame(100);
  ConnectionPtr gone = WithFrame(100);
  ConnectionPtr next = WithFrame(10);
  ASSERT_TRUE(pool->Reserve(first));
  ASSERT_FALSE(pool->Reserve(gone));
  ASSERT_FALSE(pool->Reserve(next));
  gone->closed = true;
  pool->FreeFrame(*first);
  pool->GrantWaiting();
  EXPECT_FALSE(next->waiting_for_pool);
  EXPECT_EQ(pool->request_stats().reserved_bytes, 10u);
}

TEST_F(RequestPoolTest, AFrameGrowsWithItsBytesNeverPastItsSize) {
  const uint32_t size = 3 * kReadChunkBytes;
  options_.max_buffered_request_bytes = 4 * kReadChunkBytes;
  auto pool = Make();
  ConnectionPtr c = WithFrame(size);
  ASSERT_TRUE(pool->Reserve(c));
  EXPECT_EQ(c->frame.capacity(), kReadChunkBytes);  // its first read's room
  pool->GrowFrame(*c, kReadChunkBytes + 1);
  EXPECT_EQ(c->frame.capacity(), 2 * kReadChunkBytes);  // at most twofold
  pool->GrowFrame(*c, 2 * kReadChunkBytes + 1);
  EXPECT_EQ(c->frame.capacity(), size);  // never past the declared size
  EXPECT_EQ(pool->request_stats().held_bytes, size);
  EXPECT_EQ(pool->request_stats().peak_held_bytes, size);
  pool->FreeFrame(*c);
  EXPECT_EQ(pool->request_stats().held_bytes, 0u);
  EXPECT_EQ(pool->request_stats().reserved_bytes, 0u);
  EXPECT_EQ(pool->request_stats().peak_held_bytes, size);
}

TEST_F(RequestPoolTest, AtMostThreadsCallsRunAndTheyComeBackInOrder) {
  auto pool = Make();
  ConnectionPtr a = WithFrame(10);
  ConnectionPtr b = WithFrame(10);
  pool->Enqueue(a);
  pool->Enqueue(b);
  EXPECT_EQ(a->state, Connection::State::kRunning);
  EXPECT_EQ(a->header_bytes, 0u);
  EXPECT_TRUE(b->waiting_for_call);  // the one worker is busy
  EXPECT_EQ(pool->queued_calls(), 1u);
  RunCalls(1);
  std::vector<ConnectionPtr> finished = pool->TakeFinished();
  ASSERT_EQ(finished.size(), 1u);
  EXPECT_EQ(finished[0], a);
  EXPECT_NE(a->reply, nullptr);
  pool->StartCalls();
  EXPECT_EQ(pool->queued_calls(), 0u);
  RunCalls(2);
  EXPECT_EQ(pool->TakeFinished(), std::vector<ConnectionPtr>{b});
}

TEST_F(RequestPoolTest, CallsThatNeedNothingWakeTheIoThreadOnlyWhenAsked) {
  auto pool = Make();
  {
    std::lock_guard<std::mutex> lock(mu_);
    needs_io_thread_ = false;
    release_ = true;
    released_.notify_all();
  }
  EXPECT_FALSE(pool->ArmWakeUps(false));
  ConnectionPtr alone = WithFrame(10);
  pool->Enqueue(alone);
  // Finished without a wake-up: ArmWakeUps says so before the I/O thread
  // would sleep.
  const auto end = std::chrono::steady_clock::now() + std::chrono::seconds(30);
  while (!pool->ArmWakeUps(false) && std::chrono::steady_clock::now() < end) {
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
  }
  EXPECT_EQ(pool->TakeFinished(), std::vector<ConnectionPtr>{alone});
  {
    std::lock_guard<std::mutex> lock(mu_);
    EXPECT_EQ(done_, 0);
    release_ = false;
  }
  // A frame waiting for the one worker: the call before it wakes the I/O
  // thread, which must start it.
  ConnectionPtr first = WithFrame(10);
  ConnectionPtr second = WithFrame(10);
  pool->Enqueue(first);
  pool->Enqueue(second);
  EXPECT_FALSE(pool->ArmWakeUps(false));
  RunCalls(1);
  EXPECT_EQ(pool->TakeFinished(), std::vector<ConnectionPtr>{first});
  {
    std::lock_guard<std::mutex> lock(mu_);
    release_ = false;  // the second runs once the wake-up is asked for
  }
  pool->StartCalls();
  // Asked by the I/O thread itself (a connection's bytes came while its
  // call ran).
  EXPECT_FALSE(pool->ArmWakeUps(true));
  RunCalls(2);
  EXPECT_EQ(pool->TakeFinished(), std::vector<ConnectionPtr>{second});
}

TEST_F(RequestPoolTest, RepliesOverTheBoundHoldNewCallsBack) {
  auto pool = Make();
  ConnectionPtr writing = WithFrame(10);
  writing->reply = std::make_shared<at::transport::TMemoryBuffer>(64);
  pool->HoldReply(*writing);
  EXPECT_EQ(pool->reply_stats().held_bytes, 64u);
  EXPECT_EQ(pool->reply_stats().largest_reply_bytes, 64u);
  ConnectionPtr waiting = WithFrame(10);
  pool->Enqueue(waiting);
  EXPECT_TRUE(waiting->waiting_for_call);
  EXPECT_EQ(pool->reply_stats().waits, 1u);
  pool->ReleaseReply(*writing);
  EXPECT_EQ(writing->reply, nullptr);
  EXPECT_EQ(pool->reply_stats().held_bytes, 0u);
  EXPECT_EQ(pool->reply_stats().peak_held_bytes, 64u);
  pool->StartCalls();
  EXPECT_FALSE(waiting->waiting_for_call);
  EXPECT_EQ(waiting->state, Connection::State::kRunning);
  RunCalls(1);
}

TEST_F(RequestPoolTest, StopDropsTheCallsNotStarted) {
  auto pool = Make();
  ConnectionPtr running = WithFrame(10);
  ConnectionPtr queued = WithFrame(10);
  pool->Enqueue(running);
  pool->Enqueue(queued);
  {
    std::lock_guard<std::mutex> lock(mu_);
    release_ = true;
    released_.notify_all();
  }
  pool->Stop();  // lets the running call finish
  std::lock_guard<std::mutex> lock(mu_);
  EXPECT_LE(runs_, 1);
  EXPECT_EQ(pool->queued_calls(), 0u);
}

}  // namespace
}  // namespace bloomroute::thrift_internal
