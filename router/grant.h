// Grants: what one user may do on one namespace or one table beyond the
// role of its certificate or token, as HBase's grant / revoke
// (AccessControlClient; Thrift2's grant(TAccessControlEntity)). The router
// keeps them in its catalog (CatalogStore::Grants), so they survive a
// restart and every router of a cluster sees them; the router's Thrift
// server applies them on every call (thrift/server/access_control.h).
//
// A grant holds HBase's action letters: R (read), W (write), X (exec), C
// (create), A (admin). The server maps them onto bloomroute's roles (R read,
// W write, C and A admin; X grants nothing: bloomroute runs no coprocessor
// endpoints) -- docs/security.md says why.
//
// Usage:
//   router::Grant g{"bob", "geo", "geo:cities", "W"};
//   Status s = router->ChangeGrant(g, router::GrantChange::kGrant);
#ifndef BLOOMROUTE_ROUTER_GRANT_H_
#define BLOOMROUTE_ROUTER_GRANT_H_

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "common/status.h"
#include "common/statusor.h"

namespace bloomroute::router {

struct Grant {
  // Bounds of what a catalog keeps: a user name's bytes, grants in all, and
  // bytes of every grant's names together (one record: its ZooKeeper
  // chunks stay far under a znode's 1 MiB).
  static constexpr size_t kMaxUserBytes = 1024;
  static constexpr size_t kMaxGrants = 4096;
  static constexpr uint64_t kMaxListBytes = 1 << 20;
  // Every action letter, in the order a grant keeps them.
  static constexpr std::string_view kLetters = "RWXCA";

  std::string user;     // not empty
  std::string ns;       // the namespace (of the table, for a table grant)
  std::string table;    // canonical table name; "" for a namespace grant
  std::string actions;  // a subset of kLetters, in their order

  bool is_namespace() const { return table.empty(); }
  // Bytes of the user, namespace, table and actions.
  uint64_t Bytes() const {
    return user.size() + ns.size() + table.size() + actions.size();
  }
  friend bool operator==(const Grant& a, const Grant& b) {
    return a.user == b.user && a.ns == b.ns && a.table == b.table &&
           a.actions == b.actions;
  }
};

enum class GrantChange {
  kGrant,   // adds the grant's actions to the user's at its scope (HBase
            // merges a grant with the user's existing permissions)
  kRevoke,  // takes them away; a revoke naming no action takes all; a
            // scope left without actions is forgotten
};

// `letters` as a grant keeps them (each of kLetters at most once, in their
// order; case-sensitive, as HBase's); InvalidArgument naming the first
// letter that is no action.
StatusOr<std::string> CanonicalActions(std::string_view letters);

// A grant of `actions` to `user` on table `table` ("ns:t" or "t") or, with
// `table` empty, on namespace `ns`, checked: InvalidArgument for an empty
// user or one over kMaxUserBytes, an illegal table or namespace name, or a
// letter that is no action.
StatusOr<Grant> MakeGrant(std::string user, std::string_view ns,
                          std::string_view table, std::string_view actions);

// Orders grants by user, namespace, then table (namespace grants first).
bool GrantOrder(const Grant& a, const Grant& b);

// `list` (in GrantOrder) with `change` of `grant` applied, in GrantOrder;
// InvalidArgument when a new scope would be grant kMaxGrants + 1 or the
// list would pass kMaxListBytes. What each store's ChangeGrant writes.
StatusOr<std::vector<Grant>> WithGrantChange(const std::vector<Grant>& list,
                                             const Grant& grant,
                                             GrantChange change);

// The grants of `user` in `list` (in GrantOrder): [first, last).
std::pair<std::vector<Grant>::const_iterator,
          std::vector<Grant>::const_iterator>
GrantsOf(const std::vector<Grant>& list, const std::string& user);

}  // namespace bloomroute::router

#endif  // BLOOMROUTE_ROUTER_GRANT_H_
