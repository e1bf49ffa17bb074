// RouterGrantCheck: the router's grants (router/grant.h) applied by its
// AccessControl (thrift/server/access_control.h) before a call is decoded.
//
// A grant's letters give a role: R read, W write, C and A admin (HBase's
// CREATE lets a user create and drop tables, which bloomroute's admin role
// covers); X gives none, as bloomroute runs no coprocessor endpoints. What
// a user's grants give on a call is the highest role of its grants on the
// call's scope:
//   - a call on a table (its field 1 names it: the data calls' `binary
//     table`, a TTableName, modifyTable's descriptor): the grants on that
//     table and on its namespace;
//   - createTable and createIndexedTable: the grants on the new table's
//     namespace only (HBase checks CREATE on the namespace);
//   - grant and revoke: those on the grant's table and its namespace, or on
//     the grant's namespace (HBase lets a table's or a namespace's ADMIN
//     grant there);
//   - any other call (namespace DDL, membership, region operations,
//     quotas, listings): none, so it needs the role of the certificate or
//     token, as HBase needs global ADMIN for those.
//
// Reading the scope: only for a user who holds grants, the arguments'
// fields are walked in place (strings consumed, not copied; the frame bounds
// the work) and the scope is taken as the generated reader would take it:
// the last field 1 of the right type, at each level. A call whose arguments
// do not decode names no scope (and the processor refuses it anyway).
//
// Thread-safety: GrantedRole from any thread; `source` must be thread-safe.
#ifndef BLOOMROUTE_THRIFT_SERVER_GRANT_CHECK_H_
#define BLOOMROUTE_THRIFT_SERVER_GRANT_CHECK_H_

#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "router/grant.h"
#include "thrift/server/access_control.h"
#include "thrift/server/security.h"

namespace bloomroute::thrift_internal {

// The table or namespace a call names. `table` is the canonical table name
// ("" for a call on a namespace only); `ns` its namespace, or the
// namespace named.
struct CallScope {
  std::string ns;
  std::string table;
};

// The API whose calls are read: the router's Thrift2 port
// (RouterService, HBase's THBaseService and bloomroute's calls) or its
// Thrift1 port (HBase's Hbase service, thrift/hbase1_service.thrift). On
// Thrift1 the data calls, table DDL and scanner opens name the table as
// field 1's bytes, increment and append as field 1 of their struct,
// createTable its new table (namespace scope); incrementRows (one table per
// entry) and compact / majorCompact (a table or a region) name none.
enum class GrantApi { kThrift2, kThrift1 };

// Reads the scope of a call to `method` of `api` from `frame` (one whole
// request frame): false for a method without one, or arguments that do not
// decode or name none.
bool ReadCallScope(const std::string& method, const uint8_t* frame, size_t size,
                   CallScope* out, GrantApi api = GrantApi::kThrift2);

// The role a grant's letters give (router::Grant::actions).
Role RoleOfActions(std::string_view actions);

// The highest role `grants` (in router::GrantOrder) give `user` on `scope`.
Role GrantedOn(const std::vector<router::Grant>& grants,
               const std::string& user, const CallScope& scope);

class RouterGrantCheck final : public GrantCheck {
 public:
  using Source =
      std::function<std::shared_ptr<const std::vector<router::Grant>>()>;
  // `source` gives the grants in force (Router::Grants); never null.
  // `api`: the calls of the port it checks.
  explicit RouterGrantCheck(Source source, GrantApi api = GrantApi::kThrift2)
      : source_(std::move(source)), api_(api) {}

  Role GrantedRole(const Identity& identity, const std::string& method,
                   const uint8_t* frame, size_t size) const override;

 private:
  const Source source_;
  const GrantApi api_;
};

}  // namespace bloomroute::thrift_internal

#endif  // BLOOMROUTE_THRIFT_SERVER_GRANT_CHECK_H_
