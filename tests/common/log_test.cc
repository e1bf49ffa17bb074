#include "common/log.h"

#include <gtest/gtest.h>

#include <chrono>
#include <regex>
#include <string>

namespace bloomroute {
namespace {

using std::chrono::milliseconds;
using TimePoint = std::chrono::steady_clock::time_point;

class LogRateLimiterTest : public ::testing::Test {
 protected:
  LogRateLimiter::Clock clock() {
    return [this] { return now_; };
  }
  void Advance(milliseconds d) { now_ += d; }

  TimePoint now_{};
};

TEST_F(LogRateLimiterTest, AdmitsOneEventPerKeyAndKindPerInterval) {
  LogRateLimiter limiter({milliseconds(10000), 16}, clock());
  ASSERT_TRUE(limiter.Admit("10.0.0.1:9092", "refused").has_value());
  Advance(milliseconds(100));
  EXPECT_FALSE(limiter.Admit("10.0.0.1:9092", "refused").has_value());
  Advance(milliseconds(9899));
  EXPECT_FALSE(limiter.Admit("10.0.0.1:9092", "refused").has_value());
  // Another peer, or another kind of error, has its own line.
  EXPECT_TRUE(limiter.Admit("10.0.0.2:9092", "refused").has_value());
  EXPECT_TRUE(limiter.Admit("10.0.0.1:9092", "timed out").has_value());
}

TEST_F(LogRateLimiterTest, NextLineAfterTheIntervalCountsTheSuppressed) {
  LogRateLimiter limiter({milliseconds(10000), 16}, clock());
  std::optional<LogRateLimiter::Admitted> first = limiter.Admit("p", "k");
  ASSERT_TRUE(first.has_value());
  EXPECT_EQ(first->suppressed, 0u);
  EXPECT_EQ(SuppressedSuffix(*first), "");
  for (int i = 0; i < 57; ++i) {
    Advance(milliseconds(100));
    EXPECT_FALSE(limiter.Admit("p", "k").has_value());
  }
  Advance(milliseconds(10000 - 5700));
  std::optional<LogRateLimiter::Admitted> next = limiter.Admit("p", "k");
  ASSERT_TRUE(next.has_value());
  EXPECT_EQ(next->suppressed, 57u);
  EXPECT_EQ(next->since, milliseconds(10000));
  EXPECT_EQ(SuppressedSuffix(*next), " (and 57 more like it in the last 10 s)");
  // The count starts again from the line just admitted.
  Advance(milliseconds(10));
  EXPECT_FALSE(limiter.Admit("p", "k").has_value());
  Advance(milliseconds(20000));
  next = limiter.Admit("p", "k");
  ASSERT_TRUE(next.has_value());
  EXPECT_EQ(next->suppressed, 1u);
  EXPECT_EQ(SuppressedSuffix(*next), " (and 1 more like it in the last 20 s)");
}

TEST_F(LogRateLimiterTest, ShortIntervalsAreSaidInMilliseconds) {
  EXPECT_EQ(SuppressedSuffix({3, milliseconds(250)}),
            " (and 3 more like it in the last 250 ms)");
  EXPECT_EQ(SuppressedSuffix({3, milliseconds(9999)}),
            " (and 3 more like it in the last 9999 ms)");
}

TEST_F(LogRateLimiterTest, ForgetsTheOldestPairPastTheCap) {
  LogRateLimiter limiter({milliseconds(10000), 2}, clock());
  ASSERT_TRUE(limiter.Admit("a", "k").has_value());
  Advance(milliseconds(1));
  ASSERT_TRUE(limiter.Admit("b", "k").has_value());
  Advance(milliseconds(1));
  EXPECT_FALSE(limiter.Admit("a", "k").has_value());
  // A third pair evicts "a", admitted longest ago; "b" is still tracked.
  ASSERT_TRUE(limiter.Admit("c", "k").has_value());
  EXPECT_TRUE(limiter.Admit("a", "k").has_value());
  // ... and "a"'s return evicted "b".
  EXPECT_FALSE(limiter.Admit("c", "k").has_value());
  EXPECT_TRUE(limiter.Admit("b", "k").has_value());
}

TEST_F(LogRateLimiterTest, ReadmittedPairBecomesTheYoungest) {
  LogRateLimiter limiter({milliseconds(10), 2}, clock());
  ASSERT_TRUE(limiter.Admit("a", "k").has_value());
  Advance(milliseconds(1));
  ASSERT_TRUE(limiter.Admit("b", "k").has_value());
  Advance(milliseconds(20));
  ASSERT_TRUE(limiter.Admit("a", "k").has_value());  // again: now youngest
  ASSERT_TRUE(limiter.Admit("c", "k").has_value());  // evicts "b"
  EXPECT_FALSE(limiter.Admit("a", "k").has_value());
}

class LogTest : public ::testing::Test {
 protected:
  void TearDown() override { SetMinLogLevel(LogLevel::kInfo); }
};

TEST_F(LogTest, WritesOneLineWithTimeLevelComponentAndMessage) {
  ::testing::internal::CaptureStderr();
  Log(LogLevel::kWarn, "thrift", "peer gone\nreally");
  const std::string err = ::testing::internal::GetCapturedStderr();
  EXPECT_TRUE(std::regex_match(
      err, std::regex(R"(\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z )"
                      R"(WARN thrift: peer gone really\n)")))
      << err;
}

TEST_F(LogTest, DropsLinesBelowTheMinimumLevel) {
  EXPECT_FALSE(LogEnabled(LogLevel::kDebug));  // the default is kInfo
  EXPECT_TRUE(LogEnabled(LogLevel::kInfo));
  SetMinLogLevel(LogLevel::kError);
  ::testing::internal::CaptureStderr();
  Log(LogLevel::kWarn, "thrift", "not shown");
  Log(LogLevel::kError, "thrift", "shown");
  const std::string err = ::testing::internal::GetCapturedStderr();
  EXPECT_EQ(err.find("not shown"), std::string::npos) << err;
  EXPECT_NE(err.find("ERROR thrift: shown"), std::string::npos) << err;
}

}  // namespace
}  // namespace bloomroute
