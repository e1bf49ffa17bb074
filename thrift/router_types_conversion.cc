#include "thrift/router_types_conversion.h"

#include <algorithm>
#include <map>
#include <string>
#include <utility>

#include "model/index_predicate.h"
#include "model/table_attributes.h"
#include "thrift/hbase_request_conversion.h"
#include "thrift/internal/checked_conversion.h"
#include "thrift/internal/hbase_rows.h"
#include "thrift/server/thrift_server.h"

namespace bloomroute {
namespace {

namespace client = rpc::client;
using thrift_internal::At;
using thrift_internal::EachFromThrift;
using thrift_internal::kBadRequest;
using thrift_internal::Narrow;
using thrift_internal::Require;
using thrift_internal::Widen;

// ---- Requests ----

// Projected columns of a lookup, as TGet's: a family, or family and
// qualifier.
Status ColumnsFromThrift(const std::vector<client::TColumn>& in,
                         const std::string& f, std::vector<std::string>* out) {
  out->assign(in.size(), std::string());
  for (size_t i = 0; i < in.size(); ++i) {
    const std::string cf = At(f, i);
    BLOOMROUTE_RETURN_IF_ERROR(
        Require(in[i].__isset.family, kBadRequest, cf + ".family"));
    (*out)[i] = in[i].__isset.qualifier
                    ? thrift_internal::JoinColumn(in[i].family, in[i].qualifier)
                    : in[i].family;
  }
  return Status::OK();
}

Status PredicatesFromThrift(const std::vector<client::TEqualityPredicate>& in,
                            const std::string& f,
                            std::vector<EqualityPredicate>* out) {
  out->assign(in.size(), EqualityPredicate());
  for (size_t i = 0; i < in.size(); ++i) {
    const std::string pf = At(f, i);
    BLOOMROUTE_RETURN_IF_ERROR(
        Require(in[i].__isset.family, kBadRequest, pf + ".family"));
    BLOOMROUTE_RETURN_IF_ERROR(
        Require(in[i].__isset.qualifier, kBadRequest, pf + ".qualifier"));
    BLOOMROUTE_RETURN_IF_ERROR(
        Require(in[i].__isset.value, kBadRequest, pf + ".value"));
    (*out)[i] = EqualityPredicate{
        thrift_internal::JoinColumn(in[i].family, in[i].qualifier),
        in[i].value};
  }
  return Status::OK();
}

// Field 8: bounded before any copy (kMaxIndexPredicates predicates with
// field 1's, kMaxIndexPredicateValues values each); each operator checked
// against TIndexOperator. The rest is the router's ValidateIndexPredicates.
Status WhereFromThrift(const client::TIndexQuery& in, const std::string& f,
                       std::vector<IndexPredicate>* out) {
  out->clear();
  if (in.predicates.size() + in.where.size() > kMaxIndexPredicates) {
    return Status::InvalidArgument(f + " has more than " +
                                   std::to_string(kMaxIndexPredicates) +
                                   " predicates (kMaxIndexPredicates)");
  }
  for (size_t i = 0; i < in.where.size(); ++i) {
    const std::string pf = At(f + ".where", i);
    const client::TIndexPredicate& p = in.where[i];
    BLOOMROUTE_RETURN_IF_ERROR(
        Require(p.__isset.family, kBadRequest, pf + ".family"));
    BLOOMROUTE_RETURN_IF_ERROR(
        Require(p.__isset.qualifier, kBadRequest, pf + ".qualifier"));
    if (p.op < 0 || p.op >= kIndexOpCount) {
      return Status::InvalidArgument(pf + ".op is " + std::to_string(p.op) +
                                     ", not a TIndexOperator");
    }
    if (p.values.size() > kMaxIndexPredicateValues) {
      return Status::InvalidArgument(pf + " has more than " +
                                     std::to_string(kMaxIndexPredicateValues) +
                                     " values (kMaxIndexPredicateValues)");
    }
    out->push_back(
        IndexPredicate{thrift_internal::JoinColumn(p.family, p.qualifier),
                       static_cast<IndexOp>(p.op), p.values});
  }
  // What the router would refuse anyway, refused here without asking it.
  IndexQuery q;
  for (const IndexPredicate& p : *out) {
    BLOOMROUTE_RETURN_IF_ERROR(AddToQuery(p, &q));
  }
  if (out->empty()) return Status::OK();
  return ValidateIndexPredicates(q);
}

Status QueryFromThrift(const client::TIndexQuery& in, const std::string& f,
                       router::LookupSpec* out) {
  if (!in.__isset.where || in.where.empty()) {
    BLOOMROUTE_RETURN_IF_ERROR(
        Require(in.__isset.predicates, kBadRequest, f + ".predicates"));
  }
  BLOOMROUTE_RETURN_IF_ERROR(WhereFromThrift(in, f, &out->where));
  BLOOMROUTE_RETURN_IF_ERROR(
      PredicatesFromThrift(in.predicates, f + ".predicates", &out->equals));
  out->limit = 0;
  if (in.__isset.limit) {
    BLOOMROUTE_RETURN_IF_ERROR(
        Narrow(in.limit, kBadRequest, f + ".limit", &out->limit));
    if (out->limit == 0) {
      return Status::InvalidArgument(f + ".limit is 0; leave it unset for " +
                                     "the maximum (" +
                                     std::to_string(kMaxRowsPerCall) + ")");
    }
  }
  BLOOMROUTE_RETURN_IF_ERROR(
      ColumnsFromThrift(in.columns, f + ".columns", &out->columns));
  out->allow_partial = in.__isset.allowPartial && in.allowPartial;
  out->broadcast = in.__isset.askAll && in.askAll;
  out->after_row.reset();
  if (in.__isset.afterRow) out->after_row = in.afterRow;
  // Checked by the router (its size bound first): see router/page_token.h.
  out->page_token.reset();
  if (in.__isset.pageToken) out->page_token = in.pageToken;
  out->time_range = TimeRange();
  if (!in.__isset.timeRange) return Status::OK();
  return thrift_internal::TimeRangeFromHBase(in.timeRange, f + ".timeRange",
                                             &out->time_range);
}

// ---- Results ----

Status ServersToThrift(const std::vector<router::ServerRef>& in,
                       std::vector<client::TServerRef>* out) {
  out->assign(in.size(), client::TServerRef());
  for (size_t i = 0; i < in.size(); ++i) {
    BLOOMROUTE_RETURN_IF_ERROR(ServerToThrift(in[i], &(*out)[i]));
  }
  return Status::OK();
}

Status DescriptorToThrift(const TableDescriptor& in,
                          client::TIndexedTable* out) {
  int64_t table_id = 0;
  BLOOMROUTE_RETURN_IF_ERROR(Widen(in.table_id, "table_id", &table_id));
  out->__set_tableId(table_id);
  out->__set_name(in.name);
  std::vector<client::TIndexedColumn> columns(in.indexed_columns.size());
  for (size_t i = 0; i < columns.size(); ++i) {
    int32_t id = 0;
    BLOOMROUTE_RETURN_IF_ERROR(
        Widen(in.indexed_columns[i].column_id, "column_id", &id));
    columns[i].__set_columnId(id);
    columns[i].__set_name(in.indexed_columns[i].name);
  }
  out->__set_indexedColumns(std::move(columns));
  if (!in.families.empty()) out->__set_families(in.families);
  return Status::OK();
}

Status RoutingToThrift(const router::RoutingInfo& in,
                       client::TRoutingInfo* out) {
  int32_t servers = 0;
  BLOOMROUTE_RETURN_IF_ERROR(
      Widen(in.servers_in_cluster, "servers_in_cluster", &servers));
  out->__set_serversInCluster(servers);
  out->__isset.serversAsked = true;
  out->__isset.serversAskedNotCurrent = true;
  out->__isset.serversWithRows = true;
  BLOOMROUTE_RETURN_IF_ERROR(ServersToThrift(in.asked, &out->serversAsked));
  BLOOMROUTE_RETURN_IF_ERROR(
      ServersToThrift(in.asked_not_current, &out->serversAskedNotCurrent));
  if (!in.broadcast_reason.empty()) {
    out->__set_broadcastReason(in.broadcast_reason);
  }
  return ServersToThrift(in.with_rows, &out->serversWithRows);
}

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

Status LocationToThrift(const router::RegionLocation& in,
                        client::TRegionLocation* out) {
  int64_t region_id = 0;
  BLOOMROUTE_RETURN_IF_ERROR(
      Widen(in.region.region_id, "region_id", &region_id));
  out->__set_regionId(region_id);
  out->__set_startKey(in.region.start_key);
  out->__set_endKey(in.region.end_key);
  client::TServerRef server;
  BLOOMROUTE_RETURN_IF_ERROR(ServerToThrift(in.server, &server));
  out->__set_server(std::move(server));
  return Status::OK();
}

// ---- Requests ----

Status FromThrift(const client::TTableSpec& in, router::TableSpec* out) {
  BLOOMROUTE_RETURN_IF_ERROR(
      Require(in.__isset.name, kBadRequest, "spec.name"));
  out->name = in.name;
  out->indexed_columns = in.indexedColumns;
  out->split_keys = in.splitKeys;
  out->families = in.families;
  out->region_count = 0;
  if (in.__isset.regionCount) {
    BLOOMROUTE_RETURN_IF_ERROR(Narrow(in.regionCount, kBadRequest,
                                      "spec.regionCount", &out->region_count));
  }
  return Status::OK();
}

Status FromThrift(const client::TIndexQuery& in, router::LookupSpec* out) {
  return QueryFromThrift(in, "tquery", out);
}

Status FromThrift(const std::vector<client::TIndexQuery>& in,
                  std::vector<router::LookupSpec>* out) {
  return EachFromThrift(in, "queries", QueryFromThrift, out);
}

Status CountFromThrift(int32_t in, const char* field, uint32_t* out) {
  return Narrow(in, kBadRequest, field, out);
}

// ---- Results ----

Status ToThrift(const router::TableInfo& in, client::TTableInfo* out) {
  client::TIndexedTable descriptor;
  BLOOMROUTE_RETURN_IF_ERROR(DescriptorToThrift(in.descriptor, &descriptor));
  out->__set_descriptor(std::move(descriptor));
  std::vector<client::TRegionLocation> regions(in.regions.size());
  for (size_t i = 0; i < regions.size(); ++i) {
    BLOOMROUTE_RETURN_IF_ERROR(LocationToThrift(in.regions[i], &regions[i]));
  }
  out->__set_regions(std::move(regions));
  return Status::OK();
}

Status ToThrift(const std::vector<TableDescriptor>& in,
                std::vector<client::TIndexedTable>* out) {
  out->assign(in.size(), client::TIndexedTable());
  for (size_t i = 0; i < in.size(); ++i) {
    BLOOMROUTE_RETURN_IF_ERROR(DescriptorToThrift(in[i], &(*out)[i]));
  }
  return Status::OK();
}

client::TTableDescriptor HBaseDescriptorToThrift(const TableDescriptor& in) {
  client::TTableDescriptor out;
  client::TTableName name;
  name.__set_ns("default");
  name.__set_qualifier(in.name);
  out.__set_tableName(std::move(name));
  // The declared families; a table that declares none (made by
  // createIndexedTable or the import tool): those of its indexed columns,
  // each once, in order.
  std::vector<std::string> names = in.families;
  if (names.empty()) {
    for (const IndexedColumn& c : in.indexed_columns) {
      std::string family = c.name.substr(0, c.name.find(':'));
      if (std::find(names.begin(), names.end(), family) == names.end()) {
        names.push_back(std::move(family));
      }
    }
  }
  std::vector<client::TColumnFamilyDescriptor> families(names.size());
  for (size_t i = 0; i < names.size(); ++i) families[i].__set_name(names[i]);
  out.__set_columns(std::move(families));
  std::map<std::string, std::string> attributes =
      WithIndexAttribute(in).attributes;
  out.__set_attributes(std::move(attributes));
  return out;
}

Status ToThrift(const router::TableInfo& in,
                std::vector<client::THRegionLocation>* out) {
  out->assign(in.regions.size(), client::THRegionLocation());
  for (size_t i = 0; i < in.regions.size(); ++i) {
    const router::RegionLocation& r = in.regions[i];
    client::THRegionLocation& location = (*out)[i];
    int64_t region_id = 0;
    BLOOMROUTE_RETURN_IF_ERROR(
        Widen(r.region.region_id, "region_id", &region_id));
    location.regionInfo.__set_regionId(region_id);
    location.regionInfo.__set_tableName(in.descriptor.name);
    location.regionInfo.__set_startKey(r.region.start_key);
    location.regionInfo.__set_endKey(r.region.end_key);
    std::string host;
    int port = 0;
    const Status parsed = ParseListenAddress(r.server.address, &host, &port);
    if (!parsed.ok()) {
      return Status::IOError("server " + std::to_string(r.server.id) +
                             " address: " + parsed.message());
    }
    location.serverName.__set_hostName(host);
    location.serverName.__set_port(port);
    location.__isset.regionInfo = true;
    location.__isset.serverName = true;
  }
  return Status::OK();
}

Status ToThrift(const std::vector<std::optional<Row>>& in,
                std::vector<client::TResult>* out) {
  *out = thrift_internal::OptionalRowsToHBase(in);
  return Status::OK();
}

Status ToThrift(const std::vector<Row>& in, std::vector<client::TResult>* out) {
  *out = thrift_internal::RowsToHBase(in);
  return Status::OK();
}

Status ToThrift(const router::LookupResult& in, client::TIndexResult* out) {
  out->__set_rows(thrift_internal::RowsToHBase(in.rows));
  out->__set_truncated(in.truncated);
  if (in.resume_after) out->__set_resumeAfter(*in.resume_after);
  if (in.next_page_token) out->__set_nextPageToken(*in.next_page_token);
  out->__set_partial(in.partial);
  out->__isset.missingServers = true;
  BLOOMROUTE_RETURN_IF_ERROR(ServersToThrift(in.missing, &out->missingServers));
  out->__isset.routing = true;
  return RoutingToThrift(in.routing, &out->routing);
}

Status ToThrift(const router::CountResult& in, client::TIndexCount* out) {
  int64_t count = 0;
  BLOOMROUTE_RETURN_IF_ERROR(Widen(in.count, "count", &count));
  out->__set_count(count);
  out->__set_partial(in.partial);
  out->__isset.missingServers = true;
  BLOOMROUTE_RETURN_IF_ERROR(ServersToThrift(in.missing, &out->missingServers));
  out->__isset.routing = true;
  return RoutingToThrift(in.routing, &out->routing);
}

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

client::TReplicaAgreement::type AgreementToThrift(router::ReplicaAgreement a) {
  switch (a) {
    case router::ReplicaAgreement::kMatches:
      return client::TReplicaAgreement::MATCHES;
    case router::ReplicaAgreement::kDiffers:
      return client::TReplicaAgreement::DIFFERS;
    case router::ReplicaAgreement::kNotCurrent:
      break;
  }
  return client::TReplicaAgreement::NOT_CURRENT;
}

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
  out->__set_replica(AgreementToThrift(in.replica.agreement));
  out->__set_replicaDetail(in.replica.detail);
  return Status::OK();
}

}  // namespace

Status ToThrift(const router::VerifyReport& in, client::TVerifyReport* out) {
  int64_t table_id = 0;
  BLOOMROUTE_RETURN_IF_ERROR(Widen(in.table.table_id, "table_id", &table_id));
  out->__set_table(in.table.name);
  out->__set_tableId(table_id);
  std::vector<client::TServerVerifyReport> servers(in.servers.size());
  for (size_t i = 0; i < servers.size(); ++i) {
    BLOOMROUTE_RETURN_IF_ERROR(
        ServerVerifyToThrift(in.servers[i], &servers[i]));
  }
  out->__set_servers(std::move(servers));
  out->__set_ok(in.ok());
  return Status::OK();
}

Status ToThrift(const std::vector<router::IndexState>& in,
                std::vector<client::TIndexStatus>* out) {
  out->assign(in.size(), client::TIndexStatus());
  for (size_t i = 0; i < in.size(); ++i) {
    const router::IndexState& s = in[i];
    client::TIndexStatus& t = (*out)[i];
    int32_t done = 0;
    int32_t total = 0;
    int64_t rows = 0;
    BLOOMROUTE_RETURN_IF_ERROR(Widen(s.regions_done, "regions_done", &done));
    BLOOMROUTE_RETURN_IF_ERROR(Widen(s.regions_total, "regions_total", &total));
    BLOOMROUTE_RETURN_IF_ERROR(Widen(s.rows, "rows", &rows));
    t.__set_column(s.column);
    t.__set_columnId(static_cast<int32_t>(s.column_id));  // bits
    t.__set_state(router::IndexStateName(s.state));
    t.__set_regionsDone(done);
    t.__set_regionsTotal(total);
    t.__set_rowsBackfilled(rows);
  }
  return Status::OK();
}

Status ServerToThrift(const router::ServerRef& in,
                      rpc::client::TServerRef* out) {
  int32_t id = 0;
  BLOOMROUTE_RETURN_IF_ERROR(thrift_internal::Widen(in.id, "server id", &id));
  out->__set_id(id);
  out->__set_address(in.address);
  return Status::OK();
}

}  // namespace bloomroute
