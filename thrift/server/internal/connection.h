// Connection: one client connection of the frame loop (frame_loop.h): its
// socket and TLS session, its identity, the request frame being read and the
// reply being written, and the deadlines' clocks. The loop's state machine
// lives in frame_loop.cc; here is the state and the socket I/O that reads
// and writes through TLS when the connection has it.
//
// Thread-safety: see the struct's comment; one thread at a time.
#ifndef BLOOMROUTE_THRIFT_SERVER_INTERNAL_CONNECTION_H_
#define BLOOMROUTE_THRIFT_SERVER_INTERNAL_CONNECTION_H_

#include <sys/types.h>
#include <thrift/TProcessor.h>
#include <thrift/transport/TBufferTransports.h>
#include <thrift/transport/TSocket.h>

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <unordered_map>
#include <vector>

#include "thrift/internal/tls.h"
#include "thrift/server/security.h"

namespace bloomroute::thrift_internal {

// One client connection. Owned by the I/O thread, except while its call
// runs or a step of its TLS handshake does: then exactly one worker or
// handshake thread holds it and the I/O thread does not touch it (the
// hand-over goes through a HandOffPool both ways).
struct Connection {
  // kHandshaking: TLS only, until the handshake completes (then kReading);
  // polled for what the handshake waits for. kHandshakeRunning: a handshake
  // thread holds it for one step (as a worker does in kRunning).
  enum class State {
    kHandshaking,
    kHandshakeRunning,
    kReading,
    kRunning,
    kWriting
  };

  std::shared_ptr<apache::thrift::transport::TSocket>
      socket;  // owns the descriptor
  int fd = -1;
  std::shared_ptr<apache::thrift::TProcessor> processor;
  State state = State::kReading;
  // TLS: the session, and the poll events it waits for to go on with the
  // current step (0: those of the state). After a fatal TLS error no
  // close_notify is sent.
  thrift_internal::SslPtr ssl;
  short tls_wants = 0;
  bool tls_failed = false;
  // The outcome of the last handshake step; set by the handshake thread.
  TlsIo handshake_step = TlsIo::kWantRead;
  // Counted in FrameLoop::Impl::handshake_work: a step of it is on the
  // handshake threads. The I/O thread's.
  bool handshake_work = false;
  // Who the peer is (certificate or token); checked by AccessControl.
  Identity identity;
  // The principal c is counted against (FrameLoop's
  // max_connections_per_principal), or "" for none; and whether its
  // principal had its bound of connections already (it is closed). The I/O
  // thread's.
  std::string principal;
  bool over_principal_limit = false;
  bool closed = false;
  // After this reply the connection closes: the request passed its decoded
  // budget, so the rest of its frame was never read.
  bool close_after_reply = false;

  // Reading: the 4-byte length, then the frame.
  uint8_t header[4] = {};
  size_t header_bytes = 0;
  uint32_t frame_bytes = 0;
  // Its capacity never passes frame_bytes (FrameLoop::Impl::GrowFrame).
  std::vector<uint8_t> frame;
  // The header is read but the pool cannot yet hold frame_bytes: nothing
  // more is read until FrameLoop::Impl::GrantWaiting() reserves it.
  bool waiting_for_pool = false;
  // The frame is whole but waits for the reply bound or a worker
  // (FrameLoop::Impl::StartCalls): nothing more is read meanwhile.
  bool waiting_for_call = false;
  uint64_t reserved = 0;  // pool bytes this frame holds until it is freed
  std::chrono::steady_clock::time_point
      idle_since;  // no byte of a request since
  std::chrono::steady_clock::time_point
      frame_started;  // first byte of this request (or the
                      // accept, while handshaking)

  // Writing: the frame's length, then the processor's output, in one buffer
  // (RunCall reserves the length's 4 bytes first), so that a reply goes out
  // in as few sends and TLS records as its size allows.
  std::shared_ptr<apache::thrift::transport::TMemoryBuffer>
      reply;                // set by the worker
  uint64_t reply_held = 0;  // reply bytes counted in held_reply_bytes
  size_t reply_sent = 0;
  std::chrono::steady_clock::time_point reply_started;
  // recv() through TLS when the connection has it: > 0 bytes read, 0 at the
  // end of the stream, -1 with errno EAGAIN when the socket must be ready
  // first (TLS may need it writable: tls_wants) or another errno on
  // failure.
  ssize_t Receive(void* buffer, size_t size);
  // send() of reply bytes through TLS when the connection has it; as
  // Receive, but never 0.
  ssize_t Send(const uint8_t* data, size_t size);
};

using ConnectionPtr = std::shared_ptr<Connection>;

// The connections of each principal (a certificate's name or a token's
// user), for a bound on them (ServerOptions::max_connections_per_principal).
class PrincipalConnections {
 public:
  // Counts c against its identity's user, as c.principal, unless that user
  // has `limit` connections counted already: then c.over_principal_limit
  // (the frame loop closes it). A connection without an
  // identity is not counted. Idempotent for an unchanged identity.
  void Count(Connection& c, uint32_t limit);
  // Forgets c's count (when it closes).
  void Uncount(Connection& c);

 private:
  std::unordered_map<std::string, uint32_t> counts_;
};

}  // namespace bloomroute::thrift_internal

#endif  // BLOOMROUTE_THRIFT_SERVER_INTERNAL_CONNECTION_H_
