// The catalog's znodes (coord/catalog/zk_catalog_store.h has the layout):
// their paths and the small records only this store writes -- the ids, the
// start count, and the head of a record kept in chunks. Each record starts
// with CatalogRecords::kFormatVersion; decoding bounds every field by the
// bytes present and reports Corruption.
#ifndef BLOOMROUTE_COORD_CATALOG_INTERNAL_ZNODE_LAYOUT_H_
#define BLOOMROUTE_COORD_CATALOG_INTERNAL_ZNODE_LAYOUT_H_

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "common/status.h"
#include "common/statusor.h"
#include "coord/znode_store.h"
#include "router/catalog_records.h"
#include "router/catalog_store.h"

namespace bloomroute::coord::catalog_internal {

constexpr uint8_t kLayoutVersion = 1;
// /catalog's data while bloomroute migrate copies a catalog in: routers
// refuse to open it until the copy finished (then it holds kLayoutVersion).
constexpr char kMigratingRoot[] = "\x01migrating";
constexpr uint8_t kRecordVersion = router::CatalogRecords::kFormatVersion;
constexpr char kRoot[] = "/catalog";
constexpr char kIds[] = "/catalog/ids";
constexpr char kStarts[] = "/catalog/starts";
constexpr char kKeyPath[] = "/catalog/page_token_key";
constexpr char kClusterIdPath[] = "/catalog/cluster_id";
constexpr char kServers[] = "/catalog/servers";
constexpr char kTables[] = "/catalog/tables";
constexpr char kQuotas[] = "/catalog/quotas";
// The namespace list's head (CatalogRecords::EncodeNamespaces, chunked);
// missing in a catalog made before namespaces existed.
constexpr char kNamespaces[] = "/catalog/namespaces";
// The grant list's head (CatalogRecords::EncodeGrants, chunked); missing
// in a catalog made before grants existed.
constexpr char kGrants[] = "/catalog/grants";
// Bound for decoding a head: 4,096 chunks of 512 KiB is 2 GiB, far above
// the ~64 MiB a table of 1,024 regions with HBase's largest keys takes.
constexpr uint32_t kMaxChunks = 4096;

// `v` in `width` decimal digits, zero-padded (node names sort by number).
std::string Digits(uint64_t v, int width);
std::string ServerPath(router::ServerId id);  // /catalog/servers/s<10 digits>
std::string TablePath(uint64_t id);           // /catalog/tables/t<20 digits>
// <head>/g<generation, 20 digits>_<chunk, 6 digits>
std::string ChunkPath(const std::string& head, uint64_t generation,
                      uint32_t chunk);

// A chunked record's head. Generation 0: no record (a table's head made
// before its chunks, or the empty quota list).
struct Head {
  uint64_t generation = 0;
  uint32_t chunks = 0;
  uint64_t bytes = 0;
  uint64_t hash = 0;  // XXH64 of the record, seed 0
};
std::string EncodeHead(const Head& h);
// The head of `record` in chunks of `chunk_bytes` (> 0) under `generation`;
// InvalidArgument past kMaxChunks.
[[nodiscard]] StatusOr<Head> HeadFor(const std::string& record,
                                     size_t chunk_bytes, uint64_t generation);
[[nodiscard]] Status DecodeHead(std::string_view in, Head* h);

// The next server, table and region ids.
struct Ids {
  uint64_t server = 1;
  uint64_t table = 1;
  uint64_t region = 1;
};
std::string EncodeIds(const Ids& ids);
[[nodiscard]] Status DecodeIds(std::string_view in, Ids* ids);

std::string EncodeCount(uint64_t n);
[[nodiscard]] Status DecodeCount(std::string_view in, uint64_t* n);

// A record written once (the page token key, the cluster id): the version,
// then its bytes. Decoding wants exactly `bytes` of them (Corruption naming
// `what` otherwise).
std::string EncodeOnceRecord(std::string_view value);
[[nodiscard]] Status DecodeOnceRecord(std::string_view in, size_t bytes,
                                      const char* what, std::string* value);

// Writes `record` as a chunked record at `head_path` (made, with a head of
// generation 0, when missing), chunks of `chunk_bytes`, one Create each,
// then the head naming them: not atomic, for bloomroute migrate, whose
// catalog no router opens until it finished.
[[nodiscard]] Status WriteChunkedRecord(ZnodeStore* store,
                                        const std::string& head_path,
                                        const std::string& record,
                                        size_t chunk_bytes,
                                        uint64_t generation);

// Quotas ordered by user, then table.
bool QuotaOrder(const router::Quota& a, const router::Quota& b);
// The quota list as one record: each quota's key and value, length-prefixed.
// Decoding "" is the empty list; more than Quota::kMaxQuotas is Corruption.
std::string EncodeQuotas(const router::CatalogStore::QuotaList& quotas);
[[nodiscard]] Status DecodeQuotas(std::string_view in,
                                  router::CatalogStore::QuotaList* out);

}  // namespace bloomroute::coord::catalog_internal

#endif  // BLOOMROUTE_COORD_CATALOG_INTERNAL_ZNODE_LAYOUT_H_
