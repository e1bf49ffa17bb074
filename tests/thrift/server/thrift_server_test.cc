// ThriftServer under slow and hostile clients: partial frames trickling in,
// replies nobody reads, Stop() while they hang on. A RegionServer (the
// smallest real service) stands in for every ThriftServer.
#include "thrift/server/thrift_server.h"

#include <gtest/gtest.h>
#include <thrift/transport/TSocket.h>

#include <atomic>
#include <chrono>
#include <future>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "common/sync_point.h"
#include "tests/regionstore/region_store_test_util.h"
#include "tests/thrift/raw_wire.h"
#include "tests/thrift/region_client_util.h"
#include "thrift/region_server.h"

namespace bloomroute {
namespace {

using ::bloomroute::testing::Framed;
using ::bloomroute::testing::FrameHeader;
using ::bloomroute::testing::Get;
using ::bloomroute::testing::MessageHeader;
using ::bloomroute::testing::Put;
using ::bloomroute::testing::RawConnection;
using ::bloomroute::testing::ReadExactly;
using ::bloomroute::testing::RegionClient;
using ::bloomroute::testing::TempDir;
using ::bloomroute::testing::WirePlacesRegion;
using Clock = std::chrono::steady_clock;

double SecondsSince(Clock::time_point start) {
  return std::chrono::duration<double>(Clock::now() - start).count();
}

// Sends a byte to each connection every `period_ms` from a thread of its own
// until destroyed: connections whose request never completes.
class Trickler {
 public:
  Trickler(std::vector<RawConnection*> connections, int period_ms)
      : thread_([this, connections, period_ms] {
          while (!stop_) {
            for (RawConnection* c : connections) c->Send("x");
            std::this_thread::sleep_for(std::chrono::milliseconds(period_ms));
          }
        }) {}
  ~Trickler() {
    stop_ = true;
    thread_.join();
  }

 private:
  std::atomic<bool> stop_{false};
  std::thread thread_;
};

// Row "big" (6 KB) in region 1: 1000 gets of it make a 6 MB reply, more
// than the loopback socket buffers hold together.
void PutBigRow(int port) {
  RegionClient setup(port);
  setup->openRegion(WirePlacesRegion(1, "", ""), 0, false, 0);
  rpc::TWriteResult written;
  const std::string value(3000, 'v');
  setup->mutateRows(written, {Put(1, "big", {{"d:a", value}, {"d:b", value}})},
                    0);
}

class ThriftServerTest : public ::testing::Test {
 protected:
  // Small limits, so that the scenarios run in seconds.
  static RegionServerOptions SmallOptions() {
    RegionServerOptions options;
    options.port = 0;
    options.threads = 2;
    options.idle_timeout_ms = 60000;  // never the reason a test passes
    return options;
  }

  void StartServer(const RegionServerOptions& options) {
    RegionStoreOptions store_options;
    store_options.max_value_bytes = 4000;
    store_options.max_row_bytes = 20000;
    auto store = RegionStore::Open(dir_.path(), store_options);
    ASSERT_TRUE(store.ok()) << store.status().ToString();
    auto server = RegionServer::Start(std::move(store).value(), options);
    ASSERT_TRUE(server.ok()) << server.status().ToString();
    server_ = std::move(server).value();
  }

  // True when a fresh client's call is answered within `wait_ms`.
  bool AnsweredWithin(int wait_ms) {
    try {
      RegionClient client(server_->port(), wait_ms);
      std::vector<rpc::TRegionDescriptor> regions;
      client->listRegions(regions);
      return true;
    } catch (const std::exception& e) {
      ADD_FAILURE() << "listRegions: " << e.what();
      return false;
    }
  }

  // The server's request buffers once no frame is held or reserved (the I/O
  // thread frees a closed connection's frame just after closing it), or
  // after `wait_ms` as they are.
  RequestBufferStats PoolWhenEmpty(int wait_ms) {
    const Clock::time_point end =
        Clock::now() + std::chrono::milliseconds(wait_ms);
    RequestBufferStats stats = server_->request_buffer_stats();
    while ((stats.held_bytes != 0 || stats.reserved_bytes != 0) &&
           Clock::now() < end) {
      std::this_thread::sleep_for(std::chrono::milliseconds(10));
      stats = server_->request_buffer_stats();
    }
    return stats;
  }

  TempDir dir_;
  std::unique_ptr<RegionServer> server_;
};

TEST_F(ThriftServerTest, SlowPartialRequestsDoNotHoldTheWorkers) {
  RegionServerOptions options = SmallOptions();
  StartServer(options);
  // threads + 1 connections, each a request that trickles in a byte at a
  // time (as slowloris does, only faster).
  std::vector<std::unique_ptr<RawConnection>> slow;
  std::vector<RawConnection*> raw;
  for (uint32_t i = 0; i <= options.threads; ++i) {
    slow.push_back(std::make_unique<RawConnection>(server_->port()));
    ASSERT_TRUE(slow.back()->connected());
    ASSERT_TRUE(slow.back()->Send(FrameHeader(1000) + "\x80"));
    raw.push_back(slow.back().get());
  }
  Trickler trickler(raw, /*period_ms=*/100);
  std::this_thread::sleep_for(std::chrono::milliseconds(200));
  const Clock::time_point start = Clock::now();
  EXPECT_TRUE(AnsweredWithin(3000));
  EXPECT_LT(SecondsSince(start), 2.0);
}

// A client that pipelines calls with large replies and never reads them: its
// socket buffers fill and the server cannot send.
class NeverReadingClient {
 public:
  explicit NeverReadingClient(int port) {
    socket_ =
        std::make_shared<apache::thrift::transport::TSocket>("127.0.0.1", port);
    socket_->setSendTimeout(300);  // stop when the server stops reading
    auto transport =
        std::make_shared<apache::thrift::transport::TFramedTransport>(socket_);
    client_ = std::make_unique<rpc::RegionServiceClient>(
        std::make_shared<apache::thrift::protocol::TBinaryProtocol>(transport));
    transport->open();
  }
  // Sends up to `calls` getMultiple calls of `gets`; returns how many went
  // out before a send blocked.
  int Flood(const std::vector<rpc::TGet>& gets, int calls) {
    for (int i = 0; i < calls; ++i) {
      try {
        client_->send_getMultiple(gets, /*maxBytes=*/0);
      } catch (const std::exception&) {
        return i;
      }
    }
    return calls;
  }
  void Close() { socket_->close(); }

 private:
  std::shared_ptr<apache::thrift::transport::TSocket> socket_;
  std::unique_ptr<rpc::RegionServiceClient> client_;
};

TEST_F(ThriftServerTest, AClientThatNeverReadsNeitherBlocksOthersNorStop) {
  StartServer(SmallOptions());
  PutBigRow(server_->port());
  const std::vector<rpc::TGet> gets(1000, Get(1, "big"));
  NeverReadingClient hog(server_->port());
  const int sent = hog.Flood(gets, 20);
  EXPECT_GE(sent, 2);
  std::this_thread::sleep_for(std::chrono::milliseconds(300));

  EXPECT_TRUE(AnsweredWithin(3000));

  const Clock::time_point start = Clock::now();
  auto stopped = std::async(std::launch::async, [&] { server_->Stop(); });
  const bool returned =
      stopped.wait_for(std::chrono::seconds(5)) == std::future_status::ready;
  EXPECT_TRUE(returned) << "Stop() did not return within 5 s";
  if (!returned) hog.Close();  // unblocks the server, so the test can end
  stopped.wait();
  if (returned) {
    EXPECT_LT(SecondsSince(start), 5.0);
  }
}

TEST_F(ThriftServerTest, AnUnreadReplyClosesItsConnectionAtTheDeadline) {
  RegionServerOptions options = SmallOptions();
  options.reply_timeout_ms = 500;
  options.max_connections = 1;  // the hog holds the only connection
  StartServer(options);
  PutBigRow(server_->port());
  NeverReadingClient hog(server_->port());
  EXPECT_GE(hog.Flood(std::vector<rpc::TGet>(1000, Get(1, "big")), 20), 2);
  // Waits in the listen backlog until the hog's reply deadline frees the
  // connection.
  const Clock::time_point start = Clock::now();
  EXPECT_TRUE(AnsweredWithin(5000));
  EXPECT_GE(SecondsSince(start), 0.2);
  EXPECT_LT(SecondsSince(start), 3.0);
}

TEST_F(ThriftServerTest, ARequestTricklingPastItsDeadlineIsClosed) {
  RegionServerOptions options = SmallOptions();
  options.request_timeout_ms = 500;
  StartServer(options);
  RawConnection slow(server_->port());
  ASSERT_TRUE(slow.connected());
  ASSERT_TRUE(slow.Send(FrameHeader(1000) + "\x80"));
  // A byte every 100 ms: every read succeeds, the request never completes.
  Trickler trickler({&slow}, /*period_ms=*/100);
  const Clock::time_point start = Clock::now();
  EXPECT_TRUE(slow.ClosedWithin(3000));
  EXPECT_GE(SecondsSince(start), 0.3);
  EXPECT_TRUE(AnsweredWithin(3000));  // only that connection
}

// Clients that send a frame header and most of its body, then nothing: each
// would hold a frame's memory until its request deadline.
std::vector<std::unique_ptr<RawConnection>> StartHostileFrames(int port,
                                                               int clients,
                                                               uint32_t frame) {
  std::vector<std::unique_ptr<RawConnection>> hostile;
  const std::string request =
      FrameHeader(frame) + std::string(frame - 1024, 'x');
  for (int i = 0; i < clients; ++i) {
    hostile.push_back(std::make_unique<RawConnection>(port));
    EXPECT_TRUE(hostile.back()->connected());
    hostile.back()->SendFor(request, /*wait_ms=*/100);
  }
  return hostile;
}

TEST_F(ThriftServerTest, PartlySentFramesHoldAtMostTheRequestPool) {
  RegionServerOptions options = SmallOptions();
  options.max_frame_bytes = 1 << 20;
  options.max_buffered_request_bytes = 2 << 20;  // two frames
  options.request_timeout_ms = 2000;
  StartServer(options);
  const auto hostile =
      StartHostileFrames(server_->port(), 6, options.max_frame_bytes);
  std::this_thread::sleep_for(std::chrono::milliseconds(300));
  RequestBufferStats stats = server_->request_buffer_stats();
  // Two frames are read; four wait (their bytes stay in the kernel).
  EXPECT_GE(stats.peak_held_bytes, options.max_frame_bytes);
  EXPECT_LE(stats.peak_held_bytes, options.max_buffered_request_bytes);
  EXPECT_LE(stats.reserved_bytes, options.max_buffered_request_bytes);
  EXPECT_GE(stats.pool_waits, 4u);
  // A small call queues behind them (first come, first served) until their
  // request deadline closes them and frees the pool.
  const Clock::time_point start = Clock::now();
  EXPECT_TRUE(AnsweredWithin(8000));
  EXPECT_GE(SecondsSince(start), 0.5);
  for (const auto& c : hostile) EXPECT_TRUE(c->ClosedWithin(3000));
  stats = PoolWhenEmpty(1000);
  EXPECT_LE(stats.peak_held_bytes, options.max_buffered_request_bytes);
  EXPECT_EQ(stats.held_bytes, 0u);
  EXPECT_EQ(stats.reserved_bytes, 0u);
}

TEST_F(ThriftServerTest, CallsWaitingForThePoolRunWhenAFrameIsFreed) {
  RegionServerOptions options = SmallOptions();
  options.max_frame_bytes = 1 << 20;
  options.max_buffered_request_bytes = options.max_frame_bytes;  // one frame
  StartServer(options);
  PutBigRow(server_->port());
  // This frame reserves the whole pool; the clients' frames wait for it.
  RawConnection holder(server_->port());
  ASSERT_TRUE(holder.connected());
  const uint32_t frame = options.max_frame_bytes;
  ASSERT_TRUE(holder.Send(FrameHeader(frame) + std::string(1000, 'x')));
  std::this_thread::sleep_for(std::chrono::milliseconds(100));
  // Each call is a frame of about 600 KB: only one fits the pool at a time.
  const std::string value(3000, 'v');
  std::vector<rpc::TMutation> rows;
  for (int i = 0; i < 200; ++i) {
    rows.push_back(Put(1, "row" + std::to_string(i), {{"d:a", value}}));
  }
  // Each client returns how many of its 3 calls were answered.
  std::vector<std::future<int>> calls;
  for (int i = 0; i < 4; ++i) {
    calls.push_back(std::async(std::launch::async, [&] {
      int answered = 0;
      try {
        RegionClient client(server_->port(), 10000);
        for (; answered < 3; ++answered) {
          rpc::TWriteResult result;
          client->mutateRows(result, rows, 0);
        }
      } catch (const std::exception& e) {
        ADD_FAILURE() << "mutateRows: " << e.what();
      }
      return answered;
    }));
  }
  std::this_thread::sleep_for(std::chrono::milliseconds(300));
  EXPECT_GE(server_->request_buffer_stats().pool_waits, 4u);
  // Not a message: the call fails, its frame is freed, the pool wakes the
  // waiting connections.
  ASSERT_TRUE(holder.Send(std::string(frame - 1000, 'x')));
  for (auto& call : calls) {
    ASSERT_EQ(call.wait_for(std::chrono::seconds(8)),
              std::future_status::ready);
    EXPECT_EQ(call.get(), 3);
  }
  EXPECT_TRUE(holder.ClosedWithin(1000));
  const RequestBufferStats stats = PoolWhenEmpty(1000);
  EXPECT_LE(stats.peak_held_bytes, options.max_buffered_request_bytes);
  EXPECT_EQ(stats.reserved_bytes, 0u);
}

// Each of `clients` connections pipelines `calls` calls whose replies are
// large and never reads: each holds one reply the server cannot send.
std::vector<std::unique_ptr<NeverReadingClient>> StartHogs(
    int port, int clients, int calls, const std::vector<rpc::TGet>& gets) {
  std::vector<std::unique_ptr<NeverReadingClient>> hogs;
  for (int i = 0; i < clients; ++i) {
    hogs.push_back(std::make_unique<NeverReadingClient>(port));
    EXPECT_EQ(hogs.back()->Flood(gets, calls), calls);
  }
  return hogs;
}

// The server's replies once none is held, or after `wait_ms` as they are.
ReplyBufferStats RepliesWhenEmpty(const RegionServer& server, int wait_ms) {
  const Clock::time_point end =
      Clock::now() + std::chrono::milliseconds(wait_ms);
  ReplyBufferStats stats = server.reply_buffer_stats();
  while (stats.held_bytes != 0 && Clock::now() < end) {
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
    stats = server.reply_buffer_stats();
  }
  return stats;
}

TEST_F(ThriftServerTest, UnreadRepliesHoldAtMostTheReplyBoundPlusOnePerWorker) {
  RegionServerOptions options = SmallOptions();
  options.max_buffered_reply_bytes = 4 << 20;
  options.reply_timeout_ms = 500;
  StartServer(options);
  PutBigRow(server_->port());
  // Six connections, each with a 6 MB reply (an 8 MiB buffer) it never
  // reads: 48 MiB held where the bound allows 4 MiB plus one per worker.
  const auto hogs = StartHogs(server_->port(), 6, 3,
                              std::vector<rpc::TGet>(1000, Get(1, "big")));
  // Until the hogs' replies are held (300 ms unsanitized; a sanitizer
  // build once took longer, and the check ran before any big reply).
  ReplyBufferStats stats = server_->reply_buffer_stats();
  for (int i = 0;
       i < 1000 && (stats.largest_reply_bytes < 6000000u ||
                    stats.held_bytes < options.max_buffered_reply_bytes);
       ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
    stats = server_->reply_buffer_stats();
  }
  EXPECT_GE(stats.largest_reply_bytes, 6000000u);
  EXPECT_GE(stats.held_bytes, options.max_buffered_reply_bytes);
  // A normal call queues behind the hogs' requests until their reply
  // deadlines close them, two connections (one per worker) at a time.
  const Clock::time_point start = Clock::now();
  EXPECT_TRUE(AnsweredWithin(8000));
  EXPECT_LT(SecondsSince(start), 6.0);
  stats = RepliesWhenEmpty(*server_, 3000);
  const uint64_t bound = options.max_buffered_reply_bytes +
                         options.threads * stats.largest_reply_bytes;
  EXPECT_LE(stats.peak_held_bytes, bound)
      << "largest reply " << stats.largest_reply_bytes;
  RecordProperty("peak_held_bytes", std::to_string(stats.peak_held_bytes));
  RecordProperty("bound", std::to_string(bound));
  EXPECT_GE(stats.waits, 1u);
  EXPECT_EQ(stats.held_bytes, 0u);
}

TEST_F(ThriftServerTest, RepliesUnderTheBoundDoNotWait) {
  StartServer(SmallOptions());  // the default bound, 1 GiB
  PutBigRow(server_->port());
  const std::vector<rpc::TGet> gets(200, Get(1, "big"));  // 1.2 MB replies
  std::vector<std::future<int>> clients;
  for (int i = 0; i < 4; ++i) {
    clients.push_back(std::async(std::launch::async, [&] {
      int answered = 0;
      try {
        RegionClient client(server_->port(), 10000);
        for (; answered < 5; ++answered) {
          std::vector<rpc::TResult> rows;
          client->getMultiple(rows, gets, /*maxBytes=*/0);
          if (rows.size() != gets.size()) break;
        }
      } catch (const std::exception& e) {
        ADD_FAILURE() << "getMultiple: " << e.what();
      }
      return answered;
    }));
  }
  for (auto& client : clients) EXPECT_EQ(client.get(), 5);
  const ReplyBufferStats stats = RepliesWhenEmpty(*server_, 1000);
  EXPECT_EQ(stats.waits, 0u);
  EXPECT_GE(stats.largest_reply_bytes, 1200000u);
  EXPECT_EQ(stats.held_bytes, 0u);
}

// A worker sends a reply that goes out whole itself and gives the
// connection back without waking the I/O thread (frame_loop.cc,
// SendOnWorker). What follows the reply must still be served: requests
// that arrived during the call, calls waiting for the one worker, and the
// idle deadline.

// listRegions of a server with no region: an empty struct of arguments.
std::string ListRegionsCall() {
  return MessageHeader("listRegions", 1) + std::string(1, '\0');
}

TEST_F(ThriftServerTest, PipelinedCallsAreAllAnsweredFramedAndBuffered) {
  StartServer(SmallOptions());
  const std::string call = ListRegionsCall();
  RawConnection framed(server_->port());
  ASSERT_TRUE(framed.Send(Framed(call) + Framed(call) + Framed(call)));
  std::string reply;
  for (int i = 0; i < 3; ++i) ASSERT_TRUE(framed.Receive(&reply)) << i;
  // A buffered connection's next request is read with the first (the
  // read-ahead keeps it), so the worker must hand it back at once.
  RawConnection buffered(server_->port());
  ASSERT_TRUE(buffered.Send(call + call + call));
  std::string got(reply.size(), '\0');
  for (int i = 0; i < 3; ++i) {
    ASSERT_TRUE(ReadExactly(buffered.fd(), got.data(), got.size())) << i;
    EXPECT_EQ(got, reply);
  }
}

TEST_F(ThriftServerTest, AConnectionIdleAfterItsReplyClosesAtItsDeadline) {
  RegionServerOptions options = SmallOptions();
  options.idle_timeout_ms = 400;
  StartServer(options);
  RawConnection c(server_->port());
  ASSERT_TRUE(c.Send(Framed(ListRegionsCall())));
  std::string reply;
  ASSERT_TRUE(c.Receive(&reply));
  const Clock::time_point answered = Clock::now();
  EXPECT_TRUE(c.ClosedWithin(5000));
  EXPECT_GE(SecondsSince(answered), 0.3);
}

TEST_F(ThriftServerTest, ACallWaitingForTheOneWorkerRunsAfterTheCallBefore) {
  RegionServerOptions options = SmallOptions();
  options.threads = 1;
  StartServer(options);
  // The first call holds the one worker until the second call waits for
  // it; then its client says nothing more, so only the worker's wake-up
  // can start the second.
  std::promise<void> second_waits;
  std::shared_future<void> go = second_waits.get_future().share();
  std::atomic<int> calls{0};
  SyncPoints::Set("FrameLoop:CallRan", [&](void*) {
    if (calls.fetch_add(1) == 0) go.wait();
  });
  RawConnection first(server_->port());
  RawConnection second(server_->port());
  ASSERT_TRUE(first.Send(Framed(ListRegionsCall())));
  while (calls.load() == 0) {
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
  }
  ASSERT_TRUE(second.Send(Framed(ListRegionsCall())));
  std::this_thread::sleep_for(std::chrono::milliseconds(300));  // queued
  second_waits.set_value();
  std::string reply;
  EXPECT_TRUE(first.Receive(&reply));
  const Clock::time_point released = Clock::now();
  EXPECT_TRUE(second.Receive(&reply));
  EXPECT_LT(SecondsSince(released), 5.0);  // not the idle timeout's look
  SyncPoints::ClearAll();
}

TEST_F(ThriftServerTest, ValidatesDeadlinesAndTheConnectionCap) {
  ServerOptions o;
  EXPECT_TRUE(o.Validate().ok());
  o.request_timeout_ms = 0;
  EXPECT_NE(o.Validate().message().find("request timeout"), std::string::npos);
  o = ServerOptions();
  o.reply_timeout_ms = -1;
  EXPECT_NE(o.Validate().message().find("reply timeout"), std::string::npos);
  o = ServerOptions();
  o.max_connections = 0;
  EXPECT_NE(o.Validate().message().find("max connections"), std::string::npos);
  o.max_connections = ServerOptions::kMaxConnections + 1;
  EXPECT_FALSE(o.Validate().ok());
  o = ServerOptions();
  o.max_handshakes = 0;
  EXPECT_NE(o.Validate().message().find("--max-handshakes"), std::string::npos);
  o.max_handshakes = ServerOptions::kMaxHandshakes;
  EXPECT_TRUE(o.Validate().ok());
  o.max_handshakes = ServerOptions::kMaxHandshakes + 1;
  EXPECT_FALSE(o.Validate().ok());
  o = ServerOptions();
  o.handshake_threads = 0;
  EXPECT_NE(o.Validate().message().find("--handshake-threads"),
            std::string::npos);
  o.handshake_threads = ServerOptions::kMaxHandshakeThreads;
  EXPECT_TRUE(o.Validate().ok());
  o.handshake_threads = ServerOptions::kMaxHandshakeThreads + 1;
  EXPECT_FALSE(o.Validate().ok());
  // The pool holds at least one frame.
  o = ServerOptions();
  o.max_buffered_request_bytes = o.max_frame_bytes - 1;
  EXPECT_NE(o.Validate().message().find("--max-buffered-request-bytes"),
            std::string::npos);
  o.max_buffered_request_bytes = o.max_frame_bytes;
  EXPECT_TRUE(o.Validate().ok());
  o.max_buffered_request_bytes = ServerOptions::kMaxBufferedRequestBytes + 1;
  EXPECT_FALSE(o.Validate().ok());
  o = ServerOptions();
  o.max_buffered_reply_bytes = 0;
  EXPECT_NE(o.Validate().message().find("--max-buffered-reply-bytes"),
            std::string::npos);
  o.max_buffered_reply_bytes = 1;
  EXPECT_TRUE(o.Validate().ok());
  o.max_buffered_reply_bytes = ServerOptions::kMaxBufferedReplyBytes + 1;
  EXPECT_FALSE(o.Validate().ok());
}

}  // namespace
}  // namespace bloomroute
