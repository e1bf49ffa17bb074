#include "thrift/server/internal/tls_handshakes.h"

#include <gtest/gtest.h>

#include <chrono>
#include <condition_variable>
#include <memory>
#include <mutex>

#include "thrift/internal/tls.h"

namespace bloomroute::thrift_internal {
namespace {

// Steps of connections whose handshake deadline has passed: they fail
// without running (so without a TLS session), which is all this test needs
// to see the counting and the hand-over. tls_test.cc covers real
// handshakes through the servers.
class TlsHandshakesTest : public testing::Test {
 protected:
  std::unique_ptr<TlsHandshakes> Make(uint32_t max_steps) {
    return std::make_unique<TlsHandshakes>(
        1, max_steps, /*timeout_ms=*/1000, [this] {
          std::lock_guard<std::mutex> lock(mu_);
          ++done_;
          finished_.notify_all();
        });
  }

  static ConnectionPtr PastItsDeadline() {
    auto c = std::make_shared<Connection>();
    c->state = Connection::State::kHandshaking;
    c->frame_started = Connection::Clock::now() - std::chrono::hours(1);
    return c;
  }

  void WaitForSteps(int n) {
    std::unique_lock<std::mutex> lock(mu_);
    ASSERT_TRUE(finished_.wait_for(lock, std::chrono::seconds(30),
                                   [&] { return done_ >= n; }));
  }

  std::mutex mu_;
  std::condition_variable finished_;
  int done_ = 0;  // guarded by mu_
};

TEST_F(TlsHandshakesTest, StepsAreCountedUntilTheyAreBack) {
  auto handshakes = Make(2);
  EXPECT_FALSE(handshakes->Full());
  EXPECT_EQ(handshakes->Room(), 2u);
  ConnectionPtr a = PastItsDeadline();
  ConnectionPtr b = PastItsDeadline();
  handshakes->Start(a);
  EXPECT_EQ(a->state, Connection::State::kHandshakeRunning);
  EXPECT_EQ(handshakes->Room(), 1u);
  handshakes->Start(b);
  EXPECT_TRUE(handshakes->Full());
  EXPECT_EQ(handshakes->Room(), 0u);
  WaitForSteps(2);
  const std::vector<ConnectionPtr> done = handshakes->TakeDone();
  EXPECT_EQ(done.size(), 2u);
  for (const ConnectionPtr& c : done) {
    EXPECT_EQ(c->state, Connection::State::kHandshaking);
    // Past its deadline: failed without running.
    EXPECT_EQ(c->handshake_step, TlsIo::kFailed);
    EXPECT_FALSE(c->handshake_work);
  }
  EXPECT_EQ(handshakes->Room(), 2u);
}

TEST_F(TlsHandshakesTest, AClosedConnectionIsNoLongerCounted) {
  auto handshakes = Make(1);
  ConnectionPtr c = PastItsDeadline();
  handshakes->Start(c);
  EXPECT_TRUE(handshakes->Full());
  WaitForSteps(1);
  handshakes->Uncount(*c);  // as when it closes
  EXPECT_FALSE(handshakes->Full());
  handshakes->Uncount(*c);  // idempotent
  EXPECT_EQ(handshakes->Room(), 1u);
  EXPECT_EQ(handshakes->TakeDone().size(), 1u);
  EXPECT_EQ(handshakes->Room(), 1u);
}

}  // namespace
}  // namespace bloomroute::thrift_internal
