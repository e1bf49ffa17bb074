// SlowCallLog: the last slow calls a server served, in memory, for HBase's
// online slow log (THBaseService.getSlowLogResponses /
// clearSlowLogResponses; HBase keeps such a ring per region server when
// hbase.regionserver.slowlog.buffer.enabled is set).
//
// The server (ServerOptions::slow_calls) adds every call that took
// ServerOptions::slow_call_ms or more -- the calls of the "slow-call" log
// line -- and the handler reads them back. Bounded twice: at most kMaxCalls
// records and kMaxBytes of their strings (each string cut at
// kMaxFieldBytes); the oldest go first.
//
// Usage:
//   auto log = std::make_shared<SlowCallLog>();
//   log->Add(call);
//   for (const SlowCall& c : log->Newest()) ...
//
// Thread-safety: all methods may be called from any thread.
#ifndef BLOOMROUTE_THRIFT_SERVER_SLOW_CALL_LOG_H_
#define BLOOMROUTE_THRIFT_SERVER_SLOW_CALL_LOG_H_

#include <cstddef>
#include <cstdint>
#include <deque>
#include <mutex>
#include <string>
#include <vector>

namespace bloomroute {

struct SlowCall {
  int64_t start_ms = 0;      // wall clock, ms since the Unix epoch
  int64_t duration_ms = 0;   // from the whole request to the reply
  uint64_t reply_bytes = 0;  // 0 when no reply was sent
  std::string method;        // the Thrift call
  std::string table;         // the table it named; empty if none
  std::string user;          // the caller's principal; empty without one
  std::string client;        // the caller's "host:port"
  std::string outcome;       // "ok" or the status code (server_metrics.h)
  uint32_t servers_asked = 0;
  uint64_t rows = 0;

  // What the record holds in bytes (its strings), as kMaxBytes counts.
  size_t Bytes() const;
};

class SlowCallLog {
 public:
  static constexpr size_t kMaxCalls = 256;
  // Records of long strings (5 x kMaxFieldBytes) fill it at about 200.
  static constexpr size_t kMaxBytes = size_t{256} << 10;
  static constexpr size_t kMaxFieldBytes = 256;

  SlowCallLog() = default;
  SlowCallLog(const SlowCallLog&) = delete;
  SlowCallLog& operator=(const SlowCallLog&) = delete;

  // Keeps `call` (its strings cut at kMaxFieldBytes), dropping the oldest
  // records past either bound.
  void Add(SlowCall call);
  // The records kept, newest first.
  std::vector<SlowCall> Newest() const;
  // Forgets every record.
  void Clear();

 private:
  mutable std::mutex mu_;
  std::deque<SlowCall> calls_;  // guarded by mu_; oldest first
  size_t bytes_ = 0;            // guarded by mu_; Bytes() of calls_
};

}  // namespace bloomroute

#endif  // BLOOMROUTE_THRIFT_SERVER_SLOW_CALL_LOG_H_
