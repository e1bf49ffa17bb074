// ServerMetrics: what a Thrift server (the frame loop, frame_loop.h) reports
// about its calls and connections, and the two logs of calls.
//
// Metrics (common/metrics.h, the process's registry), labelled with the
// service ("router" or "region"):
//   bloomroute_calls_total{service,method,outcome}    calls by how they ended
//   bloomroute_call_duration_seconds{service,method}  histogram, from the
//                                                     whole request to the
//                                                     reply being ready
//   bloomroute_thrift_connections{service}            open connections
//   bloomroute_thrift_queued_calls{service}           whole requests waiting
//                                                     for a worker
//   bloomroute_thrift_refusals_total{service,limit}   connections closed or
//                                                     calls refused by a bound
// An outcome is "ok", a Status code in snake case ("invalid_argument",
// "not_found", "unavailable", "io_error", "permission_denied", ...) as the
// handler's ServeCall saw it, or the frame loop's own: "throttled" (a quota),
// "decoded_bytes" (the decode budget), "malformed" (bytes that do not
// decode), "error" (anything else). Method names come from the request: a
// client may send any, so at most kMaxMethods distinct ones are labelled
// per server (a name is at most kMaxMethodBytes); the rest count as
// "other".
//
// Logs (common/log.h):
//   - the slow-call log: a call that took slow_call_ms or more is one WARN
//     line, component "slow-call": method, principal, table, duration,
//     servers asked and outcome, and a record in the SlowCallLog given (HBase's
//     getSlowLogResponses). 0 turns it off.
//   - the audit log: every call of `audited` methods (the router's admin
//     calls) is one INFO line, component "audit": who, what (method and
//     table), the result.
//
// Cost: counting a call takes about 190 ns (BM_RecordCall in
// benchmarks/thrift/server_metrics_benchmark.cc), a routed lookup's round
// trip about 89 us (BM_GetByIndex/routed in lookup_benchmark), which counts
// two calls (router and region server): 0.4 %. A scrape of 120 call series
// renders in about 0.6 ms (BM_Render).
//
// Thread-safety: all methods may be called from any thread.
#ifndef BLOOMROUTE_THRIFT_SERVER_INTERNAL_SERVER_METRICS_H_
#define BLOOMROUTE_THRIFT_SERVER_INTERNAL_SERVER_METRICS_H_

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <string>

#include "common/call_context.h"
#include "common/metrics.h"
#include "thrift/server/security.h"
#include "thrift/server/slow_call_log.h"

namespace bloomroute::thrift_internal {

class ServerMetrics {
 public:
  static constexpr size_t kMaxMethods = 256;
  static constexpr size_t kMaxMethodBytes = 64;

  // `service`: the label ("router", "region"). `audited` (may be empty):
  // whether a method's calls go to the audit log. `slow_calls` (may be
  // null): where the slow calls are kept too.
  ServerMetrics(std::string service, uint32_t slow_call_ms,
                std::function<bool(const std::string&)> audited,
                metrics::Registry* registry = &metrics::DefaultRegistry(),
                std::shared_ptr<SlowCallLog> slow_calls = nullptr);
  ServerMetrics(const ServerMetrics&) = delete;
  ServerMetrics& operator=(const ServerMetrics&) = delete;

  // One call, from its whole request to its reply. Construct it on the
  // worker before the call runs: it reads the method from the request and
  // makes its CallContext the thread's current one. Finish() records it.
  class Call {
   public:
    Call(ServerMetrics* metrics, const uint8_t* frame, size_t size);
    ~Call();
    Call(const Call&) = delete;
    Call& operator=(const Call&) = delete;

    const std::string& method() const { return method_; }
    CallContext& context() { return context_; }
    // The reply's size, for the slow-call log (0 until set: none sent).
    void SetReplyBytes(uint64_t bytes) { reply_bytes_ = bytes; }
    // Records the call as ended with `outcome` (an empty one: the handler's,
    // context().outcome), made by `caller` (null: not authenticated) from
    // `peer` (the peer's address, asked only for a log line of a call
    // without a caller: it may cost a system call).
    void Finish(const std::string& outcome, const Identity* caller,
                const std::function<std::string()>& peer);

   private:
    friend class ServerMetrics;  // RecordSlowCall reads a finished call
    ServerMetrics* const metrics_;
    const std::chrono::steady_clock::time_point start_;
    std::string method_;
    uint64_t reply_bytes_ = 0;
    CallContext context_;
    ScopedCallContext scope_;
  };

  // A connection closed or a call refused by the bound `limit` (e.g.
  // "frame_bytes", "request_timeout").
  void Refused(const char* limit);
  // The frame loop's current connections and queued calls.
  void SetLoad(size_t connections, size_t queued_calls);

  // "ok" for kOk, else the code's name in snake case.
  static std::string OutcomeName(Status::Code code);

 private:
  // A method's series, looked up once: a call then costs a mutex and two
  // small map lookups, not a registry lookup with its label vectors.
  struct MethodSeries {
    metrics::Histogram* latency = nullptr;
    std::map<std::string, metrics::Counter*> calls;  // by outcome
  };
  // Records a call of `method` (labelled "other" past kMaxMethods).
  void Record(const std::string& method, const std::string& outcome,
              double seconds);
  MethodSeries& SeriesOf(const std::string& label);  // needs mu_
  // Logs a call that took `millis` (slow_call_ms_ or more) and keeps it in
  // slow_calls_.
  void RecordSlowCall(const Call& call, const std::string& result,
                      const Identity* caller,
                      const std::function<std::string()>& peer,
                      uint64_t millis);

  const std::string service_;
  const uint32_t slow_call_ms_;
  const std::function<bool(const std::string&)> audited_;
  metrics::Registry* const registry_;
  const std::shared_ptr<SlowCallLog> slow_calls_;
  metrics::Gauge& connections_;
  metrics::Gauge& queued_calls_;
  std::mutex mu_;
  // Guarded by mu_: the methods labelled so far ("other" not counted in
  // kMaxMethods), with their series.
  std::map<std::string, MethodSeries> methods_;
};

}  // namespace bloomroute::thrift_internal

#endif  // BLOOMROUTE_THRIFT_SERVER_INTERNAL_SERVER_METRICS_H_
