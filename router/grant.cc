#include "router/grant.h"

#include <algorithm>
#include <tuple>
#include <utility>

#include "model/rows.h"
#include "model/table_name.h"

namespace bloomroute::router {

StatusOr<std::string> CanonicalActions(std::string_view letters) {
  bool has[Grant::kLetters.size()] = {};
  for (char c : letters) {
    const size_t at = Grant::kLetters.find(c);
    if (at == std::string_view::npos) {
      return Status::InvalidArgument("action " +
                                     QuoteForMessage(std::string_view(&c, 1)) +
                                     " is none of R, W, X, C, A");
    }
    has[at] = true;
  }
  std::string out;
  for (size_t i = 0; i < Grant::kLetters.size(); ++i) {
    if (has[i]) out.push_back(Grant::kLetters[i]);
  }
  return out;
}

StatusOr<Grant> MakeGrant(std::string user, std::string_view ns,
                          std::string_view table, std::string_view actions) {
  if (user.empty()) return Status::InvalidArgument("a grant needs a user");
  if (user.size() > Grant::kMaxUserBytes) {
    return Status::InvalidArgument(
        "user name of " + std::to_string(user.size()) +
        " bytes, over the limit of " + std::to_string(Grant::kMaxUserBytes));
  }
  Grant g;
  g.user = std::move(user);
  if (table.empty()) {
    BLOOMROUTE_RETURN_IF_ERROR(ValidateNamespaceName(ns));
    g.ns.assign(ns);
  } else {
    BLOOMROUTE_RETURN_IF_ERROR(ValidateTableName(table));
    g.ns.assign(NamespaceOf(table));
    g.table = CanonicalTableName(table);
  }
  BLOOMROUTE_ASSIGN_OR_RETURN(g.actions, CanonicalActions(actions));
  return g;
}

bool GrantOrder(const Grant& a, const Grant& b) {
  return std::tie(a.user, a.ns, a.table) < std::tie(b.user, b.ns, b.table);
}

namespace {

// The letters of `have` that `drop` does not name.
std::string Without(const std::string& have, const std::string& drop) {
  std::string out;
  for (char c : have) {
    if (drop.find(c) == std::string::npos) out.push_back(c);
  }
  return out;
}

}  // namespace

StatusOr<std::vector<Grant>> WithGrantChange(const std::vector<Grant>& list,
                                             const Grant& grant,
                                             GrantChange change) {
  std::vector<Grant> next = list;
  auto at = std::lower_bound(next.begin(), next.end(), grant, GrantOrder);
  const bool found = at != next.end() && !GrantOrder(grant, *at);
  if (change == GrantChange::kRevoke) {
    if (!found) return next;
    at->actions = grant.actions.empty() ? std::string()
                                        : Without(at->actions, grant.actions);
    if (at->actions.empty()) next.erase(at);
    return next;
  }
  if (found) {
    StatusOr<std::string> merged =
        CanonicalActions(at->actions + grant.actions);
    if (!merged.ok()) return merged.status();
    at->actions = std::move(*merged);
  } else {
    if (grant.actions.empty()) return next;
    if (next.size() >= Grant::kMaxGrants) {
      return Status::InvalidArgument(
          "the catalog holds at most " + std::to_string(Grant::kMaxGrants) +
          " grants (user and scope): revoke one first");
    }
    next.insert(at, grant);
  }
  uint64_t bytes = 0;
  for (const Grant& g : next) bytes += g.Bytes();
  if (bytes > Grant::kMaxListBytes) {
    return Status::InvalidArgument(
        "all grants together would take " + std::to_string(bytes) +
        " bytes, over the limit of " + std::to_string(Grant::kMaxListBytes));
  }
  return next;
}

std::pair<std::vector<Grant>::const_iterator,
          std::vector<Grant>::const_iterator>
GrantsOf(const std::vector<Grant>& list, const std::string& user) {
  auto first = std::lower_bound(
      list.begin(), list.end(), user,
      [](const Grant& g, const std::string& u) { return g.user < u; });
  auto last = std::upper_bound(
      first, list.end(), user,
      [](const std::string& u, const Grant& g) { return u < g.user; });
  return {first, last};
}

}  // namespace bloomroute::router
