// RouterServiceHandler's HBase cluster calls: tables by pattern,
// isTableAvailableWithSplit, the online slow log and the cluster id.
#include <algorithm>
#include <limits>
#include <optional>
#include <string>
#include <utility>

#include "common/java_regex.h"
#include "thrift/conversion/hbase_conversion.h"
#include "thrift/internal/serve_call.h"
#include "thrift/router_service_handler.h"

namespace bloomroute {

namespace client = rpc::client;
using thrift_internal::ServeHBaseCall;

namespace {

// The tables whose whole name matches `regex` (all for an empty one), by
// name.
StatusOr<std::vector<TableDescriptor>> TablesByPattern(
    const router::Router& router, const std::string& regex) {
  std::vector<TableDescriptor> tables = router.ListTables();
  if (regex.empty()) return tables;
  BLOOMROUTE_ASSIGN_OR_RETURN(const JavaRegex re, JavaRegex::Compile(regex));
  tables.erase(std::remove_if(tables.begin(), tables.end(),
                              [&](const TableDescriptor& t) {
                                return !re.Matches(t.name);
                              }),
               tables.end());
  return tables;
}

// HBase 2.x's system tables (tableExists answers true for them; the
// router's catalog is what they hold in HBase), as names match a pattern.
constexpr const char* kSystemTables[] = {"hbase:meta", "hbase:namespace"};

// HBase's compareRegionsWithSplitKeys: the first region and every region
// starting at one of `split_keys` count; they must be splitKeys + 1.
bool RegionsStartAt(const std::vector<router::RegionLocation>& regions,
                    const std::vector<std::string>& split_keys) {
  size_t counted = 0;
  for (const router::RegionLocation& r : regions) {
    if (r.region.start_key.empty() ||
        std::find(split_keys.begin(), split_keys.end(), r.region.start_key) !=
            split_keys.end()) {
      ++counted;
    }
  }
  return counted == split_keys.size() + 1;
}

// The filters of a TLogQueryFilter that are given (set and not empty).
struct SlowLogFilter {
  std::string client, table, user;
  bool region = false;  // a regionName was given: no record matches it
  bool all = false;     // AND: every filter given must match
  size_t filters = 0;
  size_t limit = 10;
};

Status SlowLogFilterFromThrift(const client::TLogQueryFilter& in,
                               SlowLogFilter* out) {
  const std::string f = "logQueryFilter.";
  if (in.limit < 0) return Status::InvalidArgument(f + "limit is negative");
  if (in.filterByOperator != client::TFilterByOperator::AND &&
      in.filterByOperator != client::TFilterByOperator::OR) {
    return Status::InvalidArgument(f + "filterByOperator: unknown value " +
                                   std::to_string(in.filterByOperator));
  }
  out->limit = static_cast<size_t>(in.limit);
  out->all = in.filterByOperator == client::TFilterByOperator::AND;
  auto given = [&](bool isset, const std::string& v, std::string* to) {
    if (!isset || v.empty()) return false;
    if (to != nullptr) *to = v;
    ++out->filters;
    return true;
  };
  out->region = given(in.__isset.regionName, in.regionName, nullptr);
  given(in.__isset.clientAddress, in.clientAddress, &out->client);
  given(in.__isset.tableName, in.tableName, &out->table);
  given(in.__isset.userName, in.userName, &out->user);
  return Status::OK();
}

// As HBase's LogHandlerUtils.getFilteredLogs: with no filter every record
// passes; with AND all given filters match, with OR at least one.
bool Passes(const SlowCall& call, const SlowLogFilter& filter) {
  if (filter.filters == 0) return true;
  size_t matched = 0;
  if (!filter.client.empty() && call.client == filter.client) ++matched;
  if (!filter.table.empty() && call.table == filter.table) ++matched;
  if (!filter.user.empty() && call.user == filter.user) ++matched;
  return filter.all ? matched == filter.filters : matched > 0;
}

client::TOnlineLogRecord SlowCallToThrift(const SlowCall& call) {
  client::TOnlineLogRecord r;
  r.startTime = call.start_ms;
  r.processingTime = static_cast<int32_t>(
      std::min<int64_t>(call.duration_ms, std::numeric_limits<int32_t>::max()));
  r.queueTime = 0;
  r.responseSize = static_cast<int64_t>(std::min<uint64_t>(
      call.reply_bytes, std::numeric_limits<int64_t>::max()));
  r.clientAddress = call.client;
  r.serverClass = "RouterServer";
  r.methodName = call.method;
  r.callDetails =
      call.method + (call.table.empty() ? "" : " table " + call.table) +
      ": asked " + std::to_string(call.servers_asked) + " servers, returned " +
      std::to_string(call.rows) + " rows: " + call.outcome;
  r.param = call.table;
  r.userName = call.user;
  return r;
}

}  // namespace

void RouterServiceHandler::getTableDescriptorsByPattern(
    std::vector<client::TTableDescriptor>& result, const std::string& regex,
    bool /*include_sys_tables*/) {
  ServeHBaseCall("getTableDescriptorsByPattern", [&]() -> Status {
    BLOOMROUTE_ASSIGN_OR_RETURN(const std::vector<TableDescriptor> tables,
                                TablesByPattern(*router_, regex));
    result.clear();
    result.reserve(tables.size());
    for (const TableDescriptor& t : tables) {
      result.emplace_back();
      BLOOMROUTE_RETURN_IF_ERROR(HBaseDescriptorToThrift(t, &result.back()));
    }
    return Status::OK();
  });
}

void RouterServiceHandler::getTableNamesByPattern(
    std::vector<client::TTableName>& result, const std::string& regex,
    bool include_sys_tables) {
  ServeHBaseCall("getTableNamesByPattern", [&]() -> Status {
    BLOOMROUTE_ASSIGN_OR_RETURN(const std::vector<TableDescriptor> tables,
                                TablesByPattern(*router_, regex));
    std::vector<std::string> names;
    for (const TableDescriptor& t : tables) names.push_back(t.name);
    // As HBase's listTableNames(pattern, includeSysTables), in name order.
    if (include_sys_tables) {
      std::optional<JavaRegex> re;
      if (!regex.empty()) {
        BLOOMROUTE_ASSIGN_OR_RETURN(re, JavaRegex::Compile(regex));
      }
      for (const char* system : kSystemTables) {
        if (!re || re->Matches(system)) names.push_back(system);
      }
      std::sort(names.begin(), names.end());
    }
    result.clear();
    for (const std::string& name : names) {
      result.push_back(TableNameToThrift(name));
    }
    return Status::OK();
  });
}

bool RouterServiceHandler::isTableAvailableWithSplit(
    const client::TTableName& table_name,
    const std::vector<std::string>& split_keys) {
  bool available = false;
  ServeHBaseCall("isTableAvailableWithSplit", [&]() -> Status {
    std::string name;
    BLOOMROUTE_RETURN_IF_ERROR(TableFromThrift(table_name, "tableName", &name));
    NoteCallTable(name);
    StatusOr<router::TableInfo> info = router_->DescribeTable(name);
    // As isTableAvailable: an unknown table is false, not an error.
    if (info.status().IsNotFound()) return Status::OK();
    BLOOMROUTE_RETURN_IF_ERROR(info.status());
    available = info->enabled && RegionsStartAt(info->regions, split_keys);
    return Status::OK();
  });
  return available;
}

void RouterServiceHandler::getSlowLogResponses(
    std::vector<client::TOnlineLogRecord>& result,
    const std::set<client::TServerName>& server_names,
    const client::TLogQueryFilter& log_query_filter) {
  ServeHBaseCall("getSlowLogResponses", [&]() -> Status {
    SlowLogFilter filter;
    BLOOMROUTE_RETURN_IF_ERROR(
        SlowLogFilterFromThrift(log_query_filter, &filter));
    result.clear();
    if (log_query_filter.logType != client::TLogType::SLOW_LOG) {
      if (log_query_filter.logType == client::TLogType::LARGE_LOG) {
        return Status::OK();  // no server keeps large calls
      }
      return Status::InvalidArgument("logQueryFilter.logType: unknown value " +
                                     std::to_string(log_query_filter.logType));
    }
    // The region filter matches no router call (AND: nothing passes).
    if (server_names.empty() || services_.slow_calls == nullptr ||
        (filter.region && filter.all)) {
      return Status::OK();
    }
    for (const SlowCall& call : services_.slow_calls->Newest()) {
      if (result.size() >= filter.limit) break;
      if (Passes(call, filter)) result.push_back(SlowCallToThrift(call));
    }
    return Status::OK();
  });
}

void RouterServiceHandler::clearSlowLogResponses(
    std::vector<bool>& result,
    const std::set<client::TServerName>& server_names) {
  ServeHBaseCall("clearSlowLogResponses", [&]() -> Status {
    if (services_.slow_calls != nullptr && !server_names.empty())
      services_.slow_calls->Clear();
    result.assign(server_names.size(), true);
    return Status::OK();
  });
}

void RouterServiceHandler::getClusterId(std::string& result) {
  // Read when the router opened: it cannot fail (HBase declares no
  // exception for it).
  result = router_->ClusterId();
}

}  // namespace bloomroute
