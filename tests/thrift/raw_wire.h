// Test helpers for bytes no Thrift library would write: hand-built frames of
// the strict binary protocol, a raw client connection (also slow or hostile
// clients), a scripted server that answers each call by its method name (or
// never answers), and the process's peak memory.
#ifndef BLOOMROUTE_TESTS_THRIFT_RAW_WIRE_H_
#define BLOOMROUTE_TESTS_THRIFT_RAW_WIRE_H_

#include <arpa/inet.h>
#include <gtest/gtest.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <chrono>
#include <cstdint>
#include <cstring>
#include <fstream>
#include <functional>
#include <mutex>
#include <string>
#include <thread>
#include <utility>
#include <vector>

namespace bloomroute::testing {

// Thrift type codes.
constexpr char kTStop = 0, kTI64 = 10, kTString = 11, kTStruct = 12,
               kTList = 15;

inline std::string Be32(uint32_t v) {
  const uint32_t be = htonl(v);
  return std::string(reinterpret_cast<const char*>(&be), 4);
}
inline std::string Be16(uint16_t v) {
  const uint16_t be = htons(v);
  return std::string(reinterpret_cast<const char*>(&be), 2);
}
inline std::string FieldHeader(char type, int16_t id) {
  return std::string(1, type) + Be16(static_cast<uint16_t>(id));
}
inline std::string ListHeader(char elem_type, uint32_t count) {
  return std::string(1, elem_type) + Be32(count);
}
// The 4-byte size that starts a frame.
inline std::string FrameHeader(uint32_t size) { return Be32(size); }
inline std::string Framed(const std::string& payload) {
  return FrameHeader(static_cast<uint32_t>(payload.size())) + payload;
}
// A strict binary message header; type 1 = CALL, 2 = REPLY.
inline std::string MessageHeader(const std::string& method, int32_t seqid,
                                 char type = 1) {
  return std::string("\x80\x01\x00", 3) + std::string(1, type) +
         Be32(static_cast<uint32_t>(method.size())) + method +
         Be32(static_cast<uint32_t>(seqid));
}

// A call of `method` whose field `outer_field` is a list of `outer` structs,
// each holding in field `inner_field` a list of `inner` empty structs:
// (outer * (inner + 9)) bytes that the generated code decodes into outer *
// inner structs. `leading` is put before the list (other fields, raw).
inline std::string CallOfEmptyStructs(const std::string& method,
                                      const std::string& leading,
                                      int16_t outer_field, int16_t inner_field,
                                      uint32_t outer, uint32_t inner) {
  std::string one = FieldHeader(kTList, inner_field) +
                    ListHeader(kTStruct, inner) + std::string(inner, kTStop) +
                    std::string(1, kTStop);
  std::string payload = MessageHeader(method, 1) + leading +
                        FieldHeader(kTList, outer_field) +
                        ListHeader(kTStruct, outer);
  payload.reserve(payload.size() + one.size() * outer + 1);
  for (uint32_t i = 0; i < outer; ++i) payload += one;
  payload += kTStop;
  return Framed(payload);
}

inline bool ReadExactly(int fd, char* buf, size_t n) {
  for (size_t got = 0; got < n;) {
    const ssize_t r = recv(fd, buf + got, n - got, 0);
    if (r <= 0) return false;
    got += static_cast<size_t>(r);
  }
  return true;
}

// One frame's payload from `fd`; false at EOF, an error or a timeout.
inline bool ReadFrame(int fd, std::string* payload) {
  char size[4];
  if (!ReadExactly(fd, size, 4)) return false;
  uint32_t be = 0;
  std::memcpy(&be, size, 4);
  payload->assign(ntohl(be), '\0');
  return ReadExactly(fd, payload->data(), payload->size());
}

// A raw TCP connection to a server on 127.0.0.1, for bytes and behaviour no
// Thrift client would show (receive timeout 10 s).
class RawConnection {
 public:
  explicit RawConnection(int port) : fd_(socket(AF_INET, SOCK_STREAM, 0)) {
    sockaddr_in addr{};
    addr.sin_family = AF_INET;
    addr.sin_port = htons(static_cast<uint16_t>(port));
    addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    connected_ =
        connect(fd_, reinterpret_cast<sockaddr*>(&addr), sizeof(addr)) == 0;
    timeval timeout{10, 0};
    setsockopt(fd_, SOL_SOCKET, SO_RCVTIMEO, &timeout, sizeof(timeout));
  }
  ~RawConnection() { Close(); }
  RawConnection(const RawConnection&) = delete;
  RawConnection& operator=(const RawConnection&) = delete;

  bool connected() const { return connected_; }
  int fd() const { return fd_; }
  void Close() {
    if (fd_ >= 0) close(fd_);
    fd_ = -1;
  }
  // False when the bytes could not all be sent (the server closed).
  bool Send(const std::string& bytes) {
    return send(fd_, bytes.data(), bytes.size(), MSG_NOSIGNAL) ==
           static_cast<ssize_t>(bytes.size());
  }
  // Sends what the socket takes within `wait_ms` (a server that does not
  // read fills the kernel's buffers); returns the bytes sent.
  size_t SendFor(const std::string& bytes, int wait_ms) {
    const auto end =
        std::chrono::steady_clock::now() + std::chrono::milliseconds(wait_ms);
    size_t sent = 0;
    while (sent < bytes.size() && std::chrono::steady_clock::now() < end) {
      pollfd p{fd_, POLLOUT, 0};
      if (poll(&p, 1, 10) <= 0) continue;
      const ssize_t n = send(fd_, bytes.data() + sent, bytes.size() - sent,
                             MSG_NOSIGNAL | MSG_DONTWAIT);
      if (n < 0 && errno != EAGAIN && errno != EINTR) break;
      if (n > 0) sent += static_cast<size_t>(n);
    }
    return sent;
  }
  // One reply frame's payload; false at EOF, an error or the timeout.
  bool Receive(std::string* payload) { return ReadFrame(fd_, payload); }
  // True when the server closed the connection (within the receive timeout)
  // without sending anything more.
  bool ClosedByServer() {
    char buf[64];
    const ssize_t n = recv(fd_, buf, sizeof(buf), 0);
    return n == 0 || (n < 0 && errno == ECONNRESET);
  }
  // True when the server has closed the connection (EOF or reset) within
  // `wait_ms`; stray reply bytes are skipped.
  bool ClosedWithin(int wait_ms) {
    const auto end =
        std::chrono::steady_clock::now() + std::chrono::milliseconds(wait_ms);
    for (;;) {
      const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(
          end - std::chrono::steady_clock::now());
      if (left.count() < 0) return false;
      pollfd p{fd_, POLLIN, 0};
      if (poll(&p, 1, static_cast<int>(left.count())) <= 0) continue;
      char buf[4096];
      const ssize_t n = recv(fd_, buf, sizeof(buf), MSG_DONTWAIT);
      if (n == 0 || (n < 0 && errno == ECONNRESET)) return true;
    }
  }

 private:
  int fd_;
  bool connected_ = false;
};

// A TCP server on 127.0.0.1 that answers every call with the payload
// `reply(method, seqid)` returns (framed here), each connection on a thread,
// and counts the connections it accepted. With no `reply` it accepts
// nothing: connecting succeeds through the listen backlog, but no call is
// ever answered.
class ScriptedThriftServer {
 public:
  using ReplyFn = std::function<std::string(const std::string&, int32_t)>;
  explicit ScriptedThriftServer(ReplyFn reply = nullptr)
      : listen_fd_(socket(AF_INET, SOCK_STREAM, 0)), reply_(std::move(reply)) {
    sockaddr_in addr{};
    addr.sin_family = AF_INET;
    addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    socklen_t len = sizeof(addr);
    auto* sa = reinterpret_cast<sockaddr*>(&addr);
    EXPECT_EQ(bind(listen_fd_, sa, len), 0);
    EXPECT_EQ(listen(listen_fd_, 16), 0);
    EXPECT_EQ(getsockname(listen_fd_, sa, &len), 0);
    port_ = ntohs(addr.sin_port);
    if (reply_) thread_ = std::thread([this] { Serve(); });
  }
  ~ScriptedThriftServer() {
    shutdown(listen_fd_, SHUT_RDWR);  // wakes accept()
    if (thread_.joinable()) thread_.join();
    close(listen_fd_);
  }
  ScriptedThriftServer(const ScriptedThriftServer&) = delete;
  ScriptedThriftServer& operator=(const ScriptedThriftServer&) = delete;

  // A reply function that answers every call with `payload`.
  static ReplyFn Always(std::string payload) {
    return [payload = std::move(payload)](const std::string&, int32_t) {
      return payload;
    };
  }

  int port() const { return port_; }
  int connections() const { return connections_.load(); }

 private:
  void Serve() {
    for (;;) {
      const int fd = accept(listen_fd_, nullptr, nullptr);
      if (fd < 0) break;
      ++connections_;
      std::lock_guard<std::mutex> lock(mu_);
      fds_.push_back(fd);
      threads_.emplace_back([this, fd] { Answer(fd); });
    }
    {
      std::lock_guard<std::mutex> lock(mu_);
      for (int fd : fds_) shutdown(fd, SHUT_RDWR);  // wakes recv()
    }
    for (std::thread& t : threads_) t.join();
    for (int fd : fds_) close(fd);
  }
  void Answer(int fd) {
    std::string call;
    while (ReadFrame(fd, &call) && call.size() >= 12) {
      // Strict header: version (4), name length (4), name, seqid (4).
      uint32_t be = 0;
      std::memcpy(&be, call.data() + 4, 4);
      const size_t n = ntohl(be);
      if (call.size() < 12 + n) break;
      std::memcpy(&be, call.data() + 8 + n, 4);
      const std::string bytes =
          Framed(reply_(call.substr(8, n), static_cast<int32_t>(ntohl(be))));
      if (send(fd, bytes.data(), bytes.size(), MSG_NOSIGNAL) <= 0) break;
    }
    shutdown(fd, SHUT_RDWR);
  }

  const int listen_fd_;
  int port_ = 0;
  const ReplyFn reply_;
  std::atomic<int> connections_{0};
  std::mutex mu_;
  std::vector<int> fds_;  // guarded by mu_; closed when serving ends
  std::vector<std::thread> threads_;  // only the serving thread
  std::thread thread_;
};

// The process's resident set: now, and its peak (VmHWM) since the last
// ResetPeakResident() (or the start). Bytes; 0 when /proc cannot be read.
inline uint64_t ProcStatusBytes(const std::string& key) {
  std::ifstream in("/proc/self/status");
  std::string line;
  while (std::getline(in, line)) {
    if (line.rfind(key + ":", 0) == 0) {
      return std::stoull(line.substr(key.size() + 1)) * 1024;  // "N kB"
    }
  }
  return 0;
}
inline uint64_t ResidentBytes() { return ProcStatusBytes("VmRSS"); }
inline uint64_t PeakResidentBytes() { return ProcStatusBytes("VmHWM"); }
// Writing 5 to clear_refs resets VmHWM to the current RSS (Linux >= 4.0).
inline bool ResetPeakResident() {
  std::ofstream out("/proc/self/clear_refs");
  out << "5";
  out.flush();
  return out.good();
}

}  // namespace bloomroute::testing

#endif  // BLOOMROUTE_TESTS_THRIFT_RAW_WIRE_H_
