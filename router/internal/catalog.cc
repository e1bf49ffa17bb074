#include "router/internal/catalog.h"

#include <rocksdb/db.h>
#include <rocksdb/options.h>
#include <rocksdb/write_batch.h>

#include <algorithm>
#include <tuple>
#include <utility>

#include "common/coding.h"
#include "common/sync_point.h"
#include "router/page_token.h"

namespace bloomroute::router_internal {
namespace {

// Counters and router starts are still written in version 1; servers in
// version 2 (the removed flag);
// tables in version 4: version 2 added families, attributes, the enabled
// flag and retired regions; version 3 the building flag of each indexed
// column, the next column id and the index tasks; version 4 the region
// operations in flight.
constexpr uint8_t kFormatVersion = 1;
constexpr uint8_t kServerFormatVersion = 2;
constexpr uint8_t kServerMember = 1;
constexpr uint8_t kServerRemoved = 2;
constexpr uint8_t kTableFormatVersion = 4;
// Keys: one tag byte, then a big-endian id so that iteration is by id.
constexpr char kCountersKey[] = "m";
constexpr char kRouterStartsKey[] = "r";
constexpr char kPageTokenKeyKey[] = "k";
constexpr char kServerTag = 's';
constexpr char kTableTag = 't';
constexpr char kQuotaTag = 'q';
// Bounds for decoding: far above what CreateTable accepts.
constexpr uint32_t kMaxDecodedColumns = 1 << 16;
constexpr uint32_t kMaxDecodedRegions = 1 << 20;
constexpr uint32_t kMaxDecodedFamilies = 1 << 16;
constexpr uint32_t kMaxDecodedAttributes = 1 << 16;
constexpr uint32_t kMaxDecodedTasks = 1 << 16;

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

Status ReadString(ByteReader* r, std::string* out, const char* what) {
  std::string_view v;
  BLOOMROUTE_RETURN_IF_ERROR(r->ReadLengthPrefixed(&v, what));
  out->assign(v);
  return Status::OK();
}

Status ReadVersion(ByteReader* r) {
  uint8_t version = 0;
  BLOOMROUTE_RETURN_IF_ERROR(r->ReadFixed8(&version, "format version"));
  if (version != kFormatVersion) {
    return Status::Corruption("catalog record of unknown format version " +
                              std::to_string(version));
  }
  return Status::OK();
}

Status DecodeRegion(ByteReader* r, CatalogRegion* out) {
  BLOOMROUTE_RETURN_IF_ERROR(r->ReadFixed64(&out->region_id, "region id"));
  BLOOMROUTE_RETURN_IF_ERROR(ReadString(r, &out->start_key, "start key"));
  BLOOMROUTE_RETURN_IF_ERROR(ReadString(r, &out->end_key, "end key"));
  return r->ReadFixed32(&out->server, "region server");
}

void EncodeRegions(const std::vector<CatalogRegion>& regions,
                   std::string* out) {
  PutFixed32(out, static_cast<uint32_t>(regions.size()));
  for (const CatalogRegion& r : regions) {
    PutFixed64(out, r.region_id);
    PutLengthPrefixed(out, r.start_key);
    PutLengthPrefixed(out, r.end_key);
    PutFixed32(out, r.server);
  }
}

Status DecodeRegions(ByteReader* r, std::vector<CatalogRegion>* out) {
  uint32_t n = 0;
  BLOOMROUTE_RETURN_IF_ERROR(r->ReadFixed32(&n, "region count"));
  // Each region takes at least 20 bytes: bound the count by the input first.
  if (n > kMaxDecodedRegions || n > r->remaining() / 20) {
    return Status::Corruption("catalog: region count");
  }
  out->resize(n);
  for (CatalogRegion& region : *out) {
    BLOOMROUTE_RETURN_IF_ERROR(DecodeRegion(r, &region));
  }
  return Status::OK();
}

void EncodeFamiliesAndAttributes(const TableDescriptor& d, std::string* out) {
  PutFixed32(out, static_cast<uint32_t>(d.families.size()));
  for (const std::string& f : d.families) PutLengthPrefixed(out, f);
  PutFixed32(out, static_cast<uint32_t>(d.attributes.size()));
  for (const auto& [k, v] : d.attributes) {
    PutLengthPrefixed(out, k);
    PutLengthPrefixed(out, v);
  }
}

Status DecodeFamiliesAndAttributes(ByteReader* r, TableDescriptor* d) {
  uint32_t n = 0;
  BLOOMROUTE_RETURN_IF_ERROR(r->ReadFixed32(&n, "family count"));
  if (n > kMaxDecodedFamilies || n > r->remaining() / 4) {
    return Status::Corruption("catalog: family count");
  }
  d->families.resize(n);
  for (std::string& f : d->families) {
    BLOOMROUTE_RETURN_IF_ERROR(ReadString(r, &f, "family"));
  }
  BLOOMROUTE_RETURN_IF_ERROR(r->ReadFixed32(&n, "attribute count"));
  if (n > kMaxDecodedAttributes || n > r->remaining() / 8) {
    return Status::Corruption("catalog: attribute count");
  }
  for (uint32_t i = 0; i < n; ++i) {
    std::string k, v;
    BLOOMROUTE_RETURN_IF_ERROR(ReadString(r, &k, "attribute name"));
    BLOOMROUTE_RETURN_IF_ERROR(ReadString(r, &v, "attribute value"));
    if (!d->attributes.emplace(std::move(k), std::move(v)).second) {
      return Status::Corruption("catalog: an attribute named twice");
    }
  }
  return Status::OK();
}

Status ReadFlag(ByteReader* r, bool* out, const char* what) {
  uint8_t v = 0;
  BLOOMROUTE_RETURN_IF_ERROR(r->ReadFixed8(&v, what));
  if (v > 1) return Status::Corruption(std::string("catalog: ") + what);
  *out = v == 1;
  return Status::OK();
}

void EncodeTasks(const std::vector<CatalogIndexTask>& tasks, std::string* out) {
  PutFixed32(out, static_cast<uint32_t>(tasks.size()));
  for (const CatalogIndexTask& t : tasks) {
    PutFixed8(out, static_cast<uint8_t>(t.kind));
    PutFixed32(out, t.column.column_id);
    PutLengthPrefixed(out, t.column.name);
    PutFixed64(out, t.rows);
    PutFixed32(out, static_cast<uint32_t>(t.regions.size()));
    for (const CatalogIndexTask::Region& r : t.regions) {
      PutFixed64(out, r.region_id);
      PutFixed8(out, r.done ? 1 : 0);
      PutLengthPrefixed(out, r.resume_after);
    }
  }
}

Status DecodeTask(ByteReader* r, CatalogIndexTask* t) {
  uint8_t kind = 0;
  BLOOMROUTE_RETURN_IF_ERROR(r->ReadFixed8(&kind, "index task kind"));
  if (kind != static_cast<uint8_t>(CatalogIndexTask::Kind::kBuild) &&
      kind != static_cast<uint8_t>(CatalogIndexTask::Kind::kDrop)) {
    return Status::Corruption("catalog: unknown index task kind");
  }
  t->kind = static_cast<CatalogIndexTask::Kind>(kind);
  BLOOMROUTE_RETURN_IF_ERROR(r->ReadFixed32(&t->column.column_id, "column"));
  BLOOMROUTE_RETURN_IF_ERROR(ReadString(r, &t->column.name, "column name"));
  t->column.building = t->kind == CatalogIndexTask::Kind::kBuild;
  BLOOMROUTE_RETURN_IF_ERROR(r->ReadFixed64(&t->rows, "index task rows"));
  uint32_t n = 0;
  BLOOMROUTE_RETURN_IF_ERROR(r->ReadFixed32(&n, "index task regions"));
  // Each region takes at least 13 bytes: bound the count by the input.
  if (n > kMaxDecodedRegions || n > r->remaining() / 13) {
    return Status::Corruption("catalog: index task region count");
  }
  t->regions.resize(n);
  for (CatalogIndexTask::Region& region : t->regions) {
    BLOOMROUTE_RETURN_IF_ERROR(r->ReadFixed64(&region.region_id, "region"));
    BLOOMROUTE_RETURN_IF_ERROR(ReadFlag(r, &region.done, "region done"));
    BLOOMROUTE_RETURN_IF_ERROR(
        ReadString(r, &region.resume_after, "resume row"));
  }
  return Status::OK();
}

Status DecodeTasks(ByteReader* r, std::vector<CatalogIndexTask>* out) {
  uint32_t n = 0;
  BLOOMROUTE_RETURN_IF_ERROR(r->ReadFixed32(&n, "index task count"));
  if (n > kMaxDecodedTasks || n > r->remaining() / 21) {
    return Status::Corruption("catalog: index task count");
  }
  out->resize(n);
  for (CatalogIndexTask& t : *out) {
    BLOOMROUTE_RETURN_IF_ERROR(DecodeTask(r, &t));
  }
  return Status::OK();
}

void EncodeRegionOps(const std::vector<CatalogRegionOp>& ops,
                     std::string* out) {
  PutFixed32(out, static_cast<uint32_t>(ops.size()));
  for (const CatalogRegionOp& op : ops) {
    PutFixed8(out, static_cast<uint8_t>(op.kind));
    PutFixed8(out, static_cast<uint8_t>(op.state));
    EncodeRegions(op.sources, out);
    EncodeRegions(op.targets, out);
  }
}

Status DecodeRegionOps(ByteReader* r, std::vector<CatalogRegionOp>* out) {
  uint32_t n = 0;
  BLOOMROUTE_RETURN_IF_ERROR(r->ReadFixed32(&n, "region operation count"));
  // Each takes at least 10 bytes.
  if (n > kMaxDecodedTasks || n > r->remaining() / 10) {
    return Status::Corruption("catalog: region operation count");
  }
  out->resize(n);
  for (CatalogRegionOp& op : *out) {
    uint8_t kind = 0, state = 0;
    BLOOMROUTE_RETURN_IF_ERROR(r->ReadFixed8(&kind, "region operation kind"));
    BLOOMROUTE_RETURN_IF_ERROR(r->ReadFixed8(&state, "region operation state"));
    if (kind < 1 || kind > 3) {
      return Status::Corruption("catalog: unknown region operation kind");
    }
    if (state < 1 || state > 2) {
      return Status::Corruption("catalog: unknown region operation state");
    }
    op.kind = static_cast<CatalogRegionOp::Kind>(kind);
    op.state = static_cast<CatalogRegionOp::State>(state);
    BLOOMROUTE_RETURN_IF_ERROR(DecodeRegions(r, &op.sources));
    BLOOMROUTE_RETURN_IF_ERROR(DecodeRegions(r, &op.targets));
  }
  return Status::OK();
}

}  // namespace

uint32_t CatalogTable::NextColumnId() const {
  uint32_t next = std::max<uint32_t>(next_column_id, 1);
  for (const IndexedColumn& c : descriptor.indexed_columns) {
    next = std::max(next, c.column_id + 1);
  }
  for (const CatalogIndexTask& t : index_tasks) {
    next = std::max(next, t.column.column_id + 1);
  }
  return next;
}

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
    BLOOMROUTE_RETURN_IF_ERROR(ReadVersion(&r));
    uint64_t server_id = 0;
    BLOOMROUTE_RETURN_IF_ERROR(r.ReadFixed64(&server_id, "next server id"));
    BLOOMROUTE_RETURN_IF_ERROR(r.ReadFixed64(&next_table_id_, "next table"));
    BLOOMROUTE_RETURN_IF_ERROR(
        r.ReadFixed64(&next_region_id_, "next region id"));
    next_server_id_ = static_cast<router::ServerId>(
        std::max<uint64_t>(next_server_id_, server_id));
  } else if (key == kRouterStartsKey) {
    BLOOMROUTE_RETURN_IF_ERROR(ReadVersion(&r));
    BLOOMROUTE_RETURN_IF_ERROR(r.ReadFixed64(&router_starts_, "starts"));
  } else if (key == kPageTokenKeyKey) {
    BLOOMROUTE_RETURN_IF_ERROR(ReadVersion(&r));
    std::string_view k;
    BLOOMROUTE_RETURN_IF_ERROR(
        r.ReadBytes(router::kPageTokenKeyBytes, &k, "page token key"));
    if (!r.empty()) return Status::Corruption("catalog: page token key");
    page_token_key_.assign(k);
  } else if (key.size() == 5 && key[0] == kServerTag) {
    CatalogServer s;
    s.id = static_cast<router::ServerId>(DecodeBigEndian(key.data() + 1, 4));
    BLOOMROUTE_RETURN_IF_ERROR(DecodeServer(value, &s));
    servers_.push_back(std::move(s));
  } else if (key.size() == 9 && key[0] == kTableTag) {
    CatalogTable t;
    BLOOMROUTE_RETURN_IF_ERROR(DecodeTable(value, &t));
    tables->push_back(std::move(t));
  } else if (!key.empty() && key[0] == kQuotaTag) {
    router::Quota q;
    BLOOMROUTE_RETURN_IF_ERROR(DecodeQuota(key, value, &q));
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
  const std::string value = EncodeServer(added);
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
  const std::string value = EncodeServer(changed);
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
  const std::string value = EncodeServer(changed);
  BLOOMROUTE_RETURN_IF_ERROR(WriteLocked(ServerKey(id), &value));
  *member = std::move(changed);
  return Status::OK();
}

std::string Catalog::EncodeServer(const CatalogServer& server) {
  std::string value(1, static_cast<char>(kServerFormatVersion));
  PutLengthPrefixed(&value, server.address);
  PutFixed8(&value, server.removed ? kServerRemoved : kServerMember);
  return value;
}

Status Catalog::DecodeServer(std::string_view in, CatalogServer* out) {
  ByteReader r(in);
  uint8_t version = 0;
  BLOOMROUTE_RETURN_IF_ERROR(r.ReadFixed8(&version, "format version"));
  if (version != kFormatVersion && version != kServerFormatVersion) {
    return Status::Corruption("catalog server record of unknown version " +
                              std::to_string(version));
  }
  BLOOMROUTE_RETURN_IF_ERROR(ReadString(&r, &out->address, "address"));
  out->removed = false;  // version 1: every server is a member
  if (version == kServerFormatVersion) {
    uint8_t state = 0;
    BLOOMROUTE_RETURN_IF_ERROR(r.ReadFixed8(&state, "server state"));
    if (state != kServerMember && state != kServerRemoved) {
      return Status::Corruption("catalog: unknown server state " +
                                std::to_string(state));
    }
    out->removed = state == kServerRemoved;
  }
  if (!r.empty()) return Status::Corruption("catalog: server record");
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

std::shared_ptr<const Catalog::TableList> Catalog::Tables() const {
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
  const std::string value = EncodeTable(table);
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

std::string Catalog::EncodeTable(const CatalogTable& table) {
  std::string out(1, static_cast<char>(kTableFormatVersion));
  const TableDescriptor& d = table.descriptor;
  PutFixed64(&out, d.table_id);
  PutLengthPrefixed(&out, d.name);
  PutFixed8(&out, static_cast<uint8_t>(table.state));
  PutFixed32(&out, static_cast<uint32_t>(d.indexed_columns.size()));
  for (const IndexedColumn& c : d.indexed_columns) {
    PutFixed32(&out, c.column_id);
    PutLengthPrefixed(&out, c.name);
    PutFixed8(&out, c.building ? 1 : 0);
  }
  EncodeFamiliesAndAttributes(d, &out);
  PutFixed8(&out, table.enabled ? 1 : 0);
  EncodeRegions(table.retired_regions, &out);
  EncodeRegions(table.regions, &out);
  PutFixed32(&out, table.next_column_id);
  EncodeTasks(table.index_tasks, &out);
  EncodeRegionOps(table.region_ops, &out);
  return out;
}

Status Catalog::DecodeTable(std::string_view in, CatalogTable* out) {
  ByteReader r(in);
  uint8_t version = 0;
  BLOOMROUTE_RETURN_IF_ERROR(r.ReadFixed8(&version, "format version"));
  if (version < 1 || version > kTableFormatVersion) {
    return Status::Corruption(
        "catalog table record of unknown format version " +
        std::to_string(version));
  }
  TableDescriptor& d = out->descriptor;
  BLOOMROUTE_RETURN_IF_ERROR(r.ReadFixed64(&d.table_id, "table id"));
  BLOOMROUTE_RETURN_IF_ERROR(ReadString(&r, &d.name, "table name"));
  uint8_t state = 0;
  BLOOMROUTE_RETURN_IF_ERROR(r.ReadFixed8(&state, "table state"));
  if (state != static_cast<uint8_t>(CatalogTable::State::kReady) &&
      state != static_cast<uint8_t>(CatalogTable::State::kDeleting)) {
    return Status::Corruption("catalog: unknown table state");
  }
  out->state = static_cast<CatalogTable::State>(state);
  uint32_t n = 0;
  BLOOMROUTE_RETURN_IF_ERROR(r.ReadFixed32(&n, "indexed column count"));
  // Each entry takes at least 8 bytes: bound the count by the input first.
  if (n > kMaxDecodedColumns || n > r.remaining() / 8) {
    return Status::Corruption("catalog: indexed column count");
  }
  d.indexed_columns.resize(n);
  for (IndexedColumn& c : d.indexed_columns) {
    BLOOMROUTE_RETURN_IF_ERROR(r.ReadFixed32(&c.column_id, "column id"));
    BLOOMROUTE_RETURN_IF_ERROR(ReadString(&r, &c.name, "column name"));
    if (version >= 3) {
      BLOOMROUTE_RETURN_IF_ERROR(ReadFlag(&r, &c.building, "column state"));
    }
  }
  if (version >= 2) {
    BLOOMROUTE_RETURN_IF_ERROR(DecodeFamiliesAndAttributes(&r, &d));
    uint8_t enabled = 0;
    BLOOMROUTE_RETURN_IF_ERROR(r.ReadFixed8(&enabled, "enabled flag"));
    if (enabled > 1) return Status::Corruption("catalog: enabled flag");
    out->enabled = enabled == 1;
    BLOOMROUTE_RETURN_IF_ERROR(DecodeRegions(&r, &out->retired_regions));
  }
  BLOOMROUTE_RETURN_IF_ERROR(DecodeRegions(&r, &out->regions));
  if (version >= 3) {
    BLOOMROUTE_RETURN_IF_ERROR(
        r.ReadFixed32(&out->next_column_id, "next column id"));
    BLOOMROUTE_RETURN_IF_ERROR(DecodeTasks(&r, &out->index_tasks));
  }
  if (version >= 4) {
    BLOOMROUTE_RETURN_IF_ERROR(DecodeRegionOps(&r, &out->region_ops));
  }
  if (!r.empty()) return Status::Corruption("catalog: trailing bytes");
  return Status::OK();
}

std::shared_ptr<const Catalog::QuotaList> Catalog::Quotas() const {
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
  const std::string value = EncodeQuota(quota);
  BLOOMROUTE_RETURN_IF_ERROR(
      WriteLocked(QuotaKey(quota), quota.none() ? nullptr : &value));
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

std::string Catalog::QuotaKey(const router::Quota& quota) {
  std::string key(1, kQuotaTag);
  PutLengthPrefixed(&key, quota.user);
  key += quota.table;
  return key;
}

std::string Catalog::EncodeQuota(const router::Quota& quota) {
  std::string out(1, static_cast<char>(kFormatVersion));
  PutFixed64(&out, quota.requests.amount);
  PutFixed32(&out, quota.requests.seconds);
  PutFixed64(&out, quota.bytes.amount);
  PutFixed32(&out, quota.bytes.seconds);
  return out;
}

Status Catalog::DecodeQuota(std::string_view key, std::string_view value,
                            router::Quota* out) {
  ByteReader k(key.substr(key.empty() ? 0 : 1));
  std::string_view user;
  BLOOMROUTE_RETURN_IF_ERROR(k.ReadLengthPrefixed(&user, "quota user"));
  std::string_view table;
  BLOOMROUTE_RETURN_IF_ERROR(k.ReadBytes(k.remaining(), &table, "table"));
  out->user.assign(user);
  out->table.assign(table);
  ByteReader r(value);
  BLOOMROUTE_RETURN_IF_ERROR(ReadVersion(&r));
  BLOOMROUTE_RETURN_IF_ERROR(r.ReadFixed64(&out->requests.amount, "requests"));
  BLOOMROUTE_RETURN_IF_ERROR(
      r.ReadFixed32(&out->requests.seconds, "requests period"));
  BLOOMROUTE_RETURN_IF_ERROR(r.ReadFixed64(&out->bytes.amount, "bytes"));
  BLOOMROUTE_RETURN_IF_ERROR(
      r.ReadFixed32(&out->bytes.seconds, "bytes period"));
  if (!r.empty()) return Status::Corruption("catalog: quota record");
  Status valid = router::ValidateQuota(*out);
  if (!valid.ok() || out->none()) {
    return Status::Corruption(
        "catalog: quota record: " +
        (valid.ok() ? std::string("no limit") : valid.ToString()));
  }
  return Status::OK();
}

}  // namespace bloomroute::router_internal
