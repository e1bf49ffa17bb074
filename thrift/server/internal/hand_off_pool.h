// HandOffPool: threads that take items one at a time from a queue, run the
// pool's function on each, and hand each back to the one thread that owns
// the items (the frame loop's I/O thread), which collects them with
// TakeDone() after `done` woke it. While an item is in the pool (queued,
// running or done and not yet taken) only the pool touches it: the
// hand-over both ways is under the pool's mutex. The frame loop has two:
// its call workers and its TLS handshake threads (frame_loop.h).
//
// Waking the owner costs a context switch. `run` says whether the owner
// must act on its item at once; an item that needs nothing soon is only
// kept for the next TakeDone(), and the owner is woken for it only while
// it asked to be woken for every item (WakeOnEveryDone: it waits for a
// thread to be free). The flag and the items are under one mutex, so an
// item is either seen by the owner's WakeOnEveryDone or wakes the owner.
//
// Thread-safety: Submit, TakeDone and Stop from the owning thread; `run`
// and `done` are called on the pool's threads.
#ifndef BLOOMROUTE_THRIFT_SERVER_INTERNAL_HAND_OFF_POOL_H_
#define BLOOMROUTE_THRIFT_SERVER_INTERNAL_HAND_OFF_POOL_H_

#include <condition_variable>
#include <cstdint>
#include <deque>
#include <functional>
#include <mutex>
#include <thread>
#include <utility>
#include <vector>

namespace bloomroute::thrift_internal {

template <typename Item>
class HandOffPool {
 public:
  // Starts `threads` threads; each runs `run(item)` for the next item
  // submitted, keeps it for TakeDone(), then calls `done()` when `run`
  // returned true or the owner wants every item (WakeOnEveryDone).
  HandOffPool(uint32_t threads, std::function<bool(Item&)> run,
              std::function<void()> done)
      : run_(std::move(run)), done_(std::move(done)) {
    for (uint32_t i = 0; i < threads; ++i) {
      threads_.emplace_back([this] { ThreadMain(); });
    }
  }
  ~HandOffPool() { Stop(); }
  HandOffPool(const HandOffPool&) = delete;
  HandOffPool& operator=(const HandOffPool&) = delete;

  void Submit(Item item) {
    {
      std::lock_guard<std::mutex> lock(mu_);
      queued_.push_back(std::move(item));
    }
    ready_.notify_one();
  }

  // The items run since the last call, in the order they finished.
  std::vector<Item> TakeDone() {
    std::vector<Item> out;
    std::lock_guard<std::mutex> lock(mu_);
    out.swap(done_items_);
    return out;
  }

  // Sets whether `done` runs after every item (true at first) or only
  // after those whose `run` returned true. True when items are done and
  // not yet taken: the owner takes them before it sleeps.
  bool WakeOnEveryDone(bool every) {
    std::lock_guard<std::mutex> lock(mu_);
    wake_on_every_done_ = every;
    return !done_items_.empty();
  }

  // Lets the items running finish, drops those queued and those done, and
  // joins the threads. Idempotent.
  void Stop() {
    {
      std::lock_guard<std::mutex> lock(mu_);
      stopping_ = true;
      queued_.clear();
    }
    ready_.notify_all();
    for (std::thread& t : threads_) t.join();
    threads_.clear();
    std::lock_guard<std::mutex> lock(mu_);
    done_items_.clear();
  }

 private:
  void ThreadMain() {
    for (;;) {
      Item item;
      {
        std::unique_lock<std::mutex> lock(mu_);
        ready_.wait(lock, [&] { return stopping_ || !queued_.empty(); });
        if (stopping_) return;
        item = std::move(queued_.front());
        queued_.pop_front();
      }
      bool wake = run_(item);
      {
        std::lock_guard<std::mutex> lock(mu_);
        done_items_.push_back(std::move(item));
        wake = wake || wake_on_every_done_;
      }
      if (wake) done_();
    }
  }

  const std::function<bool(Item&)> run_;
  const std::function<void()> done_;
  std::mutex mu_;
  std::condition_variable ready_;
  std::deque<Item> queued_;         // guarded by mu_
  std::vector<Item> done_items_;    // guarded by mu_
  bool stopping_ = false;           // guarded by mu_
  bool wake_on_every_done_ = true;  // guarded by mu_
  std::vector<std::thread> threads_;
};

}  // namespace bloomroute::thrift_internal

#endif  // BLOOMROUTE_THRIFT_SERVER_INTERNAL_HAND_OFF_POOL_H_
