#include "thrift/server/internal/frame_loop.h"

#include <arpa/inet.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <sys/socket.h>
#include <sys/uio.h>
#include <thrift/TConfiguration.h>
#include <thrift/protocol/TBinaryProtocol.h>
#include <thrift/transport/TBufferTransports.h>
#include <thrift/transport/TSocket.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstring>
#include <deque>
#include <exception>
#include <utility>
#include <vector>

#include "common/sync_point.h"
#include "thrift/internal/decode_budget.h"
#include "thrift/internal/tls.h"
#include "thrift/server/access_control.h"
#include "thrift/server/call_throttle.h"
#include "thrift/server/internal/connection.h"
#include "thrift/server/internal/hand_off_pool.h"
#include "thrift/server/internal/server_metrics.h"

namespace bloomroute::thrift_internal {
namespace {

namespace at = apache::thrift;
using Clock = std::chrono::steady_clock;
using std::chrono::milliseconds;

// Bytes read per recv(): a frame's buffer grows by at most this beyond what
// has arrived.
constexpr size_t kReadChunk = 256 << 10;
// After accept() fails for want of descriptors, the listening socket rests
// this long instead of waking the loop at once again.
constexpr milliseconds kAcceptBackoff{100};
// What a refused handshake's connection reads, at most, before it closes
// (Close): a client's flight and first request fit.
constexpr size_t kDrainBytes = 64 << 10;

// Raises `peak` to `value` unless it is already higher; any thread.
void RaiseTo(std::atomic<uint64_t>& peak, uint64_t value) {
  uint64_t seen = peak.load();
  while (seen < value && !peak.compare_exchange_weak(seen, value)) {
  }
}

bool SetNonBlocking(int fd) {
  const int flags = fcntl(fd, F_GETFL, 0);
  return flags >= 0 && fcntl(fd, F_SETFL, flags | O_NONBLOCK) == 0;
}

// The outcome of a call access control answered itself (`verdict` not
// kPass): a refusal, or authenticate's answer; "" when it passed.
std::string RefusalOutcome(AccessControl::Verdict verdict,
                           const std::string& method,
                           const Identity& identity) {
  if (verdict == AccessControl::Verdict::kPass) return "";
  if (method == "authenticate" && identity.role != Role::kNone) return "ok";
  return "permission_denied";
}

// The peer's address for the logs; "?" when the socket cannot say.
std::string PeerAddress(const Connection& c) {
  try {
    return c.socket->getPeerAddress() + ":" +
           std::to_string(c.socket->getPeerPort());
  } catch (const std::exception&) {
    return "?";
  }
}

// The metrics label of a server named `name` (ThriftServer::Serve's).
std::string ServiceLabel(const std::string& name) {
  if (name == "RouterServer") return "router";
  if (name == "RegionServer") return "region";
  return name;
}

}  // namespace

struct FrameLoop::Impl {
  int listen_fd = -1;
  std::shared_ptr<at::TProcessorFactory> factory;
  std::shared_ptr<TlsServerContext> tls;        // null: plaintext
  std::shared_ptr<const AccessControl> access;  // null: no checks
  std::shared_ptr<CallThrottle> throttle;       // null: none
  std::unique_ptr<ServerMetrics> metrics;       // set by Create
  ServerOptions options;
  std::string name;
  std::shared_ptr<at::TConfiguration> config;
  int wake_read = -1;
  int wake_write = -1;
  std::atomic<bool> stopping{false};

  // Request frame memory: raised by the I/O thread only, lowered by whoever
  // frees a frame (a worker after its call, or the I/O thread).
  std::atomic<uint64_t> held_bytes{0};
  std::atomic<uint64_t> peak_held_bytes{0};  // written by the I/O thread
  std::atomic<uint64_t> reserved_bytes{0};
  std::atomic<uint64_t> pool_waits{0};

  // Reply memory: raised by a worker when its call ends, lowered by the I/O
  // thread when the reply is sent or its connection closes.
  std::atomic<uint64_t> held_reply_bytes{0};
  std::atomic<uint64_t> peak_reply_bytes{0};
  std::atomic<uint64_t> largest_reply_bytes{0};
  std::atomic<uint64_t> reply_waits{0};

  // The I/O thread's alone.
  std::vector<ConnectionPtr> connections;
  Clock::time_point accept_paused_until;
  // Connections waiting for the pool, in the order they began to wait.
  std::deque<ConnectionPtr> pool_waiters;
  // Whole frames not yet handed to a worker, in the order they arrived.
  std::deque<ConnectionPtr> call_waiters;
  // Connections counted per principal (CountPrincipal).
  PrincipalConnections principals;
  // Calls handed to the workers and not yet collected: at most `threads`.
  uint32_t calls_in_flight = 0;
  // Handshake steps handed to the handshake threads and not yet collected
  // (Connection::handshake_work): at most max_handshakes. While it is, no
  // connection is accepted and no step started (HandshakeWorkFull: the
  // handshaking connections are not polled); one Accept() takes at most as
  // many as it is short of (each wants its first step in the next round).
  uint32_t handshake_work = 0;

  // The call workers, and the handshake threads (null without TLS): while
  // a connection is in one (kRunning, kHandshakeRunning) the I/O thread
  // does not touch it.
  std::unique_ptr<HandOffPool<ConnectionPtr>> workers;
  std::unique_ptr<HandOffPool<ConnectionPtr>> handshakers;
  bool shut_down = false;  // Shutdown() ran

  ~Impl() {
    if (wake_read >= 0) close(wake_read);
    if (wake_write >= 0) close(wake_write);
  }

  void Wake() {
    const char byte = 0;
    // A full pipe already wakes the loop.
    [[maybe_unused]] ssize_t ignored = write(wake_write, &byte, 1);
  }

  // A handshake thread runs one step at a time, each of another
  // connection (or of the same one, once the I/O thread has seen its socket
  // ready again). Neither the I/O thread nor the workers run them, so a
  // flood of new connections slows neither the established ones nor their
  // calls.
  void StartWorkers() {
    workers = std::make_unique<HandOffPool<ConnectionPtr>>(
        options.threads, [this](ConnectionPtr& c) { RunCall(*c); },
        [this] { Wake(); });
    if (tls == nullptr) return;
    handshakers = std::make_unique<HandOffPool<ConnectionPtr>>(
        options.handshake_threads,
        [this](ConnectionPtr& c) {
          // A step queued past its deadline costs no CPU: it fails, and the
          // connection closes when it is back.
          if (Clock::now() >=
              c->frame_started + milliseconds(options.request_timeout_ms)) {
            c->handshake_step = TlsIo::kFailed;
            return;
          }
          HandshakeStep(*c);
        },
        [this] { Wake(); });
  }

  // One step of c's handshake, on a handshake thread, which holds c. The
  // socket is non-blocking, so a step never waits for the peer: it is CPU
  // only. Measured with the cluster's P-256 certificates, a handshake with a
  // client certificate costs about 1 ms in two steps: 0.35 ms for the
  // server's first flight (key exchange, signature), 0.7 ms for the one
  // that verifies the client's certificate. Touches only c's session and
  // the fields the I/O thread reads once it has c back
  // (FinishHandshakeStep).
  static void HandshakeStep(Connection& c) {
    BLOOMROUTE_SYNC_POINT("FrameLoop:HandshakeStep");
    c.handshake_step = TlsHandshake(c.ssl.get());
    if (c.handshake_step == TlsIo::kDone) {
      c.identity = PeerIdentity(c.ssl.get());
    }
  }

  // Runs one frame through the processor; leaves the reply in c.reply, or
  // nullptr when the connection must close (a frame that is not a valid
  // message, or a processor that gave up on the connection).
  void RunCall(Connection& c) {
    auto input = std::make_shared<at::transport::TMemoryBuffer>(
        c.frame.data(), static_cast<uint32_t>(c.frame.size()),
        at::transport::TMemoryBuffer::OBSERVE, config);
    auto output = std::make_shared<at::transport::TMemoryBuffer>();
    const uint8_t length_placeholder[4] = {};
    output->write(length_placeholder, sizeof(length_placeholder));
    // Strings are bounded by the frame (the memory buffer holds no more);
    // what a frame decodes into is bounded by the budget (decode_budget.h).
    auto in = std::make_shared<BudgetedBinaryProtocol>(
        input, options.DecodedBudget(), ServerOptions::kMaxContainerElements,
        "--max-decoded-bytes");
    auto out = std::make_shared<at::protocol::TBinaryProtocol>(output);
    bool ok = false;
    ServerMetrics::Call call(metrics.get(), c.frame.data(), c.frame.size());
    std::string outcome;  // empty: the handler's (ServeCall)
    try {
      AccessControl::Verdict verdict = AccessControl::Verdict::kPass;
      if (access != nullptr) {
        verdict = access->Intercept(c.frame.data(), c.frame.size(), &c.identity,
                                    out.get());
        outcome = RefusalOutcome(verdict, call.method(), c.identity);
      }
      std::unique_ptr<CallThrottle::Ticket> ticket;
      if (verdict == AccessControl::Verdict::kPass && throttle != nullptr) {
        verdict = throttle->Admit(c.frame.data(), c.frame.size(), c.identity,
                                  out.get(), &ticket);
        if (verdict != AccessControl::Verdict::kPass) outcome = "throttled";
      }
      if (verdict == AccessControl::Verdict::kPass) {
        ScopedCaller caller(access != nullptr ? &c.identity : nullptr);
        ok = c.processor->process(in, out, nullptr);
        if (ticket != nullptr) {
          throttle->Settle(
              *ticket, output->available_read() - sizeof(length_placeholder));
        }
      } else {
        ok = verdict == AccessControl::Verdict::kAnswered;
        // Refused, or a token refused: a caller that may call nothing gets
        // one answer, then its connection closes.
        if (MayCallNothing(c)) c.close_after_reply = true;
      }
    } catch (const DecodeBudgetExceeded&) {
      // The processor (AnswerDecodeBudgetErrors) wrote the client an
      // exception naming the budget: send it, then close.
      ok = true;
      c.close_after_reply = true;
      outcome = "decoded_bytes";
      metrics->Refused("decoded_bytes");
    } catch (const at::TException&) {
      outcome = "malformed";
      // Bytes that do not decode: the connection closes, nothing is logged
      // (a client could fill the log).
    } catch (const std::exception& e) {
      outcome = "error";
      at::GlobalOutput.printf("%s: a call failed: %s", name.c_str(), e.what());
    }
    call.Finish(outcome, access != nullptr ? &c.identity : nullptr,
                [&c] { return PeerAddress(c); });
    FreeFrame(c);  // the request's memory goes now
    c.reply = ok ? std::move(output) : nullptr;
    if (ok) HoldReply(c);
  }

  // Counts c's reply (its buffer's allocated size) until ReleaseReply().
  void HoldReply(Connection& c) {
    c.reply_held = c.reply->getBufferSize();
    RaiseTo(largest_reply_bytes, c.reply_held);
    RaiseTo(peak_reply_bytes,
            held_reply_bytes.fetch_add(c.reply_held) + c.reply_held);
  }

  // Frees c's reply. The I/O thread's alone.
  void ReleaseReply(Connection& c) {
    c.reply.reset();
    held_reply_bytes.fetch_sub(c.reply_held);
    c.reply_held = 0;
  }

  // True while max_handshakes steps are on the handshake threads: no
  // connection is accepted and no further step started until one is back.
  bool HandshakeWorkFull() const {
    return handshake_work >= options.max_handshakes;
  }

  // True while below the connection cap and, with TLS, the handshake cap.
  bool MayAccept() const {
    return connections.size() < options.max_connections &&
           (tls == nullptr || handshake_work < options.max_handshakes);
  }

  // Accepts while below the connection cap and, with TLS, at most as many
  // as handshake steps are short of max_handshakes: each will want its
  // first step in the next round.
  void Accept() {
    uint32_t room = options.max_connections;
    if (tls != nullptr) {
      room = handshake_work < options.max_handshakes
                 ? options.max_handshakes - handshake_work
                 : 0;
    }
    for (; room > 0 && MayAccept(); --room) {
      const int fd =
          accept4(listen_fd, nullptr, nullptr, SOCK_NONBLOCK | SOCK_CLOEXEC);
      if (fd < 0) {
        if (errno == EINTR || errno == ECONNABORTED) continue;
        if (errno == EMFILE || errno == ENFILE || errno == ENOBUFS ||
            errno == ENOMEM) {
          accept_paused_until = Clock::now() + kAcceptBackoff;
        }
        return;  // EAGAIN: none waiting
      }
      AddConnection(fd);
    }
  }

  void AddConnection(int fd) {
    const int one = 1;
    setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
    auto c = std::make_shared<Connection>();
    c->fd = fd;
    c->socket = std::make_shared<at::transport::TSocket>(fd, config);
    c->idle_since = c->frame_started = Clock::now();
    if (tls != nullptr) {
      c->ssl = tls->NewConnection(fd);
      if (c->ssl == nullptr) {
        Close(*c);
        return;
      }
      // The server's first step reads the ClientHello: poll for it rather
      // than hand the handshake threads a step that finds nothing.
      c->state = Connection::State::kHandshaking;
      c->tls_wants = POLLIN;
      connections.push_back(std::move(c));
      return;
    }
    if (MakeProcessor(*c)) connections.push_back(std::move(c));
  }

  static bool IsHandshaking(const Connection& c) {
    return c.state == Connection::State::kHandshaking ||
           c.state == Connection::State::kHandshakeRunning;
  }

  // Hands c, whose socket is ready for its handshake, to the handshake
  // threads for one step (HandshakeStep). Until FinishHandshakeStep takes
  // it back, c is theirs: not polled, and no deadline is checked.
  void StartHandshakeStep(ConnectionPtr c) {
    c->state = Connection::State::kHandshakeRunning;
    CountHandshakeWork(*c, true);
    handshakers->Submit(std::move(c));
  }

  // Counts c in handshake_work (or no longer); idempotent.
  void CountHandshakeWork(Connection& c, bool counted) {
    if (c.handshake_work == counted) return;
    c.handshake_work = counted;
    if (counted) {
      ++handshake_work;
    } else {
      --handshake_work;
    }
  }

  // Takes back the connections whose handshake step ran.
  void CollectHandshakeSteps() {
    if (handshakers == nullptr) return;  // no TLS
    const std::vector<ConnectionPtr> done = handshakers->TakeDone();
    for (const ConnectionPtr& c : done) {
      CountHandshakeWork(*c, false);
      FinishHandshakeStep(c);
    }
  }

  // Acts on the step's outcome. Once the handshake completes, c (which has
  // its peer's identity) gets its processor here, on the I/O thread, and
  // starts reading. Otherwise c is polled for what the handshake waits
  // for, its deadline running from the accept. A failed handshake
  // (plaintext, a certificate of another CA or expired, none where one is
  // required) closes only c, and is not logged: a client could fill the
  // log.
  void FinishHandshakeStep(const ConnectionPtr& c) {
    c->state = Connection::State::kHandshaking;  // the I/O thread's again
    switch (c->handshake_step) {
      case TlsIo::kDone:
        c->state = Connection::State::kReading;
        c->tls_wants = 0;
        CountPrincipal(*c);
        if (c->over_principal_limit) {
          metrics->Refused("connections_per_principal");
          Close(*c);
          return;
        }
        if (!MakeProcessor(*c)) return;
        StartReading(*c);
        ReadSome(c);  // the first request may have come with the handshake
        return;
      case TlsIo::kWantRead:
        c->tls_wants = POLLIN;
        return;
      case TlsIo::kWantWrite:
        c->tls_wants = POLLOUT;
        return;
      case TlsIo::kClosed:
      case TlsIo::kFailed:
        metrics->Refused("tls_handshake");
        c->tls_failed = true;
        Close(*c);
        return;
    }
  }

  // Counts c against its principal when access is checked and
  // max_connections_per_principal bounds connections; called whenever c's
  // identity may have changed (handshake, a call: authenticate). One past
  // the bound is closed by the caller at once (handshake) or after its
  // reply (authenticate): a connection that waited for a call to be
  // refused would keep its slot until then.
  void CountPrincipal(Connection& c) {
    if (access == nullptr || options.max_connections_per_principal == 0) {
      return;
    }
    principals.Count(c, options.max_connections_per_principal);
  }

  // True when access is checked and c's identity may make no call yet.
  bool MayCallNothing(const Connection& c) const {
    return access != nullptr && !access->MayCallAnything(c.identity);
  }

  // Gives c its processor; false (c closed) when the factory gives none.
  bool MakeProcessor(Connection& c) {
    try {
      at::TConnectionInfo info;
      info.transport = c.socket;
      info.input = std::make_shared<at::protocol::TBinaryProtocol>(c.socket);
      info.output = info.input;
      c.processor = factory->getProcessor(info);
      if (c.processor != nullptr) {
        c.processor = AnswerDecodeBudgetErrors(std::move(c.processor));
      }
    } catch (const std::exception& e) {
      at::GlobalOutput.printf("%s: no processor for a connection: %s",
                              name.c_str(), e.what());
    }
    if (c.processor == nullptr) {
      Close(c);
      return false;
    }
    return true;
  }

  void Close(Connection& c) {
    if (c.closed) return;
    c.closed = true;
    principals.Uncount(c);
    CountHandshakeWork(c, false);
    if (c.ssl != nullptr) {
      if (!c.tls_failed && !IsHandshaking(c)) {
        TlsShutdown(c.ssl.get());
      }
      // A refused handshake left its alert in the socket. Closed with the
      // client's unread bytes (the rest of its flight, its first request)
      // the kernel would send a reset, which can reach the client before
      // it reads the alert: it then sees a broken pipe, not the refusal.
      // What has arrived is read first (bounded), so that it gets a FIN.
      if (c.tls_failed && IsHandshaking(c)) DrainArrived(c.fd);
      c.ssl.reset();  // the descriptor stays the socket's to close
    }
    try {
      c.socket->close();
    } catch (...) {  // close() of a socket reports nothing we could act on
    }
    c.processor.reset();  // releases a per-connection handler now
    ReleaseReply(c);
    FreeFrame(c);
  }

  // Reads and drops what has arrived on `fd`, at most kDrainBytes.
  static void DrainArrived(int fd) {
    char buffer[4096];
    for (size_t drained = 0; drained < kDrainBytes;) {
      const ssize_t n = recv(fd, buffer, sizeof(buffer), MSG_DONTWAIT);
      if (n <= 0) return;
      drained += static_cast<size_t>(n);
    }
  }

  // Makes room for `need` bytes of c's frame. The capacity grows at most
  // twofold and never past the frame's declared size, so what is held is at
  // most what is reserved for it (std::vector::reserve allocates exactly).
  void GrowFrame(Connection& c, size_t need) {
    const size_t capacity = c.frame.capacity();
    if (need <= capacity) return;
    c.frame.reserve(
        std::min<size_t>(c.frame_bytes, std::max(need, 2 * capacity)));
    const uint64_t held = held_bytes.fetch_add(c.frame.capacity() - capacity) +
                          (c.frame.capacity() - capacity);
    if (held > peak_held_bytes.load()) peak_held_bytes.store(held);
  }

  // Frees c's frame and releases what it held and reserved. Runs on the
  // thread that owns `c`; a worker then wakes the I/O thread (WorkerMain),
  // which grants the released bytes to waiting connections.
  void FreeFrame(Connection& c) {
    held_bytes.fetch_sub(c.frame.capacity());
    std::vector<uint8_t>().swap(c.frame);
    reserved_bytes.fetch_sub(c.reserved);
    c.reserved = 0;
  }

  // Reserves c's declared frame size from the pool, or queues c behind the
  // connections already waiting, so that a large frame is not overtaken
  // forever by small ones. False when c must wait.
  bool ReserveFrame(const ConnectionPtr& c) {
    if (pool_waiters.empty() && TryReserve(*c)) return true;
    c->waiting_for_pool = true;
    pool_waiters.push_back(c);
    pool_waits.fetch_add(1);
    return false;
  }

  // Only the I/O thread adds to reserved_bytes, so what it read can only
  // have shrunk by the time it adds.
  bool TryReserve(Connection& c) {
    if (reserved_bytes.load() + c.frame_bytes >
        options.max_buffered_request_bytes) {
      return false;
    }
    reserved_bytes.fetch_add(c.frame_bytes);
    c.reserved = c.frame_bytes;
    GrowFrame(c, std::min<size_t>(c.frame_bytes, kReadChunk));
    return true;
  }

  // Grants the pool to waiting connections in the order they began to wait,
  // up to the first that does not fit. A granted connection is polled again
  // from the next round (its bytes wait in the kernel's buffers).
  void GrantWaiting() {
    while (!pool_waiters.empty()) {
      Connection& c = *pool_waiters.front();
      if (!c.closed) {
        if (!TryReserve(c)) return;
        c.waiting_for_pool = false;
      }
      pool_waiters.pop_front();
    }
  }

  // Reads what has arrived; hands a whole frame to the workers.
  void ReadSome(const ConnectionPtr& p) {
    Connection& c = *p;
    for (;;) {
      if (c.header_bytes < sizeof(c.header)) {
        if (!ReadHeader(c)) return;
        if (c.header_bytes == sizeof(c.header) && !ReserveFrame(p)) return;
        continue;
      }
      const size_t have = c.frame.size();
      const size_t want = std::min<size_t>(c.frame_bytes - have, kReadChunk);
      GrowFrame(c, have + want);
      c.frame.resize(have + want);
      const ssize_t n = c.Receive(c.frame.data() + have, want);
      c.frame.resize(have + std::max<ssize_t>(n, 0));
      if (!ReadSucceeded(c, n)) return;
      if (c.frame.size() == c.frame_bytes) {
        Dispatch(p);
        return;
      }
    }
  }

  // True when the whole header has arrived and names an acceptable size;
  // false when nothing more can be read now (or the connection closed).
  bool ReadHeader(Connection& c) {
    const ssize_t n =
        c.Receive(c.header + c.header_bytes, sizeof(c.header) - c.header_bytes);
    if (n > 0 && c.header_bytes == 0) c.frame_started = Clock::now();
    if (!ReadSucceeded(c, n)) return false;
    c.header_bytes += static_cast<size_t>(n);
    if (c.header_bytes < sizeof(c.header)) return true;
    uint32_t be = 0;
    std::memcpy(&be, c.header, sizeof(be));
    c.frame_bytes = ntohl(be);
    // Refused before anything is allocated for it; 0 is no message either.
    // A caller that may call nothing yet sends only small frames.
    const uint32_t limit =
        MayCallNothing(c)
            ? std::min(options.max_frame_bytes, kMaxUnauthenticatedFrameBytes)
            : options.max_frame_bytes;
    if (c.frame_bytes == 0 || c.frame_bytes > limit) {
      metrics->Refused("frame_bytes");
      if (c.ssl == nullptr && LooksLikeTlsRecord(c.header)) {
        // A TLS client at a plaintext port: told so, and its flight read
        // so that the close is a FIN, not a reset that could overtake it.
        AnswerTlsInTheClear(c.fd);
        DrainArrived(c.fd);
      }
      Close(c);
      return false;
    }
    return true;
  }

  // False (closing on EOF or an error) unless `n` bytes were read.
  bool ReadSucceeded(Connection& c, ssize_t n) {
    if (n > 0) return true;
    if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR)) {
      return false;
    }
    Close(c);
    return false;
  }

  // Queues c's whole frame behind those that arrived before it and starts
  // what may start. Until it starts, c keeps its request deadline.
  void Dispatch(const ConnectionPtr& c) {
    if (held_reply_bytes.load() > options.max_buffered_reply_bytes) {
      reply_waits.fetch_add(1);
    }
    c->waiting_for_call = true;
    call_waiters.push_back(c);
    StartCalls();
  }

  // Hands waiting frames to the workers in arrival order while a worker is
  // free and the replies held are within max_buffered_reply_bytes. A call
  // starts only then and at most `threads` run, so replies hold at most the
  // bound plus `threads` replies. Replies are released only by the I/O
  // thread, which runs this once per round, so a frame waits no longer than
  // the bytes held above the bound do.
  void StartCalls() {
    while (!call_waiters.empty() && calls_in_flight < options.threads &&
           held_reply_bytes.load() <= options.max_buffered_reply_bytes) {
      ConnectionPtr c = std::move(call_waiters.front());
      call_waiters.pop_front();
      if (c->closed) continue;
      c->waiting_for_call = false;
      c->state = Connection::State::kRunning;
      c->header_bytes = 0;
      ++calls_in_flight;
      workers->Submit(std::move(c));
    }
  }

  // Takes back the connections whose calls finished.
  void CollectFinished() {
    const std::vector<ConnectionPtr> done = workers->TakeDone();
    calls_in_flight -= static_cast<uint32_t>(done.size());
    for (const ConnectionPtr& c : done) {
      // authenticate may have given it an identity: one past its
      // principal's bound closes after this reply.
      CountPrincipal(*c);
      if (c->over_principal_limit) c->close_after_reply = true;
      if (c->reply == nullptr) {
        Close(*c);
        continue;
      }
      uint8_t* frame = nullptr;
      uint32_t frame_bytes = 0;
      c->reply->getBuffer(&frame, &frame_bytes);
      if (frame_bytes == sizeof(uint32_t)) {  // a oneway call: no reply
        if (c->close_after_reply) {
          Close(*c);
        } else {
          StartReading(*c);
        }
        continue;
      }
      const uint32_t be = htonl(frame_bytes - sizeof(uint32_t));
      std::memcpy(frame, &be, sizeof(be));
      c->reply_sent = 0;
      c->reply_started = Clock::now();
      c->state = Connection::State::kWriting;
      WriteSome(*c);
    }
  }

  void StartReading(Connection& c) {
    ReleaseReply(c);
    c.state = Connection::State::kReading;
    // Who may call nothing keeps the clock of its accept (or of its last
    // authentication attempt): nothing it sends buys it more time.
    if (!MayCallNothing(c)) c.idle_since = Clock::now();
  }

  // Sends what the socket takes; back to reading once the reply is out.
  void WriteSome(Connection& c) {
    uint8_t* frame = nullptr;
    uint32_t total = 0;
    c.reply->getBuffer(&frame, &total);
    while (c.reply_sent < total) {
      const ssize_t n = c.Send(frame + c.reply_sent, total - c.reply_sent);
      if (n < 0) {
        if (errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR) return;
        Close(c);  // the client went away
        return;
      }
      c.reply_sent += static_cast<size_t>(n);
    }
    if (c.close_after_reply) {
      Close(c);
      return;
    }
    StartReading(c);
  }

  // When `c` must be closed unless it makes progress.
  Clock::time_point Deadline(const Connection& c) const {
    switch (c.state) {
      case Connection::State::kHandshaking:
        return c.frame_started + milliseconds(options.request_timeout_ms);
      case Connection::State::kReading:
        if (c.header_bytes != 0) {
          return c.frame_started + milliseconds(options.request_timeout_ms);
        }
        // Who may call nothing has a request's time to authenticate.
        return c.idle_since +
               milliseconds(MayCallNothing(c)
                                ? std::min(options.idle_timeout_ms,
                                           options.request_timeout_ms)
                                : options.idle_timeout_ms);
      case Connection::State::kWriting:
        return c.reply_started + milliseconds(options.reply_timeout_ms);
      case Connection::State::kRunning:
      case Connection::State::kHandshakeRunning:
        break;
    }
    // The handler's own work bounds a call. A handshake step is CPU only
    // and short; if the deadline passed meanwhile, the connection is closed
    // once the step is back (kHandshaking again).
    return Clock::time_point::max();
  }

  // The bound a connection past Deadline() broke, for ServerMetrics.
  const char* DeadlineName(const Connection& c) const {
    switch (c.state) {
      case Connection::State::kHandshaking:
        return "handshake_timeout";
      case Connection::State::kReading:
        return c.header_bytes != 0 ? "request_timeout" : "idle_timeout";
      default:
        return "reply_timeout";
    }
  }

  // Closes connections past their deadline; returns the next deadline.
  Clock::time_point ExpireDeadlines() {
    const Clock::time_point now = Clock::now();
    Clock::time_point next = Clock::time_point::max();
    for (const ConnectionPtr& c : connections) {
      if (c->closed) continue;
      const Clock::time_point deadline = Deadline(*c);
      if (deadline <= now) {
        metrics->Refused(DeadlineName(*c));
        Close(*c);
      } else {
        next = std::min(next, deadline);
      }
    }
    if (accept_paused_until > now) next = std::min(next, accept_paused_until);
    connections.erase(
        std::remove_if(connections.begin(), connections.end(),
                       [](const ConnectionPtr& c) { return c->closed; }),
        connections.end());
    return next;
  }

  // One round: wait for sockets or a deadline, then serve what is ready.
  // True when c's TLS session holds decrypted bytes not yet read: poll()
  // cannot see them, so c is served without waiting for its socket.
  static bool HasBufferedBytes(const Connection& c) {
    // SSL_pending, not SSL_has_pending: the latter is also true for a record
    // that arrived in part, which cannot be read until the rest comes, and
    // serving it at once each round spun the loop. Not while TLS waits to
    // write (its socket is full): polled for that instead.
    return c.ssl != nullptr && c.state == Connection::State::kReading &&
           !c.waiting_for_pool && !c.waiting_for_call && !c.closed &&
           c.tls_wants != POLLOUT && SSL_pending(c.ssl.get()) > 0;
  }

  // The poll events c waits for.
  static short EventsOf(const Connection& c) {
    // A connection waiting for the pool or to start its call is not read;
    // polled for nothing, it still reports an error or hang-up.
    if (c.waiting_for_pool || c.waiting_for_call) return 0;
    if (c.tls_wants != 0) return c.tls_wants;  // TLS's step decides
    return c.state == Connection::State::kWriting ? POLLOUT : POLLIN;
  }

  // Serves c, whose socket is ready.
  void Serve(const ConnectionPtr& c, short revents) {
    if (c->closed) return;
    if (c->waiting_for_pool || c->waiting_for_call) {
      Close(*c);  // the client went away while it waited
    } else if (c->state == Connection::State::kHandshaking) {
      if (!HandshakeWorkFull()) {
        StartHandshakeStep(c);
      } else if ((revents & (POLLERR | POLLHUP | POLLNVAL)) != 0) {
        Close(*c);  // polled for nothing meanwhile: it went away
      }
    } else if (c->state == Connection::State::kReading) {
      ReadSome(c);
    } else if (c->state == Connection::State::kWriting) {
      WriteSome(*c);
    }
  }

  // One round: wait for sockets or a deadline, then serve what is ready.
  void Round(Clock::time_point next_deadline) {
    std::vector<pollfd> fds;
    std::vector<ConnectionPtr> polled;
    std::vector<ConnectionPtr> buffered;
    fds.push_back({wake_read, POLLIN, 0});
    const bool accepting = MayAccept() && Clock::now() >= accept_paused_until;
    if (accepting) fds.push_back({listen_fd, POLLIN, 0});
    const size_t first_connection = fds.size();
    for (const ConnectionPtr& c : connections) {
      if (c->state == Connection::State::kRunning ||
          c->state == Connection::State::kHandshakeRunning) {
        continue;  // a worker or a handshake thread holds it
      }
      if (HasBufferedBytes(*c)) buffered.push_back(c);
      // A handshake waits, unpolled, while the handshake work is full.
      const bool held =
          c->state == Connection::State::kHandshaking && HandshakeWorkFull();
      fds.push_back({c->fd, held ? short{0} : EventsOf(*c), 0});
      polled.push_back(c);
    }
    int timeout_ms = -1;
    if (!buffered.empty()) {
      timeout_ms = 0;
    } else if (next_deadline != Clock::time_point::max()) {
      const auto left = std::chrono::duration_cast<milliseconds>(next_deadline -
                                                                 Clock::now());
      timeout_ms = static_cast<int>(std::max<int64_t>(left.count() + 1, 0));
    }
    if (poll(fds.data(), fds.size(), timeout_ms) < 0) return;
    if (fds[0].revents != 0) DrainWakePipe();
    for (size_t i = first_connection; i < fds.size(); ++i) {
      if (fds[i].revents != 0) {
        Serve(polled[i - first_connection], fds[i].revents);
      }
    }
    for (const ConnectionPtr& c : buffered) {
      if (HasBufferedBytes(*c)) ReadSome(c);
    }
    if (accepting && fds[1].revents != 0) Accept();
  }

  void DrainWakePipe() {
    char buf[256];
    while (read(wake_read, buf, sizeof(buf)) > 0) {
    }
  }

  void Shutdown() {
    shut_down = true;
    // The calls and handshake steps in progress finish first (a step never
    // waits for the peer); those not started are dropped, and their
    // connections closed below.
    if (workers != nullptr) workers->Stop();
    if (handshakers != nullptr) handshakers->Stop();
    for (const ConnectionPtr& c : connections) Close(*c);
    connections.clear();
    pool_waiters.clear();
    call_waiters.clear();
    factory.reset();
  }
};

FrameLoop::FrameLoop(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}

FrameLoop::~FrameLoop() {
  // Run() normally shut down; a loop that never ran still has its threads.
  if (!impl_->shut_down) impl_->Shutdown();
}

StatusOr<std::unique_ptr<FrameLoop>> FrameLoop::Create(
    int listen_fd, std::shared_ptr<at::TProcessorFactory> processors,
    const ServerOptions& options, std::string name,
    std::shared_ptr<TlsServerContext> tls,
    std::shared_ptr<const AccessControl> access,
    std::shared_ptr<CallThrottle> throttle) {
  auto impl = std::make_unique<Impl>();
  impl->throttle = std::move(throttle);
  impl->listen_fd = listen_fd;
  impl->factory = std::move(processors);
  impl->tls = std::move(tls);
  impl->access = std::move(access);
  impl->options = options;
  impl->name = std::move(name);
  impl->metrics = std::make_unique<ServerMetrics>(
      ServiceLabel(impl->name), options.slow_call_ms,
      [service = ServiceLabel(impl->name)](const std::string& method) {
        return service == "router" && RouterCallRole(method) == Role::kAdmin;
      });
  const int frame = static_cast<int>(options.max_frame_bytes);
  impl->config = std::make_shared<at::TConfiguration>(frame, frame);
  int pipe_fds[2];
  if (pipe2(pipe_fds, O_NONBLOCK | O_CLOEXEC) != 0) {
    return Status::IOError(std::string("cannot make a pipe: ") +
                           std::strerror(errno));
  }
  impl->wake_read = pipe_fds[0];
  impl->wake_write = pipe_fds[1];
  if (!SetNonBlocking(listen_fd)) {
    return Status::IOError(std::string("cannot set the listening socket "
                                       "non-blocking: ") +
                           std::strerror(errno));
  }
  impl->StartWorkers();
  return std::unique_ptr<FrameLoop>(new FrameLoop(std::move(impl)));
}

void FrameLoop::Run() {
  Impl& impl = *impl_;
  Clock::time_point next_deadline = Clock::time_point::max();
  while (!impl.stopping.load()) {
    impl.Round(next_deadline);
    impl.CollectFinished();
    impl.CollectHandshakeSteps();  // before the deadlines: see Deadline()
    next_deadline = impl.ExpireDeadlines();
    impl.GrantWaiting();  // after the frames freed and connections closed
    impl.StartCalls();    // after the replies sent and connections closed
    impl.metrics->SetLoad(impl.connections.size(), impl.call_waiters.size());
  }
  impl.Shutdown();
}

RequestBufferStats FrameLoop::request_buffer_stats() const {
  RequestBufferStats stats;
  stats.held_bytes = impl_->held_bytes.load();
  stats.peak_held_bytes = impl_->peak_held_bytes.load();
  stats.reserved_bytes = impl_->reserved_bytes.load();
  stats.pool_waits = impl_->pool_waits.load();
  return stats;
}

ReplyBufferStats FrameLoop::reply_buffer_stats() const {
  ReplyBufferStats stats;
  stats.held_bytes = impl_->held_reply_bytes.load();
  stats.peak_held_bytes = impl_->peak_reply_bytes.load();
  stats.largest_reply_bytes = impl_->largest_reply_bytes.load();
  stats.waits = impl_->reply_waits.load();
  return stats;
}

void FrameLoop::RequestStop() {
  impl_->stopping.store(true);
  impl_->Wake();
}

}  // namespace bloomroute::thrift_internal
