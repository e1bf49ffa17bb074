// WritePath: the router's half of "a write keeps the filter in sync"
// (DESIGN.md invariant 1). Every write the router sends to a region server
// goes through here:
//
//   RouteWrite   the table state the write routes with, and the gate of a
//                region operation whose sources it writes
//   SendWrite    the call, with the server's write fence token (again with
//                the new token when the fence refused it)
//   ApplyWrite   the filter ops the server's reply carries, applied to the
//                server's replica (GlobalIndex) before the caller hears of
//                success: read-your-writes through the index
//   WriteFailed  a failure: a write in doubt fences the replica and has it
//                caught up (GlobalIndex::MarkWriteInDoubt)
//
// and the replica is kept current here in the background (CatchUpReplicas,
// after EnsureFilterConfig has given the server the cluster's filter
// config). The region server's half is regionstore/internal/region_filter.h.
//
// Thread-safe: the state is the replicas' (they lock themselves) and the
// server entries' atomics.
#ifndef BLOOMROUTE_ROUTER_INTERNAL_WRITE_PATH_H_
#define BLOOMROUTE_ROUTER_INTERNAL_WRITE_PATH_H_

#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "common/status.h"
#include "common/statusor.h"
#include "model/region_protocol.h"
#include "router/global_index.h"
#include "router/internal/coordinator_standing.h"
#include "router/internal/reshape_state.h"
#include "router/internal/server_directory.h"
#include "router/internal/table_directory.h"

namespace bloomroute::router_internal {

// One RegionService call carries at most this many rows or (about) bytes, so
// that a request stays far below a region server's frame limit and its
// per-batch limit.
constexpr size_t kRowsPerRpc = 1000;
constexpr size_t kBytesPerRpc = 8 << 20;

// What a write holds from routing until it is answered (RouteWrite): its
// table state (an operation waits for the states of before it was
// published to be let go) and, when some of its rows are in the sources of
// the running region operation, that operation's gate (entered; left when
// the route is destroyed).
struct WriteRoute {
  WriteRoute() = default;
  WriteRoute(WriteRoute&& other) noexcept;
  WriteRoute& operator=(WriteRoute&&) = delete;
  ~WriteRoute();
  std::shared_ptr<const TableState> state;
  std::shared_ptr<ReshapeState> op;  // null: no row in its sources
  // After the write of `row` (to state->record.regions[region]) ended with
  // `status`: notes it when it is in the sources (and its doubt).
  void Note(const std::string& row, size_t region, const Status& status) const;
};

class WritePath {
 public:
  // What the write path asks of the rest of the router.
  struct Hooks {
    // Wakes the maintenance thread: a replica to catch up, regions to
    // reopen.
    std::function<void()> wake;
    // Opens again every region the catalog places on the server (its new
    // run serves none until then).
    std::function<Status(const ServerEntry&)> reopen;
    // This router's coordinator epoch, which SetFilterConfig carries
    // (EnsureFilterConfig), and where a refusal of it is noted
    // (ServerFailed). Null: calls carry epoch 0 (tests of the write path
    // alone).
    CoordinatorStanding* coordinator = nullptr;
  };

  // `index`, `servers` and `tables` outlive the write path.
  WritePath(router::GlobalIndex* index, const ServerDirectory* servers,
            const TableDirectory* tables, SscbfConfig filter_config,
            Hooks hooks);

  // The table for a write of `rows` and, when the running operation's
  // sources hold any of them, its gate entered (routed again after a
  // switch). NotFound / InvalidArgument as TableDirectory::Find;
  // Unavailable (nothing written) when the gate stayed closed 30 s.
  StatusOr<WriteRoute> RouteWrite(std::string_view table,
                                  const std::vector<std::string_view>& rows);
  // Sends one write to `server` with its current fence token, again with
  // the new token when a fence refused it; applies the result to the replica
  // before returning it. `send(token)` returns StatusOr<WriteResult>.
  template <typename SendFn>
  StatusOr<WriteResult> SendWrite(const ServerEntry& server, SendFn&& send);
  // `mutations` (consumed) to `server` in chunks of kRowsPerRpc rows or
  // kBytesPerRpc bytes, each sent as SendWrite sends a write.
  [[nodiscard]] Status ApplyBatches(const ServerEntry& server,
                                    std::vector<Mutation> mutations);
  // Loads bulk file `file` into region `region_id` on `server`, sent as
  // SendWrite sends a write.
  [[nodiscard]] Status LoadBulkFile(const ServerEntry& server,
                                    uint64_t region_id,
                                    const std::string& file);
  // Applies one server's write result to its replica (read-your-writes).
  void ApplyWrite(const ServerEntry& server, const WriteResult& result);

  // `call()` against `server`; when it answers NotFound -- the server may
  // have restarted and serve no region until they are reopened -- reopens
  // its regions and calls once more.
  template <typename CallFn>
  auto RetryIfRegionsClosed(const ServerEntry& server, CallFn&& call)
      -> decltype(call());
  // A failed call to `server`: Unavailable means it may have lost or applied
  // writes without our knowing, so its replica is stale and its regions are
  // reopened. A refusal of this router's coordinator epoch is noted
  // (CoordinatorStanding::NoteRefusal). Returns the status naming the
  // server.
  Status ServerFailed(const ServerEntry& server, const Status& status);
  // A failed write to `server`. Unless the server refused it (nothing was
  // written: InvalidArgument, NotFound, Aborted), the write is in doubt: it
  // may have committed or may still commit, so the replica is fenced and
  // caught up (GlobalIndex::MarkWriteInDoubt). Then as ServerFailed.
  Status WriteFailed(const ServerEntry& server, const Status& status);
  // `status` of a call to `server`, its message naming the server.
  static Status Named(const ServerEntry& server, const Status& status);
  // A reply of `server` named its incarnation: when it is a new run, the
  // replica stops being current and the regions are reopened.
  void NoteIncarnation(const ServerEntry& server, uint64_t incarnation);

  // Catches up every member's replica that is not current, after giving
  // the server the cluster's filter config (EnsureFilterConfig).
  void CatchUpReplicas();
  // Renews a server's op subscription when due (router/op_subscriber.h),
  // called by CatchUpReplicas before it looks at the replica: a new
  // subscription leaves the replica stale, caught up right after. Set
  // before the write path is used concurrently; unset: no subscriptions.
  using LeaseRenewal =
      std::function<void(router::ServerId, router::RegionClient&)>;
  void SetLeaseRenewal(LeaseRenewal renew) { renew_ = std::move(renew); }
  // Makes sure the server's filter has the cluster's config before its
  // replica is caught up: asks its status when the replica is not current
  // or belongs to a run not known to have the config, and sets the config
  // when the status shows another one (the server rebuilds its filter under
  // a new epoch; the replica is marked stale). False when the server did
  // not answer or refused: its replica is then left stale, so lookups ask
  // it. (DESIGN.md invariant 4: the router owns the cluster's config.) The
  // config is set with the coordinator's epoch; a router that no longer
  // coordinates sets none (the coordinator does).
  bool EnsureFilterConfig(ServerId id, const ServerEntry& server);
  // SetFilterConfig of the cluster's config on `server`, with the
  // coordinator's epoch (Aborted, and no call, once deposed).
  Status SetFilterConfig(const ServerEntry& server);
  // A status of the server was seen: forgets that it has the config when
  // the status shows another config.
  void NoteFilterConfig(const ServerEntry& server, const FilterStatus& status);

 private:
  router::GlobalIndex* const index_;
  const ServerDirectory* const servers_;
  const TableDirectory* const tables_;
  const SscbfConfig filter_config_;
  const Hooks hooks_;
  LeaseRenewal renew_;  // set before concurrent use (SetLeaseRenewal)
};

inline const Status& StatusOf(const Status& s) { return s; }
template <typename T>
const Status& StatusOf(const StatusOr<T>& s) {
  return s.status();
}

template <typename CallFn>
auto WritePath::RetryIfRegionsClosed(const ServerEntry& server, CallFn&& call)
    -> decltype(call()) {
  auto result = call();
  if (!StatusOf(result).IsNotFound()) return result;
  if (!hooks_.reopen(server).ok()) return result;
  return call();
}

template <typename SendFn>
StatusOr<WriteResult> WritePath::SendWrite(const ServerEntry& server,
                                           SendFn&& send) {
  // A fence refuses writes with an older token only after a write to the
  // server went in doubt; a retry with the new token is a new request (the
  // refused one wrote nothing). A few attempts: fences rise rarely.
  constexpr int kAttempts = 3;
  for (int attempt = 1;; ++attempt) {
    StatusOr<WriteResult> result = RetryIfRegionsClosed(
        server, [&] { return send(index_->FenceToken(server.ref.id)); });
    if (result.ok()) {
      // Before the caller hears of success: read-your-writes.
      ApplyWrite(server, *result);
      return result;
    }
    if (result.status().IsAborted() && attempt < kAttempts) continue;
    return WriteFailed(server, result.status());
  }
}

}  // namespace bloomroute::router_internal

#endif  // BLOOMROUTE_ROUTER_INTERNAL_WRITE_PATH_H_
