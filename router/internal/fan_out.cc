#include "router/internal/fan_out.h"

#include <algorithm>
#include <atomic>
#include <map>

namespace bloomroute::router_internal {

struct FanOut::Batch {
  size_t n = 0;
  const std::function<void(size_t)>* fn = nullptr;
  std::atomic<size_t> next{0};
  std::mutex mu;
  std::condition_variable cv;
  size_t done = 0;  // guarded by mu
};

FanOut::FanOut(uint32_t threads) {
  threads_.reserve(threads);
  for (uint32_t i = 0; i < threads; ++i)
    threads_.emplace_back([this] { Work(); });
}

FanOut::~FanOut() {
  {
    std::lock_guard<std::mutex> lock(mu_);
    stopping_ = true;
  }
  cv_.notify_all();
  for (std::thread& t : threads_) t.join();
}

void FanOut::Drain(Batch* batch) {
  size_t ran = 0;
  for (size_t i = batch->next++; i < batch->n; i = batch->next++) {
    (*batch->fn)(i);
    ++ran;
  }
  if (ran == 0) return;
  std::lock_guard<std::mutex> lock(batch->mu);
  batch->done += ran;
  if (batch->done == batch->n) batch->cv.notify_all();
}

void FanOut::Run(size_t n, const std::function<void(size_t)>& fn) {
  if (n == 0) return;
  auto batch = std::make_shared<Batch>();
  batch->n = n;
  batch->fn = &fn;
  const size_t helpers = std::min(n - 1, threads_.size());
  if (helpers > 0) {
    {
      std::lock_guard<std::mutex> lock(mu_);
      for (size_t i = 0; i < helpers; ++i) queue_.push_back(batch);
    }
    // One wake-up per queued entry: notify_all woke every idle pool thread
    // (16 by default) for a fan-out to 8 servers, and each woken thread
    // that found the queue empty slept again -- about 2 context switches
    // each, a third of a 64-row lookup's (lookup_benchmark's `switches`).
    for (size_t i = 0; i < helpers; ++i) cv_.notify_one();
  }
  Drain(batch.get());
  std::unique_lock<std::mutex> lock(batch->mu);
  batch->cv.wait(lock, [&] { return batch->done == batch->n; });
  // A pool thread may still hold the batch (it found no part left); `fn`
  // is not touched again once every part is done.
}

void FanOut::RunPerKey(const std::vector<uint64_t>& keys, size_t per_key,
                       const std::function<void(size_t)>& fn) {
  std::map<uint64_t, std::vector<size_t>> parts_of;
  for (size_t i = 0; i < keys.size(); ++i) parts_of[keys[i]].push_back(i);
  std::vector<std::vector<size_t>> lanes;
  for (const auto& [key, parts] : parts_of) {
    const size_t count = std::min(parts.size(), std::max<size_t>(per_key, 1));
    const size_t first = lanes.size();
    lanes.resize(first + count);
    for (size_t j = 0; j < parts.size(); ++j) {
      lanes[first + j % count].push_back(parts[j]);
    }
  }
  Run(lanes.size(), [&](size_t lane) {
    for (size_t part : lanes[lane]) fn(part);
  });
}

void FanOut::Work() {
  for (;;) {
    std::shared_ptr<Batch> batch;
    {
      std::unique_lock<std::mutex> lock(mu_);
      cv_.wait(lock, [&] { return stopping_ || !queue_.empty(); });
      if (queue_.empty()) return;  // stopping
      batch = std::move(queue_.front());
      queue_.pop_front();
    }
    Drain(batch.get());
  }
}

}  // namespace bloomroute::router_internal
