// Page tokens: opaque, bounded resume points of an index lookup, bound to the
// query they continue and authenticated by the router that issued them.
//
// A lookup answer that stops early (LookupResult::truncated) carries a token;
// asking the same query again with it (LookupSpec::page_token) returns the
// rows after the resume row, as LookupSpec::after_row would. The token is
// bytes (Thrift `binary`), never to be parsed by a client:
//
//   offset  bytes  field
//   0       1      format version (kPageTokenVersion)
//   1       8      table id (fixed64): a recreated table has another
//   9       16     query digest: SHA-256 of CanonicalLookup's `query`
//   25      16     column digest: SHA-256 of CanonicalLookup's `columns`
//   41      n      the resume row key, n <= kMaxRowKeyBytes
//   41+n    32     HMAC-SHA256 under the router's key of every byte before
//
// The key is 32 random bytes the first router creates and keeps in the
// catalog (CatalogStore::PageTokenKey), so tokens survive a restart of the
// router, every router sharing a catalog (ZooKeeper) verifies the others'
// tokens, and a token of another cluster (another catalog) does not. What a
// token tells a client who reads it is the table id and the resume row, both
// already in its answers.
//
// The limit, the byte budget, allow_partial and broadcast are not part of the
// query: a client may change the page size between pages.
//
//   PageTokenCodec codec = ...;  // PageTokenCodec::Create(key)
//   StatusOr<std::string> token = codec.Issue(table, spec, *r.resume_after);
//   StatusOr<std::string> after = codec.Open(*next.page_token, table, next);
//
// Thread-safety: a PageTokenCodec is immutable; share it freely.
#ifndef BLOOMROUTE_ROUTER_PAGE_TOKEN_H_
#define BLOOMROUTE_ROUTER_PAGE_TOKEN_H_

#include <cstddef>
#include <string>
#include <string_view>

#include "common/status.h"
#include "common/statusor.h"
#include "model/rows.h"
#include "router/router.h"

namespace bloomroute::router {

inline constexpr uint8_t kPageTokenVersion = 1;
inline constexpr size_t kPageTokenKeyBytes = 32;
inline constexpr size_t kPageTokenDigestBytes = 16;
inline constexpr size_t kPageTokenHeaderBytes =
    1 + 8 + 2 * kPageTokenDigestBytes;
inline constexpr size_t kPageTokenMacBytes = 32;
// The longest token: a resume row of kMaxRowKeyBytes (32,840 bytes).
inline constexpr size_t kMaxPageTokenBytes =
    kPageTokenHeaderBytes + kMaxRowKeyBytes + kPageTokenMacBytes;

// The canonical encoding of a lookup, the one place that says what a token
// binds. `query`: the table name, the predicates (`equals` and `where`: each
// a kind tag with `where`'s operator, the column name and the values, an IN
// list's sorted; sorted, so their order does not matter), the projection
// (sorted, without duplicates) and the time range. `columns`: the column id
// each predicate resolves to in `table`, in the same order (0 for a column
// that is not indexed), which changes when an index is dropped and declared
// again. New predicate kinds add a tag of their own to both.
struct CanonicalLookup {
  std::string query;
  std::string columns;
};
CanonicalLookup EncodeCanonicalLookup(const TableDescriptor& table,
                                      const LookupSpec& spec);

// kPageTokenKeyBytes from the operating system's random source (OpenSSL's
// RAND_bytes); IOError when it fails.
StatusOr<std::string> NewPageTokenKey();

class PageTokenCodec {
 public:
  // InvalidArgument unless `key` has kPageTokenKeyBytes.
  static StatusOr<PageTokenCodec> Create(std::string key);

  // A token to resume `spec` on `table` after `resume_row`. InvalidArgument
  // for a row longer than kMaxRowKeyBytes; IOError if the MAC cannot be
  // computed.
  StatusOr<std::string> Issue(const TableDescriptor& table,
                              const LookupSpec& spec,
                              std::string_view resume_row) const;

  // The resume row of `token`, checked in this order; each error is
  // InvalidArgument:
  //   - "page token is not valid (forged or corrupted)": longer than
  //     kMaxPageTokenBytes (refused before any decoding), shorter than a
  //     token, or its MAC does not verify (another router's key, any byte
  //     changed, truncated or extended);
  //   - "page token ... of unknown format version": MAC valid but a version
  //     this router does not read;
  //   - "page token was issued for a different query": another table name,
  //     predicates, projection or time range;
  //   - "page token is stale: ...; start again without a token": the table
  //     was deleted and created again (another table id), or an indexed
  //     column the query uses was dropped and declared again (another id).
  StatusOr<std::string> Open(std::string_view token,
                             const TableDescriptor& table,
                             const LookupSpec& spec) const;

 private:
  explicit PageTokenCodec(std::string key) : key_(std::move(key)) {}
  [[nodiscard]] Status Mac(std::string_view bytes, std::string* out) const;

  std::string key_;
};

}  // namespace bloomroute::router

#endif  // BLOOMROUTE_ROUTER_PAGE_TOKEN_H_
