// What a router shows operators (ops/ops_handler.h serves it): its
// readiness and its /status page.
//
// Readiness: the router is ready when its catalog is loaded (it is, once
// the router opened) and at least one of its region servers answered the
// last probe (maintenance probes every few seconds); the reason names the
// servers that did not. A router with no region server is not ready: it
// can serve no row. One server down does not make it unready: the other
// servers' data is served, and every router would be taken out of a load
// balancer at once otherwise.
//
// The page, like HBase's master UI: servers (address, up or down, regions,
// rows, bytes, replica state), tables and their indexes (state, backfill
// progress), region operations running, the balancer's last run, and the
// routing counters since start (lookups, fan-out histogram, false routes
// per lookup). It asks every region server for its region statistics
// (Router::ListServers), as `bloomroute admin servers` does.
//
// Thread-safety: both may be called from any thread.
#ifndef BLOOMROUTE_OPS_ROUTER_OPS_H_
#define BLOOMROUTE_OPS_ROUTER_OPS_H_

#include <chrono>
#include <cstdint>
#include <string>

#include "common/metrics.h"
#include "ops/ops_handler.h"
#include "router/router.h"

namespace bloomroute::ops {

struct RouterPageInfo {
  std::string address;  // the Thrift port, HOST:PORT
  std::string version;
  std::chrono::system_clock::time_point started;
  metrics::Registry* registry = &metrics::DefaultRegistry();
};

Readiness RouterReadiness(const router::Router& router);

std::string RouterStatusPage(router::Router& router, const RouterPageInfo& info,
                             int refresh_seconds);

}  // namespace bloomroute::ops

#endif  // BLOOMROUTE_OPS_ROUTER_OPS_H_
