// HttpServer (http/http_server.h) on loopback: replies, keep-alive, every
// bound (header and body bytes, malformed requests, methods, the three
// timeouts, max_connections), a throwing handler, Stop with clients still
// connected, and HTTPS with certificates made by the cluster tool's library
// (tools/certs.h, through tests/thrift/tls_test_util.h). Raw POSIX sockets
// and a raw OpenSSL client, so that a test sends what no library would.
// Timing bounds are generous (the sanitizer build runs these too).
#include "http/http_server.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <atomic>
#include <cctype>
#include <chrono>
#include <memory>
#include <mutex>
#include <stdexcept>
#include <string>
#include <thread>

#include "tests/thrift/tls_test_util.h"

namespace bloomroute {
namespace {

using ::bloomroute::testing::Certs;
using ::bloomroute::testing::ConnectTcp;
using ::bloomroute::testing::PlaintextConnectionIsClosed;
using ::bloomroute::testing::RawTlsClient;
using ::testing::HasSubstr;
using Clock = std::chrono::steady_clock;
using std::chrono::milliseconds;

int64_t MsSince(Clock::time_point start) {
  return std::chrono::duration_cast<milliseconds>(Clock::now() - start).count();
}

struct Reply {
  int status = 0;  // 0: the connection closed (or 5 s passed) first
  std::string head;
  std::string body;
};

// A plaintext client on a raw socket.
class Client {
 public:
  explicit Client(int port) : fd_(ConnectTcp(port)) {}
  ~Client() {
    if (fd_ >= 0) close(fd_);
  }
  Client(const Client&) = delete;
  Client& operator=(const Client&) = delete;

  bool ok() const { return fd_ >= 0; }
  bool Send(const std::string& bytes) {
    return send(fd_, bytes.data(), bytes.size(), MSG_NOSIGNAL) ==
           static_cast<ssize_t>(bytes.size());
  }
  // One reply, its body by Content-Length (none after HEAD).
  Reply Read(bool head = false) {
    Reply reply;
    size_t end;
    while ((end = buffered_.find("\r\n\r\n")) == std::string::npos) {
      if (!Receive()) return reply;
    }
    reply.head = buffered_.substr(0, end + 4);
    buffered_.erase(0, end + 4);
    reply.status = std::atoi(reply.head.c_str() + 9);
    size_t length = 0;
    std::string lower = reply.head;
    for (char& c : lower) c = static_cast<char>(std::tolower(c));
    const size_t at = lower.find("content-length: ");
    if (at != std::string::npos && !head) {
      length = std::strtoull(lower.c_str() + at + 16, nullptr, 10);
    }
    while (buffered_.size() < length) {
      if (!Receive()) break;
    }
    reply.body = buffered_.substr(0, length);
    buffered_.erase(0, length);
    return reply;
  }
  // Whether the server closes the connection (end or reset) within
  // `timeout`; bytes before are dropped.
  bool ClosedWithin(milliseconds timeout) {
    const auto deadline = Clock::now() + timeout;
    while (Clock::now() < deadline) {
      pollfd p{fd_, POLLIN, 0};
      const auto left =
          std::chrono::duration_cast<milliseconds>(deadline - Clock::now());
      if (poll(&p, 1, static_cast<int>(std::max<int64_t>(left.count(), 0))) <=
          0) {
        continue;
      }
      char buffer[4096];
      const ssize_t n = recv(fd_, buffer, sizeof(buffer), 0);
      if (n == 0 || (n < 0 && errno == ECONNRESET)) return true;
    }
    return false;
  }

 private:
  bool Receive() {
    char buffer[65536];
    const ssize_t n = recv(fd_, buffer, sizeof(buffer), 0);
    if (n <= 0) return false;
    buffered_.append(buffer, static_cast<size_t>(n));
    return true;
  }

  int fd_;
  std::string buffered_;
};

std::string Get(const std::string& target, const std::string& more = "") {
  return "GET " + target + " HTTP/1.1\r\nHost: test\r\n" + more + "\r\n";
}

// Sends GET `target` on `client`: the reply's status (0 when none came).
int GetStatus(Client* client, const std::string& target) {
  if (!client->Send(Get(target))) return 0;
  return client->Read().status;
}

// One cluster's certificates for every HTTPS test (made once: keys take
// time).
Certs& SharedCerts() {
  static Certs* certs = new Certs();
  return *certs;
}

class HttpServerTest : public ::testing::Test {
 protected:
  static HttpServerOptions Options() {
    HttpServerOptions options;
    options.threads = 2;
    return options;
  }
  static HttpServerOptions TlsOptions(const Certs& certs = SharedCerts()) {
    HttpServerOptions options = Options();
    const bloomroute::TlsOptions node = certs.Node();
    options.tls_ca_file = node.ca_file;
    options.tls_cert_file = node.cert_file;
    options.tls_key_file = node.key_file;
    return options;
  }

  void StartServer(const HttpServerOptions& options) {
    options_ = options;
    auto server = HttpServer::Start(
        options, [this](const HttpRequest& r) { return Handle(r); });
    ASSERT_TRUE(server.ok()) << server.status().ToString();
    server_ = std::move(*server);
  }

  HttpResponse Handle(const HttpRequest& r) {
    {
      std::lock_guard<std::mutex> lock(mu_);
      last_ = r;
    }
    if (r.path == "/throw") throw std::runtime_error("the handler failed");
    if (r.path == "/big") return HttpResponse{200, "text/plain", big_};
    if (r.path == "/slow") {
      handler_entered_ = true;
      std::this_thread::sleep_for(milliseconds(300));
    }
    if (r.path == "/json") {
      return HttpResponse{
          201, "application/json", "{\"a\":1}", {{"X-Test", "yes"}}};
    }
    return HttpResponse{200, "text/plain; charset=utf-8",
                        "cn=" + r.client_cn + " tls=" + (r.tls ? "1" : "0")};
  }

  HttpRequest LastRequest() {
    std::lock_guard<std::mutex> lock(mu_);
    return last_;
  }

  uint64_t Refusals(const std::string& bound) const {
    for (const auto& [name, count] : server_->stats().refusals) {
      if (name == bound) return count;
    }
    ADD_FAILURE() << "no bound " << bound;
    return 0;
  }

  // Sends `bytes` to a server with `options`: the reply, which must have
  // `status`, then the connection closed and `bound` counted once (none
  // when empty), the handler never called.
  Reply ExpectRefused(const HttpServerOptions& options,
                      const std::string& bytes, int status,
                      const std::string& bound) {
    StartServer(options);
    Client client(server_->port());
    EXPECT_TRUE(client.Send(bytes));
    Reply reply = client.Read();
    EXPECT_EQ(reply.status, status);
    EXPECT_TRUE(client.ClosedWithin(milliseconds(3000)));
    if (!bound.empty()) {
      EXPECT_EQ(Refusals(bound), 1u);
    }
    EXPECT_EQ(server_->stats().requests, 0u);
    return reply;
  }

  // What an HTTPS client with `identity` (or none) reads for `requests`
  // until the server closes; "" when the handshake or the send fails.
  std::string OverTls(const std::string& requests,
                      const bloomroute::TlsOptions* identity = nullptr) {
    RawTlsClient client(server_->port(), options_.tls_ca_file, identity);
    if (!client.ok() || !client.Send(requests)) return std::string();
    bool closed = false;
    std::string replies = client.ReadUntilClosed(&closed);
    EXPECT_TRUE(closed);
    return replies;
  }

  // Waits up to 5 s for `done`.
  template <class Predicate>
  static bool Eventually(Predicate done) {
    const auto deadline = Clock::now() + std::chrono::seconds(5);
    while (!done()) {
      if (Clock::now() > deadline) return false;
      std::this_thread::sleep_for(milliseconds(10));
    }
    return true;
  }

  HttpServerOptions options_;  // the server's
  std::unique_ptr<HttpServer> server_;
  std::string big_;
  std::atomic<bool> handler_entered_{false};
  std::mutex mu_;
  HttpRequest last_;  // guarded by mu_
};

TEST_F(HttpServerTest, GetReturnsTheHandlersReply) {
  StartServer(Options());
  EXPECT_EQ(server_->url(),
            "http://127.0.0.1:" + std::to_string(server_->port()));
  Client client(server_->port());
  ASSERT_TRUE(client.Send(Get("/json?x=1&y", "Accept: */*\r\n")));
  const Reply reply = client.Read();
  EXPECT_EQ(reply.status, 201);
  EXPECT_THAT(reply.head, HasSubstr("Content-Type: application/json\r\n"));
  EXPECT_THAT(reply.head, HasSubstr("X-Test: yes\r\n"));
  EXPECT_THAT(reply.head, HasSubstr("Connection: keep-alive\r\n"));
  EXPECT_EQ(reply.body, "{\"a\":1}");
  const HttpRequest seen = LastRequest();
  EXPECT_EQ(seen.method, "GET");
  EXPECT_EQ(seen.path, "/json");
  EXPECT_EQ(seen.query, "x=1&y");
  ASSERT_NE(seen.Header("accept"), nullptr);
  EXPECT_EQ(*seen.Header("accept"), "*/*");
  EXPECT_THAT(seen.remote_address, ::testing::StartsWith("127.0.0.1:"));
  EXPECT_FALSE(seen.tls);
  EXPECT_EQ(server_->stats().requests, 1u);
  EXPECT_EQ(server_->stats().connections_accepted, 1u);
}

TEST_F(HttpServerTest, HeadHasTheGetLengthAndNoBody) {
  StartServer(Options());
  Client client(server_->port());
  ASSERT_TRUE(client.Send("HEAD / HTTP/1.1\r\n\r\n" + Get("/")));
  const Reply head = client.Read(/*head=*/true);
  EXPECT_EQ(head.status, 200);
  EXPECT_THAT(head.head, HasSubstr("Content-Length: 9\r\n"));  // cn= tls=0
  // Had a body followed, it would be read as the next reply's start.
  const Reply get = client.Read();
  EXPECT_EQ(get.status, 200);
  EXPECT_EQ(get.body, "cn= tls=0");
}

TEST_F(HttpServerTest, OtherMethodsAre405WithAllow) {
  const Reply reply = ExpectRefused(
      Options(), "POST / HTTP/1.1\r\nContent-Length: 3\r\n\r\nabc", 405, "");
  EXPECT_THAT(reply.head, HasSubstr("Allow: GET, HEAD\r\n"));
}

TEST_F(HttpServerTest, KeepAliveServesRequestsOnOneConnection) {
  StartServer(Options());
  Client client(server_->port());
  EXPECT_EQ(GetStatus(&client, "/a"), 200);
  EXPECT_EQ(GetStatus(&client, "/b"), 200);
  EXPECT_EQ(LastRequest().path, "/b");
  // Pipelined, the last one asking to close.
  ASSERT_TRUE(client.Send(Get("/c") + Get("/d", "Connection: close\r\n")));
  EXPECT_EQ(client.Read().status, 200);
  const Reply last = client.Read();
  EXPECT_EQ(last.status, 200);
  EXPECT_THAT(last.head, HasSubstr("Connection: close\r\n"));
  EXPECT_TRUE(client.ClosedWithin(milliseconds(3000)));
  EXPECT_EQ(server_->stats().connections_accepted, 1u);
  EXPECT_EQ(server_->stats().requests, 4u);
}

TEST_F(HttpServerTest, Http10ClosesUnlessKeepAlive) {
  StartServer(Options());
  Client client(server_->port());
  ASSERT_TRUE(client.Send("GET / HTTP/1.0\r\n\r\n"));
  const Reply reply = client.Read();
  EXPECT_EQ(reply.status, 200);
  EXPECT_THAT(reply.head, HasSubstr("Connection: close\r\n"));
  EXPECT_TRUE(client.ClosedWithin(milliseconds(3000)));
}

TEST_F(HttpServerTest, OversizedHeaderIs431AndClosed) {
  HttpServerOptions options = Options();
  options.max_header_bytes = 1024;
  ExpectRefused(options, Get("/", "X-Long: " + std::string(4000, 'a') + "\r\n"),
                431, "header_bytes");
}

TEST_F(HttpServerTest, OversizedBodyIs413AndClosed) {
  HttpServerOptions options = Options();
  options.max_body_bytes = 10;
  ExpectRefused(options,
                Get("/", "Content-Length: 100\r\n") + std::string(100, 'b'),
                413, "body_bytes");
}

TEST_F(HttpServerTest, MalformedRequestIs400AndClosed) {
  ExpectRefused(Options(), "HELLO THERE\r\n\r\n", 400, "malformed");
}

TEST_F(HttpServerTest, SlowClientIsClosedByTheRequestTimeout) {
  HttpServerOptions options = Options();
  options.request_timeout_ms = 500;
  StartServer(options);
  Client client(server_->port());
  const std::string request = Get("/" + std::string(100, 'a'));
  const auto start = Clock::now();
  bool closed = false;
  // One byte every 200 ms: each read is quick, the request is not.
  for (size_t i = 0; i < request.size() && !closed; ++i) {
    if (!client.Send(request.substr(i, 1))) break;
    closed = client.ClosedWithin(milliseconds(200));
  }
  EXPECT_TRUE(closed || client.ClosedWithin(milliseconds(1000)));
  const int64_t elapsed = MsSince(start);
  EXPECT_GE(elapsed, 400);
  EXPECT_LT(elapsed, 3000);
  EXPECT_EQ(Refusals("request_timeout"), 1u);
  EXPECT_EQ(server_->stats().requests, 0u);
}

TEST_F(HttpServerTest, IdleConnectionIsClosed) {
  HttpServerOptions options = Options();
  options.idle_timeout_ms = 300;
  StartServer(options);
  Client client(server_->port());
  const auto start = Clock::now();
  EXPECT_TRUE(client.ClosedWithin(milliseconds(3000)));
  EXPECT_GE(MsSince(start), 250);
  // And after a request, before the next.
  Client other(server_->port());
  EXPECT_EQ(GetStatus(&other, "/"), 200);
  EXPECT_TRUE(other.ClosedWithin(milliseconds(3000)));
  EXPECT_EQ(Refusals("idle_timeout"), 2u);
}

TEST_F(HttpServerTest, ReplyTimeoutClosesAClientThatDoesNotRead) {
  HttpServerOptions options = Options();
  options.reply_timeout_ms = 300;
  StartServer(options);
  big_.assign(64 << 20, 'x');  // more than loopback's socket buffers hold
  Client client(server_->port());
  ASSERT_TRUE(client.Send(Get("/big")));
  EXPECT_TRUE(Eventually([&] { return Refusals("reply_timeout") == 1; }));
  EXPECT_TRUE(
      Eventually([&] { return server_->stats().connections_open == 0; }));
}

TEST_F(HttpServerTest, MaxConnectionsAnswers503AndKeepsCounting) {
  HttpServerOptions options = Options();
  options.max_connections = 2;
  StartServer(options);
  auto first = std::make_unique<Client>(server_->port());
  Client second(server_->port());
  for (Client* c : {first.get(), &second}) {
    ASSERT_EQ(GetStatus(c, "/"), 200);
  }
  Client third(server_->port());
  const Reply refused = third.Read();
  EXPECT_EQ(refused.status, 503);
  EXPECT_TRUE(third.ClosedWithin(milliseconds(3000)));
  EXPECT_EQ(Refusals("max_connections"), 1u);
  EXPECT_EQ(server_->stats().connections_open, 2u);
  // A slot freed is a slot served.
  first.reset();
  ASSERT_TRUE(
      Eventually([&] { return server_->stats().connections_open == 1; }));
  Client fourth(server_->port());
  EXPECT_EQ(GetStatus(&fourth, "/"), 200);
  EXPECT_EQ(server_->stats().connections_accepted, 4u);
  EXPECT_EQ(server_->stats().connections_open, 2u);
}

TEST_F(HttpServerTest, HandlerThatThrowsIs500AndTheServerGoesOn) {
  StartServer(Options());
  Client client(server_->port());
  EXPECT_EQ(GetStatus(&client, "/throw"), 500);
  EXPECT_EQ(GetStatus(&client, "/"), 200);
  Client other(server_->port());
  EXPECT_EQ(GetStatus(&other, "/"), 200);
}

TEST_F(HttpServerTest, StopDoesNotWaitForClients) {
  StartServer(Options());
  Client idle(server_->port());
  Client partial(server_->port());
  ASSERT_TRUE(partial.Send("GET /half"));
  Client waiting(server_->port());
  ASSERT_TRUE(waiting.Send(Get("/slow")));
  ASSERT_TRUE(Eventually([&] { return handler_entered_.load(); }));
  ASSERT_TRUE(
      Eventually([&] { return server_->stats().connections_open == 3; }));
  const auto start = Clock::now();
  server_->Stop();
  EXPECT_LT(MsSince(start), 2000);  // the handler's 300 ms, no client's
  EXPECT_TRUE(idle.ClosedWithin(milliseconds(1000)));
  EXPECT_TRUE(partial.ClosedWithin(milliseconds(1000)));
  EXPECT_TRUE(waiting.ClosedWithin(milliseconds(1000)));
  EXPECT_EQ(server_->stats().connections_open, 0u);
  server_->Stop();  // idempotent
  EXPECT_LT(ConnectTcp(server_->port()), 0);
}

TEST_F(HttpServerTest, BadOptionsAndBusyPortsAreRefused) {
  HttpServerOptions options = Options();
  options.threads = 0;
  EXPECT_THAT(options.Validate().message(), HasSubstr("threads"));
  options = Options();
  options.max_header_bytes = 100;
  EXPECT_THAT(options.Validate().message(), HasSubstr("max_header_bytes"));
  options = Options();
  options.request_timeout_ms = 0;
  EXPECT_THAT(options.Validate().message(), HasSubstr("request_timeout_ms"));
  options = Options();
  options.tls_cert_file = "/nonexistent.crt";
  EXPECT_TRUE(options.Validate().IsInvalidArgument());
  auto handler = [](const HttpRequest&) { return HttpResponse{}; };
  EXPECT_FALSE(HttpServer::Start(options, handler).ok());
  options.tls_ca_file = "/nonexistent/ca.crt";
  options.tls_key_file = "/nonexistent.key";
  auto bad_files = HttpServer::Start(options, handler);
  EXPECT_TRUE(bad_files.status().IsInvalidArgument());
  EXPECT_FALSE(HttpServer::Start(Options(), nullptr).ok());
  StartServer(Options());
  options = Options();
  options.port = server_->port();
  auto busy = HttpServer::Start(options, handler);
  EXPECT_TRUE(busy.status().IsIOError()) << busy.status().ToString();
}

TEST_F(HttpServerTest, HttpsClientCertificateNamesTheClient) {
  StartServer(TlsOptions());
  EXPECT_EQ(server_->url(),
            "https://127.0.0.1:" + std::to_string(server_->port()));
  const bloomroute::TlsOptions reader = SharedCerts().Client("reader");
  const std::string reply = OverTls(Get("/", "Connection: close\r\n"), &reader);
  EXPECT_THAT(reply, ::testing::StartsWith("HTTP/1.1 200 OK\r\n"));
  EXPECT_THAT(reply, HasSubstr("cn=reader tls=1"));
}

TEST_F(HttpServerTest, HttpsWithoutClientCertificateHasNoName) {
  StartServer(TlsOptions());
  const std::string replies =
      OverTls(Get("/") + Get("/", "Connection: close\r\n"));
  EXPECT_THAT(replies, HasSubstr("cn= tls=1"));
  EXPECT_NE(replies.find("cn= tls=1"), replies.rfind("cn= tls=1"));
}

TEST_F(HttpServerTest, HttpsRefusesStrangersAndPlaintext) {
  StartServer(TlsOptions());
  const bloomroute::TlsOptions stranger = SharedCerts().StrangerClient();
  EXPECT_EQ(OverTls(Get("/"), &stranger), "");
  EXPECT_TRUE(PlaintextConnectionIsClosed(server_->port(), Get("/")));
  EXPECT_TRUE(Eventually([&] { return Refusals("tls_handshake") == 2; }));
  // Still serving.
  EXPECT_THAT(OverTls(Get("/", "Connection: close\r\n")), HasSubstr("200 OK"));
}

TEST_F(HttpServerTest, HttpsHandshakeIsBoundedByTheRequestTimeout) {
  HttpServerOptions options = TlsOptions();
  options.request_timeout_ms = 300;
  StartServer(options);
  Client silent(server_->port());
  EXPECT_TRUE(silent.ClosedWithin(milliseconds(3000)));
  EXPECT_EQ(Refusals("tls_handshake"), 1u);
}

TEST_F(HttpServerTest, HttpsReloadCrlRefusesARevokedCertificate) {
  const Certs certs;  // its own: a revocation stays
  HttpServerOptions options = TlsOptions(certs);
  options.tls_crl_file = certs.Revoke("");
  StartServer(options);
  const bloomroute::TlsOptions writer = certs.Client("writer");
  EXPECT_THAT(OverTls(Get("/", "Connection: close\r\n"), &writer),
              HasSubstr("cn=writer"));
  certs.Revoke("writer");
  ASSERT_TRUE(server_->ReloadCrl().ok());
  EXPECT_EQ(OverTls(Get("/"), &writer), "");
}

TEST(HttpRequestTest, HeaderAndBearerToken) {
  HttpRequest r;
  EXPECT_EQ(r.Header("authorization"), nullptr);
  EXPECT_EQ(r.BearerToken(), "");
  r.headers = {
      {"x-a", "1"}, {"authorization", "  bearer  tok123 "}, {"x-a", "2"}};
  EXPECT_EQ(*r.Header("x-a"), "1");
  EXPECT_EQ(r.BearerToken(), "tok123");
  r.headers = {{"authorization", "Basic abc"}};
  EXPECT_EQ(r.BearerToken(), "");
  r.headers = {{"authorization", "Bearer"}};
  EXPECT_EQ(r.BearerToken(), "");
  r.headers = {{"authorization", "Bearerx tok"}};
  EXPECT_EQ(r.BearerToken(), "");
}

}  // namespace
}  // namespace bloomroute
