// Servers, regions, region operations, the balancer and quotas on the wire
// (declared in thrift/conversion/admin_conversion.h).
#include <string>
#include <utility>

#include "thrift/conversion/admin_conversion.h"
#include "thrift/conversion/index_conversion.h"
#include "thrift/internal/checked_conversion.h"
#include "thrift/internal/enum_map.h"

namespace bloomroute::thrift_internal {
namespace {

namespace client = rpc::client;

using Serving = router::RegionServing;
constexpr EnumMap<Serving, 4> kServings(
    {{{Serving::kUnreachable, client::TRegionServing::UNREACHABLE},
      {Serving::kOpen, client::TRegionServing::OPEN},
      {Serving::kNotServed, client::TRegionServing::NOT_SERVED},
      {Serving::kStaged, client::TRegionServing::STAGED}}},
    "{field} is not a serving state ({value})");

using StepKind = router::BalanceReport::Step::Kind;
constexpr EnumMap<StepKind, 2> kStepKinds(
    {{{StepKind::kMove, client::TBalanceStepKind::MOVE},
      {StepKind::kSplit, client::TBalanceStepKind::SPLIT}}},
    "{field} is not a step kind ({value})");

Status TooMany(const char* field, size_t n, size_t limit) {
  return Status::Corruption(std::string(field) + " holds " + std::to_string(n) +
                            " entries, over the limit of " +
                            std::to_string(limit));
}

// A line of text a router reports (a failure, why a region is skipped):
// bounded, since the reply is untrusted.
constexpr size_t kMaxNoteBytes = 64 << 10;

Status CheckNoteBytes(const std::string& note, const std::string& f) {
  if (note.size() <= kMaxNoteBytes) return Status::OK();
  return Status::Corruption(f + " holds " + std::to_string(note.size()) +
                            " bytes, over the limit of " +
                            std::to_string(kMaxNoteBytes));
}

Status OneServerFromThrift(const client::TServerSummary& in,
                           const std::string& f, router::ServerSummary* out) {
  BLOOMROUTE_RETURN_IF_ERROR(
      Require(in.__isset.server, kBadResult, f + ".server"));
  BLOOMROUTE_RETURN_IF_ERROR(
      ServerFromThrift(in.server, f + ".server", &out->server));
  out->reachable = in.reachable;
  out->error = in.__isset.error ? in.error : std::string();
  out->replica_current = in.replicaCurrent;
  out->live.reset();
  if (in.__isset.live) out->live = in.live;
  BLOOMROUTE_RETURN_IF_ERROR(
      Narrow(in.regions, kBadResult, f + ".regions", &out->regions));
  BLOOMROUTE_RETURN_IF_ERROR(Narrow(in.regionsNotServed, kBadResult,
                                    f + ".regionsNotServed",
                                    &out->regions_not_served));
  BLOOMROUTE_RETURN_IF_ERROR(
      Narrow(in.rows, kBadResult, f + ".rows", &out->rows));
  return Narrow(in.bytes, kBadResult, f + ".bytes", &out->bytes);
}

Status OneRegionFromThrift(const client::TRegionSummary& in,
                           const std::string& f, router::RegionSummary* out) {
  BLOOMROUTE_RETURN_IF_ERROR(RequireAll(kBadResult, f,
                                        {{in.__isset.regionId, ".regionId"},
                                         {in.__isset.server, ".server"},
                                         {in.__isset.serving, ".serving"}}));
  BLOOMROUTE_RETURN_IF_ERROR(
      Narrow(in.regionId, kBadResult, f + ".regionId", &out->region_id));
  out->start_key = in.startKey;
  out->end_key = in.endKey;
  BLOOMROUTE_RETURN_IF_ERROR(
      ServerFromThrift(in.server, f + ".server", &out->server));
  BLOOMROUTE_ASSIGN_OR_RETURN(
      out->serving,
      kServings.FromThrift(in.serving, kBadResult, f + ".serving"));
  BLOOMROUTE_RETURN_IF_ERROR(
      Narrow(in.rows, kBadResult, f + ".rows", &out->rows));
  BLOOMROUTE_RETURN_IF_ERROR(
      Narrow(in.rowBytes, kBadResult, f + ".rowBytes", &out->row_bytes));
  BLOOMROUTE_RETURN_IF_ERROR(
      Narrow(in.indexBytes, kBadResult, f + ".indexBytes", &out->index_bytes));
  if (in.__isset.balancerSkipped) {
    BLOOMROUTE_RETURN_IF_ERROR(
        CheckNoteBytes(in.balancerSkipped, f + ".balancerSkipped"));
    out->balancer_skipped = in.balancerSkipped;
  }
  if (in.__isset.balancerRetrySeconds) {
    BLOOMROUTE_RETURN_IF_ERROR(Narrow(in.balancerRetrySeconds, kBadResult,
                                      f + ".balancerRetrySeconds",
                                      &out->balancer_retry_seconds));
  }
  return Status::OK();
}

}  // namespace

Status ServerSummariesToThrift(const std::vector<router::ServerSummary>& in,
                               std::vector<client::TServerSummary>* out) {
  out->assign(in.size(), client::TServerSummary());
  for (size_t i = 0; i < in.size(); ++i) {
    const router::ServerSummary& s = in[i];
    client::TServerSummary& t = (*out)[i];
    client::TServerRef server;
    BLOOMROUTE_RETURN_IF_ERROR(ServerToThrift(s.server, &server));
    int32_t regions = 0, not_served = 0;
    int64_t rows = 0, bytes = 0;
    BLOOMROUTE_RETURN_IF_ERROR(Widen(s.regions, "regions", &regions));
    BLOOMROUTE_RETURN_IF_ERROR(
        Widen(s.regions_not_served, "regions_not_served", &not_served));
    BLOOMROUTE_RETURN_IF_ERROR(Widen(s.rows, "rows", &rows));
    BLOOMROUTE_RETURN_IF_ERROR(Widen(s.bytes, "bytes", &bytes));
    t.__set_server(std::move(server));
    t.__set_reachable(s.reachable);
    if (!s.reachable && !s.error.empty()) t.__set_error(s.error);
    t.__set_regions(regions);
    t.__set_regionsNotServed(not_served);
    t.__set_rows(rows);
    t.__set_bytes(bytes);
    t.__set_replicaCurrent(s.replica_current);
    if (s.live.has_value()) t.__set_live(*s.live);
  }
  return Status::OK();
}

Status RegionSummariesToThrift(const std::vector<router::RegionSummary>& in,
                               std::vector<client::TRegionSummary>* out) {
  out->assign(in.size(), client::TRegionSummary());
  for (size_t i = 0; i < in.size(); ++i) {
    const router::RegionSummary& r = in[i];
    client::TRegionSummary& t = (*out)[i];
    client::TServerRef server;
    BLOOMROUTE_RETURN_IF_ERROR(ServerToThrift(r.server, &server));
    int64_t id = 0, rows = 0, row_bytes = 0, index_bytes = 0;
    BLOOMROUTE_RETURN_IF_ERROR(Widen(r.region_id, "region_id", &id));
    BLOOMROUTE_RETURN_IF_ERROR(Widen(r.rows, "rows", &rows));
    BLOOMROUTE_RETURN_IF_ERROR(Widen(r.row_bytes, "row_bytes", &row_bytes));
    BLOOMROUTE_RETURN_IF_ERROR(
        Widen(r.index_bytes, "index_bytes", &index_bytes));
    t.__set_regionId(id);
    t.__set_startKey(r.start_key);
    t.__set_endKey(r.end_key);
    t.__set_server(std::move(server));
    t.__set_serving(kServings.ToThrift(r.serving));
    t.__set_rows(rows);
    t.__set_rowBytes(row_bytes);
    t.__set_indexBytes(index_bytes);
    if (!r.balancer_skipped.empty()) {
      int64_t retry = 0;
      BLOOMROUTE_RETURN_IF_ERROR(
          Widen(r.balancer_retry_seconds, "balancer_retry_seconds", &retry));
      t.__set_balancerSkipped(r.balancer_skipped);
      t.__set_balancerRetrySeconds(retry);
    }
  }
  return Status::OK();
}

Status ServerSummariesFromThrift(const std::vector<client::TServerSummary>& in,
                                 std::vector<router::ServerSummary>* out) {
  if (in.size() > router::RouterOptions::kMaxServers) {
    return TooMany("result", in.size(), router::RouterOptions::kMaxServers);
  }
  return thrift_internal::EachFromThrift(in, "result", OneServerFromThrift,
                                         out);
}

Status RegionSummariesFromThrift(const std::vector<client::TRegionSummary>& in,
                                 std::vector<router::RegionSummary>* out) {
  if (in.size() > router::TableSpec::kMaxRegions) {
    return TooMany("result", in.size(), router::TableSpec::kMaxRegions);
  }
  return thrift_internal::EachFromThrift(in, "result", OneRegionFromThrift,
                                         out);
}

// ---- Region operations, the balancer, decommissions ----

Status RegionOpResultToThrift(const router::RegionOpResult& in,
                              client::TRegionOpResult* out) {
  std::vector<client::TRegionLocation> regions;
  BLOOMROUTE_RETURN_IF_ERROR(
      thrift_internal::EachToThrift(in.regions, LocationToThrift, &regions));
  int64_t rows = 0, bytes = 0, switch_micros = 0, total_micros = 0,
          switched_micros = 0;
  int32_t rounds = 0;
  BLOOMROUTE_RETURN_IF_ERROR(Widen(in.rows_copied, "rows_copied", &rows));
  BLOOMROUTE_RETURN_IF_ERROR(Widen(in.bytes_copied, "bytes_copied", &bytes));
  BLOOMROUTE_RETURN_IF_ERROR(
      Widen(in.catch_up_rounds, "catch_up_rounds", &rounds));
  BLOOMROUTE_RETURN_IF_ERROR(
      Widen(in.switch_micros, "switch_micros", &switch_micros));
  BLOOMROUTE_RETURN_IF_ERROR(
      Widen(in.total_micros, "total_micros", &total_micros));
  BLOOMROUTE_RETURN_IF_ERROR(
      Widen(in.switched_micros, "switched_micros", &switched_micros));
  out->__set_regions(std::move(regions));
  out->__set_rowsCopied(rows);
  out->__set_bytesCopied(bytes);
  out->__set_catchUpRounds(rounds);
  out->__set_switchMicros(switch_micros);
  out->__set_totalMicros(total_micros);
  out->__set_switchedMicros(switched_micros);
  return Status::OK();
}

Status BalanceStepsToThrift(const std::vector<router::BalanceReport::Step>& in,
                            std::vector<client::TBalanceStep>* out) {
  out->assign(in.size(), client::TBalanceStep());
  for (size_t i = 0; i < in.size(); ++i) {
    const router::BalanceReport::Step& s = in[i];
    client::TBalanceStep& t = (*out)[i];
    int64_t region = 0;
    BLOOMROUTE_RETURN_IF_ERROR(Widen(s.region_id, "region_id", &region));
    client::TServerRef source, target;
    BLOOMROUTE_RETURN_IF_ERROR(ServerToThrift(s.from, &source));
    BLOOMROUTE_RETURN_IF_ERROR(ServerToThrift(s.to, &target));
    client::TRegionOpResult result;
    BLOOMROUTE_RETURN_IF_ERROR(RegionOpResultToThrift(s.result, &result));
    t.__set_kind(kStepKinds.ToThrift(s.kind));
    t.__set_regionId(region);
    t.__set_source(std::move(source));
    t.__set_target(std::move(target));
    t.__set_result(std::move(result));
  }
  return Status::OK();
}

Status BalanceReportToThrift(const router::BalanceReport& in,
                             client::TBalanceReport* out) {
  std::vector<client::TBalanceStep> steps;
  BLOOMROUTE_RETURN_IF_ERROR(BalanceStepsToThrift(in.steps, &steps));
  out->__set_steps(std::move(steps));
  out->__set_balanced(in.balanced);
  if (!in.stopped.empty()) out->__set_stopped(in.stopped);
  out->__set_failed(in.failed);
  if (!in.failures.empty()) out->__set_failures(in.failures);
  return Status::OK();
}

Status RegionOpResultFromThrift(const client::TRegionOpResult& in,
                                const std::string& f,
                                router::RegionOpResult* out) {
  if (in.regions.empty() || in.regions.size() > kMaxOpRegions) {
    return Status::Corruption(f + ".regions holds " +
                              std::to_string(in.regions.size()) +
                              " regions; an operation makes 1 or 2");
  }
  out->regions.assign(in.regions.size(), router::RegionLocation());
  for (size_t i = 0; i < in.regions.size(); ++i) {
    BLOOMROUTE_RETURN_IF_ERROR(LocationFromThrift(
        in.regions[i], At(f + ".regions", i), &out->regions[i]));
  }
  BLOOMROUTE_RETURN_IF_ERROR(
      Narrow(in.rowsCopied, kBadResult, f + ".rowsCopied", &out->rows_copied));
  BLOOMROUTE_RETURN_IF_ERROR(Narrow(in.bytesCopied, kBadResult,
                                    f + ".bytesCopied", &out->bytes_copied));
  BLOOMROUTE_RETURN_IF_ERROR(Narrow(in.catchUpRounds, kBadResult,
                                    f + ".catchUpRounds",
                                    &out->catch_up_rounds));
  BLOOMROUTE_RETURN_IF_ERROR(Narrow(in.switchMicros, kBadResult,
                                    f + ".switchMicros", &out->switch_micros));
  BLOOMROUTE_RETURN_IF_ERROR(Narrow(in.switchedMicros, kBadResult,
                                    f + ".switchedMicros",
                                    &out->switched_micros));
  return Narrow(in.totalMicros, kBadResult, f + ".totalMicros",
                &out->total_micros);
}

Status BalanceStepsFromThrift(const std::vector<client::TBalanceStep>& in,
                              const std::string& f,
                              std::vector<router::BalanceReport::Step>* out) {
  if (in.size() > kMaxBalanceSteps) {
    return TooMany(f.c_str(), in.size(), kMaxBalanceSteps);
  }
  out->assign(in.size(), router::BalanceReport::Step());
  for (size_t i = 0; i < in.size(); ++i) {
    const client::TBalanceStep& t = in[i];
    router::BalanceReport::Step& s = (*out)[i];
    const std::string g = At(f, i);
    BLOOMROUTE_RETURN_IF_ERROR(RequireAll(kBadResult, g,
                                          {{t.__isset.kind, ".kind"},
                                           {t.__isset.regionId, ".regionId"},
                                           {t.__isset.source, ".source"},
                                           {t.__isset.target, ".target"},
                                           {t.__isset.result, ".result"}}));
    BLOOMROUTE_ASSIGN_OR_RETURN(
        s.kind, kStepKinds.FromThrift(t.kind, kBadResult, g + ".kind"));
    BLOOMROUTE_RETURN_IF_ERROR(
        Narrow(t.regionId, kBadResult, g + ".regionId", &s.region_id));
    BLOOMROUTE_RETURN_IF_ERROR(
        ServerFromThrift(t.source, g + ".source", &s.from));
    BLOOMROUTE_RETURN_IF_ERROR(
        ServerFromThrift(t.target, g + ".target", &s.to));
    BLOOMROUTE_RETURN_IF_ERROR(
        RegionOpResultFromThrift(t.result, g + ".result", &s.result));
  }
  return Status::OK();
}

Status BalanceReportFromThrift(const client::TBalanceReport& in,
                               router::BalanceReport* out) {
  BLOOMROUTE_RETURN_IF_ERROR(
      BalanceStepsFromThrift(in.steps, "result.steps", &out->steps));
  out->balanced = in.balanced;
  out->stopped = in.__isset.stopped ? in.stopped : std::string();
  out->failed = in.failed;
  if (in.__isset.failures) {
    if (in.failures.size() > kMaxBalanceSteps) {
      return TooMany("result.failures", in.failures.size(), kMaxBalanceSteps);
    }
    for (size_t i = 0; i < in.failures.size(); ++i) {
      BLOOMROUTE_RETURN_IF_ERROR(
          CheckNoteBytes(in.failures[i], At("result.failures", i)));
    }
    out->failures = in.failures;
  }
  return Status::OK();
}

namespace {

void LimitToThrift(const router::QuotaLimit& in, client::TQuotaLimit* out) {
  out->amount = static_cast<int64_t>(in.amount);
  out->seconds = static_cast<int32_t>(in.seconds);
}

Status LimitFromThrift(const client::TQuotaLimit& in, const char* what,
                       router::QuotaLimit* out) {
  if (in.amount < 0) {
    return Status::InvalidArgument(std::string("quota.") + what +
                                   ".amount is negative");
  }
  if (in.seconds < 1) {
    return Status::InvalidArgument(std::string("quota.") + what +
                                   ".seconds is below 1");
  }
  out->amount = static_cast<uint64_t>(in.amount);
  out->seconds = static_cast<uint32_t>(in.seconds);
  return Status::OK();
}

}  // namespace

void QuotaToThrift(const router::Quota& in, client::TQuota* out) {
  out->user = in.user;
  out->table = in.table;
  if (!in.requests.none()) {
    LimitToThrift(in.requests, &out->requests);
    out->__isset.requests = true;
  }
  if (!in.bytes.none()) {
    LimitToThrift(in.bytes, &out->bytes);
    out->__isset.bytes = true;
  }
}

Status QuotaFromThrift(const client::TQuota& in, router::Quota* out) {
  out->user = in.user;
  out->table = in.table;
  out->requests = router::QuotaLimit{};
  out->bytes = router::QuotaLimit{};
  if (in.__isset.requests) {
    BLOOMROUTE_RETURN_IF_ERROR(
        LimitFromThrift(in.requests, "requests", &out->requests));
  }
  if (in.__isset.bytes) {
    BLOOMROUTE_RETURN_IF_ERROR(LimitFromThrift(in.bytes, "bytes", &out->bytes));
  }
  return router::ValidateQuota(*out);
}

}  // namespace bloomroute::thrift_internal
