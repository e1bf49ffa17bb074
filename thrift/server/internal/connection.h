// Connection: one client connection of the frame loop (frame_loop.h) and its
// bytes: its socket and TLS session, its identity, the request frame being
// read and the reply being written, the per-connection bounds on them and
// the deadlines' clocks.
//
// A frame is a 4-byte big-endian length, then that many bytes. ReadHeader
// refuses a length of 0 or over the connection's limit before anything is
// allocated; ReadBody reads at most kReadChunkBytes at a time into a buffer
// the request pool has grown (request_pool.h), so a frame's buffer grows
// with the bytes that arrived, not with the size its header claims.
// Deadline() says when the connection must be closed unless it makes
// progress: idle_timeout_ms without a request's first byte,
// request_timeout_ms from it to the frame's last byte (or from the accept
// to the end of a TLS handshake), reply_timeout_ms from a reply being ready
// to its last byte sent.
// The loop's state machine lives in frame_loop.cc: it decides what to do
// with what these report (close, reserve, queue, answer).
//
// Thread-safety: see the struct's comment; one thread at a time, and no
// lock: the hand-over between threads is the HandOffPool's.
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
#include "thrift/server/thrift_server.h"

namespace bloomroute::thrift_internal {

// Bytes read per recv(): a frame's buffer grows by at most this beyond what
// has arrived.
inline constexpr size_t kReadChunkBytes = 256 << 10;

// One client connection. Owned by the I/O thread, except while its call
// runs or a step of its TLS handshake does: then exactly one worker or
// handshake thread holds it and the I/O thread does not touch it (the
// hand-over goes through a HandOffPool both ways).
struct Connection {
  using Clock = std::chrono::steady_clock;
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
  // Counted in TlsHandshakes (tls_handshakes.h): a step of it is on the
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
  // Its capacity never passes frame_bytes (RequestPool::GrowFrame).
  std::vector<uint8_t> frame;
  // The header is read but the pool cannot yet hold frame_bytes: nothing
  // more is read until RequestPool::GrantWaiting() reserves it.
  bool waiting_for_pool = false;
  // The frame is whole but waits for the reply bound or a worker
  // (RequestPool::StartCalls): nothing more is read meanwhile.
  bool waiting_for_call = false;
  uint64_t reserved = 0;  // pool bytes this frame holds until it is freed
  Clock::time_point idle_since;  // no byte of a request since
  // The first byte of this request (or the accept, while handshaking).
  Clock::time_point frame_started;

  // Writing: the frame's length, then the processor's output, in one buffer
  // (CallDispatcher::Run reserves the length's 4 bytes first), so that a reply
  // goes out in as few sends and TLS records as its size allows.
  std::shared_ptr<apache::thrift::transport::TMemoryBuffer>
      reply;                // set by the worker
  uint64_t reply_held = 0;  // reply bytes counted in held_reply_bytes
  size_t reply_sent = 0;
  Clock::time_point reply_started;

  // What a read did.
  enum class ReadResult {
    kMore,     // bytes arrived, not yet the whole header or frame: read on
    kBlocked,  // nothing more to read now (the socket, or TLS, must be ready)
    kEnded,    // the end of the stream or an error: close
    kRefused,  // the header names 0 bytes or more than the limit: close
    kWhole,    // the header (ReadHeader) or the frame (ReadBody) is whole
  };
  // Reads what has arrived of the 4-byte length (header_bytes < 4). Its
  // first byte starts the request's clock (frame_started). kWhole once the
  // length is whole and in [1, limit] (frame_bytes set), kRefused when it
  // is whole and is not.
  ReadResult ReadHeader(uint32_t limit);
  // The bytes the next ReadBody() reads at most: the rest of the frame, at
  // most kReadChunkBytes.
  size_t BodyBytesWanted() const;
  // Reads up to BodyBytesWanted() bytes of the frame into `frame`, whose
  // capacity must hold them (RequestPool::GrowFrame). kWhole once
  // frame.size() == frame_bytes.
  ReadResult ReadBody();

  // Fills in the length of the reply (the worker left 4 bytes for it) and
  // starts writing it (kWriting, the reply's clock); false, changing
  // nothing, for a oneway call's, which has no reply to send.
  bool SealReply();
  enum class WriteResult { kDone, kBlocked, kEnded };
  // Sends what the socket takes of the reply: kDone once all of it is sent,
  // kBlocked when the socket is full, kEnded when the client went away.
  WriteResult WriteReply();

  // When the connection must be closed unless it makes progress (above);
  // Clock::time_point::max() while a worker or a handshake thread holds it
  // (the handler's own work bounds a call). `may_call_nothing` (access is
  // checked and its identity may make no call yet): it has a request's
  // time, not an idle one's, to authenticate.
  Clock::time_point Deadline(const ServerOptions& options,
                             bool may_call_nothing) const;
  // The bound a connection past Deadline() broke, for ServerMetrics:
  // "handshake_timeout", "request_timeout", "idle_timeout" or
  // "reply_timeout".
  const char* DeadlineName() const;
  // The poll events it waits for (0 while it waits for the pool or to start
  // its call: polled for nothing, it still reports an error or hang-up).
  short PollEvents() const;
  // True when its TLS session holds decrypted bytes not yet read: poll()
  // cannot see them, so it is served without waiting for its socket.
  bool HasBufferedBytes() const;
  // kHandshaking or kHandshakeRunning.
  bool IsHandshaking() const;
  // The peer's address for the logs; "?" when the socket cannot say.
  std::string PeerAddress() const;

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

// Reads and drops what has arrived on `fd`, at most 64 KiB, so that a close
// after a refusal is a FIN, not a reset that could reach the client before
// it reads the refusal (a client's flight and first request fit).
void DrainArrived(int fd);

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
