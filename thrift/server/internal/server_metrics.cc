#include "thrift/server/internal/server_metrics.h"

#include <cctype>
#include <utility>

#include "common/log.h"
#include "thrift/server/access_control.h"

namespace bloomroute::thrift_internal {
namespace {

constexpr char kOther[] = "other";

// The method named by a request frame; "" when it does not decode.
std::string MethodOf(const uint8_t* frame, size_t size) {
  try {
    CallHeader header;
    auto in = RequestFrameProtocol(frame, size, ServerMetrics::kMaxMethodBytes);
    if (ReadCallHeader(in.get(), &header)) return header.method;
  } catch (const std::exception&) {
  }
  return "";
}

std::string Who(const Identity* caller,
                const std::function<std::string()>& peer) {
  if (caller != nullptr && caller->role != Role::kNone) return caller->user;
  return "anonymous@" + peer();
}

std::string TableNote(const std::string& table) {
  return table.empty() ? "" : " table " + table;
}

}  // namespace

ServerMetrics::ServerMetrics(std::string service, uint32_t slow_call_ms,
                             std::function<bool(const std::string&)> audited,
                             metrics::Registry* registry,
                             std::shared_ptr<SlowCallLog> slow_calls)
    : service_(std::move(service)),
      slow_call_ms_(slow_call_ms),
      audited_(std::move(audited)),
      registry_(registry),
      slow_calls_(std::move(slow_calls)),
      connections_(registry->GetGauge("bloomroute_thrift_connections",
                                      "Open Thrift connections.",
                                      {{"service", service_}})),
      queued_calls_(registry->GetGauge(
          "bloomroute_thrift_queued_calls",
          "Whole requests waiting for a worker or for reply memory.",
          {{"service", service_}})) {}

std::string ServerMetrics::OutcomeName(Status::Code code) {
  if (code == Status::Code::kOk) return "ok";
  std::string out;
  const std::string name = StatusCodeName(code);
  for (size_t i = 0; i < name.size(); ++i) {
    const char c = name[i];
    // A break before a word's capital: after a lower-case letter
    // ("InvalidArgument"), or ending an acronym ("IOError" -> "io_error").
    const auto upper = [&](size_t j) {
      return std::isupper(static_cast<unsigned char>(name[j])) != 0;
    };
    const bool word = i > 0 && upper(i) &&
                      (!upper(i - 1) || (i + 1 < name.size() && !upper(i + 1)));
    if (word) out += '_';
    out += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  }
  return out;
}

ServerMetrics::MethodSeries& ServerMetrics::SeriesOf(const std::string& label) {
  MethodSeries& series = methods_[label];
  if (series.latency == nullptr) {
    series.latency = &registry_->GetHistogram(
        "bloomroute_call_duration_seconds",
        "Time from a call's whole request to its reply being ready.",
        {{"service", service_}, {"method", label}}, metrics::LatencyBuckets());
  }
  return series;
}

void ServerMetrics::Record(const std::string& method,
                           const std::string& outcome, double seconds) {
  std::lock_guard<std::mutex> lock(mu_);
  const bool known = methods_.count(method) != 0;
  // "other" is the one entry past kMaxMethods.
  const bool room = methods_.size() < kMaxMethods + (methods_.count(kOther));
  const std::string& label =
      known || (!method.empty() && room) ? method : std::string(kOther);
  MethodSeries& series = SeriesOf(label);
  metrics::Counter*& calls = series.calls[outcome];
  if (calls == nullptr) {
    calls = &registry_->GetCounter(
        "bloomroute_calls_total", "Calls served, by how they ended.",
        {{"service", service_}, {"method", label}, {"outcome", outcome}});
  }
  calls->Increment();
  series.latency->Observe(seconds);
}

void ServerMetrics::RecordSlowCall(const Call& call, const std::string& result,
                                   const Identity* caller,
                                   const std::function<std::string()>& peer,
                                   uint64_t millis) {
  const CallContext& context = call.context_;
  // Asked once: it may cost a system call.
  const std::string client = peer();
  const std::function<std::string()> known = [&client] { return client; };
  Log(LogLevel::kWarn, "slow-call",
      call.method_ + " by " + Who(caller, known) + TableNote(context.table) +
          " took " + std::to_string(millis) + " ms, asked " +
          std::to_string(context.servers_asked) + " servers, returned " +
          std::to_string(context.rows) + " rows: " + result);
  if (slow_calls_ == nullptr) return;
  SlowCall slow;
  const auto now = std::chrono::duration_cast<std::chrono::milliseconds>(
      std::chrono::system_clock::now().time_since_epoch());
  slow.start_ms =
      static_cast<int64_t>(now.count()) - static_cast<int64_t>(millis);
  slow.duration_ms = static_cast<int64_t>(millis);
  slow.reply_bytes = call.reply_bytes_;
  slow.method = call.method_;
  slow.table = context.table;
  if (caller != nullptr && caller->role != Role::kNone)
    slow.user = caller->user;
  slow.client = client;
  slow.outcome = result;
  slow.servers_asked = context.servers_asked;
  slow.rows = context.rows;
  slow_calls_->Add(std::move(slow));
}

void ServerMetrics::Refused(const char* limit) {
  registry_
      ->GetCounter("bloomroute_thrift_refusals_total",
                   "Connections closed or calls refused by a bound, by its "
                   "name.",
                   {{"service", service_}, {"limit", limit}})
      .Increment();
}

void ServerMetrics::SetLoad(size_t connections, size_t queued_calls) {
  connections_.Set(static_cast<double>(connections));
  queued_calls_.Set(static_cast<double>(queued_calls));
}

ServerMetrics::Call::Call(ServerMetrics* metrics, const uint8_t* frame,
                          size_t size)
    : metrics_(metrics),
      start_(std::chrono::steady_clock::now()),
      method_(MethodOf(frame, size)),
      scope_(&context_) {}

ServerMetrics::Call::~Call() = default;

void ServerMetrics::Call::Finish(const std::string& outcome,
                                 const Identity* caller,
                                 const std::function<std::string()>& peer) {
  const double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start_)
          .count();
  const std::string result =
      outcome.empty() ? OutcomeName(context_.outcome) : outcome;
  metrics_->Record(method_, result, seconds);
  const uint64_t millis = static_cast<uint64_t>(seconds * 1000);
  if (metrics_->slow_call_ms_ != 0 && millis >= metrics_->slow_call_ms_) {
    metrics_->RecordSlowCall(*this, result, caller, peer, millis);
  }
  if (metrics_->audited_ && metrics_->audited_(method_)) {
    Log(LogLevel::kInfo, "audit",
        Who(caller, peer) + " " + method_ + TableNote(context_.table) + ": " +
            result);
  }
}

}  // namespace bloomroute::thrift_internal
