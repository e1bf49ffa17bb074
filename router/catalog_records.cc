#include "router/catalog_records.h"

#include <algorithm>

#include "common/coding.h"

namespace bloomroute::router {
namespace {

// Servers are written in version 2 (the removed flag); tables in version 4:
// version 2 added families, attributes, the enabled flag and retired
// regions; version 3 the building flag of each indexed column, the next
// column id and the index tasks; version 4 the region operations in flight.
// Quotas (and the embedded store's own records) are in version 1.
constexpr uint8_t kFormatVersion = CatalogRecords::kFormatVersion;
constexpr uint8_t kServerFormatVersion = 2;
constexpr uint8_t kServerMember = 1;
constexpr uint8_t kServerRemoved = 2;
constexpr uint8_t kTableFormatVersion = 4;
// Bounds for decoding: far above what CreateTable accepts.
constexpr uint32_t kMaxDecodedColumns = 1 << 16;
constexpr uint32_t kMaxDecodedRegions = 1 << 20;
constexpr uint32_t kMaxDecodedFamilies = 1 << 16;
constexpr uint32_t kMaxDecodedAttributes = 1 << 16;
constexpr uint32_t kMaxDecodedTasks = 1 << 16;

Status ReadString(ByteReader* r, std::string* out, const char* what) {
  std::string_view v;
  BLOOMROUTE_RETURN_IF_ERROR(r->ReadLengthPrefixed(&v, what));
  out->assign(v);
  return Status::OK();
}

Status ReadVersionOne(ByteReader* r) {
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

Status CatalogRecords::ReadVersion(ByteReader* r) { return ReadVersionOne(r); }

std::string CatalogRecords::EncodeServer(const CatalogServer& server) {
  std::string value(1, static_cast<char>(kServerFormatVersion));
  PutLengthPrefixed(&value, server.address);
  PutFixed8(&value, server.removed ? kServerRemoved : kServerMember);
  return value;
}

Status CatalogRecords::DecodeServer(std::string_view in, CatalogServer* out) {
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

std::string CatalogRecords::EncodeTable(const CatalogTable& table) {
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

Status CatalogRecords::DecodeTable(std::string_view in, CatalogTable* out) {
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

std::string CatalogRecords::QuotaKey(const Quota& quota) {
  std::string key(1, kQuotaTag);
  PutLengthPrefixed(&key, quota.user);
  key += quota.table;
  return key;
}

std::string CatalogRecords::EncodeQuota(const Quota& quota) {
  std::string out(1, static_cast<char>(kFormatVersion));
  PutFixed64(&out, quota.requests.amount);
  PutFixed32(&out, quota.requests.seconds);
  PutFixed64(&out, quota.bytes.amount);
  PutFixed32(&out, quota.bytes.seconds);
  return out;
}

Status CatalogRecords::DecodeQuota(std::string_view key, std::string_view value,
                                   Quota* out) {
  ByteReader k(key.substr(key.empty() ? 0 : 1));
  std::string_view user;
  BLOOMROUTE_RETURN_IF_ERROR(k.ReadLengthPrefixed(&user, "quota user"));
  std::string_view table;
  BLOOMROUTE_RETURN_IF_ERROR(k.ReadBytes(k.remaining(), &table, "table"));
  out->user.assign(user);
  out->table.assign(table);
  ByteReader r(value);
  BLOOMROUTE_RETURN_IF_ERROR(ReadVersionOne(&r));
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

}  // namespace bloomroute::router

namespace bloomroute::router {

uint64_t CatalogNamespace::Bytes() const {
  uint64_t bytes = name.size();
  for (const auto& [k, v] : configuration) bytes += k.size() + v.size();
  return bytes;
}

std::string CatalogRecords::EncodeNamespaces(
    const CatalogStore::NamespaceList& namespaces) {
  std::string out(1, static_cast<char>(kFormatVersion));
  PutFixed32(&out, static_cast<uint32_t>(namespaces.size()));
  for (const CatalogNamespace& ns : namespaces) {
    PutLengthPrefixed(&out, ns.name);
    PutFixed32(&out, static_cast<uint32_t>(ns.configuration.size()));
    for (const auto& [k, v] : ns.configuration) {
      PutLengthPrefixed(&out, k);
      PutLengthPrefixed(&out, v);
    }
  }
  return out;
}

Status CatalogRecords::DecodeNamespaces(std::string_view in,
                                        CatalogStore::NamespaceList* out) {
  out->clear();
  if (in.empty()) return Status::OK();
  ByteReader r(in);
  BLOOMROUTE_RETURN_IF_ERROR(ReadVersionOne(&r));
  uint32_t count = 0;
  BLOOMROUTE_RETURN_IF_ERROR(r.ReadFixed32(&count, "namespaces"));
  if (count > CatalogNamespace::kMaxNamespaces) {
    return Status::Corruption("catalog: too many namespaces");
  }
  for (uint32_t i = 0; i < count; ++i) {
    CatalogNamespace ns;
    std::string_view name;
    BLOOMROUTE_RETURN_IF_ERROR(r.ReadLengthPrefixed(&name, "namespace"));
    ns.name.assign(name);
    uint32_t entries = 0;
    BLOOMROUTE_RETURN_IF_ERROR(r.ReadFixed32(&entries, "configuration"));
    // Each entry takes at least two length prefixes.
    if (entries > r.remaining() / 2) {
      return Status::Corruption("catalog: namespace configuration");
    }
    for (uint32_t e = 0; e < entries; ++e) {
      std::string_view k, v;
      BLOOMROUTE_RETURN_IF_ERROR(r.ReadLengthPrefixed(&k, "configuration"));
      BLOOMROUTE_RETURN_IF_ERROR(r.ReadLengthPrefixed(&v, "configuration"));
      ns.configuration.emplace(std::string(k), std::string(v));
    }
    out->push_back(std::move(ns));
  }
  if (!r.empty()) return Status::Corruption("catalog: namespace list");
  return Status::OK();
}

StatusOr<CatalogStore::NamespaceList> CatalogRecords::WithNamespace(
    const CatalogStore::NamespaceList& list, const CatalogNamespace& ns) {
  if (ns.Bytes() - ns.name.size() > CatalogNamespace::kMaxConfigurationBytes) {
    return Status::InvalidArgument(
        "the configuration of namespace " + QuoteForMessage(ns.name) +
        " takes " + std::to_string(ns.Bytes() - ns.name.size()) +
        " bytes, over the limit of " +
        std::to_string(CatalogNamespace::kMaxConfigurationBytes));
  }
  CatalogStore::NamespaceList next = WithoutNamespace(list, ns.name);
  if (next.size() >= CatalogNamespace::kMaxNamespaces) {
    return Status::InvalidArgument(
        "the catalog holds at most " +
        std::to_string(CatalogNamespace::kMaxNamespaces) + " namespaces");
  }
  auto at = std::lower_bound(
      next.begin(), next.end(), ns,
      [](const CatalogNamespace& a, const CatalogNamespace& b) {
        return a.name < b.name;
      });
  next.insert(at, ns);
  uint64_t bytes = 0;
  for (const CatalogNamespace& n : next) bytes += n.Bytes();
  if (bytes > CatalogNamespace::kMaxListBytes) {
    return Status::InvalidArgument(
        "the names and configurations of all namespaces would take " +
        std::to_string(bytes) + " bytes, over the limit of " +
        std::to_string(CatalogNamespace::kMaxListBytes));
  }
  return next;
}

CatalogStore::NamespaceList CatalogRecords::WithoutNamespace(
    const CatalogStore::NamespaceList& list, const std::string& name) {
  CatalogStore::NamespaceList next;
  for (const CatalogNamespace& n : list) {
    if (n.name != name) next.push_back(n);
  }
  return next;
}

}  // namespace bloomroute::router

namespace bloomroute::router {

std::string CatalogRecords::EncodeGrants(
    const CatalogStore::GrantList& grants) {
  std::string out(1, static_cast<char>(kFormatVersion));
  PutFixed32(&out, static_cast<uint32_t>(grants.size()));
  for (const Grant& g : grants) {
    PutLengthPrefixed(&out, g.user);
    PutLengthPrefixed(&out, g.ns);
    PutLengthPrefixed(&out, g.table);
    PutLengthPrefixed(&out, g.actions);
  }
  return out;
}

Status CatalogRecords::DecodeGrants(std::string_view in,
                                    CatalogStore::GrantList* out) {
  out->clear();
  if (in.empty()) return Status::OK();
  ByteReader r(in);
  BLOOMROUTE_RETURN_IF_ERROR(ReadVersionOne(&r));
  uint32_t count = 0;
  BLOOMROUTE_RETURN_IF_ERROR(r.ReadFixed32(&count, "grants"));
  if (count > Grant::kMaxGrants) {
    return Status::Corruption("catalog: too many grants");
  }
  for (uint32_t i = 0; i < count; ++i) {
    Grant g;
    BLOOMROUTE_RETURN_IF_ERROR(ReadString(&r, &g.user, "grant user"));
    BLOOMROUTE_RETURN_IF_ERROR(ReadString(&r, &g.ns, "grant namespace"));
    BLOOMROUTE_RETURN_IF_ERROR(ReadString(&r, &g.table, "grant table"));
    BLOOMROUTE_RETURN_IF_ERROR(ReadString(&r, &g.actions, "grant actions"));
    StatusOr<std::string> actions = CanonicalActions(g.actions);
    if (!actions.ok() || *actions != g.actions) {
      return Status::Corruption("catalog: grant actions");
    }
    out->push_back(std::move(g));
  }
  if (!r.empty()) return Status::Corruption("catalog: grant list");
  return Status::OK();
}

}  // namespace bloomroute::router
