// Namespaces as the Router interface offers them (namespace_admin.h), with
// HBase's rules and errors: NamespaceExistException, NamespaceNotFound-
// Exception and ConstraintException become InvalidArgument / NotFound
// messages that name HBase's exception.
#include "router/coordinator/namespace_admin.h"

#include <algorithm>
#include <mutex>
#include <string>

#include "model/table_name.h"
#include "router/coordinator/index_tasks.h"

namespace bloomroute::router_internal {
namespace {

bool IsReserved(std::string_view ns) {
  return ns == kDefaultNamespace || ns == kSystemNamespace;
}

Status NotFound(std::string_view ns) {
  return Status::NotFound("namespace " + QuoteForMessage(ns) +
                          " does not exist (NamespaceNotFoundException)");
}

// The record of `ns`, or null.
const router::CatalogNamespace* Find(const CatalogStore::NamespaceList& list,
                                     std::string_view ns) {
  for (const router::CatalogNamespace& n : list) {
    if (n.name == ns) return &n;
  }
  return nullptr;
}

}  // namespace

bool NamespaceExists(const CatalogStore& catalog, std::string_view ns) {
  return IsReserved(ns) || Find(*catalog.Namespaces(), ns) != nullptr;
}

Status CheckTableNamespace(const CatalogStore& catalog, std::string_view ns) {
  if (ns == kSystemNamespace) {
    return Status::InvalidArgument(
        "namespace 'hbase' holds only HBase's system tables: a table cannot "
        "be created in it");
  }
  if (!NamespaceExists(catalog, ns)) return NotFound(ns);
  return Status::OK();
}

Status NamespaceAdmin::CreateNamespace(const router::NamespaceDescriptor& ns) {
  BLOOMROUTE_RETURN_IF_ERROR(ValidateNamespaceName(ns.name));
  std::lock_guard<std::timed_mutex> lock(*ctx_.ddl_mu);
  if (NamespaceExists(*ctx_.catalog, ns.name)) {
    return Status::InvalidArgument("namespace " + QuoteForMessage(ns.name) +
                                   " already exists (NamespaceExistException)");
  }
  return ctx_.catalog->PutNamespace(ns);
}

Status NamespaceAdmin::ModifyNamespace(const router::NamespaceDescriptor& ns) {
  std::lock_guard<std::timed_mutex> lock(*ctx_.ddl_mu);
  if (!NamespaceExists(*ctx_.catalog, ns.name)) return NotFound(ns.name);
  return ctx_.catalog->PutNamespace(ns);
}

Status NamespaceAdmin::DeleteNamespace(std::string_view name) {
  if (IsReserved(name)) {
    return Status::InvalidArgument("Reserved namespace " +
                                   QuoteForMessage(name) +
                                   " cannot be removed (ConstraintException)");
  }
  std::lock_guard<std::timed_mutex> lock(*ctx_.ddl_mu);
  if (!NamespaceExists(*ctx_.catalog, name)) return NotFound(name);
  // Tables still being deleted count: their names are still taken.
  const std::shared_ptr<const CatalogStore::TableList> tables =
      ctx_.catalog->Tables();
  const size_t in_it = static_cast<size_t>(
      std::count_if(tables->begin(), tables->end(), [&](const CatalogTable& t) {
        return NamespaceOf(t.descriptor.name) == name;
      }));
  if (in_it > 0) {
    return Status::InvalidArgument(
        "Only empty namespaces can be removed. Namespace " +
        QuoteForMessage(name) + " has " + std::to_string(in_it) +
        " tables (ConstraintException)");
  }
  return ctx_.catalog->DeleteNamespace(std::string(name));
}

StatusOr<router::NamespaceDescriptor> NamespaceAdmin::GetNamespace(
    std::string_view name) const {
  const std::shared_ptr<const CatalogStore::NamespaceList> list =
      ctx_.catalog->Namespaces();
  if (const router::CatalogNamespace* found = Find(*list, name)) return *found;
  if (IsReserved(name))
    return router::NamespaceDescriptor{std::string(name), {}};
  return NotFound(name);
}

std::vector<router::NamespaceDescriptor> NamespaceAdmin::ListNamespaces()
    const {
  std::vector<router::NamespaceDescriptor> out = *ctx_.catalog->Namespaces();
  for (std::string_view reserved : {kDefaultNamespace, kSystemNamespace}) {
    if (Find(out, reserved) == nullptr) {
      out.push_back(router::NamespaceDescriptor{std::string(reserved), {}});
    }
  }
  std::sort(out.begin(), out.end(),
            [](const router::CatalogNamespace& a,
               const router::CatalogNamespace& b) { return a.name < b.name; });
  return out;
}

StatusOr<std::vector<TableDescriptor>> NamespaceAdmin::ListTablesInNamespace(
    std::string_view name) const {
  if (!NamespaceExists(*ctx_.catalog, name)) return NotFound(name);
  std::vector<TableDescriptor> out;
  for (const auto& t : ctx_.tables->Tables()) {
    if (NamespaceOf(t->record.descriptor.name) == name) {
      out.push_back(ReadyDescriptor(t->record.descriptor));
    }
  }
  return out;
}

}  // namespace bloomroute::router_internal
