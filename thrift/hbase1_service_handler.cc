#include "thrift/hbase1_service_handler.h"

#include <utility>

#include "thrift/conversion/hbase1_conversion.h"
#include "thrift/conversion/hbase_conversion.h"
#include "thrift/internal/serve_hbase1_call.h"

namespace bloomroute {

namespace thrift_internal {

namespace {
constexpr char kInvalidArgumentPrefix[] = "InvalidArgument: ";
}  // namespace

void ThrowIfHbase1Error(const Status& status, Hbase1Declares declares) {
  if (status.ok()) return;
  if (status.IsInvalidArgument() || status.IsNotFound()) {
    ThrowHbase1IllegalArgument(status.ToString(), declares);
  }
  ThrowHbase1IOError(status.ToString(), status.IsUnavailable(), declares);
}

void ThrowHbase1IllegalArgument(const std::string& message,
                                Hbase1Declares declares) {
  if (declares == Hbase1Declares::kIllegalArgument) {
    rpc::hbase1::IllegalArgument error;
    error.__set_message(message);
    throw error;
  }
  rpc::hbase1::IOError error;
  error.__set_message(message);
  throw error;
}

void ThrowHbase1IOError(const std::string& message, bool can_retry,
                        Hbase1Declares declares) {
  // The Thrift2 calls that declare TIOError alone send bad arguments as
  // TIOError "InvalidArgument: ...".
  if (message.rfind(kInvalidArgumentPrefix, 0) == 0) {
    ThrowHbase1IllegalArgument(message, declares);
  }
  rpc::hbase1::IOError error;
  error.__set_message(message);
  if (can_retry) error.__set_canRetry(true);
  throw error;
}

}  // namespace thrift_internal

namespace {

namespace h1 = rpc::hbase1;
namespace h2 = rpc::client;
using thrift_internal::Hbase1Declares;
using thrift_internal::ServeHbase1Call;

constexpr Hbase1Declares kIO = Hbase1Declares::kIOError;
constexpr Hbase1Declares kIA = Hbase1Declares::kIllegalArgument;

}  // namespace

Hbase1ServiceHandler::Hbase1ServiceHandler(
    std::shared_ptr<router::Router> router, RouterServiceHandler* thrift2)
    : router_(std::move(router)), thrift2_(thrift2) {}

// ---- Tables ----

Status Hbase1ServiceHandler::CheckTableExists(const Text& table) const {
  std::string name;
  BLOOMROUTE_RETURN_IF_ERROR(TableFromThrift(table, &name));
  return router_->DescribeTable(name).status();
}

void Hbase1ServiceHandler::enableTable(const std::string& table) {
  ServeHbase1Call("enableTable", kIO, [&]() -> Status {
    h2::TTableName name;
    BLOOMROUTE_RETURN_IF_ERROR(
        Thrift1TableToThrift2(table, "tableName", &name));
    thrift2_->enableTable(name);
    return Status::OK();
  });
}

void Hbase1ServiceHandler::disableTable(const std::string& table) {
  ServeHbase1Call("disableTable", kIO, [&]() -> Status {
    h2::TTableName name;
    BLOOMROUTE_RETURN_IF_ERROR(
        Thrift1TableToThrift2(table, "tableName", &name));
    thrift2_->disableTable(name);
    return Status::OK();
  });
}

bool Hbase1ServiceHandler::isTableEnabled(const std::string& table) {
  bool enabled = false;
  ServeHbase1Call("isTableEnabled", kIO, [&]() -> Status {
    h2::TTableName name;
    BLOOMROUTE_RETURN_IF_ERROR(
        Thrift1TableToThrift2(table, "tableName", &name));
    enabled = thrift2_->isTableEnabled(name);
    return Status::OK();
  });
  return enabled;
}

Status Hbase1ServiceHandler::CheckTableOrRegionExists(const Text& name) {
  // A table's name has no ','; a region's is "table,startKey,id".
  const size_t comma = name.find(',');
  if (comma == std::string::npos) return CheckTableExists(name);
  BLOOMROUTE_RETURN_IF_ERROR(CheckTableExists(name.substr(0, comma)));
  std::vector<h2::THRegionLocation> locations;
  thrift2_->getAllRegionLocations(locations, name.substr(0, comma));
  for (const h2::THRegionLocation& location : locations) {
    if (RegionInfoFromThrift2(location).name == name) return Status::OK();
  }
  return Status::NotFound("region '" + name + "' does not exist");
}

void Hbase1ServiceHandler::compact(const std::string& table_or_region) {
  ServeHbase1Call("compact", kIO, [&]() -> Status {
    // RocksDB compacts by itself: only the name is checked.
    return CheckTableOrRegionExists(table_or_region);
  });
}

void Hbase1ServiceHandler::majorCompact(const std::string& table_or_region) {
  ServeHbase1Call("majorCompact", kIO, [&]() -> Status {
    return CheckTableOrRegionExists(table_or_region);
  });
}

void Hbase1ServiceHandler::getTableNames(std::vector<Text>& result) {
  ServeHbase1Call("getTableNames", kIO, [&]() -> Status {
    result.clear();
    for (const TableDescriptor& table : router_->ListTables()) {
      result.push_back(table.name);
    }
    return Status::OK();
  });
}

void Hbase1ServiceHandler::getTableNamesWithIsTableEnabled(
    std::map<Text, bool>& result) {
  ServeHbase1Call("getTableNamesWithIsTableEnabled", kIO, [&]() -> Status {
    result.clear();
    for (const TableDescriptor& table : router_->ListTables()) {
      StatusOr<router::TableInfo> info = router_->DescribeTable(table.name);
      if (info.status().IsNotFound()) continue;  // deleted meanwhile
      BLOOMROUTE_RETURN_IF_ERROR(info.status());
      result[table.name] = info->enabled;
    }
    return Status::OK();
  });
}

void Hbase1ServiceHandler::getColumnDescriptors(
    std::map<Text, h1::ColumnDescriptor>& result, const Text& table) {
  ServeHbase1Call("getColumnDescriptors", kIO, [&]() -> Status {
    h2::TTableName name;
    BLOOMROUTE_RETURN_IF_ERROR(
        Thrift1TableToThrift2(table, "tableName", &name));
    h2::TTableDescriptor desc;
    thrift2_->getTableDescriptor(desc, name);
    result.clear();
    for (const h2::TColumnFamilyDescriptor& family : desc.columns) {
      result[family.name + ":"] = ColumnDescriptorFromThrift2(family);
    }
    return Status::OK();
  });
}

void Hbase1ServiceHandler::getTableRegions(std::vector<h1::TRegionInfo>& result,
                                           const Text& table) {
  ServeHbase1Call("getTableRegions", kIO, [&]() -> Status {
    result.clear();
    // As HBase's Thrift1 server: a table that does not exist has no regions.
    const Status exists = CheckTableExists(table);
    if (exists.IsNotFound()) return Status::OK();
    BLOOMROUTE_RETURN_IF_ERROR(exists);
    std::vector<h2::THRegionLocation> locations;
    thrift2_->getAllRegionLocations(locations, table);
    for (const h2::THRegionLocation& location : locations) {
      result.push_back(RegionInfoFromThrift2(location));
    }
    return Status::OK();
  });
}

void Hbase1ServiceHandler::createTable(
    const Text& table, const std::vector<h1::ColumnDescriptor>& families) {
  ServeHbase1Call("createTable", kIA, [&]() -> Status {
    h2::TTableDescriptor desc;
    BLOOMROUTE_RETURN_IF_ERROR(
        Thrift1TableToThrift2(table, "tableName", &desc.tableName));
    desc.__isset.tableName = true;
    if (families.empty()) {
      return Status::InvalidArgument(
          "columnFamilies is empty: a table needs a column family");
    }
    for (size_t i = 0; i < families.size(); ++i) {
      h2::TColumnFamilyDescriptor family;
      BLOOMROUTE_RETURN_IF_ERROR(ColumnDescriptorToThrift2(
          families[i], "columnFamilies[" + std::to_string(i) + "]", &family));
      desc.columns.push_back(std::move(family));
    }
    desc.__isset.columns = true;
    if (thrift2_->tableExists(desc.tableName)) {
      h1::AlreadyExists exists;
      exists.__set_message("table " + table + " already exists");
      throw exists;
    }
    thrift2_->createTable(desc, {});
    return Status::OK();
  });
}

void Hbase1ServiceHandler::deleteTable(const Text& table) {
  ServeHbase1Call("deleteTable", kIO, [&]() -> Status {
    h2::TTableName name;
    BLOOMROUTE_RETURN_IF_ERROR(
        Thrift1TableToThrift2(table, "tableName", &name));
    thrift2_->deleteTable(name);
    return Status::OK();
  });
}

h1::TThriftServerType::type Hbase1ServiceHandler::getThriftServerType() {
  return h1::TThriftServerType::ONE;
}

void Hbase1ServiceHandler::getClusterId(std::string& result) {
  // Declares nothing: a failure reaches the client as an application
  // error (as HBase's would).
  thrift2_->getClusterId(result);
}

namespace {

// `info` as the Thrift2 call takes it (the same fields and ids).
h2::TAccessControlEntity EntityToThrift2(const h1::TAccessControlEntity& info) {
  h2::TAccessControlEntity out;
  out.__set_username(info.username);
  out.__set_scope(static_cast<h2::TPermissionScope::type>(
      static_cast<int32_t>(info.scope)));
  out.__set_actions(info.actions);
  if (info.__isset.tableName) out.__set_tableName(info.tableName);
  if (info.__isset.nsName) out.__set_nsName(info.nsName);
  return out;
}

}  // namespace

bool Hbase1ServiceHandler::grant(const h1::TAccessControlEntity& info) {
  ServeHbase1Call("grant", kIO, [&]() -> Status {
    thrift2_->grant(EntityToThrift2(info));
    return Status::OK();
  });
  return true;
}

bool Hbase1ServiceHandler::revoke(const h1::TAccessControlEntity& info) {
  ServeHbase1Call("revoke", kIO, [&]() -> Status {
    thrift2_->revoke(EntityToThrift2(info));
    return Status::OK();
  });
  return true;
}

// ---- The factory ----

Hbase1ServiceHandlerFactory::Hbase1ServiceHandlerFactory(
    std::shared_ptr<router::Router> router, HandlerServices services)
    : router_(router), thrift2_(std::move(router), std::move(services)) {}

h1::HbaseIf* Hbase1ServiceHandlerFactory::getHandler(
    const apache::thrift::TConnectionInfo& connection) {
  auto* thrift2 =
      dynamic_cast<RouterServiceHandler*>(thrift2_.getHandler(connection));
  return new Hbase1ServiceHandler(router_, thrift2);
}

void Hbase1ServiceHandlerFactory::releaseHandler(h1::HbaseIf* handler) {
  auto* mine = dynamic_cast<Hbase1ServiceHandler*>(handler);
  thrift2_.releaseHandler(mine->thrift2());
  delete mine;
}

}  // namespace bloomroute
