// Connection: one client connection of the frame loop (frame_loop.h) and its
// bytes: its socket and TLS session, its identity, the request frame being
// read and the reply being written, the per-connection bounds on them and
// the deadlines' clocks.
//
// A request is one message, delimited by the connection's transport
// (wire_transport.h), which its first bytes choose (ReadProbe):
//   - framed: a 4-byte big-endian length, then that many bytes. ReadHeader
//     refuses a length of 0 or over the connection's limit before anything
//     is allocated; ReadBody reads at most kReadChunkBytes at a time into a
//     buffer the request pool has grown (request_pool.h), so a frame's
//     buffer grows with the bytes that arrived, not with the size its header
//     claims.
//   - HTTP: a request head (ReadHttpHead, at most kMaxHttpHeadBytes), whose
//     Content-Length then plays the frame length's part (ReadBody).
//   - buffered: the message alone. ReadUnframed reads it in pieces, and a
//     MessageSkipper (message_skipper.h) finds its end; each read asks for
//     what the skipper knows is still needed, at least
//     kUnframedReadAheadBytes, so a large value arrives in large reads
//     without reading far past the message's end. Bytes read past it (the
//     next pipelined request's, at most kUnframedReadAheadBytes) are kept
//     for the next request (`carry`), as are those read past an HTTP head.
//     Its limit bounds the message as a frame's does: a message the skipper
//     knows is longer is refused before its bytes arrive.
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
#include "thrift/server/internal/message_skipper.h"
#include "thrift/server/internal/wire_transport.h"
#include "thrift/server/security.h"
#include "thrift/server/thrift_server.h"

namespace bloomroute::thrift_internal {

// Bytes read per recv(): a frame's buffer grows by at most this beyond what
// has arrived.
inline constexpr size_t kReadChunkBytes = 256 << 10;
// The least a read of an unframed message asks for: what may be read past
// its end (and kept for the next request).
inline constexpr size_t kUnframedReadAheadBytes = 16 << 10;

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

  // The connection's transport, from its first bytes (ReadProbe).
  WireTransport transport = WireTransport::kUnknown;
  // Bytes read and not yet taken, which the next reads take before the
  // socket's (Read): the first bytes that chose the transport, and what was
  // read past a message or an HTTP head. At most kUnframedReadAheadBytes
  // plus kTransportProbeBytes.
  std::vector<uint8_t> carry;
  size_t carry_taken = 0;
  // A byte of the current request has been read (its clock runs).
  bool request_begun = false;

  // Reading, framed: the 4-byte length, then the frame.
  uint8_t header[4] = {};
  size_t header_bytes = 0;
  uint32_t frame_bytes = 0;
  // Its capacity never passes frame_bytes (RequestPool::GrowFrame). For an
  // unframed message, frame_bytes is what is reserved for it so far, and
  // grows (ReadUnframed's caller reserves more as the message needs it).
  std::vector<uint8_t> frame;
  // Buffered: where the message ends, as far as its bytes tell.
  MessageSkipper skipper;
  // HTTP: the request head read so far; whether it is whole (the body is
  // read); whether the connection stays open after the reply; the error
  // status to answer with (ReadHttpHead's kRefused).
  std::string http_head;
  bool http_head_done = false;
  bool http_keep_alive = true;
  int http_error = 0;
  // Read what has arrived (bounded) before closing: a refusal was sent that
  // a reset must not overtake.
  bool drain_on_close = false;
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

  // Writing: the frame's length (framed) or the HTTP head, then the
  // processor's output, in one buffer (CallDispatcher::Run reserves
  // ReplyPrefixBytes() first), so that a reply goes out in as few sends and
  // TLS records as its size allows.
  std::shared_ptr<apache::thrift::transport::TMemoryBuffer>
      reply;                // set by the worker
  uint64_t reply_held = 0;  // reply bytes counted in held_reply_bytes
  size_t reply_sent = 0;
  Clock::time_point reply_started;
  // What the worker did with the reply after the call (frame_loop.cc), for
  // the I/O thread when it takes the connection back: kNone, nothing (the
  // I/O thread frames and writes it); kFramed, framed and perhaps sent in
  // part (reply_started set; the I/O thread writes the rest); kSent, sent
  // whole and released (idle_since set); kEnded, the client went away.
  enum class WorkerReply { kNone, kFramed, kSent, kEnded };
  WorkerReply worker_reply = WorkerReply::kNone;
  // The I/O thread's: its socket became readable (or hung up) while its
  // call ran, so it is not polled again until the worker gives it back
  // (level-triggered, it would wake every round).
  bool parked = false;

  // What a read did.
  enum class ReadResult {
    kMore,     // bytes arrived, not yet the whole header or frame: read on
    kBlocked,  // nothing more to read now (the socket, or TLS, must be ready)
    kEnded,    // the end of the stream or an error: close
    kRefused,  // the header names 0 bytes or more than the limit: close
    kWhole,    // the header (ReadHeader) or the frame (ReadBody) is whole
  };
  // Reads the connection's first bytes until they choose its transport
  // (wire_transport.h), keeping them in `carry`: kWhole once `transport` is
  // set, kRefused when none fits (their first 4 bytes are then in
  // `header`, for LooksLikeTlsRecord).
  ReadResult ReadProbe(uint32_t limit);
  // Framed: reads what has arrived of the 4-byte length (header_bytes < 4).
  // kWhole once the length is whole and in [1, limit] (frame_bytes set),
  // kRefused when it is whole and is not.
  ReadResult ReadHeader(uint32_t limit);
  // The bytes the next ReadBody() reads at most: the rest of the frame (or
  // HTTP body), at most kReadChunkBytes.
  size_t BodyBytesWanted() const;
  // Reads up to BodyBytesWanted() bytes of the frame into `frame`, whose
  // capacity must hold them (RequestPool::GrowFrame). kWhole once
  // frame.size() == frame_bytes.
  ReadResult ReadBody();
  // HTTP: reads the request head; kWhole once it is whole and acceptable
  // (frame_bytes is its Content-Length), kRefused with http_error set when
  // it is not (or passes kMaxHttpHeadBytes).
  ReadResult ReadHttpHead(uint32_t limit);
  // Buffered: the bytes the next ReadUnframed() reads (above), within
  // `limit` bytes for the message; 0 when the message is known to be
  // longer than `limit` (refuse it).
  size_t UnframedBytesWanted(uint32_t limit) const;
  // Reads up to `want` bytes of the message into `frame`, whose capacity
  // must hold them. kWhole once the skipper found its end (`frame` holds
  // the message alone; what followed is kept), kRefused when the bytes are
  // no message.
  ReadResult ReadUnframed(size_t want);
  // Forgets the request read (its frame is the call's): the next read
  // starts the next one. Called when its call starts.
  void NextRequest();

  // The bytes a reply buffer keeps before the message for the transport's
  // framing (4 framed, kHttpReplyHeadRoom for HTTP, 0 buffered).
  size_t ReplyPrefixBytes() const;
  // Fills in the reply's framing (the worker left ReplyPrefixBytes() for
  // it) and starts writing it (kWriting, the reply's clock); false,
  // changing nothing, for a oneway call's, which has no reply to send
  // (over HTTP it has: an empty body).
  bool SealReply();
  // SealReply without the change of state (kWriting), for the worker,
  // which must not change what the I/O thread reads of a running
  // connection.
  bool FrameReply();
  // Starts writing `bytes` as they are, then closing: an HTTP error. The
  // caller counts the reply (RequestPool::HoldReply).
  void StartClosingReply(const std::string& bytes);
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
  // True when it is reading and holds bytes not yet taken (`carry`, or
  // decrypted in its TLS session): poll() cannot see them, so it is served
  // without waiting for its socket.
  bool HasBufferedBytes() const;
  // Bytes already read or decrypted and not yet taken, in any state: those
  // of a request that came before its reply went out.
  bool HoldsUnreadBytes() const;
  // kHandshaking or kHandshakeRunning.
  bool IsHandshaking() const;
  // The peer's address for the logs; "?" when the socket cannot say.
  std::string PeerAddress() const;

  // Receive(), taking the bytes in `carry` first; the first byte of a
  // request starts its clock (request_begun, frame_started).
  ssize_t Read(void* buffer, size_t size);
  // Puts `size` bytes back in front of `carry`.
  void Unread(const uint8_t* data, size_t size);

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
