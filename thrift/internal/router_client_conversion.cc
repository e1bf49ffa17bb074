#include "thrift/internal/router_client_conversion.h"

#include <string>
#include <utility>

#include "router/page_token.h"
#include "thrift/internal/checked_conversion.h"
#include "thrift/internal/hbase_rows.h"

namespace bloomroute::thrift_internal {

namespace client = rpc::client;

Status ServerFromThrift(const client::TServerRef& in, const std::string& f,
                        router::ServerRef* out) {
  BLOOMROUTE_RETURN_IF_ERROR(Require(in.__isset.id, kBadResult, f + ".id"));
  BLOOMROUTE_RETURN_IF_ERROR(
      Require(in.__isset.address, kBadResult, f + ".address"));
  out->address = in.address;
  return Narrow(in.id, kBadResult, f + ".id", &out->id);
}

namespace {

std::vector<client::TColumn> ColumnsToThrift(const Projection& in) {
  return ProjectionToThrift(in);
}

Status ServersFromThrift(const std::vector<client::TServerRef>& in,
                         const std::string& f,
                         std::vector<router::ServerRef>* out) {
  out->assign(in.size(), router::ServerRef());
  for (size_t i = 0; i < in.size(); ++i) {
    BLOOMROUTE_RETURN_IF_ERROR(ServerFromThrift(in[i], At(f, i), &(*out)[i]));
  }
  return Status::OK();
}

Status DescriptorFromThrift(const client::TIndexedTable& in,
                            const std::string& f, TableDescriptor* out) {
  BLOOMROUTE_RETURN_IF_ERROR(
      Require(in.__isset.tableId, kBadResult, f + ".tableId"));
  BLOOMROUTE_RETURN_IF_ERROR(Require(in.__isset.name, kBadResult, f + ".name"));
  BLOOMROUTE_RETURN_IF_ERROR(
      Narrow(in.tableId, kBadResult, f + ".tableId", &out->table_id));
  out->name = in.name;
  out->indexed_columns.assign(in.indexedColumns.size(), IndexedColumn());
  for (size_t i = 0; i < in.indexedColumns.size(); ++i) {
    const std::string cf = At(f + ".indexedColumns", i);
    const client::TIndexedColumn& c = in.indexedColumns[i];
    BLOOMROUTE_RETURN_IF_ERROR(
        Require(c.__isset.name, kBadResult, cf + ".name"));
    BLOOMROUTE_RETURN_IF_ERROR(Narrow(c.columnId, kBadResult, cf + ".columnId",
                                      &out->indexed_columns[i].column_id));
    out->indexed_columns[i].name = c.name;
  }
  out->families = in.families;
  return Status::OK();
}

Status RoutingFromThrift(const client::TRoutingInfo& in, const std::string& f,
                         router::RoutingInfo* out) {
  BLOOMROUTE_RETURN_IF_ERROR(Narrow(in.serversInCluster, kBadResult,
                                    f + ".serversInCluster",
                                    &out->servers_in_cluster));
  BLOOMROUTE_RETURN_IF_ERROR(
      ServersFromThrift(in.serversAsked, f + ".serversAsked", &out->asked));
  BLOOMROUTE_RETURN_IF_ERROR(ServersFromThrift(in.serversAskedNotCurrent,
                                               f + ".serversAskedNotCurrent",
                                               &out->asked_not_current));
  out->broadcast_reason =
      in.__isset.broadcastReason ? in.broadcastReason : std::string();
  return ServersFromThrift(in.serversWithRows, f + ".serversWithRows",
                           &out->with_rows);
}

// A column "family:qualifier" as TEqualityPredicate / TIndexPredicate send it.
template <typename T>
Status SetPredicateColumn(const std::string& column, T* out) {
  const size_t colon = column.find(':');
  if (colon == std::string::npos) {
    return Status::InvalidArgument("predicate column '" + column +
                                   "' is not family:qualifier");
  }
  out->__set_family(column.substr(0, colon));
  out->__set_qualifier(column.substr(colon + 1));
  return Status::OK();
}

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

// ---- Requests ----

Status TableSpecToThrift(const router::TableSpec& in, client::TTableSpec* out) {
  out->__set_name(in.name);
  out->__set_indexedColumns(in.indexed_columns);
  out->__set_splitKeys(in.split_keys);
  if (!in.families.empty()) out->__set_families(in.families);
  if (in.region_count > 0) {
    int32_t count = 0;
    BLOOMROUTE_RETURN_IF_ERROR(
        Unsendable(Widen(in.region_count, "region_count", &count)));
    out->__set_regionCount(count);
  }
  return Status::OK();
}

client::TPut PutToThrift(const Mutation& put) {
  client::TPut out;
  out.__set_row(put.row_key);
  out.__set_columnValues(CellsToHBase(put.cells));
  return out;
}

client::TDelete DeleteToThrift(const Mutation& del) {
  client::TDelete out;
  out.__set_row(del.row_key);
  out.__set_columns(ColumnsToThrift(del.columns));
  return out;
}

namespace {

client::TTimeRange TimeRangeToThrift(const TimeRange& in) {
  client::TTimeRange range;
  range.__set_minStamp(in.min);
  range.__set_maxStamp(in.max);
  return range;
}

}  // namespace

std::vector<client::TGet> GetsToThrift(const std::vector<GetRequest>& in) {
  std::vector<client::TGet> out(in.size());
  for (size_t i = 0; i < in.size(); ++i) {
    out[i].__set_row(in[i].row_key);
    out[i].__set_columns(ColumnsToThrift(in[i].columns));
    if (!in[i].filter.empty()) out[i].__set_filterString(in[i].filter);
    if (!in[i].time_range.IsAllTime()) {
      out[i].__set_timeRange(TimeRangeToThrift(in[i].time_range));
    }
  }
  return out;
}

client::TScan ScanToThrift(const router::ScanSpec& in) {
  client::TScan out;
  if (!in.start_row.empty()) out.__set_startRow(in.start_row);
  if (!in.stop_row.empty()) out.__set_stopRow(in.stop_row);
  out.__set_columns(ColumnsToThrift(in.columns));
  if (!in.filter.empty()) out.__set_filterString(in.filter);
  if (!in.time_range.IsAllTime()) {
    out.__set_timeRange(TimeRangeToThrift(in.time_range));
  }
  return out;
}

Status QueryToThrift(const router::LookupSpec& in, client::TIndexQuery* out) {
  std::vector<client::TEqualityPredicate> predicates(in.equals.size());
  for (size_t i = 0; i < in.equals.size(); ++i) {
    BLOOMROUTE_RETURN_IF_ERROR(
        SetPredicateColumn(in.equals[i].column, &predicates[i]));
    predicates[i].__set_value(in.equals[i].value);
  }
  out->__set_predicates(std::move(predicates));
  if (!in.where.empty()) {
    std::vector<client::TIndexPredicate> where(in.where.size());
    for (size_t i = 0; i < in.where.size(); ++i) {
      BLOOMROUTE_RETURN_IF_ERROR(
          SetPredicateColumn(in.where[i].column, &where[i]));
      where[i].__set_op(static_cast<int32_t>(in.where[i].op));
      where[i].__set_values(in.where[i].values);
    }
    out->__set_where(std::move(where));
  }
  if (in.limit > 0) {  // 0 = the router's maximum: leave it unset
    int32_t limit = 0;
    BLOOMROUTE_RETURN_IF_ERROR(Unsendable(Widen(in.limit, "limit", &limit)));
    out->__set_limit(limit);
  }
  out->__set_columns(ColumnsToThrift(in.columns));
  out->__set_allowPartial(in.allow_partial);
  out->__set_askAll(in.broadcast);
  if (in.after_row) out->__set_afterRow(*in.after_row);
  if (in.page_token) out->__set_pageToken(*in.page_token);
  return Status::OK();
}

// ---- Results ----

Status TableInfoFromThrift(const client::TTableInfo& in,
                           router::TableInfo* out) {
  BLOOMROUTE_RETURN_IF_ERROR(
      Require(in.__isset.descriptor, kBadResult, "result.descriptor"));
  BLOOMROUTE_RETURN_IF_ERROR(DescriptorFromThrift(
      in.descriptor, "result.descriptor", &out->descriptor));
  out->regions.assign(in.regions.size(), router::RegionLocation());
  for (size_t i = 0; i < in.regions.size(); ++i) {
    BLOOMROUTE_RETURN_IF_ERROR(LocationFromThrift(
        in.regions[i], At("result.regions", i), &out->regions[i]));
    out->regions[i].region.table = out->descriptor;
  }
  return Status::OK();
}

Status LocationFromThrift(const client::TRegionLocation& in,
                          const std::string& f, router::RegionLocation* out) {
  BLOOMROUTE_RETURN_IF_ERROR(
      Require(in.__isset.server, kBadResult, f + ".server"));
  BLOOMROUTE_RETURN_IF_ERROR(
      Narrow(in.regionId, kBadResult, f + ".regionId", &out->region.region_id));
  out->region.start_key = in.startKey;
  out->region.end_key = in.endKey;
  return ServerFromThrift(in.server, f + ".server", &out->server);
}

Status DescriptorsFromThrift(const std::vector<client::TIndexedTable>& in,
                             std::vector<TableDescriptor>* out) {
  out->assign(in.size(), TableDescriptor());
  for (size_t i = 0; i < in.size(); ++i) {
    BLOOMROUTE_RETURN_IF_ERROR(
        DescriptorFromThrift(in[i], At("result", i), &(*out)[i]));
  }
  return Status::OK();
}

Status LookupResultFromThrift(const client::TIndexResult& in,
                              router::LookupResult* out) {
  BLOOMROUTE_RETURN_IF_ERROR(
      Require(in.__isset.routing, kBadResult, "result.routing"));
  BLOOMROUTE_RETURN_IF_ERROR(RowsFromHBase(in.rows, "result.rows", &out->rows));
  out->truncated = in.truncated;
  out->resume_after.reset();
  if (in.__isset.resumeAfter) out->resume_after = in.resumeAfter;
  if (out->truncated != out->resume_after.has_value()) {
    return Status::Corruption(
        "result.resumeAfter is set exactly when the "
        "result is truncated");
  }
  out->next_page_token.reset();
  if (in.__isset.nextPageToken) {
    // A router without paging sends none; one that pages, exactly when the
    // answer is truncated.
    if (!out->truncated ||
        in.nextPageToken.size() > router::kMaxPageTokenBytes) {
      return Status::Corruption(
          "result.nextPageToken is set on an answer that is not truncated, "
          "or is longer than " +
          std::to_string(router::kMaxPageTokenBytes) + " bytes");
    }
    out->next_page_token = in.nextPageToken;
  }
  out->partial = in.partial;
  BLOOMROUTE_RETURN_IF_ERROR(ServersFromThrift(
      in.missingServers, "result.missingServers", &out->missing));
  return RoutingFromThrift(in.routing, "result.routing", &out->routing);
}

Status CountResultFromThrift(const client::TIndexCount& in,
                             router::CountResult* out) {
  BLOOMROUTE_RETURN_IF_ERROR(
      Require(in.__isset.routing, kBadResult, "result.routing"));
  BLOOMROUTE_RETURN_IF_ERROR(
      Narrow(in.count, kBadResult, "result.count", &out->count));
  out->partial = in.partial;
  BLOOMROUTE_RETURN_IF_ERROR(ServersFromThrift(
      in.missingServers, "result.missingServers", &out->missing));
  return RoutingFromThrift(in.routing, "result.routing", &out->routing);
}

Status IndexStatsFromThrift(const std::vector<client::TServerIndexStats>& in,
                            std::vector<router::ServerIndexStats>* out) {
  out->assign(in.size(), router::ServerIndexStats());
  for (size_t i = 0; i < in.size(); ++i) {
    BLOOMROUTE_RETURN_IF_ERROR(
        ServerStatsFromThrift(in[i], At("result", i), &(*out)[i]));
  }
  return Status::OK();
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

Status AgreementFromThrift(client::TReplicaAgreement::type in,
                           const std::string& f,
                           router::ReplicaAgreement* out) {
  switch (in) {
    case client::TReplicaAgreement::MATCHES:
      *out = router::ReplicaAgreement::kMatches;
      return Status::OK();
    case client::TReplicaAgreement::NOT_CURRENT:
      *out = router::ReplicaAgreement::kNotCurrent;
      return Status::OK();
    case client::TReplicaAgreement::DIFFERS:
      *out = router::ReplicaAgreement::kDiffers;
      return Status::OK();
  }
  return Status::Corruption(f + " has no known value (" +
                            std::to_string(static_cast<int>(in)) + ")");
}

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
  BLOOMROUTE_RETURN_IF_ERROR(
      AgreementFromThrift(in.replica, f + ".replica", &out->replica.agreement));
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

Status IndexStatusFromThrift(const std::vector<client::TIndexStatus>& in,
                             std::vector<router::IndexState>* out) {
  out->assign(in.size(), router::IndexState());
  for (size_t i = 0; i < in.size(); ++i) {
    const client::TIndexStatus& t = in[i];
    router::IndexState& s = (*out)[i];
    const std::string f = At("status", i);
    bool known = false;
    for (auto state : {router::IndexState::State::kReady,
                       router::IndexState::State::kBuilding,
                       router::IndexState::State::kDropping}) {
      if (t.state == router::IndexStateName(state)) {
        s.state = state;
        known = true;
      }
    }
    if (!known) {
      return Status::Corruption(f + ".state " + QuoteForMessage(t.state) +
                                " is not an index state");
    }
    s.column = t.column;
    s.column_id = static_cast<uint32_t>(t.columnId);  // bits
    BLOOMROUTE_RETURN_IF_ERROR(
        Narrow(t.regionsDone, kBadResult, f + ".regionsDone", &s.regions_done));
    BLOOMROUTE_RETURN_IF_ERROR(Narrow(t.regionsTotal, kBadResult,
                                      f + ".regionsTotal", &s.regions_total));
    BLOOMROUTE_RETURN_IF_ERROR(
        Narrow(t.rowsBackfilled, kBadResult, f + ".rowsBackfilled", &s.rows));
  }
  return Status::OK();
}

}  // namespace bloomroute::thrift_internal
