// The bytes of a reply (http/internal/reply.h).
#include "http/internal/reply.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <string>

namespace bloomroute::http_internal {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;

class SerializeReplyTest : public ::testing::Test {
 protected:
  static HttpResponse Hello() {
    HttpResponse r;
    r.status = 200;
    r.content_type = "text/plain; charset=utf-8";
    r.body = "hello";
    return r;
  }
};

TEST_F(SerializeReplyTest, StatusLineFieldsAndBody) {
  HttpResponse r = Hello();
  r.headers = {{"Cache-Control", "no-store"}};
  EXPECT_EQ(SerializeReply(r, /*head=*/false, /*keep_alive=*/true),
            "HTTP/1.1 200 OK\r\n"
            "Content-Type: text/plain; charset=utf-8\r\n"
            "Content-Length: 5\r\n"
            "Connection: keep-alive\r\n"
            "Cache-Control: no-store\r\n"
            "\r\n"
            "hello");
}

TEST_F(SerializeReplyTest, HeadHasTheLengthButNoBody) {
  const std::string head = SerializeReply(Hello(), true, false);
  EXPECT_THAT(head, HasSubstr("Content-Length: 5\r\n"));
  EXPECT_THAT(head, HasSubstr("Connection: close\r\n"));
  EXPECT_EQ(head.substr(head.size() - 4), "\r\n\r\n");
}

TEST_F(SerializeReplyTest, HandlerFieldsCannotInjectOrOverride) {
  HttpResponse r = Hello();
  r.headers = {{"X-Bad", "a\r\nSet-Cookie: x=1"}, {"Bad Name", "v"},
               {"content-length", "99"},          {"Connection", "keep-alive"},
               {"X-Nul", std::string("a\0b", 3)}, {"X-Good", "ok\tfine"}};
  const std::string out = SerializeReply(r, false, false);
  EXPECT_THAT(out, Not(HasSubstr("Set-Cookie")));
  EXPECT_THAT(out, Not(HasSubstr("Bad Name")));
  EXPECT_THAT(out, Not(HasSubstr("99")));
  EXPECT_THAT(out, Not(HasSubstr("keep-alive")));
  EXPECT_THAT(out, Not(HasSubstr("X-Nul")));
  EXPECT_THAT(out, HasSubstr("X-Good: ok\tfine\r\n"));
}

TEST_F(SerializeReplyTest, NoContentHasNoLengthNorBody) {
  HttpResponse r = Hello();
  r.status = 204;
  const std::string out = SerializeReply(r, false, true);
  EXPECT_THAT(out, HasSubstr("HTTP/1.1 204 No Content\r\n"));
  EXPECT_THAT(out, Not(HasSubstr("Content-Length")));
  EXPECT_EQ(out.substr(out.size() - 4), "\r\n\r\n");
}

TEST_F(SerializeReplyTest, UnknownStatusGetsAReason) {
  HttpResponse r = Hello();
  r.status = 299;
  EXPECT_THAT(SerializeReply(r, false, true), HasSubstr("HTTP/1.1 299 "));
}

TEST_F(SerializeReplyTest, SendableStatuses) {
  EXPECT_TRUE(IsSendableStatus(200));
  EXPECT_TRUE(IsSendableStatus(599));
  EXPECT_FALSE(IsSendableStatus(100));
  EXPECT_FALSE(IsSendableStatus(0));
  EXPECT_FALSE(IsSendableStatus(600));
}

TEST_F(SerializeReplyTest, ErrorReplies) {
  const HttpResponse r = ErrorReply(405, "method POST not allowed");
  EXPECT_EQ(r.status, 405);
  EXPECT_EQ(r.body, "method POST not allowed\n");
  ASSERT_EQ(r.headers.size(), 1u);
  EXPECT_EQ(r.headers[0].first, "Allow");
  EXPECT_EQ(r.headers[0].second, "GET, HEAD");
  EXPECT_TRUE(ErrorReply(400, "bad").headers.empty());
}

}  // namespace
}  // namespace bloomroute::http_internal
