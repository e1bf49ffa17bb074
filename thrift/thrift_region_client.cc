#include "thrift/thrift_region_client.h"

#include <poll.h>
#include <thrift/TConfiguration.h>
#include <thrift/protocol/TBinaryProtocol.h>
#include <thrift/transport/TBufferTransports.h>
#include <thrift/transport/TSocket.h>
#include <thrift/transport/TTransportException.h>

#include <exception>
#include <mutex>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "thrift/gen-cpp/RegionService.h"
#include "thrift/region_types_conversion.h"
#include "thrift/status_conversion.h"
#include "thrift/thrift_server.h"

namespace bloomroute {
namespace {

namespace at = apache::thrift;
using Service = rpc::RegionServiceClient;

// Thrown by BoundedFramedTransport before a request frame is written.
class RequestTooLarge : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// The framed transport, refusing a request frame over the limit before any
// byte is sent: the server would drop the connection, which looks like
// Unavailable and would be retried in vain.
class BoundedFramedTransport : public at::transport::TFramedTransport {
 public:
  BoundedFramedTransport(std::shared_ptr<at::transport::TTransport> transport,
                         std::shared_ptr<at::TConfiguration> config)
      : TFramedTransport(std::move(transport), config),
        max_frame_bytes_(static_cast<uint32_t>(config->getMaxFrameSize())) {}

  void flush() override {
    const uint32_t frame = writeEnd() - sizeof(uint32_t);  // less the header
    if (frame > max_frame_bytes_) {
      throw RequestTooLarge("the request is " + std::to_string(frame) +
                            " bytes, over the frame limit of " +
                            std::to_string(max_frame_bytes_));
    }
    TFramedTransport::flush();
  }

 private:
  const uint32_t max_frame_bytes_;
};

// One open connection to the server, used by one call at a time.
class Connection {
 public:
  // Connects; throws TTransportException when the server cannot be reached.
  Connection(const std::string& host, int port,
             const ThriftClientOptions& options,
             const std::shared_ptr<at::TConfiguration>& config)
      : socket_(std::make_shared<at::transport::TSocket>(host, port, config)),
        transport_(std::make_shared<BoundedFramedTransport>(socket_, config)),
        service_(std::make_shared<at::protocol::TBinaryProtocol>(
            transport_, /*string_limit=*/0, /*container_limit=*/0,
            /*strict_read=*/true, /*strict_write=*/true)) {
    socket_->setConnTimeout(options.connect_timeout_ms);
    socket_->setRecvTimeout(options.call_timeout_ms);
    socket_->setSendTimeout(options.call_timeout_ms);
    transport_->open();
  }
  // Closes the socket itself: closing the framed transport would first flush
  // whatever a failed call left in its write buffer.
  ~Connection() { socket_->close(); }
  Connection(const Connection&) = delete;
  Connection& operator=(const Connection&) = delete;

  Service& service() { return service_; }

  // True while nothing has arrived since the last reply. A connection the
  // server closed (its idle timeout, a restart) reads as EOF, so it polls
  // readable; so would stray bytes. Either way it must not carry a call.
  bool StillIdle() const {
    pollfd fd{socket_->getSocketFD(), POLLIN, 0};
    return poll(&fd, 1, /*timeout=*/0) == 0;
  }

 private:
  const std::shared_ptr<at::transport::TSocket> socket_;
  const std::shared_ptr<BoundedFramedTransport> transport_;
  Service service_;
};

// What a failed call returns, and whether its connection is still clean.
struct CallFailure {
  Status status;
  bool connection_reusable = false;
};

// The server's Status carried by a declared exception (TIllegalArgument or
// TIOError); `fallback` when its message names no code.
template <typename ServerError>
Status ServerStatus(const ServerError& e, Status::Code fallback) {
  return StatusFromServerMessage(
      e.__isset.message ? e.message : std::string("no message: ") + e.what(),
      fallback);
}

// The one place where an exception from a call becomes a Status. Call only
// from a catch block; `where` ("region server HOST:PORT: method: ") prefixes
// the failures the client itself observed.
CallFailure FailureOfCurrentException(const std::string& where) {
  try {
    throw;
  } catch (const rpc::TIllegalArgument& e) {
    // A declared exception is a complete reply: the connection is clean.
    return {ServerStatus(e, Status::Code::kInvalidArgument), true};
  } catch (const rpc::TIOError& e) {
    return {ServerStatus(e, Status::Code::kIOError), true};
  } catch (const RequestTooLarge& e) {
    return {Status::InvalidArgument(where + e.what()), false};
  } catch (const at::transport::TTransportException& e) {
    return {Status::Unavailable(where + e.what()), false};
  } catch (const std::exception& e) {
    // TProtocolException (a reply that does not decode),
    // TApplicationException, std::bad_alloc, ...
    return {Status::IOError(where + e.what()), false};
  } catch (...) {
    return {Status::IOError(where + "unknown exception"), false};
  }
}

// A request conversion failure: the caller's values do not fit the wire.
Status Unsendable(const Status& converted) {
  return converted.ok() ? converted
                        : Status::InvalidArgument(converted.message());
}

class ThriftRegionClient final : public router::RegionClient {
 public:
  ThriftRegionClient(std::string address, std::string host, int port,
                     const ThriftClientOptions& options)
      : address_(std::move(address)),
        host_(std::move(host)),
        port_(port),
        options_(options),
        config_(std::make_shared<at::TConfiguration>(
            static_cast<int>(options.max_frame_bytes),
            static_cast<int>(options.max_frame_bytes))) {}
  ThriftRegionClient(const ThriftRegionClient&) = delete;
  ThriftRegionClient& operator=(const ThriftRegionClient&) = delete;

  StatusOr<WriteResult> Apply(const std::vector<Mutation>& batch) override {
    std::vector<rpc::TMutation> request;
    BLOOMROUTE_RETURN_IF_ERROR(Unsendable(ToThrift(batch, &request)));
    return Fetch<WriteResult, rpc::TWriteResult>(
        "mutateRows",
        [&](Service& s, rpc::TWriteResult& r) { s.mutateRows(r, request); });
  }

  StatusOr<std::vector<std::optional<Row>>> Get(
      const std::vector<GetRequest>& requests) override {
    std::vector<rpc::TGet> request;
    BLOOMROUTE_RETURN_IF_ERROR(Unsendable(ToThrift(requests, &request)));
    return Fetch<std::vector<std::optional<Row>>, std::vector<rpc::TResult>>(
        "getMultiple", [&](Service& s, std::vector<rpc::TResult>& r) {
          s.getMultiple(r, request);
        });
  }

  StatusOr<ScanResult> Scan(const ScanRequest& scan) override {
    rpc::TScan request;
    BLOOMROUTE_RETURN_IF_ERROR(Unsendable(ToThrift(scan, &request)));
    return Fetch<ScanResult, rpc::TScanResult>(
        "scan", [&](Service& s, rpc::TScanResult& r) { s.scan(r, request); });
  }

  StatusOr<IndexQueryResult> Lookup(const IndexQuery& query) override {
    rpc::TIndexQuery request;
    BLOOMROUTE_RETURN_IF_ERROR(Unsendable(ToThrift(query, &request)));
    return Fetch<IndexQueryResult, rpc::TIndexQueryResult>(
        "lookup",
        [&](Service& s, rpc::TIndexQueryResult& r) { s.lookup(r, request); });
  }

  StatusOr<FilterSnapshot> Snapshot() override {
    return Fetch<FilterSnapshot, rpc::TFilterSnapshot>(
        "getFilterSnapshot",
        [](Service& s, rpc::TFilterSnapshot& r) { s.getFilterSnapshot(r); });
  }

  StatusOr<FilterOpsSince> OpsSince(uint64_t epoch, uint64_t seq) override {
    int64_t wire_epoch = 0;
    int64_t wire_seq = 0;
    BLOOMROUTE_RETURN_IF_ERROR(
        Unsendable(UnsignedToThrift(epoch, "epoch", &wire_epoch)));
    BLOOMROUTE_RETURN_IF_ERROR(
        Unsendable(UnsignedToThrift(seq, "seq", &wire_seq)));
    return Fetch<FilterOpsSince, rpc::TFilterOpsSince>(
        "getFilterOpsSince", [&](Service& s, rpc::TFilterOpsSince& r) {
          s.getFilterOpsSince(r, wire_epoch, wire_seq);
        });
  }

  StatusOr<FilterStatus> GetFilterStatus() override {
    return Fetch<FilterStatus, rpc::TFilterStatus>(
        "getFilterStatus",
        [](Service& s, rpc::TFilterStatus& r) { s.getFilterStatus(r); });
  }

  Status OpenRegion(const RegionDescriptor& region) override {
    rpc::TRegionDescriptor request;
    BLOOMROUTE_RETURN_IF_ERROR(Unsendable(ToThrift(region, &request)));
    return Call("openRegion", [&](Service& s) { s.openRegion(request); });
  }

  Status CloseRegion(uint64_t region_id) override {
    int64_t id = 0;
    BLOOMROUTE_RETURN_IF_ERROR(
        Unsendable(UnsignedToThrift(region_id, "region_id", &id)));
    return Call("closeRegion", [&](Service& s) { s.closeRegion(id); });
  }

  Status DropRegion(uint64_t region_id) override {
    int64_t id = 0;
    BLOOMROUTE_RETURN_IF_ERROR(
        Unsendable(UnsignedToThrift(region_id, "region_id", &id)));
    return Call("dropRegion", [&](Service& s) { s.dropRegion(id); });
  }

  StatusOr<IndexReport> VerifyIndex(std::optional<uint64_t> table_id) override {
    int64_t id = 0;
    if (table_id.has_value()) {
      if (*table_id == 0) {
        return Status::InvalidArgument(
            "verifyIndex: table id 0 is not a table");
      }
      BLOOMROUTE_RETURN_IF_ERROR(
          Unsendable(UnsignedToThrift(*table_id, "table_id", &id)));
    }
    return Fetch<IndexReport, rpc::TIndexReport>(
        "verifyIndex",
        [&](Service& s, rpc::TIndexReport& r) { s.verifyIndex(r, id); });
  }

  StatusOr<std::vector<RegionDescriptor>> ListRegions() override {
    return Fetch<std::vector<RegionDescriptor>,
                 std::vector<rpc::TRegionDescriptor>>(
        "listRegions", [](Service& s, std::vector<rpc::TRegionDescriptor>& r) {
          s.listRegions(r);
        });
  }

 private:
  std::string Where(const char* method) const {
    return "region server " + address_ + ": " + method + ": ";
  }

  // Runs `call(service)` on a pooled or new connection; see the header for
  // which failures give which Status.
  template <typename CallFn>
  Status Call(const char* method, CallFn&& call) {
    std::unique_ptr<Connection> connection;
    try {
      connection = TakeIdle();
      if (connection == nullptr) {
        connection =
            std::make_unique<Connection>(host_, port_, options_, config_);
      }
      call(connection->service());
    } catch (...) {
      CallFailure failure = FailureOfCurrentException(Where(method));
      if (failure.connection_reusable) GiveBack(std::move(connection));
      return failure.status;
    }
    GiveBack(std::move(connection));
    return Status::OK();
  }

  // Call() for a method with a result: `call(service, reply)` fills the
  // Thrift reply, which is converted to Result.
  template <typename Result, typename Reply, typename CallFn>
  StatusOr<Result> Fetch(const char* method, CallFn&& call) {
    Reply reply;
    BLOOMROUTE_RETURN_IF_ERROR(
        Call(method, [&](Service& service) { call(service, reply); }));
    Result result;
    const Status converted = FromThrift(reply, &result);
    if (!converted.ok()) {
      return Status::Corruption(Where(method) + converted.message());
    }
    return result;
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
    if (idle_.size() < options_.max_idle_connections) {
      idle_.push_back(std::move(connection));
    }
  }

  const std::string address_;  // as given to Connect, for messages
  const std::string host_;
  const int port_;
  const ThriftClientOptions options_;
  const std::shared_ptr<at::TConfiguration> config_;
  std::mutex mutex_;
  std::vector<std::unique_ptr<Connection>> idle_;  // guarded by mutex_
};

class ThriftRegionClientFactory final : public router::RegionClientFactory {
 public:
  explicit ThriftRegionClientFactory(const ThriftClientOptions& options)
      : options_(options) {}

  StatusOr<std::unique_ptr<router::RegionClient>> Connect(
      router::ServerId /*server*/, const std::string& address) override {
    BLOOMROUTE_RETURN_IF_ERROR(options_.Validate());
    std::string host;
    int port = 0;
    const Status parsed = ParseListenAddress(address, &host, &port);
    if (!parsed.ok()) return parsed.WithContext("region server address");
    if (port == 0) {
      return Status::InvalidArgument("region server address '" + address +
                                     "' has port 0");
    }
    return std::unique_ptr<router::RegionClient>(
        std::make_unique<ThriftRegionClient>(address, std::move(host), port,
                                             options_));
  }

 private:
  const ThriftClientOptions options_;
};

}  // namespace

Status ThriftClientOptions::Validate() const {
  if (connect_timeout_ms < 1) {
    return Status::InvalidArgument("connect timeout must be positive");
  }
  if (call_timeout_ms < 1) {
    return Status::InvalidArgument("call timeout must be positive");
  }
  if (max_frame_bytes < ServerOptions::kMinFrameBytes ||
      max_frame_bytes > ServerOptions::kMaxFrameBytes) {
    return Status::InvalidArgument(
        "max frame bytes must be in [" +
        std::to_string(ServerOptions::kMinFrameBytes) + ", " +
        std::to_string(ServerOptions::kMaxFrameBytes) + "]");
  }
  if (max_idle_connections > kMaxIdleConnections) {
    return Status::InvalidArgument("max idle connections must be at most " +
                                   std::to_string(kMaxIdleConnections));
  }
  return Status::OK();
}

std::shared_ptr<router::RegionClientFactory> NewThriftRegionClientFactory(
    const ThriftClientOptions& options) {
  return std::make_shared<ThriftRegionClientFactory>(options);
}

}  // namespace bloomroute
