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

void Announce(std::string_view command, std::string_view text) {
  // The file first: a script that saw the line finds it there too.
  if (LoggingToFile()) Log(LogLevel::kInfo, command, text);
  std::cout << "bloomroute " << command << ": " << text << std::endl;
}

void LogFlags::Add(po::options_description* o) {
  o->add_options()  //
      ("log-level",
       po::value<std::string>(&level_text_)
           ->default_value("info")
           ->value_name("LEVEL"),
       "log lines at this level and above: debug, info, warn or error")  //
      ("log-file", po::value<std::string>(&file_)->value_name("FILE"),
       "append the log lines to FILE instead of stderr (created if missing); "
       "SIGHUP reopens it, for logrotate");
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

void ServerFlags::Add(po::options_description* o) {
  o->add_options()  //
      ("listen",
       po::value<std::string>(&listen_)->default_value(default_listen_),
       "HOST:PORT to listen on; port 0 picks a free port")  //
      ("threads",
       po::value<int64_t>(&threads_)->default_value(defaults_.threads),
       "worker threads (calls run at once; idle or slow connections hold "
       "none)")  //
      ("max-frame-bytes",
       po::value<int64_t>(&max_frame_bytes_)
           ->default_value(defaults_.max_frame_bytes),
       "largest request frame accepted")  //
      ("max-decoded-bytes",
       po::value<int64_t>(&max_decoded_bytes_)
           ->default_value(static_cast<int64_t>(defaults_.max_decoded_bytes)),
       "most memory one request may decode into, in bytes (lists are "
       "charged 336 bytes a struct); 0 = 10 x --max-frame-bytes. A request "
       "over it is refused naming this option")  //
      ("idle-timeout",
       po::value<int64_t>(&idle_timeout_seconds_)
           ->default_value(defaults_.idle_timeout_ms / 1000),
       "close a connection that starts no request for this many seconds")  //
      ("request-timeout",
       po::value<int64_t>(&request_timeout_seconds_)
           ->default_value(defaults_.request_timeout_ms / 1000),
       "close a connection whose request has not arrived whole this many "
       "seconds after its first byte")  //
      ("reply-timeout",
       po::value<int64_t>(&reply_timeout_seconds_)
           ->default_value(defaults_.reply_timeout_ms / 1000),
       "close a connection that has not read its whole reply this many "
       "seconds after it was ready")  //
      ("max-connections",
       po::value<int64_t>(&max_connections_)
           ->default_value(defaults_.max_connections),
       "connections open at once; more wait in the listen backlog")  //
      ("max-handshakes",
       po::value<int64_t>(&max_handshakes_)
           ->default_value(defaults_.max_handshakes),
       "with TLS: handshake steps queued for the handshake threads; while "
       "this many are, new connections wait in the listen backlog "
       "(established ones are served)")  //
      ("handshake-threads",
       po::value<int64_t>(&handshake_threads_)
           ->default_value(defaults_.handshake_threads),
       "with TLS: threads that run handshakes (about 1 ms of CPU each), "
       "apart from the I/O thread and the --threads workers")  //
      ("max-buffered-request-bytes",
       po::value<int64_t>(&max_buffered_request_bytes_)
           ->default_value(
               static_cast<int64_t>(defaults_.max_buffered_request_bytes)),
       "request frame bytes all connections may hold together, at least "
       "--max-frame-bytes; a frame's declared size is reserved before its "
       "body is read, and while it does not fit the connection waits (its "
       "--request-timeout still runs)")  //
      ("max-buffered-reply-bytes",
       po::value<int64_t>(&max_buffered_reply_bytes_)
           ->default_value(
               static_cast<int64_t>(defaults_.max_buffered_reply_bytes)),
       "reply bytes not yet sent that all connections may hold together; "
       "past it no new call starts (requests wait, their --request-timeout "
       "still runs) until replies are read or closed by --reply-timeout. "
       "Calls already running finish, so replies hold at most this plus "
       "--threads replies")  //
      ("slow-call-ms",
       po::value<int64_t>(&slow_call_ms_)
           ->default_value(defaults_.slow_call_ms),
       "log calls that take this many milliseconds or more (method, caller, "
       "table, duration, servers asked); 0 for none");
  tls_flags_.Add(o);
  o->add_options()  //
      ("insecure", po::bool_switch(&insecure_),
       "serve in the clear on a non-loopback --listen address (without it, "
       "such a server needs the --tls-* files)");
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

Status ServerFlags::ToOptions(int64_t min_frame_bytes,
                              ServerOptions* out) const {
  BLOOMROUTE_RETURN_IF_ERROR(ParseListenAddress(listen_, &out->host, &out->port)
                                 .WithContext("--listen"));
  BLOOMROUTE_RETURN_IF_ERROR(
      InRange("threads", threads_, 1, ServerOptions::kMaxThreads));
  BLOOMROUTE_RETURN_IF_ERROR(InRange("max-frame-bytes", max_frame_bytes_,
                                     min_frame_bytes,
                                     ServerOptions::kMaxFrameBytes));
  BLOOMROUTE_RETURN_IF_ERROR(InRange("idle-timeout", idle_timeout_seconds_, 1,
                                     kMaxIdleTimeoutSeconds));
  BLOOMROUTE_RETURN_IF_ERROR(InRange(
      "request-timeout", request_timeout_seconds_, 1, kMaxIdleTimeoutSeconds));
  BLOOMROUTE_RETURN_IF_ERROR(InRange("reply-timeout", reply_timeout_seconds_, 1,
                                     kMaxIdleTimeoutSeconds));
  BLOOMROUTE_RETURN_IF_ERROR(InRange("max-connections", max_connections_, 1,
                                     ServerOptions::kMaxConnections));
  out->request_timeout_ms = static_cast<int>(request_timeout_seconds_ * 1000);
  out->reply_timeout_ms = static_cast<int>(reply_timeout_seconds_ * 1000);
  out->max_connections = static_cast<uint32_t>(max_connections_);
  BLOOMROUTE_RETURN_IF_ERROR(InRange("max-handshakes", max_handshakes_, 1,
                                     ServerOptions::kMaxHandshakes));
  BLOOMROUTE_RETURN_IF_ERROR(InRange("handshake-threads", handshake_threads_, 1,
                                     ServerOptions::kMaxHandshakeThreads));
  out->max_handshakes = static_cast<uint32_t>(max_handshakes_);
  out->handshake_threads = static_cast<uint32_t>(handshake_threads_);
  if (max_decoded_bytes_ != 0) {
    BLOOMROUTE_RETURN_IF_ERROR(
        InRange("max-decoded-bytes", max_decoded_bytes_, max_frame_bytes_,
                static_cast<int64_t>(ServerOptions::kMaxDecodedBytes)));
  }
  BLOOMROUTE_RETURN_IF_ERROR(
      InRange("max-buffered-request-bytes", max_buffered_request_bytes_,
              max_frame_bytes_,
              static_cast<int64_t>(ServerOptions::kMaxBufferedRequestBytes)));
  out->max_buffered_request_bytes =
      static_cast<uint64_t>(max_buffered_request_bytes_);
  BLOOMROUTE_RETURN_IF_ERROR(
      InRange("max-buffered-reply-bytes", max_buffered_reply_bytes_, 1,
              static_cast<int64_t>(ServerOptions::kMaxBufferedReplyBytes)));
  out->max_buffered_reply_bytes =
      static_cast<uint64_t>(max_buffered_reply_bytes_);
  BLOOMROUTE_RETURN_IF_ERROR(
      InRange("slow-call-ms", slow_call_ms_, 0, ServerOptions::kMaxTimeoutMs));
  out->slow_call_ms = static_cast<uint32_t>(slow_call_ms_);
  out->threads = static_cast<uint32_t>(threads_);
  out->max_frame_bytes = static_cast<uint32_t>(max_frame_bytes_);
  out->idle_timeout_ms = static_cast<int>(idle_timeout_seconds_ * 1000);
  out->max_decoded_bytes = static_cast<uint64_t>(max_decoded_bytes_);
  BLOOMROUTE_RETURN_IF_ERROR(ToSecurityOptions(out));
  return out->Validate();
}

}  // namespace bloomroute
