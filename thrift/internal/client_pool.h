// The client side of a Thrift service, shared by ThriftRegionClient
// (thrift_region_client.h) and RouterClient (router_client.h): connections
// (framed transport, binary protocol, a bounded request frame), a pool of
// idle ones, and the one place where a call's exception becomes a Status.
//
// A call takes the most recently used idle connection that is still open, or
// opens one, and gives it back when the call completed with a result or a
// declared server error (TIllegalArgument, TIOError); after any other failure
// the connection may hold half a message, so it is closed.
//
// Replies are read with the decoded-size budget of
// ThriftClientOptions::max_decoded_bytes (thrift/internal/decode_budget.h):
// a reply is as untrusted as a request. Without it a reply of a few bytes
// whose list claims 2^28 structs makes the generated code resize a vector to
// 2^28 entries (tens of GB) before reading the first; with it the claim is
// refused as it is read (IOError naming the budget), and nothing past the
// budget is allocated. The default, 8 x max_frame_bytes, admits every reply
// a server sends within the frame limit unless it is packed with cells of a
// few bytes each (each costs a 256-byte charge for its struct). See
// thrift_region_client.h for which failure gives which Status.
//
// Thread-safety: ClientPool::Call may be called concurrently.
#ifndef BLOOMROUTE_THRIFT_INTERNAL_CLIENT_POOL_H_
#define BLOOMROUTE_THRIFT_INTERNAL_CLIENT_POOL_H_

#include <errno.h>
#include <poll.h>
#include <thrift/TConfiguration.h>
#include <thrift/protocol/TBinaryProtocol.h>
#include <thrift/transport/TBufferTransports.h>
#include <thrift/transport/TSocket.h>
#include <thrift/transport/TVirtualTransport.h>

#include <algorithm>
#include <chrono>
#include <functional>
#include <memory>
#include <mutex>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "common/status.h"
#include "common/statusor.h"
#include "thrift/internal/decode_budget.h"
#include "thrift/internal/tls.h"
#include "thrift/thrift_region_client.h"

namespace bloomroute::thrift_internal {

// Thrown by BoundedFramedTransport before a request frame is written.
class RequestTooLarge : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// The framed transport, refusing a request frame over the limit before any
// byte is sent: the server would drop the connection, which looks like
// Unavailable and would be retried in vain.
class BoundedFramedTransport
    : public apache::thrift::transport::TFramedTransport {
 public:
  BoundedFramedTransport(
      std::shared_ptr<apache::thrift::transport::TTransport> transport,
      std::shared_ptr<apache::thrift::TConfiguration> config);
  void flush() override;

 private:
  const uint32_t max_frame_bytes_;
};

// What a failed call returns, and whether its connection is still clean.
struct CallFailure {
  Status status;
  bool connection_reusable = false;
};

// Call only from a catch block. `where` ("region server HOST:PORT: method: ")
// prefixes the failures the client itself observed; a declared server error
// carries the server's own Status.
CallFailure FailureOfCurrentException(const std::string& where);

// What the failure of a new connection, before any answer, says about the
// server, when the client can tell; a caller that knows its user's options
// (RouterClient) turns it into advice.
enum class ConnectProblem {
  kNone,               // nothing to say: an ordinary failure
  kCannotConnect,      // no connection was made (refused, timed out, ...)
  kSpeaksTls,          // a plaintext client's first reply is a TLS record
  kClosedBeforeReply,  // a plaintext client's first call: closed, no byte
  kSpeaksPlaintext,    // a TLS client's handshake read bytes that are not TLS
  kClosedInHandshake,  // a TLS client's handshake: closed, no answer
};
struct NewConnectionFailure {
  ConnectProblem problem = ConnectProblem::kNone;
  // Why, in the library's words: "connection refused" (so written), or the
  // exception's message.
  std::string reason;
};

// Call only from a catch block, for a call on a new connection: `opened`
// whether the connection was made; `tls` whether it is TLS; `first_bytes`
// the first bytes read from it (up to 5, plaintext only).
NewConnectionFailure NewConnectionFailureOfCurrentException(
    bool opened, bool tls, const std::string& first_bytes);

// A transport over another that keeps the first bytes read through it: what
// a plaintext client's first reply began with tells a TLS server (a TLS
// record: content type 0x15 or 0x16, then version major 0x03) from a server
// that closed the connection.
class FirstBytesTransport
    : public apache::thrift::transport::TVirtualTransport<FirstBytesTransport> {
 public:
  static constexpr size_t kKept = 5;  // a TLS record header
  explicit FirstBytesTransport(
      std::shared_ptr<apache::thrift::transport::TTransport> inner)
      : TVirtualTransport(inner->getConfiguration()),
        inner_(std::move(inner)) {}

  bool isOpen() const override { return inner_->isOpen(); }
  bool peek() override { return inner_->peek(); }
  void open() override { inner_->open(); }
  void close() override { inner_->close(); }
  void flush() override { inner_->flush(); }
  uint32_t read(uint8_t* buf, uint32_t len) {
    const uint32_t got = inner_->read(buf, len);
    if (first_.size() < kKept) {
      first_.append(reinterpret_cast<const char*>(buf),
                    std::min<size_t>(got, kKept - first_.size()));
    }
    return got;
  }
  void write(const uint8_t* buf, uint32_t len) { inner_->write(buf, len); }

  const std::string& first_bytes() const { return first_; }

 private:
  const std::shared_ptr<apache::thrift::transport::TTransport> inner_;
  std::string first_;
};

// Connections to one server for the generated client class `Service`.
// With options.tls enabled, connections are TLS (tls.h: the server's
// certificate verified against the CA and the host dialled; the client's
// presented when given). `on_open(service)` runs on every new connection
// before its first call (the router client's authenticate with its token);
// when it throws, the call fails as the call itself would have.
// `explain(problem, failure)`, when given, replaces the Status of a call on a
// new connection that failed for a ConnectProblem other than kNone.
template <typename Service>
class ClientPool {
 public:
  using OpenFn = std::function<void(Service&)>;
  using ExplainFn =
      std::function<Status(const NewConnectionFailure&, const Status&)>;

  ClientPool(std::string host, int port, const ThriftClientOptions& options,
             OpenFn on_open = nullptr, ExplainFn explain = nullptr)
      : host_(std::move(host)),
        port_(port),
        options_(options),
        config_(std::make_shared<apache::thrift::TConfiguration>(
            static_cast<int>(options.max_frame_bytes),
            static_cast<int>(options.max_frame_bytes))),
        on_open_(std::move(on_open)),
        explain_(std::move(explain)) {
    if (options.tls.enabled()) {
      tls_generation_ = ClientTlsGeneration();
      auto factory = NewClientSocketFactory(options.tls);
      if (factory.ok()) {
        tls_ = std::move(factory).value();
      } else {
        tls_error_ = factory.status();
      }
    }
  }
  ClientPool(const ClientPool&) = delete;
  ClientPool& operator=(const ClientPool&) = delete;

  // Runs `call(service)` on a pooled or new connection. Each wait to send
  // or receive waits at most `timeout_ms`, or options.call_timeout_ms when
  // it is 0.
  template <typename CallFn>
  Status Call(const std::string& where, CallFn&& call, int timeout_ms = 0) {
    StatusOr<InFlight> flight =
        Send(where, std::forward<CallFn>(call), timeout_ms);
    if (!flight.ok()) return flight.status();
    return Receive(std::move(flight).value(), [](Service&) {});
  }

 private:
  class Connection;

 public:
  // A connection whose call was sent and whose reply is not read yet.
  // Destroyed without Receive, the connection is closed (it holds a reply).
  struct InFlight {
    std::unique_ptr<Connection> connection;
    std::string where;
    bool fresh = false;        // a new connection, which may not have been made
    bool tls = false;          // over TLS
    bool timeout_set = false;  // a call timeout other than the default
    int timeout_ms = 0;        // the call's timeout
    std::chrono::steady_clock::time_point sent_at;  // when Send returned
  };

  // Call() in two halves, so that one thread can have calls in flight on
  // several servers: Send runs `send(service)` (a generated send_X) on a
  // pooled or new connection, and Receive runs `receive(service)` (its
  // recv_X) on it, then gives the connection back. A failure of either is
  // the Status Call would return.
  template <typename SendFn>
  StatusOr<InFlight> Send(const std::string& where, SendFn&& send,
                          int timeout_ms = 0) {
    std::shared_ptr<apache::thrift::transport::TSSLSocketFactory> tls;
    BLOOMROUTE_RETURN_IF_ERROR(CurrentTls(&tls));
    InFlight flight;
    flight.where = where;
    flight.tls = tls != nullptr;
    // A connection whose on_open failed (a refused token) is not pooled:
    // its later calls would go out unauthenticated.
    bool opening = false;
    try {
      flight.connection = TakeIdle();
      if (flight.connection == nullptr) {
        flight.fresh = true;
        flight.connection = std::make_unique<Connection>(host_, port_, options_,
                                                         config_, tls.get());
        opening = true;
        if (on_open_) on_open_(flight.connection->service());
        opening = false;
      }
      if (timeout_ms != 0) {
        flight.connection->SetCallTimeout(timeout_ms);
        flight.timeout_set = true;
      }
      send(flight.connection->service());
    } catch (...) {
      return FailedCall(&flight, /*may_pool=*/!opening);
    }
    flight.timeout_ms = timeout_ms != 0 ? timeout_ms : options_.call_timeout_ms;
    flight.sent_at = std::chrono::steady_clock::now();
    return flight;
  }
  template <typename ReceiveFn>
  Status Receive(InFlight flight, ReceiveFn&& receive) {
    try {
      receive(flight.connection->service());
    } catch (...) {
      return FailedCall(&flight, /*may_pool=*/true);
    }
    GiveBack(&flight);
    return Status::OK();
  }

  // Closes the idle connections and pools none from now on: for a server
  // the caller no longer uses (a member re-pointed to another address).
  // Calls under way finish, and their connections close after them.
  void Retire() {
    // Declared before the lock: closed after it is released.
    std::vector<std::unique_ptr<Connection>> closing;
    std::lock_guard<std::mutex> lock(mutex_);
    retired_ = true;
    closing.swap(idle_);
  }

  // Call() for a method with a reply: `call(service, reply)` fills it and
  // `convert(reply, &result)` turns it into Result; a reply that does not
  // convert is Corruption, prefixed with `where`.
  template <typename Result, typename Reply, typename CallFn,
            typename ConvertFn>
  StatusOr<Result> Fetch(const std::string& where, CallFn&& call,
                         ConvertFn&& convert, int timeout_ms = 0) {
    Reply reply;
    BLOOMROUTE_RETURN_IF_ERROR(Call(
        where, [&](Service& service) { call(service, reply); }, timeout_ms));
    return Converted<Result>(where, reply, convert);
  }
  // Receive() for a method with a reply: `receive(service, reply)` (a
  // generated recv_X) fills it, then it converts as Fetch. The first wait
  // for the reply ends the call timeout after Send returned, not after this
  // is called: a thread that reads several servers' replies in turn waits
  // for silent ones together, as threads of their own would (each wait after
  // the first has the whole call timeout, as a Call's has).
  template <typename Result, typename Reply, typename ReceiveFn,
            typename ConvertFn>
  StatusOr<Result> ReceiveReply(InFlight flight, ReceiveFn&& receive,
                                ConvertFn&& convert) {
    const auto waited = std::chrono::duration_cast<std::chrono::milliseconds>(
                            std::chrono::steady_clock::now() - flight.sent_at)
                            .count();
    // Only the first wait is shortened (a poll), so that a large reply read
    // late is not cut by a socket timeout near its end. Not readable in
    // time: the connection, which may still get the reply, is closed.
    if (waited > 0 && !flight.connection->WaitReadable(static_cast<int>(
                          std::max<int64_t>(0, flight.timeout_ms - waited)))) {
      return Status::Unavailable(flight.where + "timed out: no reply within " +
                                 std::to_string(flight.timeout_ms) +
                                 " ms of the call");
    }
    const std::string where = flight.where;
    Reply reply;
    BLOOMROUTE_RETURN_IF_ERROR(Receive(
        std::move(flight), [&](Service& service) { receive(service, reply); }));
    return Converted<Result>(where, reply, convert);
  }

 private:
  // `reply` converted; Corruption prefixed with `where` when it does not.
  template <typename Result, typename Reply, typename ConvertFn>
  // `convert` may take the reply by non-const reference and move from it:
  // it is not used again.
  static StatusOr<Result> Converted(const std::string& where, Reply& reply,
                                    ConvertFn& convert) {
    Result result;
    const Status converted = convert(reply, &result);
    if (!converted.ok()) return Status::Corruption(where + converted.message());
    return result;
  }

  // Call only from a catch block: the Status of the call in `flight`,
  // whose connection is kept when the failure left it clean and `may_pool`.
  Status FailedCall(InFlight* flight, bool may_pool) {
    CallFailure failure = FailureOfCurrentException(flight->where);
    if (flight->fresh && explain_ && !failure.connection_reusable) {
      const NewConnectionFailure problem =
          NewConnectionFailureOfCurrentException(
              flight->connection != nullptr, flight->tls,
              flight->connection != nullptr ? flight->connection->first_bytes()
                                            : "");
      if (problem.problem != ConnectProblem::kNone) {
        return explain_(problem, failure.status);
      }
    }
    if (failure.connection_reusable && may_pool) GiveBack(flight);
    return failure.status;
  }

  // Keeps the connection of a call that completed cleanly, back to the
  // default call timeout.
  void GiveBack(InFlight* flight) {
    if (flight->connection == nullptr) return;
    if (flight->timeout_set) {
      flight->connection->SetCallTimeout(options_.call_timeout_ms);
    }
    GiveBack(std::move(flight->connection));
  }

  // One open connection, used by one call at a time.
  class Connection {
   public:
    // Connects; throws TTransportException when the server cannot be reached.
    // Over TLS when `tls` is not null (the handshake happens on the first
    // read or write).
    Connection(const std::string& host, int port,
               const ThriftClientOptions& options,
               const std::shared_ptr<apache::thrift::TConfiguration>& config,
               apache::thrift::transport::TSSLSocketFactory* tls)
        : socket_(tls != nullptr
                      ? tls->createSocket(host, port)
                      : std::make_shared<apache::thrift::transport::TSocket>(
                            host, port, config)),
          recorder_(std::make_shared<FirstBytesTransport>(socket_)),
          transport_(
              std::make_shared<BoundedFramedTransport>(recorder_, config)),
          service_(std::make_shared<BudgetedBinaryProtocol>(
              transport_, options.DecodedBudget(), /*container_limit=*/0,
              "--max-decoded-bytes")) {
      // Thrift's TLS factory makes sockets with the default configuration
      // (100 MB messages); ours bounds them as the plain sockets are.
      socket_->setConfiguration(config);
      socket_->setConnTimeout(options.connect_timeout_ms);
      SetCallTimeout(options.call_timeout_ms);
      transport_->open();
    }
    // How long each wait to send or receive may take from now on.
    void SetCallTimeout(int timeout_ms) {
      socket_->setRecvTimeout(timeout_ms);
      socket_->setSendTimeout(timeout_ms);
    }
    // Closes the socket itself: closing the framed transport would first
    // flush whatever a failed call left in its write buffer.
    ~Connection() { socket_->close(); }
    Connection(const Connection&) = delete;
    Connection& operator=(const Connection&) = delete;

    Service& service() { return service_; }
    const std::string& first_bytes() const { return recorder_->first_bytes(); }

    // True while nothing has arrived since the last reply. A connection the
    // server closed (its idle timeout, a restart) reads as EOF, so it polls
    // readable; so would stray bytes. Either way it must not carry a call.
    bool StillIdle() const { return !WaitReadable(0); }
    // Whether anything (bytes, EOF, an error) arrives within `timeout_ms`.
    bool WaitReadable(int timeout_ms) const {
      pollfd fd{socket_->getSocketFD(), POLLIN, 0};
      int ready;
      do {
        ready = poll(&fd, 1, timeout_ms);
      } while (ready < 0 && errno == EINTR);
      return ready != 0;
    }

   private:
    const std::shared_ptr<apache::thrift::transport::TSocket> socket_;
    const std::shared_ptr<FirstBytesTransport> recorder_;
    const std::shared_ptr<BoundedFramedTransport> transport_;
    Service service_;
  };

  // The socket factory new connections use (null without TLS), or why there
  // is none. After ReloadClientTls() (bloomroute router on SIGHUP) a new one
  // is made from the TLS files, so that a certificate revoked since fails
  // its next handshake, and the idle connections, verified against the old
  // list, are closed; files that do not load keep the factory there was.
  Status CurrentTls(
      std::shared_ptr<apache::thrift::transport::TSSLSocketFactory>* out) {
    if (!options_.tls.enabled()) return Status::OK();
    std::vector<std::unique_ptr<Connection>> closing;  // after the lock
    std::lock_guard<std::mutex> lock(mutex_);
    const uint64_t generation = ClientTlsGeneration();
    if (generation != tls_generation_) {
      tls_generation_ = generation;
      auto factory = NewClientSocketFactory(options_.tls);
      if (factory.ok()) {
        tls_ = std::move(factory).value();
        tls_error_ = Status::OK();
        closing.swap(idle_);
      }
    }
    *out = tls_;
    return tls_error_;
  }

  // The most recently used idle connection that is still open, or nullptr.
  std::unique_ptr<Connection> TakeIdle() {
    // Declared before the lock, so that stale connections are closed after
    // it is released.
    std::vector<std::unique_ptr<Connection>> stale;
    std::lock_guard<std::mutex> lock(mutex_);
    while (!idle_.empty()) {
      std::unique_ptr<Connection> connection = std::move(idle_.back());
      idle_.pop_back();
      if (connection->StillIdle()) return connection;
      stale.push_back(std::move(connection));
    }
    return nullptr;
  }

  // Keeps a connection whose call completed cleanly, if the pool has room.
  void GiveBack(std::unique_ptr<Connection> connection) {
    if (connection == nullptr) return;
    std::lock_guard<std::mutex> lock(mutex_);
    if (!retired_ && idle_.size() < options_.max_idle_connections) {
      idle_.push_back(std::move(connection));
    }
  }

  const std::string host_;
  const int port_;
  const ThriftClientOptions options_;
  const std::shared_ptr<apache::thrift::TConfiguration> config_;
  const OpenFn on_open_;
  const ExplainFn explain_;
  // TLS, guarded by mutex_: the factory of its sockets, or why it could not
  // be made (every call then fails with it), and the ClientTlsGeneration()
  // it was made at.
  std::shared_ptr<apache::thrift::transport::TSSLSocketFactory> tls_;
  Status tls_error_;
  uint64_t tls_generation_ = 0;
  std::mutex mutex_;
  std::vector<std::unique_ptr<Connection>> idle_;  // guarded by mutex_
  bool retired_ = false;                           // guarded by mutex_
};

}  // namespace bloomroute::thrift_internal

#endif  // BLOOMROUTE_THRIFT_INTERNAL_CLIENT_POOL_H_
