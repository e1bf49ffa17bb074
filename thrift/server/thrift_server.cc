#include "thrift/server/thrift_server.h"

#include <arpa/inet.h>
#include <thrift/TProcessor.h>
#include <thrift/transport/TServerSocket.h>

#include <cctype>
#include <exception>
#include <mutex>
#include <string>
#include <thread>
#include <utility>

#include "thrift/internal/tls.h"
#include "thrift/server/access_control.h"
#include "thrift/server/internal/frame_loop.h"

namespace bloomroute {
namespace {

namespace at = apache::thrift;

bool IsHostNameChar(char c) {
  return std::isalnum(static_cast<unsigned char>(c)) || c == '-' || c == '.';
}

Status ValidateHost(const std::string& host) {
  if (host.empty()) return Status::InvalidArgument("the host is empty");
  unsigned char buf[16];
  if (inet_pton(AF_INET6, host.c_str(), buf) == 1 ||
      inet_pton(AF_INET, host.c_str(), buf) == 1) {
    return Status::OK();
  }
  if (host.size() > 253) {
    return Status::InvalidArgument("the host name is longer than 253 bytes");
  }
  for (char c : host) {
    if (!IsHostNameChar(c)) {
      return Status::InvalidArgument("'" + host +
                                     "' is not an IP address or host name");
    }
  }
  return Status::OK();
}

// InvalidArgument "<what> must be in [<low>, <high>]<unit>" unless `value`
// is in that range.
Status InRange(const std::string& what, uint64_t value, uint64_t low,
               uint64_t high, const char* unit = "") {
  if (value >= low && value <= high) return Status::OK();
  return Status::InvalidArgument(what + " must be in [" + std::to_string(low) +
                                 ", " + std::to_string(high) + "]" + unit);
}

// A timeout in milliseconds, in [1, kMaxTimeoutMs] (an int, as the options
// hold it: a negative one is out of range too).
Status TimeoutInRange(const std::string& what, int value_ms) {
  return InRange(what, value_ms < 1 ? 0 : static_cast<uint64_t>(value_ms), 1,
                 ServerOptions::kMaxTimeoutMs, " ms");
}

}  // namespace

Status ServerOptions::Validate() const {
  BLOOMROUTE_RETURN_IF_ERROR(ValidateHost(host));
  BLOOMROUTE_RETURN_IF_ERROR(tls.ValidateForServer());
  if (port < 0 || port > 65535) {
    return Status::InvalidArgument("port " + std::to_string(port) +
                                   " is not in [0, 65535]");
  }
  BLOOMROUTE_RETURN_IF_ERROR(InRange("threads", threads, 1, kMaxThreads));
  BLOOMROUTE_RETURN_IF_ERROR(InRange("max frame bytes", max_frame_bytes,
                                     kMinFrameBytes, kMaxFrameBytes));
  BLOOMROUTE_RETURN_IF_ERROR(TimeoutInRange("idle timeout", idle_timeout_ms));
  BLOOMROUTE_RETURN_IF_ERROR(
      TimeoutInRange("request timeout", request_timeout_ms));
  BLOOMROUTE_RETURN_IF_ERROR(TimeoutInRange("reply timeout", reply_timeout_ms));
  BLOOMROUTE_RETURN_IF_ERROR(
      InRange("max connections", max_connections, 1, kMaxConnections));
  BLOOMROUTE_RETURN_IF_ERROR(
      InRange("max connections per principal (--max-connections-per-"
              "principal)",
              max_connections_per_principal, 0, kMaxConnections));
  BLOOMROUTE_RETURN_IF_ERROR(InRange("max handshakes (--max-handshakes)",
                                     max_handshakes, 1, kMaxHandshakes));
  BLOOMROUTE_RETURN_IF_ERROR(InRange("handshake threads (--handshake-threads)",
                                     handshake_threads, 1,
                                     kMaxHandshakeThreads));
  if (max_buffered_request_bytes < max_frame_bytes ||
      max_buffered_request_bytes > kMaxBufferedRequestBytes) {
    // Below a frame, a frame could never be read.
    return Status::InvalidArgument(
        "max buffered request bytes (--max-buffered-request-bytes) must be in "
        "[max frame bytes (" +
        std::to_string(max_frame_bytes) + "), " +
        std::to_string(kMaxBufferedRequestBytes) + "]");
  }
  BLOOMROUTE_RETURN_IF_ERROR(
      InRange("max buffered reply bytes (--max-buffered-reply-bytes)",
              max_buffered_reply_bytes, 1, kMaxBufferedReplyBytes));
  return ValidateDecodedBudget(max_decoded_bytes, max_frame_bytes);
}

Status ValidateDecodedBudget(uint64_t max_decoded_bytes,
                             uint32_t max_frame_bytes) {
  if (max_decoded_bytes != 0 &&
      (max_decoded_bytes < max_frame_bytes ||
       max_decoded_bytes > ServerOptions::kMaxDecodedBytes)) {
    return Status::InvalidArgument(
        "max decoded bytes must be 0 (the default, " +
        std::to_string(ServerOptions::kDecodedBytesPerFrameByte) +
        " x max frame bytes) or in [max frame bytes (" +
        std::to_string(max_frame_bytes) + "), " +
        std::to_string(ServerOptions::kMaxDecodedBytes) + "]");
  }
  return Status::OK();
}

Status ParseListenAddress(std::string_view address, std::string* host,
                          int* port) {
  const size_t colon = address.rfind(':');
  if (colon == std::string_view::npos) {
    return Status::InvalidArgument("listen address '" + std::string(address) +
                                   "' is not HOST:PORT");
  }
  std::string_view h = address.substr(0, colon);
  const std::string_view p = address.substr(colon + 1);
  if (h.size() >= 2 && h.front() == '[' && h.back() == ']') {
    h = h.substr(1, h.size() - 2);
    unsigned char buf[16];
    if (inet_pton(AF_INET6, std::string(h).c_str(), buf) != 1) {
      return Status::InvalidArgument("'" + std::string(h) +
                                     "' is not an IPv6 address");
    }
  } else if (h.find(':') != std::string_view::npos) {
    return Status::InvalidArgument("write an IPv6 address as [ADDRESS]:PORT");
  }
  if (p.empty() || p.size() > 5) {
    return Status::InvalidArgument("port '" + std::string(p) +
                                   "' is not a number in [0, 65535]");
  }
  int value = 0;
  for (char c : p) {
    if (c < '0' || c > '9') {
      return Status::InvalidArgument("port '" + std::string(p) +
                                     "' is not a number in [0, 65535]");
    }
    value = value * 10 + (c - '0');
  }
  if (value > 65535) {
    return Status::InvalidArgument("port " + std::string(p) +
                                   " is not in [0, 65535]");
  }
  BLOOMROUTE_RETURN_IF_ERROR(ValidateHost(std::string(h)));
  *host = std::string(h);
  *port = value;
  return Status::OK();
}

Status ParseDialAddress(std::string_view address, std::string_view what,
                        std::string* host, int* port) {
  BLOOMROUTE_RETURN_IF_ERROR(
      ParseListenAddress(address, host, port).WithContext(std::string(what)));
  if (*port == 0) {
    return Status::InvalidArgument(std::string(what) + " '" +
                                   std::string(address) + "' has port 0");
  }
  return Status::OK();
}

std::string FormatHostPort(const std::string& host, int port) {
  const bool v6 = host.find(':') != std::string::npos;
  return (v6 ? "[" + host + "]" : host) + ":" + std::to_string(port);
}

struct ThriftServer::Impl {
  std::string name;
  std::string host;
  int port = 0;
  std::shared_ptr<at::transport::TServerSocket> socket;
  std::unique_ptr<thrift_internal::FrameLoop> loop;
  std::shared_ptr<thrift_internal::TlsServerContext> tls;  // null: plaintext
  std::thread serve_thread;
  std::mutex stop_mutex;
  bool stopped = false;  // guarded by stop_mutex
};

ThriftServer::ThriftServer() : impl_(std::make_unique<Impl>()) {}

ThriftServer::~ThriftServer() { Stop(); }

const std::string& ThriftServer::host() const { return impl_->host; }
int ThriftServer::port() const { return impl_->port; }

Status ThriftServer::ReloadCrl() {
  return impl_->tls == nullptr ? Status::OK() : impl_->tls->ReloadCrl();
}

RequestBufferStats ThriftServer::request_buffer_stats() const {
  std::lock_guard<std::mutex> lock(impl_->stop_mutex);
  if (impl_->stopped || impl_->loop == nullptr) return RequestBufferStats();
  return impl_->loop->request_buffer_stats();
}

ReplyBufferStats ThriftServer::reply_buffer_stats() const {
  std::lock_guard<std::mutex> lock(impl_->stop_mutex);
  if (impl_->stopped || impl_->loop == nullptr) return ReplyBufferStats();
  return impl_->loop->reply_buffer_stats();
}

Status ThriftServer::Serve(
    std::shared_ptr<at::TProcessor> processor, const ServerOptions& options,
    std::string name,
    std::shared_ptr<const thrift_internal::AccessControl> access) {
  if (processor == nullptr) return Status::InvalidArgument("nothing to serve");
  return Serve(
      std::make_shared<at::TSingletonProcessorFactory>(std::move(processor)),
      options, std::move(name), std::move(access));
}

Status ThriftServer::Serve(
    std::shared_ptr<at::TProcessorFactory> processors,
    const ServerOptions& options, std::string name,
    std::shared_ptr<const thrift_internal::AccessControl> access,
    std::shared_ptr<thrift_internal::CallThrottle> throttle) {
  if (processors == nullptr) return Status::InvalidArgument("nothing to serve");
  if (impl_->loop != nullptr) return Status::InvalidArgument("already serving");
  BLOOMROUTE_RETURN_IF_ERROR(options.Validate());
  std::shared_ptr<thrift_internal::TlsServerContext> tls;
  if (options.tls.enabled()) {
    if (access == nullptr) {
      return Status::InvalidArgument("TLS without an access policy");
    }
    BLOOMROUTE_ASSIGN_OR_RETURN(
        tls, thrift_internal::TlsServerContext::Create(
                 options.tls,
                 /*require_client_certificate=*/!access->admits_tokens()));
  } else {
    access = nullptr;  // nobody has an identity to check
  }
  impl_->tls = tls;
  impl_->name = std::move(name);
  impl_->host = options.host;
  try {
    impl_->socket = std::make_shared<at::transport::TServerSocket>(
        options.host, options.port);
    impl_->socket->listen();
    impl_->port = impl_->socket->getPort();
  } catch (const std::exception& e) {
    impl_->socket.reset();
    return Status::IOError("cannot serve on " +
                           FormatHostPort(options.host, options.port) + ": " +
                           e.what());
  }
  StatusOr<std::unique_ptr<thrift_internal::FrameLoop>> loop =
      thrift_internal::FrameLoop::Create(
          impl_->socket->getSocketFD(), std::move(processors), options,
          impl_->name, std::move(tls), std::move(access), std::move(throttle));
  if (!loop.ok()) {
    impl_->socket->close();
    impl_->socket.reset();
    return loop.status();
  }
  impl_->loop = std::move(loop).value();
  impl_->serve_thread =
      std::thread([loop = impl_->loop.get()] { loop->Run(); });
  return Status::OK();
}

void ThriftServer::Stop() {
  std::lock_guard<std::mutex> lock(impl_->stop_mutex);
  if (impl_->stopped) return;
  impl_->stopped = true;
  if (impl_->loop == nullptr) return;  // never served
  impl_->loop->RequestStop();
  if (impl_->serve_thread.joinable()) impl_->serve_thread.join();
  // The processors hold the handler, which holds what it serves.
  impl_->loop.reset();
  impl_->socket->close();
  impl_->socket.reset();
}

}  // namespace bloomroute
