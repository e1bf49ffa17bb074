#include "router/page_token.h"

#include <openssl/crypto.h>
#include <openssl/evp.h>
#include <openssl/hmac.h>
#include <openssl/rand.h>
#include <openssl/sha.h>

#include <algorithm>
#include <utility>
#include <vector>

#include "common/coding.h"
#include "model/index_predicate.h"

namespace bloomroute::router {
namespace {

// Predicate kinds in the canonical encoding.
constexpr char kEqualityTag = 'e';
constexpr char kWhereTag = 'w';  // then the operator (IndexOp)

std::string Digest(std::string_view bytes) {
  unsigned char sha[SHA256_DIGEST_LENGTH];
  SHA256(reinterpret_cast<const unsigned char*>(bytes.data()), bytes.size(),
         sha);
  return std::string(reinterpret_cast<const char*>(sha), kPageTokenDigestBytes);
}

Status Forged(std::string_view why) {
  return Status::InvalidArgument(
      "page token is not valid (forged or corrupted): " + std::string(why));
}

Status Stale(std::string_view why) {
  return Status::InvalidArgument("page token is stale: " + std::string(why) +
                                 "; start again without a token");
}

}  // namespace

CanonicalLookup EncodeCanonicalLookup(const TableDescriptor& table,
                                      const LookupSpec& spec) {
  // Each predicate as (its query bytes, its column bytes), sorted by the
  // former: AND does not depend on the order.
  std::vector<std::pair<std::string, std::string>> predicates;
  for (const EqualityPredicate& p : spec.equals) {
    std::string query(1, kEqualityTag);
    PutLengthPrefixed(&query, p.column);
    PutLengthPrefixed(&query, p.value);
    const IndexedColumn* column = table.FindIndexed(p.column);
    std::string id(1, kEqualityTag);
    PutFixed32(&id, column == nullptr ? 0 : column->column_id);
    predicates.emplace_back(std::move(query), std::move(id));
  }
  for (const IndexPredicate& p : spec.where) {
    std::string tag(1, kWhereTag);
    PutFixed32(&tag, static_cast<uint32_t>(p.op));
    std::string query = tag;
    PutLengthPrefixed(&query, p.column);
    // An IN list is a set; the bounds of the other kinds keep their order.
    std::vector<std::string> values = p.values;
    if (p.op == IndexOp::kIn) std::sort(values.begin(), values.end());
    PutFixed32(&query, static_cast<uint32_t>(values.size()));
    for (const std::string& v : values) PutLengthPrefixed(&query, v);
    const IndexedColumn* column = table.FindIndexed(p.column);
    std::string id = tag;
    PutFixed32(&id, column == nullptr ? 0 : column->column_id);
    predicates.emplace_back(std::move(query), std::move(id));
  }
  std::sort(predicates.begin(), predicates.end());
  CanonicalLookup out;
  PutLengthPrefixed(&out.query, table.name);
  PutFixed32(&out.query, static_cast<uint32_t>(predicates.size()));
  for (const auto& [query, id] : predicates) {
    PutLengthPrefixed(&out.query, query);
    out.columns += id;
  }
  std::vector<std::string> projection = spec.columns;
  std::sort(projection.begin(), projection.end());
  projection.erase(std::unique(projection.begin(), projection.end()),
                   projection.end());
  PutFixed32(&out.query, static_cast<uint32_t>(projection.size()));
  for (const std::string& c : projection) PutLengthPrefixed(&out.query, c);
  PutFixed64(&out.query, static_cast<uint64_t>(spec.time_range.min));
  PutFixed64(&out.query, static_cast<uint64_t>(spec.time_range.max));
  return out;
}

StatusOr<std::string> NewPageTokenKey() {
  std::string key(kPageTokenKeyBytes, '\0');
  if (RAND_bytes(reinterpret_cast<unsigned char*>(key.data()),
                 static_cast<int>(key.size())) != 1) {
    return Status::IOError("no random bytes for the page token key");
  }
  return key;
}

StatusOr<PageTokenCodec> PageTokenCodec::Create(std::string key) {
  if (key.size() != kPageTokenKeyBytes) {
    return Status::InvalidArgument("a page token key has " +
                                   std::to_string(kPageTokenKeyBytes) +
                                   " bytes, not " + std::to_string(key.size()));
  }
  return PageTokenCodec(std::move(key));
}

Status PageTokenCodec::Mac(std::string_view bytes, std::string* out) const {
  unsigned char mac[EVP_MAX_MD_SIZE];
  unsigned int mac_len = 0;
  if (HMAC(EVP_sha256(), key_.data(), static_cast<int>(key_.size()),
           reinterpret_cast<const unsigned char*>(bytes.data()), bytes.size(),
           mac, &mac_len) == nullptr ||
      mac_len != kPageTokenMacBytes) {
    return Status::IOError("page token MAC could not be computed");
  }
  out->assign(reinterpret_cast<const char*>(mac), mac_len);
  return Status::OK();
}

StatusOr<std::string> PageTokenCodec::Issue(const TableDescriptor& table,
                                            const LookupSpec& spec,
                                            std::string_view resume_row) const {
  if (resume_row.size() > kMaxRowKeyBytes) {
    return Status::InvalidArgument("a page token's row is at most " +
                                   std::to_string(kMaxRowKeyBytes) + " bytes");
  }
  const CanonicalLookup canonical = EncodeCanonicalLookup(table, spec);
  std::string token(1, static_cast<char>(kPageTokenVersion));
  PutFixed64(&token, table.table_id);
  token += Digest(canonical.query);
  token += Digest(canonical.columns);
  token.append(resume_row.data(), resume_row.size());
  std::string mac;
  BLOOMROUTE_RETURN_IF_ERROR(Mac(token, &mac));
  token += mac;
  return token;
}

StatusOr<std::string> PageTokenCodec::Open(std::string_view token,
                                           const TableDescriptor& table,
                                           const LookupSpec& spec) const {
  if (token.size() > kMaxPageTokenBytes) {
    return Forged("longer than " + std::to_string(kMaxPageTokenBytes) +
                  " bytes, the most a token has");
  }
  if (token.size() < kPageTokenHeaderBytes + kPageTokenMacBytes) {
    return Forged("too short");
  }
  const std::string_view signed_bytes =
      token.substr(0, token.size() - kPageTokenMacBytes);
  std::string mac;
  BLOOMROUTE_RETURN_IF_ERROR(Mac(signed_bytes, &mac));
  if (CRYPTO_memcmp(mac.data(), token.data() + signed_bytes.size(),
                    kPageTokenMacBytes) != 0) {
    return Forged("its MAC does not verify");
  }
  // Authentic from here on: the fields are the router's own.
  if (static_cast<uint8_t>(token[0]) != kPageTokenVersion) {
    return Status::InvalidArgument(
        "page token of unknown format version " +
        std::to_string(static_cast<uint8_t>(token[0])) +
        " (another version of the router); start again without a token");
  }
  const uint64_t table_id = DecodeFixed64(token.data() + 1);
  const std::string_view query = token.substr(9, kPageTokenDigestBytes);
  const std::string_view columns =
      token.substr(9 + kPageTokenDigestBytes, kPageTokenDigestBytes);
  const CanonicalLookup canonical = EncodeCanonicalLookup(table, spec);
  if (query != Digest(canonical.query)) {
    return Status::InvalidArgument(
        "page token was issued for a different query (table, predicates, "
        "columns and time range must be those of the first page)");
  }
  if (table_id != table.table_id) {
    return Stale("table '" + table.name +
                 "' was deleted and created again since it was issued");
  }
  if (columns != Digest(canonical.columns)) {
    return Stale(
        "an indexed column of the query was dropped and declared "
        "again since it was issued");
  }
  return std::string(signed_bytes.substr(kPageTokenHeaderBytes));
}

}  // namespace bloomroute::router
