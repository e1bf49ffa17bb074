// The router's half of "a write keeps the filter in sync" (write_path.h).
//
// How writes meet a running region operation (coordinator/region_ops.cc
// has the operation itself). A write to rows of the operation's sources
// enters the operation's gate while it routes and writes, and notes its
// rows; the switch closes the gate, copies the noted rows a last time and
// switches the table, and the writes that waited route again, to the new
// regions.
//
// Which writes take part is decided from the table state a write routes
// with (TableState::reshape, set while the state's record has the
// operation copying), never from a second look at the router: a write that
// took a state naming the sources must either be waited for by the copy
// (a state from before the operation was recorded: the copy starts once
// all of those are let go) or go through the gate (a state that has the
// operation). A second look could find the operation already ended and
// let the write reach a source that is about to be dropped.
#include "router/internal/write_path.h"

#include <algorithm>
#include <chrono>
#include <iterator>
#include <utility>

#include "common/sync_point.h"

namespace bloomroute::router_internal {

namespace {

// How long a write waits at a closed gate. A switch closes it for its last
// catch-up round and one catalog write (and at most kSwitchLockWait for
// the catalog lock): far below this. A switch whose catalog write failed
// keeps it closed until maintenance has written it; writes then fail
// (Unavailable, nothing written) rather than hold a worker.
constexpr auto kGateWaitLimit = std::chrono::seconds(30);

// Whether a write failure leaves the write in doubt (it may still commit):
// anything but a refusal that wrote nothing (WritePath::WriteFailed).
bool InDoubt(const Status& s) {
  return !s.ok() && !s.IsInvalidArgument() && !s.IsNotFound() && !s.IsAborted();
}

size_t MutationBytes(const Mutation& m) {
  size_t n = m.row_key.size() + 16;
  for (const Cell& c : m.cells) n += c.column.size() + c.value.size() + 8;
  for (const std::string& c : m.columns) n += c.size() + 4;
  for (const DeleteSpec& d : m.deletes) n += d.column.size() + 16;
  return n;
}

}  // namespace

WritePath::WritePath(router::GlobalIndex* index, const ServerDirectory* servers,
                     const TableDirectory* tables, SscbfConfig filter_config,
                     Hooks hooks)
    : index_(index),
      servers_(servers),
      tables_(tables),
      filter_config_(std::move(filter_config)),
      hooks_(std::move(hooks)) {}

// ---- Routing ----

void WriteRoute::Note(const std::string& row, size_t region,
                      const Status& status) const {
  if (op == nullptr) return;
  if (!op->Covers(state->record.descriptor.table_id,
                  state->record.regions[region].region_id)) {
    return;
  }
  op->NoteWritten(row);
  if (InDoubt(status)) op->NoteInDoubt();
}

WriteRoute::WriteRoute(WriteRoute&& other) noexcept
    : state(std::move(other.state)), op(std::move(other.op)) {}

WriteRoute::~WriteRoute() {
  if (op != nullptr) op->gate.Leave();
}

StatusOr<WriteRoute> WritePath::RouteWrite(
    std::string_view table, const std::vector<std::string_view>& rows) {
  const auto deadline = std::chrono::steady_clock::now() + kGateWaitLimit;
  for (;;) {
    WriteRoute route;
    BLOOMROUTE_ASSIGN_OR_RETURN(route.state, tables_->Find(table));
    BLOOMROUTE_SYNC_POINT("RouteWrite:StateTaken");
    const std::shared_ptr<ReshapeState>& op = route.state->reshape;
    if (op == nullptr) return route;
    const uint64_t id = route.state->record.descriptor.table_id;
    const bool touches = std::any_of(rows.begin(), rows.end(), [&](auto row) {
      const size_t r = route.state->RegionFor(row);
      return op->Covers(id, route.state->record.regions[r].region_id);
    });
    if (!touches) return route;
    if (!op->gate.Enter(deadline)) {
      return Status::Unavailable(
          "writes to a region of table " + QuoteForMessage(table) +
          " wait for the switch of a region operation, which did not end "
          "within 30 s; nothing was written, try again");
    }
    route.op = op;  // left by ~WriteRoute
    // Switched while we waited: the switch published the table with the
    // new regions before it opened the gate; route again with it.
    if (!route.op->switched) return route;
  }
}

// ---- Sending, and applying the reply to the replica ----

Status WritePath::ApplyBatches(const ServerEntry& server,
                               std::vector<Mutation> mutations) {
  size_t begin = 0;
  while (begin < mutations.size()) {
    size_t end = begin;
    size_t bytes = 0;
    while (end < mutations.size() && end - begin < kRowsPerRpc &&
           (end == begin || bytes < kBytesPerRpc)) {
      bytes += MutationBytes(mutations[end++]);
    }
    // Moved, not copied: the rows' bytes are not duplicated per write.
    const std::vector<Mutation> chunk(
        std::make_move_iterator(mutations.begin() + begin),
        std::make_move_iterator(mutations.begin() + end));
    BLOOMROUTE_RETURN_IF_ERROR(SendWrite(server, [&](uint64_t token) {
                                 return server.client->Apply(chunk, token);
                               }).status());
    begin = end;
  }
  return Status::OK();
}

Status WritePath::LoadBulkFile(const ServerEntry& server, uint64_t region_id,
                               const std::string& file) {
  return SendWrite(server,
                   [&](uint64_t token) {
                     return server.client->BulkLoad(region_id, file, token);
                   })
      .status();
}

Status WritePath::ServerFailed(const ServerEntry& server,
                               const Status& status) {
  if (hooks_.coordinator != nullptr) {
    (void)hooks_.coordinator->NoteRefusal(status);
  }
  if (status.IsUnavailable()) {
    // The call may have taken effect without our seeing its ops, and the
    // server may come back without its regions.
    (void)index_->MarkStale(server.ref.id);
    server.reopen = true;
    hooks_.wake();
  }
  return Named(server, status);
}

Status WritePath::WriteFailed(const ServerEntry& server, const Status& status) {
  // Only the server's own refusals say that nothing was written: any other
  // failure after the request left (a timeout, a dropped connection, a reply
  // that does not decode, an error inside the server) leaves it in doubt.
  if (!status.IsInvalidArgument() && !status.IsNotFound() &&
      !status.IsAborted()) {
    (void)index_->MarkWriteInDoubt(server.ref.id);
    hooks_.wake();
  }
  return ServerFailed(server, status);
}

Status WritePath::Named(const ServerEntry& server, const Status& status) {
  if (status.message().find(server.ref.address) != std::string::npos) {
    return status;
  }
  return status.WithContext("region server " + server.ref.address);
}

void WritePath::ApplyWrite(const ServerEntry& server,
                           const WriteResult& result) {
  StatusOr<bool> current = index_->ApplyWriteResult(server.ref.id, result);
  // Not current: lookups ask the server anyway until the catch-up.
  if (!current.ok() || !*current) hooks_.wake();
}

void WritePath::NoteIncarnation(const ServerEntry& server,
                                uint64_t incarnation) {
  if (index_->NoteIncarnation(server.ref.id, incarnation) &&
      incarnation == server.opened_incarnation) {
    return;
  }
  server.reopen = true;
  hooks_.wake();
}

// ---- Keeping the replicas current ----

void WritePath::CatchUpReplicas() {
  const std::shared_ptr<const ServerMap> servers = servers_->Snapshot();
  for (auto& [id, server] : *servers) {
    // The cluster's filter config first: a catch-up then loads the filter
    // the server rebuilt with it.
    if (!EnsureFilterConfig(id, *server)) continue;
    // A new subscription leaves the replica stale: caught up just below.
    if (renew_) renew_(id, *server->client);
    if (index_->IsCurrent(id)) continue;
    (void)index_->CatchUp(id, *server->client);
    // The catch-up may have loaded a new run of the server, whose regions
    // are not open yet.
    const uint64_t incarnation = index_->Incarnation(id);
    if (incarnation != 0 && incarnation != server->opened_incarnation) {
      server->reopen = true;
      hooks_.wake();
    }
  }
}

Status WritePath::SetFilterConfig(const ServerEntry& server) {
  if (hooks_.coordinator == nullptr) {
    return server.client->SetFilterConfig(filter_config_, CoordinatorEpoch{});
  }
  BLOOMROUTE_RETURN_IF_ERROR(hooks_.coordinator->CheckCoordinating());
  return hooks_.coordinator->NoteRefusal(server.client->SetFilterConfig(
      filter_config_, hooks_.coordinator->epoch()));
}

void WritePath::NoteFilterConfig(const ServerEntry& server,
                                 const FilterStatus& status) {
  if (!(status.config == filter_config_)) {
    server.config_incarnation = 0;
    hooks_.wake();
  }
}

bool WritePath::EnsureFilterConfig(ServerId id, const ServerEntry& server) {
  // A replica of a run known to have the config needs no call: the config
  // persists across the server's restarts, and only a status can show that
  // someone changed it (NoteFilterConfig).
  const uint64_t known = server.config_incarnation;
  if (known != 0 && index_->IsCurrent(id) && index_->Incarnation(id) == known) {
    return true;
  }
  StatusOr<FilterStatus> status = server.client->GetFilterStatus();
  Status s = status.status();
  if (s.ok() && !(status->config == filter_config_)) {
    // The server rebuilds its filter under a new epoch; until the replica
    // is loaded from it, lookups ask the server.
    s = SetFilterConfig(server);
    if (s.ok()) s = index_->MarkStale(id);
  }
  if (s.ok()) NoteIncarnation(server, status->incarnation);
  if (!s.ok()) {
    server.config_incarnation = 0;
    (void)index_->MarkStale(id);
    return false;
  }
  server.config_incarnation = status->incarnation;
  return true;
}

}  // namespace bloomroute::router_internal
