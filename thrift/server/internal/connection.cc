#include "thrift/server/internal/connection.h"

#include <arpa/inet.h>
#include <poll.h>
#include <sys/socket.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <exception>

namespace bloomroute::thrift_internal {
namespace {

using std::chrono::milliseconds;

// What DrainArrived reads, at most: a client's flight and first request fit.
constexpr size_t kDrainBytes = 64 << 10;

// A read's result from what recv() (or Receive) returned.
Connection::ReadResult Received(ssize_t n) {
  if (n > 0) return Connection::ReadResult::kMore;
  if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR)) {
    return Connection::ReadResult::kBlocked;
  }
  return Connection::ReadResult::kEnded;
}

// A TLS step's outcome as recv()/send() report theirs; remembers what the
// session waits for. A clean close is the end of the stream for a read and
// a failure for a write.
ssize_t AsSocketResult(Connection& c, TlsIo io, size_t bytes, bool reading) {
  switch (io) {
    case TlsIo::kDone:
      c.tls_wants = 0;
      return static_cast<ssize_t>(bytes);
    case TlsIo::kWantRead:
    case TlsIo::kWantWrite:
      c.tls_wants = io == TlsIo::kWantRead ? POLLIN : POLLOUT;
      errno = EAGAIN;
      return -1;
    case TlsIo::kClosed:
      if (reading) return 0;
      break;
    case TlsIo::kFailed:
      break;
  }
  c.tls_failed = true;
  errno = ECONNRESET;
  return -1;
}

}  // namespace

ssize_t Connection::Receive(void* buffer, size_t size) {
  if (ssl == nullptr) return recv(fd, buffer, size, 0);
  size_t bytes = 0;
  const TlsIo io = TlsRead(ssl.get(), buffer, size, &bytes);
  return AsSocketResult(*this, io, bytes, /*reading=*/true);
}

ssize_t Connection::Send(const uint8_t* data, size_t size) {
  if (ssl == nullptr) return send(fd, data, size, MSG_NOSIGNAL | MSG_DONTWAIT);
  size_t bytes = 0;
  const TlsIo io = TlsWrite(ssl.get(), data, size, &bytes);
  return AsSocketResult(*this, io, bytes, /*reading=*/false);
}

bool Connection::IsHandshaking() const {
  return state == State::kHandshaking || state == State::kHandshakeRunning;
}

std::string Connection::PeerAddress() const {
  if (socket == nullptr) return "?";
  try {
    return socket->getPeerAddress() + ":" +
           std::to_string(socket->getPeerPort());
  } catch (const std::exception&) {
    return "?";
  }
}

ssize_t Connection::Read(void* buffer, size_t size) {
  ssize_t n;
  if (carry_taken < carry.size()) {
    n = static_cast<ssize_t>(std::min(size, carry.size() - carry_taken));
    std::memcpy(buffer, carry.data() + carry_taken, static_cast<size_t>(n));
    carry_taken += static_cast<size_t>(n);
    if (carry_taken == carry.size()) {
      carry.clear();
      carry_taken = 0;
    }
  } else {
    n = Receive(buffer, size);
  }
  if (n > 0 && !request_begun) {
    request_begun = true;
    frame_started = Clock::now();
  }
  return n;
}

void Connection::Unread(const uint8_t* data, size_t size) {
  if (size == 0) return;
  std::vector<uint8_t> rest(data, data + size);
  rest.insert(rest.end(), carry.begin() + carry_taken, carry.end());
  carry = std::move(rest);
  carry_taken = 0;
}

Connection::ReadResult Connection::ReadProbe(uint32_t limit) {
  // `carry` holds only the probe's bytes until the transport is chosen.
  uint8_t bytes[kTransportProbeBytes];
  const ssize_t n = Receive(bytes, kTransportProbeBytes - carry.size());
  const ReadResult result = Received(n);
  if (result != ReadResult::kMore) return result;
  if (!request_begun) {
    request_begun = true;
    frame_started = Clock::now();
  }
  carry.insert(carry.end(), bytes, bytes + n);
  transport = DetectTransport(carry.data(), carry.size(), limit);
  switch (transport) {
    case WireTransport::kUnknown:
      return ReadResult::kMore;
    case WireTransport::kRefused:
      std::memcpy(header, carry.data(), std::min(carry.size(), sizeof(header)));
      return ReadResult::kRefused;
    default:
      return ReadResult::kWhole;
  }
}

Connection::ReadResult Connection::ReadHeader(uint32_t limit) {
  const ssize_t n = Read(header + header_bytes, sizeof(header) - header_bytes);
  const ReadResult result = Received(n);
  if (result != ReadResult::kMore) return result;
  header_bytes += static_cast<size_t>(n);
  if (header_bytes < sizeof(header)) return ReadResult::kMore;
  uint32_t be = 0;
  std::memcpy(&be, header, sizeof(be));
  frame_bytes = ntohl(be);
  // Refused before anything is allocated for it; 0 is no message either.
  if (frame_bytes == 0 || frame_bytes > limit) return ReadResult::kRefused;
  return ReadResult::kWhole;
}

size_t Connection::BodyBytesWanted() const {
  return std::min<size_t>(frame_bytes - frame.size(), kReadChunkBytes);
}

Connection::ReadResult Connection::ReadBody() {
  const size_t have = frame.size();
  const size_t want = BodyBytesWanted();
  frame.resize(have + want);
  const ssize_t n = Read(frame.data() + have, want);
  frame.resize(have + std::max<ssize_t>(n, 0));
  const ReadResult result = Received(n);
  if (result == ReadResult::kMore && frame.size() == frame_bytes) {
    return ReadResult::kWhole;
  }
  return result;
}

Connection::ReadResult Connection::ReadHttpHead(uint32_t limit) {
  // Small reads: what passes the head is kept in `carry`.
  constexpr size_t kHeadReadBytes = 4096;
  const size_t have = http_head.size();
  if (have >= kMaxHttpHeadBytes) {
    http_error = 431;
    return ReadResult::kRefused;
  }
  http_head.resize(have + std::min(kHeadReadBytes, kMaxHttpHeadBytes - have));
  const ssize_t n = Read(http_head.data() + have, http_head.size() - have);
  http_head.resize(have + std::max<ssize_t>(n, 0));
  const ReadResult result = Received(n);
  if (result != ReadResult::kMore) return result;
  // Only the new bytes (and the 3 before them) can complete the blank line.
  const size_t end = http_head.find("\r\n\r\n", have < 3 ? 0 : have - 3);
  if (end == std::string::npos) return ReadResult::kMore;
  const size_t body = end + 4;
  Unread(reinterpret_cast<const uint8_t*>(http_head.data()) + body,
         http_head.size() - body);
  http_head.resize(body);
  const HttpRequestHead parsed = ParseHttpRequestHead(http_head, limit);
  http_error = parsed.status;
  if (http_error != 0) return ReadResult::kRefused;
  http_keep_alive = parsed.keep_alive;
  frame_bytes = parsed.content_length;
  http_head_done = true;
  return ReadResult::kWhole;
}

size_t Connection::UnframedBytesWanted(uint32_t limit) const {
  const uint64_t have = frame.size();
  const uint64_t needed = std::max<uint64_t>(skipper.needed(), have + 1);
  if (needed > limit) return 0;
  // What is known to be needed, but not past the limit; at least the
  // read-ahead, so that small fields do not cost a read each.
  uint64_t want = std::max<uint64_t>(needed - have, kUnframedReadAheadBytes);
  want = std::min<uint64_t>({want, kReadChunkBytes, limit - have});
  return static_cast<size_t>(want);
}

Connection::ReadResult Connection::ReadUnframed(size_t want) {
  const size_t have = frame.size();
  frame.resize(have + want);
  const ssize_t n = Read(frame.data() + have, want);
  frame.resize(have + std::max<ssize_t>(n, 0));
  const ReadResult result = Received(n);
  if (result != ReadResult::kMore) return result;
  switch (skipper.Resume(frame.data(), frame.size())) {
    case MessageSkipper::Result::kNeedMore:
      return ReadResult::kMore;
    case MessageSkipper::Result::kInvalid:
      return ReadResult::kRefused;
    case MessageSkipper::Result::kWhole:
      break;
  }
  const size_t end = skipper.end();
  Unread(frame.data() + end, frame.size() - end);
  frame.resize(end);
  return ReadResult::kWhole;
}

void Connection::NextRequest() {
  header_bytes = 0;
  request_begun = false;
  skipper.Reset();
  http_head.clear();
  http_head_done = false;
}

size_t Connection::ReplyPrefixBytes() const {
  switch (transport) {
    case WireTransport::kFramed:
      return sizeof(uint32_t);
    case WireTransport::kHttp:
      return kHttpReplyHeadRoom;
    default:
      return 0;
  }
}

bool Connection::SealReply() {
  if (!FrameReply()) return false;
  state = State::kWriting;
  return true;
}

bool Connection::FrameReply() {
  uint8_t* data = nullptr;
  uint32_t bytes = 0;
  reply->getBuffer(&data, &bytes);
  const size_t prefix = ReplyPrefixBytes();
  const uint32_t body = bytes - static_cast<uint32_t>(prefix);
  reply_sent = 0;
  if (transport == WireTransport::kHttp) {
    // Even a oneway call's POST is answered: the client waits for it.
    if (!http_keep_alive) close_after_reply = true;
    const std::string head = HttpReplyHead(body, !close_after_reply);
    reply_sent = prefix - head.size();  // the head ends where the body starts
    std::memcpy(data + reply_sent, head.data(), head.size());
  } else if (body == 0) {
    return false;  // a oneway call: no reply
  } else if (transport == WireTransport::kFramed) {
    const uint32_t be = htonl(body);
    std::memcpy(data, &be, sizeof(be));
  }
  reply_started = Clock::now();
  return true;
}

void Connection::StartClosingReply(const std::string& bytes) {
  reply = std::make_shared<apache::thrift::transport::TMemoryBuffer>(
      static_cast<uint32_t>(bytes.size()));
  reply->write(reinterpret_cast<const uint8_t*>(bytes.data()),
               static_cast<uint32_t>(bytes.size()));
  close_after_reply = true;
  drain_on_close = true;
  reply_sent = 0;
  reply_started = Clock::now();
  state = State::kWriting;
}

Connection::WriteResult Connection::WriteReply() {
  uint8_t* data = nullptr;
  uint32_t total = 0;
  reply->getBuffer(&data, &total);
  while (reply_sent < total) {
    const ssize_t n = Send(data + reply_sent, total - reply_sent);
    if (n < 0) {
      if (errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR) {
        return WriteResult::kBlocked;
      }
      return WriteResult::kEnded;  // the client went away
    }
    reply_sent += static_cast<size_t>(n);
  }
  return WriteResult::kDone;
}

Connection::Clock::time_point Connection::Deadline(
    const ServerOptions& options, bool may_call_nothing) const {
  switch (state) {
    case State::kHandshaking:
      return frame_started + milliseconds(options.request_timeout_ms);
    case State::kReading:
      if (request_begun) {
        return frame_started + milliseconds(options.request_timeout_ms);
      }
      // Who may call nothing has a request's time to authenticate.
      return idle_since +
             milliseconds(may_call_nothing
                              ? std::min(options.idle_timeout_ms,
                                         options.request_timeout_ms)
                              : options.idle_timeout_ms);
    case State::kWriting:
      return reply_started + milliseconds(options.reply_timeout_ms);
    case State::kRunning:
    case State::kHandshakeRunning:
      break;
  }
  // The handler's own work bounds a call. A handshake step is CPU only
  // and short; if the deadline passed meanwhile, the connection is closed
  // once the step is back (kHandshaking again).
  return Clock::time_point::max();
}

const char* Connection::DeadlineName() const {
  switch (state) {
    case State::kHandshaking:
      return "handshake_timeout";
    case State::kReading:
      return request_begun ? "request_timeout" : "idle_timeout";
    default:
      return "reply_timeout";
  }
}

bool Connection::HasBufferedBytes() const {
  if (state != State::kReading || waiting_for_pool || waiting_for_call ||
      closed) {
    return false;
  }
  if (carry_taken < carry.size()) return true;
  // Not while TLS waits to write (its socket is full): polled for that.
  return tls_wants != POLLOUT && HoldsUnreadBytes();
}

bool Connection::HoldsUnreadBytes() const {
  if (carry_taken < carry.size()) return true;
  // SSL_pending, not SSL_has_pending: the latter is also true for a record
  // that arrived in part, which cannot be read until the rest comes, and
  // serving it at once each round spun the loop.
  return ssl != nullptr && SSL_pending(ssl.get()) > 0;
}

short Connection::PollEvents() const {
  // A connection waiting for the pool or to start its call is not read;
  // polled for nothing, it still reports an error or hang-up.
  if (waiting_for_pool || waiting_for_call) return 0;
  if (tls_wants != 0) return tls_wants;  // TLS's step decides
  return state == State::kWriting ? POLLOUT : POLLIN;
}

void DrainArrived(int fd) {
  char buffer[4096];
  for (size_t drained = 0; drained < kDrainBytes;) {
    const ssize_t n = recv(fd, buffer, sizeof(buffer), MSG_DONTWAIT);
    if (n <= 0) return;
    drained += static_cast<size_t>(n);
  }
}

void PrincipalConnections::Count(Connection& c, uint32_t limit) {
  const std::string user =
      c.identity.role == Role::kNone ? std::string() : c.identity.user;
  if (user == c.principal && !c.over_principal_limit) return;
  Uncount(c);
  c.over_principal_limit = false;
  if (user.empty()) return;
  uint32_t& count = counts_[user];
  if (count >= limit) {
    c.over_principal_limit = true;
    if (count == 0) counts_.erase(user);
    return;
  }
  ++count;
  c.principal = user;
}

void PrincipalConnections::Uncount(Connection& c) {
  if (c.principal.empty()) return;
  auto it = counts_.find(c.principal);
  if (it != counts_.end() && --it->second == 0) counts_.erase(it);
  c.principal.clear();
}

}  // namespace bloomroute::thrift_internal
