// TlsHandshakes: the TLS handshakes of the frame loop's (frame_loop.h)
// connections, run one step at a time on threads of their own, neither the
// I/O thread nor the call workers: a handshake costs about 1 ms of CPU
// (measured with the cluster's P-256 certificates, in two steps: 0.35 ms for
// the server's first flight, 0.7 ms for the one that verifies the client's
// certificate), and when the I/O thread ran them a flood of new connections
// slowed every connection of the server (on the workers it would take them
// from calls).
//
// When a handshaking connection's socket is ready, the I/O thread hands it
// over for one step (Start: TlsHandshake, and PeerIdentity once it
// completes); the socket is non-blocking, so a step never waits for the
// peer. Until TakeDone() gives it back (State::kHandshaking again, with
// handshake_step set) the I/O thread neither polls nor touches it. A step
// whose connection's handshake deadline (request_timeout_ms from the
// accept) passed while it waited is not run: it fails (TlsIo::kFailed).
// While max_handshakes steps are handed over and not yet back (Full), the
// loop accepts no connection and starts no further step.
//
// Thread-safety: everything from the I/O thread; the steps run on the
// handshake threads, which hold their connection alone (the hand-over is
// the HandOffPool's, under its mutex).
#ifndef BLOOMROUTE_THRIFT_SERVER_INTERNAL_TLS_HANDSHAKES_H_
#define BLOOMROUTE_THRIFT_SERVER_INTERNAL_TLS_HANDSHAKES_H_

#include <cstdint>
#include <functional>
#include <vector>

#include "thrift/server/internal/connection.h"
#include "thrift/server/internal/hand_off_pool.h"

namespace bloomroute::thrift_internal {

class TlsHandshakes {
 public:
  // Starts `threads` handshake threads; `done` (which must wake the I/O
  // thread, which then calls TakeDone) runs after each step. At most
  // `max_steps` steps are handed over at once; a step is not run past
  // `timeout_ms` from its connection's accept (frame_started).
  TlsHandshakes(uint32_t threads, uint32_t max_steps, int timeout_ms,
                std::function<void()> done);
  TlsHandshakes(const TlsHandshakes&) = delete;
  TlsHandshakes& operator=(const TlsHandshakes&) = delete;

  // True while max_steps steps are handed over and not yet back.
  bool Full() const { return steps_ >= max_steps_; }
  // How many more steps may be handed over now.
  uint32_t Room() const { return Full() ? 0 : max_steps_ - steps_; }

  // Hands c, whose socket is ready for its handshake, over for one step
  // (State::kHandshakeRunning); counted until it is back.
  void Start(ConnectionPtr c);
  // The connections whose step ran since the last call, no longer counted
  // and the I/O thread's again (State::kHandshaking), with their
  // handshake_step (and identity, once kDone).
  std::vector<ConnectionPtr> TakeDone();
  // Stops counting c (when it closes); idempotent.
  void Uncount(Connection& c);

  // Lets the steps running finish, drops the others, joins the threads.
  // Idempotent.
  void Stop() { threads_.Stop(); }

 private:
  // One step of c's handshake, on a handshake thread. Touches only c's
  // session and the fields the I/O thread reads once it has c back.
  static void Step(Connection& c);

  const uint32_t max_steps_;
  // Steps handed over and not yet back: the connections whose
  // handshake_work is set.
  uint32_t steps_ = 0;
  HandOffPool<ConnectionPtr> threads_;  // last: stops before the rest goes
};

}  // namespace bloomroute::thrift_internal

#endif  // BLOOMROUTE_THRIFT_SERVER_INTERNAL_TLS_HANDSHAKES_H_
