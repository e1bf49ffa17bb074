#include "thrift/server/internal/frame_loop.h"

#include <fcntl.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <sys/socket.h>
#include <thrift/TConfiguration.h>
#include <thrift/protocol/TBinaryProtocol.h>
#include <thrift/transport/TSocket.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstring>
#include <exception>
#include <optional>
#include <utility>
#include <vector>

#include "common/sync_point.h"
#include "thrift/internal/decode_budget.h"
#include "thrift/internal/tls.h"
#include "thrift/server/access_control.h"
#include "thrift/server/call_throttle.h"
#include "thrift/server/internal/connection.h"
#include "thrift/server/internal/dispatch.h"
#include "thrift/server/internal/hand_off_pool.h"
#include "thrift/server/internal/request_pool.h"
#include "thrift/server/internal/server_metrics.h"
#include "thrift/server/internal/tls_handshakes.h"
#include "thrift/server/internal/wire_transport.h"

namespace bloomroute::thrift_internal {
namespace {

namespace at = apache::thrift;
using Clock = Connection::Clock;
using std::chrono::milliseconds;

// After accept() fails for want of descriptors, the listening socket rests
// this long instead of waking the loop at once again.
constexpr milliseconds kAcceptBackoff{100};

bool SetNonBlocking(int fd) {
  const int flags = fcntl(fd, F_GETFL, 0);
  return flags >= 0 && fcntl(fd, F_SETFL, flags | O_NONBLOCK) == 0;
}

// The metrics label of a server named `name` (ThriftServer::Serve's).
std::string ServiceLabel(const std::string& name) {
  if (name == "RouterServer") return "router";
  if (name == "RegionServer") return "region";
  if (name == "Hbase1Server") return "thrift1";
  return name;
}

// The poll() timeout until `next_deadline`: 0 when there is work already
// (TLS holds bytes read, calls finished), -1 for none.
int PollTimeoutMs(Clock::time_point next_deadline, bool work_waits) {
  if (work_waits) return 0;
  if (next_deadline == Clock::time_point::max()) return -1;
  const auto left =
      std::chrono::duration_cast<milliseconds>(next_deadline - Clock::now());
  return static_cast<int>(std::max<int64_t>(left.count() + 1, 0));
}

bool SameIdentity(const Identity& a, const Identity& b) {
  return a.role == b.role && a.user == b.user && a.token_hash == b.token_hash;
}

}  // namespace

struct FrameLoop::Impl {
  int listen_fd = -1;
  std::shared_ptr<at::TProcessorFactory> factory;
  std::shared_ptr<TlsServerContext> tls;       // null: plaintext
  std::unique_ptr<ServerMetrics> metrics;      // set by Create
  std::unique_ptr<CallDispatcher> dispatcher;  // set by Create
  ServerOptions options;
  std::string name;
  std::shared_ptr<at::TConfiguration> config;
  int wake_read = -1;
  int wake_write = -1;
  std::atomic<bool> stopping{false};

  // The I/O thread's alone.
  std::vector<ConnectionPtr> connections;
  Clock::time_point accept_paused_until;
  // Connections counted per principal (CountPrincipal).
  PrincipalConnections principals;

  // The request pool with the call workers (request_pool.h), and the TLS
  // handshakes (tls_handshakes.h; null without TLS): while a connection is
  // in one (kRunning, kHandshakeRunning) the I/O thread does not touch it.
  // While the handshake steps are full, no connection is accepted and no
  // step started (the handshaking connections are not polled); one
  // Accept() takes at most as many as there is room for (each wants its
  // first step in the next round).
  std::unique_ptr<RequestPool> pool;
  std::unique_ptr<TlsHandshakes> handshakes;
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

  void StartWorkers() {
    pool = std::make_unique<RequestPool>(
        options, [this](Connection& c) { return RunCall(c); },
        [this] { Wake(); });
    if (tls == nullptr) return;
    handshakes = std::make_unique<TlsHandshakes>(
        options.handshake_threads, options.max_handshakes,
        options.request_timeout_ms, [this] { Wake(); });
  }

  // On a worker: runs c's whole frame (dispatch.h), frees the request's
  // memory and counts the reply, which stays in c.reply (nullptr: the
  // connection closes), and sends it when it may (SendOnWorker). True when
  // the I/O thread must act on c at once.
  bool RunCall(Connection& c) {
    c.worker_reply = Connection::WorkerReply::kNone;
    std::optional<Identity> before;
    if (dispatcher->checks_access()) before = c.identity;
    std::shared_ptr<at::transport::TMemoryBuffer> reply = dispatcher->Run(c);
    pool->FreeFrame(c);  // the request's memory goes now
    c.reply = std::move(reply);
    if (c.reply == nullptr) return true;
    pool->HoldReply(c);
    BLOOMROUTE_SYNC_POINT("FrameLoop:CallRan");
    // A new identity is counted against its principal (CountPrincipal)
    // by the I/O thread before its reply goes.
    if (before.has_value() && !SameIdentity(*before, c.identity)) return true;
    return !SendOnWorker(c);
  }

  // On a worker, after c's call: sends its reply at once rather than
  // waking the I/O thread to send it. That wake-up was one of the three
  // context switches a call cost the server (I/O thread, worker, I/O
  // thread: BM_BareRpc measured 4.2 switches per call with the client's),
  // and it sat between the reply being ready and its first byte leaving.
  // True when c then needs nothing from the I/O thread before its next
  // request: the reply went out whole, nothing of another request was
  // read, and c stays open (its idle clock runs from now). The I/O thread
  // polls a running connection for its next request's bytes, which wake
  // it to take c back, and looks at least once per idle timeout
  // (ExpireDeadlines). Otherwise c.worker_reply says how far it got.
  bool SendOnWorker(Connection& c) {
    if (c.close_after_reply || dispatcher->MayCallNothing(c.identity) ||
        !c.FrameReply()) {
      return false;  // closes, keeps its first clock, or a oneway call
    }
    c.worker_reply = Connection::WorkerReply::kFramed;
    if (c.close_after_reply) return false;  // HTTP without keep-alive
    switch (c.WriteReply()) {
      case Connection::WriteResult::kBlocked:
        return false;
      case Connection::WriteResult::kEnded:
        c.worker_reply = Connection::WorkerReply::kEnded;
        return false;
      case Connection::WriteResult::kDone:
        break;
    }
    pool->ReleaseReply(c);
    c.idle_since = Clock::now();
    c.worker_reply = Connection::WorkerReply::kSent;
    return !c.HoldsUnreadBytes();
  }

  // True while max_handshakes steps are on the handshake threads: no
  // connection is accepted and no further step started until one is back.
  bool HandshakeWorkFull() const {
    return handshakes != nullptr && handshakes->Full();
  }

  // True while below the connection cap and, with TLS, the handshake cap.
  bool MayAccept() const {
    return connections.size() < options.max_connections && !HandshakeWorkFull();
  }

  // Accepts while below the connection cap and, with TLS, at most as many
  // as handshake steps are short of max_handshakes: each will want its
  // first step in the next round.
  void Accept() {
    const uint32_t room =
        handshakes != nullptr ? handshakes->Room() : options.max_connections;
    for (uint32_t left = room; left > 0 && MayAccept(); --left) {
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

  // Takes back the connections whose handshake step ran.
  void CollectHandshakeSteps() {
    if (handshakes == nullptr) return;  // no TLS
    for (const ConnectionPtr& c : handshakes->TakeDone()) {
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
    if (!dispatcher->checks_access() ||
        options.max_connections_per_principal == 0) {
      return;
    }
    principals.Count(c, options.max_connections_per_principal);
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
    if (handshakes != nullptr) handshakes->Uncount(c);
    if (c.drain_on_close) DrainArrived(c.fd);
    if (c.ssl != nullptr) {
      if (!c.tls_failed && !c.IsHandshaking()) {
        TlsShutdown(c.ssl.get());
      }
      // A refused handshake left its alert in the socket. Closed with the
      // client's unread bytes (the rest of its flight, its first request)
      // the kernel would send a reset, which can reach the client before
      // it reads the alert: it then sees a broken pipe, not the refusal.
      // What has arrived is read first (bounded), so that it gets a FIN.
      if (c.tls_failed && c.IsHandshaking()) DrainArrived(c.fd);
      c.ssl.reset();  // the descriptor stays the socket's to close
    }
    try {
      c.socket->close();
    } catch (...) {  // close() of a socket reports nothing we could act on
    }
    c.processor.reset();  // releases a per-connection handler now
    pool->ReleaseReply(c);
    pool->FreeFrame(c);
  }

  // The largest frame c may send: a caller that may call nothing yet sends
  // only small frames.
  uint32_t FrameLimit(const Connection& c) const {
    return dispatcher->MayCallNothing(c.identity)
               ? std::min(options.max_frame_bytes,
                          kMaxUnauthenticatedFrameBytes)
               : options.max_frame_bytes;
  }

  // Reads what has arrived (connection.h) in c's transport: reserves a
  // frame's size once it is known and queues a whole request for a worker
  // (request_pool.h).
  void ReadSome(const ConnectionPtr& p) {
    while (ReadStep(p)) {
    }
  }

  // One read of c's request; false when reading stops for now (blocked,
  // waiting, queued or closed).
  bool ReadStep(const ConnectionPtr& p) {
    Connection& c = *p;
    switch (c.transport) {
      case WireTransport::kFramed:
        if (c.header_bytes < sizeof(c.header)) {
          const Connection::ReadResult result = c.ReadHeader(FrameLimit(c));
          if (result == Connection::ReadResult::kWhole) return pool->Reserve(p);
          return GoOn(c, result);
        }
        return ReadBodyStep(p);
      case WireTransport::kHttp:
        if (!c.http_head_done) {
          const Connection::ReadResult result = c.ReadHttpHead(FrameLimit(c));
          if (result == Connection::ReadResult::kWhole) return pool->Reserve(p);
          if (result == Connection::ReadResult::kRefused) {
            AnswerHttpError(c);
            return false;
          }
          return GoOn(c, result);
        }
        return ReadBodyStep(p);
      case WireTransport::kBuffered:
        return ReadUnframedStep(p);
      default:
        return GoOn(c, c.ReadProbe(FrameLimit(c)));
    }
  }

  // After a read: true to read on; closes c when it ended or was refused.
  bool GoOn(Connection& c, Connection::ReadResult result) {
    switch (result) {
      case Connection::ReadResult::kMore:
      case Connection::ReadResult::kWhole:
        return true;
      case Connection::ReadResult::kBlocked:
        return false;
      case Connection::ReadResult::kEnded:
        Close(c);
        return false;
      case Connection::ReadResult::kRefused:
        RefuseFrame(c);
        return false;
    }
    return false;
  }

  // A frame's or an HTTP body's bytes; a whole one is queued.
  bool ReadBodyStep(const ConnectionPtr& p) {
    Connection& c = *p;
    pool->GrowFrame(c, c.frame.size() + c.BodyBytesWanted());
    const Connection::ReadResult result = c.ReadBody();
    if (result == Connection::ReadResult::kWhole) {
      pool->Enqueue(p);  // until it starts, c keeps its request deadline
      return false;
    }
    return GoOn(c, result);
  }

  // An unframed message's bytes: the reservation grows ahead of them
  // (doubling, at most the limit, so that the buffer is not copied at
  // every read); a whole message is queued.
  bool ReadUnframedStep(const ConnectionPtr& p) {
    Connection& c = *p;
    const uint32_t limit = FrameLimit(c);
    const size_t want = c.UnframedBytesWanted(limit);
    if (want == 0) return GoOn(c, Connection::ReadResult::kRefused);
    const uint64_t need = c.frame.size() + want;
    if (need > c.reserved) {
      c.frame_bytes = static_cast<uint32_t>(
          std::min<uint64_t>(limit, std::max(need, 2 * c.reserved)));
      if (!pool->Reserve(p)) return false;
    }
    pool->GrowFrame(c, need);
    const Connection::ReadResult result = c.ReadUnframed(want);
    if (result == Connection::ReadResult::kWhole) {
      pool->Enqueue(p);
      return false;
    }
    return GoOn(c, result);
  }

  // Answers c's HTTP request with its error status, then closes it.
  void AnswerHttpError(Connection& c) {
    metrics->Refused(c.http_error == 413 ? "frame_bytes" : "http_request");
    c.StartClosingReply(HttpErrorReply(c.http_error));
    pool->HoldReply(c);
    WriteSome(c);
  }

  // Closes c, whose request was refused: a frame header (or a transport's
  // first bytes) naming 0 bytes or more than its limit, a message known to
  // pass the limit, or bytes that are no message.
  void RefuseFrame(Connection& c) {
    metrics->Refused("frame_bytes");
    if (c.ssl == nullptr && c.transport == WireTransport::kRefused &&
        LooksLikeTlsRecord(c.header)) {
      // A TLS client at a plaintext port: told so, and its flight read
      // so that the close is a FIN, not a reset that could overtake it.
      AnswerTlsInTheClear(c.fd);
      DrainArrived(c.fd);
    }
    Close(c);
  }

  // Takes back the connections whose calls finished.
  void CollectFinished() {
    for (const ConnectionPtr& c : pool->TakeFinished()) {
      c->parked = false;
      // authenticate may have given it an identity: one past its
      // principal's bound closes after this reply.
      CountPrincipal(*c);
      if (c->over_principal_limit) c->close_after_reply = true;
      if (!TakeWorkerReply(*c)) continue;
      if (c->reply == nullptr) {
        Close(*c);
      } else if (c->SealReply()) {
        WriteSome(*c);
      } else if (c->close_after_reply) {  // a oneway call: no reply
        Close(*c);
      } else {
        StartReading(*c);
      }
    }
  }

  // Goes on from where c's worker left its reply (SendOnWorker); true
  // when the worker did nothing with it.
  bool TakeWorkerReply(Connection& c) {
    const Connection::WorkerReply sent = c.worker_reply;
    c.worker_reply = Connection::WorkerReply::kNone;
    switch (sent) {
      case Connection::WorkerReply::kNone:
        return true;
      case Connection::WorkerReply::kSent:  // released, idle clock running
        if (c.close_after_reply) {
          Close(c);
        } else {
          c.state = Connection::State::kReading;
        }
        return false;
      case Connection::WorkerReply::kFramed:
        c.state = Connection::State::kWriting;
        WriteSome(c);
        return false;
      case Connection::WorkerReply::kEnded:
        Close(c);
        return false;
    }
    return true;
  }

  void StartReading(Connection& c) {
    pool->ReleaseReply(c);
    c.state = Connection::State::kReading;
    // Who may call nothing keeps the clock of its accept (or of its last
    // authentication attempt): nothing it sends buys it more time.
    if (!dispatcher->MayCallNothing(c.identity)) c.idle_since = Clock::now();
  }

  // Sends what the socket takes; back to reading once the reply is out.
  void WriteSome(Connection& c) {
    switch (c.WriteReply()) {
      case Connection::WriteResult::kBlocked:
        return;
      case Connection::WriteResult::kEnded:
        Close(c);  // the client went away
        return;
      case Connection::WriteResult::kDone:
        if (c.close_after_reply) {
          Close(c);
        } else {
          StartReading(c);
        }
        return;
    }
  }

  // Closes connections past their deadline; returns the next deadline.
  Clock::time_point ExpireDeadlines() {
    const Clock::time_point now = Clock::now();
    Clock::time_point next = Clock::time_point::max();
    // A running connection's worker may give it back, idle, without a
    // wake-up (SendOnWorker): looked at again before its idle clock (or a
    // caller's shorter one) could run out.
    const Clock::time_point recheck =
        now + milliseconds(std::min(options.idle_timeout_ms,
                                    options.request_timeout_ms));
    for (const ConnectionPtr& c : connections) {
      if (c->closed) continue;
      if (c->state == Connection::State::kRunning) {
        next = std::min(next, recheck);
        continue;
      }
      const Clock::time_point deadline =
          c->Deadline(options, dispatcher->MayCallNothing(c->identity));
      if (deadline <= now) {
        metrics->Refused(c->DeadlineName());
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

  // Serves c, whose socket is ready.
  void Serve(const ConnectionPtr& c, short revents) {
    if (c->closed) return;
    if (c->state == Connection::State::kRunning) {
      c->parked = true;  // taken back once its worker is done with it
      return;
    }
    if (c->waiting_for_pool || c->waiting_for_call) {
      Close(*c);  // the client went away while it waited
    } else if (c->state == Connection::State::kHandshaking) {
      if (!HandshakeWorkFull()) {
        handshakes->Start(c);
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
    bool parked = false;
    for (const ConnectionPtr& c : connections) {
      if (c->state == Connection::State::kHandshakeRunning) {
        continue;  // a handshake thread holds it
      }
      if (c->state == Connection::State::kRunning) {
        // A worker holds it, and may give it back without waking this
        // thread (SendOnWorker): its next request's bytes (or its hang-up)
        // wake it instead, once; then the worker does.
        parked = parked || c->parked;
        if (!c->parked) {
          fds.push_back({c->fd, POLLIN, 0});
          polled.push_back(c);
        }
        continue;
      }
      if (c->HasBufferedBytes()) buffered.push_back(c);
      // A handshake waits, unpolled, while the handshake work is full.
      const bool held =
          c->state == Connection::State::kHandshaking && HandshakeWorkFull();
      fds.push_back({c->fd, held ? short{0} : c->PollEvents(), 0});
      polled.push_back(c);
    }
    // Calls that finished without a wake-up are taken before sleeping.
    const bool finished = pool->ArmWakeUps(parked);
    const int timeout_ms =
        PollTimeoutMs(next_deadline, finished || !buffered.empty());
    if (poll(fds.data(), fds.size(), timeout_ms) < 0) return;
    if (fds[0].revents != 0) DrainWakePipe();
    for (size_t i = first_connection; i < fds.size(); ++i) {
      if (fds[i].revents != 0) {
        Serve(polled[i - first_connection], fds[i].revents);
      }
    }
    for (const ConnectionPtr& c : buffered) {
      if (c->HasBufferedBytes()) ReadSome(c);
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
    if (pool != nullptr) pool->Stop();
    if (handshakes != nullptr) handshakes->Stop();
    for (const ConnectionPtr& c : connections) Close(*c);
    connections.clear();
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
  impl->listen_fd = listen_fd;
  impl->factory = std::move(processors);
  impl->tls = std::move(tls);
  impl->options = options;
  impl->name = std::move(name);
  impl->metrics = std::make_unique<ServerMetrics>(
      ServiceLabel(impl->name), options.slow_call_ms,
      [service = ServiceLabel(impl->name)](const std::string& method) {
        if (service == "thrift1") {
          return Hbase1CallRole(method) == Role::kAdmin;
        }
        return service == "router" && RouterCallRole(method) == Role::kAdmin;
      },
      &metrics::DefaultRegistry(), options.slow_calls);
  const int frame = static_cast<int>(options.max_frame_bytes);
  impl->config = std::make_shared<at::TConfiguration>(frame, frame);
  impl->dispatcher = std::make_unique<CallDispatcher>(
      impl->name, options, impl->config, std::move(access), std::move(throttle),
      impl->metrics.get());
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
    impl.CollectHandshakeSteps();  // before the deadlines: Connection::Deadline
    next_deadline = impl.ExpireDeadlines();
    impl.pool->GrantWaiting();  // after the frames freed and connections closed
    impl.pool->StartCalls();    // after the replies sent and connections closed
    impl.metrics->SetLoad(impl.connections.size(), impl.pool->queued_calls());
  }
  impl.Shutdown();
}

RequestBufferStats FrameLoop::request_buffer_stats() const {
  return impl_->pool->request_stats();
}

ReplyBufferStats FrameLoop::reply_buffer_stats() const {
  return impl_->pool->reply_stats();
}

void FrameLoop::RequestStop() {
  impl_->stopping.store(true);
  impl_->Wake();
}

}  // namespace bloomroute::thrift_internal
