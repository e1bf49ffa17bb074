// CatalogRecords: the bytes a catalog record is stored as, shared by every
// CatalogStore implementation (router/catalog_store.h), so that a catalog
// moved from one store to another keeps its records unchanged.
//
// Format: one version byte, then fixed-width and length-prefixed fields
// (common/coding.h). Server records are written in version 2 (version 1
// plus the removed flag); version 1 still reads, as a member. Table records
// are written in version 4 (version 3 plus the region operations in
// flight); version 3 is version 2 -- families, attributes, the enabled flag
// and retired regions -- plus the next column id, each indexed column's
// building flag and the index tasks. Versions 1 (an enabled table without
// declared families), 2 and 3 still read. Quotas are in version 1, and so are
// the namespace list (one record holding every namespace) and the grant
// list (one record holding every grant).
//
// The records carry no checksum of their own: each store covers the bytes
// it keeps (RocksDB's block checksums; ZooKeeper's, on disk and on the
// wire). Decoding bounds every length and count by the bytes present and
// reports Corruption for anything it cannot read: a record never makes the
// decoder allocate more than a small multiple of its own size.
#ifndef BLOOMROUTE_ROUTER_CATALOG_RECORDS_H_
#define BLOOMROUTE_ROUTER_CATALOG_RECORDS_H_

#include <cstdint>
#include <string>
#include <string_view>

#include "common/coding.h"
#include "common/status.h"
#include "common/statusor.h"
#include "router/catalog_store.h"

namespace bloomroute::router {

class CatalogRecords {
 public:
  // The version of records that never changed their layout (quotas, and a
  // store's own bookkeeping records).
  static constexpr uint8_t kFormatVersion = 1;
  // The first byte of a quota's key (QuotaKey).
  static constexpr char kQuotaTag = 'q';

  // Reads the version byte of a version-1 record; Corruption for another.
  [[nodiscard]] static Status ReadVersion(ByteReader* r);

  // A server record holds neither its id (the key does) nor, decoded, sets
  // `out->id`.
  static std::string EncodeServer(const CatalogServer& server);
  [[nodiscard]] static Status DecodeServer(std::string_view in,
                                           CatalogServer* out);
  static std::string EncodeTable(const CatalogTable& table);
  [[nodiscard]] static Status DecodeTable(std::string_view in,
                                          CatalogTable* out);
  // A quota's key names its user and table; its value holds the limits.
  // DecodeQuota refuses (Corruption) a quota ValidateQuota refuses or one
  // that sets no limit (such a quota is forgotten, never stored).
  static std::string QuotaKey(const Quota& quota);
  static std::string EncodeQuota(const Quota& quota);
  [[nodiscard]] static Status DecodeQuota(std::string_view key,
                                          std::string_view value, Quota* out);
  // The namespace list, in the order given (stores keep it by name).
  // Decoding "" is the empty list; more than kMaxNamespaces is Corruption.
  static std::string EncodeNamespaces(
      const CatalogStore::NamespaceList& namespaces);
  [[nodiscard]] static Status DecodeNamespaces(
      std::string_view in, CatalogStore::NamespaceList* out);
  // The list with `ns` in place of its namesake, or without `name` (by
  // name), checked against CatalogNamespace's limits (InvalidArgument):
  // what each store's PutNamespace / DeleteNamespace writes.
  static StatusOr<CatalogStore::NamespaceList> WithNamespace(
      const CatalogStore::NamespaceList& list, const CatalogNamespace& ns);
  static CatalogStore::NamespaceList WithoutNamespace(
      const CatalogStore::NamespaceList& list, const std::string& name);
  // The grant list (version 1), in the order given (stores keep it in
  // GrantOrder). Decoding "" is the empty list; more than Grant::kMaxGrants
  // is Corruption.
  static std::string EncodeGrants(const CatalogStore::GrantList& grants);
  [[nodiscard]] static Status DecodeGrants(std::string_view in,
                                           CatalogStore::GrantList* out);
};

}  // namespace bloomroute::router

#endif  // BLOOMROUTE_ROUTER_CATALOG_RECORDS_H_
