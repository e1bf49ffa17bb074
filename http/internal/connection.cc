#include "http/internal/connection.h"

#include <algorithm>
#include <boost/asio/post.hpp>
#include <boost/asio/ssl/stream.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/asio/write.hpp>
#include <chrono>
#include <cstring>
#include <exception>
#include <string_view>
#include <type_traits>

#include "common/log.h"
#include "http/internal/reply.h"
#include "http/internal/request_reader.h"
#include "tls/ssl_context.h"

namespace bloomroute::http_internal {

namespace asio = boost::asio;
using asio::ip::tcp;
using ErrorCode = boost::system::error_code;
using TlsStream = asio::ssl::stream<tcp::socket>;

HttpResponse ServerState::RunHandler(const HttpRequest& request) const {
  // A handler's exception must not reach the worker thread (it would end
  // the process): it is a 500 for this request, and the server goes on.
  try {
    HttpResponse response = handler(request);
    if (IsSendableStatus(response.status)) return response;
    Log(LogLevel::kWarn, "http",
        request.path + ": the handler answered status " +
            std::to_string(response.status));
  } catch (const std::exception& e) {
    Log(LogLevel::kWarn, "http",
        request.path + ": the handler threw: " + std::string(e.what()));
  } catch (...) {
    Log(LogLevel::kWarn, "http", request.path + ": the handler threw");
  }
  return ErrorReply(500, "internal server error");
}

void ServerState::Refuse(const char* bound) {
  if (bound == nullptr) return;
  for (size_t i = 0; i < kBoundCount; ++i) {
    if (std::strcmp(kBoundNames[i], bound) == 0) refusals_[i].fetch_add(1);
  }
}

std::vector<std::pair<std::string, uint64_t>> ServerState::Refusals() const {
  std::vector<std::pair<std::string, uint64_t>> counts;
  for (size_t i = 0; i < kBoundCount; ++i) {
    counts.emplace_back(kBoundNames[i], refusals_[i].load());
  }
  return counts;
}

uint64_t ServerState::Register(const std::shared_ptr<Connection>& connection) {
  std::lock_guard<std::mutex> lock(mu_);
  connections_[next_id_] = connection;
  return next_id_++;
}

void ServerState::Unregister(uint64_t id) {
  std::lock_guard<std::mutex> lock(mu_);
  connections_.erase(id);
}

std::vector<std::shared_ptr<Connection>> ServerState::LiveConnections() {
  std::vector<std::shared_ptr<Connection>> live;
  std::lock_guard<std::mutex> lock(mu_);
  for (const auto& [id, weak] : connections_) {
    if (auto connection = weak.lock()) live.push_back(std::move(connection));
  }
  return live;
}

std::shared_ptr<asio::ssl::context> ServerState::TlsContext() const {
  std::lock_guard<std::mutex> lock(mu_);
  return tls_context_;
}

void ServerState::SetTlsContext(std::shared_ptr<asio::ssl::context> context) {
  std::lock_guard<std::mutex> lock(mu_);
  tls_context_ = std::move(context);
}

namespace {

template <class Socket>
std::string PeerAddress(const Socket& socket) {
  ErrorCode error;
  const tcp::endpoint peer = socket.remote_endpoint(error);
  if (error) return "unknown";
  const std::string host = peer.address().to_string();
  return (peer.address().is_v6() ? "[" + host + "]" : host) + ":" +
         std::to_string(peer.port());
}

// What a TLS port answers a client whose first bytes are not TLS (a
// plaintext HTTP request): it is told in its own protocol, then closed.
constexpr std::string_view kPlaintextOnTlsPort =
    "HTTP/1.1 400 Bad Request\r\n"
    "Content-Type: text/plain; charset=utf-8\r\n"
    "Content-Length: 23\r\n"
    "Connection: close\r\n\r\n"
    "this port speaks HTTPS\n";

// Serves one connection over `Stream`: tcp::socket, or an SSL stream on
// one (see connection.h for the phases and their deadlines).
template <class Stream>
class StreamConnection final
    : public Connection,
      public std::enable_shared_from_this<StreamConnection<Stream>> {
 public:
  static constexpr bool kTls = std::is_same_v<Stream, TlsStream>;

  StreamConnection(ServerState* server, tcp::socket socket,
                   std::shared_ptr<asio::ssl::context> tls_context);
  ~StreamConnection() override;
  StreamConnection(const StreamConnection&) = delete;
  StreamConnection& operator=(const StreamConnection&) = delete;

  void Start() override;
  void Close() override;
  void set_id(uint64_t id) { id_ = id; }

 private:
  // What the connection waits for, and so which deadline runs and which
  // bound its passing counts.
  enum class Phase { kHandshake, kIdle, kRequest, kHandler, kReply, kLinger };

  void Arm(Phase phase, int timeout_ms);
  void Disarm(Phase phase);
  void OnDeadline();
  void OnTlsFirstBytes(const ErrorCode& error, size_t bytes);
  void OnHandshake(const ErrorCode& error);
  void AwaitRequest();
  void ReadMore();
  void OnRead(const ErrorCode& error, size_t bytes);
  void Process(RequestReader::State state);
  void Dispatch();
  void Reply(const HttpResponse& response, bool head, bool keep_alive);
  void OnWritten(const ErrorCode& error, bool keep_alive);
  void Linger();
  void Drain();

  ServerState* const server_;
  const std::shared_ptr<asio::ssl::context> tls_context_;  // kTls only
  Stream stream_;
  asio::steady_timer deadline_;
  uint64_t deadline_generation_ = 0;  // a wait of an older one is stale
  Phase phase_ = Phase::kIdle;
  RequestReader reader_;
  std::array<char, 8192> buffer_{};
  std::string out_;  // the reply being written
  const std::string remote_address_;
  std::string client_cn_;
  uint64_t id_ = 0;
  bool closed_ = false;
};

template <class Stream>
Stream MakeStream(tcp::socket socket, asio::ssl::context* tls_context) {
  if constexpr (std::is_same_v<Stream, TlsStream>) {
    return Stream(std::move(socket), *tls_context);
  } else {
    (void)tls_context;
    return socket;
  }
}

template <class Stream>
StreamConnection<Stream>::StreamConnection(
    ServerState* server, tcp::socket socket,
    std::shared_ptr<asio::ssl::context> tls_context)
    : server_(server),
      tls_context_(std::move(tls_context)),
      stream_(MakeStream<Stream>(std::move(socket), tls_context_.get())),
      deadline_(*server->io),
      reader_(RequestLimits{server->options.max_header_bytes,
                            server->options.max_body_bytes}),
      remote_address_(PeerAddress(stream_.lowest_layer())) {
  server_->connections_open.fetch_add(1);
}

template <class Stream>
StreamConnection<Stream>::~StreamConnection() {
  server_->Unregister(id_);
  server_->connections_open.fetch_sub(1);
}

template <class Stream>
void StreamConnection<Stream>::Start() {
  if constexpr (kTls) {
    // The handshake is bounded like a request. Its first bytes are read
    // here to tell a plaintext client apart.
    Arm(Phase::kHandshake, server_->options.request_timeout_ms);
    stream_.next_layer().async_read_some(
        asio::buffer(buffer_), [self = this->shared_from_this()](
                                   const ErrorCode& error, size_t bytes) {
          self->OnTlsFirstBytes(error, bytes);
        });
  } else {
    AwaitRequest();
  }
}

template <class Stream>
void StreamConnection<Stream>::Close() {
  if (closed_) return;
  closed_ = true;
  ++deadline_generation_;
  deadline_.cancel();
  ErrorCode ignored;
  stream_.lowest_layer().close(ignored);
}

template <class Stream>
void StreamConnection<Stream>::Arm(Phase phase, int timeout_ms) {
  phase_ = phase;
  deadline_.expires_after(std::chrono::milliseconds(timeout_ms));
  deadline_.async_wait(
      [self = this->shared_from_this(),
       generation = ++deadline_generation_](const ErrorCode& error) {
        if (!error && generation == self->deadline_generation_) {
          self->OnDeadline();
        }
      });
}

template <class Stream>
void StreamConnection<Stream>::Disarm(Phase phase) {
  phase_ = phase;
  ++deadline_generation_;
  deadline_.cancel();
}

template <class Stream>
void StreamConnection<Stream>::OnDeadline() {
  if (closed_) return;
  // The bound each phase's deadline stands for, by Phase (none while a
  // handler runs or a closed connection drains).
  static constexpr const char* kBounds[] = {"tls_handshake",   "idle_timeout",
                                            "request_timeout", nullptr,
                                            "reply_timeout",   nullptr};
  server_->Refuse(kBounds[static_cast<int>(phase_)]);
  Close();
}

template <class Stream>
void StreamConnection<Stream>::OnTlsFirstBytes(const ErrorCode& error,
                                               size_t bytes) {
  if constexpr (kTls) {
    if (closed_) return;
    if (error || bytes == 0) return Close();
    if (buffer_[0] != 0x16) {  // not a TLS handshake record
      server_->Refuse("tls_handshake");
      Arm(Phase::kLinger, server_->options.reply_timeout_ms);
      asio::async_write(stream_.next_layer(), asio::buffer(kPlaintextOnTlsPort),
                        [self = this->shared_from_this()](
                            const ErrorCode&, size_t) { self->Close(); });
      return;
    }
    stream_.async_handshake(
        asio::ssl::stream_base::server, asio::buffer(buffer_.data(), bytes),
        [self = this->shared_from_this()](const ErrorCode& error, size_t) {
          self->OnHandshake(error);
        });
  }
}

template <class Stream>
void StreamConnection<Stream>::OnHandshake(const ErrorCode& error) {
  if constexpr (kTls) {
    if (closed_) return;
    if (error) {
      server_->Refuse("tls_handshake");
      return Close();
    }
    client_cn_ = tls::VerifiedPeerCommonName(stream_.native_handle());
    AwaitRequest();
  }
}

template <class Stream>
void StreamConnection<Stream>::AwaitRequest() {
  // Bytes of the next request already here (pipelined) start its clock.
  if (reader_.started()) {
    Arm(Phase::kRequest, server_->options.request_timeout_ms);
  } else {
    Arm(Phase::kIdle, server_->options.idle_timeout_ms);
  }
  ReadMore();
}

template <class Stream>
void StreamConnection<Stream>::ReadMore() {
  stream_.async_read_some(
      asio::buffer(buffer_),
      [self = this->shared_from_this()](const ErrorCode& error, size_t bytes) {
        self->OnRead(error, bytes);
      });
}

template <class Stream>
void StreamConnection<Stream>::OnRead(const ErrorCode& error, size_t bytes) {
  if (closed_) return;
  if (error) return Close();  // the client left, or its socket failed
  if (phase_ == Phase::kIdle && bytes > 0) {
    // The request timeout runs from its first byte to its last, however
    // the bytes are spread over reads.
    Arm(Phase::kRequest, server_->options.request_timeout_ms);
  }
  Process(reader_.Feed(std::string_view(buffer_.data(), bytes)));
}

template <class Stream>
void StreamConnection<Stream>::Process(RequestReader::State state) {
  switch (state) {
    case RequestReader::State::kNeedMore:
      return ReadMore();
    case RequestReader::State::kComplete:
      return Dispatch();
    case RequestReader::State::kError:
      server_->Refuse(reader_.error_bound());
      return Reply(ErrorReply(reader_.error_status(), reader_.error_message()),
                   /*head=*/false, /*keep_alive=*/false);
  }
}

template <class Stream>
void StreamConnection<Stream>::Dispatch() {
  if (server_->stopping.load()) return Close();
  server_->requests.fetch_add(1);
  Disarm(Phase::kHandler);  // a handler's time is not the client's
  HttpRequest request = reader_.TakeRequest();
  request.remote_address = remote_address_;
  request.tls = kTls;
  request.client_cn = client_cn_;
  const bool head = request.method == "HEAD";
  const bool keep_alive = reader_.keep_alive();
  asio::post(*server_->pool, [self = this->shared_from_this(),
                              request = std::move(request), head,
                              keep_alive]() mutable {
    HttpResponse response = self->server_->RunHandler(request);
    asio::io_context& io = *self->server_->io;
    asio::post(io,
               [self = std::move(self), response = std::move(response), head,
                keep_alive] { self->Reply(response, head, keep_alive); });
  });
}

template <class Stream>
void StreamConnection<Stream>::Reply(const HttpResponse& response, bool head,
                                     bool keep_alive) {
  if (closed_) return;
  keep_alive = keep_alive && !server_->stopping.load();
  out_ = SerializeReply(response, head, keep_alive);
  Arm(Phase::kReply, server_->options.reply_timeout_ms);
  asio::async_write(stream_, asio::buffer(out_),
                    [self = this->shared_from_this(), keep_alive](
                        const ErrorCode& error, size_t) {
                      self->OnWritten(error, keep_alive);
                    });
}

template <class Stream>
void StreamConnection<Stream>::OnWritten(const ErrorCode& error,
                                         bool keep_alive) {
  if (closed_) return;
  if (error) return Close();
  out_.clear();
  out_.shrink_to_fit();
  if (!keep_alive) return Linger();
  const RequestReader::State next = reader_.Next();
  if (next == RequestReader::State::kNeedMore) return AwaitRequest();
  Process(next);
}

template <class Stream>
void StreamConnection<Stream>::Linger() {
  Arm(Phase::kLinger, std::min(kLingerMs, server_->options.idle_timeout_ms));
  if constexpr (kTls) {
    // close_notify, then the client's (or the deadline).
    stream_.async_shutdown(
        [self = this->shared_from_this()](const ErrorCode&) { self->Close(); });
  } else {
    ErrorCode ignored;
    stream_.shutdown(tcp::socket::shutdown_send, ignored);
    Drain();
  }
}

template <class Stream>
void StreamConnection<Stream>::Drain() {
  stream_.async_read_some(
      asio::buffer(buffer_),
      [self = this->shared_from_this()](const ErrorCode& error, size_t) {
        if (self->closed_) return;
        if (error) return self->Close();
        self->Drain();
      });
}

}  // namespace

std::shared_ptr<Connection> NewConnection(
    ServerState* server, tcp::socket socket,
    std::shared_ptr<asio::ssl::context> tls_context) {
  ErrorCode ignored;
  socket.set_option(tcp::no_delay(true), ignored);
  if (tls_context != nullptr) {
    auto connection = std::make_shared<StreamConnection<TlsStream>>(
        server, std::move(socket), std::move(tls_context));
    connection->set_id(server->Register(connection));
    return connection;
  }
  auto connection = std::make_shared<StreamConnection<tcp::socket>>(
      server, std::move(socket), nullptr);
  connection->set_id(server->Register(connection));
  return connection;
}

}  // namespace bloomroute::http_internal
