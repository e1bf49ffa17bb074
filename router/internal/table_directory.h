// TableDirectory: the router's ready tables, as immutable snapshots that a
// call routes with. Readers copy a table's shared_ptr under the directory's
// lock and work on the snapshot; Publish swaps in the catalog's tables
// (callers serialize it with the router's DDL lock, so that publishes
// happen in catalog order).
#ifndef BLOOMROUTE_ROUTER_INTERNAL_TABLE_DIRECTORY_H_
#define BLOOMROUTE_ROUTER_INTERNAL_TABLE_DIRECTORY_H_

#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <shared_mutex>
#include <string>
#include <string_view>
#include <vector>

#include "common/status.h"
#include "common/statusor.h"
#include "model/region_protocol.h"
#include "router/internal/catalog.h"

namespace bloomroute::router_internal {

using router::ServerId;

struct ReshapeState;

// One table as the router routes it. Immutable once published.
struct TableState {
  CatalogTable record;
  // The regions of each server, by region id.
  std::map<ServerId, std::vector<uint64_t>> regions_by_server;

  // Shared by every state of the table published since its last region
  // switch (TableDirectory::Publish): when the last holder of the states
  // from before a switch lets go -- every read that may name the old
  // regions has ended -- the weak pointer a region operation kept expires.
  std::shared_ptr<const int> generation;
  // The region operation this router runs on the table while the record
  // has it copying (Publish sets it): a write to its sources goes through
  // its gate (WritePath::RouteWrite). A write decides from the state it
  // routes with, never from a second look at the router, so that it cannot
  // route with the sources and yet miss the operation that switched them.
  std::shared_ptr<ReshapeState> reshape;

  explicit TableState(CatalogTable t);
  // The index in record.regions of the region holding `row`.
  size_t RegionFor(std::string_view row) const;
  RegionDescriptor Descriptor(size_t region) const;
};

class TableDirectory {
 public:
  using Snapshot = std::vector<std::shared_ptr<const TableState>>;

  // Publishes the ready tables of `tables`. The table with id
  // `new_generation` (a region switch) gets a new TableState::generation;
  // the others keep theirs. The state of the running region operation's
  // table (Running) carries it while the record has it copying.
  void Publish(const CatalogStore::TableList& tables,
               uint64_t new_generation = 0);
  // The region operation this router runs (null: none). Set before the
  // operation is recorded in the catalog, so that the first state published
  // with it copying carries it; cleared once it has ended.
  void SetRunning(std::shared_ptr<ReshapeState> op);
  std::shared_ptr<ReshapeState> Running() const;
  // The table, enabled or not; NotFound naming it when unknown.
  StatusOr<std::shared_ptr<const TableState>> FindAnyState(
      std::string_view name) const;
  // The enabled table, for data calls: FindAnyState, and InvalidArgument
  // "table 'T' is disabled" for a disabled one.
  StatusOr<std::shared_ptr<const TableState>> Find(std::string_view name) const;
  // Every published table, by name.
  Snapshot Tables() const;
  // The generation of the table named `name` as published now (expired
  // when it is not published).
  std::weak_ptr<const int> Generation(std::string_view name) const;

 private:
  mutable std::mutex running_mu_;
  std::shared_ptr<ReshapeState> running_;  // guarded by running_mu_
  mutable std::shared_mutex mu_;
  // The ready tables by name.
  std::map<std::string, std::shared_ptr<const TableState>, std::less<>>
      tables_;  // guarded by mu_
};

}  // namespace bloomroute::router_internal

#endif  // BLOOMROUTE_ROUTER_INTERNAL_TABLE_DIRECTORY_H_
