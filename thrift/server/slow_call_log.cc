#include "thrift/server/slow_call_log.h"

#include <utility>

namespace bloomroute {
namespace {

void Cut(std::string* s) {
  if (s->size() > SlowCallLog::kMaxFieldBytes) {
    s->resize(SlowCallLog::kMaxFieldBytes);
  }
}

}  // namespace

size_t SlowCall::Bytes() const {
  return method.size() + table.size() + user.size() + client.size() +
         outcome.size();
}

void SlowCallLog::Add(SlowCall call) {
  for (std::string* s :
       {&call.method, &call.table, &call.user, &call.client, &call.outcome}) {
    Cut(s);
  }
  std::lock_guard<std::mutex> lock(mu_);
  bytes_ += call.Bytes();
  calls_.push_back(std::move(call));
  while (calls_.size() > kMaxCalls || bytes_ > kMaxBytes) {
    bytes_ -= calls_.front().Bytes();
    calls_.pop_front();
  }
}

std::vector<SlowCall> SlowCallLog::Newest() const {
  std::lock_guard<std::mutex> lock(mu_);
  return std::vector<SlowCall>(calls_.rbegin(), calls_.rend());
}

void SlowCallLog::Clear() {
  std::lock_guard<std::mutex> lock(mu_);
  calls_.clear();
  bytes_ = 0;
}

}  // namespace bloomroute
