#include "thrift/thrift_logging.h"

#include <thrift/TOutput.h>

#include <atomic>
#include <chrono>
#include <cstdlib>
#include <memory>
#include <mutex>

#include "common/log.h"

namespace bloomroute {
namespace {

constexpr char kComponent[] = "thrift";
constexpr char kIntervalVariable[] = "BLOOMROUTE_LOG_INTERVAL_MS";

std::chrono::milliseconds ServerInterval() {
  const char* value = std::getenv(kIntervalVariable);
  if (value != nullptr) {
    char* end = nullptr;
    const long long ms = std::strtoll(value, &end, 10);
    if (end != value && *end == '\0' && ms > 0) {
      return std::chrono::milliseconds(ms);
    }
  }
  return std::chrono::milliseconds(10000);
}

std::mutex limiter_mutex;
std::shared_ptr<LogRateLimiter> server_limiter;  // guarded by limiter_mutex

std::shared_ptr<LogRateLimiter> ServerLimiter() {
  std::lock_guard<std::mutex> lock(limiter_mutex);
  return server_limiter;
}

void ClientOutput(const char* message) {
  Log(LogLevel::kDebug, kComponent, message);
}

void ServerOutput(const char* message) {
  const std::shared_ptr<LogRateLimiter> limiter = ServerLimiter();
  if (limiter == nullptr) return;  // not reached: set before this is
  const ThriftMessageSource source = SourceOfThriftMessage(message);
  const auto admitted = limiter->Admit(source.peer, source.kind);
  if (!admitted) return;
  Log(LogLevel::kWarn, kComponent,
      std::string(message) + SuppressedSuffix(*admitted));
}

}  // namespace

void RouteThriftOutputToLog(ThriftOutput mode) {
  if (mode == ThriftOutput::kClient) {
    apache::thrift::GlobalOutput.setOutputFunction(ClientOutput);
    return;
  }
  {
    std::lock_guard<std::mutex> lock(limiter_mutex);
    LogRateLimiter::Options options;
    options.interval = ServerInterval();
    server_limiter = std::make_shared<LogRateLimiter>(options);
  }
  apache::thrift::GlobalOutput.setOutputFunction(ServerOutput);
}

ThriftMessageSource SourceOfThriftMessage(std::string_view message) {
  // TSocket::getSocketInfo()'s format.
  constexpr std::string_view kHost = "<Host: ";
  constexpr std::string_view kPort = " Port: ";
  const size_t begin = message.find(kHost);
  const size_t port = begin == std::string_view::npos
                          ? std::string_view::npos
                          : message.find(kPort, begin + kHost.size());
  const size_t end = port == std::string_view::npos
                         ? std::string_view::npos
                         : message.find('>', port + kPort.size());
  if (end == std::string_view::npos) return {"", std::string(message)};
  ThriftMessageSource source;
  const std::string_view host =
      message.substr(begin + kHost.size(), port - begin - kHost.size());
  const std::string_view port_text =
      message.substr(port + kPort.size(), end - port - kPort.size());
  source.peer = host.find(':') == std::string_view::npos
                    ? std::string(host)
                    : "[" + std::string(host) + "]";
  source.peer += ":" + std::string(port_text);
  // The text before the peer, less the space that led to it, and after.
  std::string_view before = message.substr(0, begin);
  if (!before.empty() && before.back() == ' ') before.remove_suffix(1);
  source.kind = std::string(before) + std::string(message.substr(end + 1));
  return source;
}

}  // namespace bloomroute
