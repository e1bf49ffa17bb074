// Namespaces as the Router interface offers them (namespace_admin.h), with
// HBase's rules and errors: NamespaceExistException, NamespaceNotFound-
// Exception and ConstraintException become InvalidArgument / NotFound
// messages that name HBase's exception.
#include "router/coordinator/namespace_admin.h"

#include <algorithm>
#include <charconv>
#include <cstdint>
#include <limits>
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

// A namespace quota setting as HBase reads it (TableNamespaceManager's
// getMaxTables / getMaxRegions): unset or empty is no limit; otherwise a
// Java long (Long.parseLong: an optional sign and decimal digits, no
// spaces, within 64 bits), else DoNotRetryIOException.
Status QuotaSetting(const router::NamespaceDescriptor& ns,
                    const std::string& key, const char* what, int64_t* limit) {
  *limit = std::numeric_limits<int64_t>::max();
  auto it = ns.configuration.find(key);
  if (it == ns.configuration.end() || it->second.empty()) return Status::OK();
  const std::string& v = it->second;
  const size_t sign = (v[0] == '+' || v[0] == '-') ? 1 : 0;
  const bool decimal = v.size() > sign &&
                       std::all_of(v.begin() + sign, v.end(),
                                   [](char c) { return c >= '0' && c <= '9'; });
  const char* end = v.data() + v.size();
  auto [stop, ec] = std::from_chars(v.data() + (v[0] == '+'), end, *limit);
  if (!decimal || stop != end || ec != std::errc()) {
    return Status::InvalidArgument(
        std::string("NumberFormatException while getting max ") + what + ": " +
        key + " is " + QuoteForMessage(v) + " (DoNotRetryIOException)");
  }
  return Status::OK();
}

// HBase's check of the quota settings on every create and modify
// (validateTableAndRegionCount: regions, then tables), made whether or not
// quotas are enforced. Neither is enforced here, as in HBase with its
// default hbase.quota.enabled=false: the settings are kept and returned.
Status ValidateQuotaSettings(const router::NamespaceDescriptor& ns) {
  struct Setting {
    const char* key;
    const char* parsed;  // in NumberFormatException's message
    const char* quota;   // in ConstraintException's
  };
  const Setting settings[] = {
      {"hbase.namespace.quota.maxregions", "regions", "region"},
      {"hbase.namespace.quota.maxtables", "tables", "tables"}};
  for (const Setting& s : settings) {
    int64_t limit = 0;
    BLOOMROUTE_RETURN_IF_ERROR(QuotaSetting(ns, s.key, s.parsed, &limit));
    if (limit <= 0) {
      return Status::InvalidArgument(
          std::string("The max ") + s.quota + " quota for " +
          QuoteForMessage(ns.name) +
          " is less than or equal to zero (ConstraintException)");
    }
  }
  return Status::OK();
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
  BLOOMROUTE_RETURN_IF_ERROR(ValidateQuotaSettings(ns));
  return ctx_.catalog->PutNamespace(ns);
}

Status NamespaceAdmin::ModifyNamespace(const router::NamespaceDescriptor& ns) {
  std::lock_guard<std::timed_mutex> lock(*ctx_.ddl_mu);
  if (!NamespaceExists(*ctx_.catalog, ns.name)) return NotFound(ns.name);
  BLOOMROUTE_RETURN_IF_ERROR(ValidateQuotaSettings(ns));
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
