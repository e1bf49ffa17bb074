// RouterContext: what the router's components share. RouterImpl owns every
// piece, fills the context in Init (before it creates the components that
// take it) and outlives them all; a component keeps a const reference and
// uses the pointers, never frees them.
//
// Locks. ddl_mu serializes table changes (create, delete, state, index
// changes, a region switch): it is timed, so that a switch, holding writes
// at its gate, never waits long for it. Every other piece locks itself.
#ifndef BLOOMROUTE_ROUTER_INTERNAL_ROUTER_CONTEXT_H_
#define BLOOMROUTE_ROUTER_INTERNAL_ROUTER_CONTEXT_H_

#include <chrono>
#include <functional>
#include <mutex>

#include "router/global_index.h"
#include "router/internal/catalog.h"
#include "router/internal/coordinator_standing.h"
#include "router/internal/fan_out.h"
#include "router/internal/router_metrics.h"
#include "router/internal/server_directory.h"
#include "router/internal/table_directory.h"
#include "router/internal/write_path.h"
#include "router/router_options.h"

namespace bloomroute::router_internal {

struct RouterContext {
  const router::RouterOptions* options = nullptr;
  // The cluster's filter config (ClusterFilterConfig of the options and
  // the members at Init); fixed then.
  SscbfConfig filter_config;
  CatalogStore* catalog = nullptr;
  router::GlobalIndex* index = nullptr;
  FanOut* fan_out = nullptr;
  RouterMetrics* metrics = nullptr;
  ServerDirectory* servers = nullptr;
  TableDirectory* tables = nullptr;
  WritePath* write_path = nullptr;
  std::timed_mutex* ddl_mu = nullptr;
  // This router's coordinator epoch and whether it still coordinates:
  // every call of the coordinator's duties that changes a region server's
  // regions or filter carries coordinator->epoch(), and its refusal
  // (IsCoordinatorEpochRefused) is noted there (WritePath::ServerFailed
  // does) and stops the duty. Never null once the router is initialized.
  CoordinatorStanding* coordinator = nullptr;
  // Asks for a maintenance pass soon: a replica to catch up, regions to
  // reopen, an index task with work left.
  std::function<void()> wake;

  // Publishes the catalog's tables (TableDirectory::Publish).
  void PublishTables(uint64_t new_generation = 0) const {
    tables->Publish(*catalog->Tables(), new_generation);
  }
  // The epoch the coordinator's calls carry.
  CoordinatorEpoch coordinator_epoch() const { return coordinator->epoch(); }
  // When a call that starts now should answer with what it has
  // (RouterOptions::call_work_budget_ms).
  std::chrono::steady_clock::time_point WorkDeadline() const {
    return std::chrono::steady_clock::now() +
           std::chrono::milliseconds(options->call_work_budget_ms);
  }
};

}  // namespace bloomroute::router_internal

#endif  // BLOOMROUTE_ROUTER_INTERNAL_ROUTER_CONTEXT_H_
