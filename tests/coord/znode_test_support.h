// Helpers shared by the coordination tests: waiting for a condition, and a
// recorder of watch events.
#ifndef BLOOMROUTE_TESTS_COORD_ZNODE_TEST_SUPPORT_H_
#define BLOOMROUTE_TESTS_COORD_ZNODE_TEST_SUPPORT_H_

#include <chrono>
#include <functional>
#include <mutex>
#include <thread>
#include <vector>

#include "coord/znode_store.h"

namespace bloomroute::coord::zktest {

// Polls `done` every 5 ms until it holds or `timeout` passes; its last
// answer.
inline bool WaitFor(
    const std::function<bool()>& done,
    std::chrono::milliseconds timeout = std::chrono::milliseconds(10000)) {
  auto deadline = std::chrono::steady_clock::now() + timeout;
  while (!done()) {
    if (std::chrono::steady_clock::now() > deadline) return done();
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
  return true;
}

// Records every event of the watchers it makes, from any thread.
class ZnodeEventLog {
 public:
  Watcher Watch() {
    return [this](const WatchEvent& event) {
      std::lock_guard<std::mutex> lock(mutex_);
      events_.push_back(event);
    };
  }
  SessionListener Listen() {
    return [this](SessionState state) {
      std::lock_guard<std::mutex> lock(mutex_);
      states_.push_back(state);
    };
  }
  std::vector<WatchEvent> events() const {
    std::lock_guard<std::mutex> lock(mutex_);
    return events_;
  }
  std::vector<SessionState> states() const {
    std::lock_guard<std::mutex> lock(mutex_);
    return states_;
  }
  size_t size() const { return events().size(); }
  bool WaitEvents(size_t count) {
    return WaitFor([&] { return size() >= count; });
  }

 private:
  mutable std::mutex mutex_;
  std::vector<WatchEvent> events_;    // guarded by mutex_
  std::vector<SessionState> states_;  // guarded by mutex_
};

}  // namespace bloomroute::coord::zktest

#endif  // BLOOMROUTE_TESTS_COORD_ZNODE_TEST_SUPPORT_H_
