#include "common/log.h"

#include <spdlog/logger.h>
#include <spdlog/pattern_formatter.h>
#include <spdlog/sinks/stdout_sinks.h>

#include <atomic>
#include <memory>

namespace bloomroute {
namespace {

std::atomic<int> min_level{static_cast<int>(LogLevel::kInfo)};

// spdlog writes the time and the line; level and component are ours, so that
// the level reads "WARN" rather than spdlog's "warning". Not registered in
// spdlog's global registry: a library that uses spdlog too keeps its own.
spdlog::logger& Logger() {
  static spdlog::logger* logger = [] {
    auto sink = std::make_shared<spdlog::sinks::stderr_sink_mt>();
    auto* l = new spdlog::logger("bloomroute", std::move(sink));
    l->set_formatter(std::make_unique<spdlog::pattern_formatter>(
        "%Y-%m-%dT%H:%M:%S.%eZ %v", spdlog::pattern_time_type::utc));
    l->set_level(spdlog::level::trace);
    // Every line at once: a process that dies must not lose its last words.
    l->flush_on(spdlog::level::trace);
    return l;
  }();
  return *logger;
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
  Logger().log(spdlog::level::info, line);
}

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
