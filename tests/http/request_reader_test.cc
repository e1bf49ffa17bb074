// The HTTP server's request parsing (http/internal/request_reader.h): any
// chunking, pipelining, and each refusal with its status.
#include "http/internal/request_reader.h"

#include <gtest/gtest.h>

#include <string>

namespace bloomroute::http_internal {
namespace {

using State = RequestReader::State;

class RequestReaderTest : public ::testing::Test {
 protected:
  RequestReaderTest() : reader_(RequestLimits{1024, 16}) {}

  // Feeds `bytes` in pieces of `piece` bytes; the last state.
  State FeedInPieces(const std::string& bytes, size_t piece) {
    State state = State::kNeedMore;
    for (size_t at = 0; at < bytes.size(); at += piece) {
      state = reader_.Feed(std::string_view(bytes).substr(at, piece));
    }
    return state;
  }

  RequestReader reader_;
};

constexpr char kGet[] =
    "GET /metrics?name=a&b HTTP/1.1\r\n"
    "Host: localhost\r\n"
    "X-Thing: One\r\n"
    "Authorization: Bearer abc\r\n"
    "\r\n";

TEST_F(RequestReaderTest, ReadsAWholeRequest) {
  EXPECT_FALSE(reader_.started());
  ASSERT_EQ(reader_.Feed(kGet), State::kComplete);
  const HttpRequest& r = reader_.request();
  EXPECT_EQ(r.method, "GET");
  EXPECT_EQ(r.path, "/metrics");
  EXPECT_EQ(r.query, "name=a&b");
  ASSERT_EQ(r.headers.size(), 3u);
  EXPECT_EQ(r.headers[0].first, "host");
  EXPECT_EQ(r.headers[1].first, "x-thing");
  EXPECT_EQ(r.headers[1].second, "One");
  EXPECT_EQ(*r.Header("authorization"), "Bearer abc");
  EXPECT_EQ(r.BearerToken(), "abc");
  EXPECT_TRUE(r.body.empty());
  EXPECT_TRUE(reader_.keep_alive());
}

TEST_F(RequestReaderTest, ReadsARequestByteByByte) {
  const std::string get = kGet;
  ASSERT_EQ(FeedInPieces(get.substr(0, 1), 1), State::kNeedMore);
  EXPECT_TRUE(reader_.started());
  ASSERT_EQ(FeedInPieces(get.substr(1), 1), State::kComplete);
  EXPECT_EQ(reader_.request().path, "/metrics");
  EXPECT_EQ(reader_.request().headers.size(), 3u);
}

TEST_F(RequestReaderTest, KeepsPipelinedRequestsForNext) {
  const std::string two = std::string(kGet) +
                          "HEAD /healthz HTTP/1.1\r\n"
                          "Connection: close\r\n\r\n"
                          "GET /";
  ASSERT_EQ(reader_.Feed(two), State::kComplete);
  EXPECT_EQ(reader_.TakeRequest().path, "/metrics");
  ASSERT_EQ(reader_.Next(), State::kComplete);
  EXPECT_EQ(reader_.request().method, "HEAD");
  EXPECT_EQ(reader_.request().path, "/healthz");
  EXPECT_FALSE(reader_.keep_alive());
  ASSERT_EQ(reader_.Next(), State::kNeedMore);
  EXPECT_TRUE(reader_.started());
  ASSERT_EQ(reader_.Feed(" HTTP/1.1\r\n\r\n"), State::kComplete);
  EXPECT_EQ(reader_.request().path, "/");
  ASSERT_EQ(reader_.Next(), State::kNeedMore);
  EXPECT_FALSE(reader_.started());
}

TEST_F(RequestReaderTest, KeepAliveFollowsTheVersion) {
  ASSERT_EQ(reader_.Feed("GET / HTTP/1.0\r\n\r\n"), State::kComplete);
  EXPECT_FALSE(reader_.keep_alive());
  ASSERT_EQ(reader_.Next(), State::kNeedMore);
  ASSERT_EQ(reader_.Feed("GET / HTTP/1.0\r\nConnection: keep-alive\r\n\r\n"),
            State::kComplete);
  EXPECT_TRUE(reader_.keep_alive());
}

TEST_F(RequestReaderTest, ReadsBodiesWithinTheLimit) {
  ASSERT_EQ(FeedInPieces("GET / HTTP/1.1\r\nContent-Length: 5\r\n\r\nhello", 3),
            State::kComplete);
  EXPECT_EQ(reader_.request().body, "hello");
  ASSERT_EQ(reader_.Next(), State::kNeedMore);
  ASSERT_EQ(FeedInPieces("GET / HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\n"
                         "3\r\nabc\r\n2;ext=1\r\nde\r\n0\r\n\r\n",
                         2),
            State::kComplete);
  EXPECT_EQ(reader_.request().body, "abcde");
}

TEST_F(RequestReaderTest, HeaderOverTheLimitIs431) {
  const std::string big =
      "GET / HTTP/1.1\r\nX-Big: " + std::string(2000, 'a') + "\r\n\r\n";
  ASSERT_EQ(FeedInPieces(big, 100), State::kError);
  EXPECT_EQ(reader_.error_status(), 431);
  EXPECT_STREQ(reader_.error_bound(), "header_bytes");
  EXPECT_EQ(reader_.buffered_bytes(), 0u);
  // Stays refused.
  EXPECT_EQ(reader_.Feed(kGet), State::kError);
  EXPECT_EQ(reader_.Next(), State::kError);
}

TEST_F(RequestReaderTest, ManyHeaderLinesOverTheLimitAre431) {
  std::string many = "GET / HTTP/1.1\r\n";
  for (int i = 0; i < 200; ++i) many += "X-A: b\r\n";
  EXPECT_EQ(FeedInPieces(many + "\r\n", 7), State::kError);
  EXPECT_EQ(reader_.error_status(), 431);
}

TEST_F(RequestReaderTest, BodyOverTheLimitIs413) {
  EXPECT_EQ(reader_.Feed("GET / HTTP/1.1\r\nContent-Length: 17\r\n\r\n"),
            State::kError);
  EXPECT_EQ(reader_.error_status(), 413);
  EXPECT_STREQ(reader_.error_bound(), "body_bytes");
}

TEST_F(RequestReaderTest, ChunkedBodyOverTheLimitIs413) {
  EXPECT_EQ(FeedInPieces("GET / HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\n"
                         "a\r\n0123456789\r\na\r\n0123456789\r\n0\r\n\r\n",
                         5),
            State::kError);
  EXPECT_EQ(reader_.error_status(), 413);
}

TEST_F(RequestReaderTest, EndlessChunkLineIsRefusedWithBoundedMemory) {
  ASSERT_EQ(reader_.Feed("GET / HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\n"
                         "1;x="),
            State::kNeedMore);
  State state = State::kNeedMore;
  for (int i = 0; i < 100 && state == State::kNeedMore; ++i) {
    state = reader_.Feed(std::string(100, 'a'));
    EXPECT_LE(reader_.buffered_bytes(), 1024u + 100u);
  }
  EXPECT_EQ(state, State::kError);
  EXPECT_EQ(reader_.error_status(), 400);
}

TEST_F(RequestReaderTest, OtherMethodsAre405) {
  EXPECT_EQ(reader_.Feed("POST / HTTP/1.1\r\nContent-Length: 3\r\n\r\n"),
            State::kError);
  EXPECT_EQ(reader_.error_status(), 405);
  EXPECT_EQ(reader_.error_bound(), nullptr);
}

TEST_F(RequestReaderTest, OtherVersionsAre505) {
  EXPECT_EQ(reader_.Feed("GET / HTTP/2.0\r\n\r\n"), State::kError);
  EXPECT_EQ(reader_.error_status(), 505);
}

TEST_F(RequestReaderTest, MalformedRequestsAre400) {
  const std::string malformed[] = {
      "GARBAGE\r\n\r\n",
      "GET * HTTP/1.1\r\n\r\n",
      "GET / HTTP/1.1\r\nNo colon\r\n\r\n",
      "GET / HTTP/1.1\r\nContent-Length: x\r\n\r\n",
      "GET / HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n",
      std::string("GET /\0 HTTP/1.1\r\n\r\n", 19)};
  for (const std::string& bad : malformed) {
    RequestReader reader(RequestLimits{1024, 16});
    EXPECT_EQ(reader.Feed(bad), State::kError) << bad;
    EXPECT_EQ(reader.error_status(), 400) << bad;
    EXPECT_STREQ(reader.error_bound(), "malformed");
    EXPECT_FALSE(reader.error_message().empty());
  }
}

}  // namespace
}  // namespace bloomroute::http_internal
