#include "router/internal/catalog.h"

#include <rocksdb/cache.h>
#include <rocksdb/db.h>
#include <rocksdb/options.h>
#include <rocksdb/table.h>
#include <rocksdb/write_batch.h>

#include <algorithm>
#include <tuple>
#include <utility>

#include "common/coding.h"
#include "common/sync_point.h"
#include "router/catalog_records.h"
#include "router/cluster_id.h"
#include "router/page_token.h"

namespace bloomroute::router_internal {
namespace {

// The store's own records (counters, router starts, page token key, cluster
// id) are in
// CatalogRecords::kFormatVersion; servers, tables and quotas are
// CatalogRecords.
constexpr uint8_t kFormatVersion = router::CatalogRecords::kFormatVersion;
// Keys: one tag byte, then a big-endian id so that iteration is by id.
constexpr char kCountersKey[] = "m";
constexpr char kRouterStartsKey[] = "r";
constexpr char kPageTokenKeyKey[] = "k";
constexpr char kClusterIdKey[] = "c";
constexpr char kNamespacesKey[] = "n";
constexpr char kGrantsKey[] = "g";
constexpr char kServerTag = 's';
constexpr char kTableTag = 't';
constexpr char kQuotaTag = router::CatalogRecords::kQuotaTag;

bool QuotaOrder(const router::Quota& a, const router::Quota& b) {
  return std::tie(a.user, a.table) < std::tie(b.user, b.table);
}

Status FromRocks(const rocksdb::Status& s, const char* what) {
  if (s.ok()) return Status::OK();
  std::string msg = std::string("catalog ") + what + ": " + s.ToString();
  if (s.IsCorruption()) return Status::Corruption(msg);
  return Status::IOError(msg);
}

std::string ServerKey(router::ServerId id) {
  std::string k(1, kServerTag);
  PutBigEndian32(&k, id);
  return k;
}

std::string TableKey(uint64_t id) {
  std::string k(1, kTableTag);
  PutBigEndian64(&k, id);
  return k;
}

}  // namespace

struct Catalog::Db {
  std::unique_ptr<rocksdb::DB> db;
};

Catalog::Catalog(std::unique_ptr<Db> db) : db_(std::move(db)) {}

Catalog::~Catalog() {
  if (db_->db != nullptr) db_->db->Close().PermitUncheckedError();
}

StatusOr<std::unique_ptr<Catalog>> Catalog::Open(const std::string& dir) {
  rocksdb::Options options;
  options.create_if_missing = true;
  options.IncreaseParallelism(1);
  // The catalog is small (servers, tables, quotas, grants: KiBs to a few
  // MiB), read once here (Load) and served from memory after. RocksDB's
  // defaults are sized for data: a 64 MiB memtable (two while one flushes)
  // and an 8 MiB block cache of its own. 4 MiB and 1 MiB bound it the way a
  // region store's memory is bounded (regionstore/region_store.cc,
  // "Memory"), at the price of a flush every 4 MiB of catalog writes.
  options.write_buffer_size = 4 << 20;
  rocksdb::BlockBasedTableOptions table;
  table.block_cache = rocksdb::NewLRUCache(1 << 20);
  options.table_factory.reset(rocksdb::NewBlockBasedTableFactory(table));
  rocksdb::DB* raw = nullptr;
  BLOOMROUTE_RETURN_IF_ERROR(
      FromRocks(rocksdb::DB::Open(options, dir, &raw), "open"));
  auto db = std::make_unique<Db>();
  db->db.reset(raw);
  std::unique_ptr<Catalog> catalog(new Catalog(std::move(db)));
  BLOOMROUTE_RETURN_IF_ERROR(catalog->Load());
  return catalog;
}

Status Catalog::Load() {
  auto tables = std::make_shared<TableList>();
  auto quotas = std::make_shared<QuotaList>();
  std::unique_ptr<rocksdb::Iterator> it(
      db_->db->NewIterator(rocksdb::ReadOptions()));
  for (it->SeekToFirst(); it->Valid(); it->Next()) {
    BLOOMROUTE_RETURN_IF_ERROR(
        LoadRecord(std::string_view(it->key().data(), it->key().size()),
                   std::string_view(it->value().data(), it->value().size()),
                   tables.get(), quotas.get()));
  }
  BLOOMROUTE_RETURN_IF_ERROR(FromRocks(it->status(), "read"));
  RaiseIdCounters(*tables);
  tables_ = std::move(tables);
  std::sort(quotas->begin(), quotas->end(), QuotaOrder);
  quotas_ = std::move(quotas);
  return Status::OK();
}

Status Catalog::LoadRecord(std::string_view key, std::string_view value,
                           TableList* tables, QuotaList* quotas) {
  ByteReader r(value);
  if (key == kCountersKey) {
    BLOOMROUTE_RETURN_IF_ERROR(router::CatalogRecords::ReadVersion(&r));
    uint64_t server_id = 0;
    BLOOMROUTE_RETURN_IF_ERROR(r.ReadFixed64(&server_id, "next server id"));
    BLOOMROUTE_RETURN_IF_ERROR(r.ReadFixed64(&next_table_id_, "next table"));
    BLOOMROUTE_RETURN_IF_ERROR(
        r.ReadFixed64(&next_region_id_, "next region id"));
    next_server_id_ = static_cast<router::ServerId>(
        std::max<uint64_t>(next_server_id_, server_id));
  } else if (key == kRouterStartsKey) {
    BLOOMROUTE_RETURN_IF_ERROR(router::CatalogRecords::ReadVersion(&r));
    BLOOMROUTE_RETURN_IF_ERROR(r.ReadFixed64(&router_starts_, "starts"));
  } else if (key == kPageTokenKeyKey) {
    BLOOMROUTE_RETURN_IF_ERROR(router::CatalogRecords::ReadVersion(&r));
    std::string_view k;
    BLOOMROUTE_RETURN_IF_ERROR(
        r.ReadBytes(router::kPageTokenKeyBytes, &k, "page token key"));
    if (!r.empty()) return Status::Corruption("catalog: page token key");
    page_token_key_.assign(k);
  } else if (key == kClusterIdKey) {
    BLOOMROUTE_RETURN_IF_ERROR(router::CatalogRecords::ReadVersion(&r));
    std::string_view id;
    BLOOMROUTE_RETURN_IF_ERROR(
        r.ReadBytes(router::kClusterIdBytes, &id, "cluster id"));
    if (!r.empty() || !router::IsClusterId(id)) {
      return Status::Corruption("catalog: cluster id");
    }
    cluster_id_.assign(id);
  } else if (key == kNamespacesKey) {
    auto list = std::make_shared<NamespaceList>();
    BLOOMROUTE_RETURN_IF_ERROR(
        router::CatalogRecords::DecodeNamespaces(value, list.get()));
    namespaces_ = std::move(list);
  } else if (key == kGrantsKey) {
    auto list = std::make_shared<GrantList>();
    BLOOMROUTE_RETURN_IF_ERROR(
        router::CatalogRecords::DecodeGrants(value, list.get()));
    grants_ = std::move(list);
  } else if (key.size() == 5 && key[0] == kServerTag) {
    CatalogServer s;
    s.id = static_cast<router::ServerId>(DecodeBigEndian(key.data() + 1, 4));
    BLOOMROUTE_RETURN_IF_ERROR(router::CatalogRecords::DecodeServer(value, &s));
    servers_.push_back(std::move(s));
  } else if (key.size() == 9 && key[0] == kTableTag) {
    CatalogTable t;
    BLOOMROUTE_RETURN_IF_ERROR(router::CatalogRecords::DecodeTable(value, &t));
    tables->push_back(std::move(t));
  } else if (!key.empty() && key[0] == kQuotaTag) {
    router::Quota q;
    BLOOMROUTE_RETURN_IF_ERROR(
        router::CatalogRecords::DecodeQuota(key, value, &q));
    quotas->push_back(std::move(q));
  } else {
    return Status::Corruption("catalog: unknown key");
  }
  return Status::OK();
}

void Catalog::RaiseIdCounters(const TableList& tables) {
  // The counters are written with every record; these maxima only matter if
  // the counter record were lost, and keep ids unique even then.
  for (const CatalogServer& s : servers_) {
    next_server_id_ = std::max(next_server_id_, s.id + 1);
  }
  for (const CatalogTable& t : tables) {
    next_table_id_ = std::max(next_table_id_, t.descriptor.table_id + 1);
    for (const CatalogRegion& r : t.regions) {
      next_region_id_ = std::max(next_region_id_, r.region_id + 1);
    }
    for (const CatalogRegion& r : t.retired_regions) {
      next_region_id_ = std::max(next_region_id_, r.region_id + 1);
    }
    for (const CatalogRegionOp& op : t.region_ops) {
      for (const CatalogRegion& r : op.targets) {
        next_region_id_ = std::max(next_region_id_, r.region_id + 1);
      }
    }
  }
}

Status Catalog::WriteLocked(const std::string& key, const std::string* value) {
  std::string counters(1, static_cast<char>(kFormatVersion));
  PutFixed64(&counters, next_server_id_);
  PutFixed64(&counters, next_table_id_);
  PutFixed64(&counters, next_region_id_);
  rocksdb::WriteBatch batch;
  rocksdb::Status s = batch.Put(kCountersKey, counters);
  if (s.ok()) s = value != nullptr ? batch.Put(key, *value) : batch.Delete(key);
  rocksdb::WriteOptions options;
  options.sync = true;  // catalog changes are rare and must survive
  // Tests fail writes here: before the write (nothing written) or after it
  // (written, yet answered with an error: a sync that failed says nothing
  // of what reached the disk).
  Status injected;
  BLOOMROUTE_SYNC_POINT_ARG("Catalog:BeforeWrite", &injected);
  if (!injected.ok()) return injected;
  if (s.ok()) s = db_->db->Write(options, &batch);
  Status result = FromRocks(s, "write");
  BLOOMROUTE_SYNC_POINT_ARG("Catalog:AfterWrite", &result);
  return result;
}

std::vector<CatalogServer> Catalog::Servers() const {
  std::lock_guard<std::mutex> lock(mu_);
  return servers_;
}

StatusOr<router::ServerId> Catalog::AddServer(const std::string& address) {
  std::lock_guard<std::mutex> lock(mu_);
  for (const CatalogServer& s : servers_) {
    if (!s.removed && s.address == address) return s.id;
  }
  const router::ServerId id = next_server_id_++;
  const CatalogServer added{id, address, false};
  const std::string value = router::CatalogRecords::EncodeServer(added);
  BLOOMROUTE_RETURN_IF_ERROR(WriteLocked(ServerKey(id), &value));
  servers_.push_back(added);
  return id;
}

CatalogServer* Catalog::MemberLocked(router::ServerId id) {
  for (CatalogServer& s : servers_) {
    if (s.id == id && !s.removed) return &s;
  }
  return nullptr;
}

Status Catalog::SetServerAddress(router::ServerId id,
                                 const std::string& address) {
  std::lock_guard<std::mutex> lock(mu_);
  CatalogServer* member = MemberLocked(id);
  if (member == nullptr) {
    return Status::NotFound("no region server " + std::to_string(id));
  }
  for (const CatalogServer& s : servers_) {
    if (!s.removed && s.id != id && s.address == address) {
      return Status::InvalidArgument("address " + address +
                                     " belongs to region server " +
                                     std::to_string(s.id));
    }
  }
  if (member->address == address) return Status::OK();
  CatalogServer changed = *member;
  changed.address = address;
  const std::string value = router::CatalogRecords::EncodeServer(changed);
  BLOOMROUTE_RETURN_IF_ERROR(WriteLocked(ServerKey(id), &value));
  *member = std::move(changed);
  return Status::OK();
}

Status Catalog::RemoveServer(router::ServerId id) {
  std::lock_guard<std::mutex> lock(mu_);
  CatalogServer* member = MemberLocked(id);
  if (member == nullptr) {
    return Status::NotFound("no region server " + std::to_string(id));
  }
  CatalogServer changed = *member;
  changed.removed = true;
  const std::string value = router::CatalogRecords::EncodeServer(changed);
  BLOOMROUTE_RETURN_IF_ERROR(WriteLocked(ServerKey(id), &value));
  *member = std::move(changed);
  return Status::OK();
}

StatusOr<uint64_t> Catalog::RecordRouterStart(uint64_t at_least) {
  std::lock_guard<std::mutex> lock(mu_);
  const uint64_t starts = std::max(router_starts_ + 1, at_least);
  std::string value(1, static_cast<char>(kFormatVersion));
  PutFixed64(&value, starts);
  BLOOMROUTE_RETURN_IF_ERROR(WriteLocked(kRouterStartsKey, &value));
  router_starts_ = starts;
  return starts;
}

CatalogStore::Counters Catalog::GetCounters() const {
  std::lock_guard<std::mutex> lock(mu_);
  return Counters{next_server_id_, next_table_id_, next_region_id_,
                  router_starts_};
}

StatusOr<std::string> Catalog::PageTokenKey(const std::string& fresh) {
  if (fresh.size() != router::kPageTokenKeyBytes) {
    return Status::InvalidArgument("a page token key has " +
                                   std::to_string(router::kPageTokenKeyBytes) +
                                   " bytes");
  }
  std::lock_guard<std::mutex> lock(mu_);
  if (!page_token_key_.empty()) return page_token_key_;
  std::string value(1, static_cast<char>(kFormatVersion));
  value += fresh;
  BLOOMROUTE_RETURN_IF_ERROR(WriteLocked(kPageTokenKeyKey, &value));
  page_token_key_ = fresh;
  return page_token_key_;
}

StatusOr<std::string> Catalog::ClusterId(const std::string& fresh) {
  BLOOMROUTE_RETURN_IF_ERROR(router::CheckClusterId(fresh));
  std::lock_guard<std::mutex> lock(mu_);
  if (!cluster_id_.empty()) return cluster_id_;
  std::string value(1, static_cast<char>(kFormatVersion));
  value += fresh;
  BLOOMROUTE_RETURN_IF_ERROR(WriteLocked(kClusterIdKey, &value));
  cluster_id_ = fresh;
  return cluster_id_;
}

std::shared_ptr<const CatalogStore::TableList> Catalog::Tables() const {
  std::lock_guard<std::mutex> lock(mu_);
  return tables_;
}

uint64_t Catalog::NextTableId() {
  std::lock_guard<std::mutex> lock(mu_);
  return next_table_id_++;
}

uint64_t Catalog::NextRegionId() {
  std::lock_guard<std::mutex> lock(mu_);
  return next_region_id_++;
}

Status Catalog::PutTable(const CatalogTable& table) {
  std::lock_guard<std::mutex> lock(mu_);
  auto same_id = tables_->end();
  for (auto it = tables_->begin(); it != tables_->end(); ++it) {
    if (it->descriptor.table_id == table.descriptor.table_id) {
      same_id = it;
    } else if (it->descriptor.name == table.descriptor.name) {
      return Status::InvalidArgument("table '" + table.descriptor.name +
                                     "' already exists");
    }
  }
  const std::string value = router::CatalogRecords::EncodeTable(table);
  BLOOMROUTE_RETURN_IF_ERROR(
      WriteLocked(TableKey(table.descriptor.table_id), &value));
  // Copy on write: readers keep the snapshot they hold.
  auto next = std::make_shared<TableList>(*tables_);
  if (same_id != tables_->end()) {
    (*next)[static_cast<size_t>(same_id - tables_->begin())] = table;
  } else {
    next->push_back(table);
    std::sort(next->begin(), next->end(),
              [](const CatalogTable& a, const CatalogTable& b) {
                return a.descriptor.table_id < b.descriptor.table_id;
              });
  }
  tables_ = std::move(next);
  return Status::OK();
}

Status Catalog::DeleteTable(uint64_t table_id) {
  std::lock_guard<std::mutex> lock(mu_);
  auto it = std::find_if(
      tables_->begin(), tables_->end(),
      [&](const CatalogTable& t) { return t.descriptor.table_id == table_id; });
  if (it == tables_->end()) return Status::OK();
  BLOOMROUTE_RETURN_IF_ERROR(WriteLocked(TableKey(table_id), nullptr));
  auto next = std::make_shared<TableList>(*tables_);
  next->erase(next->begin() + (it - tables_->begin()));
  tables_ = std::move(next);
  return Status::OK();
}

std::shared_ptr<const CatalogStore::QuotaList> Catalog::Quotas() const {
  // Not mu_: that is held through the synchronous writes of every catalog
  // change, and the router's server reads the quotas on every call.
  std::lock_guard<std::mutex> lock(quotas_mu_);
  return quotas_;
}

Status Catalog::PutQuota(const router::Quota& quota) {
  BLOOMROUTE_RETURN_IF_ERROR(router::ValidateQuota(quota));
  std::lock_guard<std::mutex> lock(mu_);
  auto same = std::find_if(
      quotas_->begin(), quotas_->end(), [&](const router::Quota& q) {
        return q.user == quota.user && q.table == quota.table;
      });
  if (quota.none() && same == quotas_->end()) return Status::OK();
  if (same == quotas_->end() && quotas_->size() >= router::Quota::kMaxQuotas) {
    return Status::InvalidArgument(
        "quota: the router holds " + std::to_string(quotas_->size()) +
        " quotas, the most it keeps; remove one first");
  }
  const std::string value = router::CatalogRecords::EncodeQuota(quota);
  BLOOMROUTE_RETURN_IF_ERROR(
      WriteLocked(router::CatalogRecords::QuotaKey(quota),
                  quota.none() ? nullptr : &value));
  auto next = std::make_shared<QuotaList>(*quotas_);
  if (same != quotas_->end()) {
    next->erase(next->begin() + (same - quotas_->begin()));
  }
  if (!quota.none()) {
    next->insert(
        std::upper_bound(next->begin(), next->end(), quota, QuotaOrder), quota);
  }
  std::lock_guard<std::mutex> publish(quotas_mu_);
  quotas_ = std::move(next);
  return Status::OK();
}

std::shared_ptr<const CatalogStore::NamespaceList> Catalog::Namespaces() const {
  std::lock_guard<std::mutex> lock(mu_);
  return namespaces_;
}

Status Catalog::WriteNamespacesLocked(NamespaceList next) {
  const std::string value = router::CatalogRecords::EncodeNamespaces(next);
  BLOOMROUTE_RETURN_IF_ERROR(WriteLocked(kNamespacesKey, &value));
  namespaces_ = std::make_shared<const NamespaceList>(std::move(next));
  return Status::OK();
}

Status Catalog::PutNamespace(const router::CatalogNamespace& ns) {
  std::lock_guard<std::mutex> lock(mu_);
  BLOOMROUTE_ASSIGN_OR_RETURN(
      NamespaceList next,
      router::CatalogRecords::WithNamespace(*namespaces_, ns));
  return WriteNamespacesLocked(std::move(next));
}

Status Catalog::DeleteNamespace(const std::string& name) {
  std::lock_guard<std::mutex> lock(mu_);
  NamespaceList next =
      router::CatalogRecords::WithoutNamespace(*namespaces_, name);
  if (next.size() == namespaces_->size()) return Status::OK();
  return WriteNamespacesLocked(std::move(next));
}

std::shared_ptr<const CatalogStore::GrantList> Catalog::Grants() const {
  std::lock_guard<std::mutex> lock(mu_);
  return grants_;
}

Status Catalog::ChangeGrant(const router::Grant& grant,
                            router::GrantChange change) {
  std::lock_guard<std::mutex> lock(mu_);
  BLOOMROUTE_ASSIGN_OR_RETURN(GrantList next,
                              router::WithGrantChange(*grants_, grant, change));
  if (next == *grants_) return Status::OK();
  const std::string value = router::CatalogRecords::EncodeGrants(next);
  BLOOMROUTE_RETURN_IF_ERROR(WriteLocked(kGrantsKey, &value));
  grants_ = std::make_shared<const GrantList>(std::move(next));
  return Status::OK();
}

}  // namespace bloomroute::router_internal

namespace bloomroute::router {

StatusOr<std::unique_ptr<CatalogStore>> OpenEmbeddedCatalog(
    const std::string& dir) {
  BLOOMROUTE_ASSIGN_OR_RETURN(std::unique_ptr<router_internal::Catalog> c,
                              router_internal::Catalog::Open(dir));
  return std::unique_ptr<CatalogStore>(std::move(c));
}

}  // namespace bloomroute::router
