#include "coord/catalog/zk_catalog_store.h"

#include <xxhash.h>

#include <algorithm>
#include <condition_variable>
#include <cstdio>
#include <limits>
#include <map>
#include <random>
#include <set>
#include <thread>
#include <tuple>
#include <utility>

#include "common/coding.h"
#include "common/log.h"
#include "coord/catalog/internal/znode_catalog.h"
#include "coord/catalog/internal/znode_layout.h"
#include "router/catalog_records.h"
#include "router/cluster_id.h"
#include "router/page_token.h"

namespace bloomroute::coord {
namespace catalog_internal {

ZnodeCatalog::~ZnodeCatalog() {
  {
    std::lock_guard<std::mutex> lock(reconnect_mu_);
    stopping_ = true;
  }
  reconnect_cv_.notify_all();
  if (reconnect_thread_.joinable()) reconnect_thread_.join();
  // The store's destructor waits for a running callback, which may wait for
  // mu_: destroy it without holding mu_.
  std::unique_ptr<ZnodeStore> store;
  {
    std::lock_guard<std::mutex> lock(mu_);
    store = std::move(store_);
  }
  store.reset();
}

Status ZnodeCatalog::Start() {
  {
    std::lock_guard<std::mutex> lock(mu_);
    BLOOMROUTE_RETURN_IF_ERROR(ReconnectLocked());
  }
  reconnect_thread_ = std::thread([this] { ReconnectLoop(); });
  return Status::OK();
}

Status ZnodeCatalog::ReconnectLocked() {
  BLOOMROUTE_ASSIGN_OR_RETURN(std::unique_ptr<ZnodeStore> store,
                              options_.connect());
  if (store == nullptr) return Status::InvalidArgument("connect gave no store");
  std::unique_ptr<ZnodeStore> old = std::move(store_);
  store_ = std::move(store);
  store_->AddSessionListener([this](SessionState s) { OnSession(s); });
  BLOOMROUTE_RETURN_IF_ERROR(EnsureLayoutLocked());
  return LoadLocked();
  // `old` (an expired store) closes here; its callbacks only log.
}

Status ZnodeCatalog::UsableLocked() {
  if (store_ != nullptr && store_->State() != SessionState::kExpired) {
    return Status::OK();
  }
  return ReconnectLocked();
}

void ZnodeCatalog::OnSession(SessionState state) {
  if (state == SessionState::kConnected) {
    // Watches that a failed read did not set: look again.
    WatchIds(WatchEvent{WatchEventType::kDataChanged, kIds});
  } else if (state == SessionState::kExpired) {
    std::lock_guard<std::mutex> lock(reconnect_mu_);
    expired_ = true;
    reconnect_cv_.notify_all();
  }
}

void ZnodeCatalog::ReconnectLoop() {
  std::unique_lock<std::mutex> lock(reconnect_mu_);
  while (!stopping_) {
    reconnect_cv_.wait(lock, [this] { return stopping_ || expired_; });
    if (stopping_) break;
    lock.unlock();
    Status s;
    {
      std::lock_guard<std::mutex> catalog_lock(mu_);
      s = UsableLocked();
    }
    if (!s.ok()) Log(LogLevel::kWarn, "catalog", "reconnect: " + s.ToString());
    lock.lock();
    if (s.ok()) {
      expired_ = false;
      if (options_.on_change) {
        lock.unlock();
        options_.on_change();
        lock.lock();
      }
    } else {
      reconnect_cv_.wait_for(lock, std::chrono::seconds(1),
                             [this] { return stopping_; });
    }
  }
}

void ZnodeCatalog::WatchIds(const WatchEvent& event) {
  if (event.type == WatchEventType::kSessionExpired) return;
  bool changed = false;
  {
    std::lock_guard<std::mutex> lock(mu_);
    if (store_ == nullptr || store_->State() == SessionState::kExpired) return;
    StatusOr<ZnodeData> ids = store_->Get(kIds, IdsWatcher());
    if (!ids.ok() || ids->version == ids_version_) return;
    Status s = LoadLocked();
    if (!s.ok()) {
      Log(LogLevel::kWarn, "catalog", "reload: " + s.ToString());
      return;
    }
    changed = true;
  }
  if (changed && options_.on_change) options_.on_change();
}

Status ZnodeCatalog::EnsureLayoutLocked() {
  StatusOr<ZnodeData> root = store_->Get(kRoot);
  if (root.ok()) {
    if (root->data == kMigratingRoot) {
      return Status::Unavailable(
          "catalog: a bloomroute migrate into this cluster did not finish: "
          "run it again");
    }
    if (root->data != std::string(1, static_cast<char>(kLayoutVersion))) {
      return Status::Corruption("catalog: layout of an unknown version");
    }
    return Status::OK();
  }
  if (!root.status().IsNotFound()) return root.status();
  StatusOr<std::vector<std::string>> made = store_->Multi({
      ZnodeOp::Create(kRoot, std::string(1, static_cast<char>(kLayoutVersion))),
      ZnodeOp::Create(kIds, EncodeIds(Ids{})),
      ZnodeOp::Create(kStarts, EncodeCount(0)),
      ZnodeOp::Create(kServers, ""),
      ZnodeOp::Create(kTables, ""),
      ZnodeOp::Create(kQuotas, EncodeHead(Head{})),
      ZnodeOp::Create(kNamespaces, EncodeHead(Head{})),
      ZnodeOp::Create(kGrants, EncodeHead(Head{})),
  });
  // Another router made it first: fine.
  if (!made.ok() && !IsNodeExists(made.status())) return made.status();
  return Status::OK();
}

Status ZnodeCatalog::LoadLocked() {
  for (int attempt = 0; attempt < options_.max_attempts; ++attempt) {
    Loaded loaded;
    BLOOMROUTE_RETURN_IF_ERROR(LoadOnceLocked(&loaded));
    // The ids again, watched: a change during the load moved their version.
    BLOOMROUTE_ASSIGN_OR_RETURN(ZnodeData ids, store_->Get(kIds, IdsWatcher()));
    if (ids.version != loaded.ids_version) continue;
    InstallLocked(std::move(loaded));
    return Status::OK();
  }
  return Status::Aborted("catalog: it kept changing while being loaded");
}

Status ZnodeCatalog::LoadOnceLocked(Loaded* out) {
  BLOOMROUTE_ASSIGN_OR_RETURN(ZnodeData ids, store_->Get(kIds));
  BLOOMROUTE_RETURN_IF_ERROR(DecodeIds(ids.data, &out->ids));
  out->ids_version = ids.version;
  BLOOMROUTE_ASSIGN_OR_RETURN(ZnodeData starts, store_->Get(kStarts));
  BLOOMROUTE_RETURN_IF_ERROR(DecodeCount(starts.data, &out->starts));
  BLOOMROUTE_RETURN_IF_ERROR(
      LoadOnceRecordLocked(kKeyPath, router::kPageTokenKeyBytes,
                           "page token key", &out->page_token_key));
  BLOOMROUTE_RETURN_IF_ERROR(LoadOnceRecordLocked(
      kClusterIdPath, router::kClusterIdBytes, "cluster id", &out->cluster_id));
  BLOOMROUTE_RETURN_IF_ERROR(LoadServersLocked(out));
  BLOOMROUTE_RETURN_IF_ERROR(LoadTablesLocked(out));
  BLOOMROUTE_ASSIGN_OR_RETURN(ZnodeData quota_head, store_->Get(kQuotas));
  BLOOMROUTE_RETURN_IF_ERROR(DecodeHead(quota_head.data, &out->quota_head));
  BLOOMROUTE_ASSIGN_OR_RETURN(std::string quotas,
                              ReadChunkedLocked(kQuotas, out->quota_head));
  BLOOMROUTE_RETURN_IF_ERROR(DecodeQuotas(quotas, out->quotas.get()));
  BLOOMROUTE_RETURN_IF_ERROR(LoadNamespacesLocked(out));
  return LoadGrantsLocked(out);
}

Status ZnodeCatalog::LoadOnceRecordLocked(const char* path, size_t bytes,
                                          const char* what, std::string* out) {
  StatusOr<ZnodeData> node = store_->Get(path);
  if (!node.ok()) return node.status().IsNotFound() ? Status() : node.status();
  return catalog_internal::DecodeOnceRecord(node->data, bytes, what, out);
}

Status ZnodeCatalog::LoadServersLocked(Loaded* out) {
  BLOOMROUTE_ASSIGN_OR_RETURN(std::vector<std::string> names,
                              store_->Children(kServers));
  for (const std::string& name : names) {
    CatalogServer s;
    uint64_t id = 0;
    if (name.size() != 11 || name[0] != 's' ||
        std::sscanf(name.c_str() + 1, "%10lu", &id) != 1 ||
        id > std::numeric_limits<ServerId>::max()) {
      return Status::Corruption("catalog: server node " + name);
    }
    BLOOMROUTE_ASSIGN_OR_RETURN(
        ZnodeData data, store_->Get(std::string(kServers) + "/" + name));
    BLOOMROUTE_RETURN_IF_ERROR(CatalogRecords::DecodeServer(data.data, &s));
    s.id = static_cast<ServerId>(id);
    out->servers.push_back(std::move(s));
  }
  std::sort(out->servers.begin(), out->servers.end(),
            [](const CatalogServer& a, const CatalogServer& b) {
              return a.id < b.id;
            });
  return Status::OK();
}

Status ZnodeCatalog::LoadTablesLocked(Loaded* out) {
  BLOOMROUTE_ASSIGN_OR_RETURN(std::vector<std::string> names,
                              store_->Children(kTables));
  for (const std::string& name : names) {
    const std::string path = std::string(kTables) + "/" + name;
    BLOOMROUTE_ASSIGN_OR_RETURN(ZnodeData data, store_->Get(path));
    Head head;
    BLOOMROUTE_RETURN_IF_ERROR(DecodeHead(data.data, &head));
    if (head.generation == 0) continue;  // chunks still being written
    BLOOMROUTE_ASSIGN_OR_RETURN(std::string record,
                                ReadChunkedLocked(path, head));
    CatalogTable t;
    BLOOMROUTE_RETURN_IF_ERROR(CatalogRecords::DecodeTable(record, &t));
    if (path != TablePath(t.descriptor.table_id)) {
      return Status::Corruption("catalog: table node " + name +
                                " holds another table");
    }
    out->table_heads[t.descriptor.table_id] = head;
    out->tables->push_back(std::move(t));
  }
  std::sort(out->tables->begin(), out->tables->end(),
            [](const CatalogTable& a, const CatalogTable& b) {
              return a.descriptor.table_id < b.descriptor.table_id;
            });
  return Status::OK();
}

StatusOr<std::string> ZnodeCatalog::ReadChunkedLocked(const std::string& path,
                                                      const Head& head) {
  std::string record;
  if (head.generation == 0) return record;  // none written yet
  for (uint32_t i = 0; i < head.chunks; ++i) {
    BLOOMROUTE_ASSIGN_OR_RETURN(
        ZnodeData chunk, store_->Get(ChunkPath(path, head.generation, i)));
    if (record.size() + chunk.data.size() > head.bytes) {
      return Status::Corruption("catalog: record longer than its head says");
    }
    record += chunk.data;
  }
  if (record.size() != head.bytes ||
      XXH64(record.data(), record.size(), 0) != head.hash) {
    return Status::Corruption("catalog: record " + path +
                              " does not match its head's checksum");
  }
  return record;
}

void ZnodeCatalog::InstallLocked(Loaded loaded) {
  ids_version_ = loaded.ids_version;
  // Reservations made in memory stay above what is stored.
  next_.server = std::max(next_.server, loaded.ids.server);
  next_.table = std::max(next_.table, loaded.ids.table);
  next_.region = std::max(next_.region, loaded.ids.region);
  starts_ = loaded.starts;
  page_token_key_ = std::move(loaded.page_token_key);
  cluster_id_ = std::move(loaded.cluster_id);
  table_heads_ = std::move(loaded.table_heads);
  quota_head_ = loaded.quota_head;
  namespace_head_ = loaded.namespace_head;
  namespaces_exist_ = loaded.namespaces_exist;
  grant_head_ = loaded.grant_head;
  grants_exist_ = loaded.grants_exist;
  std::lock_guard<std::mutex> lock(snap_mu_);
  servers_ = std::move(loaded.servers);
  tables_ = std::move(loaded.tables);
  quotas_ = std::move(loaded.quotas);
  namespaces_ = std::move(loaded.namespaces);
  grants_ = std::move(loaded.grants);
}

Status ZnodeCatalog::ChangeLocked(const std::function<StatusOr<Plan>()>& plan) {
  BLOOMROUTE_RETURN_IF_ERROR(UsableLocked());
  for (int attempt = 0; attempt < options_.max_attempts; ++attempt) {
    BLOOMROUTE_ASSIGN_OR_RETURN(Plan p, plan());
    if (p.ops.empty()) return Status::OK();  // nothing to change
    p.ops.insert(p.ops.begin(),
                 ZnodeOp::Set(kIds, EncodeIds(next_), ids_version_));
    size_t failed = 0;
    StatusOr<std::vector<std::string>> done = store_->Multi(p.ops, &failed);
    if (done.ok()) {
      ++ids_version_;  // a Set bumps the version by one
      p.commit();
      return Status::OK();
    }
    // Another router's change came first: load it, then plan again.
    if (!(failed == 0 && IsBadVersion(done.status()))) return done.status();
    BLOOMROUTE_RETURN_IF_ERROR(LoadLocked());
  }
  return Status::Aborted("catalog: other routers' changes kept coming first (" +
                         std::to_string(options_.max_attempts) + " attempts)");
}

StatusOr<std::vector<ZnodeOp>> ZnodeCatalog::ChunkedWriteLocked(
    const std::string& head_path, const std::string& record, bool exists,
    const Head& old, Head* written) {
  const size_t chunk = options_.chunk_bytes;
  uint64_t generation = 0;
  do {
    generation = rng_();
  } while (generation == 0 || generation == old.generation);
  BLOOMROUTE_ASSIGN_OR_RETURN(const Head head,
                              HeadFor(record, chunk, generation));
  std::vector<ZnodeOp> chunks;
  for (uint32_t i = 0; i < head.chunks; ++i) {
    chunks.push_back(ZnodeOp::Create(ChunkPath(head_path, head.generation, i),
                                     record.substr(size_t{i} * chunk, chunk)));
  }
  std::vector<ZnodeOp> ops;
  const bool one_multi = record.size() + 64 <= ZnodeCatalogOptions::kMultiBytes;
  if (!exists && !one_multi) {
    // The chunks need their parent: a head of generation 0 (no record yet).
    Status made = store_->Create(head_path, EncodeHead(Head{})).status();
    if (!made.ok() && !IsNodeExists(made)) return made;
    exists = true;
  }
  ops.push_back(exists ? ZnodeOp::Set(head_path, EncodeHead(head))
                       : ZnodeOp::Create(head_path, EncodeHead(head)));
  if (one_multi) {
    ops.insert(ops.end(), chunks.begin(), chunks.end());
  } else {
    // Chunks an earlier attempt left unreferenced go first.
    BLOOMROUTE_ASSIGN_OR_RETURN(std::vector<std::string> names,
                                store_->Children(head_path));
    const std::string current = "g" + Digits(old.generation, 20) + "_";
    for (const std::string& name : names) {
      if (name.compare(0, current.size(), current) == 0) continue;
      BLOOMROUTE_RETURN_IF_ERROR(store_->Delete(head_path + "/" + name));
    }
    // Unreferenced until the head names their generation.
    for (ZnodeOp& c : chunks) {
      BLOOMROUTE_RETURN_IF_ERROR(store_->Multi({std::move(c)}).status());
    }
  }
  for (uint32_t i = 0; i < old.chunks && old.generation != 0; ++i) {
    ops.push_back(ZnodeOp::Delete(ChunkPath(head_path, old.generation, i)));
  }
  *written = head;
  return ops;
}

const CatalogServer* ZnodeCatalog::MemberAt(const std::string& address) const {
  for (const CatalogServer& s : servers_) {
    if (!s.removed && s.address == address) return &s;
  }
  return nullptr;
}

StatusOr<ServerId> ZnodeCatalog::AddServer(const std::string& address) {
  std::lock_guard<std::mutex> lock(mu_);
  ServerId id = 0;
  BLOOMROUTE_RETURN_IF_ERROR(ChangeLocked([&]() -> StatusOr<Plan> {
    if (const CatalogServer* member = MemberAt(address)) {
      id = member->id;
      return Plan{};
    }
    if (next_.server > std::numeric_limits<ServerId>::max()) {
      return Status::InvalidArgument("catalog: no server id left");
    }
    CatalogServer added;
    added.id = id = static_cast<ServerId>(next_.server++);
    added.address = address;
    Plan plan;
    plan.ops.push_back(ZnodeOp::Create(ServerPath(added.id),
                                       CatalogRecords::EncodeServer(added)));
    plan.commit = [this, added] {
      std::lock_guard<std::mutex> snap(snap_mu_);
      servers_.push_back(added);  // ids only grow: the list stays sorted
    };
    return plan;
  }));
  return id;
}

Plan ZnodeCatalog::ServerChangePlan(const CatalogServer& changed) {
  return Plan{{ZnodeOp::Set(ServerPath(changed.id),
                            CatalogRecords::EncodeServer(changed))},
              [this, changed] {
                std::lock_guard<std::mutex> snap(snap_mu_);
                for (CatalogServer& s : servers_) {
                  if (s.id == changed.id) s = changed;
                }
              }};
}

Status ZnodeCatalog::SetServerAddress(ServerId id, const std::string& address) {
  std::lock_guard<std::mutex> lock(mu_);
  return ChangeLocked([&]() -> StatusOr<Plan> {
    const CatalogServer* other = MemberAt(address);
    if (other != nullptr && other->id != id) {
      return Status::InvalidArgument("server " + std::to_string(other->id) +
                                     " already has the address " + address);
    }
    auto it = std::find_if(servers_.begin(), servers_.end(),
                           [&](const CatalogServer& s) { return s.id == id; });
    if (it == servers_.end() || it->removed) {
      return Status::NotFound("no member server " + std::to_string(id));
    }
    if (it->address == address) return Plan{};
    CatalogServer changed = *it;
    changed.address = address;
    return ServerChangePlan(changed);
  });
}

Status ZnodeCatalog::RemoveServer(ServerId id) {
  std::lock_guard<std::mutex> lock(mu_);
  return ChangeLocked([&]() -> StatusOr<Plan> {
    auto it = std::find_if(servers_.begin(), servers_.end(),
                           [&](const CatalogServer& s) { return s.id == id; });
    if (it == servers_.end() || it->removed) {
      return Status::NotFound("no member server " + std::to_string(id));
    }
    CatalogServer changed = *it;
    changed.removed = true;
    return ServerChangePlan(changed);
  });
}

Status ZnodeCatalog::PutTable(const CatalogTable& table) {
  std::lock_guard<std::mutex> lock(mu_);
  const uint64_t id = table.descriptor.table_id;
  // An id this store reserved is a new table's: if another router's table
  // with that id arrived meanwhile, both reserved it: refuse rather than
  // overwrite.
  const bool reserved = reserved_tables_.count(id) != 0;
  return ChangeLocked([&]() -> StatusOr<Plan> {
    if (reserved && table_heads_.count(id) != 0) {
      return Status::Aborted("catalog: table id " + std::to_string(id) +
                             " was taken by another router's change");
    }
    BLOOMROUTE_RETURN_IF_ERROR(CheckRegionIdsLocked(table));
    for (const CatalogTable& t : *tables_) {
      if (t.descriptor.table_id != id &&
          t.descriptor.name == table.descriptor.name) {
        return Status::InvalidArgument("table '" + table.descriptor.name +
                                       "' already exists");
      }
    }
    auto old = table_heads_.find(id);
    const bool exists = old != table_heads_.end();
    Head written;
    BLOOMROUTE_ASSIGN_OR_RETURN(
        std::vector<ZnodeOp> ops,
        ChunkedWriteLocked(TablePath(id), CatalogRecords::EncodeTable(table),
                           exists, exists ? old->second : Head{}, &written));
    return Plan{std::move(ops), [this, table, id, written] {
                  reserved_tables_.erase(id);
                  table_heads_[id] = written;
                  auto next = std::make_shared<TableList>(*tables_);
                  auto it = std::find_if(next->begin(), next->end(),
                                         [&](const CatalogTable& t) {
                                           return t.descriptor.table_id >= id;
                                         });
                  if (it != next->end() && it->descriptor.table_id == id) {
                    *it = table;
                  } else {
                    next->insert(it, table);
                  }
                  std::lock_guard<std::mutex> snap(snap_mu_);
                  tables_ = std::move(next);
                }};
  });
}

Status ZnodeCatalog::CheckRegionIdsLocked(const CatalogTable& table) const {
  std::set<uint64_t> others;
  for (const CatalogTable& t : *tables_) {
    if (t.descriptor.table_id == table.descriptor.table_id) continue;
    for (const auto* list : {&t.regions, &t.retired_regions}) {
      for (const CatalogRegion& r : *list) others.insert(r.region_id);
    }
    for (const CatalogRegionOp& op : t.region_ops) {
      for (const CatalogRegion& r : op.targets) others.insert(r.region_id);
    }
  }
  for (const CatalogRegion& r : table.regions) {
    if (others.count(r.region_id) != 0) {
      return Status::Aborted("catalog: region id " +
                             std::to_string(r.region_id) +
                             " belongs to another table");
    }
  }
  return Status::OK();
}

Status ZnodeCatalog::DeleteTable(uint64_t table_id) {
  std::lock_guard<std::mutex> lock(mu_);
  return ChangeLocked([&]() -> StatusOr<Plan> {
    if (table_heads_.count(table_id) == 0) return Plan{};
    const std::string path = TablePath(table_id);
    BLOOMROUTE_ASSIGN_OR_RETURN(std::vector<std::string> chunks,
                                store_->Children(path));
    Plan plan;
    for (const std::string& c : chunks) {
      plan.ops.push_back(ZnodeOp::Delete(path + "/" + c));
    }
    plan.ops.push_back(ZnodeOp::Delete(path));
    plan.commit = [this, table_id] {
      table_heads_.erase(table_id);
      auto next = std::make_shared<TableList>(*tables_);
      next->erase(std::remove_if(next->begin(), next->end(),
                                 [&](const CatalogTable& t) {
                                   return t.descriptor.table_id == table_id;
                                 }),
                  next->end());
      std::lock_guard<std::mutex> snap(snap_mu_);
      tables_ = std::move(next);
    };
    return plan;
  });
}

StatusOr<uint64_t> ZnodeCatalog::RecordRouterStart(uint64_t at_least) {
  std::lock_guard<std::mutex> lock(mu_);
  BLOOMROUTE_RETURN_IF_ERROR(UsableLocked());
  for (int attempt = 0; attempt < options_.max_attempts; ++attempt) {
    BLOOMROUTE_ASSIGN_OR_RETURN(ZnodeData data, store_->Get(kStarts));
    uint64_t starts = 0;
    BLOOMROUTE_RETURN_IF_ERROR(DecodeCount(data.data, &starts));
    const uint64_t next = std::max(starts + 1, at_least);
    StatusOr<int32_t> set =
        store_->Set(kStarts, EncodeCount(next), data.version);
    if (set.ok()) return starts_ = next;
    if (!IsBadVersion(set.status())) return set.status();
  }
  return Status::Aborted("catalog: routers kept starting at once");
}

StatusOr<std::string> ZnodeCatalog::PageTokenKey(const std::string& fresh) {
  if (fresh.size() != router::kPageTokenKeyBytes) {
    return Status::InvalidArgument("a page token key has " +
                                   std::to_string(router::kPageTokenKeyBytes) +
                                   " bytes");
  }
  return CreateOnce(kKeyPath, fresh, &page_token_key_);
}

StatusOr<std::string> ZnodeCatalog::ClusterId(const std::string& fresh) {
  BLOOMROUTE_RETURN_IF_ERROR(router::CheckClusterId(fresh));
  return CreateOnce(kClusterIdPath, fresh, &cluster_id_);
}

StatusOr<std::string> ZnodeCatalog::CreateOnce(const char* path,
                                               const std::string& fresh,
                                               std::string* cached) {
  std::lock_guard<std::mutex> lock(mu_);
  if (!cached->empty()) return *cached;
  BLOOMROUTE_RETURN_IF_ERROR(UsableLocked());
  Status made =
      store_->Create(path, catalog_internal::EncodeOnceRecord(fresh)).status();
  if (made.ok()) return *cached = fresh;
  // Another router stored one first: every router uses that one.
  if (!IsNodeExists(made)) return made;
  BLOOMROUTE_RETURN_IF_ERROR(LoadLocked());
  if (cached->empty()) return Status::Corruption(std::string("no ") + path);
  return *cached;
}

}  // namespace catalog_internal

StatusOr<std::unique_ptr<router::CatalogStore>> OpenZnodeCatalog(
    ZnodeCatalogOptions options) {
  if (!options.connect) return Status::InvalidArgument("catalog: no connect");
  if (options.chunk_bytes < 1024 ||
      options.chunk_bytes > ZnodeCatalogOptions::kChunkBytes) {
    return Status::InvalidArgument("catalog: chunk size out of range");
  }
  if (options.max_attempts < 1) {
    return Status::InvalidArgument("catalog: max_attempts under 1");
  }
  auto catalog =
      std::make_unique<catalog_internal::ZnodeCatalog>(std::move(options));
  BLOOMROUTE_RETURN_IF_ERROR(catalog->Start());
  return std::unique_ptr<router::CatalogStore>(std::move(catalog));
}

}  // namespace bloomroute::coord
