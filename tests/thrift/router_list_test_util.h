// Stand-ins for routers of a list, on loopback, for the failover tests of
// RouterClient and of the tools' scan helpers:
//   RouterListProxy      forwards every connection to a real RouterServer
//                        and records the method of each request that passes
//                        (the router "saw" it); Stop() closes its port and
//                        every connection, as a router that dies.
//   RouterListLostReply  a router that reads one request on each connection,
//                        records its method and closes the connection
//                        without a reply: a reply lost after the request was
//                        sent.
// Requests are framed binary Thrift: a 4-byte length, then the message
// header (version and type, the method name's length, the name).
//
// Thread-safety: methods(), Count() and Stop() may be called from any thread.
#ifndef BLOOMROUTE_TESTS_THRIFT_ROUTER_LIST_TEST_UTIL_H_
#define BLOOMROUTE_TESTS_THRIFT_ROUTER_LIST_TEST_UTIL_H_

#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

namespace bloomroute::testing {

// A socket listening on 127.0.0.1 at a free port; -1 on failure.
inline int RouterListListen(int* port) {
  const int fd = socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  socklen_t len = sizeof(addr);
  if (fd < 0 || bind(fd, reinterpret_cast<sockaddr*>(&addr), len) != 0 ||
      listen(fd, 64) != 0 ||
      getsockname(fd, reinterpret_cast<sockaddr*>(&addr), &len) != 0) {
    if (fd >= 0) close(fd);
    return -1;
  }
  *port = ntohs(addr.sin_port);
  return fd;
}

inline int RouterListDial(int port) {
  const int fd = socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  addr.sin_port = htons(static_cast<uint16_t>(port));
  if (fd >= 0 &&
      connect(fd, reinterpret_cast<sockaddr*>(&addr), sizeof(addr)) == 0) {
    return fd;
  }
  if (fd >= 0) close(fd);
  return -1;
}

// Writes all `n` bytes; false when the peer is gone. MSG_NOSIGNAL: a peer
// that closed must not kill the test with SIGPIPE.
inline bool SendAll(int fd, const char* data, size_t n) {
  while (n > 0) {
    const ssize_t sent = send(fd, data, n, MSG_NOSIGNAL);
    if (sent <= 0) return false;
    data += sent;
    n -= static_cast<size_t>(sent);
  }
  return true;
}

// Reads framed requests from a stream of bytes and records their methods.
class RouterListFrameReader {
 public:
  // Feeds `n` bytes; appends the method of every request completed to `out`.
  void Feed(const char* data, size_t n, std::vector<std::string>* out) {
    pending_.append(data, n);
    while (pending_.size() >= 4) {
      const uint32_t frame = Be32(0);
      if (pending_.size() < 4 + static_cast<size_t>(frame)) return;
      // Strict binary header: i32 version|type, i32 name length, name.
      if (frame >= 8) {
        const uint32_t name = std::min<uint32_t>(Be32(8), frame - 8);
        out->push_back(pending_.substr(12, name));
      }
      pending_.erase(0, 4 + frame);
    }
  }

 private:
  uint32_t Be32(size_t at) const {
    uint32_t v = 0;
    std::memcpy(&v, pending_.data() + at, 4);
    return ntohl(v);
  }
  std::string pending_;
};

// Base of the stand-ins: a listening socket, an accept thread, the methods
// seen, and the sockets to shut down on Stop().
class RouterListStandIn {
 public:
  RouterListStandIn() { listener_ = RouterListListen(&port_); }
  virtual ~RouterListStandIn() = default;
  RouterListStandIn(const RouterListStandIn&) = delete;
  RouterListStandIn& operator=(const RouterListStandIn&) = delete;

  bool ok() const { return listener_ >= 0; }
  int port() const { return port_; }
  std::string address() const { return "127.0.0.1:" + std::to_string(port_); }

  std::vector<std::string> methods() const {
    std::lock_guard<std::mutex> lock(mutex_);
    return methods_;
  }
  size_t Count(const std::string& method) const {
    std::lock_guard<std::mutex> lock(mutex_);
    return std::count(methods_.begin(), methods_.end(), method);
  }

  // Closes the port and every connection; waits for the threads. Idempotent.
  void Stop() {
    std::vector<std::thread> threads;
    {
      std::lock_guard<std::mutex> lock(mutex_);
      if (stopped_) return;
      stopped_ = true;
      shutdown(listener_, SHUT_RDWR);
      for (int fd : sockets_) shutdown(fd, SHUT_RDWR);
    }
    if (acceptor_.joinable()) acceptor_.join();
    {
      std::lock_guard<std::mutex> lock(mutex_);
      threads.swap(threads_);
    }
    for (std::thread& t : threads) t.join();
    std::lock_guard<std::mutex> lock(mutex_);
    for (int fd : sockets_) close(fd);
    sockets_.clear();
    close(listener_);
  }

 protected:
  // Call at the end of the derived constructor.
  void StartAccepting() {
    acceptor_ = std::thread([this] {
      while (true) {
        const int fd = accept(listener_, nullptr, nullptr);
        if (fd < 0) return;
        std::lock_guard<std::mutex> lock(mutex_);
        if (stopped_) {
          close(fd);
          return;
        }
        sockets_.push_back(fd);
        threads_.emplace_back([this, fd] { Serve(fd); });
      }
    });
  }
  // Runs on its own thread for each accepted connection.
  virtual void Serve(int fd) = 0;

  // Registers a socket Stop() shuts down and closes; false once stopped.
  bool Track(int fd) {
    std::lock_guard<std::mutex> lock(mutex_);
    if (stopped_) return false;
    sockets_.push_back(fd);
    return true;
  }
  void Record(std::vector<std::string>* seen) {
    std::lock_guard<std::mutex> lock(mutex_);
    methods_.insert(methods_.end(), seen->begin(), seen->end());
    seen->clear();
  }

 private:
  int listener_ = -1;
  int port_ = 0;
  std::thread acceptor_;
  mutable std::mutex mutex_;
  bool stopped_ = false;              // guarded by mutex_
  std::vector<int> sockets_;          // guarded by mutex_
  std::vector<std::thread> threads_;  // guarded by mutex_
  std::vector<std::string> methods_;  // guarded by mutex_
};

class RouterListProxy : public RouterListStandIn {
 public:
  explicit RouterListProxy(int upstream_port) : upstream_(upstream_port) {
    if (ok()) StartAccepting();
  }
  ~RouterListProxy() override { Stop(); }

 private:
  void Serve(int client) override {
    const int server = RouterListDial(upstream_);
    if (server < 0 || !Track(server)) {
      if (server >= 0) close(server);
      shutdown(client, SHUT_RDWR);
      return;
    }
    std::thread replies([client, server] {
      char buf[65536];
      ssize_t n;
      while ((n = read(server, buf, sizeof(buf))) > 0) {
        if (!SendAll(client, buf, static_cast<size_t>(n))) break;
      }
      shutdown(client, SHUT_RDWR);
    });
    RouterListFrameReader frames;
    std::vector<std::string> seen;
    char buf[65536];
    ssize_t n;
    while ((n = read(client, buf, sizeof(buf))) > 0) {
      frames.Feed(buf, static_cast<size_t>(n), &seen);
      Record(&seen);  // before it is forwarded: seen means may be applied
      if (!SendAll(server, buf, static_cast<size_t>(n))) break;
    }
    shutdown(server, SHUT_RDWR);
    replies.join();
  }

  const int upstream_;
};

class RouterListLostReply : public RouterListStandIn {
 public:
  RouterListLostReply() {
    if (ok()) StartAccepting();
  }
  ~RouterListLostReply() override { Stop(); }

 private:
  void Serve(int fd) override {
    RouterListFrameReader frames;
    std::vector<std::string> seen;
    char buf[65536];
    ssize_t n;
    while (seen.empty() && (n = read(fd, buf, sizeof(buf))) > 0) {
      frames.Feed(buf, static_cast<size_t>(n), &seen);
    }
    Record(&seen);
    shutdown(fd, SHUT_RDWR);
  }
};

}  // namespace bloomroute::testing

#endif  // BLOOMROUTE_TESTS_THRIFT_ROUTER_LIST_TEST_UTIL_H_
