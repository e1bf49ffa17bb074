// Conversions of router_service.thrift (bloomroute's admin calls: the
// global index and cluster status, index scrutiny, servers and regions,
// region operations, the balancer, quotas) both ways: the RouterService
// handler's results to Thrift (IOError when a router value does not fit its
// wire type) and RouterClient's checked results from Thrift (a field the
// router always sets that is missing, a negative count, an unknown enum value
// or more entries than the limit is Corruption naming the field).
// admin_conversion.cc holds the index stats, cluster status and scrutiny;
// admin_conversion_regions.cc servers, regions, region operations, the
// balancer and quotas.
//
// Thread-safety: pure functions.
#ifndef BLOOMROUTE_THRIFT_CONVERSION_ADMIN_CONVERSION_H_
#define BLOOMROUTE_THRIFT_CONVERSION_ADMIN_CONVERSION_H_

#include <string>
#include <vector>

#include "common/status.h"
#include "router/router.h"
#include "thrift/gen-cpp/router_service_types.h"

namespace bloomroute {

// ---- Results ----

// `fill` is the newest stage's (the one taking inserts); 0 with no stage.
Status ToThrift(const std::vector<router::ServerIndexStats>& in,
                std::vector<rpc::client::TServerIndexStats>* out);
// `error` is set only for an unreachable server with a reason.
Status ToThrift(const router::ClusterStatus& in,
                rpc::client::TClusterStatus* out);
// A server with an error carries only server, regions and error.
Status ToThrift(const router::VerifyReport& in,
                rpc::client::TVerifyReport* out);

}  // namespace bloomroute

namespace bloomroute::thrift_internal {

// ---- RouterClient's results ----

Status IndexStatsFromThrift(
    const std::vector<rpc::client::TServerIndexStats>& in,
    std::vector<router::ServerIndexStats>* out);
Status ClusterStatusFromThrift(const rpc::client::TClusterStatus& in,
                               router::ClusterStatus* out);
// A server entry with `error` set carries nothing else. ok() is recomputed
// from the counts (the wire's `ok` is the same rule applied by the router).
Status VerifyReportFromThrift(const rpc::client::TVerifyReport& in,
                              router::VerifyReport* out);

// IOError when a count does not fit its wire type.
Status ServerSummariesToThrift(const std::vector<router::ServerSummary>& in,
                               std::vector<rpc::client::TServerSummary>* out);
Status RegionSummariesToThrift(const std::vector<router::RegionSummary>& in,
                               std::vector<rpc::client::TRegionSummary>* out);
// At most router::kMaxServers servers and TableSpec::kMaxRegions regions.
Status ServerSummariesFromThrift(
    const std::vector<rpc::client::TServerSummary>& in,
    std::vector<router::ServerSummary>* out);
Status RegionSummariesFromThrift(
    const std::vector<rpc::client::TRegionSummary>& in,
    std::vector<router::RegionSummary>* out);

// Region operations (moveRegion, splitRegion, mergeRegions), the balancer
// (balance) and a decommission (decommissionServer). IOError when a figure
// does not fit its wire type.
Status RegionOpResultToThrift(const router::RegionOpResult& in,
                              rpc::client::TRegionOpResult* out);
Status BalanceStepsToThrift(const std::vector<router::BalanceReport::Step>& in,
                            std::vector<rpc::client::TBalanceStep>* out);
Status BalanceReportToThrift(const router::BalanceReport& in,
                             rpc::client::TBalanceReport* out);
// At most kMaxOpRegions new regions per operation, and kMaxBalanceSteps
// steps (a balancer run makes at most RouterOptions::kMaxBalancerOperations;
// a decommission one per region of the server).
inline constexpr size_t kMaxOpRegions = 2;
inline constexpr size_t kMaxBalanceSteps = 1 << 20;
Status RegionOpResultFromThrift(const rpc::client::TRegionOpResult& in,
                                const std::string& f,
                                router::RegionOpResult* out);
Status BalanceStepsFromThrift(const std::vector<rpc::client::TBalanceStep>& in,
                              const std::string& f,
                              std::vector<router::BalanceReport::Step>* out);
Status BalanceReportFromThrift(const rpc::client::TBalanceReport& in,
                               router::BalanceReport* out);

// Quotas (setQuota, listQuotas). An unset limit is none. FromThrift:
// InvalidArgument naming the field for a negative amount or a period out of
// range, and what router::ValidateQuota refuses (the client reports it as
// Corruption: the router sent it).
void QuotaToThrift(const router::Quota& in, rpc::client::TQuota* out);
Status QuotaFromThrift(const rpc::client::TQuota& in, router::Quota* out);

}  // namespace bloomroute::thrift_internal

#endif  // BLOOMROUTE_THRIFT_CONVERSION_ADMIN_CONVERSION_H_
