#include "common/log.h"

#include <spdlog/logger.h>
#include <spdlog/pattern_formatter.h>
#include <spdlog/sinks/base_sink.h>

#include <atomic>
#include <cctype>
#include <cerrno>
#include <cstdio>
#include <memory>
#include <system_error>

namespace bloomroute {
namespace {

std::atomic<int> min_level{static_cast<int>(LogLevel::kInfo)};

// Writes each line to stderr or to a file it can open again by path:
// spdlog 1.10's file sinks cannot reopen theirs, which logrotate's "create"
// scheme needs. base_sink's mutex_ serializes lines with the switch of
// file, so that a line goes whole to one file or the other.
class ReopenableSink final : public spdlog::sinks::base_sink<std::mutex> {
 public:
  ReopenableSink() = default;
  ReopenableSink(const ReopenableSink&) = delete;
  ReopenableSink& operator=(const ReopenableSink&) = delete;

  // Makes `path` ("" = stderr) the target when it opens, and closes the
  // file that was; else IOError, and the target stays.
  Status Open(const std::string& path) {
    std::FILE* file = stderr;
    if (!path.empty()) {
      // Append ("a") so that lines of a restart follow the earlier ones;
      // "e": close-on-exec, a child process must not hold the file.
      file = std::fopen(path.c_str(), "ae");
      if (file == nullptr) {
        return Status::IOError(
            "cannot open the log file " + path + ": " +
            std::error_code(errno, std::generic_category()).message());
      }
    }
    std::lock_guard<std::mutex> lock(mutex_);
    if (out_ != stderr) std::fclose(out_);
    out_ = file;
    path_ = path;
    return Status::OK();
  }

  std::string path() {
    std::lock_guard<std::mutex> lock(mutex_);
    return path_;
  }

 protected:
  void sink_it_(const spdlog::details::log_msg& msg) override {
    spdlog::memory_buf_t line;
    formatter_->format(msg, line);
    std::fwrite(line.data(), 1, line.size(), out_);
  }
  void flush_() override { std::fflush(out_); }

 private:
  std::string path_;         // "" for stderr; guarded by mutex_
  std::FILE* out_ = stderr;  // guarded by mutex_
};

// spdlog writes the time and the line; level and component are ours, so that
// the level reads "WARN" rather than spdlog's "warning". Not registered in
// spdlog's global registry: a library that uses spdlog too keeps its own.
// Never destroyed: a thread may log while the process exits.
struct Output {
  Output() {
    logger.set_formatter(std::make_unique<spdlog::pattern_formatter>(
        "%Y-%m-%dT%H:%M:%S.%eZ %v", spdlog::pattern_time_type::utc));
    logger.set_level(spdlog::level::trace);
    // Every line at once: a process that dies must not lose its last words.
    logger.flush_on(spdlog::level::trace);
  }

  std::shared_ptr<ReopenableSink> sink = std::make_shared<ReopenableSink>();
  spdlog::logger logger{"bloomroute", sink};
  // Serializes SetLogFile and ReopenLogFile, so that a reopen opens the
  // path in effect.
  std::mutex open_mutex;
};

Output& TheOutput() {
  static Output* output = new Output();
  return *output;
}

}  // namespace

const char* LogLevelName(LogLevel level) {
  switch (level) {
    case LogLevel::kDebug:
      return "DEBUG";
    case LogLevel::kInfo:
      return "INFO";
    case LogLevel::kWarn:
      return "WARN";
    case LogLevel::kError:
      return "ERROR";
  }
  return "?";
}

StatusOr<LogLevel> ParseLogLevel(std::string_view text) {
  std::string lower;
  for (char c : text) {
    lower += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  }
  if (lower == "debug") return LogLevel::kDebug;
  if (lower == "info") return LogLevel::kInfo;
  if (lower == "warn" || lower == "warning") return LogLevel::kWarn;
  if (lower == "error") return LogLevel::kError;
  return Status::InvalidArgument("unknown log level '" + std::string(text) +
                                 "': give debug, info, warn or error");
}

void SetMinLogLevel(LogLevel level) {
  min_level.store(static_cast<int>(level));
}

bool LogEnabled(LogLevel level) {
  return static_cast<int>(level) >= min_level.load();
}

void Log(LogLevel level, std::string_view component, std::string_view message) {
  if (!LogEnabled(level)) return;
  std::string line = LogLevelName(level);
  line += ' ';
  line += component;
  line += ": ";
  for (char c : message) line += (c == '\n' || c == '\r') ? ' ' : c;
  TheOutput().logger.log(spdlog::level::info, line);
}

Status SetLogFile(const std::string& path) {
  Output& output = TheOutput();
  std::lock_guard<std::mutex> lock(output.open_mutex);
  return output.sink->Open(path);
}

Status ReopenLogFile() {
  Output& output = TheOutput();
  std::unique_lock<std::mutex> lock(output.open_mutex);
  const std::string path = output.sink->path();
  if (path.empty()) return Status::OK();
  const Status opened = output.sink->Open(path);
  lock.unlock();
  if (opened.ok()) {
    Log(LogLevel::kInfo, "log", "reopened the log file " + path);
  } else {
    Log(LogLevel::kError, "log",
        opened.message() + "; still writing to the file opened before");
  }
  return opened;
}

bool LoggingToFile() { return !TheOutput().sink->path().empty(); }

LogRateLimiter::LogRateLimiter() : LogRateLimiter(Options()) {}

LogRateLimiter::LogRateLimiter(Options options, Clock clock)
    : options_(options), clock_(clock ? std::move(clock) : [] {
        return std::chrono::steady_clock::now();
      }) {}

std::optional<LogRateLimiter::Admitted> LogRateLimiter::Admit(
    std::string_view key, std::string_view kind) {
  const auto now = clock_();
  std::lock_guard<std::mutex> lock(mutex_);
  Key k(key, kind);
  auto it = entries_.find(k);
  if (it != entries_.end()) {
    Entry& e = it->second;
    if (now - e.admitted_at < options_.interval) {
      ++e.suppressed;
      return std::nullopt;
    }
    Admitted admitted{e.suppressed,
                      std::chrono::duration_cast<std::chrono::milliseconds>(
                          now - e.admitted_at)};
    e.admitted_at = now;
    e.suppressed = 0;
    by_age_.splice(by_age_.end(), by_age_, e.age);  // now the youngest
    return admitted;
  }
  while (!by_age_.empty() && entries_.size() >= options_.max_keys) {
    entries_.erase(by_age_.front());
    by_age_.pop_front();
  }
  by_age_.push_back(k);
  entries_.emplace(std::move(k), Entry{now, 0, std::prev(by_age_.end())});
  return Admitted{};
}

std::string SuppressedSuffix(const LogRateLimiter::Admitted& admitted) {
  if (admitted.suppressed == 0) return "";
  const int64_t ms = admitted.since.count();
  const std::string time = ms >= 10000 ? std::to_string(ms / 1000) + " s"
                                       : std::to_string(ms) + " ms";
  return " (and " + std::to_string(admitted.suppressed) +
         " more like it in the last " + time + ")";
}

}  // namespace bloomroute
