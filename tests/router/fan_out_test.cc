#include "router/internal/fan_out.h"

#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <thread>
#include <vector>

namespace bloomroute::router_internal {
namespace {

TEST(FanOutTest, RunsEveryPartOnceFromManyCallers) {
  FanOut pool(3);
  std::vector<std::thread> callers;
  std::atomic<int> failures{0};
  for (int c = 0; c < 6; ++c) {
    callers.emplace_back([&] {
      for (int round = 0; round < 200; ++round) {
        const size_t n = 1 + round % 9;
        std::vector<std::atomic<int>> hits(n);
        pool.Run(n, [&](size_t i) { ++hits[i]; });
        for (auto& h : hits) failures += h.load() != 1;
      }
    });
  }
  for (auto& t : callers) t.join();
  EXPECT_EQ(failures.load(), 0);
}

TEST(FanOutTest, PartsRunInParallel) {
  FanOut pool(3);
  std::atomic<int> running{0};
  std::atomic<int> peak{0};
  pool.Run(4, [&](size_t) {
    const int now = ++running;
    for (int p = peak.load(); now > p && !peak.compare_exchange_weak(p, now);) {
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
    --running;
  });
  EXPECT_EQ(peak.load(), 4);  // three pool threads and the caller
}

TEST(FanOutTest, WithoutPoolThreadsTheCallerRunsEverything) {
  FanOut pool(0);
  int sum = 0;
  pool.Run(5, [&](size_t i) { sum += static_cast<int>(i); });
  EXPECT_EQ(sum, 10);
}

TEST(FanOutTest, RunPerKeyBoundsThePartsOfOneKeyInFlight) {
  FanOut pool(8);
  // 20 parts of key 7, 3 of key 9: at most 2 of each at once.
  std::vector<uint64_t> keys(20, 7);
  keys.insert(keys.end(), 3, 9);
  std::vector<std::atomic<int>> hits(keys.size());
  std::atomic<int> in_flight[2] = {0, 0};
  std::atomic<int> most[2] = {0, 0};
  pool.RunPerKey(keys, 2, [&](size_t i) {
    const int k = keys[i] == 7 ? 0 : 1;
    const int now = ++in_flight[k];
    int seen = most[k].load();
    while (now > seen && !most[k].compare_exchange_weak(seen, now)) {
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(2));
    ++hits[i];
    --in_flight[k];
  });
  for (auto& h : hits) EXPECT_EQ(h.load(), 1);
  EXPECT_EQ(most[0].load(), 2);  // parallel, up to the bound
  EXPECT_LE(most[1].load(), 2);
}

}  // namespace
}  // namespace bloomroute::router_internal
