#include "thrift/region_server.h"

#include <arpa/inet.h>
#include <thrift/TConfiguration.h>
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

#include "thrift/gen-cpp/RegionService.h"
#include "thrift/region_service_handler.h"

namespace bloomroute {
namespace {

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

}  // namespace

Status RegionServerOptions::Validate() const {
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

struct RegionServer::Impl {
  std::string host;
  int port = 0;
  std::shared_ptr<PreboundServerSocket> socket;
  std::shared_ptr<at::server::TThreadPoolServer> server;
  std::thread serve_thread;
  std::mutex stop_mutex;
  bool stopped = false;  // guarded by stop_mutex
};

RegionServer::RegionServer(std::unique_ptr<Impl> impl)
    : impl_(std::move(impl)) {}

RegionServer::~RegionServer() { Stop(); }

const std::string& RegionServer::host() const { return impl_->host; }
int RegionServer::port() const { return impl_->port; }

StatusOr<std::unique_ptr<RegionServer>> RegionServer::Start(
    std::shared_ptr<RegionStore> store, const RegionServerOptions& options) {
  if (store == nullptr) return Status::InvalidArgument("no store to serve");
  BLOOMROUTE_RETURN_IF_ERROR(options.Validate());
  auto impl = std::make_unique<Impl>();
  impl->host = options.host;
  try {
    const int frame = static_cast<int>(options.max_frame_bytes);
    auto config = std::make_shared<at::TConfiguration>(frame, frame);
    auto protocol = std::make_shared<at::protocol::TBinaryProtocolFactory>(
        frame, RegionServerOptions::kMaxContainerElements,
        /*strict_read=*/true, /*strict_write=*/true);
    impl->socket =
        std::make_shared<PreboundServerSocket>(options.host, options.port);
    impl->socket->setRecvTimeout(options.idle_timeout_ms);
    impl->socket->listen();
    impl->port = impl->socket->getPort();

    auto workers =
        at::concurrency::ThreadManager::newSimpleThreadManager(options.threads);
    workers->threadFactory(std::make_shared<at::concurrency::ThreadFactory>());
    workers->start();
    auto processor = std::make_shared<rpc::RegionServiceProcessor>(
        std::make_shared<RegionServiceHandler>(std::move(store)));
    impl->server = std::make_shared<at::server::TThreadPoolServer>(
        processor, impl->socket,
        std::make_shared<BoundedFramedTransportFactory>(config), protocol,
        workers);
    impl->server->setConcurrentClientLimit(options.threads);
  } catch (const std::exception& e) {
    return Status::IOError("cannot serve on " + options.host + ":" +
                           std::to_string(options.port) + ": " + e.what());
  }
  at::server::TThreadPoolServer* server = impl->server.get();
  impl->serve_thread = std::thread([server] {
    try {
      server->serve();
    } catch (const std::exception& e) {
      // serve() only throws when the listening socket fails; the process
      // notices because the server stops answering.
      at::GlobalOutput.printf("RegionServer: serve() failed: %s", e.what());
    }
  });
  return std::unique_ptr<RegionServer>(new RegionServer(std::move(impl)));
}

void RegionServer::Stop() {
  std::lock_guard<std::mutex> lock(impl_->stop_mutex);
  if (impl_->stopped) return;
  impl_->stopped = true;
  impl_->server->stop();
  if (impl_->serve_thread.joinable()) impl_->serve_thread.join();
  // The processor holds the handler, which holds the store.
  impl_->server.reset();
  impl_->socket.reset();
}

}  // namespace bloomroute
