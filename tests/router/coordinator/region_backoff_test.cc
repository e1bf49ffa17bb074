// RegionBackoff: the balancer's skip list after failed operations.
#include "router/coordinator/region_backoff.h"

#include <gtest/gtest.h>

#include <string>

namespace bloomroute::router_internal {
namespace {

TEST(RegionBackoffTest, EachFailureInARowDoublesTheBackoffUpToTheMost) {
  RegionBackoff backoff;
  EXPECT_EQ(backoff.NoteFailure(7, "no").count(), 60);
  EXPECT_EQ(backoff.NoteFailure(7, "no").count(), 120);
  EXPECT_EQ(backoff.NoteFailure(7, "no").count(), 240);
  for (int i = 0; i < 40; ++i) (void)backoff.NoteFailure(7, "no");
  EXPECT_EQ(backoff.NoteFailure(7, "no"), RegionBackoff::kMost);
  backoff.NoteSuccess(7);
  EXPECT_EQ(backoff.NoteFailure(7, "no"), RegionBackoff::kFirst);
}

TEST(RegionBackoffTest, SkipsFailedRegionsAndForgetsThoseThatAreGone) {
  RegionBackoff backoff;
  (void)backoff.NoteFailure(1, "a");
  (void)backoff.NoteFailure(2, "b");
  EXPECT_EQ(backoff.Skipped({1, 2, 3}), (std::set<uint64_t>{1, 2}));
  EXPECT_EQ(backoff.Skipped({2, 3}), (std::set<uint64_t>{2}));
  // Region 1 was dropped: it starts again from the first backoff.
  EXPECT_EQ(backoff.NoteFailure(1, "a"), RegionBackoff::kFirst);
}

TEST(RegionBackoffTest, DescribesASkippedRegionWithItsReasonCut) {
  RegionBackoff backoff;
  (void)backoff.NoteFailure(5, std::string(5000, 'x'));
  router::RegionSummary skipped;
  skipped.region_id = 5;
  backoff.Describe(&skipped);
  EXPECT_EQ(skipped.balancer_skipped.size(), RegionBackoff::kMaxReasonBytes);
  EXPECT_GT(skipped.balancer_retry_seconds, 0u);
  EXPECT_LE(skipped.balancer_retry_seconds, 60u);
  router::RegionSummary other;
  other.region_id = 6;
  backoff.Describe(&other);
  EXPECT_TRUE(other.balancer_skipped.empty());
  EXPECT_EQ(other.balancer_retry_seconds, 0u);
}

}  // namespace
}  // namespace bloomroute::router_internal
