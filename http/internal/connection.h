// The HTTP server's connections (http/http_server.h says what is promised)
// and the state they share with their server.
//
// A connection lives on the server's one I/O thread: its socket operations,
// its deadline and the replies posted back by the handler workers all run
// there, so it needs no lock. One deadline at a time bounds what it waits
// for (Phase): the TLS handshake and the request (request_timeout_ms), the
// next request's first byte (idle_timeout_ms), the reply (reply_timeout_ms)
// and the lingering close after a last reply (at most kLingerMs). Past a
// deadline the socket is closed, which ends every operation on it.
//
// Thread-safety: ServerState's counters and connection list may be used
// from any thread; a Connection only on the I/O thread.
#ifndef BLOOMROUTE_HTTP_INTERNAL_CONNECTION_H_
#define BLOOMROUTE_HTTP_INTERNAL_CONNECTION_H_

#include <array>
#include <atomic>
#include <boost/asio/io_context.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/ssl/context.hpp>
#include <boost/asio/thread_pool.hpp>
#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <utility>
#include <vector>

#include "http/http_server.h"

namespace bloomroute::http_internal {

// The names of HttpServerStats::refusals, in the order they are listed.
inline constexpr const char* kBoundNames[] = {
    "header_bytes", "body_bytes",    "malformed",       "request_timeout",
    "idle_timeout", "reply_timeout", "max_connections", "tls_handshake"};
inline constexpr size_t kBoundCount = std::size(kBoundNames);

// How long a connection that got its last reply is drained before it is
// closed (capped by idle_timeout_ms): closing with unread bytes would send
// a reset, which can destroy the reply before the client reads it.
inline constexpr int kLingerMs = 2000;

class Connection {
 public:
  virtual ~Connection() = default;
  // Begins serving (the handshake first with TLS). I/O thread only.
  virtual void Start() = 0;
  // Closes the socket now; pending operations end. I/O thread only.
  virtual void Close() = 0;
};

// What the server and its connections share. Outlives every connection:
// the server destroys its thread pool and I/O context, which hold the
// connections, before it.
struct ServerState {
  ServerState(HttpServerOptions options_in, HttpHandler handler_in)
      : options(std::move(options_in)), handler(std::move(handler_in)) {}

  // Runs the handler: its reply, or 500 when it throws or answers a status
  // that cannot be sent. Never throws.
  HttpResponse RunHandler(const HttpRequest& request) const;
  // Counts a connection closed or answered for `bound` (a kBoundNames
  // entry; others are ignored).
  void Refuse(const char* bound);
  std::vector<std::pair<std::string, uint64_t>> Refusals() const;

  // The connections not yet destroyed, to close them on Stop.
  uint64_t Register(const std::shared_ptr<Connection>& connection);
  void Unregister(uint64_t id);
  std::vector<std::shared_ptr<Connection>> LiveConnections();

  // The TLS context that new connections use (ReloadCrl replaces it);
  // nullptr without TLS.
  std::shared_ptr<boost::asio::ssl::context> TlsContext() const;
  void SetTlsContext(std::shared_ptr<boost::asio::ssl::context> context);

  const HttpServerOptions options;
  const HttpHandler handler;
  boost::asio::io_context* io = nullptr;
  boost::asio::thread_pool* pool = nullptr;
  std::atomic<bool> stopping{false};

  std::atomic<uint64_t> connections_open{0};
  std::atomic<uint64_t> connections_accepted{0};
  std::atomic<uint64_t> requests{0};

 private:
  std::array<std::atomic<uint64_t>, kBoundCount> refusals_{};
  mutable std::mutex mu_;
  uint64_t next_id_ = 0;                                       // guarded by mu_
  std::map<uint64_t, std::weak_ptr<Connection>> connections_;  // by mu_
  std::shared_ptr<boost::asio::ssl::context> tls_context_;     // by mu_
};

// A connection on `socket` (accepted, open), registered with `server` and
// counted in connections_open until it is destroyed; HTTPS when
// `tls_context` is not null. Start it on the I/O thread.
std::shared_ptr<Connection> NewConnection(
    ServerState* server, boost::asio::ip::tcp::socket socket,
    std::shared_ptr<boost::asio::ssl::context> tls_context);

}  // namespace bloomroute::http_internal

#endif  // BLOOMROUTE_HTTP_INTERNAL_CONNECTION_H_
