// NamespaceAdmin: HBase's namespaces (NamespaceDescriptor) -- create,
// modify, delete, describe, list, and the tables of one. A namespace is a
// name and a configuration kept in the catalog (CatalogStore::Namespaces);
// a table lives in the namespace its name starts with (model/table_name.h).
// Admin calls: changes run on the coordinator under the DDL lock, which
// also serializes table creation, so that a namespace is never deleted
// while a table is being created in it. Create and modify check the
// quota settings as HBase does (hbase.namespace.quota.maxtables and
// maxregions: positive Java longs, else InvalidArgument naming
// ConstraintException or NumberFormatException) and keep them; they are
// not enforced, as in HBase with its default hbase.quota.enabled=false.
//
// Thread-safe: reads work on the catalog's snapshots; changes take ddl_mu.
#ifndef BLOOMROUTE_ROUTER_COORDINATOR_NAMESPACE_ADMIN_H_
#define BLOOMROUTE_ROUTER_COORDINATOR_NAMESPACE_ADMIN_H_

#include <string_view>
#include <vector>

#include "common/status.h"
#include "common/statusor.h"
#include "router/catalog_store.h"
#include "router/internal/router_context.h"
#include "router/router.h"

namespace bloomroute::router_internal {

// Whether namespace `ns` exists in `catalog`: `default`, `hbase` or one
// with a record.
bool NamespaceExists(const CatalogStore& catalog, std::string_view ns);
// OK when a user table may be created in namespace `ns` (the errors of
// Router::CreateTable for namespaces).
[[nodiscard]] Status CheckTableNamespace(const CatalogStore& catalog,
                                         std::string_view ns);

class NamespaceAdmin {
 public:
  // `ctx` outlives the admin.
  explicit NamespaceAdmin(const RouterContext& ctx) : ctx_(ctx) {}
  NamespaceAdmin(const NamespaceAdmin&) = delete;
  NamespaceAdmin& operator=(const NamespaceAdmin&) = delete;

  // The contracts of these calls are Router's (router/router.h).
  [[nodiscard]] Status CreateNamespace(const router::NamespaceDescriptor& ns);
  [[nodiscard]] Status ModifyNamespace(const router::NamespaceDescriptor& ns);
  [[nodiscard]] Status DeleteNamespace(std::string_view name);
  StatusOr<router::NamespaceDescriptor> GetNamespace(
      std::string_view name) const;
  std::vector<router::NamespaceDescriptor> ListNamespaces() const;
  StatusOr<std::vector<TableDescriptor>> ListTablesInNamespace(
      std::string_view name) const;

 private:
  const RouterContext& ctx_;
};

}  // namespace bloomroute::router_internal

#endif  // BLOOMROUTE_ROUTER_COORDINATOR_NAMESPACE_ADMIN_H_
