#include "coord/catalog/catalog_migration.h"

#include <random>
#include <string>
#include <vector>

#include "coord/catalog/internal/znode_layout.h"
#include "coord/catalog/zk_catalog_store.h"
#include "router/catalog_records.h"
#include "router/cluster_id.h"
#include "router/page_token.h"

namespace bloomroute::coord {
namespace {

using catalog_internal::EncodeCount;
using catalog_internal::EncodeHead;
using catalog_internal::EncodeIds;
using catalog_internal::EncodeQuotas;
using catalog_internal::Head;
using catalog_internal::Ids;
using router::CatalogRecords;

// Deletes `path` and everything under it.
Status DeleteTree(ZnodeStore* store, const std::string& path) {
  StatusOr<std::vector<std::string>> children = store->Children(path);
  if (children.status().IsNotFound()) return Status::OK();
  BLOOMROUTE_RETURN_IF_ERROR(children.status());
  for (const std::string& child : *children) {
    BLOOMROUTE_RETURN_IF_ERROR(DeleteTree(store, path + "/" + child));
  }
  Status deleted = store->Delete(path);
  return deleted.IsNotFound() ? Status::OK() : deleted;
}

// Refuses a complete catalog; removes a copy that stopped half-way.
Status ClearTarget(ZnodeStore* to) {
  StatusOr<ZnodeData> root = to->Get(catalog_internal::kRoot);
  if (root.status().IsNotFound()) return Status::OK();
  BLOOMROUTE_RETURN_IF_ERROR(root.status());
  if (root->data != catalog_internal::kMigratingRoot) {
    StatusOr<std::vector<std::string>> tables =
        to->Children(catalog_internal::kTables);
    return Status::InvalidArgument(
        "the cluster already has a catalog in ZooKeeper (" +
        (tables.ok() ? std::to_string(tables->size()) + " tables"
                     : tables.status().ToString()) +
        "): migrate into a new --cluster name");
  }
  return DeleteTree(to, catalog_internal::kRoot);
}

Status CopyRecords(router::CatalogStore& from, ZnodeStore* to,
                   MigrationReport* report) {
  for (const router::CatalogServer& s : from.Servers()) {
    BLOOMROUTE_RETURN_IF_ERROR(to->Create(catalog_internal::ServerPath(s.id),
                                          CatalogRecords::EncodeServer(s))
                                   .status());
    ++report->servers;
  }
  std::mt19937_64 rng(std::random_device{}());
  const std::shared_ptr<const router::CatalogStore::TableList> tables =
      from.Tables();
  for (const router::CatalogTable& t : *tables) {
    BLOOMROUTE_RETURN_IF_ERROR(catalog_internal::WriteChunkedRecord(
        to, catalog_internal::TablePath(t.descriptor.table_id),
        CatalogRecords::EncodeTable(t), ZnodeCatalogOptions::kChunkBytes,
        rng() | 1));
    ++report->tables;
  }
  const std::shared_ptr<const router::CatalogStore::QuotaList> quotas =
      from.Quotas();
  if (!quotas->empty()) {
    BLOOMROUTE_RETURN_IF_ERROR(catalog_internal::WriteChunkedRecord(
        to, catalog_internal::kQuotas, EncodeQuotas(*quotas),
        ZnodeCatalogOptions::kChunkBytes, rng() | 1));
  }
  report->quotas = quotas->size();
  const std::shared_ptr<const router::CatalogStore::NamespaceList> namespaces =
      from.Namespaces();
  BLOOMROUTE_RETURN_IF_ERROR(catalog_internal::WriteChunkedRecord(
      to, catalog_internal::kNamespaces,
      CatalogRecords::EncodeNamespaces(*namespaces),
      ZnodeCatalogOptions::kChunkBytes, rng() | 1));
  report->namespaces = namespaces->size();
  const std::shared_ptr<const router::CatalogStore::GrantList> grants =
      from.Grants();
  BLOOMROUTE_RETURN_IF_ERROR(catalog_internal::WriteChunkedRecord(
      to, catalog_internal::kGrants, CatalogRecords::EncodeGrants(*grants),
      ZnodeCatalogOptions::kChunkBytes, rng() | 1));
  report->grants = grants->size();
  return Status::OK();
}

}  // namespace

StatusOr<MigrationReport> MigrateCatalog(router::CatalogStore& from,
                                         ZnodeStore* to) {
  BLOOMROUTE_RETURN_IF_ERROR(ClearTarget(to));
  const router::CatalogStore::Counters counters = from.GetCounters();
  BLOOMROUTE_ASSIGN_OR_RETURN(std::string fresh, router::NewPageTokenKey());
  BLOOMROUTE_ASSIGN_OR_RETURN(const std::string key, from.PageTokenKey(fresh));
  // The cluster keeps its id (a catalog without one gets one now).
  BLOOMROUTE_ASSIGN_OR_RETURN(std::string fresh_id, router::NewClusterId());
  BLOOMROUTE_ASSIGN_OR_RETURN(const std::string id, from.ClusterId(fresh_id));
  const std::string versioned_key =
      std::string(1, static_cast<char>(catalog_internal::kRecordVersion)) + key;
  BLOOMROUTE_RETURN_IF_ERROR(
      to
          ->Multi({
              ZnodeOp::Create(catalog_internal::kRoot,
                              catalog_internal::kMigratingRoot),
              ZnodeOp::Create(
                  catalog_internal::kIds,
                  EncodeIds(Ids{counters.next_server_id, counters.next_table_id,
                                counters.next_region_id})),
              ZnodeOp::Create(catalog_internal::kStarts,
                              EncodeCount(counters.router_starts)),
              ZnodeOp::Create(catalog_internal::kKeyPath, versioned_key),
              ZnodeOp::Create(catalog_internal::kClusterIdPath,
                              catalog_internal::EncodeOnceRecord(id)),
              ZnodeOp::Create(catalog_internal::kServers, ""),
              ZnodeOp::Create(catalog_internal::kTables, ""),
              ZnodeOp::Create(catalog_internal::kQuotas, EncodeHead(Head{})),
          })
          .status());
  MigrationReport report;
  report.router_starts = counters.router_starts;
  BLOOMROUTE_RETURN_IF_ERROR(CopyRecords(from, to, &report));
  // Complete: routers may open it now.
  BLOOMROUTE_RETURN_IF_ERROR(
      to->Set(
            catalog_internal::kRoot,
            std::string(1, static_cast<char>(catalog_internal::kLayoutVersion)))
          .status());
  return report;
}

}  // namespace bloomroute::coord
