#include "coord/catalog/internal/znode_layout.h"

#include <xxhash.h>

#include <algorithm>
#include <cstdio>
#include <tuple>

#include "common/coding.h"
#include "coord/znode_store.h"

namespace bloomroute::coord::catalog_internal {

using router::CatalogRecords;
using router::Quota;
using router::ServerId;
using QuotaList = router::CatalogStore::QuotaList;

std::string Digits(uint64_t v, int width) {
  char buf[32];
  std::snprintf(buf, sizeof(buf), "%0*llu", width,
                static_cast<unsigned long long>(v));
  return buf;
}

std::string ServerPath(ServerId id) {
  return std::string(kServers) + "/s" + Digits(id, 10);
}

std::string TablePath(uint64_t id) {
  return std::string(kTables) + "/t" + Digits(id, 20);
}

std::string ChunkPath(const std::string& head, uint64_t generation,
                      uint32_t chunk) {
  return head + "/g" + Digits(generation, 20) + "_" + Digits(chunk, 6);
}

std::string EncodeHead(const Head& h) {
  std::string out(1, static_cast<char>(kRecordVersion));
  PutFixed64(&out, h.generation);
  PutFixed32(&out, h.chunks);
  PutFixed64(&out, h.bytes);
  PutFixed64(&out, h.hash);
  return out;
}

Status DecodeHead(std::string_view in, Head* h) {
  ByteReader r(in);
  BLOOMROUTE_RETURN_IF_ERROR(CatalogRecords::ReadVersion(&r));
  BLOOMROUTE_RETURN_IF_ERROR(r.ReadFixed64(&h->generation, "generation"));
  BLOOMROUTE_RETURN_IF_ERROR(r.ReadFixed32(&h->chunks, "chunk count"));
  BLOOMROUTE_RETURN_IF_ERROR(r.ReadFixed64(&h->bytes, "record bytes"));
  BLOOMROUTE_RETURN_IF_ERROR(r.ReadFixed64(&h->hash, "record hash"));
  if (!r.empty() || h->chunks > kMaxChunks ||
      h->bytes > uint64_t{h->chunks} * kMaxNodeBytes) {
    return Status::Corruption("catalog: record head");
  }
  return Status::OK();
}

std::string EncodeIds(const Ids& ids) {
  std::string out(1, static_cast<char>(kRecordVersion));
  PutFixed64(&out, ids.server);
  PutFixed64(&out, ids.table);
  PutFixed64(&out, ids.region);
  return out;
}

Status DecodeIds(std::string_view in, Ids* ids) {
  ByteReader r(in);
  BLOOMROUTE_RETURN_IF_ERROR(CatalogRecords::ReadVersion(&r));
  BLOOMROUTE_RETURN_IF_ERROR(r.ReadFixed64(&ids->server, "next server id"));
  BLOOMROUTE_RETURN_IF_ERROR(r.ReadFixed64(&ids->table, "next table id"));
  BLOOMROUTE_RETURN_IF_ERROR(r.ReadFixed64(&ids->region, "next region id"));
  if (!r.empty()) return Status::Corruption("catalog: ids record");
  return Status::OK();
}

std::string EncodeCount(uint64_t n) {
  std::string out(1, static_cast<char>(kRecordVersion));
  PutFixed64(&out, n);
  return out;
}

Status DecodeCount(std::string_view in, uint64_t* n) {
  ByteReader r(in);
  BLOOMROUTE_RETURN_IF_ERROR(CatalogRecords::ReadVersion(&r));
  BLOOMROUTE_RETURN_IF_ERROR(r.ReadFixed64(n, "count"));
  if (!r.empty()) return Status::Corruption("catalog: count record");
  return Status::OK();
}

std::string EncodeOnceRecord(std::string_view value) {
  std::string out(1, static_cast<char>(kRecordVersion));
  out += value;
  return out;
}

Status DecodeOnceRecord(std::string_view in, size_t bytes, const char* what,
                        std::string* value) {
  ByteReader r(in);
  std::string_view v;
  BLOOMROUTE_RETURN_IF_ERROR(CatalogRecords::ReadVersion(&r));
  BLOOMROUTE_RETURN_IF_ERROR(r.ReadBytes(bytes, &v, what));
  if (!r.empty()) return Status::Corruption(std::string("catalog: ") + what);
  value->assign(v);
  return Status::OK();
}

bool QuotaOrder(const Quota& a, const Quota& b) {
  return std::tie(a.user, a.table) < std::tie(b.user, b.table);
}

// The quota list as one record: each quota's key and value, length-prefixed.
std::string EncodeQuotas(const QuotaList& quotas) {
  std::string out(1, static_cast<char>(kRecordVersion));
  for (const Quota& q : quotas) {
    PutLengthPrefixed(&out, CatalogRecords::QuotaKey(q));
    PutLengthPrefixed(&out, CatalogRecords::EncodeQuota(q));
  }
  return out;
}

Status DecodeQuotas(std::string_view in, QuotaList* out) {
  if (in.empty()) return Status::OK();  // no list written yet
  ByteReader r(in);
  BLOOMROUTE_RETURN_IF_ERROR(CatalogRecords::ReadVersion(&r));
  while (!r.empty()) {
    if (out->size() >= Quota::kMaxQuotas) {
      return Status::Corruption("catalog: quota count");
    }
    std::string_view key, value;
    BLOOMROUTE_RETURN_IF_ERROR(r.ReadLengthPrefixed(&key, "quota key"));
    BLOOMROUTE_RETURN_IF_ERROR(r.ReadLengthPrefixed(&value, "quota"));
    Quota q;
    BLOOMROUTE_RETURN_IF_ERROR(CatalogRecords::DecodeQuota(key, value, &q));
    out->push_back(std::move(q));
  }
  std::sort(out->begin(), out->end(), QuotaOrder);
  return Status::OK();
}

StatusOr<Head> HeadFor(const std::string& record, size_t chunk_bytes,
                       uint64_t generation) {
  Head head;
  head.generation = generation;
  head.chunks =
      static_cast<uint32_t>((record.size() + chunk_bytes - 1) / chunk_bytes);
  head.bytes = record.size();
  head.hash = XXH64(record.data(), record.size(), 0);
  if (head.chunks > kMaxChunks) {
    return Status::InvalidArgument("catalog: a record of " +
                                   std::to_string(record.size()) +
                                   " bytes is over the catalog's bound");
  }
  return head;
}

Status WriteChunkedRecord(ZnodeStore* store, const std::string& head_path,
                          const std::string& record, size_t chunk_bytes,
                          uint64_t generation) {
  Status made = store->Create(head_path, EncodeHead(Head{})).status();
  if (!made.ok() && !IsNodeExists(made)) return made;
  BLOOMROUTE_ASSIGN_OR_RETURN(const Head head,
                              HeadFor(record, chunk_bytes, generation));
  for (uint32_t i = 0; i < head.chunks; ++i) {
    BLOOMROUTE_RETURN_IF_ERROR(
        store
            ->Create(ChunkPath(head_path, generation, i),
                     record.substr(size_t{i} * chunk_bytes, chunk_bytes))
            .status());
  }
  return store->Set(head_path, EncodeHead(head)).status();
}

}  // namespace bloomroute::coord::catalog_internal
