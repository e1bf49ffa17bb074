// Sync points: named places in the code where a test can run a callback, to
// hold one thread at a step until another has reached its own (RocksDB's
// TEST_SYNC_POINT is the model). An interleaving that breaks a guarantee only
// in a window of a few instructions -- a writer that took the table's state
// just before a region switched -- is made certain this way instead of
// hoped for under load.
//
//   BLOOMROUTE_SYNC_POINT("RouteWrite:StateTaken");        // in the code
//   BLOOMROUTE_SYNC_POINT_ARG("Catalog:AfterWrite", &s);   // with an argument
//
//   SyncPoints::Set("RouteWrite:StateTaken", [&](void*) { ...block... });
//   ... run the interleaving ...
//   SyncPoints::ClearAll();
//
// With no callback set anywhere, a sync point costs one relaxed atomic load.
// Callbacks run on the thread that reaches the point, outside any lock of
// this registry; the argument is whatever the code passes (nullptr for
// BLOOMROUTE_SYNC_POINT), typed as the point documents.
//
// Thread-safety: every function may be called from any thread.
#ifndef BLOOMROUTE_COMMON_SYNC_POINT_H_
#define BLOOMROUTE_COMMON_SYNC_POINT_H_

#include <functional>
#include <string>

namespace bloomroute {

class SyncPoints {
 public:
  using Callback = std::function<void(void* arg)>;
  // Runs `callback` whenever the point `name` is reached (replacing any set
  // before).
  static void Set(const std::string& name, Callback callback);
  // Forgets every callback: reached points do nothing again.
  static void ClearAll();
  // Runs the point's callback, if any, with `arg`.
  static void Process(const char* name, void* arg);
};

}  // namespace bloomroute

#define BLOOMROUTE_SYNC_POINT(name) \
  ::bloomroute::SyncPoints::Process(name, nullptr)
#define BLOOMROUTE_SYNC_POINT_ARG(name, arg) \
  ::bloomroute::SyncPoints::Process(name, arg)

#endif  // BLOOMROUTE_COMMON_SYNC_POINT_H_
