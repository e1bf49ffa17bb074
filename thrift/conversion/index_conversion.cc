#include "thrift/conversion/index_conversion.h"

#include <string>
#include <utility>

#include "model/index_predicate.h"
#include "router/page_token.h"
#include "thrift/conversion/hbase_conversion.h"
#include "thrift/internal/checked_conversion.h"
#include "thrift/internal/enum_map.h"

namespace bloomroute {
namespace {

namespace client = rpc::client;
using thrift_internal::At;
using thrift_internal::EachFromThrift;
using thrift_internal::kBadRequest;
using thrift_internal::Narrow;
using thrift_internal::Require;
using thrift_internal::RequireAll;
using thrift_internal::Widen;

constexpr thrift_internal::EnumMap<IndexOp, 8> kIndexOps(
    {{{IndexOp::kEqual, client::TIndexOperator::EQUAL},
      {IndexOp::kIn, client::TIndexOperator::IN},
      {IndexOp::kLess, client::TIndexOperator::LESS},
      {IndexOp::kLessOrEqual, client::TIndexOperator::LESS_OR_EQUAL},
      {IndexOp::kGreater, client::TIndexOperator::GREATER},
      {IndexOp::kGreaterOrEqual, client::TIndexOperator::GREATER_OR_EQUAL},
      {IndexOp::kPrefix, client::TIndexOperator::PREFIX},
      {IndexOp::kBetween, client::TIndexOperator::BETWEEN}}},
    "{field} is {value}, not a TIndexOperator");

// ---- Requests ----

Status PredicatesFromThrift(const std::vector<client::TEqualityPredicate>& in,
                            const std::string& f,
                            std::vector<EqualityPredicate>* out) {
  out->assign(in.size(), EqualityPredicate());
  for (size_t i = 0; i < in.size(); ++i) {
    const std::string pf = At(f, i);
    BLOOMROUTE_RETURN_IF_ERROR(
        RequireAll(kBadRequest, pf,
                   {{in[i].__isset.family, ".family"},
                    {in[i].__isset.qualifier, ".qualifier"},
                    {in[i].__isset.value, ".value"}}));
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
    BLOOMROUTE_RETURN_IF_ERROR(RequireAll(
        kBadRequest, pf,
        {{p.__isset.family, ".family"}, {p.__isset.qualifier, ".qualifier"}}));
    BLOOMROUTE_ASSIGN_OR_RETURN(
        const IndexOp op, kIndexOps.FromThrift(p.op, kBadRequest, pf + ".op"));
    if (p.values.size() > kMaxIndexPredicateValues) {
      return Status::InvalidArgument(pf + " has more than " +
                                     std::to_string(kMaxIndexPredicateValues) +
                                     " values (kMaxIndexPredicateValues)");
    }
    out->push_back(IndexPredicate{
        thrift_internal::JoinColumn(p.family, p.qualifier), op, p.values});
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
      ProjectionFromThrift(in.columns, f + ".columns", &out->columns));
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
  return thrift_internal::EachToThrift(in, ServerToThrift, out);
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

// ---- Results ----

Status ToThrift(const router::TableInfo& in, client::TTableInfo* out) {
  client::TIndexedTable descriptor;
  BLOOMROUTE_RETURN_IF_ERROR(DescriptorToThrift(in.descriptor, &descriptor));
  out->__set_descriptor(std::move(descriptor));
  std::vector<client::TRegionLocation> regions;
  BLOOMROUTE_RETURN_IF_ERROR(
      thrift_internal::EachToThrift(in.regions, LocationToThrift, &regions));
  out->__set_regions(std::move(regions));
  return Status::OK();
}

Status ToThrift(const std::vector<TableDescriptor>& in,
                std::vector<client::TIndexedTable>* out) {
  return thrift_internal::EachToThrift(in, DescriptorToThrift, out);
}

Status ToThrift(const router::LookupResult& in, client::TIndexResult* out) {
  router::LookupResult copy = in;
  return ToThrift(std::move(copy), out);
}

Status ToThrift(router::LookupResult&& in, client::TIndexResult* out) {
  return ToThrift(std::move(in), /*compact_rows=*/false, out);
}

Status ToThrift(router::LookupResult&& in, bool compact_rows,
                client::TIndexResult* out) {
  if (compact_rows) {
    out->rows.clear();
    out->__set_compactRows(CompactRowsToThrift(std::move(in.rows)));
  } else {
    out->rows = thrift_internal::RowsToHBase(std::move(in.rows));
    out->compactRows = client::TCompactRows();
    out->__isset.compactRows = false;
  }
  out->__isset.rows = true;
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

namespace bloomroute::thrift_internal {

namespace client = rpc::client;

Status ServerFromThrift(const client::TServerRef& in, const std::string& f,
                        router::ServerRef* out) {
  BLOOMROUTE_RETURN_IF_ERROR(
      RequireAll(kBadResult, f,
                 {{in.__isset.id, ".id"}, {in.__isset.address, ".address"}}));
  out->address = in.address;
  return Narrow(in.id, kBadResult, f + ".id", &out->id);
}

namespace {

Status ServersFromThrift(const std::vector<client::TServerRef>& in,
                         const std::string& f,
                         std::vector<router::ServerRef>* out) {
  return thrift_internal::EachFromThrift(in, f, ServerFromThrift, out);
}

Status DescriptorFromThrift(const client::TIndexedTable& in,
                            const std::string& f, TableDescriptor* out) {
  BLOOMROUTE_RETURN_IF_ERROR(RequireAll(
      kBadResult, f,
      {{in.__isset.tableId, ".tableId"}, {in.__isset.name, ".name"}}));
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
      where[i].__set_op(kIndexOps.ToThrift(in.where[i].op));
      where[i].__set_values(in.where[i].values);
    }
    out->__set_where(std::move(where));
  }
  if (in.limit > 0) {  // 0 = the router's maximum: leave it unset
    int32_t limit = 0;
    BLOOMROUTE_RETURN_IF_ERROR(Unsendable(Widen(in.limit, "limit", &limit)));
    out->__set_limit(limit);
  }
  out->__set_columns(ProjectionToThrift(in.columns));
  out->__set_allowPartial(in.allow_partial);
  out->__set_askAll(in.broadcast);
  if (in.after_row) out->__set_afterRow(*in.after_row);
  if (in.page_token) out->__set_pageToken(*in.page_token);
  // Cheaper for the router to build and send than TResults, and read as
  // either (a router that does not know the field answers rows).
  out->__set_compactRows(true);
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
  return thrift_internal::EachFromThrift(in, "result", DescriptorFromThrift,
                                         out);
}

Status LookupResultFromThrift(const client::TIndexResult& in,
                              router::LookupResult* out) {
  BLOOMROUTE_RETURN_IF_ERROR(
      Require(in.__isset.routing, kBadResult, "result.routing"));
  if (in.__isset.compactRows) {
    if (!in.rows.empty()) {
      return Status::Corruption(
          "result.rows and result.compactRows are both set");
    }
    BLOOMROUTE_RETURN_IF_ERROR(CompactRowsFromThrift(
        in.compactRows, "result.compactRows", &out->rows));
  } else {
    BLOOMROUTE_RETURN_IF_ERROR(
        RowsFromHBase(in.rows, "result.rows", &out->rows));
  }
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
