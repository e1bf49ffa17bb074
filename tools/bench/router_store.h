// ycsb::Store (tools/bench/ycsb_driver.h) over a router: what `bloomroute
// bench ycsb` runs its operations against, as YCSB's HBase binding does
// against HBase. One store per worker thread, each with its own
// RouterClient: a scan holds the connection's scanner between calls, which
// another thread's calls must not interleave with (thrift/router_client.h).
//
//   Read    getMultiple of one row, every column (NotFound for a missing row)
//   Scan    a scanner from the start key, up to `count` rows (ScanEach)
//   Write   putMultiple of one row's cells
//   Lookup  getByIndex with one equality, up to `limit` rows
// Errors are the router client's, with the operation and row named.
#ifndef BLOOMROUTE_TOOLS_BENCH_ROUTER_STORE_H_
#define BLOOMROUTE_TOOLS_BENCH_ROUTER_STORE_H_

#include <memory>
#include <string>

#include "thrift/router_client.h"
#include "tools/bench/ycsb_driver.h"

namespace bloomroute::ycsb {

std::unique_ptr<Store> MakeRouterStore(std::unique_ptr<RouterClient> router,
                                       std::string table);

}  // namespace bloomroute::ycsb

#endif  // BLOOMROUTE_TOOLS_BENCH_ROUTER_STORE_H_
