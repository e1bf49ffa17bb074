#include "coord/member_id.h"

#include <set>
#include <string>
#include <vector>

namespace bloomroute::coord {

namespace {

// The ids the children of `dir` name; other names are ignored.
std::set<uint32_t> HeldIds(const std::vector<std::string>& children,
                           uint32_t max_id) {
  std::set<uint32_t> held;
  for (const std::string& name : children) {
    if (name.empty() || name.size() > 10) continue;
    uint64_t id = 0;
    bool digits = true;
    for (char c : name) {
      if (c < '0' || c > '9') digits = false;
      id = id * 10 + static_cast<uint64_t>(c - '0');
    }
    if (digits && id >= 1 && id <= max_id) {
      held.insert(static_cast<uint32_t>(id));
    }
  }
  return held;
}

}  // namespace

StatusOr<uint32_t> ClaimMemberId(ZnodeStore* store, const std::string& dir,
                                 uint32_t max_id, std::string_view data) {
  BLOOMROUTE_RETURN_IF_ERROR(ValidatePath(dir));
  if (dir == "/") return Status::InvalidArgument("member ids need a parent");
  if (max_id == 0) return Status::InvalidArgument("max_id is 0");
  BLOOMROUTE_RETURN_IF_ERROR(ValidateData(data.size()));
  BLOOMROUTE_RETURN_IF_ERROR(MakePath(store, dir));
  BLOOMROUTE_ASSIGN_OR_RETURN(std::vector<std::string> children,
                              store->Children(dir, nullptr));
  const std::set<uint32_t> held = HeldIds(children, max_id);
  CreateOptions ephemeral;
  ephemeral.ephemeral = true;
  // Ids free when listed first; one taken since (a race) is skipped.
  for (uint32_t id = 1; id <= max_id; ++id) {
    if (held.count(id) != 0) continue;
    StatusOr<std::string> made =
        store->Create(dir + "/" + std::to_string(id), data, ephemeral);
    if (made.ok()) return id;
    if (!IsNodeExists(made.status())) return made.status();
  }
  return Status::Unavailable("all " + std::to_string(max_id) + " ids under " +
                             dir + " are held by live processes");
}

}  // namespace bloomroute::coord
