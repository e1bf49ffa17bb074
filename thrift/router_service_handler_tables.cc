// RouterServiceHandler's table calls (HBase's and bloomroute's own) and
// bloomroute's index, status, bulk load and verify calls. The row and
// scanner calls are in router_service_handler.cc.
#include <mutex>
#include <optional>
#include <set>
#include <string>
#include <utility>

#include "model/table_name.h"
#include "thrift/conversion/admin_conversion.h"
#include "thrift/conversion/hbase_conversion.h"
#include "thrift/conversion/index_conversion.h"
#include "thrift/conversion/members_conversion.h"
#include "thrift/conversion/region_conversion.h"
#include "thrift/internal/schema_edits.h"
#include "thrift/internal/serve_call.h"
#include "thrift/router_service_handler.h"

namespace bloomroute {

namespace client = rpc::client;
using thrift_internal::ServeCall;
using thrift_internal::ServeHBaseCall;

namespace {

// ---- Helpers ----

StatusOr<router::TableInfo> Describe(router::Router& router,
                                     const client::TTableName& table,
                                     const std::string& f) {
  std::string name;
  BLOOMROUTE_RETURN_IF_ERROR(TableFromThrift(table, f, &name));
  return router.DescribeTable(name);
}

// Whether the table exists: NotFound is an answer here, not an error. As
// HBase's Admin.tableExists, a name in any namespace is answered: HBase
// 2.x's system tables hbase:meta and hbase:namespace exist (the router's
// catalog, with its namespace records, is what they are in HBase); no other
// table of namespace hbase does (bloomroute has no other system table).
StatusOr<bool> TableExists(router::Router& router,
                           const client::TTableName& table,
                           const std::string& f) {
  if (table.__isset.ns && table.ns == kSystemNamespace) {
    return table.qualifier == "meta" || table.qualifier == "namespace";
  }
  std::string name;
  BLOOMROUTE_RETURN_IF_ERROR(TableFromThrift(table, f, &name));
  for (const TableDescriptor& t : router.ListTables()) {
    if (t.name == name) return true;
  }
  return false;
}

// Whether the table is enabled; NotFound for an unknown table.
StatusOr<bool> TableEnabled(router::Router& router,
                            const client::TTableName& table,
                            const std::string& f) {
  std::string name;
  BLOOMROUTE_RETURN_IF_ERROR(TableFromThrift(table, f, &name));
  return router.IsTableEnabled(name);
}

// HBase's isTableAvailable: exists and enabled (every region is served once
// the table is created). An unknown table is false, not an error (as
// HBase's Admin.isTableAvailable).
StatusOr<bool> TableAvailable(router::Router& router,
                              const client::TTableName& table,
                              const std::string& f) {
  StatusOr<bool> enabled = TableEnabled(router, table, f);
  if (enabled.status().code() == Status::Code::kNotFound) return false;
  return enabled;
}

}  // namespace

// ---- HBase's table calls ----

void RouterServiceHandler::getRegionLocation(client::THRegionLocation& result,
                                             const std::string& table,
                                             const std::string& row,
                                             bool /*reload*/) {
  ServeHBaseCall("getRegionLocation", [&]() -> Status {
    std::string name;
    BLOOMROUTE_RETURN_IF_ERROR(TableFromThrift(table, &name));
    BLOOMROUTE_ASSIGN_OR_RETURN(router::RegionLocation location,
                                router_->LocateRegion(name, row));
    router::TableInfo info;
    info.descriptor.name = name;
    info.regions = {std::move(location)};
    std::vector<client::THRegionLocation> locations;
    BLOOMROUTE_RETURN_IF_ERROR(ToThrift(info, &locations));
    result = std::move(locations.at(0));
    return Status::OK();
  });
}

void RouterServiceHandler::getAllRegionLocations(
    std::vector<client::THRegionLocation>& result, const std::string& table) {
  ServeHBaseCall("getAllRegionLocations", [&]() -> Status {
    std::string name;
    BLOOMROUTE_RETURN_IF_ERROR(TableFromThrift(table, &name));
    BLOOMROUTE_ASSIGN_OR_RETURN(router::TableInfo info,
                                router_->DescribeTable(name));
    return ToThrift(info, &result);
  });
}

void RouterServiceHandler::getTableDescriptor(client::TTableDescriptor& result,
                                              const client::TTableName& table) {
  ServeHBaseCall("getTableDescriptor", [&]() -> Status {
    BLOOMROUTE_ASSIGN_OR_RETURN(router::TableInfo info,
                                Describe(*router_, table, "table"));
    return HBaseDescriptorToThrift(info.descriptor, &result);
  });
}

void RouterServiceHandler::getTableDescriptors(
    std::vector<client::TTableDescriptor>& result,
    const std::vector<client::TTableName>& tables) {
  // As HBase's Admin.listTableDescriptors: the tables that exist, in the
  // order asked; a missing one is left out, not an error.
  ServeHBaseCall("getTableDescriptors", [&]() -> Status {
    result.clear();
    for (size_t i = 0; i < tables.size(); ++i) {
      StatusOr<router::TableInfo> info =
          Describe(*router_, tables[i], "tables[" + std::to_string(i) + "]");
      if (info.status().IsNotFound()) continue;
      BLOOMROUTE_RETURN_IF_ERROR(info.status());
      client::TTableDescriptor descriptor;
      BLOOMROUTE_RETURN_IF_ERROR(
          HBaseDescriptorToThrift(info->descriptor, &descriptor));
      result.push_back(std::move(descriptor));
    }
    return Status::OK();
  });
}

bool RouterServiceHandler::tableExists(const client::TTableName& table_name) {
  bool exists = false;
  ServeHBaseCall("tableExists", [&]() -> Status {
    BLOOMROUTE_ASSIGN_OR_RETURN(exists,
                                TableExists(*router_, table_name, "tableName"));
    return Status::OK();
  });
  return exists;
}

void RouterServiceHandler::createTable(
    const client::TTableDescriptor& desc,
    const std::vector<std::string>& split_keys) {
  ServeHBaseCall("createTable", [&]() -> Status {
    router::TableSpec spec;
    BLOOMROUTE_RETURN_IF_ERROR(FromThrift(desc, split_keys, &spec));
    return router_->CreateTable(spec).status();
  });
}

void RouterServiceHandler::deleteTable(const client::TTableName& table_name) {
  ServeHBaseCall("deleteTable", [&]() -> Status {
    std::string name;
    BLOOMROUTE_RETURN_IF_ERROR(TableFromThrift(table_name, "tableName", &name));
    // HBase's rule: the table must be disabled (the error says so).
    return router_->DeleteTableIfDisabled(name);
  });
}

void RouterServiceHandler::truncateTable(const client::TTableName& table_name,
                                         bool preserve_splits) {
  ServeHBaseCall("truncateTable", [&]() -> Status {
    std::string name;
    BLOOMROUTE_RETURN_IF_ERROR(TableFromThrift(table_name, "tableName", &name));
    return router_->TruncateTable(name, preserve_splits);
  });
}

void RouterServiceHandler::enableTable(const client::TTableName& table_name) {
  ServeHBaseCall("enableTable", [&]() -> Status {
    std::string name;
    BLOOMROUTE_RETURN_IF_ERROR(TableFromThrift(table_name, "tableName", &name));
    return router_->EnableTable(name);
  });
}

void RouterServiceHandler::disableTable(const client::TTableName& table_name) {
  ServeHBaseCall("disableTable", [&]() -> Status {
    std::string name;
    BLOOMROUTE_RETURN_IF_ERROR(TableFromThrift(table_name, "tableName", &name));
    return router_->DisableTable(name);
  });
}

bool RouterServiceHandler::isTableEnabled(
    const client::TTableName& table_name) {
  bool enabled = false;
  ServeHBaseCall("isTableEnabled", [&]() -> Status {
    BLOOMROUTE_ASSIGN_OR_RETURN(
        enabled, TableEnabled(*router_, table_name, "tableName"));
    return Status::OK();
  });
  return enabled;
}

bool RouterServiceHandler::isTableDisabled(
    const client::TTableName& table_name) {
  bool enabled = true;
  ServeHBaseCall("isTableDisabled", [&]() -> Status {
    BLOOMROUTE_ASSIGN_OR_RETURN(
        enabled, TableEnabled(*router_, table_name, "tableName"));
    return Status::OK();
  });
  return !enabled;
}

bool RouterServiceHandler::isTableAvailable(
    const client::TTableName& table_name) {
  bool available = false;
  ServeHBaseCall("isTableAvailable", [&]() -> Status {
    BLOOMROUTE_ASSIGN_OR_RETURN(
        available, TableAvailable(*router_, table_name, "tableName"));
    return Status::OK();
  });
  return available;
}

client::TThriftServerType::type RouterServiceHandler::getThriftServerType() {
  return client::TThriftServerType::TWO;
}

// ---- bloomroute's own calls ----

void RouterServiceHandler::authenticate(const std::string& /*token*/) {
  ServeCall("authenticate", []() -> Status {
    return Status::PermissionDenied(
        "authenticate: this router serves without TLS, so it takes no "
        "token (one would cross the network in the clear); start it with "
        "--tls-ca, --tls-cert and --tls-key");
  });
}

void RouterServiceHandler::createIndexedTable(client::TTableInfo& result,
                                              const client::TTableSpec& spec) {
  ServeCall("createIndexedTable", [&]() -> Status {
    router::TableSpec table;
    BLOOMROUTE_RETURN_IF_ERROR(FromThrift(spec, &table));
    NoteCallTable(table.name);
    BLOOMROUTE_ASSIGN_OR_RETURN(router::TableInfo info,
                                router_->CreateTable(table));
    return ToThrift(info, &result);
  });
}

void RouterServiceHandler::listTables(
    std::vector<client::TIndexedTable>& result) {
  ServeCall("listTables", [&]() -> Status {
    return ToThrift(router_->ListTables(), &result);
  });
}

void RouterServiceHandler::describeTable(client::TTableInfo& result,
                                         const std::string& table) {
  ServeCall("describeTable", [&]() -> Status {
    NoteCallTable(table);
    BLOOMROUTE_ASSIGN_OR_RETURN(router::TableInfo info,
                                router_->DescribeTable(table));
    return ToThrift(info, &result);
  });
}

void RouterServiceHandler::getByIndex(client::TIndexResult& result,
                                      const std::string& table,
                                      const client::TIndexQuery& tquery) {
  ServeCall("getByIndex", [&]() -> Status {
    router::LookupSpec spec;
    BLOOMROUTE_RETURN_IF_ERROR(FromThrift(tquery, &spec));
    BLOOMROUTE_ASSIGN_OR_RETURN(router::LookupResult found,
                                router_->Lookup(table, spec));
    return ToThrift(std::move(found), tquery.compactRows, &result);
  });
}

void RouterServiceHandler::getByIndexMultiple(
    std::vector<client::TIndexResult>& result, const std::string& table,
    const std::vector<client::TIndexQuery>& queries) {
  ServeCall("getByIndexMultiple", [&]() -> Status {
    // Every query is checked before the first is run.
    std::vector<router::LookupSpec> specs;
    BLOOMROUTE_RETURN_IF_ERROR(FromThrift(queries, &specs));
    BLOOMROUTE_ASSIGN_OR_RETURN(std::vector<router::LookupResult> found,
                                router_->LookupMultiple(table, specs));
    result.assign(found.size(), client::TIndexResult());
    for (size_t i = 0; i < found.size(); ++i) {
      BLOOMROUTE_RETURN_IF_ERROR(
          ToThrift(std::move(found[i]), queries[i].compactRows, &result[i]));
    }
    return Status::OK();
  });
}

void RouterServiceHandler::countByIndex(client::TIndexCount& result,
                                        const std::string& table,
                                        const client::TIndexQuery& tquery) {
  ServeCall("countByIndex", [&]() -> Status {
    router::LookupSpec spec;
    BLOOMROUTE_RETURN_IF_ERROR(FromThrift(tquery, &spec));
    BLOOMROUTE_ASSIGN_OR_RETURN(router::CountResult counted,
                                router_->Count(table, spec));
    return ToThrift(counted, &result);
  });
}

void RouterServiceHandler::getIndexStats(
    std::vector<client::TServerIndexStats>& result) {
  ServeCall("getIndexStats", [&]() -> Status {
    return ToThrift(router_->IndexStats(), &result);
  });
}

void RouterServiceHandler::getClusterStatus(client::TClusterStatus& result) {
  ServeCall("getClusterStatus", [&]() -> Status {
    return ToThrift(router_->GetClusterStatus(), &result);
  });
}

void RouterServiceHandler::getClusterMembers(client::TClusterMembers& result) {
  ServeCall("getClusterMembers", [&]() -> Status {
    if (!services_.members) {
      return Status::InvalidArgument(
          "this router keeps its catalog alone (--data): it has no "
          "ZooKeeper members to list");
    }
    BLOOMROUTE_ASSIGN_OR_RETURN(const coord::ClusterMembers members,
                                services_.members());
    MembersToThrift(members, &result);
    return Status::OK();
  });
}

void RouterServiceHandler::listServers(
    std::vector<client::TServerSummary>& result) {
  ServeCall("listServers", [&]() -> Status {
    std::vector<router::ServerSummary> servers = router_->ListServers();
    if (services_.members) {
      // Liveness from ZooKeeper, by address; without an answer from it the
      // listing goes on without the column.
      StatusOr<coord::ClusterMembers> members = services_.members();
      if (members.ok()) {
        std::set<std::string> live;
        for (const coord::LiveRegionServer& s : members->region_servers) {
          live.insert(s.address);
        }
        for (router::ServerSummary& s : servers) {
          s.live = live.count(s.server.address) != 0;
        }
      }
    }
    return thrift_internal::ServerSummariesToThrift(servers, &result);
  });
}

void RouterServiceHandler::listRegions(
    std::vector<client::TRegionSummary>& result, const std::string& table) {
  ServeCall("listRegions", [&]() -> Status {
    NoteCallTable(table);
    BLOOMROUTE_ASSIGN_OR_RETURN(std::vector<router::RegionSummary> regions,
                                router_->ListRegions(table));
    return thrift_internal::RegionSummariesToThrift(regions, &result);
  });
}

namespace {

Status ServerIdFromThrift(int32_t in, router::ServerId* out) {
  if (in <= 0) {
    return Status::InvalidArgument("serverId " + std::to_string(in) +
                                   " is not a region server id (ids are >= 1)");
  }
  *out = static_cast<router::ServerId>(in);
  return Status::OK();
}

}  // namespace

void RouterServiceHandler::addServer(client::TServerRef& result,
                                     const std::string& address) {
  ServeCall("addServer", [&]() -> Status {
    BLOOMROUTE_ASSIGN_OR_RETURN(router::ServerRef added,
                                router_->AddServer(address));
    return ServerToThrift(added, &result);
  });
}

void RouterServiceHandler::setServerAddress(int32_t server_id,
                                            const std::string& address) {
  ServeCall("setServerAddress", [&]() -> Status {
    router::ServerId id = 0;
    BLOOMROUTE_RETURN_IF_ERROR(ServerIdFromThrift(server_id, &id));
    return router_->SetServerAddress(id, address);
  });
}

void RouterServiceHandler::removeServer(int32_t server_id) {
  ServeCall("removeServer", [&]() -> Status {
    router::ServerId id = 0;
    BLOOMROUTE_RETURN_IF_ERROR(ServerIdFromThrift(server_id, &id));
    return router_->RemoveServer(id);
  });
}

void RouterServiceHandler::moveRegion(client::TRegionOpResult& result,
                                      int64_t region_id, int32_t server_id) {
  ServeCall("moveRegion", [&]() -> Status {
    uint64_t region = 0;
    router::ServerId to = 0;
    BLOOMROUTE_RETURN_IF_ERROR(
        UnsignedFromThrift(region_id, "regionId", &region));
    BLOOMROUTE_RETURN_IF_ERROR(ServerIdFromThrift(server_id, &to));
    BLOOMROUTE_ASSIGN_OR_RETURN(router::RegionOpResult done,
                                router_->MoveRegion(region, to));
    return thrift_internal::RegionOpResultToThrift(done, &result);
  });
}

void RouterServiceHandler::splitRegion(client::TRegionOpResult& result,
                                       int64_t region_id,
                                       const std::string& split_row) {
  ServeCall("splitRegion", [&]() -> Status {
    uint64_t region = 0;
    BLOOMROUTE_RETURN_IF_ERROR(
        UnsignedFromThrift(region_id, "regionId", &region));
    // Row keys are never empty: an empty splitRow asks for the median.
    std::optional<std::string> at;
    if (!split_row.empty()) at = split_row;
    BLOOMROUTE_ASSIGN_OR_RETURN(router::RegionOpResult done,
                                router_->SplitRegion(region, at));
    return thrift_internal::RegionOpResultToThrift(done, &result);
  });
}

void RouterServiceHandler::mergeRegions(client::TRegionOpResult& result,
                                        int64_t region_a, int64_t region_b) {
  ServeCall("mergeRegions", [&]() -> Status {
    uint64_t a = 0, b = 0;
    BLOOMROUTE_RETURN_IF_ERROR(UnsignedFromThrift(region_a, "regionA", &a));
    BLOOMROUTE_RETURN_IF_ERROR(UnsignedFromThrift(region_b, "regionB", &b));
    BLOOMROUTE_ASSIGN_OR_RETURN(router::RegionOpResult done,
                                router_->MergeRegions(a, b));
    return thrift_internal::RegionOpResultToThrift(done, &result);
  });
}

void RouterServiceHandler::balance(client::TBalanceReport& result,
                                   int32_t max_operations) {
  ServeCall("balance", [&]() -> Status {
    if (max_operations < 0 ||
        static_cast<uint32_t>(max_operations) >
            router::RouterOptions::kMaxBalancerOperations) {
      return Status::InvalidArgument(
          "maxOperations " + std::to_string(max_operations) +
          " is not in [0, " +
          std::to_string(router::RouterOptions::kMaxBalancerOperations) +
          "] (0: the router's --balancer-max-operations)");
    }
    BLOOMROUTE_ASSIGN_OR_RETURN(
        router::BalanceReport report,
        router_->Balance(static_cast<uint32_t>(max_operations)));
    return thrift_internal::BalanceReportToThrift(report, &result);
  });
}

void RouterServiceHandler::decommissionServer(
    std::vector<client::TBalanceStep>& result, int32_t server_id) {
  ServeCall("decommissionServer", [&]() -> Status {
    router::ServerId id = 0;
    BLOOMROUTE_RETURN_IF_ERROR(ServerIdFromThrift(server_id, &id));
    BLOOMROUTE_ASSIGN_OR_RETURN(std::vector<router::BalanceReport::Step> moves,
                                router_->DecommissionServer(id));
    return thrift_internal::BalanceStepsToThrift(moves, &result);
  });
}

void RouterServiceHandler::setQuota(const client::TQuota& quota) {
  ServeCall("setQuota", [&]() -> Status {
    router::Quota q;
    BLOOMROUTE_RETURN_IF_ERROR(thrift_internal::QuotaFromThrift(quota, &q));
    // As calls name it: "default:t" is "t".
    if (!q.table.empty()) {
      BLOOMROUTE_RETURN_IF_ERROR(TableFromThrift(q.table, &q.table));
    }
    return router_->SetQuota(q);
  });
}

void RouterServiceHandler::listQuotas(std::vector<client::TQuota>& result) {
  ServeCall("listQuotas", [&]() -> Status {
    const std::shared_ptr<const std::vector<router::Quota>> quotas =
        router_->Quotas();
    result.resize(quotas->size());
    for (size_t i = 0; i < quotas->size(); ++i) {
      thrift_internal::QuotaToThrift((*quotas)[i], &result[i]);
    }
    return Status::OK();
  });
}

void RouterServiceHandler::bulkLoad(const std::string& table, int64_t region_id,
                                    const std::string& file) {
  ServeCall("bulkLoad", [&]() -> Status {
    NoteCallTable(table);
    uint64_t id = 0;
    BLOOMROUTE_RETURN_IF_ERROR(UnsignedFromThrift(region_id, "regionId", &id));
    return router_->BulkLoad(table, id, file);
  });
}

void RouterServiceHandler::verifyIndex(client::TVerifyReport& result,
                                       const std::string& table) {
  ServeCall("verifyIndex", [&]() -> Status {
    NoteCallTable(table);
    BLOOMROUTE_ASSIGN_OR_RETURN(router::VerifyReport report,
                                router_->VerifyIndex(table));
    return ToThrift(report, &result);
  });
}

void RouterServiceHandler::addIndex(const std::string& table,
                                    const std::string& column) {
  ServeCall("addIndex", [&]() -> Status {
    NoteCallTable(table);
    std::unique_lock<std::timed_mutex> edits;
    BLOOMROUTE_RETURN_IF_ERROR(thrift_internal::LockSchemaEdits(&edits));
    return router_->AddIndex(table, column);
  });
}

void RouterServiceHandler::dropIndex(const std::string& table,
                                     const std::string& column) {
  ServeCall("dropIndex", [&]() -> Status {
    NoteCallTable(table);
    std::unique_lock<std::timed_mutex> edits;
    BLOOMROUTE_RETURN_IF_ERROR(thrift_internal::LockSchemaEdits(&edits));
    return router_->DropIndex(table, column);
  });
}

void RouterServiceHandler::getIndexStatus(
    std::vector<client::TIndexStatus>& result, const std::string& table) {
  ServeCall("getIndexStatus", [&]() -> Status {
    NoteCallTable(table);
    BLOOMROUTE_ASSIGN_OR_RETURN(std::vector<router::IndexState> status,
                                router_->IndexStatus(table));
    return ToThrift(status, &result);
  });
}

}  // namespace bloomroute
