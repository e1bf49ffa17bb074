// The write-latency cost of invariant 1 across routers: a region store put
// (one row, 2 indexed columns, GeoNames-like domains, WAL without sync) with
// op subscriptions off (today's single router), on with 0 subscribers, and
// with 1 and 3 subscribed routers whose in-process sink applies a push by
// copying it (what a router's receiver costs besides the transport). The
// write's router is not among the subscribers, so every put waits for each
// subscriber's acknowledgement (regionstore/op_subscriptions.h).
//
// Run: build/benchmarks/regionstore/op_push_benchmark
#include <benchmark/benchmark.h>

#include <atomic>
#include <chrono>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include "benchmarks/bench_util.h"
#include "benchmarks/regionstore/op_push_bench_util.h"
#include "model/op_push.h"
#include "regionstore/op_subscriptions.h"
#include "regionstore/region_store.h"

namespace bloomroute {
namespace {

// A router in this process: it takes the push (a copy, as a decode would
// make) and acknowledges.
class CopyingSinks : public OpPushSinkFactory {
 public:
  StatusOr<std::unique_ptr<OpPushSink>> Connect(uint64_t,
                                                const std::string&) override {
    class Sink : public OpPushSink {
     public:
      explicit Sink(std::atomic<uint64_t>* ops) : ops_(ops) {}
      Status Push(const OpPush& push) override {
        OpPush copy = push;
        *ops_ += copy.result.ops.size();
        return Status::OK();
      }

     private:
      std::atomic<uint64_t>* const ops_;
    };
    return std::unique_ptr<OpPushSink>(new Sink(&ops_));
  }
  uint64_t ops() const { return ops_.load(); }

 private:
  std::atomic<uint64_t> ops_{0};
};

Mutation MakePut(std::mt19937_64& rng) {
  return Mutation::Put(1, "row" + std::to_string(rng()),
                       {{"d:country", "v" + std::to_string(rng() % 250)},
                        {"d:feature", "v" + std::to_string(rng() % 600)},
                        {"d:name", std::string(20, 'a' + rng() % 26)}});
}

// range(0): subscribers (-1: subscriptions not configured at all).
void BM_PutWithSubscribedRouters(benchmark::State& state) {
  const int subscribers = static_cast<int>(state.range(0));
  auto sinks = std::make_shared<CopyingSinks>();
  std::string error;
  auto store =
      bench::OpenPushingStore(subscribers >= 0 ? sinks : nullptr, &error);
  if (store == nullptr) {
    state.SkipWithError(error.c_str());
    return;
  }
  std::vector<std::string> addresses;
  for (int r = 0; r < subscribers; ++r) {
    addresses.push_back("router-" + std::to_string(r + 2));
  }
  if (!bench::SubscribeRouters(store.get(), addresses)) {
    state.SkipWithError("subscribe failed");
    return;
  }
  std::mt19937_64 rng(1);
  const uint64_t token = MakeFenceToken(1, 1);  // router 1 writes
  for (auto _ : state) {
    if (!store->Apply({MakePut(rng)}, token).ok()) {
      state.SkipWithError("put failed");
      return;
    }
  }
  state.counters["pushed_ops"] = static_cast<double>(sinks->ops());
  state.SetItemsProcessed(state.iterations());
}
BENCHMARK(BM_PutWithSubscribedRouters)
    ->ArgName("subscribers")
    ->Arg(-1)
    ->Arg(0)
    ->Arg(1)
    ->Arg(3)
    ->Unit(benchmark::kMicrosecond)
    ->UseRealTime();

}  // namespace
}  // namespace bloomroute

BENCHMARK_MAIN();
