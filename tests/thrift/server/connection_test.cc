#include "thrift/server/internal/connection.h"

#include <gtest/gtest.h>
#include <poll.h>
#include <sys/socket.h>
#include <thrift/transport/TBufferTransports.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <memory>
#include <string>

namespace bloomroute::thrift_internal {
namespace {

namespace at = apache::thrift;
using Clock = Connection::Clock;
using std::chrono::milliseconds;
using ReadResult = Connection::ReadResult;

// A plaintext connection over one end of a socket pair; the test is the
// client at the other end.
class ConnectionTest : public testing::Test {
 protected:
  void SetUp() override {
    int fds[2];
    ASSERT_EQ(socketpair(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK, 0, fds), 0);
    connection_.fd = fds[0];
    connection_.transport = WireTransport::kFramed;
    client_ = fds[1];
  }
  void TearDown() override {
    close(connection_.fd);
    if (client_ >= 0) close(client_);
  }

  void Send(const std::string& bytes) {
    ASSERT_EQ(write(client_, bytes.data(), bytes.size()),
              static_cast<ssize_t>(bytes.size()));
  }
  static std::string Length(uint32_t n) {
    return std::string{static_cast<char>(n >> 24), static_cast<char>(n >> 16),
                       static_cast<char>(n >> 8), static_cast<char>(n)};
  }

  Connection connection_;
  int client_ = -1;
};

TEST_F(ConnectionTest, AFrameIsReadAsItsBytesArrive) {
  Connection& c = connection_;
  EXPECT_EQ(c.ReadHeader(100), ReadResult::kBlocked);
  Send(Length(5).substr(0, 2));
  const Clock::time_point before = Clock::now();
  EXPECT_EQ(c.ReadHeader(100), ReadResult::kMore);
  EXPECT_GE(c.frame_started, before);  // its first byte starts the clock
  EXPECT_EQ(c.ReadHeader(100), ReadResult::kBlocked);
  Send(Length(5).substr(2));
  EXPECT_EQ(c.ReadHeader(100), ReadResult::kWhole);
  EXPECT_EQ(c.frame_bytes, 5u);
  EXPECT_EQ(c.BodyBytesWanted(), 5u);
  c.frame.reserve(5);  // the request pool's part
  Send("abc");
  EXPECT_EQ(c.ReadBody(), ReadResult::kMore);
  EXPECT_EQ(c.ReadBody(), ReadResult::kBlocked);
  EXPECT_EQ(c.frame.size(), 3u);
  EXPECT_EQ(c.BodyBytesWanted(), 2u);
  Send("de");
  EXPECT_EQ(c.ReadBody(), ReadResult::kWhole);
  EXPECT_EQ(std::string(c.frame.begin(), c.frame.end()), "abcde");
}

TEST_F(ConnectionTest, ALengthOfNothingOrOverTheLimitIsRefused) {
  Send(Length(0));
  EXPECT_EQ(connection_.ReadHeader(100), ReadResult::kRefused);
  connection_.header_bytes = 0;
  Send(Length(101));
  EXPECT_EQ(connection_.ReadHeader(100), ReadResult::kRefused);
  EXPECT_TRUE(connection_.frame.empty());  // nothing allocated for it
}

TEST_F(ConnectionTest, TheEndOfTheStreamEndsTheConnection) {
  close(client_);
  client_ = -1;
  EXPECT_EQ(connection_.ReadHeader(100), ReadResult::kEnded);
}

TEST_F(ConnectionTest, ABodyIsReadAChunkAtATime) {
  connection_.frame_bytes = 3 * kReadChunkBytes;
  EXPECT_EQ(connection_.BodyBytesWanted(), kReadChunkBytes);
}

TEST_F(ConnectionTest, AReplyGoesOutWithItsLength) {
  Connection& c = connection_;
  c.reply = std::make_shared<at::transport::TMemoryBuffer>();
  const uint8_t room[4] = {};
  c.reply->write(room, sizeof(room));
  c.reply->write(reinterpret_cast<const uint8_t*>("xyz"), 3);
  ASSERT_TRUE(c.SealReply());
  EXPECT_EQ(c.state, Connection::State::kWriting);
  EXPECT_EQ(c.WriteReply(), Connection::WriteResult::kDone);
  char got[16] = {};
  ASSERT_EQ(read(client_, got, sizeof(got)), 7);
  EXPECT_EQ(std::string(got, 7), Length(3) + "xyz");
}

TEST_F(ConnectionTest, AOnewayCallHasNoReplyToSend) {
  Connection& c = connection_;
  c.reply = std::make_shared<at::transport::TMemoryBuffer>();
  const uint8_t room[4] = {};
  c.reply->write(room, sizeof(room));
  EXPECT_FALSE(c.SealReply());
  EXPECT_EQ(c.state, Connection::State::kReading);
}

TEST_F(ConnectionTest, AReplyToAClientThatWentAwayEnds) {
  Connection& c = connection_;
  close(client_);
  client_ = -1;
  c.reply = std::make_shared<at::transport::TMemoryBuffer>();
  c.reply->write(reinterpret_cast<const uint8_t*>("0000abc"), 7);
  ASSERT_TRUE(c.SealReply());
  EXPECT_EQ(c.WriteReply(), Connection::WriteResult::kEnded);
}

TEST_F(ConnectionTest, DeadlinesFollowTheState) {
  ServerOptions options;
  options.idle_timeout_ms = 5000;
  options.request_timeout_ms = 2000;
  options.reply_timeout_ms = 3000;
  Connection& c = connection_;
  c.idle_since = c.frame_started = c.reply_started = Clock::now();
  EXPECT_EQ(c.Deadline(options, false), c.idle_since + milliseconds(5000));
  EXPECT_STREQ(c.DeadlineName(), "idle_timeout");
  // Who may call nothing has a request's time to authenticate.
  EXPECT_EQ(c.Deadline(options, true), c.idle_since + milliseconds(2000));
  c.request_begun = true;  // a request's first byte was read
  EXPECT_EQ(c.Deadline(options, false), c.frame_started + milliseconds(2000));
  EXPECT_STREQ(c.DeadlineName(), "request_timeout");
  c.state = Connection::State::kWriting;
  EXPECT_EQ(c.Deadline(options, false), c.reply_started + milliseconds(3000));
  EXPECT_STREQ(c.DeadlineName(), "reply_timeout");
  c.state = Connection::State::kHandshaking;
  EXPECT_EQ(c.Deadline(options, false), c.frame_started + milliseconds(2000));
  EXPECT_STREQ(c.DeadlineName(), "handshake_timeout");
  c.state = Connection::State::kRunning;  // the handler bounds a call
  EXPECT_EQ(c.Deadline(options, false), Clock::time_point::max());
}

TEST_F(ConnectionTest, PollEventsFollowTheState) {
  Connection& c = connection_;
  EXPECT_EQ(c.PollEvents(), POLLIN);
  c.state = Connection::State::kWriting;
  EXPECT_EQ(c.PollEvents(), POLLOUT);
  c.tls_wants = POLLIN;  // TLS's step decides
  EXPECT_EQ(c.PollEvents(), POLLIN);
  c.waiting_for_call = true;  // not read while it waits
  EXPECT_EQ(c.PollEvents(), 0);
  EXPECT_FALSE(c.HasBufferedBytes());  // no TLS
}

// A non-strict binary call of `method` with no arguments (name length,
// name, type, seqid, stop): unframed, it is its own length.
std::string NonStrictCall(const std::string& method) {
  return std::string{0, 0, 0, static_cast<char>(method.size())} + method +
         std::string("\x01\0\0\0\x07\0", 6);
}

TEST_F(ConnectionTest, TheFirstBytesChooseTheTransportAndAreKept) {
  Connection& c = connection_;
  c.transport = WireTransport::kUnknown;
  Send("POS");
  EXPECT_EQ(c.ReadProbe(100), ReadResult::kMore);
  EXPECT_EQ(c.transport, WireTransport::kUnknown);
  EXPECT_TRUE(c.request_begun);  // the first byte starts the clock
  Send("T / HTTP/1.1\r\nContent-Length: 4\r\n\r\nbody");
  EXPECT_EQ(c.ReadProbe(100), ReadResult::kWhole);
  EXPECT_EQ(c.transport, WireTransport::kHttp);
  EXPECT_TRUE(c.HasBufferedBytes());  // "POST " waits in the carry
  EXPECT_EQ(c.ReadHttpHead(100), ReadResult::kMore);   // the carry's bytes
  EXPECT_EQ(c.ReadHttpHead(100), ReadResult::kWhole);  // then the socket's
  EXPECT_EQ(c.frame_bytes, 4u);
  c.frame.reserve(4);
  EXPECT_EQ(c.ReadBody(), ReadResult::kWhole);
  EXPECT_EQ(std::string(c.frame.begin(), c.frame.end()), "body");
}

TEST_F(ConnectionTest, WhatFollowsAnUnframedMessageIsTheNextOnes) {
  Connection& c = connection_;
  c.transport = WireTransport::kBuffered;
  const std::string first = NonStrictCall("ping"),
                    second = NonStrictCall("pong");
  Send(first + second);
  for (const std::string& message : {first, second}) {
    const size_t want = c.UnframedBytesWanted(1000);
    EXPECT_EQ(want, 1000u);  // at least the read-ahead, within the limit
    c.frame.reserve(want);
    EXPECT_EQ(c.ReadUnframed(want), ReadResult::kWhole);
    EXPECT_EQ(std::string(c.frame.begin(), c.frame.end()), message);
    c.frame.clear();
    c.NextRequest();
  }
  EXPECT_FALSE(c.HasBufferedBytes());
  EXPECT_EQ(c.UnframedBytesWanted(0), 0u);  // over any limit: refuse
}

TEST_F(ConnectionTest, RepliesAreFramedAsTheirRequests) {
  Connection& c = connection_;
  auto reply = [&](size_t prefix) {
    c.reply = std::make_shared<at::transport::TMemoryBuffer>();
    const std::string room(prefix, '\0');
    c.reply->write(reinterpret_cast<const uint8_t*>(room.data()),
                   static_cast<uint32_t>(room.size()));
    c.reply->write(reinterpret_cast<const uint8_t*>("xyz"), 3);
    EXPECT_TRUE(c.SealReply());
    EXPECT_EQ(c.WriteReply(), Connection::WriteResult::kDone);
    char got[256] = {};
    const ssize_t n = read(client_, got, sizeof(got));
    return std::string(got, static_cast<size_t>(std::max<ssize_t>(n, 0)));
  };
  c.transport = WireTransport::kBuffered;
  EXPECT_EQ(reply(c.ReplyPrefixBytes()), "xyz");
  c.transport = WireTransport::kHttp;
  EXPECT_EQ(reply(c.ReplyPrefixBytes()),
            "HTTP/1.1 200 OK\r\nContent-Type: application/x-thrift\r\n"
            "Content-Length: 3\r\n\r\nxyz");
  EXPECT_FALSE(c.close_after_reply);
}

TEST_F(ConnectionTest, WhatArrivedIsDrained) {
  Send(std::string(1000, 'x'));
  DrainArrived(connection_.fd);
  char byte = 0;
  EXPECT_EQ(recv(connection_.fd, &byte, 1, MSG_DONTWAIT), -1);
  EXPECT_EQ(errno, EAGAIN);
  EXPECT_EQ(connection_.PeerAddress(), "?");  // no TSocket
}

TEST(PrincipalConnectionsTest, APrincipalPastItsBoundIsMarked) {
  PrincipalConnections principals;
  Connection a, b, anonymous;
  a.identity = b.identity = Identity{"alice", Role::kRead};
  principals.Count(a, 1);
  EXPECT_EQ(a.principal, "alice");
  EXPECT_FALSE(a.over_principal_limit);
  principals.Count(b, 1);
  EXPECT_TRUE(b.over_principal_limit);
  principals.Count(anonymous, 1);  // no identity: not counted
  EXPECT_EQ(anonymous.principal, "");
  principals.Uncount(a);
  principals.Count(b, 1);
  EXPECT_FALSE(b.over_principal_limit);
  EXPECT_EQ(b.principal, "alice");
}

}  // namespace
}  // namespace bloomroute::thrift_internal
