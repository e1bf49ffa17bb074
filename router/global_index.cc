#include "router/global_index.h"

#include <algorithm>
#include <atomic>
#include <cmath>
#include <mutex>
#include <optional>
#include <string>
#include <tuple>
#include <utility>

#include "router/internal/bit_sliced_index.h"

namespace bloomroute::router {

namespace {

// What one fetched op counts in ReplicaStats::catch_up_bytes: its size in
// memory, about its binary-protocol size (seq, kind, hash, stage, mask and
// field headers: 36-45 bytes).
constexpr uint64_t kFilterOpBytes = sizeof(FilterOp);

}  // namespace

namespace {

// What the replica knows of one of its stages besides the bits, kept from
// the ops: the element count, and how many bits each slice has set (each
// op's mask says which changed), so stats and the SSCBF's stage rules need
// no pass over the bits.
struct StageCounts {
  StageGeometry geometry;
  uint64_t elements = 0;
  std::vector<uint64_t> set;  // per slice

  double Fill() const {
    uint64_t total = 0;
    for (uint64_t n : set) total += n;
    return OccupancyFill(geometry, total);
  }
};

}  // namespace

struct GlobalIndex::Replica {
  Replica(uint64_t first_token, uint32_t slot_in,
          internal::BitSlicedIndex* bits_in, const SscbfConfig* config_in)
      : fence_token(first_token),
        slot(slot_in),
        bits(bits_in),
        config(config_in) {}

  mutable std::shared_mutex mu;
  // Guarded by mu.
  bool loaded = false;       // a snapshot was installed
  bool removed = false;      // RemoveServer ran: never touch the slot again
  uint64_t incarnation = 0;  // of the loaded bits; 0 while none
  uint64_t epoch = 0;
  uint64_t seq = 0;
  uint32_t first_stage = 0;
  std::vector<StageCounts> stages;  // first_stage, first_stage + 1, ...
  // The bits no longer match the server's at `seq` (an op did not fit), so
  // only a snapshot can repair them.
  bool diverged = false;
  // The newest (epoch, seq) a write of `incarnation` reported.
  uint64_t reported_epoch = 0;
  uint64_t reported_seq = 0;
  // Generations (see the header): `generation` counts the events a catch-up
  // must follow; `caught_up` is the generation a completed catch-up read
  // before it asked the server. A new replica starts one generation behind.
  uint64_t generation = 1;
  uint64_t caught_up = 0;
  // Bytes CatchUp fetched (ReplicaStats::catch_up_bytes).
  std::atomic<uint64_t> catch_up_bytes{0};
  uint64_t fence_token;  // what writes carry; raised by MarkWriteInDoubt

  const uint32_t slot;                   // the replica's column
  internal::BitSlicedIndex* const bits;  // thread-safe itself
  const SscbfConfig* const config;

  // Serializes CatchUp calls on this replica; never taken while holding mu.
  std::mutex catch_up_mu;

  uint32_t end_stage() const {
    return first_stage + static_cast<uint32_t>(stages.size());
  }
  bool ReachedReported() const {
    return std::tie(epoch, seq) >= std::tie(reported_epoch, reported_seq);
  }
  bool Current() const {
    return loaded && !removed && !diverged && caught_up == generation &&
           ReachedReported();
  }
  // Ops of (`op_incarnation`, `op_epoch`) may be applied in sequence order.
  bool CanApply(uint64_t op_incarnation, uint64_t op_epoch) const {
    return loaded && !removed && !diverged && op_incarnation == incarnation &&
           op_epoch == epoch;
  }
  // Tells the bit-sliced index whether lookups may rule the server out by
  // its bits. Under mu (exclusive), after every change, and before the
  // change is acknowledged: a lookup reads this (acquire) before the bits.
  void Publish() const {
    if (!removed) bits->SetCurrent(slot, Current());
  }
};

namespace {

using Replica = GlobalIndex::Replica;

bool MaskFits(uint64_t mask, uint32_t slices) {
  return slices >= 64 || (mask >> slices) == 0;
}

// An insert op: the server put the element into op.stage, which is open or
// the next one (an SSCBF opens one stage at a time).
bool ApplyInsert(Replica& r, const FilterOp& op) {
  if (op.stage < r.first_stage || op.stage > r.end_stage()) return false;
  const bool opens = op.stage == r.end_stage();
  if (opens) {
    StatusOr<StageGeometry> g = StageGeometryFor(*r.config, op.stage);
    if (!g.ok()) return false;
    StageCounts s;
    s.geometry = *g;
    s.set.assign(g->slices, 0);
    r.stages.push_back(std::move(s));
  }
  StageCounts& s = r.stages[op.stage - r.first_stage];
  if (!MaskFits(op.mask, s.geometry.slices) ||
      !r.bits->SetBits(r.slot, op.stage, op.hash, op.mask).ok()) {
    if (opens) r.stages.pop_back();
    return false;
  }
  ++s.elements;
  for (uint32_t j = 0; j < s.geometry.slices; ++j) s.set[j] += op.mask >> j & 1;
  return true;
}

// A remove op: the element left op.stage; the bits named went to zero. As
// the SSCBF, an empty newest stage closes once the one below has room.
bool ApplyRemove(Replica& r, const FilterOp& op) {
  if (op.stage < r.first_stage || op.stage >= r.end_stage()) return false;
  StageCounts& s = r.stages[op.stage - r.first_stage];
  if (s.elements == 0 || !MaskFits(op.mask, s.geometry.slices)) return false;
  for (uint32_t j = 0; j < s.geometry.slices; ++j) {
    if ((op.mask >> j & 1) != 0 && s.set[j] == 0) return false;
  }
  if (!r.bits->ClearBits(r.slot, op.stage, op.hash, op.mask).ok()) {
    return false;
  }
  --s.elements;
  for (uint32_t j = 0; j < s.geometry.slices; ++j) s.set[j] -= op.mask >> j & 1;
  while (r.stages.size() > 1 && r.stages.back().elements == 0 &&
         r.stages[r.stages.size() - 2].Fill() < r.config->full_fill) {
    r.stages.pop_back();
  }
  return true;
}

// Applies the op that follows r.seq. Returns false (and marks the replica
// diverged) when the op does not fit the replica.
bool ReplayNextOp(Replica& r, const FilterOp& op) {
  bool fits = false;
  if (op.kind == FilterOp::Kind::kInsert) {
    fits = ApplyInsert(r, op);
  } else if (op.kind == FilterOp::Kind::kRemove) {
    fits = ApplyRemove(r, op);
  }
  if (!fits) {
    r.diverged = true;
    return false;
  }
  r.seq = op.seq;
  return true;
}

// Applies the ops after r.seq, in order; ops at or below it are skipped.
// Returns false at a gap or an op that does not fit, having applied the ops
// before it.
bool ApplyInOrder(Replica& r, const std::vector<FilterOp>& ops) {
  for (const FilterOp& op : ops) {
    if (op.seq <= r.seq) continue;
    if (op.seq != r.seq + 1 || !ReplayNextOp(r, op)) return false;
  }
  return true;
}

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

std::vector<StageCounts> CountsOf(const OccupancyImage& image) {
  std::vector<StageCounts> out;
  for (const OccupancyStage& s : image.stages()) {
    StageCounts c;
    c.geometry = s.geometry;
    c.elements = s.elements;
    const uint64_t w = s.words_per_slice();
    for (uint32_t j = 0; j < s.geometry.slices; ++j) {
      uint64_t n = 0;
      for (uint64_t i = 0; i < w; ++i) {
        n += __builtin_popcountll(s.words[j * w + i]);
      }
      c.set.push_back(n);
    }
    out.push_back(std::move(c));
  }
  return out;
}

}  // namespace

StatusOr<std::unique_ptr<GlobalIndex>> GlobalIndex::Create(
    const SscbfConfig& config, uint64_t fence_base) {
  BLOOMROUTE_ASSIGN_OR_RETURN(std::unique_ptr<internal::BitSlicedIndex> bits,
                              internal::BitSlicedIndex::Create(config));
  return std::unique_ptr<GlobalIndex>(
      new GlobalIndex(config, fence_base, std::move(bits)));
}

GlobalIndex::GlobalIndex(const SscbfConfig& config, uint64_t fence_base,
                         std::unique_ptr<internal::BitSlicedIndex> bits)
    : config_(config), fence_base_(fence_base), bits_(std::move(bits)) {}

StatusOr<std::unique_ptr<GlobalIndex>> GlobalIndex::CreateWithLeases(
    const SscbfConfig& config, uint64_t fence_base, LeaseClock lease_clock) {
  if (lease_clock == nullptr) return Status::InvalidArgument("no lease clock");
  BLOOMROUTE_ASSIGN_OR_RETURN(std::unique_ptr<GlobalIndex> index,
                              Create(config, fence_base));
  index->lease_clock_ = std::move(lease_clock);
  index->lease_until_.reset(new std::atomic<int64_t>[kMaxServers]);
  for (uint32_t i = 0; i < kMaxServers; ++i) index->lease_until_[i] = 0;
  return index;
}

GlobalIndex::~GlobalIndex() = default;

Status GlobalIndex::AddServer(ServerId server) {
  std::unique_lock<std::shared_mutex> lock(servers_mu_);
  if (replicas_.count(server) != 0) return Status::OK();
  if (replicas_.size() >= kMaxServers) {
    return Status::InvalidArgument("the global index holds " +
                                   std::to_string(kMaxServers) +
                                   " servers, its limit");
  }
  // The lowest free column, so the columns stay as few words wide as the
  // cluster needs.
  uint32_t slot = 0;
  while (slot < slot_used_.size() && slot_used_[slot]) ++slot;
  BLOOMROUTE_RETURN_IF_ERROR(bits_->EnsureSlots(slot + 1));
  bits_->ClearSlot(slot);
  if (slot == slot_used_.size()) {
    slot_used_.push_back(false);
    server_of_slot_.push_back(0);
  }
  slot_used_[slot] = true;
  server_of_slot_[slot] = server;
  if (lease_until_ != nullptr) lease_until_[slot] = 0;  // no lease yet
  replicas_.emplace(server, std::make_shared<Replica>(fence_base_ + 1, slot,
                                                      bits_.get(), &config_));
  return Status::OK();
}

void GlobalIndex::RemoveServer(ServerId server) {
  std::unique_lock<std::shared_mutex> lock(servers_mu_);
  auto it = replicas_.find(server);
  if (it == replicas_.end()) return;
  Replica& r = *it->second;
  {
    // A write or catch-up still holding the replica must not touch the
    // column once it is cleared: the slot may serve another server next.
    std::unique_lock<std::shared_mutex> replica_lock(r.mu);
    r.removed = true;
    bits_->ClearSlot(r.slot);
  }
  slot_used_[r.slot] = false;
  replicas_.erase(it);
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
  r->Publish();
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
  r->Publish();
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
  r->Publish();
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
    r->Publish();
    return false;
  }
  NoteReported(*r, result);
  // Ops past a gap, or of another epoch, are dropped: the replica is behind
  // what was reported now, so it is not current until CatchUp fetches them.
  if (r->CanApply(result.incarnation, result.epoch)) {
    ApplyInOrder(*r, result.ops);
  }
  r->Publish();
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
  Round round;
  if (!r.CanApply(start.incarnation, start.epoch) ||
      !ApplyInOrder(r, reply.ops)) {
    round = Round::kNoProgress;
  } else {
    if (reply.last_seq <= r.seq) {
      r.caught_up = std::max(r.caught_up, start.generation);
    }
    if (r.Current()) {
      round = Round::kDone;
    } else if (r.seq > start.seq) {
      round = Round::kProgress;
    } else {
      round = r.generation != start.generation ? Round::kRestarted
                                               : Round::kNoProgress;
    }
  }
  r.Publish();
  return round;
}

// Loads a snapshot (decoded, of the cluster's config). Ops that writes
// delivered while it was fetched were dropped (not current: another epoch
// or past a gap); the ones newer than the snapshot keep the replica behind
// what was reported, so the next round fetches them, and the older ones are
// already in it. A snapshot of another incarnation starts a generation: the
// next round, an ops-since of the new incarnation, is then the one that
// clears the replica. The replica is not current while this runs (a round
// runs only then, and nothing here makes it current), so lookups ask the
// server whatever its bits say until Publish.
Status InstallSnapshot(Replica& r, const FilterImage& snapshot,
                       const OccupancyImage& image) {
  std::unique_lock<std::shared_mutex> lock(r.mu);
  if (r.removed) return Status::NotFound("unknown server");
  BLOOMROUTE_RETURN_IF_ERROR(r.bits->Install(r.slot, image));
  if (snapshot.incarnation != r.incarnation) {
    // What the old run's writes reported has no order against the new run's
    // numbers; the new run holds whatever of them it kept.
    r.reported_epoch = 0;
    r.reported_seq = 0;
    ++r.generation;
  }
  r.loaded = true;
  r.first_stage = image.first_stage();
  r.stages = CountsOf(image);
  r.incarnation = snapshot.incarnation;
  r.epoch = snapshot.epoch;
  r.seq = snapshot.last_seq;
  r.diverged = false;
  r.Publish();
  return Status::OK();
}

// Reads what a round starts from; nullopt when the replica is current.
std::optional<RoundStart> StartRound(const Replica& r) {
  std::shared_lock<std::shared_mutex> lock(r.mu);
  if (r.Current()) return std::nullopt;
  RoundStart start;
  start.generation = r.generation;
  start.fence_token = r.fence_token;
  start.have_filter = r.loaded && !r.diverged;
  start.incarnation = r.incarnation;
  start.epoch = r.epoch;
  start.seq = r.seq;
  return start;
}

// Fetches and decodes the server's bits; FailedPrecondition when its filter
// is not on the cluster's ladder.
StatusOr<std::pair<FilterImage, OccupancyImage>> FetchImage(
    RegionClient& client, uint64_t fence_token, const SscbfConfig& config) {
  StatusOr<FilterImage> snapshot = client.SnapshotImage(fence_token);
  if (!snapshot.ok()) return snapshot.status();
  StatusOr<OccupancyImage> image = OccupancyImage::Deserialize(snapshot->image);
  if (!image.ok()) {
    return Status::Corruption("filter snapshot: " + image.status().message());
  }
  if (!(image->config() == config)) {
    return Status::Aborted(
        "the server's filter has another config than the cluster's; it is "
        "asked on every lookup until it is reconfigured");
  }
  return std::make_pair(std::move(*snapshot), std::move(*image));
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
      r->catch_up_bytes += ops->ops.size() * kFilterOpBytes;
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
    auto fetched = FetchImage(client, start->fence_token, config_);
    if (!fetched.ok()) return fetched.status();
    r->catch_up_bytes += fetched->first.image.size();
    BLOOMROUTE_RETURN_IF_ERROR(
        InstallSnapshot(*r, fetched->first, fetched->second));
    stuck_after_snapshot = force_snapshot;
    force_snapshot = false;
  }
}

CandidateServers GlobalIndex::Candidates(
    const std::vector<ElementHash>& elements) const {
  CandidateServers out;
  std::vector<uint64_t> slots;
  std::shared_lock<std::shared_mutex> lock(servers_mu_);
  bits_->Candidates(elements, &slots);
  for (size_t w = 0; w < slots.size(); ++w) {
    for (uint64_t word = slots[w]; word != 0; word &= word - 1) {
      const auto slot = static_cast<uint32_t>(w * 64 + __builtin_ctzll(word));
      if (slot >= slot_used_.size() || !slot_used_[slot]) continue;
      out.servers.push_back(server_of_slot_[slot]);
      // For the routing info only: read again, so it may be newer than
      // what the candidates were chosen by.
      if (!bits_->IsCurrent(slot)) {
        out.not_current.push_back(server_of_slot_[slot]);
      }
    }
  }
  if (lease_clock_ != nullptr) AddLapsedLocked(&out);
  std::sort(out.servers.begin(), out.servers.end());
  std::sort(out.not_current.begin(), out.not_current.end());
  return out;
}

void GlobalIndex::AddLapsedLocked(CandidateServers* out) const {
  // One clock read and one relaxed-enough load per server: a lookup costs
  // O(servers) more with leases, a few ns a server.
  const int64_t now = lease_clock_();
  std::vector<ServerId> lapsed;
  for (uint32_t slot = 0; slot < slot_used_.size(); ++slot) {
    if (slot_used_[slot] &&
        lease_until_[slot].load(std::memory_order_acquire) <= now) {
      lapsed.push_back(server_of_slot_[slot]);
    }
  }
  if (lapsed.empty()) return;
  for (std::vector<ServerId>* v : {&out->servers, &out->not_current}) {
    v->insert(v->end(), lapsed.begin(), lapsed.end());
    std::sort(v->begin(), v->end());
    v->erase(std::unique(v->begin(), v->end()), v->end());
  }
}

void GlobalIndex::SetLease(ServerId server, int64_t until_ms) {
  if (lease_until_ == nullptr) return;
  std::shared_ptr<Replica> r = Find(server);
  if (r == nullptr) return;
  std::shared_lock<std::shared_mutex> lock(r->mu);
  if (!r->removed) lease_until_[r->slot].store(until_ms);
}

bool GlobalIndex::LeaseValid(ServerId server) const {
  std::shared_ptr<Replica> r = Find(server);
  if (r == nullptr) return false;
  if (lease_until_ == nullptr) return true;
  return lease_until_[r->slot].load() > lease_clock_();
}

namespace {

std::string At(uint64_t epoch, uint64_t seq) {
  return std::to_string(epoch) + "/" + std::to_string(seq);
}

// The replica's bits as an image. Under r.mu (shared at least).
StatusOr<OccupancyImage> ImageOf(const Replica& r) {
  if (!r.loaded || r.removed) return Status::NotFound("no filter loaded");
  std::vector<uint64_t> elements;
  for (const StageCounts& s : r.stages) elements.push_back(s.elements);
  return r.bits->Extract(r.slot, r.first_stage, r.end_stage(), elements);
}

}  // namespace

StatusOr<ReplicaComparison> GlobalIndex::Compare(
    ServerId server, const FilterImage& image) const {
  std::shared_ptr<Replica> r = Find(server);
  if (r == nullptr) return Status::NotFound("unknown server");
  StatusOr<OccupancyImage> theirs = OccupancyImage::Deserialize(image.image);
  if (!theirs.ok()) {
    return Status::Corruption("server's filter snapshot: " +
                              theirs.status().message());
  }
  std::shared_lock<std::shared_mutex> lock(r->mu);
  ReplicaComparison out;
  const std::string where = "replica at epoch/seq " + At(r->epoch, r->seq) +
                            ", server at " + At(image.epoch, image.last_seq);
  if (image.incarnation != r->incarnation) {
    out.detail = "the server restarted since the replica was loaded (" + where +
                 "); it is reloaded";
  } else if (!r->Current()) {
    out.detail = "replica not current (" + where + "); it is catching up";
  } else if (r->epoch != image.epoch || r->seq != image.last_seq) {
    out.detail = where + " (writes in flight); compare again";
  } else {
    StatusOr<OccupancyImage> ours = ImageOf(*r);
    if (ours.ok() && *ours == *theirs) {
      out.agreement = ReplicaAgreement::kMatches;
      out.detail = "replica equals the server's filter at epoch/seq " +
                   At(r->epoch, r->seq);
    } else {
      out.agreement = ReplicaAgreement::kDiffers;
      out.detail = "replica differs from the server's filter at epoch/seq " +
                   At(r->epoch, r->seq) +
                   (ours.ok() ? "" : ": " + ours.status().message());
    }
  }
  return out;
}

std::vector<ServerId> GlobalIndex::Servers() const {
  std::shared_lock<std::shared_mutex> lock(servers_mu_);
  std::vector<ServerId> out;
  for (const auto& entry : replicas_) out.push_back(entry.first);
  return out;
}

namespace {

// SscbfStats of the replica's bits, from its counts (no pass over them).
// A stage's memory is its column's bits.
SscbfStats StatsOf(const Replica& r) {
  std::vector<StageStats> stages;
  for (const StageCounts& s : r.stages) {
    stages.push_back(OccupancyStageStats(
        s.geometry, s.elements, s.set,
        (s.geometry.slice_length * s.geometry.slices + 7) / 8));
  }
  return CombineStageStats(std::move(stages));
}

}  // namespace

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
    s.loaded = r->loaded;
    // With leases, what routing counts as current: a valid lease too.
    s.current = r->Current() && (lease_until_ == nullptr ||
                                 lease_until_[r->slot].load() > lease_clock_());
    s.incarnation = r->incarnation;
    s.epoch = r->epoch;
    s.seq = r->seq;
    s.reported_epoch = r->reported_epoch;
    s.reported_seq = r->reported_seq;
    s.catch_up_bytes = r->catch_up_bytes.load();
    if (r->loaded) s.filter = StatsOf(*r);
    out.push_back(std::move(s));
  }
  // What no column owns, shared out evenly (the first servers take the
  // remainder's bytes), so the shares sum to MemoryBytes().
  if (!out.empty()) {
    const uint64_t total = MemoryBytes();
    uint64_t owned = 0;
    for (const ReplicaStats& s : out) owned += s.filter.memory_bytes;
    const uint64_t shared = total > owned ? total - owned : 0;
    for (size_t i = 0; i < out.size(); ++i) {
      out[i].filter.memory_bytes +=
          shared / out.size() + (i < shared % out.size() ? 1 : 0);
    }
  }
  return out;
}

uint64_t GlobalIndex::MemoryBytes() const {
  std::vector<std::shared_ptr<Replica>> replicas;
  uint64_t bytes = bits_->MemoryBytes();
  {
    std::shared_lock<std::shared_mutex> lock(servers_mu_);
    for (const auto& entry : replicas_) replicas.push_back(entry.second);
    bytes += server_of_slot_.capacity() * sizeof(ServerId) +
             slot_used_.capacity() / 8;
  }
  for (const auto& r : replicas) {
    std::shared_lock<std::shared_mutex> lock(r->mu);
    bytes +=
        sizeof(Replica) + sizeof(std::shared_ptr<Replica>) + sizeof(ServerId);
    for (const StageCounts& s : r->stages) {
      bytes += sizeof(StageCounts) + s.set.capacity() * sizeof(uint64_t);
    }
  }
  return bytes;
}

bool GlobalIndex::IsCurrent(ServerId server) const {
  std::shared_ptr<Replica> r = Find(server);
  if (r == nullptr) return false;
  {
    std::shared_lock<std::shared_mutex> lock(r->mu);
    if (!r->Current()) return false;
  }
  return LeaseValid(server);
}

uint64_t GlobalIndex::Incarnation(ServerId server) const {
  std::shared_ptr<Replica> r = Find(server);
  if (r == nullptr) return 0;
  std::shared_lock<std::shared_mutex> lock(r->mu);
  return r->incarnation;
}

StatusOr<OccupancyImage> GlobalIndex::Image(ServerId server) const {
  std::shared_ptr<Replica> r = Find(server);
  if (r == nullptr) return Status::NotFound("unknown server");
  std::shared_lock<std::shared_mutex> lock(r->mu);
  return ImageOf(*r);
}

}  // namespace bloomroute::router
