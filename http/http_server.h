// HttpServer: the small HTTP/1.1 server every bloomroute process runs for
// operators (--http-listen): /metrics, /healthz, /readyz and /status. It
// serves GET and HEAD of whatever its handler answers; it is not a general
// web server.
//
// Built on Boost.Beast (header-only, from the Boost the project already
// uses for Program_options: no new package), whose request parser takes
// bytes incrementally with a header and a body limit, and on Boost.Asio's
// OpenSSL streams for HTTPS.
//
// Bounds, as on the Thrift port (thrift/server/thrift_server.h):
//   - a request's header at most max_header_bytes (431 past it), its body
//     at most max_body_bytes (413); a request that does not parse is
//     answered 400 (505 for a version other than HTTP/1.0 and 1.1); a
//     method other than GET and HEAD is answered 405 with "Allow: GET,
//     HEAD". After any of these the connection is closed (after a short
//     drain of what the client still sends, so that it reads the reply);
//   - idle_timeout_ms without starting a request, request_timeout_ms from a
//     request's first byte to its last, reply_timeout_ms to send a reply:
//     past any of them the connection is closed, so a slow client holds a
//     connection, never a thread;
//   - at most max_connections open; further ones are answered 503 and
//     closed (on HTTPS closed without a reply: a reply would need the
//     handshake the bound is there to spare);
//   - one I/O thread reads and writes every connection without blocking;
//     handlers run on `threads` workers of their own. A handler that throws
//     or answers a status outside [200, 599] gets its client a 500.
// Connections are kept alive as HTTP/1.1 says (HTTP/1.0 with
// "Connection: keep-alive"); pipelined requests are answered in order. A
// HEAD request is answered with the header GET would have, Content-Length
// too, and no body. The target must be a path (origin form); a chunked
// body's trailer fields are dropped.
//
// TLS. With options.tls_cert_file set, every connection is HTTPS with that
// certificate (TLS 1.2+ with AEAD ciphers, as the Thrift port: the policy
// of tls/ssl_context.h). A client certificate is asked for but not
// required (HttpRequest::client_cn says whether one chaining to tls_ca_file
// was given); the handler decides what needs one (ops/ requires a
// certificate or a token for all but /healthz). A certificate that does not
// chain to tls_ca_file, or is revoked, fails the handshake. The handshake
// is bounded by request_timeout_ms; a client whose first bytes are not TLS
// (plain HTTP) is answered 400 in plain text and closed.
//
// Example:
//   HttpServerOptions options;  // loopback, any free port
//   auto server = HttpServer::Start(options, [](const HttpRequest& r) {
//     return HttpResponse{200, "text/plain; charset=utf-8", "ok\n"};
//   });
//   if (!server.ok()) return server.status();
//   std::cout << (*server)->url() << "\n";  // http://127.0.0.1:PORT
//
// Thread-safety: Stop() and the accessors may be called from any thread; the
// handler is called from the worker threads concurrently.
#ifndef BLOOMROUTE_HTTP_HTTP_SERVER_H_
#define BLOOMROUTE_HTTP_HTTP_SERVER_H_

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "common/status.h"
#include "common/statusor.h"

namespace bloomroute {

struct HttpRequest {
  std::string method;  // "GET" or "HEAD" (others are answered 405)
  std::string path;    // the target before '?', e.g. "/metrics"
  std::string query;   // after '?', without it; empty when none
  // Header fields with lower-case names, in arrival order.
  std::vector<std::pair<std::string, std::string>> headers;
  std::string body;
  std::string remote_address;  // "HOST:PORT" of the peer
  bool tls = false;
  // The common name of a client certificate that chained to tls_ca_file
  // (and is not revoked); empty without one.
  std::string client_cn;

  // The value of the first header `name` (lower case), or nullptr.
  const std::string* Header(std::string_view name) const;
  // The token of an "Authorization: Bearer <token>" header; empty when none.
  std::string BearerToken() const;
};

struct HttpResponse {
  int status = 200;
  std::string content_type = "text/plain; charset=utf-8";
  std::string body;
  // More header fields (Content-Type, Content-Length, Date and Connection
  // are the server's).
  std::vector<std::pair<std::string, std::string>> headers = {};
};

using HttpHandler = std::function<HttpResponse(const HttpRequest&)>;

struct HttpServerOptions {
  static constexpr uint32_t kMaxThreads = 64;
  static constexpr uint32_t kMaxConnections = 4096;
  static constexpr uint32_t kMaxHeaderBytes = 1 << 20;
  static constexpr uint32_t kMaxBodyBytes = 1 << 20;
  static constexpr int kMaxTimeoutMs = 24 * 3600 * 1000;

  std::string host = "127.0.0.1";  // loopback unless asked otherwise
  int port = 0;                    // 0 = any free port; see port()
  uint32_t threads = 2;            // handler workers, in [1, kMaxThreads]
  uint32_t max_connections = 64;   // in [1, kMaxConnections]
  // The request line and header fields together, in [1 KiB,
  // kMaxHeaderBytes].
  uint32_t max_header_bytes = 16 << 10;
  // A request body (the endpoints take none), in [0, kMaxBodyBytes].
  uint32_t max_body_bytes = 64 << 10;
  int idle_timeout_ms = 60000;     // in [1, kMaxTimeoutMs]
  int request_timeout_ms = 10000;  // in [1, kMaxTimeoutMs]
  int reply_timeout_ms = 60000;    // in [1, kMaxTimeoutMs]
  // HTTPS: all of cert, key and CA, or none; the CRL optional.
  std::string tls_ca_file;
  std::string tls_cert_file;
  std::string tls_key_file;
  std::string tls_crl_file;

  bool tls_enabled() const { return !tls_cert_file.empty(); }
  // InvalidArgument naming the first field out of range (an empty host, a
  // port outside [0, 65535] too), or TLS files given in part.
  Status Validate() const;
};

// What a server has seen since it started.
struct HttpServerStats {
  uint64_t connections_open = 0;      // being served now
  uint64_t connections_accepted = 0;  // ever, those refused for a bound too
  uint64_t requests = 0;              // handed to the handler
  // Connections closed or answered with an error for a bound, by its name:
  // "header_bytes", "body_bytes", "malformed", "request_timeout",
  // "idle_timeout", "reply_timeout", "max_connections", "tls_handshake"
  // (a handshake that failed or timed out, or a plaintext client), each
  // listed, in this order, zeros too.
  std::vector<std::pair<std::string, uint64_t>> refusals;
};

class HttpServer {
 public:
  // Binds host:port (an IP address or a name resolved once, here) and
  // serves `handler` (not null) on background threads. InvalidArgument for
  // bad options or TLS files that do not load, IOError when the address
  // cannot be resolved or bound.
  static StatusOr<std::unique_ptr<HttpServer>> Start(
      const HttpServerOptions& options, HttpHandler handler);

  // Stops the server.
  ~HttpServer();
  HttpServer(const HttpServer&) = delete;
  HttpServer& operator=(const HttpServer&) = delete;

  const std::string& host() const;
  int port() const;  // the bound port
  // "http://HOST:PORT" or "https://HOST:PORT" (an IPv6 host in brackets).
  std::string url() const;
  HttpServerStats stats() const;

  // Reads the TLS files again, tls_crl_file with them (on SIGHUP), for the
  // connections accepted from then on; OK with nothing to do (no CRL file).
  // A file that does not load changes nothing: InvalidArgument naming it.
  [[nodiscard]] Status ReloadCrl();

  // Stops accepting, closes every connection (without waiting for any
  // client), waits for running handlers to return and for the threads to
  // exit; handlers not yet started are not run. Idempotent.
  void Stop();

 private:
  struct Impl;
  explicit HttpServer(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl_;
};

}  // namespace bloomroute

#endif  // BLOOMROUTE_HTTP_HTTP_SERVER_H_
