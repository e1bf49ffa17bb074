#include "thrift/status_conversion.h"

#include <gtest/gtest.h>

#include <string>

#include "thrift/gen-cpp/errors_types.h"

namespace bloomroute {
namespace {

class StatusConversionTest : public ::testing::Test {};

TEST_F(StatusConversionTest, OkThrowsNothing) {
  EXPECT_NO_THROW(ThrowIfError(Status::OK()));
}

// Every code the core uses, with the exception it must become.
TEST_F(StatusConversionTest, EveryCodeMapsToItsException) {
  struct Case {
    Status status;
    bool illegal_argument;
    const char* message;
  };
  const Case cases[] = {
      {Status::InvalidArgument("row key is empty"), true,
       "InvalidArgument: row key is empty"},
      {Status::NotFound("region 7 is not open"), true,
       "NotFound: region 7 is not open"},
      {Status::Corruption("bad checksum"), false, "Corruption: bad checksum"},
      {Status::Unavailable("busy"), false, "Unavailable: busy"},
      {Status::IOError("disk full"), false, "IOError: disk full"},
      {Status::Aborted("fenced"), false, "Aborted: fenced"},
      {Status::PermissionDenied("needs admin"), false,
       "PermissionDenied: needs admin"},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.message);
    EXPECT_EQ(IsIllegalArgumentCode(c.status.code()), c.illegal_argument);
    try {
      ThrowIfError(c.status);
      ADD_FAILURE() << "nothing thrown";
    } catch (const rpc::TIllegalArgument& e) {
      EXPECT_TRUE(c.illegal_argument);
      EXPECT_TRUE(e.__isset.message);
      EXPECT_EQ(e.message, c.message);
    } catch (const rpc::TIOError& e) {
      EXPECT_FALSE(c.illegal_argument);
      EXPECT_TRUE(e.__isset.message);
      EXPECT_EQ(e.message, c.message);
    }
  }
}

// What ThrowIfError sends, StatusFromServerMessage restores exactly.
TEST_F(StatusConversionTest, ServerMessagesRestoreTheStatus) {
  for (const Status& sent :
       {Status::InvalidArgument("row key is empty"),
        Status::NotFound("region 7 is not open"),
        Status::Corruption("bad checksum: x: y"), Status::Unavailable("busy"),
        Status::IOError(""), Status::Aborted("write fenced"),
        Status::PermissionDenied("put needs role write")}) {
    SCOPED_TRACE(sent.ToString());
    std::string message;
    Status::Code fallback = Status::Code::kIOError;
    try {
      ThrowIfError(sent);
    } catch (const rpc::TIllegalArgument& e) {
      message = e.message;
      fallback = Status::Code::kInvalidArgument;
    } catch (const rpc::TIOError& e) {
      message = e.message;
    }
    const Status back = StatusFromServerMessage(message, fallback);
    EXPECT_EQ(back.code(), sent.code());
    EXPECT_EQ(back.message(), sent.message());
  }
}

TEST_F(StatusConversionTest, MessagesWithoutACodeKeepTheFallback) {
  for (const char* message :
       {"region 7 is not open", "", "NotFound:no space", "OK: fine",
        "Unknown: what", "notfound: lower case", "NotFound"}) {
    SCOPED_TRACE(message);
    Status s = StatusFromServerMessage(message, Status::Code::kInvalidArgument);
    EXPECT_TRUE(s.IsInvalidArgument());
    EXPECT_EQ(s.message(), message);
    s = StatusFromServerMessage(message, Status::Code::kIOError);
    EXPECT_TRUE(s.IsIOError());
    EXPECT_EQ(s.message(), message);
  }
  EXPECT_TRUE(StatusFromServerMessage("x", Status::Code::kOk).IsIOError());
}

TEST_F(StatusConversionTest, EmptyMessageStillSetsOne) {
  try {
    ThrowIfError(Status::IOError(""));
    ADD_FAILURE() << "nothing thrown";
  } catch (const rpc::TIOError& e) {
    EXPECT_TRUE(e.__isset.message);
    EXPECT_FALSE(e.message.empty());
  }
}

}  // namespace
}  // namespace bloomroute
