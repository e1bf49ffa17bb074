// Election: ZooKeeper's leader-election recipe over a ZnodeStore.
//
// Each candidate creates an ephemeral sequential node "<path>/n_<seq>"
// holding its data (e.g. its address). The candidate with the lowest
// sequence number leads; every other watches only the node just below its
// own (no herd effect: a leaving candidate wakes one other), and when that
// node goes it lists the candidates again. A leader's epoch is its node's
// sequence number: ZooKeeper's counter of children created under `path`,
// which only grows as long as `path` is never deleted (never delete it), so
// a later leader always has a higher epoch and can fence an earlier one.
//
// Leading needs a live, connected session. IsLeader() is false from the
// moment the store leaves kConnected (it reads the store's state, so no
// store call returns success to a deposed leader that still believes it
// leads), and on_change(false) follows on the event thread; after a
// reconnection with the same session, leadership resumes with the same
// epoch. When the session expires the candidacy is over for good: the owner
// makes a new store and joins again (with a new, higher sequence number).
//
// Example:
//   Election::Options options;
//   options.path = "/coordinator";
//   options.data = "router-3:9090";
//   options.on_change = [&](bool leading, int64_t epoch) {
//     leading ? coordinator.Start(epoch) : coordinator.StopAtOnce();
//   };
//   BLOOMROUTE_ASSIGN_OR_RETURN(std::unique_ptr<Election> election,
//                               Election::Join(store.get(), options));
//   ...
//   if (election->IsLeader()) { /* act, fenced with election->epoch() */ }
//   StatusOr<LeaderInfo> leader = election->Leader();  // whom to forward to
//
// Thread-safety: every method may be called from any thread. on_change runs
// on the store's event thread, except when Join finds this candidate leading
// at once: then Join calls it before returning. Ownership: the store must
// outlive the Election; destroying the Election resigns.
#ifndef BLOOMROUTE_COORD_ELECTION_H_
#define BLOOMROUTE_COORD_ELECTION_H_

#include <cstdint>
#include <functional>
#include <memory>
#include <string>

#include "common/status.h"
#include "common/statusor.h"
#include "coord/znode_store.h"

namespace bloomroute::coord {

struct LeaderInfo {
  std::string data;   // what the leader joined with
  int64_t epoch = 0;  // its node's sequence number
  std::string node;   // its node's path
};

class Election {
 public:
  struct Options {
    // The candidates' parent, made (with its parents) when missing.
    std::string path = "/election";
    std::string data;  // this candidate's data, up to kMaxNodeBytes
    // (leading, epoch): true when this candidate starts leading, false
    // when it stops (disconnected, expired, resigned, node deleted).
    std::function<void(bool, int64_t)> on_change;
  };

  // Creates this candidate's node and works out who leads. InvalidArgument
  // for a bad path or data; the store's errors (Unavailable, ...) as they
  // come, with nothing left behind but possibly an orphan node that the
  // session's end removes.
  [[nodiscard]] static StatusOr<std::unique_ptr<Election>> Join(
      ZnodeStore* store, Options options);

  Election(const Election&) = delete;
  Election& operator=(const Election&) = delete;
  ~Election();

  // Whether this candidate leads now (see the file comment).
  bool IsLeader() const;
  // This candidate's sequence number: its epoch when it leads.
  int64_t epoch() const;
  // This candidate's node's path.
  const std::string& node() const;

  // The current leader, read from the store: NotFound when there is no
  // candidate; the store's errors otherwise.
  [[nodiscard]] StatusOr<LeaderInfo> Leader() const;

  // Leaves the election: on_change(false) if leading, the node deleted.
  // Idempotent; the store's error when the deletion fails (the session's
  // end removes the node anyway).
  [[nodiscard]] Status Resign();

  struct State;  // shared with callbacks (election.cc)

 private:
  explicit Election(std::shared_ptr<State> state) : state_(std::move(state)) {}

  std::shared_ptr<State> state_;
};

// The sequence number of a sequential node's name ("n_0000000042" -> 42);
// -1 when the name does not end with ten digits.
int64_t SequenceOf(const std::string& name);

}  // namespace bloomroute::coord

#endif  // BLOOMROUTE_COORD_ELECTION_H_
