// The write-latency cost of invariant 1 across routers over RPC: a region
// store put (one row, 2 indexed columns, WAL without sync) whose filter ops
// (a value's first row: new_values 1 makes every put add two) are pushed over
// loopback Thrift (NewThriftOpPushSinkFactory) to 0, 1 or 3 routers'
// OpPushServers before the put returns. Each push service applies a push by
// decoding it and answering (a router's ApplyOpPush adds a replica update,
// which regionstore/op_push_benchmark's in-process sinks stand for together
// with the copy). The writer is not among the subscribers, so every put waits
// for each subscriber's answer. Compare with op_push_benchmark (the same put,
// pushes in process) to see the transport.
//
// Run: build/benchmarks/thrift/op_push_rpc_benchmark
#include <benchmark/benchmark.h>

#include <atomic>
#include <chrono>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include "benchmarks/regionstore/op_push_bench_util.h"
#include "model/op_push.h"
#include "regionstore/region_store.h"
#include "thrift/op_push_server.h"
#include "thrift/op_push_sink.h"

namespace bloomroute {
namespace {

// `fresh`: both indexed values are new, so the put makes two filter ops
// and waits for their push; otherwise GeoNames-like domains (250 and 600
// values), where most puts make no op and wait for no push.
Mutation MakePut(std::mt19937_64& rng, bool fresh) {
  const uint64_t a = fresh ? rng() : rng() % 250;
  const uint64_t b = fresh ? rng() : rng() % 600;
  return Mutation::Put(1, "row" + std::to_string(rng()),
                       {{"d:country", "v" + std::to_string(a)},
                        {"d:feature", "v" + std::to_string(b)},
                        {"d:name", std::string(20, 'a' + rng() % 26)}});
}

// range(0): routers subscribed over RPC; range(1): 1 for new values in
// every put.
void BM_PutWithRoutersOverRpc(benchmark::State& state) {
  const int subscribers = static_cast<int>(state.range(0));
  const bool fresh = state.range(1) != 0;
  auto pushed = std::make_shared<std::atomic<uint64_t>>(0);
  std::vector<std::unique_ptr<OpPushServer>> routers;
  for (int r = 0; r < subscribers; ++r) {
    ServerOptions o;
    o.port = 0;
    o.threads = 2;
    StatusOr<std::unique_ptr<OpPushServer>> server = OpPushServer::Start(
        [pushed](const OpPush& push) {
          *pushed += push.result.ops.size();
          return Status::OK();
        },
        o);
    if (!server.ok()) {
      state.SkipWithError(server.status().ToString().c_str());
      return;
    }
    routers.push_back(std::move(server).value());
  }
  std::string error;
  auto store = bench::OpenPushingStore(
      NewThriftOpPushSinkFactory(ThriftClientOptions()), &error);
  if (store == nullptr) {
    state.SkipWithError(error.c_str());
    return;
  }
  std::vector<std::string> addresses;
  for (const auto& router : routers) {
    addresses.push_back("127.0.0.1:" + std::to_string(router->port()));
  }
  if (!bench::SubscribeRouters(store.get(), addresses)) {
    state.SkipWithError("subscribe failed");
    return;
  }
  std::mt19937_64 rng(1);
  const uint64_t token = MakeFenceToken(1, 1);  // router 1 writes
  for (auto _ : state) {
    if (!store->Apply({MakePut(rng, fresh)}, token).ok()) {
      state.SkipWithError("put failed");
      return;
    }
  }
  state.counters["pushed_ops"] = static_cast<double>(pushed->load());
  state.SetItemsProcessed(state.iterations());
  store.reset();  // its pushing threads before the servers they call
  for (auto& r : routers) r->Stop();
}
BENCHMARK(BM_PutWithRoutersOverRpc)
    ->ArgNames({"subscribers", "new_values"})
    ->ArgsProduct({{0, 1, 3}, {0, 1}})
    ->Unit(benchmark::kMicrosecond)
    ->UseRealTime();

}  // namespace
}  // namespace bloomroute

BENCHMARK_MAIN();
