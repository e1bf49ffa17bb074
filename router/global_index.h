// GlobalIndex: one replica of each region server's SSCBF, for routing lookups.
//
// A replica is *current* when it holds a filter that matches the server's and
// has reached the newest (epoch, seq) any write result reported to it, and it
// was not marked stale since its last catch-up. Anything else -- never
// loaded, a sequence gap, an epoch change, a replayed insert that landed in
// another stage than the server's -- makes it *not current*, and Candidates()
// then names the server whatever the filter says (../shared/DESIGN.md,
// invariant 1: a lookup never skips a server it cannot rule out). CatchUp()
// makes it current again; so does the late arrival of the missing ops in
// order.
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
// Epochs and sequence numbers of one server only grow (a rebuilt filter gets
// the next epoch and keeps counting sequence numbers), so (epoch, seq) pairs
// are ordered lexicographically.
//
// Thread-safety: every method may be called concurrently. Each replica has a
// shared_mutex: Candidates and Stats read under it shared, ApplyWriteResult
// and the installing steps of CatchUp hold it exclusively, briefly; CatchUp
// makes its RPCs without it, so lookups and writes proceed while it runs, and
// catch-ups of one replica are serialized by a second mutex.
//
// Usage:
//   GlobalIndex index;
//   index.AddServer(0);
//   (void)index.CatchUp(0, client0);            // snapshot + ops since
//   index.ApplyWriteResult(0, *client0.Apply(batch));
//   CandidateServers c = index.Candidates({HashElement(t, col, "NO")});
#ifndef BLOOMROUTE_ROUTER_GLOBAL_INDEX_H_
#define BLOOMROUTE_ROUTER_GLOBAL_INDEX_H_

#include <cstdint>
#include <map>
#include <memory>
#include <shared_mutex>
#include <string>
#include <vector>

#include "common/status.h"
#include "index/element_hash.h"
#include "index/scalable_split_counting_bloom_filter.h"
#include "model/types.h"
#include "router/region_client.h"

namespace bloomroute::router {

struct CandidateServers {
  // Every server to ask, ascending: those whose current replica may contain
  // every element, and every server whose replica is not current.
  std::vector<ServerId> servers;
  // The subset of `servers` included only because the replica is not current.
  std::vector<ServerId> not_current;
};

struct ReplicaStats {
  ServerId server = 0;
  bool loaded = false;   // a filter was ever loaded
  bool current = false;  // see the header comment
  uint64_t epoch = 0;    // of the loaded filter; 0 when none
  uint64_t seq = 0;      // the last op the replica holds
  // The newest (epoch, seq) a write reported for the server; when it is ahead
  // of (epoch, seq), the replica is behind by that much.
  uint64_t reported_epoch = 0;
  uint64_t reported_seq = 0;
  SscbfStats filter;  // stages, elements, fill, estimated FPR, memory
};

// How a replica compares with its server's filter (GlobalIndex::Compare).
enum class ReplicaAgreement {
  kMatches,     // current, at the server's (epoch, seq), the same filter
  kNotCurrent,  // not current, or at another (epoch, seq): lookups ask the
                // server anyway and a catch-up will fix it; not an error
  kDiffers,     // current and at the server's (epoch, seq), yet another
                // filter: lookups may wrongly skip the server
};

struct ReplicaComparison {
  ReplicaAgreement agreement = ReplicaAgreement::kNotCurrent;
  std::string detail;  // why, for a person: "replica at 2/40, server at 2/41"
};

class GlobalIndex {
 public:
  GlobalIndex();
  ~GlobalIndex();
  GlobalIndex(const GlobalIndex&) = delete;
  GlobalIndex& operator=(const GlobalIndex&) = delete;

  // Adds a server with a missing (not current) replica. Idempotent.
  void AddServer(ServerId server);
  // Forgets a server and its replica. Idempotent.
  void RemoveServer(ServerId server);
  // Marks the replica not current (e.g. after a reconnect, when writes may
  // have been lost); it stays so until CatchUp. NotFound for an unknown server.
  [[nodiscard]] Status MarkStale(ServerId server);

  // Applies the write's ops in sequence order to the server's replica. Ops at
  // or below the replica's seq are skipped (already applied). A gap, another
  // epoch, or an op the replica cannot replay identically marks the replica
  // not current, and no later op of the result is applied. Returns whether
  // the replica is current afterwards; NotFound for an unknown server.
  StatusOr<bool> ApplyWriteResult(ServerId server, const WriteResult& result);

  // Makes the replica current: ops since its seq when it has a filter of the
  // server's epoch and the ops are still kept (asking again while more
  // remain), otherwise a snapshot followed by ops since the snapshot. On
  // success the replica equals the server's filter as of the newest op it
  // returned. On failure the replica stays not current and the client's error
  // is returned (Unavailable: the server did not answer); Corruption for a
  // snapshot that does not decode or ops that do not replay; NotFound for an
  // unknown server. Cheap when the replica is already current and no write
  // reported newer ops.
  [[nodiscard]] Status CatchUp(ServerId server, RegionClient& client);

  // The servers to ask for a conjunction of elements (an empty conjunction
  // selects every server). See CandidateServers.
  CandidateServers Candidates(const std::vector<ElementHash>& elements) const;

  // Compares the replica with `snapshot`, the server's own filter
  // (RegionClient::Snapshot). NotFound for an unknown server; Corruption when
  // the snapshot does not decode.
  StatusOr<ReplicaComparison> Compare(ServerId server,
                                      const FilterSnapshot& snapshot) const;

  // Every known server, ascending.
  std::vector<ServerId> Servers() const;
  // Stats per server, ascending.
  std::vector<ReplicaStats> Stats() const;
  // Whether the replica is current; false for an unknown server.
  bool IsCurrent(ServerId server) const;
  // Calls `fn` with the replica's filter under its shared lock (for tests and
  // tools comparing replicas); NotFound for an unknown server or none loaded.
  template <typename Fn>
  Status WithFilter(ServerId server, Fn&& fn) const;

  // One server's replica and its locks; opaque, defined in the .cc.
  struct Replica;

 private:
  std::shared_ptr<Replica> Find(ServerId server) const;
  const ScalableSplitCountingBloomFilter* LockedFilter(
      const Replica& r, std::shared_lock<std::shared_mutex>* lock) const;

  mutable std::shared_mutex servers_mu_;
  // Guarded by servers_mu_; a Replica guards itself.
  std::map<ServerId, std::shared_ptr<Replica>> replicas_;
};

template <typename Fn>
Status GlobalIndex::WithFilter(ServerId server, Fn&& fn) const {
  std::shared_ptr<Replica> r = Find(server);
  if (r == nullptr) return Status::NotFound("unknown server");
  std::shared_lock<std::shared_mutex> lock;
  const ScalableSplitCountingBloomFilter* f = LockedFilter(*r, &lock);
  if (f == nullptr) return Status::NotFound("no filter loaded");
  fn(*f);
  return Status::OK();
}

}  // namespace bloomroute::router

#endif  // BLOOMROUTE_ROUTER_GLOBAL_INDEX_H_
