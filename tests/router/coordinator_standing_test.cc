#include "router/internal/coordinator_standing.h"

#include <gtest/gtest.h>

namespace bloomroute::router_internal {
namespace {

TEST(CoordinatorEpochStandingTest, ARefusalDeposesOnceAndOtherErrorsDoNot) {
  CoordinatorStanding standing(6);
  EXPECT_EQ(standing.epoch().value, 6u);
  EXPECT_FALSE(standing.deposed());
  EXPECT_TRUE(standing.CheckCoordinating().ok());

  // A write fence's Aborted, or any other error, is not a refusal.
  const Status fenced = Status::Aborted("fence token 5 is below the fence 9");
  EXPECT_EQ(standing.NoteRefusal(fenced).message(), fenced.message());
  EXPECT_TRUE(
      standing.NoteRefusal(Status::Unavailable("down")).IsUnavailable());
  EXPECT_FALSE(standing.deposed());

  // The refusal, with context as it crosses the router, is returned as it
  // is and deposes the router.
  const Status refused =
      CoordinatorEpochRefused(6, 7).WithContext("region server s:1");
  EXPECT_TRUE(IsCoordinatorEpochRefused(refused));
  EXPECT_EQ(standing.NoteRefusal(refused).message(), refused.message());
  EXPECT_TRUE(standing.deposed());
  const Status check = standing.CheckCoordinating();
  EXPECT_TRUE(check.IsAborted());
  EXPECT_TRUE(IsCoordinatorEpochRefused(check)) << check.ToString();
  EXPECT_NE(check.message().find("no longer coordinates"), std::string::npos);
  EXPECT_NE(check.message().find("epoch 6 is older than 7"), std::string::npos);
}

TEST(CoordinatorEpochStandingTest, RefusalMessageNamesBothEpochs) {
  const Status s = CoordinatorEpochRefused(6, 7);
  EXPECT_TRUE(s.IsAborted());
  EXPECT_EQ(s.message(),
            "coordinator epoch 6 is older than 7: another router coordinates "
            "this cluster now");
  EXPECT_FALSE(IsCoordinatorEpochRefused(Status::Aborted("other")));
  EXPECT_FALSE(IsCoordinatorEpochRefused(
      Status::IOError("coordinator epoch 6 is older than 7: another router "
                      "coordinates this cluster now")));
}

}  // namespace
}  // namespace bloomroute::router_internal
