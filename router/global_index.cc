#include "router/global_index.h"

#include <algorithm>
#include <mutex>
#include <optional>
#include <string>
#include <tuple>
#include <utility>

namespace bloomroute::router {

struct GlobalIndex::Replica {
  explicit Replica(uint64_t first_token) : fence_token(first_token) {}

  mutable std::shared_mutex mu;
  // Guarded by mu.
  std::optional<ScalableSplitCountingBloomFilter> filter;
  uint64_t incarnation = 0;  // of `filter`; 0 while none is loaded
  uint64_t epoch = 0;
  uint64_t seq = 0;
  // The filter no longer matches the server's at `seq` (a replay failed), so
  // only a snapshot can repair it.
  bool diverged = false;
  // The newest (epoch, seq) a write of `incarnation` reported.
  uint64_t reported_epoch = 0;
  uint64_t reported_seq = 0;
  // Generations (see the header): `generation` counts the events a catch-up
  // must follow; `caught_up` is the generation a completed catch-up read
  // before it asked the server. A new replica starts one generation behind.
  uint64_t generation = 1;
  uint64_t caught_up = 0;
  uint64_t fence_token;  // what writes carry; raised by MarkWriteInDoubt

  // Serializes CatchUp calls on this replica; never taken while holding mu.
  std::mutex catch_up_mu;

  bool ReachedReported() const {
    return std::tie(epoch, seq) >= std::tie(reported_epoch, reported_seq);
  }
  bool Current() const {
    return filter.has_value() && !diverged && caught_up == generation &&
           ReachedReported();
  }
  // Ops of (`op_incarnation`, `op_epoch`) may be applied to the filter in
  // sequence order.
  bool CanApply(uint64_t op_incarnation, uint64_t op_epoch) const {
    return filter.has_value() && !diverged && op_incarnation == incarnation &&
           op_epoch == epoch;
  }
};

namespace {

using Replica = GlobalIndex::Replica;

// Records the newest (epoch, seq) a write reported; CatchUp must reach it.
void NoteReported(Replica& r, const WriteResult& result) {
  const uint64_t seq =
      std::max(result.last_seq, result.ops.empty() ? 0 : result.ops.back().seq);
  if (std::tie(result.epoch, seq) >
      std::tie(r.reported_epoch, r.reported_seq)) {
    r.reported_epoch = result.epoch;
    r.reported_seq = seq;
  }
}

// Applies the op that follows r.seq. An insert must land in the stage the
// server's did, or the replica's stages no longer line up with the server's:
// later removes would hit the wrong stage. Returns false (and marks the
// replica diverged) when the op does not replay identically.
bool ReplayNextOp(Replica& r, const FilterOp& op) {
  bool same = false;
  if (op.kind == FilterOp::Kind::kInsert) {
    StatusOr<uint32_t> stage = r.filter->Insert(op.hash);
    same = stage.ok() && *stage == op.stage;
  } else if (op.kind == FilterOp::Kind::kRemove) {
    same = r.filter->Remove(op.hash, op.stage).ok();
  }
  if (!same) {
    r.diverged = true;
    return false;
  }
  r.seq = op.seq;
  return true;
}

// Applies the ops after r.seq, in order; ops at or below it are skipped.
// Returns false at a gap or a failed replay, having applied the ops before it.
bool ApplyInOrder(Replica& r, const std::vector<FilterOp>& ops) {
  for (const FilterOp& op : ops) {
    if (op.seq <= r.seq) continue;
    if (op.seq != r.seq + 1 || !ReplayNextOp(r, op)) return false;
  }
  return true;
}

}  // namespace

GlobalIndex::GlobalIndex(uint64_t fence_base) : fence_base_(fence_base) {}
GlobalIndex::~GlobalIndex() = default;

void GlobalIndex::AddServer(ServerId server) {
  std::unique_lock<std::shared_mutex> lock(servers_mu_);
  if (replicas_.count(server) == 0) {
    replicas_.emplace(server, std::make_shared<Replica>(fence_base_ + 1));
  }
}

void GlobalIndex::RemoveServer(ServerId server) {
  std::unique_lock<std::shared_mutex> lock(servers_mu_);
  replicas_.erase(server);
}

std::shared_ptr<GlobalIndex::Replica> GlobalIndex::Find(ServerId server) const {
  std::shared_lock<std::shared_mutex> lock(servers_mu_);
  auto it = replicas_.find(server);
  return it == replicas_.end() ? nullptr : it->second;
}

Status GlobalIndex::MarkStale(ServerId server) {
  std::shared_ptr<Replica> r = Find(server);
  if (r == nullptr) return Status::NotFound("unknown server");
  std::unique_lock<std::shared_mutex> lock(r->mu);
  ++r->generation;
  return Status::OK();
}

Status GlobalIndex::MarkWriteInDoubt(ServerId server) {
  std::shared_ptr<Replica> r = Find(server);
  if (r == nullptr) return Status::NotFound("unknown server");
  std::unique_lock<std::shared_mutex> lock(r->mu);
  // Both under one lock: a catch-up that reads the new generation also
  // reads (and fences with) the new token.
  ++r->fence_token;
  ++r->generation;
  return Status::OK();
}

uint64_t GlobalIndex::FenceToken(ServerId server) const {
  std::shared_ptr<Replica> r = Find(server);
  if (r == nullptr) return 0;
  std::shared_lock<std::shared_mutex> lock(r->mu);
  return r->fence_token;
}

bool GlobalIndex::NoteIncarnation(ServerId server, uint64_t incarnation) {
  std::shared_ptr<Replica> r = Find(server);
  if (r == nullptr) return false;
  std::unique_lock<std::shared_mutex> lock(r->mu);
  if (incarnation == r->incarnation) return true;
  ++r->generation;
  return false;
}

StatusOr<bool> GlobalIndex::ApplyWriteResult(ServerId server,
                                             const WriteResult& result) {
  std::shared_ptr<Replica> r = Find(server);
  if (r == nullptr) return Status::NotFound("unknown server");
  std::unique_lock<std::shared_mutex> lock(r->mu);
  if (result.incarnation != r->incarnation) {
    // Another run of the server (restarted, or this reply is from before a
    // restart): its numbers say nothing about ours. A catch-up that begins
    // after this reply covers the write (see "Generations").
    ++r->generation;
    return false;
  }
  NoteReported(*r, result);
  // Ops past a gap, or of another epoch, are dropped: the replica is behind
  // what was reported now, so it is not current until CatchUp fetches them.
  if (r->CanApply(result.incarnation, result.epoch)) {
    ApplyInOrder(*r, result.ops);
  }
  return r->Current();
}

namespace {

// What one catch-up round did.
enum class Round {
  kDone,        // the replica is current
  kProgress,    // it holds newer ops than before the round: ask again
  kRestarted,   // an event began a generation during the round: ask again
  kNoProgress,  // the server gave nothing new, yet the replica is behind
};

// What a round read from the replica before asking the server.
struct RoundStart {
  uint64_t generation = 0;
  uint64_t fence_token = 0;
  bool have_filter = false;
  uint64_t incarnation = 0;
  uint64_t epoch = 0;
  uint64_t seq = 0;
};

// Installs an ops-since reply fetched for `start`. Ops a write applied
// meanwhile are skipped. Holding the server's newest op covers every write it
// committed before it answered, reported or not: the generations up to the
// one the round read are cleared.
Round InstallOps(Replica& r, const RoundStart& start,
                 const FilterOpsSince& reply) {
  std::unique_lock<std::shared_mutex> lock(r.mu);
  if (!r.CanApply(start.incarnation, start.epoch) ||
      !ApplyInOrder(r, reply.ops)) {
    return Round::kNoProgress;
  }
  if (reply.last_seq <= r.seq)
    r.caught_up = std::max(r.caught_up, start.generation);
  if (r.Current()) return Round::kDone;
  if (r.seq > start.seq) return Round::kProgress;
  return r.generation != start.generation ? Round::kRestarted
                                          : Round::kNoProgress;
}

// Loads a snapshot. Ops that writes delivered while it was fetched were
// dropped (not current: another epoch or past a gap); the ones newer than the
// snapshot keep the replica behind what was reported, so the next round
// fetches them, and the older ones are already in it. A snapshot of another
// incarnation starts a generation: the next round, an ops-since of the new
// incarnation, is then the one that clears the replica.
Status InstallSnapshot(Replica& r, FilterSnapshot snapshot) {
  StatusOr<ScalableSplitCountingBloomFilter> f =
      ScalableSplitCountingBloomFilter::Deserialize(snapshot.filter);
  if (!f.ok()) {
    return Status::Corruption("filter snapshot: " + f.status().message());
  }
  std::unique_lock<std::shared_mutex> lock(r.mu);
  if (snapshot.incarnation != r.incarnation) {
    // What the old run's writes reported has no order against the new run's
    // numbers; the new run holds whatever of them it kept.
    r.reported_epoch = 0;
    r.reported_seq = 0;
    ++r.generation;
  }
  r.filter.emplace(std::move(*f));
  r.incarnation = snapshot.incarnation;
  r.epoch = snapshot.epoch;
  r.seq = snapshot.last_seq;
  r.diverged = false;
  return Status::OK();
}

// Reads what a round starts from; nullopt when the replica is current.
std::optional<RoundStart> StartRound(const Replica& r) {
  std::shared_lock<std::shared_mutex> lock(r.mu);
  if (r.Current()) return std::nullopt;
  RoundStart start;
  start.generation = r.generation;
  start.fence_token = r.fence_token;
  start.have_filter = r.filter.has_value() && !r.diverged;
  start.incarnation = r.incarnation;
  start.epoch = r.epoch;
  start.seq = r.seq;
  return start;
}

}  // namespace

Status GlobalIndex::CatchUp(ServerId server, RegionClient& client) {
  std::shared_ptr<Replica> r = Find(server);
  if (r == nullptr) return Status::NotFound("unknown server");
  std::lock_guard<std::mutex> serialize(r->catch_up_mu);
  // A round without progress forces a snapshot; a second one after a
  // snapshot means the server cannot supply the ops its writes reported.
  bool force_snapshot = false;
  bool stuck_after_snapshot = false;
  int restarted = 0;
  while (true) {
    const std::optional<RoundStart> start = StartRound(*r);
    if (!start) return Status::OK();
    if (start->have_filter && !force_snapshot) {
      StatusOr<FilterOpsSince> ops = client.OpsSince(
          start->incarnation, start->epoch, start->seq, start->fence_token);
      if (!ops.ok()) return ops.status();
      if (!ops->too_old && ops->incarnation == start->incarnation &&
          ops->epoch == start->epoch) {
        const Round round = InstallOps(*r, *start, *ops);
        if (round == Round::kDone) return Status::OK();
        if (round == Round::kRestarted && ++restarted > kMaxRestartedRounds) {
          return Status::Unavailable(
              "the replica is still behind: new events kept arriving");
        }
        if (round == Round::kNoProgress) {
          if (stuck_after_snapshot) {
            return Status::Corruption(
                "server does not have the filter ops its writes reported");
          }
          force_snapshot = true;
        }
        continue;
      }
    }
    StatusOr<FilterSnapshot> snapshot = client.Snapshot(start->fence_token);
    if (!snapshot.ok()) return snapshot.status();
    BLOOMROUTE_RETURN_IF_ERROR(InstallSnapshot(*r, std::move(*snapshot)));
    stuck_after_snapshot = force_snapshot;
    force_snapshot = false;
  }
}

CandidateServers GlobalIndex::Candidates(
    const std::vector<ElementHash>& elements) const {
  std::vector<std::pair<ServerId, std::shared_ptr<Replica>>> replicas;
  {
    std::shared_lock<std::shared_mutex> lock(servers_mu_);
    replicas.assign(replicas_.begin(), replicas_.end());
  }
  CandidateServers out;
  for (const auto& [server, r] : replicas) {
    std::shared_lock<std::shared_mutex> lock(r->mu);
    if (!r->Current()) {
      out.servers.push_back(server);
      out.not_current.push_back(server);
      continue;
    }
    bool all = true;
    for (const ElementHash& h : elements) {
      if (!r->filter->Contains(h)) {
        all = false;
        break;
      }
    }
    if (all) out.servers.push_back(server);
  }
  return out;
}

StatusOr<ReplicaComparison> GlobalIndex::Compare(
    ServerId server, const FilterSnapshot& snapshot) const {
  std::shared_ptr<Replica> r = Find(server);
  if (r == nullptr) return Status::NotFound("unknown server");
  auto theirs = ScalableSplitCountingBloomFilter::Deserialize(snapshot.filter);
  if (!theirs.ok()) {
    return Status::Corruption("server's filter snapshot: " +
                              theirs.status().message());
  }
  const auto at = [](uint64_t epoch, uint64_t seq) {
    return std::to_string(epoch) + "/" + std::to_string(seq);
  };
  std::shared_lock<std::shared_mutex> lock(r->mu);
  ReplicaComparison out;
  const std::string where = "replica at epoch/seq " + at(r->epoch, r->seq) +
                            ", server at " +
                            at(snapshot.epoch, snapshot.last_seq);
  if (snapshot.incarnation != r->incarnation) {
    out.detail = "the server restarted since the replica was loaded (" + where +
                 "); it is reloaded";
  } else if (!r->Current()) {
    out.detail = "replica not current (" + where + "); it is catching up";
  } else if (r->epoch != snapshot.epoch || r->seq != snapshot.last_seq) {
    out.detail = where + " (writes in flight); compare again";
  } else if (!r->filter->EquivalentTo(*theirs)) {
    out.agreement = ReplicaAgreement::kDiffers;
    out.detail = "replica differs from the server's filter at epoch/seq " +
                 at(r->epoch, r->seq);
  } else {
    out.agreement = ReplicaAgreement::kMatches;
    out.detail = "replica equals the server's filter at epoch/seq " +
                 at(r->epoch, r->seq);
  }
  return out;
}

std::vector<ServerId> GlobalIndex::Servers() const {
  std::shared_lock<std::shared_mutex> lock(servers_mu_);
  std::vector<ServerId> out;
  for (const auto& entry : replicas_) out.push_back(entry.first);
  return out;
}

std::vector<ReplicaStats> GlobalIndex::Stats() const {
  std::vector<std::pair<ServerId, std::shared_ptr<Replica>>> replicas;
  {
    std::shared_lock<std::shared_mutex> lock(servers_mu_);
    replicas.assign(replicas_.begin(), replicas_.end());
  }
  std::vector<ReplicaStats> out;
  for (const auto& [server, r] : replicas) {
    std::shared_lock<std::shared_mutex> lock(r->mu);
    ReplicaStats s;
    s.server = server;
    s.loaded = r->filter.has_value();
    s.current = r->Current();
    s.incarnation = r->incarnation;
    s.epoch = r->epoch;
    s.seq = r->seq;
    s.reported_epoch = r->reported_epoch;
    s.reported_seq = r->reported_seq;
    if (r->filter.has_value()) s.filter = r->filter->Stats();
    out.push_back(std::move(s));
  }
  return out;
}

bool GlobalIndex::IsCurrent(ServerId server) const {
  std::shared_ptr<Replica> r = Find(server);
  if (r == nullptr) return false;
  std::shared_lock<std::shared_mutex> lock(r->mu);
  return r->Current();
}

uint64_t GlobalIndex::Incarnation(ServerId server) const {
  std::shared_ptr<Replica> r = Find(server);
  if (r == nullptr) return 0;
  std::shared_lock<std::shared_mutex> lock(r->mu);
  return r->incarnation;
}

const ScalableSplitCountingBloomFilter* GlobalIndex::LockedFilter(
    const Replica& r, std::shared_lock<std::shared_mutex>* lock) const {
  *lock = std::shared_lock<std::shared_mutex>(r.mu);
  return r.filter.has_value() ? &*r.filter : nullptr;
}

}  // namespace bloomroute::router
