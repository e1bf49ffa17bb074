#include "thrift/internal/router_list.h"

#include <algorithm>
#include <cctype>
#include <random>
#include <set>
#include <utility>

#include "thrift/server/thrift_server.h"

namespace bloomroute::thrift_internal {
namespace {

// The start of the list: given (tests), or from the system's random source,
// so that clients started together do not all pick the same router.
size_t StartPosition(size_t routers, int start) {
  if (routers <= 1) return 0;
  if (start != RouterListOptions::kRandomStart) {
    return static_cast<size_t>(start) % routers;
  }
  std::random_device random;
  return static_cast<size_t>(random() % routers);
}

// `failure`'s message without the "router A: M: " prefix the pool puts on
// what it observed itself.
std::string Cause(const Status& failure, const std::string& where) {
  const std::string& message = failure.message();
  if (message.compare(0, where.size(), where) == 0) {
    return message.substr(where.size());
  }
  return message;
}

}  // namespace

RouterList::RouterList(std::vector<std::string> addresses,
                       const RouterListOptions& options)
    : addresses_(std::move(addresses)),
      options_(options),
      current_(StartPosition(addresses_.size(), options.start)),
      failures_(addresses_.size(), 0),
      skip_until_(addresses_.size(), Clock::time_point::min()) {}

size_t RouterList::current() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return current_;
}

std::vector<size_t> RouterList::Order() const {
  const Clock::time_point now = Clock::now();
  std::vector<size_t> ready, skipped;
  std::lock_guard<std::mutex> lock(mutex_);
  for (size_t i = 0; i < addresses_.size(); ++i) {
    const size_t router = (current_ + i) % addresses_.size();
    (skip_until_[router] > now ? skipped : ready).push_back(router);
  }
  ready.insert(ready.end(), skipped.begin(), skipped.end());
  return ready;
}

void RouterList::Failed(size_t router) {
  std::lock_guard<std::mutex> lock(mutex_);
  const int failures = ++failures_[router];
  // min << (failures - 1), capped: the shift stops before it could overflow.
  int64_t backoff = options_.min_backoff_ms;
  for (int i = 1; i < failures && backoff < options_.max_backoff_ms; ++i) {
    backoff *= 2;
  }
  backoff = std::min<int64_t>(backoff, options_.max_backoff_ms);
  skip_until_[router] = Clock::now() + std::chrono::milliseconds(backoff);
  if (current_ == router) current_ = (router + 1) % addresses_.size();
}

void RouterList::Answered(size_t router) {
  std::lock_guard<std::mutex> lock(mutex_);
  failures_[router] = 0;
  skip_until_[router] = Clock::time_point::min();
  current_ = router;
}

bool RouterList::InBackoff(size_t router) const {
  std::lock_guard<std::mutex> lock(mutex_);
  return skip_until_[router] > Clock::now();
}

void RouterList::Record(size_t router, const Status& status, Reach reach) {
  if (status.ok() || reach == Reach::kAnswered) {
    Answered(router);
  } else if (status.IsUnavailable()) {
    Failed(router);
  }
}

Status RouterList::Run(const char* method, const Resend& resend,
                       const Attempt& attempt) {
  std::vector<std::string> tried;
  std::vector<std::string> causes;
  Status last;
  for (const size_t router : Order()) {
    Reach reach = Reach::kNotSent;
    Status status = attempt(router, &reach);
    Record(router, status, reach);
    // An answer, even a refusal, is the router's word: not resent. So is a
    // failure that is not the router's absence (TLS refused, bad request).
    if (status.ok() || reach == Reach::kAnswered || !status.IsUnavailable()) {
      return status;
    }
    const std::string where =
        "router " + addresses_[router] + ": " + method + ": ";
    if (reach == Reach::kSent && !resend.idempotent) {
      return Status::Unavailable(
          where +
          "the connection was lost after the request was sent; it may have "
          "been applied: " +
          resend.check + " before retrying (" + Cause(status, where) + ")");
    }
    tried.push_back(addresses_[router]);
    causes.push_back(status.message());
    last = std::move(status);
  }
  if (causes.size() == 1) return last;
  std::string message = std::string("no router answered ") + method + " (tried";
  for (size_t i = 0; i < tried.size(); ++i) {
    message += (i == 0 ? " " : ", ") + tried[i];
  }
  message += ")";
  for (size_t i = 0; i < causes.size(); ++i) {
    message += (i == 0 ? ": " : "; ") + causes[i];
  }
  return Status::Unavailable(message);
}

}  // namespace bloomroute::thrift_internal

namespace bloomroute {
namespace {

std::string_view TrimSpaces(std::string_view text) {
  while (!text.empty() && text.front() == ' ') text.remove_prefix(1);
  while (!text.empty() && text.back() == ' ') text.remove_suffix(1);
  return text;
}

// One entry of a router list, checked; `key` is how duplicates are told.
Status ParseRouterEntry(std::string_view entry, std::string* key) {
  std::string host;
  int port = 0;
  const std::string quoted = "router '" + std::string(entry) + "'";
  BLOOMROUTE_RETURN_IF_ERROR(
      ParseListenAddress(entry, &host, &port).WithContext(quoted));
  if (port == 0) return Status::InvalidArgument(quoted + " has port 0");
  for (char& c : host) c = static_cast<char>(std::tolower(c));
  *key = host + ":" + std::to_string(port);
  return Status::OK();
}

}  // namespace

Status RouterListOptions::Validate() const {
  if (start < kRandomStart) {
    return Status::InvalidArgument("router start position must be >= 0");
  }
  if (min_backoff_ms < 1 || min_backoff_ms > max_backoff_ms ||
      max_backoff_ms > 60000) {
    return Status::InvalidArgument(
        "router backoff must satisfy 1 <= min_backoff_ms <= max_backoff_ms "
        "<= 60000");
  }
  return Status::OK();
}

StatusOr<std::vector<std::string>> ParseRouterList(std::string_view list) {
  if (TrimSpaces(list).empty()) {
    return Status::InvalidArgument("the router list is empty");
  }
  std::vector<std::string> out;
  std::set<std::string> seen;
  size_t begin = 0;
  while (begin <= list.size()) {
    const size_t end = std::min(list.find(',', begin), list.size());
    const std::string_view entry = TrimSpaces(list.substr(begin, end - begin));
    if (entry.empty()) {
      return Status::InvalidArgument("router list '" + std::string(list) +
                                     "' has an empty entry (entry " +
                                     std::to_string(out.size() + 1) + ")");
    }
    if (out.size() == kMaxRouters) {
      return Status::InvalidArgument("router list names more than " +
                                     std::to_string(kMaxRouters) + " routers");
    }
    std::string key;
    BLOOMROUTE_RETURN_IF_ERROR(ParseRouterEntry(entry, &key));
    if (!seen.insert(key).second) {
      return Status::InvalidArgument("router '" + std::string(entry) +
                                     "' is listed twice");
    }
    out.emplace_back(entry);
    begin = end + 1;
  }
  return out;
}

}  // namespace bloomroute
