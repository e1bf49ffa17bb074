#include "common/sync_point.h"

#include <atomic>
#include <map>
#include <memory>
#include <mutex>
#include <utility>

namespace bloomroute {
namespace {

struct Registry {
  std::atomic<bool> any{false};
  std::mutex mu;
  // Guarded by mu; shared so that a callback may run while another thread
  // replaces or clears it.
  std::map<std::string, std::shared_ptr<SyncPoints::Callback>, std::less<>>
      callbacks;
};

Registry& TheRegistry() {
  static Registry* registry = new Registry();  // never destroyed
  return *registry;
}

}  // namespace

void SyncPoints::Set(const std::string& name, Callback callback) {
  Registry& r = TheRegistry();
  std::lock_guard<std::mutex> lock(r.mu);
  r.callbacks[name] = std::make_shared<Callback>(std::move(callback));
  r.any.store(true, std::memory_order_release);
}

void SyncPoints::ClearAll() {
  Registry& r = TheRegistry();
  std::lock_guard<std::mutex> lock(r.mu);
  r.callbacks.clear();
  r.any.store(false, std::memory_order_release);
}

void SyncPoints::Process(const char* name, void* arg) {
  Registry& r = TheRegistry();
  if (!r.any.load(std::memory_order_relaxed)) return;
  std::shared_ptr<Callback> callback;
  {
    std::lock_guard<std::mutex> lock(r.mu);
    auto it = r.callbacks.find(std::string_view(name));
    if (it == r.callbacks.end()) return;
    callback = it->second;
  }
  (*callback)(arg);
}

}  // namespace bloomroute
