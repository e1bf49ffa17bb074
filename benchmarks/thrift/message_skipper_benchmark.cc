// What finding a buffered (unframed) message's end costs the I/O thread
// (thrift/server/internal/message_skipper.h): a putMultiple of small cells,
// the densest structure a request carries (41 bytes a cell), whole and in
// the pieces the frame loop reads (16 KiB: kUnframedReadAheadBytes), in the
// binary and compact protocols. Pieces must cost about what one pass does:
// the skipper resumes, it never rescans.
#include <benchmark/benchmark.h>
#include <thrift/protocol/TBinaryProtocol.h>
#include <thrift/protocol/TCompactProtocol.h>
#include <thrift/transport/TBufferTransports.h>

#include <algorithm>
#include <memory>
#include <string>

#include "thrift/gen-cpp/hbase_service_types.h"
#include "thrift/server/internal/message_skipper.h"

namespace bloomroute::thrift_internal {
namespace {

namespace at = apache::thrift;

// `rows` puts of 19 cells (1-byte family, 10-byte qualifier, 8-byte value).
template <typename Protocol>
std::string PutMultiple(int rows) {
  auto buffer = std::make_shared<at::transport::TMemoryBuffer>();
  Protocol out(buffer);
  out.writeMessageBegin("putMultiple", at::protocol::T_CALL, 1);
  out.writeStructBegin("args");
  out.writeFieldBegin("table", at::protocol::T_STRING, 1);
  out.writeBinary("geo");
  out.writeFieldEnd();
  out.writeFieldBegin("tputs", at::protocol::T_LIST, 2);
  out.writeListBegin(at::protocol::T_STRUCT, static_cast<uint32_t>(rows));
  for (int r = 0; r < rows; ++r) {
    rpc::client::TPut put;
    put.__set_row("row" + std::to_string(r));
    for (int c = 0; c < 19; ++c) {
      rpc::client::TColumnValue cell;
      cell.__set_family("d");
      cell.__set_qualifier("column_" + std::to_string(100 + c));
      cell.__set_value("v" + std::to_string(1000000 + r));
      put.columnValues.push_back(cell);
    }
    put.write(&out);
  }
  out.writeListEnd();
  out.writeFieldEnd();
  out.writeFieldStop();
  out.writeStructEnd();
  out.writeMessageEnd();
  return buffer->getBufferAsString();
}

template <typename Protocol>
void BM_Skip(benchmark::State& state) {
  const std::string message = PutMultiple<Protocol>(10000);
  const auto* data = reinterpret_cast<const uint8_t*>(message.data());
  const size_t piece = static_cast<size_t>(state.range(0));
  for (auto _ : state) {
    MessageSkipper skipper;
    MessageSkipper::Result result = MessageSkipper::Result::kNeedMore;
    for (size_t size = std::min(piece, message.size());
         result == MessageSkipper::Result::kNeedMore;
         size = std::min(size + piece, message.size())) {
      result = skipper.Resume(data, size);
    }
    benchmark::DoNotOptimize(skipper.end());
  }
  state.SetBytesProcessed(static_cast<int64_t>(state.iterations()) *
                          static_cast<int64_t>(message.size()));
  state.counters["message_bytes"] = static_cast<double>(message.size());
}
BENCHMARK_TEMPLATE(BM_Skip, at::protocol::TBinaryProtocol)
    ->Arg(16 << 10)
    ->Arg(64 << 20);  // whole: one piece
BENCHMARK_TEMPLATE(BM_Skip, at::protocol::TCompactProtocol)
    ->Arg(16 << 10)
    ->Arg(64 << 20);  // whole: one piece

}  // namespace
}  // namespace bloomroute::thrift_internal

BENCHMARK_MAIN();
