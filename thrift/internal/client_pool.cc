#include "thrift/internal/client_pool.h"

#include <thrift/transport/TSSLSocket.h>
#include <thrift/transport/TTransportException.h>

#include <cctype>
#include <exception>
#include <initializer_list>
#include <string>

#include "thrift/gen-cpp/errors_types.h"
#include "thrift/server/thrift_server.h"
#include "thrift/status_conversion.h"

namespace bloomroute::thrift_internal {
namespace {

// The server's Status carried by a declared exception (TIllegalArgument or
// TIOError); `fallback` when its message names no code.
template <typename ServerError>
Status ServerStatus(const ServerError& e, Status::Code fallback) {
  return StatusFromServerMessage(
      e.__isset.message ? e.message : std::string("no message: ") + e.what(),
      fallback);
}

// Whether a TLS failure's message (OpenSSL's reason, or Thrift's access
// manager's) says that a side refused the other: a certificate that does not
// verify, expired, of an unknown CA, missing where required, not naming the
// host, or a server that does not speak TLS. Thrift throws TSSLException
// for lost connections too (an end of stream without close_notify, a reset,
// a broken pipe), and those must stay Unavailable, as in the clear, so that
// a router marks a dead region server and retries. Thrift gives no code to
// tell them apart, only OpenSSL's reason text.
bool IsTlsRefusal(std::string message) {
  for (char& c : message) c = static_cast<char>(std::tolower(c));
  for (const char* reason :
       {"certificate", "unknown ca", "authorize", "handshake failure",
        "wrong version number", "no shared cipher", "unsupported protocol",
        "protocol version", "access denied"}) {
    if (message.find(reason) != std::string::npos) return true;
  }
  return false;
}

std::string Lowercase(std::string text) {
  for (char& c : text) c = static_cast<char>(std::tolower(c));
  return text;
}

bool Holds(const std::string& text, std::initializer_list<const char*> parts) {
  for (const char* part : parts) {
    if (text.find(part) != std::string::npos) return true;
  }
  return false;
}

// A TLS record's header: content type alert (0x15) or handshake (0x16),
// then the major version 3 of every SSL 3 / TLS version.
bool IsTlsRecord(const std::string& bytes) {
  return bytes.size() >= 2 && (bytes[0] == '\x15' || bytes[0] == '\x16') &&
         bytes[1] == '\x03';
}

// The failure of a new TLS connection's first call. OpenSSL's reason for a
// reply that is not a TLS record: "wrong version number" (most bytes),
// "packet length too long", "unknown protocol" or "http request"; for a
// server that closed without a word: "unexpected eof" (or a reset).
NewConnectionFailure TlsFailure(const std::string& what) {
  const std::string text = Lowercase(what);
  if (Holds(text, {"wrong version number", "packet length too long",
                   "unknown protocol", "http request"})) {
    return {ConnectProblem::kSpeaksPlaintext, what};
  }
  if (text.find("ssl_connect") != std::string::npos &&
      Holds(text, {"unexpected eof", "connection reset", "no more data",
                   "eof was observed"})) {
    return {ConnectProblem::kClosedInHandshake, what};
  }
  return {};
}

// The failure of a new plaintext connection's first call, after the
// connection was made, given the first bytes that arrived.
NewConnectionFailure PlaintextFailure(const std::string& what,
                                      const std::string& first_bytes) {
  if (IsTlsRecord(first_bytes)) return {ConnectProblem::kSpeaksTls, what};
  const std::string text = Lowercase(what);
  if (first_bytes.empty() &&
      Holds(text, {"no more data", "connection reset", "econnreset"})) {
    return {ConnectProblem::kClosedBeforeReply, what};
  }
  return {};
}

}  // namespace

NewConnectionFailure NewConnectionFailureOfCurrentException(
    bool opened, bool tls, const std::string& first_bytes) {
  try {
    throw;
  } catch (const apache::thrift::transport::TSSLException& e) {
    if (!opened) return {ConnectProblem::kCannotConnect, e.what()};
    return tls ? TlsFailure(e.what()) : NewConnectionFailure{};
  } catch (const apache::thrift::transport::TTransportException& e) {
    const std::string what = e.what();
    if (!opened) {
      // TSocket::open() appends strerror(errno) to its own words.
      if (Lowercase(what).find("connection refused") != std::string::npos) {
        return {ConnectProblem::kCannotConnect, "connection refused"};
      }
      return {ConnectProblem::kCannotConnect, what};
    }
    return tls ? TlsFailure(what) : PlaintextFailure(what, first_bytes);
  } catch (...) {
    return {};
  }
}

BoundedFramedTransport::BoundedFramedTransport(
    std::shared_ptr<apache::thrift::transport::TTransport> transport,
    std::shared_ptr<apache::thrift::TConfiguration> config)
    : TFramedTransport(std::move(transport), config),
      max_frame_bytes_(static_cast<uint32_t>(config->getMaxFrameSize())) {}

void BoundedFramedTransport::flush() {
  const uint32_t frame = writeEnd() - sizeof(uint32_t);  // less the header
  if (frame > max_frame_bytes_) {
    throw RequestTooLarge("the request is " + std::to_string(frame) +
                          " bytes, over the frame limit of " +
                          std::to_string(max_frame_bytes_));
  }
  TFramedTransport::flush();
}

CallFailure FailureOfCurrentException(const std::string& where) {
  try {
    throw;
  } catch (const rpc::TIllegalArgument& e) {
    // A declared exception is a complete reply: the connection is clean.
    return {ServerStatus(e, Status::Code::kInvalidArgument), true};
  } catch (const rpc::TIOError& e) {
    // After a refusal the server may close the connection (a caller that
    // may call nothing gets one answer, frame_loop.h); its close can arrive
    // after the next call went out on it, which would then fail as
    // Unavailable. So a refused connection is not kept.
    // One the server marks retryable without a code (HBase's canRetry: a
    // quota's RpcThrottlingException) is Unavailable: try again later.
    Status status = ServerStatus(e, e.__isset.canRetry && e.canRetry
                                        ? Status::Code::kUnavailable
                                        : Status::Code::kIOError);
    const bool reusable = !status.IsPermissionDenied();
    return {std::move(status), reusable};
  } catch (const RequestTooLarge& e) {
    return {Status::InvalidArgument(where + e.what()), false};
  } catch (const apache::thrift::transport::TSSLException& e) {
    // A refusal (ours or the server's certificate, another CA, expired, a
    // host name it does not carry): retrying cannot help. A lost connection
    // is Unavailable, as in the clear.
    if (IsTlsRefusal(e.what())) {
      return {Status::PermissionDenied(where + "TLS: " + e.what()), false};
    }
    return {Status::Unavailable(where + "TLS: " + e.what()), false};
  } catch (const apache::thrift::transport::TTransportException& e) {
    return {Status::Unavailable(where + e.what()), false};
  } catch (const std::exception& e) {
    // TProtocolException (a reply that does not decode),
    // TApplicationException, std::bad_alloc, ...
    return {Status::IOError(where + e.what()), false};
  } catch (...) {
    return {Status::IOError(where + "unknown exception"), false};
  }
}

}  // namespace bloomroute::thrift_internal

namespace bloomroute {

Status ThriftClientOptions::Validate() const {
  if (connect_timeout_ms < 1) {
    return Status::InvalidArgument("connect timeout must be positive");
  }
  if (call_timeout_ms < 1) {
    return Status::InvalidArgument("call timeout must be positive");
  }
  if (long_call_timeout_ms < 1) {
    return Status::InvalidArgument("long call timeout must be positive");
  }
  if (max_frame_bytes < ServerOptions::kMinFrameBytes ||
      max_frame_bytes > ServerOptions::kMaxFrameBytes) {
    return Status::InvalidArgument(
        "max frame bytes must be in [" +
        std::to_string(ServerOptions::kMinFrameBytes) + ", " +
        std::to_string(ServerOptions::kMaxFrameBytes) + "]");
  }
  if (max_filter_image_bytes == 0) {
    return Status::InvalidArgument("max filter image bytes must be >= 1");
  }
  if (max_idle_connections > kMaxIdleConnections) {
    return Status::InvalidArgument("max idle connections must be at most " +
                                   std::to_string(kMaxIdleConnections));
  }
  BLOOMROUTE_RETURN_IF_ERROR(tls.ValidateForClient());
  if (!token.empty() && !tls.enabled()) {
    return Status::InvalidArgument(
        "a token needs TLS (--tls-ca): it must not cross the network in the "
        "clear");
  }
  return ValidateDecodedBudget(max_decoded_bytes, max_frame_bytes);
}

uint64_t ThriftClientOptions::DecodedBudget() const {
  return max_decoded_bytes != 0
             ? max_decoded_bytes
             : ServerOptions::kDecodedBytesPerFrameByte * max_frame_bytes;
}

}  // namespace bloomroute
