#include "thrift/server/internal/connection.h"

#include <poll.h>
#include <sys/socket.h>

#include <cerrno>

namespace bloomroute::thrift_internal {
namespace {

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
