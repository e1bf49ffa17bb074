#include "http/http_server.h"

#include <boost/asio/executor_work_guard.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/post.hpp>
#include <boost/asio/ssl/context.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/asio/thread_pool.hpp>
#include <cctype>
#include <chrono>
#include <future>
#include <mutex>
#include <optional>
#include <thread>

#include "common/log.h"
#include "http/internal/connection.h"
#include "http/internal/reply.h"
#include "tls/ssl_context.h"

namespace bloomroute {

namespace asio = boost::asio;
using asio::ip::tcp;
using ErrorCode = boost::system::error_code;
using http_internal::EqualsIgnoringCase;
using http_internal::ServerState;

namespace {

std::string_view Trim(std::string_view text) {
  while (!text.empty() && (text.front() == ' ' || text.front() == '\t')) {
    text.remove_prefix(1);
  }
  while (!text.empty() && (text.back() == ' ' || text.back() == '\t')) {
    text.remove_suffix(1);
  }
  return text;
}

Status OutOfRange(const char* field, int64_t value, int64_t low, int64_t high) {
  return Status::InvalidArgument(
      std::string("http: ") + field + " " + std::to_string(value) +
      " is not in [" + std::to_string(low) + ", " + std::to_string(high) + "]");
}

Status ValidateTls(const HttpServerOptions& o) {
  const bool any = !o.tls_ca_file.empty() || !o.tls_cert_file.empty() ||
                   !o.tls_key_file.empty();
  const bool all = !o.tls_ca_file.empty() && !o.tls_cert_file.empty() &&
                   !o.tls_key_file.empty();
  if (any && !all) {
    return Status::InvalidArgument(
        "http: HTTPS needs tls_ca_file, tls_cert_file and tls_key_file");
  }
  if (!any && !o.tls_crl_file.empty()) {
    return Status::InvalidArgument("http: tls_crl_file needs HTTPS");
  }
  return Status::OK();
}

tls::ServerFiles TlsFiles(const HttpServerOptions& o) {
  return tls::ServerFiles{o.tls_ca_file, o.tls_cert_file, o.tls_key_file,
                          o.tls_crl_file};
}

// A client certificate is asked for, not required: the handler decides
// what needs one.
StatusOr<std::shared_ptr<asio::ssl::context>> NewTlsContext(
    const HttpServerOptions& options) {
  StatusOr<tls::SslCtxPtr> ctx =
      tls::NewServerContext(TlsFiles(options), false);
  if (!ctx.ok()) {
    return Status::InvalidArgument("http: " + ctx.status().message());
  }
  return std::make_shared<asio::ssl::context>(ctx->release());
}

}  // namespace

const std::string* HttpRequest::Header(std::string_view name) const {
  for (const auto& [key, value] : headers) {
    if (key == name) return &value;
  }
  return nullptr;
}

std::string HttpRequest::BearerToken() const {
  const std::string* authorization = Header("authorization");
  if (authorization == nullptr) return std::string();
  const std::string_view value = Trim(*authorization);
  constexpr std::string_view kScheme = "bearer";
  if (value.size() <= kScheme.size() ||
      !EqualsIgnoringCase(value.substr(0, kScheme.size()), kScheme) ||
      (value[kScheme.size()] != ' ' && value[kScheme.size()] != '\t')) {
    return std::string();
  }
  return std::string(Trim(value.substr(kScheme.size())));
}

Status HttpServerOptions::Validate() const {
  if (host.empty()) return Status::InvalidArgument("http: host is empty");
  if (port < 0 || port > 65535) return OutOfRange("port", port, 0, 65535);
  if (threads < 1 || threads > kMaxThreads) {
    return OutOfRange("threads", threads, 1, kMaxThreads);
  }
  if (max_connections < 1 || max_connections > kMaxConnections) {
    return OutOfRange("max_connections", max_connections, 1, kMaxConnections);
  }
  if (max_header_bytes < 1024 || max_header_bytes > kMaxHeaderBytes) {
    return OutOfRange("max_header_bytes", max_header_bytes, 1024,
                      kMaxHeaderBytes);
  }
  if (max_body_bytes > kMaxBodyBytes) {
    return OutOfRange("max_body_bytes", max_body_bytes, 0, kMaxBodyBytes);
  }
  const std::pair<const char*, int> timeouts[] = {
      {"idle_timeout_ms", idle_timeout_ms},
      {"request_timeout_ms", request_timeout_ms},
      {"reply_timeout_ms", reply_timeout_ms}};
  for (const auto& [name, value] : timeouts) {
    if (value < 1 || value > kMaxTimeoutMs) {
      return OutOfRange(name, value, 1, kMaxTimeoutMs);
    }
  }
  return ValidateTls(*this);
}

struct HttpServer::Impl {
  Impl(const HttpServerOptions& options, HttpHandler handler)
      : state(options, std::move(handler)),
        io(std::make_unique<asio::io_context>(1)),
        pool(std::make_unique<asio::thread_pool>(options.threads)) {
    state.io = io.get();
    state.pool = pool.get();
  }

  Status Listen();
  void Accept();
  void OnAccepted(tcp::socket socket);
  void Stop();

  // First, so that it is destroyed last: connections destroyed with the
  // pool or the I/O context still use it.
  ServerState state;
  std::unique_ptr<asio::io_context> io;
  std::unique_ptr<asio::thread_pool> pool;
  std::optional<tcp::acceptor> acceptor;  // I/O thread only
  std::optional<asio::steady_timer> accept_retry;
  std::optional<asio::executor_work_guard<asio::io_context::executor_type>>
      work;
  std::thread io_thread;
  int port = 0;
  std::mutex stop_mu;
  bool stopped = false;  // guarded by stop_mu
};

Status HttpServer::Impl::Listen() {
  const HttpServerOptions& o = state.options;
  const std::string where = o.host + ":" + std::to_string(o.port);
  ErrorCode error;
  tcp::resolver resolver(*io);
  const auto endpoints = resolver.resolve(
      o.host, std::to_string(o.port),
      tcp::resolver::passive | tcp::resolver::numeric_service, error);
  if (error || endpoints.empty()) {
    return Status::IOError("http: cannot resolve " + where + ": " +
                           error.message());
  }
  const tcp::endpoint endpoint = endpoints.begin()->endpoint();
  acceptor.emplace(*io);
  accept_retry.emplace(*io);
  acceptor->open(endpoint.protocol(), error);
  if (!error) acceptor->set_option(tcp::acceptor::reuse_address(true), error);
  if (!error) acceptor->bind(endpoint, error);
  if (!error)
    acceptor->listen(asio::socket_base::max_listen_connections, error);
  if (!error) port = acceptor->local_endpoint(error).port();
  if (error) {
    return Status::IOError("http: cannot listen on " + where + ": " +
                           error.message());
  }
  return Status::OK();
}

void HttpServer::Impl::Accept() {
  acceptor->async_accept([this](const ErrorCode& error, tcp::socket socket) {
    if (state.stopping.load() || error == asio::error::operation_aborted) {
      return;
    }
    if (error) {
      // Out of descriptors or memory: try again shortly rather than spin.
      accept_retry->expires_after(std::chrono::milliseconds(50));
      accept_retry->async_wait([this](const ErrorCode& e) {
        if (!e && !state.stopping.load()) Accept();
      });
      return;
    }
    OnAccepted(std::move(socket));
    Accept();
  });
}

namespace {

// Answers 503 on a plaintext connection over the limit without keeping it:
// one non-blocking write (the reply fits a new socket's buffer), the
// client's bytes read so far drained so that closing sends no reset.
void AnswerBusy(tcp::socket socket) {
  static const std::string kBusy = http_internal::SerializeReply(
      http_internal::ErrorReply(503, "too many connections"), false, false);
  ErrorCode ignored;
  socket.non_blocking(true, ignored);
  socket.write_some(asio::buffer(kBusy), ignored);
  socket.shutdown(tcp::socket::shutdown_send, ignored);
  char drain[4096];
  for (int i = 0; i < 16; ++i) {
    ErrorCode error;
    if (socket.read_some(asio::buffer(drain), error) == 0 || error) break;
  }
  socket.close(ignored);
}

}  // namespace

void HttpServer::Impl::OnAccepted(tcp::socket socket) {
  state.connections_accepted.fetch_add(1);
  std::shared_ptr<asio::ssl::context> tls_context = state.TlsContext();
  if (state.connections_open.load() >= state.options.max_connections) {
    state.Refuse("max_connections");
    // On HTTPS a reply would need a handshake, the work the bound is there
    // to refuse: the connection is closed without one.
    if (tls_context == nullptr) return AnswerBusy(std::move(socket));
    ErrorCode ignored;
    socket.close(ignored);
    return;
  }
  http_internal::NewConnection(&state, std::move(socket),
                               std::move(tls_context))
      ->Start();
}

void HttpServer::Impl::Stop() {
  {
    std::lock_guard<std::mutex> lock(stop_mu);
    if (stopped) return;
    stopped = true;
  }
  state.stopping.store(true);
  if (io_thread.joinable()) {
    std::promise<void> closed;
    asio::post(*io, [this, &closed] {
      ErrorCode ignored;
      acceptor->close(ignored);
      accept_retry->cancel();
      for (const auto& connection : state.LiveConnections()) {
        connection->Close();
      }
      closed.set_value();
    });
    closed.get_future().wait();
  }
  // Running handlers return; queued ones are dropped with the pool, whose
  // tasks hold connections: before the I/O context they use.
  pool->stop();
  pool->join();
  pool.reset();
  work.reset();
  io->stop();
  if (io_thread.joinable()) io_thread.join();
  acceptor.reset();
  accept_retry.reset();
  io.reset();
}

StatusOr<std::unique_ptr<HttpServer>> HttpServer::Start(
    const HttpServerOptions& options, HttpHandler handler) {
  BLOOMROUTE_RETURN_IF_ERROR(options.Validate());
  if (!handler) return Status::InvalidArgument("http: no handler");
  auto impl = std::make_unique<Impl>(options, std::move(handler));
  if (options.tls_enabled()) {
    BLOOMROUTE_ASSIGN_OR_RETURN(auto context, NewTlsContext(options));
    impl->state.SetTlsContext(std::move(context));
  }
  BLOOMROUTE_RETURN_IF_ERROR(impl->Listen());
  impl->work.emplace(asio::make_work_guard(*impl->io));
  impl->Accept();
  impl->io_thread = std::thread([io = impl->io.get()] {
    // Nothing on this thread is meant to throw; should something, the
    // thread goes on serving the other connections.
    for (;;) {
      try {
        io->run();
        return;
      } catch (const std::exception& e) {
        Log(LogLevel::kError, "http", std::string("I/O thread: ") + e.what());
      }
    }
  });
  return std::unique_ptr<HttpServer>(new HttpServer(std::move(impl)));
}

HttpServer::HttpServer(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}

HttpServer::~HttpServer() { Stop(); }

const std::string& HttpServer::host() const {
  return impl_->state.options.host;
}

int HttpServer::port() const { return impl_->port; }

std::string HttpServer::url() const {
  std::string host = impl_->state.options.host;
  if (host.find(':') != std::string::npos) host = "[" + host + "]";
  return (impl_->state.options.tls_enabled() ? "https://" : "http://") + host +
         ":" + std::to_string(impl_->port);
}

HttpServerStats HttpServer::stats() const {
  const ServerState& state = impl_->state;
  HttpServerStats stats;
  stats.connections_open = state.connections_open.load();
  stats.connections_accepted = state.connections_accepted.load();
  stats.requests = state.requests.load();
  stats.refusals = state.Refusals();
  return stats;
}

Status HttpServer::ReloadCrl() {
  const HttpServerOptions& options = impl_->state.options;
  if (!options.tls_enabled() || options.tls_crl_file.empty()) {
    return Status::OK();
  }
  // A whole new context for the next connections (those open keep theirs):
  // OpenSSL picks among a store's lists by their time, to the second.
  BLOOMROUTE_ASSIGN_OR_RETURN(auto context, NewTlsContext(options));
  impl_->state.SetTlsContext(std::move(context));
  return Status::OK();
}

void HttpServer::Stop() { impl_->Stop(); }

}  // namespace bloomroute
