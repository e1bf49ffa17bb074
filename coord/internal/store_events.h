// StoreEvents: the event thread every ZnodeStore delivers its callbacks on
// (watchers and session listeners), and its session listeners.
//
// Callbacks run in the order they were posted, one at a time, on a thread
// this object owns; they may post more. Stop() (and the destructor) drops the
// callbacks not yet run, waits for a running one and joins the thread; it
// must not be called on the event thread.
//
// Thread-safety: every method may be called from any thread.
#ifndef BLOOMROUTE_COORD_INTERNAL_STORE_EVENTS_H_
#define BLOOMROUTE_COORD_INTERNAL_STORE_EVENTS_H_

#include <condition_variable>
#include <cstdint>
#include <deque>
#include <functional>
#include <map>
#include <mutex>
#include <thread>

#include "coord/znode_store.h"

namespace bloomroute::coord::internal {

class StoreEvents {
 public:
  StoreEvents();
  StoreEvents(const StoreEvents&) = delete;
  StoreEvents& operator=(const StoreEvents&) = delete;
  ~StoreEvents();

  // Runs `task` on the event thread after the ones posted before. Dropped
  // after Stop().
  void Post(std::function<void()> task);
  // Posts watcher(event).
  void PostWatch(Watcher watcher, WatchEvent event);
  // Posts a call of every listener registered when it runs.
  void PostSessionState(SessionState state);

  // As ZnodeStore::AddSessionListener / RemoveSessionListener.
  uint64_t AddListener(SessionListener listener);
  void RemoveListener(uint64_t id);

  // Waits until every task posted before has run (at once on the event
  // thread itself, or after Stop()).
  void Drain();
  bool OnEventThread() const;
  void Stop();

 private:
  void Run();
  void CallListeners(SessionState state);

  std::mutex mutex_;
  std::condition_variable changed_;
  // Guarded by mutex_.
  std::deque<std::function<void()>> tasks_;
  bool running_task_ = false;
  bool stopped_ = false;
  uint64_t next_listener_id_ = 1;
  std::map<uint64_t, SessionListener> listeners_;
  // Held while listeners are called, so that RemoveListener can wait for a
  // running one.
  std::mutex listener_call_mutex_;
  std::thread thread_;
};

}  // namespace bloomroute::coord::internal

#endif  // BLOOMROUTE_COORD_INTERNAL_STORE_EVENTS_H_
