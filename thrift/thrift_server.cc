#include "thrift/thrift_server.h"

#include <arpa/inet.h>
#include <thrift/TConfiguration.h>
#include <thrift/TProcessor.h>
#include <thrift/concurrency/ThreadFactory.h>
#include <thrift/concurrency/ThreadManager.h>
#include <thrift/protocol/TBinaryProtocol.h>
#include <thrift/server/TThreadPoolServer.h>
#include <thrift/transport/TBufferTransports.h>
#include <thrift/transport/TServerSocket.h>

#include <cctype>
#include <exception>
#include <mutex>
#include <string>
#include <thread>
#include <utility>

namespace bloomroute {
namespace {

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

namespace at = apache::thrift;

// serve() calls listen() itself, but Start() binds first so that a bind
// failure is reported by Start() and port 0 is resolved before serving: a
// second listen() on an open socket is a no-op.
class PreboundServerSocket : public at::transport::TServerSocket {
 public:
  using TServerSocket::TServerSocket;
  void listen() override {
    if (!isOpen()) TServerSocket::listen();
  }
};

// TFramedTransportFactory builds transports with the default configuration;
// this one hands each connection ours, whose max frame size bounds reads.
class BoundedFramedTransportFactory : public at::transport::TTransportFactory {
 public:
  explicit BoundedFramedTransportFactory(
      std::shared_ptr<at::TConfiguration> config)
      : config_(std::move(config)) {}
  std::shared_ptr<at::transport::TTransport> getTransport(
      std::shared_ptr<at::transport::TTransport> transport) override {
    return std::make_shared<at::transport::TFramedTransport>(transport,
                                                             config_);
  }

 private:
  const std::shared_ptr<at::TConfiguration> config_;
};

// The thread-pool server over an already bound socket. Throws what Thrift
// throws when a part cannot be made.
std::shared_ptr<at::server::TThreadPoolServer> MakeServer(
    std::shared_ptr<at::TProcessorFactory> processors,
    std::shared_ptr<PreboundServerSocket> socket,
    const ServerOptions& options) {
  const int frame = static_cast<int>(options.max_frame_bytes);
  auto config = std::make_shared<at::TConfiguration>(frame, frame);
  auto protocol = std::make_shared<at::protocol::TBinaryProtocolFactory>(
      frame, ServerOptions::kMaxContainerElements,
      /*strict_read=*/true, /*strict_write=*/true);
  auto workers =
      at::concurrency::ThreadManager::newSimpleThreadManager(options.threads);
  workers->threadFactory(std::make_shared<at::concurrency::ThreadFactory>());
  workers->start();
  auto server = std::make_shared<at::server::TThreadPoolServer>(
      std::move(processors), std::move(socket),
      std::make_shared<BoundedFramedTransportFactory>(config), protocol,
      workers);
  server->setConcurrentClientLimit(options.threads);
  return server;
}

}  // namespace

Status ServerOptions::Validate() const {
  BLOOMROUTE_RETURN_IF_ERROR(ValidateHost(host));
  if (port < 0 || port > 65535) {
    return Status::InvalidArgument("port " + std::to_string(port) +
                                   " is not in [0, 65535]");
  }
  if (threads < 1 || threads > kMaxThreads) {
    return Status::InvalidArgument("threads must be in [1, " +
                                   std::to_string(kMaxThreads) + "]");
  }
  if (max_frame_bytes < kMinFrameBytes || max_frame_bytes > kMaxFrameBytes) {
    return Status::InvalidArgument("max frame bytes must be in [" +
                                   std::to_string(kMinFrameBytes) + ", " +
                                   std::to_string(kMaxFrameBytes) + "]");
  }
  if (idle_timeout_ms < 1) {
    return Status::InvalidArgument("idle timeout must be positive");
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

std::string FormatHostPort(const std::string& host, int port) {
  const bool v6 = host.find(':') != std::string::npos;
  return (v6 ? "[" + host + "]" : host) + ":" + std::to_string(port);
}

struct ThriftServer::Impl {
  std::string name;
  std::string host;
  int port = 0;
  std::shared_ptr<PreboundServerSocket> socket;
  std::shared_ptr<at::server::TThreadPoolServer> server;
  std::thread serve_thread;
  std::mutex stop_mutex;
  bool stopped = false;  // guarded by stop_mutex
};

ThriftServer::ThriftServer() : impl_(std::make_unique<Impl>()) {}

ThriftServer::~ThriftServer() { Stop(); }

const std::string& ThriftServer::host() const { return impl_->host; }
int ThriftServer::port() const { return impl_->port; }

Status ThriftServer::Serve(std::shared_ptr<at::TProcessor> processor,
                           const ServerOptions& options, std::string name) {
  if (processor == nullptr) return Status::InvalidArgument("nothing to serve");
  return Serve(
      std::make_shared<at::TSingletonProcessorFactory>(std::move(processor)),
      options, std::move(name));
}

Status ThriftServer::Serve(std::shared_ptr<at::TProcessorFactory> processors,
                           const ServerOptions& options, std::string name) {
  if (processors == nullptr) return Status::InvalidArgument("nothing to serve");
  if (impl_->server != nullptr)
    return Status::InvalidArgument("already serving");
  BLOOMROUTE_RETURN_IF_ERROR(options.Validate());
  impl_->name = std::move(name);
  impl_->host = options.host;
  try {
    impl_->socket =
        std::make_shared<PreboundServerSocket>(options.host, options.port);
    impl_->socket->setRecvTimeout(options.idle_timeout_ms);
    impl_->socket->listen();
    impl_->port = impl_->socket->getPort();
    impl_->server = MakeServer(std::move(processors), impl_->socket, options);
  } catch (const std::exception& e) {
    impl_->socket.reset();
    return Status::IOError("cannot serve on " +
                           FormatHostPort(options.host, options.port) + ": " +
                           e.what());
  }
  impl_->serve_thread = std::thread([server = impl_->server.get(),
                                     name = impl_->name] {
    try {
      server->serve();
    } catch (const std::exception& e) {
      // serve() only throws when the listening socket fails; the process
      // notices because the server stops answering.
      at::GlobalOutput.printf("%s: serve() failed: %s", name.c_str(), e.what());
    }
  });
  return Status::OK();
}

void ThriftServer::Stop() {
  std::lock_guard<std::mutex> lock(impl_->stop_mutex);
  if (impl_->stopped) return;
  impl_->stopped = true;
  if (impl_->server == nullptr) return;  // never served
  impl_->server->stop();
  if (impl_->serve_thread.joinable()) impl_->serve_thread.join();
  // The processor holds the handler, which holds what it serves.
  impl_->server.reset();
  impl_->socket.reset();
}

}  // namespace bloomroute
