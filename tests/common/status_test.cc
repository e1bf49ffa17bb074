#include "common/status.h"

#include <gtest/gtest.h>

#include <memory>

#include "common/statusor.h"

namespace bloomroute {
namespace {

TEST(StatusTest, DefaultIsOk) {
  Status s;
  EXPECT_TRUE(s.ok());
  EXPECT_EQ(s.ToString(), "OK");
  EXPECT_FALSE(s.IsRetryable());
}

TEST(StatusTest, CodesAndMessages) {
  EXPECT_TRUE(Status::InvalidArgument("x").IsInvalidArgument());
  EXPECT_TRUE(Status::NotFound("x").IsNotFound());
  EXPECT_TRUE(Status::Corruption("x").IsCorruption());
  EXPECT_TRUE(Status::Unavailable("x").IsUnavailable());
  EXPECT_TRUE(Status::IOError("x").IsIOError());
  EXPECT_TRUE(Status::Aborted("x").IsAborted());
  EXPECT_EQ(Status::Aborted("fenced").ToString(), "Aborted: fenced");
  EXPECT_TRUE(Status::PermissionDenied("x").IsPermissionDenied());
  EXPECT_EQ(Status::PermissionDenied("needs admin").ToString(),
            "PermissionDenied: needs admin");
  EXPECT_EQ(Status::Corruption("bad checksum").ToString(),
            "Corruption: bad checksum");
  EXPECT_EQ(Status::NotFound("t").message(), "t");
}

TEST(StatusTest, OnlyUnavailableIsRetryable) {
  EXPECT_TRUE(Status::Unavailable("down").IsRetryable());
  EXPECT_FALSE(Status::IOError("disk").IsRetryable());
  EXPECT_FALSE(Status::InvalidArgument("x").IsRetryable());
  EXPECT_FALSE(Status::Corruption("x").IsRetryable());
  EXPECT_FALSE(Status::Aborted("x").IsRetryable());
  EXPECT_FALSE(Status::PermissionDenied("x").IsRetryable());
}

TEST(StatusTest, WithContextKeepsCode) {
  Status s = Status::IOError("disk full").WithContext("writing filter");
  EXPECT_TRUE(s.IsIOError());
  EXPECT_EQ(s.message(), "writing filter: disk full");
  EXPECT_TRUE(Status::OK().WithContext("ignored").ok());
}

Status FailIfNegative(int v) {
  if (v < 0) return Status::InvalidArgument("negative");
  return Status::OK();
}

Status Chain(int v) {
  BLOOMROUTE_RETURN_IF_ERROR(FailIfNegative(v));
  return Status::NotFound("reached end");
}

TEST(StatusTest, ReturnIfErrorStopsAtFirstFailure) {
  EXPECT_TRUE(Chain(-1).IsInvalidArgument());
  EXPECT_TRUE(Chain(1).IsNotFound());
}

StatusOr<std::unique_ptr<int>> MakeBox(int v) {
  if (v < 0) return Status::InvalidArgument("negative");
  return std::make_unique<int>(v);
}

StatusOr<int> Unbox(int v) {
  BLOOMROUTE_ASSIGN_OR_RETURN(std::unique_ptr<int> box, MakeBox(v));
  return *box + 1;
}

TEST(StatusOrTest, HoldsMoveOnlyValue) {
  auto r = MakeBox(41);
  ASSERT_TRUE(r.ok());
  EXPECT_TRUE(r.status().ok());
  EXPECT_EQ(**r, 41);
  std::unique_ptr<int> owned = std::move(r).value();
  EXPECT_EQ(*owned, 41);
}

TEST(StatusOrTest, AssignOrReturnPropagates) {
  EXPECT_EQ(Unbox(1).value(), 2);
  auto r = Unbox(-1);
  EXPECT_FALSE(r.ok());
  EXPECT_TRUE(r.status().IsInvalidArgument());
}

TEST(StatusOrTest, OkStatusIsNotAValue) {
  StatusOr<int> r(Status::OK());
  EXPECT_FALSE(r.ok());
  EXPECT_TRUE(r.status().IsInvalidArgument());
}

TEST(StatusOrDeathTest, ValueWithoutValueAborts) {
  StatusOr<int> r(Status::NotFound("none"));
  EXPECT_DEATH((void)r.value(), "NotFound: none");
}

}  // namespace
}  // namespace bloomroute
