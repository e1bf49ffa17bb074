// ClaimMemberId: a small number no other live process of a group holds,
// for as long as this process's ZooKeeper session lives -- a router's id
// in its write fence tokens (model/op_push.h: 16 bits, so not the
// election's ever-growing sequence numbers).
//
// The claim is an ephemeral node "<dir>/<id>" holding `data` (the
// claimant's address), for the lowest id in [1, max_id] whose node is
// absent: create fails with NodeExists when another session holds it, and
// the next id is tried, so two processes racing for one id both end up
// with distinct ones. The node goes with the session; an id may then be
// claimed again by a new process. That is safe for fence tokens: a new
// router run counts a new start in the catalog, so its tokens are above
// every token an earlier holder of the id sent, and its first catch-up of
// each region server fences them.
//
// Example:
//   StatusOr<uint32_t> id = ClaimMemberId(store, "/routers/ids", 65535,
//                                         "router-1:9090");
//
// Thread-safety: as the store's calls.
#ifndef BLOOMROUTE_COORD_MEMBER_ID_H_
#define BLOOMROUTE_COORD_MEMBER_ID_H_

#include <cstdint>
#include <string>
#include <string_view>

#include "common/statusor.h"
#include "coord/znode_store.h"

namespace bloomroute::coord {

// Unavailable when every id in [1, max_id] is held (naming max_id), the
// store's error when ZooKeeper fails; InvalidArgument for a bad dir or a
// max_id of 0.
[[nodiscard]] StatusOr<uint32_t> ClaimMemberId(ZnodeStore* store,
                                               const std::string& dir,
                                               uint32_t max_id,
                                               std::string_view data);

}  // namespace bloomroute::coord

#endif  // BLOOMROUTE_COORD_MEMBER_ID_H_
