// The project's log lines: one line per event, on stderr or in a log file,
// in one format for every process, whatever part of the program (or
// library) wrote it.
//
//   2026-11-27T19:40:01.123Z WARN thrift: TSocket::open() error ...
//
// that is: the time in UTC (ISO 8601, milliseconds, "Z"), the level, the
// component that speaks, and the message. Lines below the minimum level
// (kInfo unless SetMinLogLevel says otherwise) are dropped.
//
// SetLogFile sends the lines to a file instead (appended to; created when
// missing). ReopenLogFile opens that path again, for logrotate's "create"
// scheme: the rotation renames the file, then the server is sent SIGHUP and
// reopens the path, so that later lines go to a new file there and the
// renamed one keeps the earlier lines.
//
// LogRateLimiter keeps a noisy source to one line per interval: a server
// whose peer is down would otherwise write the same line many times a
// second.
//
// Example:
//   BLOOMROUTE_ASSIGN_OR_RETURN(LogLevel level, ParseLogLevel("warn"));
//   SetMinLogLevel(level);
//   BLOOMROUTE_RETURN_IF_ERROR(SetLogFile("/var/log/bloomroute/router.log"));
//   Log(LogLevel::kWarn, "router", "region server 3 did not answer");
//   ...  // on SIGHUP, after the file was renamed:
//   Status reopened = ReopenLogFile();  // a failure is logged too
//
//   LogRateLimiter limiter;  // one line per (key, kind) per 10 s
//   if (auto admitted = limiter.Admit(peer, kind)) {
//     Log(LogLevel::kWarn, "thrift", message + SuppressedSuffix(*admitted));
//   }
//
// Thread-safety: every function may be called from any thread; lines never
// interleave, and each is written (and flushed) whole before Log returns,
// to the file or stderr in effect when it is written. A LogRateLimiter may
// be shared by threads.
#ifndef BLOOMROUTE_COMMON_LOG_H_
#define BLOOMROUTE_COMMON_LOG_H_

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <list>
#include <map>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <utility>

#include "common/status.h"
#include "common/statusor.h"

namespace bloomroute {

enum class LogLevel : int { kDebug = 0, kInfo = 1, kWarn = 2, kError = 3 };

// "DEBUG", "INFO", "WARN", "ERROR".
const char* LogLevelName(LogLevel level);

// "debug", "info", "warn" (or "warning") and "error", in any case; else
// InvalidArgument naming the text and the levels.
StatusOr<LogLevel> ParseLogLevel(std::string_view text);

// Lines below `level` are dropped from now on.
void SetMinLogLevel(LogLevel level);
// Whether a line at `level` would be written (to skip building a message).
bool LogEnabled(LogLevel level);

// From now on, lines are appended to the file at `path` (created when
// missing, mode 0666 less the umask), or go to stderr again when `path` is
// empty. IOError naming the path when the file cannot be opened for
// writing; the lines then go where they went before. The file that was in
// use is closed.
[[nodiscard]] Status SetLogFile(const std::string& path);

// Opens the path of SetLogFile again and writes the next lines there (the
// file that was open is closed), then logs "reopened the log file <path>"
// at kInfo (component "log") there. OK and nothing else when the lines go
// to stderr. When the path cannot be opened: IOError naming it, the lines
// still go to the file that was open, and the error is logged there at
// kError.
[[nodiscard]] Status ReopenLogFile();

// Whether the lines go to a file (SetLogFile with a path), not stderr.
bool LoggingToFile();

// Writes "<time> <LEVEL> <component>: <message>" and a newline to stderr
// or the log file when `level` is enabled. A message's own line breaks are kept
// as spaces, so that one event stays one line.
void Log(LogLevel level, std::string_view component, std::string_view message);

// Admits one event per (key, kind) per interval. An event is admitted when
// its (key, kind) has not been admitted in the last interval; the others are
// counted, and the next admitted one reports how many were, so that nothing
// goes unaccounted. At most max_keys pairs are tracked: past it, the pair
// admitted longest ago is forgotten (its count is lost, and its next event
// is admitted).
class LogRateLimiter {
 public:
  using Clock = std::function<std::chrono::steady_clock::time_point()>;
  struct Options {
    std::chrono::milliseconds interval{10000};
    size_t max_keys = 1024;  // >= 1
  };
  struct Admitted {
    // Events of this (key, kind) not admitted since the last admitted one,
    // and how long ago that one was (0 when there was none tracked).
    uint64_t suppressed = 0;
    std::chrono::milliseconds since{0};
  };

  // With Options' defaults.
  LogRateLimiter();
  // `clock` defaults to std::chrono::steady_clock::now (tests inject one).
  explicit LogRateLimiter(Options options, Clock clock = nullptr);
  LogRateLimiter(const LogRateLimiter&) = delete;
  LogRateLimiter& operator=(const LogRateLimiter&) = delete;

  // The admitted event's count of suppressed ones, or nullopt when this
  // event is to be suppressed (and is counted).
  std::optional<Admitted> Admit(std::string_view key, std::string_view kind);

  std::chrono::milliseconds interval() const { return options_.interval; }

 private:
  struct Entry {
    std::chrono::steady_clock::time_point admitted_at;
    uint64_t suppressed = 0;
    std::list<std::pair<std::string, std::string>>::iterator age;
  };
  using Key = std::pair<std::string, std::string>;

  const Options options_;
  const Clock clock_;
  std::mutex mutex_;
  // Tracked pairs and their ages, oldest admitted first; guarded by mutex_.
  std::map<Key, Entry> entries_;
  std::list<Key> by_age_;
};

// "" when nothing was suppressed, else e.g.
// " (and 57 more like it in the last 10 s)", the time being `since` in
// whole seconds (rounded down), or in milliseconds below 10 s.
std::string SuppressedSuffix(const LogRateLimiter::Admitted& admitted);

}  // namespace bloomroute

#endif  // BLOOMROUTE_COMMON_LOG_H_
