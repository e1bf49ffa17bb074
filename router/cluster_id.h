// The cluster id: what HBase's getClusterId answers (HBase keeps a UUID in
// ZooKeeper and in hbase.id). bloomroute keeps one in the router's catalog
// (CatalogStore::ClusterId): made at the first use, then the same for every
// router of the cluster and across restarts.
//
// Usage:
//   StatusOr<std::string> fresh = NewClusterId();
//   if (!fresh.ok()) return fresh.status();
//   StatusOr<std::string> id = catalog->ClusterId(*fresh);
#ifndef BLOOMROUTE_ROUTER_CLUSTER_ID_H_
#define BLOOMROUTE_ROUTER_CLUSTER_ID_H_

#include <cstddef>
#include <string>
#include <string_view>

#include "common/status.h"
#include "common/statusor.h"

namespace bloomroute::router {

// "xxxxxxxx-xxxx-4xxx-yxxx-xxxxxxxxxxxx": 36 characters.
inline constexpr size_t kClusterIdBytes = 36;

// A random UUID (version 4, RFC 4122 variant) in lower-case hex, from the
// operating system's random source. IOError when it gives no bytes.
StatusOr<std::string> NewClusterId();

// Whether `id` is a UUID string as NewClusterId makes (any version, lower- or
// upper-case hex): what a catalog accepts and stores.
bool IsClusterId(std::string_view id);
// OK if IsClusterId(id), else InvalidArgument saying what a cluster id is.
[[nodiscard]] Status CheckClusterId(std::string_view id);

}  // namespace bloomroute::router

#endif  // BLOOMROUTE_ROUTER_CLUSTER_ID_H_
