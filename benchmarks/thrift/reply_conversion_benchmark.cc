// What the router spends on a region server's lookup reply before it merges
// it: reading the Thrift struct from the wire bytes, then converting it to
// the model's rows (thrift/conversion/region_conversion.h). The reply is a
// 64-row lookup of 19 GeoNames-like columns (~220 bytes a row, one long
// alternate-names value), the `make compare` lookup's shape. `/copy`
// converts from a const reply, which copies the reply and moves from the
// copy: each column and value copied once, as the conversion did before
// the region client handed its reply over, plus the copy of the structs
// themselves (so it slightly overstates the old cost); `/move` converts
// the reply the region client no longer needs (moved).
#include <benchmark/benchmark.h>
#include <thrift/protocol/TBinaryProtocol.h>
#include <thrift/transport/TBufferTransports.h>

#include <memory>
#include <string>

#include "model/index_query.h"
#include "thrift/conversion/region_conversion.h"

namespace bloomroute {
namespace {

using apache::thrift::protocol::TBinaryProtocol;
using apache::thrift::transport::TMemoryBuffer;

constexpr int kColumns = 19;

std::string WireReply(int rows) {
  rpc::TIndexQueryResult reply;
  for (int r = 0; r < rows; ++r) {
    rpc::TResult row;
    row.__set_row(std::to_string(1000000 + r * 7919));
    for (int c = 0; c < kColumns; ++c) {
      rpc::TColumnValue cell;
      cell.__set_column("d:column_" + std::to_string(c));
      // One long value (alternate names), the rest short.
      cell.__set_value(c == 3 ? std::string(120, 'a' + r % 26)
                              : "value " + std::to_string(r * c));
      cell.__set_timestamp(1700000000000 + r);
      row.columnValues.push_back(cell);
    }
    row.__isset.columnValues = true;
    reply.rows.push_back(row);
  }
  reply.__isset.rows = true;
  reply.__set_truncated(false);
  auto buffer = std::make_shared<TMemoryBuffer>();
  TBinaryProtocol out(buffer);
  reply.write(&out);
  return buffer->getBufferAsString();
}

void ReadAndConvert(benchmark::State& state, bool move) {
  const std::string wire = WireReply(static_cast<int>(state.range(0)));
  for (auto _ : state) {
    auto buffer = std::make_shared<TMemoryBuffer>(
        reinterpret_cast<uint8_t*>(const_cast<char*>(wire.data())),
        static_cast<uint32_t>(wire.size()));
    TBinaryProtocol in(buffer);
    rpc::TIndexQueryResult reply;
    reply.read(&in);
    IndexQueryResult result;
    const Status s =
        move ? FromThrift(std::move(reply), &result)
             : FromThrift(static_cast<const rpc::TIndexQueryResult&>(reply),
                          &result);
    if (!s.ok()) state.SkipWithError(s.ToString().c_str());
    benchmark::DoNotOptimize(result);
  }
  state.SetItemsProcessed(state.iterations() * state.range(0));
}

void BM_LookupReply_copy(benchmark::State& state) {
  ReadAndConvert(state, false);
}
void BM_LookupReply_move(benchmark::State& state) {
  ReadAndConvert(state, true);
}
BENCHMARK(BM_LookupReply_copy)->Arg(64)->Arg(1000);
BENCHMARK(BM_LookupReply_move)->Arg(64)->Arg(1000);

}  // namespace
}  // namespace bloomroute

BENCHMARK_MAIN();
