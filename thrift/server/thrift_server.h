// ThriftServer: the one piece of server code behind every bloomroute Thrift
// service (RegionServer, RouterServer): it serves a TProcessor on a bound
// address until stopped. A service's server derives from it and only makes
// the processor; ServerOptions configures them all.
//
// Transports and protocols. One port serves what HBase's Thrift2 server
// offers, so that an HBase client works unchanged whatever it is configured
// for: the framed and the buffered (unframed: HBase's default) transports,
// and HTTP POST (Thrift's THttpClient: one message a request body, any path,
// keep-alive), each with the binary protocol (strict or not) and the
// compact protocol. A connection's first bytes choose its transport (at most
// 5: "POST " is HTTP, 0x80 or 0x82 a buffered message, a short length and a
// letter a non-strict buffered one, else a frame length), and each
// message's first byte its protocol (0x82 compact, else binary); the reply
// goes back the same way (binary replies strict, which every binary reader
// takes). The rules are in internal/wire_transport.h.
//
// Limits, for every transport alike. A message is a "frame" below: a framed
// message, an HTTP body or a buffered message. A frame larger than
// max_frame_bytes is refused before anything is allocated for it, and the
// connection is closed; so is a frame that ends early or is not a valid
// message. A buffered message has no length: the server finds its end from
// its structure as its bytes arrive (internal/message_skipper.h, one pass
// however the bytes are split), and refuses it as soon as it is known to be
// longer than max_frame_bytes (a string's length says so before its bytes
// come) or its bytes pass the bound. An HTTP request whose Content-Length
// passes the bound is answered 413; one without Content-Length (or with a
// Transfer-Encoding: chunked bodies are not taken) 411, a malformed one
// 400, a head over 16 KiB 431, and its connection closed. A string is at
// most a frame; a list or map at most kMaxContainerElements entries. Neither
// bounds what a frame decodes into: an empty struct is one byte on the wire
// and up to 256 in memory, and the binary protocol counts it as none, so a
// 64 MiB frame of lists of empty structs would decode into gigabytes before
// any field is checked. So each request also has a decoded-size budget
// (max_decoded_bytes; thrift/internal/decode_budget.h says what is charged):
// a request whose decoding would pass it is answered with a
// TApplicationException naming the budget and --max-decoded-bytes, and the
// connection is closed; nothing past the budget is allocated. The default,
// kDecodedBytesPerFrameByte (10) times max_frame_bytes (640 MiB for 64 MiB
// frames), is what the largest legal requests need: a frame of large values
// is charged about its size; a putMultiple of 100,000 rows of 19 small cells
// (HBase's TColumnValue with a 1-byte family, a 10-byte qualifier and an
// 8-byte value: 41 bytes a cell on the wire, 336 charged for its struct)
// fills a 64 MiB frame and is charged about 8.4 times it.
// Every worker may hold one request's budget at once. Requests that decode but
// break a rule (missing field, negative id, empty row key, ...) are answered
// with TIllegalArgument and the connection stays open.
//
// Request memory. The frames of all connections together hold at most
// max_buffered_request_bytes: a frame's declared size (a frame length, a
// Content-Length) is reserved from that pool once its header arrives,
// before its body is read, and released when the frame is freed after its
// call (or when its connection closes). A buffered message, whose size is
// not declared, reserves ahead of its bytes what it is known to need,
// doubling, at most max_frame_bytes. A connection whose frame does not fit
// is not read until earlier frames are freed, first come first served; its
// request_timeout_ms keeps running, so a client that reserves and stops
// sending holds the pool at most that long (a buffered message waiting to
// grow keeps what it has meanwhile). There is no error for it: under load
// requests wait; a request that cannot get in before its deadline has its
// connection closed. Outside the pool, a connection holds at most an HTTP
// head (16 KiB) and 16 KiB read past a buffered message (the next
// pipelined request's first bytes).
//
// Reply memory. Replies not yet wholly sent are counted together; while they
// hold more than max_buffered_reply_bytes the server starts no new call
// (whole requests wait, in arrival order, with their request deadline still
// running) until replies are sent or their connections are closed at their
// reply deadline. Calls already running finish, so replies hold at most the
// bound plus `threads` replies.
//
// Threads and time. One I/O thread reads requests and writes replies for
// every connection without blocking; a pool of `threads` workers runs only
// complete requests (thrift/server/internal/frame_loop.h). So a worker belongs
// to a call, never to a connection: idle connections (a router's pooled ones),
// slow senders and clients that never read their replies hold no worker.
// Each connection is bounded in time per request and per reply, not per
// read: idle_timeout_ms without starting a request, request_timeout_ms from a
// request's first byte to its last, reply_timeout_ms from a reply being ready
// to its last byte sent; past any of them the connection is closed. At most
// max_connections are open; further ones wait in the listen backlog. With
// TLS, handshakes (about 1 ms of CPU each) run on handshake_threads threads
// of their own, neither the I/O thread nor the workers, so a flood of new
// connections slows neither the established ones nor their calls; while
// max_handshakes steps wait for or run on them, further connections wait
// in the listen backlog too. Why not
// Thrift's servers: TThreadPoolServer ties a worker to each connection for
// its lifetime (16 slow clients held every worker, and a worker blocked in
// send() made Stop() hang); TNonblockingServer bounds neither a partly read
// request nor an unread reply.
//
// Start-up binds before it returns, so a bind failure is its error and port 0
// is resolved to the real port; serving then runs on a background thread.
//
// This header names Thrift's TProcessor and TProcessorFactory only by forward
// declarations, so the servers' headers can be included outside thrift/.
//
// Thread-safety: Stop() and the accessors may be called from any thread.
#ifndef BLOOMROUTE_THRIFT_SERVER_THRIFT_SERVER_H_
#define BLOOMROUTE_THRIFT_SERVER_THRIFT_SERVER_H_

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>

#include "common/status.h"
#include "thrift/server/security.h"
#include "thrift/server/slow_call_log.h"

namespace apache::thrift {
class TProcessor;
class TProcessorFactory;
}  // namespace apache::thrift

namespace bloomroute::thrift_internal {
class AccessControl;
class CallThrottle;
}  // namespace bloomroute::thrift_internal

namespace bloomroute {

struct ServerOptions {
  static constexpr uint32_t kMaxThreads = 1024;
  static constexpr uint32_t kMaxConnections = 65536;
  static constexpr uint32_t kMaxHandshakes = kMaxConnections;
  static constexpr uint32_t kMaxHandshakeThreads = 64;
  static constexpr int kMaxTimeoutMs = 24 * 3600 * 1000;
  static constexpr uint32_t kMinFrameBytes = 1 << 16;
  static constexpr uint32_t kMaxFrameBytes = 1 << 30;
  static constexpr int32_t kMaxContainerElements = 100000;  // kMaxRowsPerCall
  static constexpr uint64_t kDecodedBytesPerFrameByte = 10;
  static constexpr uint64_t kMaxDecodedBytes = uint64_t{64} << 30;
  static constexpr uint64_t kMaxBufferedRequestBytes = uint64_t{1} << 40;
  static constexpr uint64_t kMaxBufferedReplyBytes = uint64_t{1} << 40;

  std::string host = "127.0.0.1";  // loopback unless asked otherwise
  int port = 0;                    // 0 = any free port; see the server's port()
  uint32_t threads = 16;           // workers = calls run at once
  // The largest request frame. The default holds a batch of several
  // maximum-size rows (RegionStoreOptions::max_row_bytes is 16 MiB).
  uint32_t max_frame_bytes = 64 << 20;
  // Close a connection that starts no request for this long after its last
  // reply (or after it opened).
  int idle_timeout_ms = 300000;
  // Close a connection whose request frame has not arrived whole this long
  // after its first byte: the whole request, not each read, is bounded.
  int request_timeout_ms = 60000;
  // Close a connection that has not taken its whole reply this long after
  // the reply was ready (a client that never reads).
  int reply_timeout_ms = 60000;
  // Connections open at once; further ones wait in the listen backlog until
  // one closes. Each may hold one request frame (max_frame_bytes) in memory,
  // all together at most max_buffered_request_bytes.
  uint32_t max_connections = 512;
  // With access control (TLS): connections one principal (a certificate's
  // name or a token's user) may have open at once; 0 for no bound. A
  // connection past it is closed, at its handshake (a certificate) or
  // after the authenticate reply (a token), saying nothing on the wire as
  // every bound that closes a connection: one client cannot take every
  // connection slot from the others (waiting to refuse its first call
  // would let a connection that never calls keep its slot). Services set their
  // own default (RouterServerOptions: 128; region servers, whose one client is
  // the router, none).
  uint32_t max_connections_per_principal = 0;
  // With TLS: handshake steps waiting for or running on a handshake
  // thread, in [1, kMaxHandshakes]. While this many are, the server accepts
  // no further connection (they wait in the listen backlog, as for
  // max_connections); established connections are served meanwhile. Only
  // steps count -- CPU work to do --, not connections waiting for their
  // client's next bytes: a client that starts a handshake and stops holds a
  // connection until request_timeout_ms, as any slow client does, but no
  // place here, so such clients cannot keep others out with fewer than
  // max_connections. The default: a handshake thread runs about 1,000
  // handshakes a second (about 1 ms of CPU each, in two steps, measured
  // with the cluster's P-256 certificates), so 64 steps queued are about
  // 32 ms of work for one thread: a new client waits at most that long for
  // its step, and beyond it a flood waits in the kernel's backlog instead
  // of in the server's memory.
  uint32_t max_handshakes = 64;
  // With TLS: the threads that run handshake steps, in [1,
  // kMaxHandshakeThreads]. Neither the I/O thread nor the call workers run
  // them, so a flood of handshakes slows neither established connections
  // nor calls. The default, 1, completes about 1,000 handshakes a second
  // and caps what a flood of them takes at one core, leaving the other of
  // a 2-core machine to the I/O thread and the calls.
  uint32_t handshake_threads = 1;
  // The decoded-size budget of one request, in bytes: 0 for the default,
  // kDecodedBytesPerFrameByte * max_frame_bytes; otherwise in
  // [max_frame_bytes, kMaxDecodedBytes].
  uint64_t max_decoded_bytes = 0;
  // The pool of request frame memory shared by all connections, in bytes;
  // in [max_frame_bytes, kMaxBufferedRequestBytes]. A frame's declared size
  // is reserved from it before its body is read and released when the frame
  // is freed; while it cannot be reserved, the connection is not read. The
  // default, 1 GiB, holds 16 maximum-size (64 MiB) frames, one per default
  // worker, where 512 connections could otherwise hold 32 GiB of frames.
  uint64_t max_buffered_request_bytes = uint64_t{1} << 30;
  // The reply bytes all connections may hold together before the server
  // starts no new call, in bytes; in [1, kMaxBufferedReplyBytes]. A reply is
  // counted (its buffer's allocated size) from the end of its call until its
  // last byte is sent or its connection closes. While more is held, complete
  // requests wait in arrival order (their request_timeout_ms, from their
  // first byte, still runs) and the calls already running finish, so replies
  // hold at most this plus `threads` replies (each bounded by the handler's
  // reply budget, 32 MiB plus a row). The default, 1 GiB, holds 16 replies
  // of 64 MiB (twice the handlers' 32 MiB budgets, as a buffer may double
  // while it grows), one per default worker, where 512 connections that
  // never read could otherwise hold 512 replies (about 24 GiB) for
  // reply_timeout_ms.
  uint64_t max_buffered_reply_bytes = uint64_t{1} << 30;
  // Calls that take this long or longer, from their whole request to their
  // reply, are logged (component "slow-call": method, caller, table,
  // duration, servers asked, outcome; thrift/server/internal/server_metrics.h);
  // 0 for none. HBase warns at 10 s (hbase.ipc.warn.response.time); a lookup
  // here takes about a millisecond, so one second is far out of the
  // ordinary and rare enough not to fill a log.
  uint32_t slow_call_ms = 1000;
  // Where those calls are also kept, for HBase's getSlowLogResponses
  // (slow_call_log.h); null: not kept.
  std::shared_ptr<SlowCallLog> slow_calls;
  // TLS on the port (thrift/server/security.h): off when tls.enabled() is
  // false. With it, every connection's first bytes are a TLS handshake, bounded
  // by request_timeout_ms from the accept, run on handshake_threads, at most
  // max_handshakes steps queued; a client must present a certificate of the
  // cluster's CA unless the service admits bearer tokens (the router's
  // token_file).
  TlsOptions tls;

  // The budget in effect (resolves the default).
  uint64_t DecodedBudget() const {
    return max_decoded_bytes != 0 ? max_decoded_bytes
                                  : kDecodedBytesPerFrameByte * max_frame_bytes;
  }

  // InvalidArgument naming the first field out of range (the host must be an
  // IP address or a host name).
  Status Validate() const;
};

// InvalidArgument unless `max_decoded_bytes` is 0 or in [max_frame_bytes,
// ServerOptions::kMaxDecodedBytes]; for servers and clients alike.
Status ValidateDecodedBudget(uint64_t max_decoded_bytes,
                             uint32_t max_frame_bytes);

// Parses "HOST:PORT" (an IPv4 address, a host name, or "[IPv6]") into `host`
// and `port`. InvalidArgument with the reason for anything else, including a
// port above 65535.
Status ParseListenAddress(std::string_view address, std::string* host,
                          int* port);

// ParseListenAddress for an address to connect to: port 0 is refused too.
// Errors name `what` ("region server address").
Status ParseDialAddress(std::string_view address, std::string_view what,
                        std::string* host, int* port);

// "host:port", with an IPv6 host in brackets ("[::1]:9090"): what
// ParseListenAddress accepts.
std::string FormatHostPort(const std::string& host, int port);

// The request frames a server holds
// (ServerOptions::max_buffered_request_bytes).
struct RequestBufferStats {
  uint64_t held_bytes = 0;       // allocated now for frames read or running
  uint64_t peak_held_bytes = 0;  // the most held at once since start
  uint64_t reserved_bytes = 0;   // reserved from the pool now
  uint64_t pool_waits = 0;       // frames that had to wait for the pool
};

// The replies a server holds until they are sent
// (ServerOptions::max_buffered_reply_bytes).
struct ReplyBufferStats {
  uint64_t held_bytes = 0;           // replies not yet wholly sent, now
  uint64_t peak_held_bytes = 0;      // the most held at once since start
  uint64_t largest_reply_bytes = 0;  // the largest one reply held
  uint64_t waits = 0;  // requests that found the bound passed and waited
};

class ThriftServer {
 public:
  // Stops the server if it still runs.
  virtual ~ThriftServer();
  ThriftServer(const ThriftServer&) = delete;
  ThriftServer& operator=(const ThriftServer&) = delete;

  const std::string& host() const;
  // The bound port (the one chosen when options.port was 0).
  int port() const;
  // What the server's request frames hold now and held at most; all zero
  // before Serve() and after Stop().
  RequestBufferStats request_buffer_stats() const;
  // What the server's replies hold now and held at most; all zero before
  // Serve() and after Stop().
  ReplyBufferStats reply_buffer_stats() const;
  // Reads the TLS revocation list (options.tls.crl_file) again: the
  // certificates it lists fail their next handshake. OK with nothing to do
  // without TLS or a list; a bad file changes nothing (InvalidArgument
  // naming it). The server commands call it on SIGHUP.
  [[nodiscard]] Status ReloadCrl();

  // Stops accepting, closes the open connections, waits for the calls in
  // progress to finish (requests read but not started are dropped) and for
  // the workers to exit, and releases the processors (and with them the
  // handlers and what they hold). Never waits for a client: returns within
  // the time of the longest call in progress. Idempotent.
  void Stop();

 protected:
  ThriftServer();
  // Binds options.host:options.port and serves `processor` (not null) on a
  // background thread. `name` ("RegionServer") prefixes the rare message
  // logged when serving fails after start. Call once, from the derived
  // class's factory. InvalidArgument for bad options, IOError when the
  // address cannot be bound.
  // With options.tls enabled, `access` (not null) says who may call what
  // (thrift/server/access_control.h); a client certificate is required at
  // the handshake unless access admits tokens. Without TLS nothing is
  // checked. InvalidArgument also for TLS files that cannot be loaded.
  // `throttle` (may be null) admits or refuses each call that access passed
  // (thrift/server/call_throttle.h).
  Status Serve(
      std::shared_ptr<apache::thrift::TProcessor> processor,
      const ServerOptions& options, std::string name,
      std::shared_ptr<const thrift_internal::AccessControl> access = nullptr);
  // Serve() with a processor per connection: processors->getProcessor() runs
  // on the I/O thread for each accepted connection (its TConnectionInfo's
  // transport is the connection's TSocket), and the processor is released
  // when the connection closes.
  Status Serve(
      std::shared_ptr<apache::thrift::TProcessorFactory> processors,
      const ServerOptions& options, std::string name,
      std::shared_ptr<const thrift_internal::AccessControl> access = nullptr,
      std::shared_ptr<thrift_internal::CallThrottle> throttle = nullptr);

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace bloomroute

#endif  // BLOOMROUTE_THRIFT_SERVER_THRIFT_SERVER_H_
