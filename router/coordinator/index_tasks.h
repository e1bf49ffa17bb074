// IndexTasks: online index builds and drops (Router::AddIndex, DropIndex,
// IndexStatus) and the maintenance that backfills and drops an index
// region by region (MaintainIndexes). The order of events and why they are
// safe across crashes are in index_tasks.cc.
//
// The tasks live in the catalog (CatalogTable::index_tasks): a task's
// progress is the resume rows of the regions in progress (one a server)
// and the regions done, written after every round of chunks, so a router
// that restarts carries on where the last one stopped.
//
// Thread-safety: every method may be called from several threads. Index
// changes and chunks are serialized with the other table changes by
// ddl_mu (AddIndex, DropIndex and MaintainIndexes take it; MaintainIndexes
// once a round of chunks, so that a long build never holds table changes
// up for long).
#ifndef BLOOMROUTE_ROUTER_COORDINATOR_INDEX_TASKS_H_
#define BLOOMROUTE_ROUTER_COORDINATOR_INDEX_TASKS_H_

#include <cstddef>
#include <cstdint>
#include <functional>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "common/status.h"
#include "common/statusor.h"
#include "model/region_protocol.h"
#include "router/internal/catalog.h"
#include "router/internal/router_context.h"
#include "router/router.h"

namespace bloomroute::router_internal {

// InvalidArgument "index on C of table 'T' is building (N of M regions
// done); ..." when `column` is a building column of `table`; OK otherwise
// (also for a column not indexed: the caller says so).
Status CheckIndexReady(const CatalogTable& table, std::string_view column);

// `d` as clients see it (describeTable, listTables): without the columns
// still building, and with the bloomroute.index attribute, when it has
// one, naming the others.
TableDescriptor ReadyDescriptor(const TableDescriptor& d);

class IndexTasks {
 public:
  // What the index tasks ask of the rest of the router.
  struct Hooks {
    // OK when no region operation is in flight on the table; otherwise the
    // error an index change of it fails with.
    std::function<Status(const CatalogTable&)> check_no_region_op;
  };

  // `ctx` outlives the tasks.
  IndexTasks(const RouterContext& ctx, Hooks hooks);
  IndexTasks(const IndexTasks&) = delete;
  IndexTasks& operator=(const IndexTasks&) = delete;

  // Router::AddIndex: records `column` of table `table` as building (a new
  // column id, never reused), gives the table's servers the new column set
  // and leaves the backfill to MaintainIndexes. NotFound for an unknown
  // table; InvalidArgument for a bad, indexed or one-too-many column; the
  // hook's error while a region operation runs on the table; a server's
  // error (the change stands) when one did not answer.
  [[nodiscard]] Status AddIndex(std::string_view table,
                                const std::string& column);
  // Router::DropIndex: moves `column` from the table's indexed columns to
  // a drop task (a build of it ends) and gives the servers the column set
  // without it; MaintainIndexes removes its entries. Errors as AddIndex.
  [[nodiscard]] Status DropIndex(std::string_view table,
                                 const std::string& column);
  // Router::IndexStatus: every indexed, building and dropping column of
  // the table, with its regions done and rows. NotFound for an unknown
  // table.
  StatusOr<std::vector<router::IndexState>> IndexStatus(
      std::string_view table) const;
  // Runs the index tasks of the catalog, at most index_chunks_per_pass
  // chunks; wakes maintenance again when work is left.
  void MaintainIndexes();

  // Gives `server` the indexed columns of `state`'s table
  // (UpdateTableIndexes, carrying the coordinator's `epoch`); OK when it
  // holds none of the table's regions.
  [[nodiscard]] static Status UpdateServerIndexes(const ServerEntry& server,
                                                  const TableState& state,
                                                  CoordinatorEpoch epoch);

 private:
  // Gives every server holding regions of `state`'s table its indexed
  // columns (UpdateTableIndexes); the first failure, after ServerFailed.
  [[nodiscard]] Status UpdateIndexesOnServers(const TableState& state);
  // Writes `table` to the catalog (synchronously, before any server acts on
  // it), publishes it and gives its servers the new column set. A server
  // that does not answer fails the call with `pending` as context: the
  // change stands, and the background task finishes it.
  [[nodiscard]] Status RecordIndexChange(const CatalogTable& table,
                                         const std::string& pending);
  // One round of `task_column`'s task on table `table_id`: a chunk on the
  // next unfinished region of each server not in `*failed` (at most
  // `max_chunks` servers), sent at once, their progress (and, when the last
  // region is done, the task's end) persisted; adds the chunks sent to
  // `*chunks` and the servers whose chunk failed to `*failed`. Needs ddl_mu
  // held. False when there is nothing left to do on the table now (done, or
  // only failed servers left) or no chunk moved on.
  bool RunIndexRoundLocked(uint64_t table_id, uint32_t task_column,
                           uint32_t max_chunks,
                           std::set<router::ServerId>* failed,
                           uint32_t* chunks);
  // Ends a task whose regions are all done: a build clears the building
  // flag on the servers, then in the catalog; a drop is forgotten.
  [[nodiscard]] Status FinishIndexTaskLocked(CatalogTable table, size_t task);
  // One backfill or drop chunk sent as SendWrite sends a write (fence
  // token, a retry with the new token when fenced, the ops applied to the
  // replica before returning), but without reopening the server's regions
  // on NotFound: that takes ddl_mu, which the caller holds (maintenance
  // reopens them).
  StatusOr<IndexChunkResult> SendIndexChunk(const ServerEntry& server,
                                            bool build, uint64_t region,
                                            uint32_t column,
                                            const std::string& after);

  const RouterContext& ctx_;
  const Hooks hooks_;
};

}  // namespace bloomroute::router_internal

#endif  // BLOOMROUTE_ROUTER_COORDINATOR_INDEX_TASKS_H_
