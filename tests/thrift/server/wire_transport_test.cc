// The transports and protocols one port serves (framed and buffered, binary
// strict and not, compact, and HTTP POST), each chosen per connection from
// its first bytes, against a RegionServer (the smallest real service): what
// clients of each kind send, and what no client would (a message trickling
// in a byte at a time, one over the frame limit, garbage, pipelined calls,
// an HTTP body over the limit).
#include "thrift/server/internal/wire_transport.h"

#include <gtest/gtest.h>
#include <thrift/protocol/TBinaryProtocol.h>
#include <thrift/protocol/TCompactProtocol.h>
#include <thrift/transport/TBufferTransports.h>
#include <thrift/transport/THttpClient.h>
#include <thrift/transport/TSocket.h>
#include <unistd.h>

#include <chrono>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "tests/regionstore/region_store_test_util.h"
#include "tests/thrift/raw_wire.h"
#include "tests/thrift/tls_test_util.h"
#include "thrift/gen-cpp/RegionService.h"
#include "thrift/region_server.h"

namespace bloomroute {
namespace {

namespace at = apache::thrift;
using ::bloomroute::testing::Be32;
using ::bloomroute::testing::FieldHeader;
using ::bloomroute::testing::MessageHeader;
using ::bloomroute::testing::RawConnection;
using ::bloomroute::testing::TempDir;
using thrift_internal::DetectTransport;
using thrift_internal::WireTransport;

enum class Wire { kFramed, kBuffered, kHttp };
enum class Encoding { kBinary, kNonStrictBinary, kCompact };

std::shared_ptr<at::protocol::TProtocol> MakeProtocol(
    Encoding encoding, std::shared_ptr<at::transport::TTransport> transport) {
  if (encoding == Encoding::kCompact) {
    return std::make_shared<at::protocol::TCompactProtocol>(transport);
  }
  return std::make_shared<at::protocol::TBinaryProtocol>(
      transport, 0, 0, /*strict_read=*/false,
      /*strict_write=*/encoding == Encoding::kBinary);
}

std::shared_ptr<at::transport::TTransport> MakeTransport(
    Wire wire, std::shared_ptr<at::transport::TSocket> socket) {
  switch (wire) {
    case Wire::kFramed:
      return std::make_shared<at::transport::TFramedTransport>(socket);
    case Wire::kBuffered:
      return std::make_shared<at::transport::TBufferedTransport>(socket);
    case Wire::kHttp:
      break;
  }
  return std::make_shared<at::transport::THttpClient>(socket, "localhost", "/");
}

// A RegionService client of one transport and protocol.
class KindClient {
 public:
  KindClient(int port, Wire wire, Encoding encoding) {
    auto socket = std::make_shared<at::transport::TSocket>("127.0.0.1", port);
    socket->setRecvTimeout(10000);
    transport_ = MakeTransport(wire, socket);
    client_ = std::make_unique<rpc::RegionServiceClient>(
        MakeProtocol(encoding, transport_));
    transport_->open();
  }
  ~KindClient() { transport_->close(); }
  rpc::RegionServiceClient* operator->() { return client_.get(); }

 private:
  std::shared_ptr<at::transport::TTransport> transport_;
  std::unique_ptr<rpc::RegionServiceClient> client_;
};

// The bytes of a listRegions call with `seqid` as a buffered client of
// `encoding` writes them.
std::string ListRegionsCall(Encoding encoding, int32_t seqid) {
  auto buffer = std::make_shared<at::transport::TMemoryBuffer>();
  auto out = MakeProtocol(encoding, buffer);
  out->writeMessageBegin("listRegions", at::protocol::T_CALL, seqid);
  rpc::RegionService_listRegions_pargs args;
  args.write(out.get());
  out->writeMessageEnd();
  return buffer->getBufferAsString();
}

// Reads one reply (any method) from `socket` unframed; its seqid, or -1.
int32_t ReadReplySeqid(at::protocol::TProtocol* in) {
  std::string name;
  at::protocol::TMessageType type;
  int32_t seqid = -1;
  in->readMessageBegin(name, type, seqid);
  in->skip(at::protocol::T_STRUCT);
  in->readMessageEnd();
  return type == at::protocol::T_REPLY ? seqid : -1;
}

// Reads what the server sends until it closes (at most 64 KiB, 10 s).
std::string ReadUntilClosed(int fd) {
  std::string all;
  char buf[4096];
  for (;;) {
    const ssize_t n = recv(fd, buf, sizeof(buf), 0);
    if (n <= 0 || all.size() > (64 << 10)) return all;
    all.append(buf, static_cast<size_t>(n));
  }
}

class WireTransportTest : public ::testing::Test {
 protected:
  void StartServer(uint32_t max_frame_bytes = 64 << 20,
                   const TlsOptions& tls = TlsOptions()) {
    auto store = RegionStore::Open(dir_.path(), RegionStoreOptions());
    ASSERT_TRUE(store.ok()) << store.status().ToString();
    RegionServerOptions options;
    options.port = 0;
    options.threads = 2;
    options.max_frame_bytes = max_frame_bytes;
    options.tls = tls;
    auto server = RegionServer::Start(std::move(store).value(), options);
    ASSERT_TRUE(server.ok()) << server.status().ToString();
    server_ = std::move(server).value();
  }
  int port() const { return server_->port(); }

  TempDir dir_;
  std::unique_ptr<RegionServer> server_;
};

TEST(DetectTransportTest, TellsTransportsApartFromTheirFirstBytes) {
  const uint32_t limit = 1 << 20;
  auto detect = [&](const std::string& bytes) {
    return DetectTransport(reinterpret_cast<const uint8_t*>(bytes.data()),
                           bytes.size(), limit);
  };
  EXPECT_EQ(detect("\x80"), WireTransport::kBuffered);
  EXPECT_EQ(detect("\x82"), WireTransport::kBuffered);
  EXPECT_EQ(detect(Be32(100) + "\x80"), WireTransport::kFramed);
  EXPECT_EQ(detect(Be32(100) + "\x82"), WireTransport::kFramed);
  EXPECT_EQ(detect(Be32(100) + std::string(1, '\0')), WireTransport::kFramed);
  // A method name's length and first letter: non-strict binary, unframed.
  EXPECT_EQ(detect(Be32(11) + "l"), WireTransport::kBuffered);
  EXPECT_EQ(detect(Be32(11) + "_"), WireTransport::kBuffered);
  // Anything else after a length is a frame (perhaps no message).
  EXPECT_EQ(detect(Be32(256) + "l"), WireTransport::kFramed);
  EXPECT_EQ(detect(Be32(11) + "\x01"), WireTransport::kFramed);
  EXPECT_EQ(detect("POST "), WireTransport::kHttp);
  EXPECT_EQ(detect(Be32(100)), WireTransport::kUnknown);  // one byte more
  EXPECT_EQ(detect("POST"), WireTransport::kUnknown);
  EXPECT_EQ(detect(Be32(limit + 1)), WireTransport::kRefused);
  EXPECT_EQ(detect(Be32(0)), WireTransport::kRefused);
  EXPECT_EQ(detect("GET /"), WireTransport::kRefused);
  EXPECT_EQ(detect("POSTX"), WireTransport::kRefused);
}

TEST_F(WireTransportTest, EveryTransportAndProtocolIsServed) {
  StartServer();
  for (Wire wire : {Wire::kFramed, Wire::kBuffered, Wire::kHttp}) {
    for (Encoding encoding :
         {Encoding::kBinary, Encoding::kNonStrictBinary, Encoding::kCompact}) {
      SCOPED_TRACE(static_cast<int>(wire) * 10 + static_cast<int>(encoding));
      KindClient client(port(), wire, encoding);
      std::vector<rpc::TRegionDescriptor> regions;
      // Twice: the connection stays open (HTTP: keep-alive).
      ASSERT_NO_THROW(client->listRegions(regions));
      ASSERT_NO_THROW(client->listRegions(regions));
      EXPECT_TRUE(regions.empty());
    }
  }
}

TEST_F(WireTransportTest, ABufferedCallOneByteAtATimeIsAnswered) {
  StartServer();
  for (Encoding encoding : {Encoding::kBinary, Encoding::kCompact}) {
    RawConnection raw(port());
    ASSERT_TRUE(raw.connected());
    const std::string call = ListRegionsCall(encoding, 7);
    for (char byte : call) {
      ASSERT_TRUE(raw.Send(std::string(1, byte)));
      std::this_thread::sleep_for(std::chrono::milliseconds(2));
    }
    auto socket = std::make_shared<at::transport::TSocket>(dup(raw.fd()));
    auto in = MakeProtocol(
        encoding, std::make_shared<at::transport::TBufferedTransport>(socket));
    EXPECT_EQ(ReadReplySeqid(in.get()), 7);
  }
}

TEST_F(WireTransportTest, PipelinedBufferedCallsAreAnsweredInOrder) {
  StartServer();
  for (Encoding encoding :
       {Encoding::kBinary, Encoding::kNonStrictBinary, Encoding::kCompact}) {
    RawConnection raw(port());
    ASSERT_TRUE(raw.connected());
    std::string calls;
    for (int32_t seqid = 1; seqid <= 5; ++seqid) {
      calls += ListRegionsCall(encoding, seqid);
    }
    ASSERT_TRUE(raw.Send(calls));  // one send: they arrive together
    auto socket = std::make_shared<at::transport::TSocket>(dup(raw.fd()));
    auto in = MakeProtocol(
        encoding, std::make_shared<at::transport::TBufferedTransport>(socket));
    for (int32_t seqid = 1; seqid <= 5; ++seqid) {
      EXPECT_EQ(ReadReplySeqid(in.get()), seqid);
    }
  }
}

TEST_F(WireTransportTest, AnUnframedMessageOverTheLimitClosesUnallocated) {
  StartServer(ServerOptions::kMinFrameBytes);
  {  // a string that claims 1 GiB: refused as soon as its length arrives
    RawConnection raw(port());
    ASSERT_TRUE(raw.Send(MessageHeader("listRegions", 1) +
                         FieldHeader(testing::kTString, 1) + Be32(1u << 30)));
    EXPECT_TRUE(raw.ClosedWithin(5000));
  }
  {  // many small fields: refused once the bytes pass the limit
    RawConnection raw(port());
    std::string call = MessageHeader("listRegions", 1);
    while (call.size() < 2 * ServerOptions::kMinFrameBytes) {
      call += FieldHeader(testing::kTI64, 9) + std::string(8, 'x');
    }
    raw.SendFor(call, 2000);
    EXPECT_TRUE(raw.ClosedWithin(5000));
  }
  const RequestBufferStats stats = server_->request_buffer_stats();
  EXPECT_LE(stats.peak_held_bytes, ServerOptions::kMinFrameBytes);
  // The server still serves.
  KindClient client(port(), Wire::kBuffered, Encoding::kBinary);
  std::vector<rpc::TRegionDescriptor> regions;
  EXPECT_NO_THROW(client->listRegions(regions));
}

TEST_F(WireTransportTest, GarbageOnABufferedConnectionClosesIt) {
  StartServer();
  const std::vector<std::string> garbage = {
      std::string("\x80\x07\x00\x01", 4) + std::string(64, 'z'),  // version
      MessageHeader("listRegions", 1) + std::string("\x07\x00\x01", 3),  // type
      std::string("\x82\xff\xff\xff", 4) + std::string(64, '\xff'),
  };
  for (const std::string& bytes : garbage) {
    RawConnection raw(port());
    ASSERT_TRUE(raw.Send(bytes));
    EXPECT_TRUE(raw.ClosedWithin(5000));
  }
}

TEST_F(WireTransportTest, HttpRequestsTheServerCannotTakeGetAnErrorStatus) {
  StartServer(ServerOptions::kMinFrameBytes);
  const std::vector<std::pair<std::string, std::string>> cases = {
      {"POST / HTTP/1.1\r\nContent-Length: 100000000\r\n\r\n", " 413 "},
      {"POST / HTTP/1.1\r\nHost: x\r\n\r\n", " 411 "},
      {"POST / HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\n", " 411 "},
      {"POST / HTTP/1.1\r\nContent-Length: 12x\r\n\r\n", " 400 "},
      {"POST / HTTP/1.1\r\nX: " + std::string(20000, 'a') + "\r\n\r\n",
       " 431 "},
  };
  for (const auto& [request, status] : cases) {
    RawConnection raw(port());
    raw.SendFor(request, 2000);
    const std::string answer = ReadUntilClosed(raw.fd());
    EXPECT_EQ(answer.rfind("HTTP/1.1" + status, 0), 0u)
        << request.substr(0, 60) << " -> " << answer;
  }
}

// TLS carries every transport, and access control answers in the request's
// protocol: a region server serves a node over HTTP and refuses a reader's
// buffered compact call with an answer it can read.
TEST_F(WireTransportTest, TlsAndAccessControlHoldForEveryTransport) {
  testing::Certs certs;
  StartServer(64 << 20, certs.Node());
  const TlsOptions node = certs.Node();
  {
    testing::RawTlsClient client(port(), node.ca_file, &node);
    ASSERT_TRUE(client.ok());
    const std::string body = ListRegionsCall(Encoding::kBinary, 4);
    ASSERT_TRUE(
        client.Send("POST / HTTP/1.1\r\nConnection: close\r\n"
                    "Content-Length: " +
                    std::to_string(body.size()) + "\r\n\r\n" + body));
    bool closed = false;
    const std::string answer = client.ReadUntilClosed(&closed);
    EXPECT_EQ(answer.rfind("HTTP/1.1 200 OK\r\n", 0), 0u) << answer;
    EXPECT_NE(answer.find("application/x-thrift"), std::string::npos);
    EXPECT_TRUE(closed);
  }
  const TlsOptions reader = certs.Client("reader");
  testing::RawTlsClient client(port(), node.ca_file, &reader);
  ASSERT_TRUE(client.ok());
  ASSERT_TRUE(client.Send(ListRegionsCall(Encoding::kCompact, 5)));
  bool closed = false;
  const std::string answer = client.ReadUntilClosed(&closed);
  ASSERT_FALSE(answer.empty());
  EXPECT_EQ(static_cast<uint8_t>(answer[0]), 0x82) << answer;  // compact
  EXPECT_NE(answer.find("needs role node"), std::string::npos) << answer;
}

}  // namespace
}  // namespace bloomroute
