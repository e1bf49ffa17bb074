// What counting one call costs the frame loop (thrift/internal/
// server_metrics.h): reading the method from the request, the call's
// context, the latency histogram and the counter of its outcome. Compare
// with a lookup's round trip (benchmarks/router/lookup_benchmark.cc).
#include <benchmark/benchmark.h>
#include <thrift/protocol/TBinaryProtocol.h>
#include <thrift/transport/TBufferTransports.h>

#include <memory>
#include <string>

#include "common/metrics.h"
#include "thrift/server/internal/server_metrics.h"

namespace bloomroute::thrift_internal {
namespace {

std::string Frame(const std::string& method) {
  auto buffer = std::make_shared<apache::thrift::transport::TMemoryBuffer>();
  apache::thrift::protocol::TBinaryProtocol out(buffer);
  out.writeMessageBegin(method, apache::thrift::protocol::T_CALL, 1);
  out.writeStructBegin("args");
  out.writeFieldStop();
  out.writeStructEnd();
  out.writeMessageEnd();
  return buffer->getBufferAsString();
}

void BM_RecordCall(benchmark::State& state) {
  metrics::Registry registry;
  ServerMetrics metrics("router", /*slow_call_ms=*/0, nullptr, &registry);
  const std::string frame = Frame("getByIndex");
  for (auto _ : state) {
    ServerMetrics::Call call(
        &metrics, reinterpret_cast<const uint8_t*>(frame.data()), frame.size());
    call.Finish("", nullptr, [] { return std::string("127.0.0.1:1"); });
  }
}
BENCHMARK(BM_RecordCall);

// A scrape of a router's worth of series: 60 methods by 2 outcomes.
void BM_Render(benchmark::State& state) {
  metrics::Registry registry;
  ServerMetrics metrics("router", 0, nullptr, &registry);
  for (int m = 0; m < 60; ++m) {
    const std::string frame = Frame("method" + std::to_string(m));
    for (const char* outcome : {"ok", "not_found"}) {
      ServerMetrics::Call call(&metrics,
                               reinterpret_cast<const uint8_t*>(frame.data()),
                               frame.size());
      call.Finish(outcome, nullptr, [] { return std::string("?"); });
    }
  }
  size_t bytes = 0;
  for (auto _ : state) bytes = registry.Render().size();
  state.counters["bytes"] = static_cast<double>(bytes);
}
BENCHMARK(BM_Render);

}  // namespace
}  // namespace bloomroute::thrift_internal

BENCHMARK_MAIN();
