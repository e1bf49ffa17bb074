// FrameLoop: the engine behind ThriftServer (../thrift_server.h). One I/O
// thread reads requests from every connection without blocking, in the
// transport the connection's first bytes chose (framed, buffered or HTTP:
// wire_transport.h; a "frame" below is one request message in any of them),
// a pool of worker threads runs only complete frames through the
// connection's processor, and the I/O thread writes the replies back
// without blocking.
//
// Why: a worker that belongs to a connection for its lifetime (Thrift's
// TThreadPoolServer) can be held by a client that sends a byte every few
// minutes, or blocked in send() by a client that never reads; with `threads`
// such clients the server answers nobody, and stopping it hangs. Here a
// worker is busy only while a handler runs, and the time a client may take
// is bounded per request and per reply, not per read:
//   - idle:    no byte of a new request for idle_timeout_ms after the last
//              reply (or the accept)                      -> closed
//   - request: a frame not whole request_timeout_ms after its first byte
//                                                          -> closed
//   - reply:   a reply not taken whole reply_timeout_ms after it was ready
//                                                          -> closed
//   - a frame header over max_frame_bytes (or 0) closes the connection before
//     anything is allocated; a frame's buffer grows with the bytes that
//     arrived, not with the size its header claims;
//   - at most max_connections connections are open; further ones wait in the
//     listen backlog (they are not accepted) until one closes.
//   - request memory: a frame's declared size is reserved from a pool of
//     max_buffered_request_bytes shared by all connections before any of
//     its body is read; while the pool cannot hold it, the connection is
//     not read (its bytes wait in the kernel's buffers, and TCP flow control
//     stops the client) and waits in a FIFO queue (request_pool.h).
// A connection carries one call at a time: while its call runs or its reply
// is being written, the loop reads nothing more from it (pipelined requests
// wait in the kernel's buffers), so replies keep the order of the requests.
// The worker sends its call's reply itself when the socket takes it whole,
// and then gives the connection back without waking the I/O thread (a
// context switch per call saved); the I/O thread polls a running
// connection for its next request's first bytes, which wake it to take the
// connection back, and otherwise looks at least once per idle timeout.
// A reply the socket does not take whole, one that closes the connection,
// or a call that changed the caller's identity wakes the I/O thread as
// before, and so does every call while frames wait for a worker or for the
// request pool.
// Each reply is bounded on its own (the handlers' reply limits and
// reply_timeout_ms), and at most one per connection waits to be written;
// together they are bounded by max_buffered_reply_bytes, plus one reply per
// worker (request_pool.h).
//
// The pieces, each with its contract in its header:
//   connection.h    a connection's bytes: reading frames and writing
//                   replies, the per-connection bounds and deadlines
//   wire_transport.h  the transports and protocols, and how a
//                   connection's first bytes choose among them
//   message_skipper.h  where a buffered (unframed) message ends
//   request_pool.h  admission: the request and reply memory, the queues of
//                   frames that wait, and the workers that run the calls
//   dispatch.h      one call on a worker: its method, access control and
//                   the call throttle, the processor, the call's metrics
//   tls_handshakes.h  the TLS handshakes' steps on threads of their own
//   frame_loop.cc   the I/O thread that ties them together: accept, poll,
//                   deadlines, close
//
// Processors. The factory's getProcessor() runs on the I/O thread once per
// accepted connection, with a TConnectionInfo whose transport is the
// connection's TSocket (peer address available); the processor is released
// when the connection closes (generated *ProcessorFactory classes then call
// releaseHandler). Calls of different connections run concurrently on the
// workers, so a shared processor's handler must be thread-safe.
//
// TLS (thrift/internal/tls.h). With a TlsServerContext, a connection's first
// bytes are a TLS handshake, bounded by request_timeout_ms from the accept;
// only once it completes is the processor made (on the I/O thread, as above).
// Its steps run on handshake_threads threads of their own, neither the I/O
// thread nor the workers: a handshake costs about 1 ms of CPU, and when
// the I/O thread ran them a flood of new connections slowed every
// connection of the server (and on the workers it would take them from
// calls). When a handshaking connection's socket is ready, the I/O thread
// hands it to a handshake thread for one step (TlsHandshake, and
// PeerIdentity once it completes); the socket is non-blocking, so a step
// never waits for the peer. As with a call, the I/O thread neither polls
// nor touches the connection until the step is back (handed over under
// the mutex, with a wake-up); the deadline is not checked meanwhile, and a
// handshake whose deadline passed during its step is closed when it comes
// back. While max_handshakes steps are handed to the handshake threads and
// not yet back, no connection is accepted (they wait in the listen
// backlog, as for max_connections) and no further step starts (the other
// handshakes wait, unpolled), and the established ones are served; a step
// that waited past its connection's deadline is not run;
// a connection waiting for its client's next handshake bytes is not
// counted (it holds a connection slot, as any slow client).
// A handshake that fails (plaintext bytes, a certificate of another CA or
// expired, none where one is required) closes that connection alone.
// Records are read and written by the I/O thread through the connection's
// SSL; bytes it has decrypted but the loop has not taken are served in the
// next round without waiting for the socket (poll() cannot see them).
//
// Access. With an AccessControl, every whole request frame is checked
// against the connection's identity (its certificate's, or a token's) before
// the processor sees it (dispatch.h, ../access_control.h); a refused call is
// answered without running. Then, with a CallThrottle (../call_throttle.h: the
// router's quotas), the call is admitted or answered with its refusal without
// running; an admitted call's reply is charged to it after the call.
//
// Why not TNonblockingServer: it has no deadline for a partly read request or
// an unread reply (a client can hold a connection forever) and needs
// libevent; the loop below is poll() over at most max_connections sockets.
//
// Thread-safety: Run() on one thread; RequestStop() from any thread.
#ifndef BLOOMROUTE_THRIFT_SERVER_INTERNAL_FRAME_LOOP_H_
#define BLOOMROUTE_THRIFT_SERVER_INTERNAL_FRAME_LOOP_H_

#include <thrift/TProcessor.h>

#include <atomic>
#include <memory>
#include <string>

#include "common/status.h"
#include "common/statusor.h"
#include "thrift/server/thrift_server.h"

namespace bloomroute::thrift_internal {

class AccessControl;
class CallThrottle;
class TlsServerContext;

class FrameLoop {
 public:
  // `listen_fd` is a bound, listening socket owned by the caller and kept open
  // until Run() returns. `tls` null: plaintext; `access` null: every call
  // passes; `throttle` null: none. Starts options.threads workers, and
  // with `tls` options.handshake_threads handshake threads. IOError when the
  // wake-up pipe cannot be made.
  static StatusOr<std::unique_ptr<FrameLoop>> Create(
      int listen_fd,
      std::shared_ptr<apache::thrift::TProcessorFactory> processors,
      const ServerOptions& options, std::string name,
      std::shared_ptr<TlsServerContext> tls = nullptr,
      std::shared_ptr<const AccessControl> access = nullptr,
      std::shared_ptr<CallThrottle> throttle = nullptr);
  ~FrameLoop();
  FrameLoop(const FrameLoop&) = delete;
  FrameLoop& operator=(const FrameLoop&) = delete;

  // Serves until RequestStop(). Before returning it closes every connection,
  // lets the calls and handshake steps in progress finish (dropping requests
  // and steps not yet started), joins the workers and handshake threads and
  // releases every processor and the factory. Never waits for a client.
  void Run();

  // Makes Run() return soon. Idempotent.
  void RequestStop();

  // The request frames held now and at most (thrift_server.h). Any thread.
  RequestBufferStats request_buffer_stats() const;
  // The replies held now and at most (thrift_server.h). Any thread.
  ReplyBufferStats reply_buffer_stats() const;

 private:
  struct Impl;
  explicit FrameLoop(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl_;
};

}  // namespace bloomroute::thrift_internal

#endif  // BLOOMROUTE_THRIFT_SERVER_INTERNAL_FRAME_LOOP_H_
