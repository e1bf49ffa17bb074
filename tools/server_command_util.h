// What the server subcommands (regionserver, router, local) share: range
// checks for their numeric options, the options every Thrift server takes,
// the log options, and serving until SIGTERM or SIGINT (SIGHUP reopens the
// log file and reloads).
//
// Signals. A server command calls BlockStopSignals() first, before it starts
// any thread (threads inherit the signal mask of the thread that creates
// them, so RocksDB's and Thrift's threads then never take SIGTERM or SIGINT),
// starts its servers, prints its start-up line and calls WaitForStopSignal(),
// which returns once SIGTERM or SIGINT arrives; it then stops what it started
// and returns OK, so the process exits 0.
//
// Example:
//   BLOOMROUTE_RETURN_IF_ERROR(log_flags_.Apply());
//   BLOOMROUTE_RETURN_IF_ERROR(BlockStopSignals());
//   ... start ...
//   Announce("x", "serving on " + address);
//   Announce("x", WaitForStopSignal() + ", stopping");
//   ... stop ...
#ifndef BLOOMROUTE_TOOLS_SERVER_COMMAND_UTIL_H_
#define BLOOMROUTE_TOOLS_SERVER_COMMAND_UTIL_H_

#include <boost/program_options.hpp>
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <string_view>

#include "common/log.h"
#include "common/status.h"
#include "thrift/server/thrift_server.h"
#include "tools/option_table.h"
#include "tools/security_flags.h"

namespace bloomroute {

// InvalidArgument "--<option> must be in [low, high], not <value>" unless
// low <= value <= high (the words of OptionTable's checks, for the commands
// that check by hand).
Status InRange(const char* option, int64_t value, int64_t low, int64_t high);

// Blocks SIGTERM, SIGINT and SIGHUP in the calling thread and in every
// thread it starts afterwards, and ignores SIGPIPE (a client that
// disconnects mid-reply must not kill a server). IOError when the mask
// cannot be set.
Status BlockStopSignals();

// Waits until SIGTERM or SIGINT arrives (BlockStopSignals() must have run)
// and returns its description, e.g. "Terminated" or "Interrupt". Each
// SIGHUP meanwhile reopens the log file (ReopenLogFile in common/log.h:
// after logrotate renamed it; a failure is logged and the old file kept),
// then runs `on_hangup` (a reload of what the server can read again), and
// the wait goes on.
std::string WaitForStopSignal(const std::function<void()>& on_hangup = {});

// As WaitForStopSignal (SIGHUP reopens the log file), but also returns, with
// no value, as soon as `done` is true (checked every 100 ms).
std::optional<std::string> WaitForStopSignalUntil(
    const std::function<bool()>& done);

// Prints "bloomroute <command>: <text>" on stdout (the lines scripts read:
// start-up, SIGHUP, stop) and, when the log goes to a file
// (--log-file), logs `text` there too at kInfo, component <command>, so
// that the file tells the whole story (written before the stdout line). On
// stderr the log would only repeat the line.
void Announce(std::string_view command, std::string_view text);

// The log options of a server command (common/log.h):
//   --log-level debug|info|warn|error   lines below it are dropped (info)
//   --log-file FILE                     append the lines to FILE, not stderr
// Validate() checks the level: InvalidArgument naming --log-level. Apply()
// sets the level and opens the file: IOError naming --log-file when it
// cannot be opened (call it in Execute, not Validate: --print-config must
// not create the file).
class LogFlags {
 public:
  void Add(OptionTable* table);
  Status Validate();
  Status Apply() const;

  const std::string& file() const { return file_; }

 private:
  std::string level_text_;  // as parsed
  std::string file_;
  LogLevel level_ = LogLevel::kInfo;  // filled by Validate()
};

// The options of a Thrift server as command-line options:
//   --listen HOST:PORT  --threads N  --max-frame-bytes N
//   --max-decoded-bytes N  --idle-timeout S  --request-timeout S
//   --reply-timeout S  --max-connections N  --max-handshakes N
//   --handshake-threads N  --max-buffered-request-bytes N
//   --max-buffered-reply-bytes N  --slow-call-ms N
//   --tls-ca FILE  --tls-cert FILE  --tls-key FILE  --insecure
// Add() declares them as rows of the command's table with `defaults` (and
// `default_listen`), their bounds ServerOptions' (thrift/thrift_server.h):
// the table checks the numbers; ToOptions() checks the rest and fills a
// ServerOptions.
//
// Secure by default off loopback: a server may listen on a loopback address
// (thrift/server/security.h, IsLoopbackHost) in the clear, but on any other
// address (0.0.0.0 included) only with TLS (all three --tls-* files) or with
// --insecure, which it then announces on start (InsecureWarning()).
class ServerFlags {
 public:
  // For every timeout flag (ServerOptions::kMaxTimeoutMs).
  static constexpr int64_t kMaxIdleTimeoutSeconds = 24 * 3600;

  ServerFlags(std::string default_listen, const ServerOptions& defaults);

  // The rows, in --help's order. The table checks the numbers:
  // --max-frame-bytes in [ServerOptions::kMinFrameBytes,
  // ServerOptions::kMaxFrameBytes] (a command whose frames must hold more
  // raises the floor: IntegerOption::AtLeastOption); --max-decoded-bytes 0 or
  // in [--max-frame-bytes, ServerOptions::kMaxDecodedBytes];
  // --max-buffered-request-bytes in [--max-frame-bytes,
  // ServerOptions::kMaxBufferedRequestBytes]; --max-buffered-reply-bytes in
  // [1, ServerOptions::kMaxBufferedReplyBytes]; the others in ServerOptions'
  // bounds.
  void Add(OptionTable* table);
  // After the table's check: sets the flags' fields of `out`.
  // InvalidArgument naming the option for a malformed address. The TLS
  // files fill out->tls: all three or none, each readable
  // (TlsFlags::ToOptions). A --listen host that is not loopback without TLS
  // and without --insecure is InvalidArgument saying to give the TLS files
  // or --insecure; so is --insecure together with a --tls-* option.
  Status ToOptions(ServerOptions* out) const;

  bool insecure() const { return insecure_; }

  // The warning a server command logs (kWarn) once it serves on host:port:
  // "serving without TLS on <host:port> (--insecure): anyone who can reach
  // this port can call anything" when --insecure lets it serve off
  // loopback; empty otherwise.
  std::string InsecureWarning(const std::string& host, int port) const;

 private:
  const std::string default_listen_;
  const ServerOptions defaults_;
  std::string listen_;
  ServerOptions given_;  // the numbers, set by the table's check
  TlsFlags tls_flags_{TlsFlags::Side::kServer};
  bool insecure_ = false;

  // Add()'s rows of the timeouts, the connections and the buffers.
  void AddTimeoutRows(OptionTable* table);
  void AddConnectionRows(OptionTable* table);
  void AddBufferRows(OptionTable* table);
  // The TLS files and the loopback rule, after out->host is set.
  Status ToSecurityOptions(ServerOptions* out) const;
};

}  // namespace bloomroute

#endif  // BLOOMROUTE_TOOLS_SERVER_COMMAND_UTIL_H_
