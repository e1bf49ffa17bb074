// RouterList: the order in which a call tries the routers, the backoff of a
// router that failed, and which failures move a call on, with scripted
// attempts (no network).
#include "thrift/internal/router_list.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <chrono>
#include <map>
#include <string>
#include <thread>
#include <vector>

namespace bloomroute::thrift_internal {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;

class RouterListPolicyTest : public ::testing::Test {
 protected:
  // A list starting at `start`, with a backoff of 100 to 200 ms.
  static RouterListOptions Options(int start) {
    RouterListOptions options;
    options.start = start;
    options.min_backoff_ms = 100;
    options.max_backoff_ms = 200;
    return options;
  }

  // Runs `method` where router i fails as `outcome[i]` says (absent: OK),
  // recording the routers tried.
  Status Run(RouterList& list, const Resend& resend,
             const std::map<size_t, std::pair<Status, Reach>>& outcome) {
    return list.Run("m", resend, [&](size_t router, Reach* reach) {
      tried_.push_back(router);
      auto it = outcome.find(router);
      if (it == outcome.end()) return Status::OK();
      *reach = it->second.second;
      return it->second.first;
    });
  }

  const Status down_ = Status::Unavailable("down");
  std::vector<size_t> tried_;
};

TEST_F(RouterListPolicyTest, ACallGoesToTheCurrentRouterAndStaysThere) {
  RouterList list({"a", "b", "c"}, Options(4));  // 4 mod 3
  EXPECT_EQ(list.current(), 1u);
  ASSERT_TRUE(Run(list, Resend{}, {}).ok());
  ASSERT_TRUE(Run(list, Resend{}, {}).ok());
  EXPECT_THAT(tried_, ElementsAre(1, 1));
}

TEST_F(RouterListPolicyTest, AFailedRouterIsSkippedForABoundedBackoff) {
  RouterList list({"a", "b", "c"}, Options(1));
  ASSERT_TRUE(Run(list, Resend{}, {{1, {down_, Reach::kNotSent}}}).ok());
  EXPECT_THAT(tried_, ElementsAre(1, 2));
  EXPECT_EQ(list.current(), 2u);
  EXPECT_TRUE(list.InBackoff(1));
  // Every router fails: b, in its backoff, is tried last.
  tried_.clear();
  const Status all = Run(list, Resend{},
                         {{0, {down_, Reach::kNotSent}},
                          {1, {down_, Reach::kNotSent}},
                          {2, {down_, Reach::kSent}}});
  EXPECT_TRUE(all.IsUnavailable());
  EXPECT_THAT(tried_, ElementsAre(2, 0, 1));
  EXPECT_EQ(all.message(),
            "no router answered m (tried c, a, b): down; down; down");
  // b failed twice in a row: 200 ms. Five failures in a row of a: the
  // bound, 200 ms, not 1600.
  for (int i = 0; i < 4; ++i) list.Record(0, down_, Reach::kNotSent);
  EXPECT_TRUE(list.InBackoff(0));
  std::this_thread::sleep_for(std::chrono::milliseconds(300));
  EXPECT_FALSE(list.InBackoff(1));
  EXPECT_FALSE(list.InBackoff(0));
  // An answer clears the backoff at once.
  list.Record(0, Status::OK(), Reach::kAnswered);
  EXPECT_FALSE(list.InBackoff(0));
  EXPECT_EQ(list.current(), 0u);
}

TEST_F(RouterListPolicyTest, ALostReplyOfANonIdempotentCallIsNotResent) {
  RouterList list({"a", "b"}, Options(0));
  const Status s =
      Run(list, Resend{false, "read the row"},
          {{0, {Status::Unavailable("router a: m: reset"), Reach::kSent}}});
  EXPECT_THAT(tried_, ElementsAre(0));
  EXPECT_EQ(s.message(),
            "router a: m: the connection was lost after the request was "
            "sent; it may have been applied: read the row before retrying "
            "(reset)");
  // Never sent: the next router may have it, idempotent or not.
  tried_.clear();
  RouterList other({"a", "b"}, Options(0));
  EXPECT_TRUE(
      Run(other, Resend{false, "read the row"}, {{0, {down_, Reach::kNotSent}}})
          .ok());
  EXPECT_THAT(tried_, ElementsAre(0, 1));
}

TEST_F(RouterListPolicyTest, AnAnswerOrAnotherFailureIsNotSentElsewhere) {
  RouterList list({"a", "b"}, Options(0));
  // A region server behind the router did not answer: the router's word.
  EXPECT_TRUE(
      Run(list, Resend{}, {{0, {down_, Reach::kAnswered}}}).IsUnavailable());
  EXPECT_FALSE(list.InBackoff(0));
  EXPECT_TRUE(Run(list, Resend{},
                  {{0, {Status::PermissionDenied("TLS"), Reach::kNotSent}}})
                  .IsPermissionDenied());
  EXPECT_THAT(tried_, ElementsAre(0, 0));
}

TEST_F(RouterListPolicyTest, TheOneRouterOfAListOfOneFailsAsItIs) {
  RouterList list({"a"}, Options(RouterListOptions::kRandomStart));
  EXPECT_EQ(list.current(), 0u);
  const Status s = Run(list, Resend{}, {{0, {down_, Reach::kNotSent}}});
  EXPECT_EQ(s.ToString(), down_.ToString());
}

}  // namespace
}  // namespace bloomroute::thrift_internal
