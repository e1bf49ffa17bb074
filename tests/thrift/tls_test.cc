// TLS and access control on both servers (thrift/server/security.h): who is let
// in, what each role may call, and that a refused call changes nothing. Real
// certificates from the cluster tool's library (tools/certs.h), real
// connections on loopback.
#include <arpa/inet.h>
#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <filesystem>
#include <fstream>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "common/sync_point.h"
#include "tests/regionstore/region_store_test_util.h"
#include "tests/thrift/fake_router.h"
#include "tests/thrift/tls_test_util.h"
#include "thrift/internal/client_pool.h"
#include "thrift/region_server.h"
#include "thrift/router_client.h"
#include "thrift/router_server.h"
#include "thrift/thrift_region_client.h"
#include "tools/certs.h"

namespace bloomroute {
namespace {

using ::bloomroute::testing::Certs;
using ::bloomroute::testing::ConnectTcp;
using ::bloomroute::testing::FramedCall;
using ::bloomroute::testing::PlaintextConnectionIsClosed;
using ::bloomroute::testing::ProcessCpuMs;
using ::bloomroute::testing::RawTlsClient;
using ::bloomroute::testing::TempDir;
using ::testing::HasSubstr;
using Clock = std::chrono::steady_clock;
using std::chrono::milliseconds;

// Holds the first thread that reaches the sync point `name` until Release(),
// or for at most kBound, so that a failing test cannot hang the server.
// Later arrivals pass.
class HeldSyncPoint {
 public:
  static constexpr auto kBound = std::chrono::seconds(10);

  explicit HeldSyncPoint(const std::string& name) {
    // The callback keeps the state: it may still run after ClearAll().
    SyncPoints::Set(name, [state = state_](void*) {
      std::unique_lock<std::mutex> lock(state->mu);
      if (state->reached) return;
      state->reached = true;
      state->changed.notify_all();
      state->changed.wait_for(lock, kBound, [&] { return state->released; });
    });
  }
  ~HeldSyncPoint() {
    Release();
    SyncPoints::ClearAll();
  }
  HeldSyncPoint(const HeldSyncPoint&) = delete;
  HeldSyncPoint& operator=(const HeldSyncPoint&) = delete;

  // True once a thread is held (waits up to `timeout`).
  bool WaitUntilReached(Clock::duration timeout) {
    std::unique_lock<std::mutex> lock(state_->mu);
    return state_->changed.wait_for(lock, timeout,
                                    [&] { return state_->reached; });
  }
  void Release() {
    std::lock_guard<std::mutex> lock(state_->mu);
    state_->released = true;
    state_->changed.notify_all();
  }

 private:
  struct State {
    std::mutex mu;
    std::condition_variable changed;
    bool reached = false;   // guarded by mu
    bool released = false;  // guarded by mu
  };
  std::shared_ptr<State> state_ = std::make_shared<State>();
};

long long Ms(Clock::duration d) {
  return std::chrono::duration_cast<milliseconds>(d).count();
}

// A TCP connection to 127.0.0.1:port that starts a TLS handshake and never
// finishes it: the first bytes of a handshake record's header (with none,
// the listening socket's TCP_DEFER_ACCEPT would keep it from being
// accepted). -1 when it cannot connect.
int StartAHandshakeAndStop(int port) {
  const int fd = ConnectTcp(port);
  if (fd >= 0 && send(fd, "\x16\x03", 2, MSG_NOSIGNAL) != 2) {
    close(fd);
    return -1;
  }
  return fd;
}

class RouterTlsTest : public ::testing::Test {
 protected:
  void SetUp() override {
    RouterServerOptions options;
    options.port = 0;
    options.threads = 4;
    options.tls = certs_.Node();
    options.token_file = certs_.TokensFile();
    auto server = RouterServer::Start(router_, options);
    ASSERT_TRUE(server.ok()) << server.status().ToString();
    server_ = std::move(server).value();
  }

  std::unique_ptr<RouterClient> Connect(const TlsOptions& tls,
                                        const std::string& token = "") {
    return ConnectTo(server_->port(), tls, token);
  }
  static std::unique_ptr<RouterClient> ConnectTo(
      int port, const TlsOptions& tls, const std::string& token = "") {
    RouterClientOptions options;
    options.tls = tls;
    options.token = token;
    options.connect_timeout_ms = 5000;
    options.call_timeout_ms = 5000;
    auto client = ConnectRouter("127.0.0.1:" + std::to_string(port), options);
    EXPECT_TRUE(client.ok()) << client.status().ToString();
    return client.ok() ? std::move(client).value() : nullptr;
  }
  // A router server on its own port with `max_handshakes` and
  // `handshake_threads`.
  std::unique_ptr<RouterServer> StartWithHandshakes(
      uint32_t max_handshakes, int request_timeout_ms,
      uint32_t handshake_threads) {
    RouterServerOptions options;
    options.port = 0;
    options.tls = certs_.Node();
    options.max_handshakes = max_handshakes;
    options.handshake_threads = handshake_threads;
    options.request_timeout_ms = request_timeout_ms;
    auto server = RouterServer::Start(router_, options);
    EXPECT_TRUE(server.ok()) << server.status().ToString();
    return server.ok() ? std::move(server).value() : nullptr;
  }

  static router::TableSpec Spec() {
    router::TableSpec spec;
    spec.name = "geo";
    spec.indexed_columns = {"d:cc"};
    return spec;
  }
  static std::vector<Mutation> OnePut() {
    return {Mutation::Put(0, "oslo", {Cell{"d:cc", "NO"}})};
  }
  // What a refused caller tried must not have reached the router.
  void ExpectNothingHappened() {
    EXPECT_TRUE(router_->spec.name.empty());
    EXPECT_TRUE(router_->mutations.empty());
    EXPECT_TRUE(router_->gets.empty());
  }

  Certs certs_;
  std::shared_ptr<FakeRouter> router_ = std::make_shared<FakeRouter>();
  std::unique_ptr<RouterServer> server_;
};

TEST_F(RouterTlsTest, AnAdminCertificateMayCallEverything) {
  auto client = Connect(certs_.Client("root"));
  ASSERT_NE(client, nullptr);
  ASSERT_TRUE(client->CreateTable(Spec()).ok());
  EXPECT_EQ(router_->spec.name, "geo");
  ASSERT_TRUE(client->Mutate("geo", OnePut()).ok());
  EXPECT_EQ(router_->mutations.size(), 1u);
  EXPECT_TRUE(client->Get("geo", {GetRequest{0, "oslo", {}}}).ok());
}

TEST_F(RouterTlsTest, EachRoleIsRefusedWhatItDoesNotAllowAndNothingHappens) {
  auto reader = Connect(certs_.Client("reader"));
  ASSERT_NE(reader, nullptr);
  EXPECT_TRUE(reader->Get("geo", {GetRequest{0, "oslo", {}}}).ok());
  router_->gets.clear();
  router_->table.clear();
  Status s = reader->Mutate("geo", OnePut());
  EXPECT_TRUE(s.IsPermissionDenied()) << s.ToString();
  EXPECT_THAT(s.message(), HasSubstr("put"));
  EXPECT_THAT(s.message(), HasSubstr("needs role write"));
  EXPECT_THAT(s.message(), HasSubstr("reader has role read"));
  s = reader->CreateTable(Spec()).status();
  EXPECT_TRUE(s.IsPermissionDenied()) << s.ToString();
  EXPECT_THAT(s.message(), HasSubstr("needs role admin"));
  // The connection stays usable after a refusal.
  EXPECT_TRUE(reader->ListTables().ok());

  auto writer = Connect(certs_.Client("writer"));
  ASSERT_NE(writer, nullptr);
  s = writer->CreateTable(Spec()).status();
  EXPECT_TRUE(s.IsPermissionDenied()) << s.ToString();
  s = writer->DeleteTable("geo");
  EXPECT_TRUE(s.IsPermissionDenied()) << s.ToString();
  s = writer->VerifyIndex("geo").status();
  EXPECT_TRUE(s.IsPermissionDenied()) << s.ToString();
  ExpectNothingHappened();
  EXPECT_TRUE(router_->table.empty());
  ASSERT_TRUE(writer->Mutate("geo", OnePut()).ok());
  EXPECT_EQ(router_->mutations.size(), 1u);
}

// Scanners count against their user (certificate name or token user), so
// the router is told who opens each.
TEST_F(RouterTlsTest, AScannerIsOpenedInTheNameOfItsUser) {
  router_->opened_scanner = 7;
  auto reader = Connect(certs_.Client("reader"));
  ASSERT_NE(reader, nullptr);
  ASSERT_TRUE(reader->OpenScanner("geo", router::ScanSpec{}).ok());
  EXPECT_EQ(router_->principal, "reader");
  auto writer = Connect(certs_.CaOnly(), certs_.Token("tokenwriter"));
  ASSERT_NE(writer, nullptr);
  ASSERT_TRUE(writer->OpenScanner("geo", router::ScanSpec{}).ok());
  EXPECT_EQ(router_->principal, "tokenwriter");
}

TEST_F(RouterTlsTest, AClientWithNeitherCertificateNorTokenIsRefused) {
  auto client = Connect(certs_.CaOnly());
  ASSERT_NE(client, nullptr);
  Status s = client->Get("geo", {GetRequest{0, "oslo", {}}}).status();
  EXPECT_TRUE(s.IsPermissionDenied()) << s.ToString();
  EXPECT_THAT(s.message(), HasSubstr("not authenticated"));
  s = client->Mutate("geo", OnePut());
  EXPECT_TRUE(s.IsPermissionDenied()) << s.ToString();
  ExpectNothingHappened();
}

TEST_F(RouterTlsTest, ATokenGivesItsRoleAndAnUnknownOneNothing) {
  auto client = Connect(certs_.CaOnly(), certs_.Token("tokenwriter"));
  ASSERT_NE(client, nullptr);
  ASSERT_TRUE(client->Mutate("geo", OnePut()).ok());
  EXPECT_EQ(router_->mutations.size(), 1u);
  Status s = client->CreateTable(Spec()).status();
  EXPECT_TRUE(s.IsPermissionDenied()) << s.ToString();
  EXPECT_THAT(s.message(), HasSubstr("tokenwriter has role write"));
  router_->mutations.clear();

  std::string forged = certs_.Token("tokenwriter");
  forged[0] = forged[0] == 'a' ? 'b' : 'a';
  auto intruder = Connect(certs_.CaOnly(), forged);
  ASSERT_NE(intruder, nullptr);
  s = intruder->Mutate("geo", OnePut());
  EXPECT_TRUE(s.IsPermissionDenied()) << s.ToString();
  EXPECT_THAT(s.message(), HasSubstr("unknown token"));
  ExpectNothingHappened();
}

// Tokens could not be revoked without a restart: the token file is read
// again on SIGHUP (RouterServer::ReloadTokenFile), a removed token's
// connection is refused at its next call, and a bad file changes nothing.
TEST_F(RouterTlsTest, AReloadedTokenFileAddsAndRevokesTokens) {
  auto writer = Connect(certs_.CaOnly(), certs_.Token("tokenwriter"));
  ASSERT_NE(writer, nullptr);
  ASSERT_TRUE(writer->Mutate("geo", OnePut()).ok());
  router_->mutations.clear();
  const std::string fresh(64, 'a');
  {
    std::ofstream out(certs_.TokensFile(), std::ios::trunc);
    out << "# tokenwriter is gone\n" << TokenHash(fresh) << " read newreader\n";
  }
  StatusOr<size_t> reloaded = server_->ReloadTokenFile();
  ASSERT_TRUE(reloaded.ok()) << reloaded.status().ToString();
  EXPECT_EQ(*reloaded, 1u);
  Status s = writer->Mutate("geo", OnePut());
  EXPECT_TRUE(s.IsPermissionDenied()) << s.ToString();
  ExpectNothingHappened();
  auto reader = Connect(certs_.CaOnly(), fresh);
  ASSERT_NE(reader, nullptr);
  EXPECT_TRUE(reader->ListTables().ok());
  EXPECT_TRUE(reader->Mutate("geo", OnePut()).IsPermissionDenied());
  // A bad file: refused, naming the line, and the tokens stay.
  {
    std::ofstream out(certs_.TokensFile(), std::ios::trunc);
    out << "not a token line\n";
  }
  reloaded = server_->ReloadTokenFile();
  EXPECT_TRUE(reloaded.status().IsInvalidArgument());
  EXPECT_THAT(reloaded.status().message(), HasSubstr("line 1"));
  auto again = Connect(certs_.CaOnly(), fresh);
  ASSERT_NE(again, nullptr);
  EXPECT_TRUE(again->ListTables().ok());
}

// Certificates could not be revoked. With --tls-crl a listed certificate
// fails the handshake, and a list reloaded (SIGHUP) refuses the certificates
// revoked since from their next connection on.
TEST_F(RouterTlsTest, RevokedCertificatesAreRefusedAndTheListReloads) {
  RouterServerOptions options;
  options.port = 0;
  options.tls = certs_.Node();
  options.tls.crl_file = certs_.Revoke("reader");
  auto server = RouterServer::Start(router_, options);
  ASSERT_TRUE(server.ok()) << server.status().ToString();
  auto connect = [&](const std::string& user) -> Status {
    RouterClientOptions client_options;
    client_options.tls = certs_.Client(user);
    client_options.connect_timeout_ms = 5000;
    client_options.call_timeout_ms = 5000;
    auto client = ConnectRouter(
        "127.0.0.1:" + std::to_string((*server)->port()), client_options);
    if (!client.ok()) return client.status();
    return (*client)->ListTables().status();
  };
  const Status revoked = connect("reader");
  EXPECT_TRUE(revoked.IsPermissionDenied()) << revoked.ToString();
  EXPECT_TRUE(connect("writer").ok());
  certs_.Revoke("writer");
  EXPECT_TRUE(connect("writer").ok());  // not reloaded yet
  ASSERT_TRUE((*server)->ReloadCrl().ok());
  EXPECT_TRUE(connect("writer").IsPermissionDenied());
  EXPECT_TRUE(connect("root").ok());
  // A file that is no list changes nothing.
  {
    std::ofstream out(options.tls.crl_file, std::ios::trunc);
    out << "not a list\n";
  }
  const Status bad = (*server)->ReloadCrl();
  EXPECT_TRUE(bad.IsInvalidArgument()) << bad.ToString();
  EXPECT_THAT(bad.message(), HasSubstr("--tls-crl"));
  EXPECT_TRUE(connect("root").ok());
  EXPECT_TRUE(connect("reader").IsPermissionDenied());
  // Nor does a list of another CA (it would fail every handshake).
  std::filesystem::copy_file(certs_.StrangerCrl(), options.tls.crl_file,
                             std::filesystem::copy_options::overwrite_existing);
  const Status foreign = (*server)->ReloadCrl();
  EXPECT_TRUE(foreign.IsInvalidArgument()) << foreign.ToString();
  EXPECT_THAT(foreign.message(), HasSubstr("not a list of the CA"));
  EXPECT_TRUE(connect("root").ok());
}

TEST_F(RouterTlsTest, CertificatesOfAnotherCaExpiredOrOfANodeAreRefused) {
  struct Case {
    const char* name;
    TlsOptions tls;
  };
  for (const Case& c : {Case{"another CA", certs_.StrangerClient()},
                        Case{"expired", certs_.Client("old")},
                        Case{"a node certificate", certs_.Node()}}) {
    SCOPED_TRACE(c.name);
    auto client = Connect(c.tls);
    ASSERT_NE(client, nullptr);
    Status s = client->Mutate("geo", OnePut());
    EXPECT_FALSE(s.ok());
    EXPECT_TRUE(s.IsPermissionDenied()) << s.ToString();
    s = client->CreateTable(Spec()).status();
    EXPECT_TRUE(s.IsPermissionDenied()) << s.ToString();
  }
  ExpectNothingHappened();
}

TEST_F(RouterTlsTest, AClientRefusesARouterItsCaDidNotSign) {
  auto client = Connect(certs_.TrustsOnlyStranger());
  ASSERT_NE(client, nullptr);
  Status s = client->ListTables().status();
  EXPECT_TRUE(s.IsPermissionDenied()) << s.ToString();
  EXPECT_THAT(s.message(), HasSubstr("TLS"));
}

TEST_F(RouterTlsTest, AClientRefusesACertificateThatDoesNotNameTheHost) {
  RouterServerOptions options;
  options.port = 0;
  options.tls = certs_.MisnamedNode();  // our CA, but for db.example.org
  auto server = RouterServer::Start(router_, options);
  ASSERT_TRUE(server.ok()) << server.status().ToString();
  RouterClientOptions client_options;
  client_options.tls = certs_.Client("root");
  auto client = ConnectRouter("127.0.0.1:" + std::to_string((*server)->port()),
                              client_options);
  ASSERT_TRUE(client.ok());
  Status s = (*client)->Mutate("geo", OnePut());
  EXPECT_TRUE(s.IsPermissionDenied()) << s.ToString();
  EXPECT_TRUE(router_->mutations.empty());
}

// poll() cannot see a record that arrived in part, and the loop must not
// take it for bytes waiting to be read: that would spin the I/O thread.
TEST_F(RouterTlsTest, PartOfARecordDoesNotSpinTheServer) {
  RawTlsClient client(server_->port(), certs_.Node().ca_file);
  ASSERT_TRUE(client.ok());
  ASSERT_TRUE(client.SendPartOfARecord(FramedCall("listTables"), 10));
  std::this_thread::sleep_for(std::chrono::milliseconds(100));
  const int64_t before = ProcessCpuMs();
  std::this_thread::sleep_for(std::chrono::seconds(1));
  const int64_t used = ProcessCpuMs() - before;
  // Idle, the process uses a few ms a second; a spinning loop uses ~1,000.
  EXPECT_LT(used, 300) << "CPU ms in 1 s with part of a record pending";
}

// A handshake costs about 1 ms of CPU, and its steps ran on the I/O thread:
// a flood of new connections slowed every connection of the server. They
// now run on a thread of their own, so an established connection is
// answered while a handshake is held at its first step.
TEST_F(RouterTlsTest, AHandshakeInProgressDoesNotHoldUpOtherConnections) {
  auto admin = Connect(certs_.Client("root"));
  ASSERT_NE(admin, nullptr);
  ASSERT_TRUE(admin->ListTables().ok());  // its connection is established
  HeldSyncPoint held("FrameLoop:HandshakeStep");
  std::atomic<bool> handshake_ok{false};
  std::thread newcomer([&, port = server_->port()] {
    RawTlsClient client(port, certs_.Node().ca_file);
    handshake_ok = client.ok();
  });
  const bool reached = held.WaitUntilReached(std::chrono::seconds(10));
  const Clock::time_point start = Clock::now();
  const Status answered = reached ? admin->ListTables().status() : Status::OK();
  const Clock::duration took = Clock::now() - start;
  held.Release();
  newcomer.join();
  ASSERT_TRUE(reached) << "no handshake step was reached";
  EXPECT_TRUE(answered.ok()) << answered.ToString() << " after " << Ms(took)
                             << " ms, with a handshake held";
  EXPECT_LT(Ms(took), 2000);
  EXPECT_TRUE(handshake_ok) << "the held handshake completes once released";
}

// While max_handshakes handshake steps are queued for or run on the
// handshake threads, no further connection is accepted: it waits in the
// listen backlog, and established connections are served meanwhile. With
// two handshake threads and a bound of one, a second client's handshake
// would otherwise run beside the held one.
TEST_F(RouterTlsTest, NoMoreThanMaxHandshakeStepsAreQueued) {
  std::unique_ptr<RouterServer> server = StartWithHandshakes(1, 60000, 2);
  ASSERT_NE(server, nullptr);
  const int port = server->port();
  auto admin = ConnectTo(port, certs_.Client("root"));
  ASSERT_NE(admin, nullptr);
  ASSERT_TRUE(admin->ListTables().ok());
  HeldSyncPoint held("FrameLoop:HandshakeStep");
  const TlsOptions root = certs_.Client("root");
  std::atomic<bool> first_ok{false};
  std::thread first([&] {
    RawTlsClient client(port, root.ca_file, &root);
    first_ok = client.ok();
  });
  ASSERT_TRUE(held.WaitUntilReached(std::chrono::seconds(10)));
  std::atomic<bool> second_done{false};
  std::atomic<bool> second_ok{false};
  std::thread second([&] {
    RawTlsClient client(port, root.ca_file, &root);
    second_ok = client.ok();
    second_done = true;
  });
  std::this_thread::sleep_for(milliseconds(500));
  EXPECT_FALSE(second_done) << "a second handshake ran beside the held one";
  const Clock::time_point start = Clock::now();
  EXPECT_TRUE(admin->ListTables().ok());
  EXPECT_LT(Ms(Clock::now() - start), 2000);
  held.Release();
  first.join();
  second.join();  // its client gives up after 5 s without an answer
  EXPECT_TRUE(first_ok);
  EXPECT_TRUE(second_ok) << "the second was not let in once the step ended";
}

// Only handshake work counts against max_handshakes: clients that start a
// handshake and stop hold a connection each (until request_timeout_ms), as
// any slow client does, but keep nobody out. When the bound counted
// connections in their handshake, one such client per place kept every new
// connection waiting for the request timeout.
TEST_F(RouterTlsTest, ClientsThatStartAHandshakeAndStopKeepNobodyOut) {
  std::unique_ptr<RouterServer> server = StartWithHandshakes(1, 1000, 1);
  ASSERT_NE(server, nullptr);
  const int holders[2] = {StartAHandshakeAndStop(server->port()),
                          StartAHandshakeAndStop(server->port())};
  ASSERT_GE(holders[0], 0);
  ASSERT_GE(holders[1], 0);
  std::this_thread::sleep_for(milliseconds(100));  // both accepted
  const Clock::time_point start = Clock::now();
  const TlsOptions root = certs_.Client("root");
  RawTlsClient next(server->port(), root.ca_file, &root);
  const Clock::duration waited = Clock::now() - start;
  EXPECT_TRUE(next.ok());
  EXPECT_LT(Ms(waited), 800) << "kept out until the holders expired";
  // The holders are closed at their deadline, 1 s from the accept.
  for (int holder : holders) {
    char byte = 0;
    EXPECT_EQ(recv(holder, &byte, 1, 0), 0) << "a holder was not closed";
    close(holder);
  }
}

// A caller that may call nothing (no certificate, no token yet) is held to
// small frames, and is closed once it has been refused.
TEST_F(RouterTlsTest, AnUnauthenticatedCallerGetsSmallFramesAndOneRefusal) {
  {
    RawTlsClient client(server_->port(), certs_.Node().ca_file);
    ASSERT_TRUE(client.ok());
    const uint32_t claim = htonl(1 << 20);  // a 1 MiB frame: never read
    ASSERT_TRUE(client.Send(
        std::string(reinterpret_cast<const char*>(&claim), 4) + "x"));
    bool closed = false;
    EXPECT_EQ(client.ReadUntilClosed(&closed), "");
    EXPECT_TRUE(closed);
  }
  RawTlsClient client(server_->port(), certs_.Node().ca_file);
  ASSERT_TRUE(client.ok());
  ASSERT_TRUE(client.Send(FramedCall("listTables")));
  bool closed = false;
  const std::string reply = client.ReadUntilClosed(&closed);
  EXPECT_NE(reply.find("PermissionDenied: listTables needs role read"),
            std::string::npos)
      << reply;
  EXPECT_TRUE(closed);
  // A client with a certificate may send large frames still.
  auto admin = Connect(certs_.Client("root"));
  ASSERT_NE(admin, nullptr);
  std::vector<Mutation> big = {Mutation::Put(
      0, "oslo",
      {Cell{"d:cc", "NO"}, Cell{"d:blob", std::string(200 << 10, 'b')}})};
  EXPECT_TRUE(admin->Mutate("geo", std::move(big)).ok());
}

// Refused oneway calls used to get no reply and keep the connection open
// with its idle clock reset: four anonymous clients sending one every 20 s
// held a --max-connections 4 router. Any refused call now ends the
// connection, oneway ones at once.
TEST_F(RouterTlsTest, ARefusedOnewayCallClosesItsConnection) {
  RawTlsClient client(server_->port(), certs_.Node().ca_file);
  ASSERT_TRUE(client.ok());
  const auto sent = std::chrono::steady_clock::now();
  ASSERT_TRUE(client.Send(FramedCall("putMultiple", /*oneway=*/true)));
  bool closed = false;
  EXPECT_EQ(client.ReadUntilClosed(&closed), "");
  // The read gives up after 5 s, which also looks like a close; the server
  // (request timeout 60 s here) closes at once.
  EXPECT_LT(std::chrono::steady_clock::now() - sent, std::chrono::seconds(3));
  EXPECT_TRUE(closed);
  ExpectNothingHappened();
}

TEST_F(RouterTlsTest, PlaintextBytesCloseOnlyTheirConnection) {
  auto client = Connect(certs_.Client("root"));
  ASSERT_NE(client, nullptr);
  ASSERT_TRUE(client->ListTables().ok());  // its connection is now pooled
  // A framed Thrift call in the clear, and HTTP.
  const std::string framed(
      "\x00\x00\x00\x15\x80\x01\x00\x01\x00\x00\x00\x0a"
      "listTables\x00\x00\x00\x01\x00",
      25);
  EXPECT_TRUE(PlaintextConnectionIsClosed(server_->port(), framed));
  EXPECT_TRUE(
      PlaintextConnectionIsClosed(server_->port(), "GET / HTTP/1.0\r\n\r\n"));
  EXPECT_TRUE(client->ListTables().ok());
  EXPECT_TRUE(client->Mutate("geo", OnePut()).ok());
}

// One principal cannot take every connection slot: past
// max_connections_per_principal its connection is closed (at the handshake
// for a certificate, after authenticate for a token), so its calls fail as
// Unavailable; other principals connect, and a slot freed is the user's
// again. Before the bound, one read-role user
// could open all max_connections and keep them with a call per idle
// timeout, and no admin could connect.
TEST_F(RouterTlsTest, OnePrincipalHoldsAtMostItsShareOfConnections) {
  RouterServerOptions options;
  options.port = 0;
  options.tls = certs_.Node();
  options.token_file = certs_.TokensFile();
  options.max_connections_per_principal = 2;
  auto started = RouterServer::Start(router_, options);
  ASSERT_TRUE(started.ok()) << started.status().ToString();
  const int port = (*started)->port();
  std::vector<std::unique_ptr<RouterClient>> readers;
  for (int i = 0; i < 2; ++i) {
    readers.push_back(ConnectTo(port, certs_.Client("reader")));
    ASSERT_NE(readers.back(), nullptr);
    ASSERT_TRUE(readers.back()->ListTables().ok());
  }
  auto third = ConnectTo(port, certs_.Client("reader"));
  ASSERT_NE(third, nullptr);
  Status s = third->ListTables().status();
  EXPECT_TRUE(s.IsUnavailable()) << s.ToString();
  // Another principal is let in.
  auto admin = ConnectTo(port, certs_.Client("root"));
  ASSERT_NE(admin, nullptr);
  EXPECT_TRUE(admin->ListTables().ok());
  // The two kept theirs; once one closes, a new one is let in.
  EXPECT_TRUE(readers[0]->ListTables().ok());
  readers.pop_back();
  std::this_thread::sleep_for(milliseconds(200));  // the close reaches it
  auto again = ConnectTo(port, certs_.Client("reader"));
  ASSERT_NE(again, nullptr);
  EXPECT_TRUE(again->ListTables().ok());
  // A token's user counts once authenticated.
  std::vector<std::unique_ptr<RouterClient>> writers;
  for (int i = 0; i < 3; ++i) {
    writers.push_back(
        ConnectTo(port, certs_.CaOnly(), certs_.Token("tokenwriter")));
    ASSERT_NE(writers.back(), nullptr);
  }
  EXPECT_TRUE(writers[0]->ListTables().ok());
  EXPECT_TRUE(writers[1]->ListTables().ok());
  s = writers[2]->ListTables().status();
  EXPECT_TRUE(s.IsUnavailable()) << s.ToString();
}

// Quotas (router/quota.h): an admin sets one over the wire; its user's
// calls past it are refused with HBase's throttling error (retryable, the
// quota named) without reaching the router, while another principal is not
// throttled; a table quota counts only the calls naming its table.
TEST_F(RouterTlsTest, AQuotaThrottlesItsUserAloneBeforeTheCallRuns) {
  auto admin = Connect(certs_.Client("root"));
  ASSERT_NE(admin, nullptr);
  router::Quota per_user;
  per_user.user = "reader";
  per_user.requests = {2, 3600};
  ASSERT_TRUE(admin->SetQuota(per_user).ok());
  router::Quota per_table;
  per_table.user = "tokenwriter";
  per_table.table = "geo";
  per_table.requests = {1, 3600};
  ASSERT_TRUE(admin->SetQuota(per_table).ok());
  StatusOr<std::vector<router::Quota>> listed = admin->ListQuotas();
  ASSERT_TRUE(listed.ok()) << listed.status().ToString();
  EXPECT_EQ(*listed, (std::vector<router::Quota>{per_user, per_table}));

  auto reader = Connect(certs_.Client("reader"));
  ASSERT_NE(reader, nullptr);
  EXPECT_TRUE(reader->ListTables().ok());
  EXPECT_TRUE(reader->Get("geo", {GetRequest{0, "oslo", {}}}).ok());
  router_->gets.clear();
  Status s = reader->Get("geo", {GetRequest{0, "oslo", {}}}).status();
  EXPECT_TRUE(s.IsUnavailable()) << s.ToString();
  EXPECT_THAT(s.message(), HasSubstr("RpcThrottlingException: number of "
                                     "requests exceeded - wait "));
  EXPECT_THAT(s.message(), HasSubstr("quota of user reader: 2 requests per "
                                     "3600 s"));
  EXPECT_TRUE(router_->gets.empty());  // refused before it ran
  // Access is checked first: setting quotas needs the admin role.
  s = reader->SetQuota(router::Quota{"reader", "", {}, {}});
  EXPECT_TRUE(s.IsPermissionDenied()) << s.ToString();

  // Another principal is not throttled.
  EXPECT_TRUE(admin->ListTables().ok());
  EXPECT_TRUE(admin->Get("geo", {GetRequest{0, "oslo", {}}}).ok());

  auto writer = Connect(certs_.CaOnly(), certs_.Token("tokenwriter"));
  ASSERT_NE(writer, nullptr);
  ASSERT_TRUE(writer->Mutate("geo", OnePut()).ok());
  s = writer->Mutate("geo", OnePut());
  EXPECT_TRUE(s.IsUnavailable()) << s.ToString();
  EXPECT_THAT(s.message(), HasSubstr("on table geo"));
  EXPECT_EQ(router_->mutations.size(), 1u);
  EXPECT_TRUE(writer->Mutate("other", OnePut()).ok());
  EXPECT_TRUE(writer->ListTables().ok());

  // Removed: the user is served again at once.
  ASSERT_TRUE(admin->SetQuota(router::Quota{"reader", "", {}, {}}).ok());
  EXPECT_TRUE(reader->Get("geo", {GetRequest{0, "oslo", {}}}).ok());
}

TEST_F(RouterTlsTest, ATokenNeedsTlsOnBothSides) {
  RouterClientOptions options;
  options.token = "abc";
  EXPECT_TRUE(options.Validate().IsInvalidArgument());
  RouterServerOptions server_options;
  server_options.port = 0;
  server_options.token_file = certs_.TokensFile();
  Status s = RouterServer::Start(router_, server_options).status();
  EXPECT_TRUE(s.IsInvalidArgument()) << s.ToString();
  EXPECT_THAT(s.message(), HasSubstr("--token-file needs TLS"));
}

TEST_F(RouterTlsTest, BadTlsFilesAreNamedAtStart) {
  RouterServerOptions options;
  options.port = 0;
  options.tls = certs_.Node();
  options.tls.key_file = certs_.Client("root").key_file;  // not its key
  Status s = RouterServer::Start(router_, options).status();
  EXPECT_TRUE(s.IsInvalidArgument()) << s.ToString();
  EXPECT_THAT(s.message(), HasSubstr("is not the key of"));
  options.tls = certs_.Node();
  options.tls.cert_file += ".missing";
  s = RouterServer::Start(router_, options).status();
  EXPECT_THAT(s.message(), HasSubstr("--tls-cert"));
}

// Thrift throws TSSLException for every TLS failure, a server that dies
// mid-call included: only a refusal is PermissionDenied (not retried); the
// rest is Unavailable, as the same failure in the clear.
TEST(TlsFailureTest, OnlyRefusalsArePermissionDenied) {
  auto failure_of = [](const std::string& message) {
    try {
      throw apache::thrift::transport::TSSLException(message);
    } catch (...) {
      return thrift_internal::FailureOfCurrentException("server: ").status;
    }
  };
  for (const char* refusal : {"SSL_connect: certificate verify failed",
                              "SSL_read: tlsv13 alert certificate required",
                              "SSL_read: sslv3 alert certificate expired",
                              "SSL_connect: tlsv1 alert unknown ca",
                              "authorize: cannot authorize peer",
                              "SSL_connect: wrong version number"}) {
    EXPECT_TRUE(failure_of(refusal).IsPermissionDenied()) << refusal;
  }
  for (const char* lost :
       {"SSL_read: unexpected eof while reading",
        "SSL_read: Connection reset by peer", "SSL_write: Broken pipe"}) {
    EXPECT_TRUE(failure_of(lost).IsUnavailable()) << lost;
  }
}

class RegionTlsTest : public ::testing::Test {
 protected:
  void SetUp() override {
    auto store = RegionStore::Open(dir_.path(), RegionStoreOptions());
    ASSERT_TRUE(store.ok()) << store.status().ToString();
    RegionServerOptions options;
    options.port = 0;
    options.threads = 2;
    options.tls = certs_.Node();
    auto server = RegionServer::Start(std::move(store).value(), options);
    ASSERT_TRUE(server.ok()) << server.status().ToString();
    server_ = std::move(server).value();
  }

  StatusOr<std::vector<RegionDescriptor>> ListAs(const TlsOptions& tls) {
    ThriftClientOptions options;
    options.tls = tls;
    options.connect_timeout_ms = 5000;
    options.call_timeout_ms = 5000;
    auto client = NewThriftRegionClientFactory(options)->Connect(
        1, "127.0.0.1:" + std::to_string(server_->port()));
    if (!client.ok()) return client.status();
    return (*client)->ListRegions();
  }

  Certs certs_;
  TempDir dir_;
  std::unique_ptr<RegionServer> server_;
};

// The router's connections to region servers read the revocation list
// only at start: a region server whose certificate was revoked stayed
// trusted until the router restarted. ReloadClientTlsFiles (the router's
// SIGHUP) makes the next connection read it again, and closes the idle
// ones, verified against the old list.
TEST_F(RegionTlsTest, ARevokedServerIsRefusedOnceTheClientsReload) {
  ThriftClientOptions options;
  options.tls = certs_.Machine(Role::kRouter);
  options.tls.crl_file = certs_.Revoke("");  // revokes nothing yet
  options.connect_timeout_ms = 5000;
  options.call_timeout_ms = 5000;
  auto client = NewThriftRegionClientFactory(options)->Connect(
      1, "127.0.0.1:" + std::to_string(server_->port()));
  ASSERT_TRUE(client.ok()) << client.status().ToString();
  ASSERT_TRUE((*client)->ListRegions().ok());
  certs_.RevokeFile(kNodeCertFile);  // the region server's certificate
  // Until the reload, the list read at start holds.
  EXPECT_TRUE((*client)->ListRegions().ok());
  ReloadClientTlsFiles();
  Status s = (*client)->ListRegions().status();
  EXPECT_TRUE(s.IsPermissionDenied()) << s.ToString();
  EXPECT_THAT(s.message(), HasSubstr("certificate"));
}

TEST_F(RegionTlsTest, OnlyARouterOfTheClusterIsServed) {
  auto listed = ListAs(certs_.Node());
  ASSERT_TRUE(listed.ok()) << listed.status().ToString();
  EXPECT_TRUE(listed->empty());

  Status s = ListAs(certs_.Client("root")).status();
  EXPECT_TRUE(s.IsPermissionDenied()) << s.ToString();
  EXPECT_THAT(s.message(), HasSubstr("needs role node"));
  s = ListAs(certs_.CaOnly()).status();  // no certificate at all
  EXPECT_TRUE(s.IsPermissionDenied()) << s.ToString();
  TlsOptions stranger = certs_.StrangerNode();
  stranger.ca_file = certs_.Node().ca_file;
  s = ListAs(stranger).status();  // a node of another cluster
  EXPECT_TRUE(s.IsPermissionDenied()) << s.ToString();
  EXPECT_TRUE(ListAs(certs_.Node()).ok());
}

// A read-role certificate may call nothing on a region server: its refused
// oneway calls kept the connection (and a slot) as long as it sent them.
TEST_F(RegionTlsTest, ARefusedOnewayCallClosesItsConnection) {
  const TlsOptions reader = certs_.Client("reader");
  RawTlsClient client(server_->port(), certs_.Node().ca_file, &reader);
  ASSERT_TRUE(client.ok());
  const auto sent = std::chrono::steady_clock::now();
  ASSERT_TRUE(client.Send(FramedCall("mutateRows", /*oneway=*/true)));
  bool closed = false;
  EXPECT_EQ(client.ReadUntilClosed(&closed), "");
  EXPECT_LT(std::chrono::steady_clock::now() - sent, std::chrono::seconds(3));
  EXPECT_TRUE(closed);
  EXPECT_TRUE(ListAs(certs_.Node()).ok());
}

// With a certificate per kind of machine, a region server serves the
// router's (and the shared node certificate of clusters not yet renewed),
// never another region server's, which could otherwise write around the
// router. A region server may itself serve with its regionserver
// certificate.
TEST_F(RegionTlsTest, ARegionServerCertificateCannotCallARegionServer) {
  EXPECT_TRUE(ListAs(certs_.Machine(Role::kRouter)).ok());
  EXPECT_TRUE(ListAs(certs_.Node()).ok());
  // Refused at the handshake already (its certificate is for serverAuth
  // only); access control would refuse the role as well.
  const Status s = ListAs(certs_.Machine(Role::kRegionServer)).status();
  EXPECT_TRUE(s.IsPermissionDenied()) << s.ToString();

  TempDir other;
  auto store = RegionStore::Open(other.path(), RegionStoreOptions());
  ASSERT_TRUE(store.ok()) << store.status().ToString();
  RegionServerOptions options;
  options.port = 0;
  options.tls = certs_.Machine(Role::kRegionServer);
  auto server = RegionServer::Start(std::move(store).value(), options);
  ASSERT_TRUE(server.ok()) << server.status().ToString();
  ThriftClientOptions client_options;
  client_options.tls = certs_.Machine(Role::kRouter);
  client_options.connect_timeout_ms = 5000;
  client_options.call_timeout_ms = 5000;
  auto client =
      NewThriftRegionClientFactory(client_options)
          ->Connect(1, "127.0.0.1:" + std::to_string((*server)->port()));
  ASSERT_TRUE(client.ok()) << client.status().ToString();
  EXPECT_TRUE((*client)->ListRegions().ok());
}

TEST_F(RegionTlsTest, APlainClientIsClosed) {
  EXPECT_TRUE(PlaintextConnectionIsClosed(server_->port(), "hello"));
  Status s = ListAs(TlsOptions()).status();
  EXPECT_FALSE(s.ok());
  EXPECT_TRUE(ListAs(certs_.Node()).ok());
}

}  // namespace
}  // namespace bloomroute
