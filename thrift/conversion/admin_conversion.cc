#include "thrift/conversion/admin_conversion.h"

#include <string>
#include <tuple>
#include <utility>

#include "thrift/conversion/index_conversion.h"
#include "thrift/internal/checked_conversion.h"
#include "thrift/internal/enum_map.h"

namespace bloomroute {
namespace {

namespace client = rpc::client;
using thrift_internal::At;
using thrift_internal::Narrow;
using thrift_internal::Widen;

using Agreement = router::ReplicaAgreement;
constexpr thrift_internal::EnumMap<Agreement, 3> kAgreements(
    {{{Agreement::kNotCurrent, client::TReplicaAgreement::NOT_CURRENT},
      {Agreement::kMatches, client::TReplicaAgreement::MATCHES},
      {Agreement::kDiffers, client::TReplicaAgreement::DIFFERS}}},
    "{field} has no known value ({value})");

// The replica's position in the server's op sequence.
Status ReplicaToThrift(const router::ReplicaStats& in, uint64_t ops_behind,
                       client::TServerIndexStats* out) {
  int64_t epoch = 0, seq = 0, behind = 0;
  BLOOMROUTE_RETURN_IF_ERROR(Widen(in.epoch, "epoch", &epoch));
  BLOOMROUTE_RETURN_IF_ERROR(Widen(in.seq, "seq", &seq));
  BLOOMROUTE_RETURN_IF_ERROR(Widen(ops_behind, "ops_behind", &behind));
  out->__set_loaded(in.loaded);
  out->__set_current(in.current);
  out->__set_epoch(epoch);
  out->__set_seq(seq);
  out->__set_opsBehind(behind);
  return Status::OK();
}

// The cluster's filter config, repeated in every server's entry.
Status ClusterFilterToThrift(const router::ServerIndexStats& in,
                             client::TServerIndexStats* out) {
  if (!(in.target_false_routes > 0)) return Status::OK();  // none known
  const SscbfConfig& c = in.cluster_config;
  int64_t capacity = 0;
  int32_t base_bits = 0;
  BLOOMROUTE_RETURN_IF_ERROR(
      Widen(c.initial_capacity, "initial_capacity", &capacity));
  BLOOMROUTE_RETURN_IF_ERROR(Widen(c.base_bits, "base_bits", &base_bits));
  client::TClusterFilterConfig wire;
  wire.__set_targetFalseRoutes(in.target_false_routes);
  wire.__set_targetFpr(c.target_fpr);
  wire.__set_tighteningRatio(c.tightening_ratio);
  wire.__set_growthFactor(c.growth_factor);
  wire.__set_initialCapacity(capacity);
  wire.__set_baseBits(base_bits);
  wire.__set_fullFill(c.full_fill);
  out->__set_clusterFilter(std::move(wire));
  out->__set_hasClusterConfig(in.has_cluster_config);
  return Status::OK();
}

// What the replica's filter holds.
Status FilterToThrift(const SscbfStats& in, client::TServerIndexStats* out) {
  int32_t stages = 0;
  int64_t elements = 0, memory = 0;
  BLOOMROUTE_RETURN_IF_ERROR(Widen(in.stages.size(), "stages", &stages));
  BLOOMROUTE_RETURN_IF_ERROR(Widen(in.elements, "elements", &elements));
  BLOOMROUTE_RETURN_IF_ERROR(Widen(in.memory_bytes, "memory_bytes", &memory));
  out->__set_stages(stages);
  out->__set_elements(elements);
  out->__set_fill(in.stages.empty() ? 0.0 : in.stages.back().fill);
  out->__set_estimatedFpr(in.estimated_fpr);
  out->__set_compoundedBound(in.compounded_bound);
  out->__set_memoryBytes(memory);
  out->__isset.stageStats = true;
  return thrift_internal::StagesToThrift(in.stages, &out->stageStats);
}

}  // namespace

// ---- Results ----

Status ToThrift(const std::vector<router::ServerIndexStats>& in,
                std::vector<client::TServerIndexStats>* out) {
  out->assign(in.size(), client::TServerIndexStats());
  for (size_t i = 0; i < in.size(); ++i) {
    client::TServerIndexStats& stats = (*out)[i];
    stats.__isset.server = true;
    BLOOMROUTE_RETURN_IF_ERROR(ServerToThrift(in[i].server, &stats.server));
    BLOOMROUTE_RETURN_IF_ERROR(
        ReplicaToThrift(in[i].replica, in[i].ops_behind, &stats));
    BLOOMROUTE_RETURN_IF_ERROR(FilterToThrift(in[i].replica.filter, &stats));
    BLOOMROUTE_RETURN_IF_ERROR(ClusterFilterToThrift(in[i], &stats));
  }
  return Status::OK();
}

Status ToThrift(const router::ClusterStatus& in, client::TClusterStatus* out) {
  int32_t tables = 0, regions = 0;
  BLOOMROUTE_RETURN_IF_ERROR(Widen(in.tables, "tables", &tables));
  BLOOMROUTE_RETURN_IF_ERROR(Widen(in.regions, "regions", &regions));
  out->__set_tables(tables);
  out->__set_regions(regions);
  std::vector<client::TServerStatus> servers(in.servers.size());
  for (size_t i = 0; i < servers.size(); ++i) {
    const router::ServerStatus& s = in.servers[i];
    client::TServerRef server;
    int32_t server_regions = 0;
    BLOOMROUTE_RETURN_IF_ERROR(ServerToThrift(s.server, &server));
    BLOOMROUTE_RETURN_IF_ERROR(Widen(s.regions, "regions", &server_regions));
    servers[i].__set_server(std::move(server));
    servers[i].__set_reachable(s.reachable);
    if (!s.reachable && !s.error.empty()) servers[i].__set_error(s.error);
    servers[i].__set_regions(server_regions);
    servers[i].__set_replicaCurrent(s.replica_current);
    int32_t not_served = 0;
    BLOOMROUTE_RETURN_IF_ERROR(
        Widen(s.regions_not_served, "regions_not_served", &not_served));
    servers[i].__set_regionsNotServed(not_served);
    if (!s.reopen_error.empty()) servers[i].__set_reopenError(s.reopen_error);
  }
  out->__set_servers(std::move(servers));
  return Status::OK();
}

namespace {

Status ServerVerifyToThrift(const router::ServerVerifyReport& in,
                            client::TServerVerifyReport* out) {
  client::TServerRef server;
  int32_t regions = 0;
  BLOOMROUTE_RETURN_IF_ERROR(ServerToThrift(in.server, &server));
  BLOOMROUTE_RETURN_IF_ERROR(Widen(in.regions, "regions", &regions));
  out->__set_server(std::move(server));
  out->__set_regions(regions);
  out->__set_ok(in.ok());
  if (!in.error.empty()) {
    out->__set_error(in.error);
    return Status::OK();
  }
  const IndexReport& r = in.index;
  const std::pair<uint64_t, int64_t client::TServerVerifyReport::*> counts[] = {
      {r.rows, &client::TServerVerifyReport::rows},
      {r.index_entries_valid, &client::TServerVerifyReport::indexEntriesValid},
      {r.index_entries_missing,
       &client::TServerVerifyReport::indexEntriesMissing},
      {r.index_entries_extra, &client::TServerVerifyReport::indexEntriesExtra},
      {r.values, &client::TServerVerifyReport::values},
      {r.value_counts_wrong, &client::TServerVerifyReport::valueCountsWrong},
      {r.values_not_in_filter,
       &client::TServerVerifyReport::valuesNotInFilter}};
  for (const auto& [value, field] : counts) {
    BLOOMROUTE_RETURN_IF_ERROR(Widen(value, "verify count", &(out->*field)));
  }
  out->__set_filterMatchesRebuild(r.filter_matches_rebuild);
  out->__set_problems(r.problems);
  out->__set_replica(static_cast<client::TReplicaAgreement::type>(
      kAgreements.ToThrift(in.replica.agreement)));
  out->__set_replicaDetail(in.replica.detail);
  return Status::OK();
}

}  // namespace

Status ToThrift(const router::VerifyReport& in, client::TVerifyReport* out) {
  int64_t table_id = 0;
  BLOOMROUTE_RETURN_IF_ERROR(Widen(in.table.table_id, "table_id", &table_id));
  out->__set_table(in.table.name);
  out->__set_tableId(table_id);
  std::vector<client::TServerVerifyReport> servers;
  BLOOMROUTE_RETURN_IF_ERROR(thrift_internal::EachToThrift(
      in.servers, ServerVerifyToThrift, &servers));
  out->__set_servers(std::move(servers));
  out->__set_ok(in.ok());
  return Status::OK();
}

}  // namespace bloomroute

namespace bloomroute::thrift_internal {

namespace client = rpc::client;

namespace {

// A router before the field sends none: the stats keep their defaults.
Status ClusterFilterFromThrift(const client::TClusterFilterConfig& in,
                               const std::string& f,
                               router::ServerIndexStats* out) {
  SscbfConfig c;
  c.target_fpr = in.targetFpr;
  c.tightening_ratio = in.tighteningRatio;
  c.growth_factor = in.growthFactor;
  c.full_fill = in.fullFill;
  BLOOMROUTE_RETURN_IF_ERROR(Narrow(in.initialCapacity, kBadResult,
                                    f + ".initialCapacity",
                                    &c.initial_capacity));
  BLOOMROUTE_RETURN_IF_ERROR(
      Narrow(in.baseBits, kBadResult, f + ".baseBits", &c.base_bits));
  const Status valid = c.Validate();
  if (!valid.ok()) return Status::Corruption(f + ": " + valid.message());
  if (!(in.targetFalseRoutes > 0)) {
    return Status::Corruption(f + ".targetFalseRoutes is not positive");
  }
  out->cluster_config = c;
  out->target_false_routes = in.targetFalseRoutes;
  return Status::OK();
}

Status ServerStatsFromThrift(const client::TServerIndexStats& in,
                             const std::string& f,
                             router::ServerIndexStats* out) {
  BLOOMROUTE_RETURN_IF_ERROR(
      Require(in.__isset.server, kBadResult, f + ".server"));
  BLOOMROUTE_RETURN_IF_ERROR(
      ServerFromThrift(in.server, f + ".server", &out->server));
  router::ReplicaStats& r = out->replica;
  r.server = out->server.id;
  r.loaded = in.loaded;
  r.current = in.current;
  for (auto [wire, field, name] :
       {std::tuple{in.epoch, &r.epoch, ".epoch"},
        {in.seq, &r.seq, ".seq"},
        {in.opsBehind, &out->ops_behind, ".opsBehind"},
        {in.elements, &r.filter.elements, ".elements"},
        {in.memoryBytes, &r.filter.memory_bytes, ".memoryBytes"}}) {
    BLOOMROUTE_RETURN_IF_ERROR(Narrow(wire, kBadResult, f + name, field));
  }
  r.filter.estimated_fpr = in.estimatedFpr;
  r.filter.compounded_bound = in.compoundedBound;
  r.filter.stages.assign(in.stageStats.size(), StageStats());
  for (size_t i = 0; i < in.stageStats.size(); ++i) {
    BLOOMROUTE_RETURN_IF_ERROR(StageFromThrift(
        in.stageStats[i], At(f + ".stageStats", i), &r.filter.stages[i]));
  }
  out->has_cluster_config = in.__isset.hasClusterConfig && in.hasClusterConfig;
  if (in.__isset.clusterFilter) {
    BLOOMROUTE_RETURN_IF_ERROR(
        ClusterFilterFromThrift(in.clusterFilter, f + ".clusterFilter", out));
  }
  return Status::OK();
}

}  // namespace

Status IndexStatsFromThrift(const std::vector<client::TServerIndexStats>& in,
                            std::vector<router::ServerIndexStats>* out) {
  return thrift_internal::EachFromThrift(in, "result", ServerStatsFromThrift,
                                         out);
}

Status ClusterStatusFromThrift(const client::TClusterStatus& in,
                               router::ClusterStatus* out) {
  BLOOMROUTE_RETURN_IF_ERROR(
      Narrow(in.tables, kBadResult, "result.tables", &out->tables));
  BLOOMROUTE_RETURN_IF_ERROR(
      Narrow(in.regions, kBadResult, "result.regions", &out->regions));
  out->servers.assign(in.servers.size(), router::ServerStatus());
  for (size_t i = 0; i < in.servers.size(); ++i) {
    const std::string f = At("result.servers", i);
    const client::TServerStatus& s = in.servers[i];
    router::ServerStatus& status = out->servers[i];
    BLOOMROUTE_RETURN_IF_ERROR(
        Require(s.__isset.server, kBadResult, f + ".server"));
    BLOOMROUTE_RETURN_IF_ERROR(
        ServerFromThrift(s.server, f + ".server", &status.server));
    status.reachable = s.reachable;
    status.error = s.__isset.error ? s.error : std::string();
    status.replica_current = s.replicaCurrent;
    BLOOMROUTE_RETURN_IF_ERROR(
        Narrow(s.regions, kBadResult, f + ".regions", &status.regions));
    if (s.__isset.regionsNotServed) {
      BLOOMROUTE_RETURN_IF_ERROR(Narrow(s.regionsNotServed, kBadResult,
                                        f + ".regionsNotServed",
                                        &status.regions_not_served));
    }
    status.reopen_error = s.__isset.reopenError ? s.reopenError : "";
  }
  return Status::OK();
}

namespace {

Status ServerVerifyFromThrift(const client::TServerVerifyReport& in,
                              const std::string& f,
                              router::ServerVerifyReport* out) {
  BLOOMROUTE_RETURN_IF_ERROR(
      Require(in.__isset.server, kBadResult, f + ".server"));
  BLOOMROUTE_RETURN_IF_ERROR(
      ServerFromThrift(in.server, f + ".server", &out->server));
  BLOOMROUTE_RETURN_IF_ERROR(
      Narrow(in.regions, kBadResult, f + ".regions", &out->regions));
  if (in.__isset.error) {
    out->error = in.error.empty() ? "failed" : in.error;
    return Status::OK();
  }
  IndexReport& r = out->index;
  const std::pair<int64_t, uint64_t*> counts[] = {
      {in.rows, &r.rows},
      {in.indexEntriesValid, &r.index_entries_valid},
      {in.indexEntriesMissing, &r.index_entries_missing},
      {in.indexEntriesExtra, &r.index_entries_extra},
      {in.values, &r.values},
      {in.valueCountsWrong, &r.value_counts_wrong},
      {in.valuesNotInFilter, &r.values_not_in_filter}};
  for (const auto& [wire, field] : counts) {
    BLOOMROUTE_RETURN_IF_ERROR(Narrow(wire, kBadResult, f + " count", field));
  }
  r.filter_matches_rebuild = in.filterMatchesRebuild;
  r.problems = in.problems;
  BLOOMROUTE_RETURN_IF_ERROR(
      Require(in.__isset.replica, kBadResult, f + ".replica"));
  BLOOMROUTE_ASSIGN_OR_RETURN(
      out->replica.agreement,
      kAgreements.FromThrift(in.replica, kBadResult, f + ".replica"));
  out->replica.detail = in.replicaDetail;
  return Status::OK();
}

}  // namespace

Status VerifyReportFromThrift(const client::TVerifyReport& in,
                              router::VerifyReport* out) {
  BLOOMROUTE_RETURN_IF_ERROR(
      Require(in.__isset.table, kBadResult, "result.table"));
  out->table.name = in.table;
  BLOOMROUTE_RETURN_IF_ERROR(
      Narrow(in.tableId, kBadResult, "result.tableId", &out->table.table_id));
  out->servers.assign(in.servers.size(), router::ServerVerifyReport());
  for (size_t i = 0; i < in.servers.size(); ++i) {
    BLOOMROUTE_RETURN_IF_ERROR(ServerVerifyFromThrift(
        in.servers[i], At("result.servers", i), &out->servers[i]));
  }
  return Status::OK();
}

}  // namespace bloomroute::thrift_internal
