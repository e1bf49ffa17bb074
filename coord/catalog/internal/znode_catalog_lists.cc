// ZnodeCatalog's records kept as one list (chunked, under one head):
// quotas, namespaces and grants. A change writes the whole list anew and
// switches its head in the Multi that checks the ids' version, so it is atomic;
// each chunk stays under ZnodeCatalogOptions::chunk_bytes.
#include <algorithm>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "coord/catalog/internal/znode_catalog.h"
#include "coord/catalog/internal/znode_layout.h"

namespace bloomroute::coord::catalog_internal {

Status ZnodeCatalog::PutQuota(const Quota& quota) {
  BLOOMROUTE_RETURN_IF_ERROR(router::ValidateQuota(quota));
  std::lock_guard<std::mutex> lock(mu_);
  return ChangeLocked([&]() -> StatusOr<Plan> {
    auto next = std::make_shared<QuotaList>(*quotas_);
    auto same = std::find_if(next->begin(), next->end(), [&](const Quota& q) {
      return q.user == quota.user && q.table == quota.table;
    });
    if (quota.none() && same == next->end()) return Plan{};
    if (same == next->end() && next->size() >= Quota::kMaxQuotas) {
      return Status::InvalidArgument(
          "quota: the router holds " + std::to_string(next->size()) +
          " quotas, the most it keeps; remove one first");
    }
    if (same != next->end()) next->erase(same);
    if (!quota.none()) {
      next->insert(
          std::upper_bound(next->begin(), next->end(), quota, QuotaOrder),
          quota);
    }
    Head written;
    BLOOMROUTE_ASSIGN_OR_RETURN(
        std::vector<ZnodeOp> ops,
        ChunkedWriteLocked(kQuotas, EncodeQuotas(*next), true, quota_head_,
                           &written));
    return Plan{std::move(ops), [this, next, written] {
                  quota_head_ = written;
                  std::lock_guard<std::mutex> snap(snap_mu_);
                  quotas_ = next;
                }};
  });
}

Status ZnodeCatalog::LoadNamespacesLocked(Loaded* out) {
  StatusOr<ZnodeData> head = store_->Get(kNamespaces);
  if (!head.ok()) {
    return head.status().IsNotFound() ? Status::OK() : head.status();
  }
  out->namespaces_exist = true;
  BLOOMROUTE_RETURN_IF_ERROR(DecodeHead(head->data, &out->namespace_head));
  BLOOMROUTE_ASSIGN_OR_RETURN(
      std::string record, ReadChunkedLocked(kNamespaces, out->namespace_head));
  return CatalogRecords::DecodeNamespaces(record, out->namespaces.get());
}

StatusOr<Plan> ZnodeCatalog::NamespacesPlanLocked(NamespaceList next) {
  auto list = std::make_shared<const NamespaceList>(std::move(next));
  Head written;
  BLOOMROUTE_ASSIGN_OR_RETURN(
      std::vector<ZnodeOp> ops,
      ChunkedWriteLocked(kNamespaces, CatalogRecords::EncodeNamespaces(*list),
                         namespaces_exist_, namespace_head_, &written));
  return Plan{std::move(ops), [this, list, written] {
                namespace_head_ = written;
                namespaces_exist_ = true;
                std::lock_guard<std::mutex> snap(snap_mu_);
                namespaces_ = list;
              }};
}

Status ZnodeCatalog::PutNamespace(const router::CatalogNamespace& ns) {
  std::lock_guard<std::mutex> lock(mu_);
  return ChangeLocked([&]() -> StatusOr<Plan> {
    BLOOMROUTE_ASSIGN_OR_RETURN(
        NamespaceList next, CatalogRecords::WithNamespace(*namespaces_, ns));
    return NamespacesPlanLocked(std::move(next));
  });
}

Status ZnodeCatalog::DeleteNamespace(const std::string& name) {
  std::lock_guard<std::mutex> lock(mu_);
  return ChangeLocked([&]() -> StatusOr<Plan> {
    NamespaceList next = CatalogRecords::WithoutNamespace(*namespaces_, name);
    if (next.size() == namespaces_->size()) return Plan{};
    return NamespacesPlanLocked(std::move(next));
  });
}

Status ZnodeCatalog::LoadGrantsLocked(Loaded* out) {
  StatusOr<ZnodeData> head = store_->Get(kGrants);
  if (!head.ok()) {
    return head.status().IsNotFound() ? Status::OK() : head.status();
  }
  out->grants_exist = true;
  BLOOMROUTE_RETURN_IF_ERROR(DecodeHead(head->data, &out->grant_head));
  BLOOMROUTE_ASSIGN_OR_RETURN(std::string record,
                              ReadChunkedLocked(kGrants, out->grant_head));
  return CatalogRecords::DecodeGrants(record, out->grants.get());
}

Status ZnodeCatalog::ChangeGrant(const router::Grant& grant,
                                 router::GrantChange change) {
  std::lock_guard<std::mutex> lock(mu_);
  return ChangeLocked([&]() -> StatusOr<Plan> {
    BLOOMROUTE_ASSIGN_OR_RETURN(
        GrantList next, router::WithGrantChange(*grants_, grant, change));
    if (next == *grants_) return Plan{};
    auto list = std::make_shared<const GrantList>(std::move(next));
    Head written;
    BLOOMROUTE_ASSIGN_OR_RETURN(
        std::vector<ZnodeOp> ops,
        ChunkedWriteLocked(kGrants, CatalogRecords::EncodeGrants(*list),
                           grants_exist_, grant_head_, &written));
    return Plan{std::move(ops), [this, list, written] {
                  grant_head_ = written;
                  grants_exist_ = true;
                  std::lock_guard<std::mutex> snap(snap_mu_);
                  grants_ = list;
                }};
  });
}

}  // namespace bloomroute::coord::catalog_internal
