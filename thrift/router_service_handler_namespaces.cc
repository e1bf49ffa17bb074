// RouterServiceHandler's HBase namespace calls (router/router.h,
// Router::CreateNamespace and the rest, has their rules) and online schema
// changes (Router::ModifyTable; the family calls edit the table's current
// descriptor and modify the table with it).
#include <mutex>
#include <string>
#include <utility>
#include <vector>

#include "model/table_attributes.h"
#include "thrift/conversion/hbase_conversion.h"
#include "thrift/internal/schema_edits.h"
#include "thrift/internal/serve_call.h"
#include "thrift/router_service_handler.h"

namespace bloomroute {

namespace client = rpc::client;
using thrift_internal::ServeHBaseCall;

namespace {

enum class FamilyEdit { kAdd, kModify, kDelete };

// The position of family `name` in `desc.columns`, or -1.
int FamilyAt(const client::TTableDescriptor& desc, const std::string& name) {
  for (size_t i = 0; i < desc.columns.size(); ++i) {
    if (desc.columns[i].name == name) return static_cast<int>(i);
  }
  return -1;
}

// HBase's InvalidFamilyOperationException cases.
Status CheckFamilyEdit(const client::TTableDescriptor& desc,
                       const std::string& table, const std::string& family,
                       FamilyEdit edit) {
  const bool exists = FamilyAt(desc, family) >= 0;
  const std::string what = "family " + QuoteForMessage(family) + " of table " +
                           QuoteForMessage(table);
  if (edit == FamilyEdit::kAdd && exists) {
    return Status::InvalidArgument(what +
                                   " already exists, so it cannot be added "
                                   "(InvalidFamilyOperationException)");
  }
  if (edit != FamilyEdit::kAdd && !exists) {
    return Status::InvalidArgument(what +
                                   " does not exist "
                                   "(InvalidFamilyOperationException)");
  }
  if (edit == FamilyEdit::kDelete && desc.columns.size() == 1) {
    return Status::InvalidArgument(
        what +
        " is the only column family of the table, so it cannot be "
        "deleted (InvalidFamilyOperationException)");
  }
  return Status::OK();
}

// The table's descriptor with one family edited, as a spec for
// Router::ModifyTable: its indexed columns (building ones too) unchanged.
Status EditFamily(router::Router& router, const client::TTableName& table_name,
                  const client::TColumnFamilyDescriptor* column,
                  const std::string& family, FamilyEdit edit,
                  router::TableSpec* spec) {
  std::string name;
  BLOOMROUTE_RETURN_IF_ERROR(TableFromThrift(table_name, "tableName", &name));
  BLOOMROUTE_ASSIGN_OR_RETURN(const router::TableInfo info,
                              router.DescribeTable(name));
  client::TTableDescriptor desc;
  BLOOMROUTE_RETURN_IF_ERROR(HBaseDescriptorToThrift(info.descriptor, &desc));
  BLOOMROUTE_RETURN_IF_ERROR(CheckFamilyEdit(desc, name, family, edit));
  const int at = FamilyAt(desc, family);
  if (edit == FamilyEdit::kAdd) desc.columns.push_back(*column);
  if (edit == FamilyEdit::kModify)
    desc.columns[static_cast<size_t>(at)] = *column;
  if (edit == FamilyEdit::kDelete) {
    desc.columns.erase(desc.columns.begin() + at);
  }
  std::vector<std::string> indexed;
  BLOOMROUTE_ASSIGN_OR_RETURN(const std::vector<router::IndexState> states,
                              router.IndexStatus(name));
  for (const router::IndexState& s : states) {
    if (s.state == router::IndexState::State::kDropping) continue;
    if (edit == FamilyEdit::kDelete && s.column.rfind(family + ":", 0) == 0) {
      return Status::InvalidArgument(
          "family " + QuoteForMessage(family) + " of table " +
          QuoteForMessage(name) + " has the indexed column " +
          QuoteForMessage(s.column) + ": drop the index first");
    }
    indexed.push_back(s.column);
  }
  desc.attributes.erase(std::string(kIndexAttribute));
  // __set_ does not mark a field of default requiredness as set.
  desc.__isset.tableName = true;
  for (client::TColumnFamilyDescriptor& c : desc.columns) c.__isset.name = true;
  BLOOMROUTE_RETURN_IF_ERROR(FromThrift(desc, {}, spec));
  spec->region_count = 0;  // a schema change, not a new table's regions
  spec->attributes.erase(std::string(kIndexAttribute));
  spec->indexed_columns = std::move(indexed);
  return Status::OK();
}

}  // namespace

void RouterServiceHandler::modifyTable(const client::TTableDescriptor& desc) {
  ServeHBaseCall("modifyTable", [&]() -> Status {
    std::unique_lock<std::timed_mutex> edits;
    BLOOMROUTE_RETURN_IF_ERROR(thrift_internal::LockSchemaEdits(&edits));
    router::TableSpec spec;
    BLOOMROUTE_RETURN_IF_ERROR(FromThrift(desc, {}, &spec));
    spec.region_count = 0;  // a schema change, not a new table's regions
    return router_->ModifyTable(spec);
  });
}

void RouterServiceHandler::addColumnFamily(
    const client::TTableName& table_name,
    const client::TColumnFamilyDescriptor& column) {
  ServeHBaseCall("addColumnFamily", [&]() -> Status {
    std::unique_lock<std::timed_mutex> edits;
    BLOOMROUTE_RETURN_IF_ERROR(thrift_internal::LockSchemaEdits(&edits));
    router::TableSpec spec;
    BLOOMROUTE_RETURN_IF_ERROR(EditFamily(
        *router_, table_name, &column, column.name, FamilyEdit::kAdd, &spec));
    return router_->ModifyTable(spec);
  });
}

void RouterServiceHandler::modifyColumnFamily(
    const client::TTableName& table_name,
    const client::TColumnFamilyDescriptor& column) {
  ServeHBaseCall("modifyColumnFamily", [&]() -> Status {
    std::unique_lock<std::timed_mutex> edits;
    BLOOMROUTE_RETURN_IF_ERROR(thrift_internal::LockSchemaEdits(&edits));
    router::TableSpec spec;
    BLOOMROUTE_RETURN_IF_ERROR(EditFamily(*router_, table_name, &column,
                                          column.name, FamilyEdit::kModify,
                                          &spec));
    return router_->ModifyTable(spec);
  });
}

void RouterServiceHandler::deleteColumnFamily(
    const client::TTableName& table_name, const std::string& column) {
  ServeHBaseCall("deleteColumnFamily", [&]() -> Status {
    std::unique_lock<std::timed_mutex> edits;
    BLOOMROUTE_RETURN_IF_ERROR(thrift_internal::LockSchemaEdits(&edits));
    router::TableSpec spec;
    BLOOMROUTE_RETURN_IF_ERROR(EditFamily(*router_, table_name, nullptr, column,
                                          FamilyEdit::kDelete, &spec));
    return router_->ModifyTable(spec);
  });
}

void RouterServiceHandler::createNamespace(
    const client::TNamespaceDescriptor& namespace_desc) {
  ServeHBaseCall("createNamespace", [&]() -> Status {
    router::NamespaceDescriptor ns;
    BLOOMROUTE_RETURN_IF_ERROR(FromThrift(namespace_desc, &ns));
    return router_->CreateNamespace(ns);
  });
}

void RouterServiceHandler::modifyNamespace(
    const client::TNamespaceDescriptor& namespace_desc) {
  ServeHBaseCall("modifyNamespace", [&]() -> Status {
    router::NamespaceDescriptor ns;
    BLOOMROUTE_RETURN_IF_ERROR(FromThrift(namespace_desc, &ns));
    return router_->ModifyNamespace(ns);
  });
}

void RouterServiceHandler::deleteNamespace(const std::string& name) {
  ServeHBaseCall("deleteNamespace",
                 [&]() -> Status { return router_->DeleteNamespace(name); });
}

void RouterServiceHandler::getNamespaceDescriptor(
    client::TNamespaceDescriptor& result, const std::string& name) {
  ServeHBaseCall("getNamespaceDescriptor", [&]() -> Status {
    BLOOMROUTE_ASSIGN_OR_RETURN(const router::NamespaceDescriptor ns,
                                router_->GetNamespace(name));
    result = ToThrift(ns);
    return Status::OK();
  });
}

void RouterServiceHandler::listNamespaceDescriptors(
    std::vector<client::TNamespaceDescriptor>& result) {
  ServeHBaseCall("listNamespaceDescriptors", [&]() -> Status {
    result.clear();
    for (const router::NamespaceDescriptor& ns : router_->ListNamespaces()) {
      result.push_back(ToThrift(ns));
    }
    return Status::OK();
  });
}

void RouterServiceHandler::listNamespaces(std::vector<std::string>& result) {
  ServeHBaseCall("listNamespaces", [&]() -> Status {
    result.clear();
    for (const router::NamespaceDescriptor& ns : router_->ListNamespaces()) {
      result.push_back(ns.name);
    }
    return Status::OK();
  });
}

void RouterServiceHandler::getTableDescriptorsByNamespace(
    std::vector<client::TTableDescriptor>& result, const std::string& name) {
  ServeHBaseCall("getTableDescriptorsByNamespace", [&]() -> Status {
    BLOOMROUTE_ASSIGN_OR_RETURN(const std::vector<TableDescriptor> tables,
                                router_->ListTablesInNamespace(name));
    result.clear();
    for (const TableDescriptor& t : tables) {
      client::TTableDescriptor descriptor;
      BLOOMROUTE_RETURN_IF_ERROR(HBaseDescriptorToThrift(t, &descriptor));
      result.push_back(std::move(descriptor));
    }
    return Status::OK();
  });
}

void RouterServiceHandler::getTableNamesByNamespace(
    std::vector<client::TTableName>& result, const std::string& name) {
  ServeHBaseCall("getTableNamesByNamespace", [&]() -> Status {
    BLOOMROUTE_ASSIGN_OR_RETURN(const std::vector<TableDescriptor> tables,
                                router_->ListTablesInNamespace(name));
    result.clear();
    for (const TableDescriptor& t : tables) {
      result.push_back(TableNameToThrift(t.name));
    }
    return Status::OK();
  });
}

}  // namespace bloomroute
