#include "tools/server_command_util.h"

#include <pthread.h>
#include <signal.h>

#include <cstring>
#include <iostream>
#include <utility>

namespace bloomroute {
namespace po = boost::program_options;

namespace {

// The signals a server takes synchronously with sigwait(): those that stop
// it, and SIGHUP (reload).
sigset_t StopSignals() {
  sigset_t set;
  sigemptyset(&set);
  sigaddset(&set, SIGTERM);
  sigaddset(&set, SIGINT);
  sigaddset(&set, SIGHUP);
  return set;
}

}  // namespace

Status InRange(const char* option, int64_t value, int64_t low, int64_t high) {
  if (value < low || value > high) {
    return Status::InvalidArgument(
        std::string("--") + option + " must be in [" + std::to_string(low) +
        ", " + std::to_string(high) + "], not " + std::to_string(value));
  }
  return Status::OK();
}

Status BlockStopSignals() {
  const sigset_t stop_signals = StopSignals();
  if (pthread_sigmask(SIG_BLOCK, &stop_signals, nullptr) != 0) {
    return Status::IOError("cannot block SIGTERM, SIGINT and SIGHUP");
  }
  signal(SIGPIPE, SIG_IGN);
  return Status::OK();
}

std::string WaitForStopSignal(const std::function<void()>& on_hangup) {
  const sigset_t stop_signals = StopSignals();
  for (;;) {
    int signal_number = 0;
    if (sigwait(&stop_signals, &signal_number) != 0) continue;
    if (signal_number != SIGHUP) return strsignal(signal_number);
    // First, so that what the reload says goes to the new file. A failure
    // is logged (to the old file) and must not stop the reload.
    const Status reopened = ReopenLogFile();
    if (on_hangup) on_hangup();
  }
}

std::optional<std::string> WaitForStopSignalUntil(
    const std::function<bool()>& done) {
  const sigset_t stop_signals = StopSignals();
  const timespec interval{0, 100 * 1000 * 1000};
  while (!done()) {
    const int signal_number = sigtimedwait(&stop_signals, nullptr, &interval);
    if (signal_number < 0) continue;  // timed out (or interrupted): look again
    if (signal_number != SIGHUP) return std::string(strsignal(signal_number));
    const Status reopened = ReopenLogFile();
  }
  return std::nullopt;
}

void Announce(std::string_view command, std::string_view text) {
  // The file first: a script that saw the line finds it there too.
  if (LoggingToFile()) Log(LogLevel::kInfo, command, text);
  std::cout << "bloomroute " << command << ": " << text << std::endl;
}

void LogFlags::Add(OptionTable* table) {
  table
      ->String("log-level", &level_text_,
               "log lines at this level and above: debug, info, warn or "
               "error")
      .Default("info")
      .ValueName("LEVEL");
  table
      ->String("log-file", &file_,
               "append the log lines to FILE instead of stderr (created if "
               "missing); SIGHUP reopens it, for logrotate")
      .ValueName("FILE");
}

Status LogFlags::Validate() {
  StatusOr<LogLevel> level = ParseLogLevel(level_text_);
  if (!level.ok()) return level.status().WithContext("--log-level");
  level_ = *level;
  return Status::OK();
}

Status LogFlags::Apply() const {
  SetMinLogLevel(level_);
  if (file_.empty()) return Status::OK();
  return SetLogFile(file_).WithContext("--log-file");
}

ServerFlags::ServerFlags(std::string default_listen,
                         const ServerOptions& defaults)
    : default_listen_(std::move(default_listen)), defaults_(defaults) {}

namespace {

// A timeout flag in seconds, for a field in ms.
void AddTimeout(OptionTable* table, const char* name, int* target_ms,
                int default_ms, const char* help) {
  table->Integer(name, target_ms, default_ms / 1000, help)
      .Unit(OptionUnit::kSeconds)
      .Scale(1000)
      .Range(1, ServerFlags::kMaxIdleTimeoutSeconds);
}

}  // namespace

void ServerFlags::Add(OptionTable* table) {
  using O = ServerOptions;
  table
      ->String("listen", &listen_,
               "HOST:PORT to listen on; port 0 picks a free port")
      .Default(default_listen_)
      .ValueName("HOST:PORT");
  table
      ->Integer("threads", &given_.threads, defaults_.threads,
                "worker threads (calls run at once; idle or slow connections "
                "hold none)")
      .Range(1, O::kMaxThreads);
  table
      ->Integer("max-frame-bytes", &given_.max_frame_bytes,
                defaults_.max_frame_bytes, "largest request frame accepted")
      .Unit(OptionUnit::kBytes)
      .Range(O::kMinFrameBytes, O::kMaxFrameBytes);
  table
      ->Integer("max-decoded-bytes", &given_.max_decoded_bytes,
                static_cast<int64_t>(defaults_.max_decoded_bytes),
                "most memory one request may decode into, in bytes (lists "
                "are charged 336 bytes a struct); 0 = 10 x --max-frame-bytes. "
                "A request over it is refused naming this option")
      .Unit(OptionUnit::kBytes)
      .AtLeastOption("max-frame-bytes")
      .Range(0, static_cast<int64_t>(O::kMaxDecodedBytes))
      .OrZero();
  AddTimeoutRows(table);
  AddConnectionRows(table);
  AddBufferRows(table);
  tls_flags_.Add(table);
  table->Switch("insecure", &insecure_,
                "serve in the clear on a non-loopback --listen address "
                "(without it, such a server needs the --tls-* files)");
}

void ServerFlags::AddTimeoutRows(OptionTable* table) {
  AddTimeout(table, "idle-timeout", &given_.idle_timeout_ms,
             defaults_.idle_timeout_ms,
             "close a connection that starts no request for this many "
             "seconds");
  AddTimeout(table, "request-timeout", &given_.request_timeout_ms,
             defaults_.request_timeout_ms,
             "close a connection whose request has not arrived whole this "
             "many seconds after its first byte");
  AddTimeout(table, "reply-timeout", &given_.reply_timeout_ms,
             defaults_.reply_timeout_ms,
             "close a connection that has not read its whole reply this many "
             "seconds after it was ready");
}

void ServerFlags::AddConnectionRows(OptionTable* table) {
  using O = ServerOptions;
  table
      ->Integer("max-connections", &given_.max_connections,
                defaults_.max_connections,
                "connections open at once; more wait in the listen backlog")
      .Range(1, O::kMaxConnections);
  table
      ->Integer("max-handshakes", &given_.max_handshakes,
                defaults_.max_handshakes,
                "with TLS: handshake steps queued for the handshake threads; "
                "while this many are, new connections wait in the listen "
                "backlog (established ones are served)")
      .Range(1, O::kMaxHandshakes);
  table
      ->Integer("handshake-threads", &given_.handshake_threads,
                defaults_.handshake_threads,
                "with TLS: threads that run handshakes (about 1 ms of CPU "
                "each), apart from the I/O thread and the --threads workers")
      .Range(1, O::kMaxHandshakeThreads);
}

void ServerFlags::AddBufferRows(OptionTable* table) {
  using O = ServerOptions;
  table
      ->Integer("max-buffered-request-bytes",
                &given_.max_buffered_request_bytes,
                static_cast<int64_t>(defaults_.max_buffered_request_bytes),
                "request frame bytes all connections may hold together; a "
                "frame's declared size is reserved before its body is read, "
                "and while it does not fit the connection waits (its "
                "--request-timeout still runs)")
      .Unit(OptionUnit::kBytes)
      .AtLeastOption("max-frame-bytes")
      .Range(1, static_cast<int64_t>(O::kMaxBufferedRequestBytes));
  table
      ->Integer("max-buffered-reply-bytes", &given_.max_buffered_reply_bytes,
                static_cast<int64_t>(defaults_.max_buffered_reply_bytes),
                "reply bytes not yet sent that all connections may hold "
                "together; past it no new call starts (requests wait, their "
                "--request-timeout still runs) until replies are read or "
                "closed by --reply-timeout. Calls already running finish, so "
                "replies hold at most this plus --threads replies")
      .Unit(OptionUnit::kBytes)
      .Range(1, static_cast<int64_t>(O::kMaxBufferedReplyBytes));
  table
      ->Integer("slow-call-ms", &given_.slow_call_ms, defaults_.slow_call_ms,
                "log calls that take this many milliseconds or more (method, "
                "caller, table, duration, servers asked); 0 for none")
      .Unit(OptionUnit::kMilliseconds)
      .Range(0, O::kMaxTimeoutMs);
}

Status ServerFlags::ToSecurityOptions(ServerOptions* out) const {
  if (insecure_ && tls_flags_.any()) {
    return Status::InvalidArgument(
        "--insecure serves in the clear: give it or --tls-ca, --tls-cert and "
        "--tls-key, not both");
  }
  BLOOMROUTE_ASSIGN_OR_RETURN(out->tls, tls_flags_.ToOptions());
  if (!out->tls.enabled() && !insecure_ && !IsLoopbackHost(out->host)) {
    return Status::InvalidArgument(
        "--listen " + listen_ +
        " is not a loopback address: give --tls-ca, --tls-cert and --tls-key "
        "to serve TLS, or --insecure to serve in the clear");
  }
  return Status::OK();
}

std::string ServerFlags::InsecureWarning(const std::string& host,
                                         int port) const {
  if (!insecure_ || IsLoopbackHost(host)) return "";
  return "serving without TLS on " + FormatHostPort(host, port) +
         " (--insecure): anyone who can reach this port can call anything";
}

Status ServerFlags::ToOptions(ServerOptions* out) const {
  BLOOMROUTE_RETURN_IF_ERROR(ParseListenAddress(listen_, &out->host, &out->port)
                                 .WithContext("--listen"));
  out->threads = given_.threads;
  out->max_frame_bytes = given_.max_frame_bytes;
  out->max_decoded_bytes = given_.max_decoded_bytes;
  out->idle_timeout_ms = given_.idle_timeout_ms;
  out->request_timeout_ms = given_.request_timeout_ms;
  out->reply_timeout_ms = given_.reply_timeout_ms;
  out->max_connections = given_.max_connections;
  out->max_handshakes = given_.max_handshakes;
  out->handshake_threads = given_.handshake_threads;
  out->max_buffered_request_bytes = given_.max_buffered_request_bytes;
  out->max_buffered_reply_bytes = given_.max_buffered_reply_bytes;
  out->slow_call_ms = given_.slow_call_ms;
  BLOOMROUTE_RETURN_IF_ERROR(ToSecurityOptions(out));
  return out->Validate();
}

}  // namespace bloomroute
