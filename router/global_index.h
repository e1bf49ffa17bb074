// GlobalIndex: one bits-only replica of each region server's SSCBF, laid
// out bit-sliced across the servers, for routing lookups.
//
// Layout and cost. The region server stays the authority with DDCF
// counters; the router keeps only occupancy bits (routing reads a counter
// only as zero or not). Every server's filter has the cluster's config, so
// stage i has the same geometry (k_i, m_i) everywhere, and the replicas sit
// side by side in one BitSlicedIndex (router/internal/bit_sliced_index.h):
// per stage, slice and slot, one bit per server. A predicate then costs
// sum_i k_i reads of ceil(N/64) words instead of N filter probes, and a
// conjunction is the AND of the servers' bitsets. The router keeps no
// counters: a server's ops say which probe bits changed occupancy
// (FilterOp::mask), and snapshots carry the bits (OccupancyImage, fetched in
// pages). A snapshot of another config than the cluster's is not loaded:
// the server stays a candidate until it has been reconfigured (the router
// owns the config).
//
// A replica is *current* when it holds a filter that matches the server's,
// has reached the newest (epoch, seq) any write result of the replica's
// incarnation reported to it, and a catch-up has completed that began after
// every event that may have put it behind (see "Generations"). Anything else
// -- never loaded, a sequence gap, an epoch change, a result from another
// incarnation, a replayed insert that landed in another stage than the
// server's, a write whose fate is unknown -- makes it *not current*, and
// Candidates() then names the server whatever the filter says
// (../shared/DESIGN.md, invariant 1: a lookup never skips a server it cannot
// rule out). CatchUp() makes it current again; so does the late arrival of
// the missing ops in order, when nothing else is outstanding.
//
// Acknowledged writes. The router passes every write's result to
// ApplyWriteResult before acknowledging the write. The replica records the
// newest (epoch, seq) any result reported -- its last op, or its last_seq when
// the server sent one -- applied or not; so a current replica holds every
// acknowledged write's ops, and a write acknowledged before a lookup starts is
// never missed by it. A result with no ops and no last_seq reports nothing:
// if an earlier write's op is still in flight, the replica cannot know it is
// behind, so region servers must send last_seq.
//
// Incarnations. Within one run of a server (one incarnation,
// model/region_protocol.h) epochs and sequence numbers only grow, so (epoch,
// seq) pairs are ordered lexicographically. Across runs they are not: a server
// that lost the unsynced tail of its WAL, or got an old copy of its directory
// back, hands out the same (epoch, seq) again with other ops. So a result,
// snapshot or status of another incarnation than the replica's is never ordered
// against it: it starts a new generation (below), and only a snapshot of the
// server brings the replica into the new incarnation.
//
// Generations. Some events put a replica behind in a way no sequence number
// shows: a write whose reply was lost, a result from another incarnation, a
// table's regions dropped. Each starts a new generation of the replica, and
// a catch-up clears only the generations that began before it read the
// server's filter. Why that holds under every interleaving: the event
// happened-before the catch-up read the generation (both under the replica's
// lock), the read happened-before the request left, so the server answered
// after the event. A write that committed before the event is in the answer;
// for a write whose fate is unknown, see fencing. A result from another run:
// one server directory serves one run at a time (RocksDB's lock), so the run
// that answers after the event holds all that earlier runs committed and
// kept (what a power loss took, it took with the rows).
//
// Fencing. A write the router sent may still commit after the router gave up
// on it (a timeout, a lost connection, a reply that did not decode: the
// request may sit in the server's socket or worker for a long time). Such a
// write is in doubt: MarkWriteInDoubt raises the replica's fence token and
// starts a generation; writes carry FenceToken(); every catch-up passes the
// token to the server, which raises its fence to it before it reads its
// filter, and refuses (Aborted) any later write with an older token, under
// the lock that orders its filter ops (regionstore/region_store.h). So the
// in-doubt write either committed before the catch-up's read and is in its
// answer, or never commits. Tokens start at a base the router gives
// (RouterOptions: above every token of its earlier runs), so a restarted
// router fences the writes of the run before it on the first catch-up.
//
// Leases (many routers; model/op_push.h). An index created with a lease
// clock counts a replica as current only while the server's op
// subscription lease is valid on that clock as well (SetLease, set by
// router/op_subscriber.h from before the subscribe request was sent, minus
// the drift margin): the server pushes every op it commits to a router
// holding a lease and acknowledges no write before that router has it or
// the lease ended on the server's clock, which is after it ended here.
// Candidates reads the clock once per call and names every server whose
// lease lapsed, whatever its bits say. Without a lease clock (one router)
// nothing of this runs.
//
// Thread-safety: every method may be called concurrently. Each replica has a
// shared_mutex: Stats and Compare read under it shared, ApplyWriteResult and
// the installing steps of CatchUp hold it exclusively, briefly; CatchUp
// makes its RPCs without it, so lookups and writes proceed while it runs, and
// catch-ups of one replica are serialized by a second mutex. Candidates takes
// no replica lock: it reads the bit-sliced columns and the servers'
// "current" bits, which every change to a replica publishes (release) after
// changing its columns and before the change is acknowledged; see
// BitSlicedIndex for why a lookup never sees a half-installed replica.
//
// Usage:
//   std::unique_ptr<GlobalIndex> index =
//       GlobalIndex::Create(cluster_config, fence_base).value();
//   (void)index->AddServer(0);
//   (void)index->CatchUp(0, client0);            // snapshot + ops since
//   StatusOr<WriteResult> w = client0.Apply(batch, index->FenceToken(0));
//   if (w.ok()) index->ApplyWriteResult(0, *w);
//   else if (/* sent, fate unknown */) index->MarkWriteInDoubt(0);
//   CandidateServers c = index->Candidates({HashElement(t, col, "NO")});
#ifndef BLOOMROUTE_ROUTER_GLOBAL_INDEX_H_
#define BLOOMROUTE_ROUTER_GLOBAL_INDEX_H_

#include <atomic>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <shared_mutex>
#include <string>
#include <vector>

#include "common/status.h"
#include "index/element_hash.h"
#include "index/occupancy_image.h"
#include "index/scalable_split_counting_bloom_filter.h"
#include "model/region_protocol.h"
#include "router/region_client.h"
#include "router/router_reports.h"

namespace bloomroute::router {

struct CandidateServers {
  // Every server to ask, ascending: those whose current replica may contain
  // every element, and every server whose replica is not current.
  std::vector<ServerId> servers;
  // The subset of `servers` included only because the replica is not current.
  std::vector<ServerId> not_current;
};

namespace internal {
class BitSlicedIndex;
}

class GlobalIndex {
 public:
  // `config` is the cluster's filter config (the router reconfigures every
  // server's filter to it); fence tokens of this index are fence_base + 1,
  // + 2, ...; a router passes a base above every token its earlier runs
  // used. InvalidArgument for an invalid config.
  static StatusOr<std::unique_ptr<GlobalIndex>> Create(
      const SscbfConfig& config, uint64_t fence_base = 0);
  // As above, with leases (see "Leases"): `lease_clock` is the router's
  // monotonic clock in ms (non-null). Every server starts with no lease.
  using LeaseClock = std::function<int64_t()>;
  static StatusOr<std::unique_ptr<GlobalIndex>> CreateWithLeases(
      const SscbfConfig& config, uint64_t fence_base, LeaseClock lease_clock);
  ~GlobalIndex();
  GlobalIndex(const GlobalIndex&) = delete;
  GlobalIndex& operator=(const GlobalIndex&) = delete;

  const SscbfConfig& config() const { return config_; }

  // Adds a server with a missing (not current) replica. Idempotent.
  // InvalidArgument past kMaxServers.
  [[nodiscard]] Status AddServer(ServerId server);
  static constexpr uint32_t kMaxServers = 1 << 16;
  // Forgets a server and its replica. Idempotent.
  void RemoveServer(ServerId server);
  // Starts a generation: the replica is not current until a catch-up that
  // begins after this call completes (e.g. the server changed its filter
  // without telling us the ops). NotFound for an unknown server.
  [[nodiscard]] Status MarkStale(ServerId server);
  // A write sent to the server failed after it was sent, so it may have
  // committed or may still commit: raises the fence token (writes sent
  // from now on carry the new one; the next catch-up fences the older ones
  // off) and starts a generation. NotFound for an unknown server.
  [[nodiscard]] Status MarkWriteInDoubt(ServerId server);
  // The token a write to the server carries now; 0 for an unknown server.
  uint64_t FenceToken(ServerId server) const;
  // A reply of the server named its incarnation (a status or a snapshot
  // taken for another purpose): when it is not the replica's, starts a
  // generation. Returns whether it was the replica's; false for an unknown
  // server.
  bool NoteIncarnation(ServerId server, uint64_t incarnation);

  // Applies the write's ops in sequence order to the server's replica: an
  // insert sets the probe bits its mask names, a remove clears them. Ops at
  // or below the replica's seq are skipped (already applied). A gap, another
  // epoch, or an op that does not fit the replica (a stage it does not
  // have, a mask past the stage's slices, a remove from an empty stage)
  // leaves the replica not current, and no later op of the result is
  // applied; a result of another incarnation starts a generation. Returns
  // whether the replica is current afterwards; NotFound for an unknown
  // server.
  StatusOr<bool> ApplyWriteResult(ServerId server, const WriteResult& result);

  // Makes the replica current: ops since its seq when it has a filter of the
  // server's incarnation and epoch and the ops are still kept (asking again
  // while more remain), otherwise a snapshot (RegionClient::SnapshotImage)
  // followed by ops since the snapshot; every request raises the server's
  // fence to FenceToken(). On success the replica holds the server's
  // occupancy bits as of the newest op it returned. On failure the replica
  // stays not current and the client's error is returned (Unavailable: the
  // server did not answer, or new events kept arriving for
  // kMaxRestartedRounds rounds); Corruption for a snapshot that does not
  // decode or ops that do not apply; Aborted when the server's
  // filter has another config than config() (reconfigure it, then catch up
  // again); NotFound for an unknown server. Cheap when already current.
  [[nodiscard]] Status CatchUp(ServerId server, RegionClient& client);
  static constexpr int kMaxRestartedRounds = 16;

  // The servers to ask for a conjunction of elements (an empty conjunction
  // selects every server). See CandidateServers.
  CandidateServers Candidates(const std::vector<ElementHash>& elements) const;

  // Compares the replica with `image`, the server's own occupancy bits
  // (RegionClient::SnapshotImage). NotFound for an unknown server;
  // Corruption when the image does not decode.
  StatusOr<ReplicaComparison> Compare(ServerId server,
                                      const FilterImage& image) const;

  // Every known server, ascending.
  std::vector<ServerId> Servers() const;
  // Stats per server, ascending.
  std::vector<ReplicaStats> Stats() const;
  // Bytes the router holds for routing: the bit-sliced columns and the
  // replicas' bookkeeping.
  uint64_t MemoryBytes() const;
  // Whether the replica is current (and, with leases, its lease valid);
  // false for an unknown server.
  bool IsCurrent(ServerId server) const;
  // With leases: the replica's lease is valid until `until_ms` on the lease
  // clock (the new value replaces the old). No-op without leases or for an
  // unknown server.
  void SetLease(ServerId server, int64_t until_ms);
  // Whether the lease is valid now (always true without leases; false for
  // an unknown server).
  bool LeaseValid(ServerId server) const;
  bool has_leases() const { return lease_clock_ != nullptr; }
  // The incarnation of the loaded filter; 0 for none or an unknown server.
  uint64_t Incarnation(ServerId server) const;
  // The replica's bits as an image (for tests and tools comparing
  // replicas); NotFound for an unknown server or none loaded.
  StatusOr<OccupancyImage> Image(ServerId server) const;

  // One server's replica and its locks; opaque, defined in the .cc.
  struct Replica;

 private:
  GlobalIndex(const SscbfConfig& config, uint64_t fence_base,
              std::unique_ptr<internal::BitSlicedIndex> bits);
  std::shared_ptr<Replica> Find(ServerId server) const;
  // Adds the used slots whose lease lapsed to `out`. Under servers_mu_.
  void AddLapsedLocked(CandidateServers* out) const;

  const SscbfConfig config_;
  const uint64_t fence_base_;
  const std::unique_ptr<internal::BitSlicedIndex> bits_;
  mutable std::shared_mutex servers_mu_;
  // Guarded by servers_mu_; a Replica guards itself.
  std::map<ServerId, std::shared_ptr<Replica>> replicas_;
  std::vector<ServerId> server_of_slot_;  // valid where slot_used_
  std::vector<bool> slot_used_;
  // With leases: the clock, and each slot's lease end (kMaxServers atomics,
  // allocated only then: 512 KiB).
  LeaseClock lease_clock_;
  std::unique_ptr<std::atomic<int64_t>[]> lease_until_;
};

}  // namespace bloomroute::router

#endif  // BLOOMROUTE_ROUTER_GLOBAL_INDEX_H_
