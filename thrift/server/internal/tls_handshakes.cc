#include "thrift/server/internal/tls_handshakes.h"

#include <chrono>
#include <utility>

#include "common/sync_point.h"
#include "thrift/internal/tls.h"

namespace bloomroute::thrift_internal {

TlsHandshakes::TlsHandshakes(uint32_t threads, uint32_t max_steps,
                             int timeout_ms, std::function<void()> done)
    : max_steps_(max_steps),
      threads_(
          threads,
          [timeout = std::chrono::milliseconds(timeout_ms)](ConnectionPtr& c) {
            // A step queued past its deadline costs no CPU: it fails, and
            // the connection closes when it is back.
            if (Connection::Clock::now() >= c->frame_started + timeout) {
              c->handshake_step = TlsIo::kFailed;
            } else {
              Step(*c);
            }
            return true;  // the I/O thread acts on every step's outcome
          },
          std::move(done)) {}

void TlsHandshakes::Step(Connection& c) {
  BLOOMROUTE_SYNC_POINT("FrameLoop:HandshakeStep");
  c.handshake_step = TlsHandshake(c.ssl.get());
  if (c.handshake_step == TlsIo::kDone) {
    c.identity = PeerIdentity(c.ssl.get());
  }
}

void TlsHandshakes::Start(ConnectionPtr c) {
  c->state = Connection::State::kHandshakeRunning;
  if (!c->handshake_work) {
    c->handshake_work = true;
    ++steps_;
  }
  threads_.Submit(std::move(c));
}

std::vector<ConnectionPtr> TlsHandshakes::TakeDone() {
  std::vector<ConnectionPtr> done = threads_.TakeDone();
  for (const ConnectionPtr& c : done) {
    Uncount(*c);
    c->state = Connection::State::kHandshaking;  // the I/O thread's again
  }
  return done;
}

void TlsHandshakes::Uncount(Connection& c) {
  if (!c.handshake_work) return;
  c.handshake_work = false;
  --steps_;
}

}  // namespace bloomroute::thrift_internal
