#include "coord/internal/store_events.h"

#include <utility>
#include <vector>

namespace bloomroute::coord::internal {

StoreEvents::StoreEvents() : thread_([this] { Run(); }) {}

StoreEvents::~StoreEvents() { Stop(); }

void StoreEvents::Post(std::function<void()> task) {
  std::lock_guard<std::mutex> lock(mutex_);
  if (stopped_) return;
  tasks_.push_back(std::move(task));
  changed_.notify_all();
}

void StoreEvents::PostWatch(Watcher watcher, WatchEvent event) {
  if (!watcher) return;
  Post([watcher = std::move(watcher), event = std::move(event)] {
    watcher(event);
  });
}

void StoreEvents::PostSessionState(SessionState state) {
  Post([this, state] { CallListeners(state); });
}

void StoreEvents::CallListeners(SessionState state) {
  std::lock_guard<std::mutex> calling(listener_call_mutex_);
  std::vector<uint64_t> ids;
  {
    std::lock_guard<std::mutex> lock(mutex_);
    for (const auto& entry : listeners_) ids.push_back(entry.first);
  }
  for (uint64_t id : ids) {
    SessionListener listener;
    {
      // A listener removed by an earlier one in this loop is skipped.
      std::lock_guard<std::mutex> lock(mutex_);
      auto it = listeners_.find(id);
      if (it == listeners_.end()) continue;
      listener = it->second;
    }
    listener(state);
  }
}

uint64_t StoreEvents::AddListener(SessionListener listener) {
  std::lock_guard<std::mutex> lock(mutex_);
  uint64_t id = next_listener_id_++;
  listeners_[id] = std::move(listener);
  return id;
}

void StoreEvents::RemoveListener(uint64_t id) {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    listeners_.erase(id);
  }
  // Wait for a call in progress on the event thread to end (not from inside
  // one: that call is the caller).
  if (!OnEventThread()) {
    std::lock_guard<std::mutex> calling(listener_call_mutex_);
  }
}

void StoreEvents::Drain() {
  if (OnEventThread()) return;
  std::unique_lock<std::mutex> lock(mutex_);
  changed_.wait(lock,
                [&] { return stopped_ || (tasks_.empty() && !running_task_); });
}

bool StoreEvents::OnEventThread() const {
  return std::this_thread::get_id() == thread_.get_id();
}

void StoreEvents::Stop() {
  std::deque<std::function<void()>> dropped;  // destroyed unlocked
  {
    std::lock_guard<std::mutex> lock(mutex_);
    if (stopped_) return;
    stopped_ = true;
    dropped.swap(tasks_);
    changed_.notify_all();
  }
  if (thread_.joinable()) thread_.join();
}

void StoreEvents::Run() {
  std::unique_lock<std::mutex> lock(mutex_);
  while (true) {
    changed_.wait(lock, [&] { return stopped_ || !tasks_.empty(); });
    if (stopped_) break;
    std::function<void()> task = std::move(tasks_.front());
    tasks_.pop_front();
    running_task_ = true;
    lock.unlock();
    task();
    task = nullptr;  // the captures die on this thread, unlocked
    lock.lock();
    running_task_ = false;
    changed_.notify_all();
  }
}

}  // namespace bloomroute::coord::internal
