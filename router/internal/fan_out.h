// FanOut: runs the parts of one request (one RPC per region server) in
// parallel on a fixed pool of threads, the calling thread included.
//
// Run(n, fn) calls fn(0) .. fn(n - 1), each exactly once, and returns when all
// have returned. The caller takes parts itself while pool threads help, so a
// request never waits for a free pool thread to start and the pool cannot
// deadlock; a pool smaller than the fan-out only makes it slower. fn must not
// throw.
//
// The standard library has no thread pool and Boost.Asio's would add a
// dependency for some 60 lines; threads per call would cost a thread start
// per server on every lookup.
//
// Thread-safety: Run may be called concurrently from many threads.
#ifndef BLOOMROUTE_ROUTER_INTERNAL_FAN_OUT_H_
#define BLOOMROUTE_ROUTER_INTERNAL_FAN_OUT_H_

#include <condition_variable>
#include <cstddef>
#include <cstdint>
#include <deque>
#include <functional>
#include <memory>
#include <mutex>
#include <thread>
#include <vector>

namespace bloomroute::router_internal {

class FanOut {
 public:
  explicit FanOut(uint32_t threads);
  ~FanOut();  // finishes queued parts, then joins the threads
  FanOut(const FanOut&) = delete;
  FanOut& operator=(const FanOut&) = delete;

  void Run(size_t n, const std::function<void(size_t)>& fn);

  // Run(keys.size(), fn), where at most `per_key` (>= 1) parts with the same
  // key run at once: parts of one key are dealt round-robin to that many
  // lanes, and a lane runs its parts one after another. A request keys its
  // parts by region server, so it holds at most `per_key` of a server's
  // connections and workers however many parts it has.
  void RunPerKey(const std::vector<uint64_t>& keys, size_t per_key,
                 const std::function<void(size_t)>& fn);

 private:
  struct Batch;
  void Work();
  static void Drain(Batch* batch);

  std::mutex mu_;
  std::condition_variable cv_;
  // Guarded by mu_.
  std::deque<std::shared_ptr<Batch>> queue_;
  bool stopping_ = false;
  std::vector<std::thread> threads_;
};

}  // namespace bloomroute::router_internal

#endif  // BLOOMROUTE_ROUTER_INTERNAL_FAN_OUT_H_
