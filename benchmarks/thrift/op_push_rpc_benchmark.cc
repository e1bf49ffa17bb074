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

#include "benchmarks/bench_util.h"
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
  RegionStoreOptions options;
  options.op_push_sinks = NewThriftOpPushSinkFactory(ThriftClientOptions());
  // The store's clock, moved past the start-up wait once open.
  auto skip = std::make_shared<std::atomic<int64_t>>(0);
  options.monotonic_ms = [skip] {
    return skip->load() +
           std::chrono::duration_cast<std::chrono::milliseconds>(
               std::chrono::steady_clock::now().time_since_epoch())
               .count();
  };
  options.max_op_lease_ms = OpSubscribeRequest::kMaxLeaseMs;
  auto store = std::move(RegionStore::Open(bench::TempDir(), options)).value();
  *skip = 2 * OpSubscribeRequest::kMaxLeaseMs;
  TableDescriptor table{1, "places", {{1, "d:country"}, {2, "d:feature"}}};
  if (!store->OpenRegion(RegionDescriptor{1, table, "", ""}).ok()) {
    state.SkipWithError("open region failed");
    return;
  }
  for (int r = 0; r < subscribers; ++r) {
    OpSubscribeRequest req;
    req.router_id = static_cast<uint64_t>(r + 2);
    req.session = 1;
    req.address = "127.0.0.1:" + std::to_string(routers[r]->port());
    req.lease_ms = OpSubscribeRequest::kMaxLeaseMs;
    if (!store->SubscribeOps(req).ok()) {
      state.SkipWithError("subscribe failed");
      return;
    }
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
