// No single client can take a server out of service. A router over
// in-process region stores and a region server, both with TLS and small
// limits (16 connections, 1 s to send a request), face hostile clients for
// BLOOMROUTE_HOSTILE_SECONDS (3 s here; the "soak" label runs 60 s):
//   - anonymous connections opening every slot and sending nothing;
//   - read-role connections sending refused oneway calls;
//   - one read-role user opening scanners until refused, and keeping them;
//   - scans whose index pin matches every row and whose other filter
//     matches none (one batch used to cost a lookup per row);
//   - clients that connect with TLS and leave right after the handshake, in
//     a loop on 4 threads (each handshake costs the server about 1 ms of
//     CPU; they ran on the I/O thread, and a flood slowed every
//     connection). Each holds a slot only for its handshake.
// Meanwhile an admin (the router) or a router (the region server) makes a
// call on a fresh connection every 50 ms. Every one must succeed, each
// within kBound: an anonymous connection holds a slot at most the 1 s
// request timeout, and at most 20 of them wait ahead of the admin for the
// slots the others leave (5 are held by the read-role clients' connections,
// which may call things; the rest turn over every second), with the 4
// handshake flooders, which hold one for milliseconds. More hostile
// connections than the listen backlog would delay the admin's connect
// itself: bounding connections per address is a firewall's job, as for
// HBase's servers.
#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "tests/router/router_test_util.h"
#include "tests/thrift/tls_test_util.h"
#include "thrift/region_server.h"
#include "thrift/router_client.h"
#include "thrift/router_server.h"
#include "thrift/thrift_region_client.h"

namespace bloomroute {
namespace {

using Clock = std::chrono::steady_clock;
using testing::Certs;
using testing::FramedCall;
using testing::RawTlsClient;
using testing::TempDir;

constexpr auto kBound = std::chrono::seconds(5);
constexpr uint32_t kSlots = 16;
constexpr int kRequestTimeoutMs = 1000;
// Anonymous connections that hold slots: more than there are.
constexpr int kSlotHolders = 20;
// Threads that connect, handshake and leave, in a loop.
constexpr int kHandshakeFlooders = 4;

std::chrono::seconds HostileTime() {
  const char* env = std::getenv("BLOOMROUTE_HOSTILE_SECONDS");
  const int seconds = env != nullptr ? std::atoi(env) : 3;
  return std::chrono::seconds(std::clamp(seconds, 1, 3600));
}

void LimitServer(ServerOptions* options) {
  options->port = 0;
  options->threads = 4;
  options->max_connections = kSlots;
  options->request_timeout_ms = kRequestTimeoutMs;
  options->idle_timeout_ms = 5000;
}

// Runs `attack` on `threads` threads until `stop`, each in a loop.
class Attack {
 public:
  void Run(int threads, std::function<void()> attack) {
    for (int i = 0; i < threads; ++i) {
      threads_.emplace_back([this, attack] {
        while (!stop_) attack();
      });
    }
  }
  bool stopped() const { return stop_; }
  ~Attack() {
    stop_ = true;
    for (std::thread& t : threads_) t.join();
  }

 private:
  std::atomic<bool> stop_{false};
  std::vector<std::thread> threads_;
};

// Calls `call` every 50 ms for `duration`: how many calls, how many failed
// (the first error kept) and the slowest, connection included.
struct Served {
  int calls = 0;
  int failed = 0;
  std::string first_error;
  Clock::duration slowest{};
};

Served Serve(Clock::duration duration, const std::function<Status()>& call) {
  Served out;
  const auto end = Clock::now() + duration;
  while (Clock::now() < end) {
    const auto start = Clock::now();
    const Status s = call();
    out.slowest = std::max(out.slowest, Clock::now() - start);
    ++out.calls;
    if (!s.ok() && out.failed++ == 0) out.first_error = s.ToString();
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
  return out;
}

void ExpectServed(const Served& served) {
  std::printf(
      "served %d calls, the slowest in %lld ms\n", served.calls,
      static_cast<long long>(
          std::chrono::duration_cast<std::chrono::milliseconds>(served.slowest)
              .count()));
  EXPECT_GE(served.calls, 2);
  EXPECT_EQ(served.failed, 0) << served.first_error;
  EXPECT_LT(served.slowest, kBound)
      << std::chrono::duration_cast<std::chrono::milliseconds>(served.slowest)
             .count()
      << " ms for the slowest call";
}

// An anonymous TLS connection that holds a slot until the server closes it.
void HoldASlot(int port, const Certs& certs) {
  RawTlsClient client(port, certs.Node().ca_file);
  if (!client.ok()) return;  // no slot yet: the handshake timed out
  bool closed = false;
  (void)client.ReadUntilClosed(&closed);
}

// A TLS connection of `who` that leaves right after its handshake; counts
// the handshakes that completed.
void HandshakeAndLeave(int port, const Certs& certs, const TlsOptions& who,
                       std::atomic<int>* handshakes) {
  RawTlsClient client(port, certs.Node().ca_file, &who);
  if (client.ok()) ++*handshakes;
}

void PrintHandshakes(int handshakes, Clock::duration duration) {
  std::printf(
      "%d handshakes in %lld ms\n", handshakes,
      static_cast<long long>(
          std::chrono::duration_cast<std::chrono::milliseconds>(duration)
              .count()));
}

// A connection of `who` sending a refused oneway `method`.
void SendRefusedOneway(int port, const Certs& certs, const TlsOptions& who,
                       const std::string& method) {
  RawTlsClient client(port, certs.Node().ca_file, &who);
  if (!client.ok() || !client.Send(FramedCall(method, /*oneway=*/true))) {
    return;
  }
  bool closed = false;
  (void)client.ReadUntilClosed(&closed);
}

constexpr const char* kNothingMatches =
    "SingleColumnValueFilter('f', 'a', =, 'binary:common', true, true) AND "
    "SingleColumnValueFilter('g', 'c', =, 'binary:none', true, true)";

class HostileClientTest : public ::testing::Test {
 protected:
  std::unique_ptr<RouterClient> Connect(const TlsOptions& tls) {
    RouterClientOptions options;
    options.tls = tls;
    options.connect_timeout_ms = 10000;
    options.call_timeout_ms = 10000;
    auto client = ConnectRouter("127.0.0.1:" + std::to_string(port_), options);
    return client.ok() ? std::move(client).value() : nullptr;
  }

  Certs certs_;
  int port_ = 0;
};

TEST_F(HostileClientTest, TheRouterKeepsAnsweringAnAdmin) {
  testing::StoreCluster cluster(2);
  router::RouterOptions options = testing::RouterOptionsFor(cluster);
  options.max_scanners = 40;
  options.max_scanners_per_client = 10;
  options.max_scanners_per_principal = 15;
  auto opened = router::Router::Open(options, cluster.Factory());
  ASSERT_TRUE(opened.ok()) << opened.status().ToString();
  std::shared_ptr<router::Router> router = std::move(opened).value();
  router::TableSpec spec;
  spec.name = "t";
  spec.indexed_columns = {"f:a"};
  spec.split_keys = {"k"};
  ASSERT_TRUE(router->CreateTable(spec).ok());
  std::vector<Mutation> rows;
  for (int i = 0; i < 4000; ++i) {
    rows.push_back(Mutation::Put(0, "r" + std::to_string(100000 + i),
                                 {{"f:a", "common"}, {"g:c", "x"}}));
  }
  ASSERT_TRUE(router->Mutate("t", std::move(rows)).ok());

  RouterServerOptions server_options;
  LimitServer(&server_options);
  server_options.tls = certs_.Node();
  server_options.token_file = certs_.TokensFile();
  auto server = RouterServer::Start(router, server_options);
  ASSERT_TRUE(server.ok()) << server.status().ToString();
  port_ = (*server)->port();

  // One user's scanners: three connections, ten tries each.
  std::vector<std::unique_ptr<RouterClient>> hog;
  int held = 0;
  std::string refusal;
  for (int c = 0; c < 3; ++c) {
    hog.push_back(Connect(certs_.Client("reader")));
    ASSERT_NE(hog.back(), nullptr);
    for (int i = 0; i < 10; ++i) {
      StatusOr<int64_t> id = hog.back()->OpenScanner("t", router::ScanSpec{});
      if (id.ok()) {
        ++held;
      } else {
        refusal = id.status().ToString();
      }
    }
  }
  EXPECT_EQ(held, 15);
  EXPECT_NE(refusal.find("max_scanners_per_principal is 15"), std::string::npos)
      << refusal;

  const int port = port_;
  const Certs& certs = certs_;
  const TlsOptions reader = certs_.Client("reader");
  std::atomic<int> empty_batches{0};
  // Scanning clients (another user: "reader" has all its scanners),
  // connected before the slots fill up, then busy.
  std::vector<std::shared_ptr<RouterClient>> scanners;
  for (int i = 0; i < 2; ++i) {
    scanners.push_back(Connect(certs_.Client("writer")));
    ASSERT_NE(scanners.back(), nullptr);
  }
  std::atomic<int> handshakes{0};
  Served served;
  {
    Attack attack;
    attack.Run(kSlotHolders, [&] { HoldASlot(port, certs); });
    attack.Run(2,
               [&] { SendRefusedOneway(port, certs, reader, "putMultiple"); });
    attack.Run(kHandshakeFlooders,
               [&] { HandshakeAndLeave(port, certs, reader, &handshakes); });
    for (const std::shared_ptr<RouterClient>& client : scanners) {
      attack.Run(1, [&, client] {
        router::ScanSpec scan;
        scan.filter = kNothingMatches;
        StatusOr<int64_t> id = client->OpenScanner("t", scan);
        if (!id.ok()) return;
        StatusOr<std::vector<Row>> batch = client->ScannerNext(*id, 1);
        if (batch.ok() && batch->empty()) ++empty_batches;
        (void)client->CloseScanner(*id);
      });
    }
    served = Serve(HostileTime(), [&]() -> Status {
      std::unique_ptr<RouterClient> admin = Connect(certs_.Client("root"));
      if (admin == nullptr) return Status::Unavailable("admin: no connection");
      BLOOMROUTE_RETURN_IF_ERROR(admin->ListTables().status());
      BLOOMROUTE_ASSIGN_OR_RETURN(int64_t id,
                                  admin->OpenScanner("t", router::ScanSpec{}));
      BLOOMROUTE_ASSIGN_OR_RETURN(std::vector<Row> batch,
                                  admin->ScannerNext(id, 10));
      if (batch.size() != 10) return Status::Corruption("admin: short batch");
      return admin->CloseScanner(id);
    });
  }
  ExpectServed(served);
  PrintHandshakes(handshakes.load(), HostileTime());
  EXPECT_GT(handshakes.load(), 0);
  // The scans that drop every row ran to their end, batch after batch.
  EXPECT_GT(empty_batches.load(), 0);
}

TEST_F(HostileClientTest, TheRegionServerKeepsAnsweringItsRouter) {
  TempDir dir;
  auto store = RegionStore::Open(dir.path(), RegionStoreOptions());
  ASSERT_TRUE(store.ok()) << store.status().ToString();
  RegionServerOptions options;
  LimitServer(&options);
  options.tls = certs_.Node();
  auto server = RegionServer::Start(std::move(store).value(), options);
  ASSERT_TRUE(server.ok()) << server.status().ToString();
  const int port = (*server)->port();
  const Certs& certs = certs_;
  const TlsOptions reader = certs_.Client("reader");

  std::atomic<int> handshakes{0};
  Served served;
  {
    Attack attack;
    // Plain TCP: the handshake never comes.
    attack.Run(kSlotHolders / 2, [&] {
      const int fd = testing::ConnectTcp(port);
      if (fd < 0) return;
      char byte;
      (void)recv(fd, &byte, 1, 0);  // until closed, or 5 s
      close(fd);
    });
    // A client certificate: it may call nothing on a region server.
    attack.Run(kSlotHolders / 2, [&] {
      RawTlsClient client(port, certs.Node().ca_file, &reader);
      if (!client.ok()) return;
      bool closed = false;
      (void)client.ReadUntilClosed(&closed);
    });
    attack.Run(2,
               [&] { SendRefusedOneway(port, certs, reader, "mutateRows"); });
    attack.Run(kHandshakeFlooders,
               [&] { HandshakeAndLeave(port, certs, reader, &handshakes); });
    served = Serve(HostileTime(), [&]() -> Status {
      ThriftClientOptions client_options;
      client_options.tls = certs_.Node();
      client_options.connect_timeout_ms = 10000;
      client_options.call_timeout_ms = 10000;
      BLOOMROUTE_ASSIGN_OR_RETURN(
          std::unique_ptr<router::RegionClient> client,
          NewThriftRegionClientFactory(client_options)
              ->Connect(1, "127.0.0.1:" + std::to_string(port)));
      return client->ListRegions().status();
    });
  }
  ExpectServed(served);
  PrintHandshakes(handshakes.load(), HostileTime());
  EXPECT_GT(handshakes.load(), 0);
}

}  // namespace
}  // namespace bloomroute
