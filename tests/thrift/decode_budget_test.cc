// The decoded-size budget (thrift/internal/decode_budget.h) where it guards:
// both servers against a frame of empty structs, and the router's region
// client against a tiny reply that claims 2^28 entries. Memory is measured
// as this process's peak resident set (the servers run in it).
#include "thrift/internal/decode_budget.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <thrift/transport/TBufferTransports.h>

#include <chrono>
#include <iostream>
#include <memory>
#include <string>
#include <vector>

#include "router/router.h"
#include "tests/regionstore/region_store_test_util.h"
#include "tests/thrift/fake_router.h"
#include "tests/thrift/raw_wire.h"
#include "thrift/gen-cpp/router_service_types.h"
#include "thrift/region_server.h"
#include "thrift/router_server.h"
#include "thrift/thrift_region_client.h"

namespace bloomroute {
namespace {

using ::bloomroute::testing::CallOfEmptyStructs;
using ::bloomroute::testing::FieldHeader;
using ::bloomroute::testing::kTList;
using ::bloomroute::testing::kTStop;
using ::bloomroute::testing::kTString;
using ::bloomroute::testing::kTStruct;
using ::bloomroute::testing::ListHeader;
using ::bloomroute::testing::MessageHeader;
using ::bloomroute::testing::PeakResidentBytes;
using ::bloomroute::testing::RawConnection;
using ::bloomroute::testing::ResetPeakResident;
using ::bloomroute::testing::ResidentBytes;
using ::bloomroute::testing::ScriptedThriftServer;
using ::bloomroute::testing::TempDir;
using ::testing::HasSubstr;
using thrift_internal::BudgetedBinaryProtocol;
using thrift_internal::BudgetedCompactProtocol;
using thrift_internal::DecodeBudgetExceeded;
namespace at = apache::thrift;

constexpr uint64_t kMiB = 1 << 20;
// The servers' frame limit in these tests; the budget is its default.
constexpr uint32_t kFrameBytes = 16 * kMiB;
// A frame of 83 lists of 100,000 empty structs: 8.3 MB on the wire, 8.3
// million structs (about 660 MB) decoded without a budget.
constexpr uint32_t kOuter = 83;
constexpr uint32_t kInner = 100000;

// `rows` puts of `cells` cells each ("d:population"-like names, 8-byte
// values), written as a message "putMultiple" with sequence id `seqid`.
// In the compact protocol when `Protocol` says so.
template <typename Protocol = at::protocol::TBinaryProtocol>
std::shared_ptr<at::transport::TMemoryBuffer> PutsMessage(int rows, int cells,
                                                          int32_t seqid) {
  auto buffer = std::make_shared<at::transport::TMemoryBuffer>();
  Protocol out(buffer);
  out.writeMessageBegin("putMultiple", at::protocol::T_CALL, seqid);
  out.writeListBegin(at::protocol::T_STRUCT, static_cast<uint32_t>(rows));
  for (int r = 0; r < rows; ++r) {
    rpc::client::TPut put;
    put.__set_row("row" + std::to_string(r));
    for (int c = 0; c < cells; ++c) {
      rpc::client::TColumnValue cell;
      cell.__set_family("d");
      cell.__set_qualifier("column_" + std::to_string(100 + c));
      cell.__set_value("v" + std::to_string(1000000 + r));
      put.columnValues.push_back(cell);
    }
    put.write(&out);
  }
  out.writeListEnd();
  out.writeMessageEnd();
  return buffer;
}

// Reads what PutsMessage wrote, as the generated code would.
template <typename Budgeted>
std::vector<rpc::client::TPut> ReadPuts(Budgeted* in) {
  std::string name;
  at::protocol::TMessageType type;
  int32_t seqid = 0;
  in->readMessageBegin(name, type, seqid);
  at::protocol::TType elem;
  uint32_t n = 0;
  in->readListBegin(elem, n);
  std::vector<rpc::client::TPut> puts(n);
  for (rpc::client::TPut& p : puts) p.read(in);
  in->readListEnd();
  in->readMessageEnd();
  return puts;
}

TEST(BudgetedBinaryProtocolTest, ChargesAnUpperBoundAndLessThanTheDefault) {
  constexpr int kRows = 1000, kCells = 19;
  auto buffer = PutsMessage(kRows, kCells, 7);
  const uint64_t wire = buffer->available_read();
  BudgetedBinaryProtocol in(buffer, uint64_t{1} << 30, 0, "--x");
  const std::vector<rpc::client::TPut> puts = ReadPuts(&in);
  ASSERT_EQ(puts.size(), size_t{kRows});
  ASSERT_EQ(puts[0].columnValues.size(), size_t{kCells});
  // At least what the vectors hold (the strings are inline: <= 15 bytes).
  EXPECT_GE(in.charged(), kRows * (sizeof(rpc::client::TPut) +
                                   kCells * sizeof(rpc::client::TColumnValue)));
  // Below the default budget's multiple of the frame (thrift_server.h).
  EXPECT_LT(in.charged(), ServerOptions::kDecodedBytesPerFrameByte * wire);
  std::cout << "charged " << in.charged() << " bytes for " << wire
            << " on the wire\n";
}

TEST(BudgetedBinaryProtocolTest, ChargesLongStringsAndCountsPerMessage) {
  auto buffer = std::make_shared<at::transport::TMemoryBuffer>();
  at::protocol::TBinaryProtocol out(buffer);
  for (int i = 0; i < 2; ++i) {
    out.writeMessageBegin("m", at::protocol::T_CALL, i);
    out.writeBinary(std::string(1000, 'x'));
    out.writeBinary("short");
    out.writeMessageEnd();
  }
  // Each message is charged 1000 + 16 (the inline one nothing): two fit a
  // budget of 1500 one at a time.
  BudgetedBinaryProtocol in(buffer, 1500, 0, "--x");
  for (int i = 0; i < 2; ++i) {
    std::string name, a, b;
    at::protocol::TMessageType type;
    int32_t seqid = 0;
    in.readMessageBegin(name, type, seqid);
    in.readBinary(a);
    in.readString(b);
    EXPECT_EQ(a.size(), 1000u);
    EXPECT_EQ(b, "short");
    EXPECT_EQ(in.charged(), 1016u);
  }
}

TEST(BudgetedBinaryProtocolTest, RefusesAMessageOverItsBudgetNamingIt) {
  auto buffer = PutsMessage(100, 10, 42);
  constexpr uint64_t kStruct = BudgetedBinaryProtocol::kStructElementBytes;
  BudgetedBinaryProtocol in(buffer, 100 * kStruct + 5 * 10 * kStruct, 0,
                            "--max-decoded-bytes");
  try {
    ReadPuts(&in);
    FAIL() << "decoded past the budget";
  } catch (const DecodeBudgetExceeded& e) {
    EXPECT_EQ(e.method(), "putMultiple");
    EXPECT_EQ(e.seqid(), 42);
    EXPECT_THAT(e.what(), HasSubstr("budget of " +
                                    std::to_string(150 * kStruct) + " bytes"));
    EXPECT_THAT(e.what(), HasSubstr("(--max-decoded-bytes)"));
    EXPECT_THAT(e.what(), HasSubstr("a list of 10 entries"));
  }
  EXPECT_LE(in.charged(), in.budget());
}

// The compact protocol is charged what the binary one is for the same
// message (a value's size in memory does not depend on its encoding), and
// refused the same way.
TEST(BudgetedCompactProtocolTest, ChargesAsTheBinaryProtocolAndRefuses) {
  auto binary = PutsMessage(100, 10, 42);
  auto compact = PutsMessage<at::protocol::TCompactProtocol>(100, 10, 42);
  EXPECT_LT(compact->available_read(), binary->available_read());
  BudgetedBinaryProtocol binary_in(binary, uint64_t{1} << 30, 0, "--x");
  BudgetedCompactProtocol compact_in(compact, uint64_t{1} << 30, 0, 1 << 20,
                                     "--x");
  EXPECT_EQ(ReadPuts(&compact_in).size(), 100u);
  ReadPuts(&binary_in);
  EXPECT_EQ(compact_in.charged(), binary_in.charged());

  compact = PutsMessage<at::protocol::TCompactProtocol>(100, 10, 42);
  BudgetedCompactProtocol small(compact, binary_in.charged() - 1, 0, 1 << 20,
                                "--max-decoded-bytes");
  try {
    ReadPuts(&small);
    FAIL() << "decoded past the budget";
  } catch (const DecodeBudgetExceeded& e) {
    EXPECT_EQ(e.method(), "putMultiple");
    EXPECT_EQ(e.seqid(), 42);
    EXPECT_THAT(e.what(), HasSubstr("(--max-decoded-bytes)"));
  }
}

TEST(BudgetedBinaryProtocolTest, OptionsResolveAndCheckTheBudget) {
  ServerOptions server;
  EXPECT_EQ(server.DecodedBudget(), 10 * uint64_t{server.max_frame_bytes});
  server.max_decoded_bytes = server.max_frame_bytes - 1;
  EXPECT_TRUE(server.Validate().IsInvalidArgument());
  server.max_decoded_bytes = ServerOptions::kMaxDecodedBytes + 1;
  EXPECT_TRUE(server.Validate().IsInvalidArgument());
  server.max_decoded_bytes = server.max_frame_bytes;
  EXPECT_TRUE(server.Validate().ok());
  EXPECT_EQ(server.DecodedBudget(), server.max_frame_bytes);
  ThriftClientOptions client;
  EXPECT_EQ(client.DecodedBudget(), 10 * uint64_t{client.max_frame_bytes});
  client.max_decoded_bytes = 1000;
  EXPECT_TRUE(client.Validate().IsInvalidArgument());
}

// Sends `frame` on a new connection to `port` and checks that the answer is
// an exception naming the budget, that the server then closes the
// connection, and that the process's peak memory grew less than `bound`.
void ExpectRefusedWithinMemory(int port, const std::string& frame,
                               uint64_t bound) {
  RawConnection client(port);
  ASSERT_TRUE(client.connected());
  const uint64_t before = ResidentBytes();
  ASSERT_TRUE(ResetPeakResident());
  ASSERT_TRUE(client.Send(frame));
  std::string reply;
  ASSERT_TRUE(client.Receive(&reply));
  const uint64_t peak = PeakResidentBytes();
  const uint64_t grown = peak > before ? peak - before : 0;
  std::cout << "peak resident growth: " << grown / kMiB << " MiB\n";
  EXPECT_THAT(reply, HasSubstr("max-decoded-bytes"));
  EXPECT_TRUE(client.ClosedByServer());
  EXPECT_LT(grown, bound);
}

TEST(DecodeBudgetServerTest, RegionServerRefusesAFrameOfEmptyStructs) {
  TempDir dir;
  auto store = RegionStore::Open(dir.path(), RegionStoreOptions());
  ASSERT_TRUE(store.ok()) << store.status().ToString();
  RegionServerOptions options;
  options.port = 0;
  options.threads = 2;
  options.max_frame_bytes = kFrameBytes;
  auto server = RegionServer::Start(std::move(store).value(), options);
  ASSERT_TRUE(server.ok()) << server.status().ToString();
  // mutateRows(1: list<TMutation>), TMutation.4: list<TColumnValue>.
  const std::string frame =
      CallOfEmptyStructs("mutateRows", "", 1, 4, kOuter, kInner);
  ExpectRefusedWithinMemory((*server)->port(), frame, 96 * kMiB);
}

TEST(DecodeBudgetServerTest, RouterServerRefusesAFrameOfEmptyStructs) {
  auto router = std::make_shared<FakeRouter>();
  RouterServerOptions options;
  options.port = 0;
  options.threads = 2;
  options.max_frame_bytes = kFrameBytes;
  auto server = RouterServer::Start(router, options);
  ASSERT_TRUE(server.ok()) << server.status().ToString();
  // putMultiple(1: string table, 2: list<TPut>), TPut.2: list<TColumnValue>.
  const std::string table = FieldHeader(kTString, 1) + testing::Be32(3) + "geo";
  const std::string frame =
      CallOfEmptyStructs("putMultiple", table, 2, 2, kOuter, kInner);
  ExpectRefusedWithinMemory((*server)->port(), frame, 96 * kMiB);
  EXPECT_TRUE(router->mutations.empty());
}

// A region server that answers openRegion (and the other void calls) with
// success and every call with a result with a reply of a few bytes whose
// list claims 2^28 entries: 2^28 TResults are 19 GB.
std::string HugeClaimReply(const std::string& method, int32_t seqid) {
  constexpr uint32_t kClaim = 1u << 28;
  std::string reply = MessageHeader(method, seqid, /*type=*/2);
  if (method == "openRegion" || method == "closeRegion" ||
      method == "dropRegion" || method == "compactFilter" ||
      method == "setFilterConfig" || method == "syncWal") {
    return reply + std::string(1, kTStop);
  }
  if (method == "getMultiple" || method == "listRegions") {
    // The result itself is the list.
    return reply + FieldHeader(kTList, 0) + ListHeader(kTStruct, kClaim);
  }
  // A struct whose list field claims the entries: TScanResult.rows (1),
  // TIndexQueryResult.rows (1), TWriteResult.ops (2), TFilterStatus.stages
  // and TFilterOpsSince.ops (3).
  int16_t field = 1;
  if (method == "mutateRows") field = 2;
  if (method == "getFilterStatus" || method == "getFilterOpsSince") field = 3;
  return reply + FieldHeader(kTStruct, 0) + FieldHeader(kTList, field) +
         ListHeader(kTStruct, kClaim);
}

class DecodeBudgetClientTest : public ::testing::Test {
 protected:
  void SetUp() override {
    ThriftClientOptions options;
    options.call_timeout_ms = 10000;
    factory_ = NewThriftRegionClientFactory(options);
  }

  // Runs `call`, checks that it failed naming the budget, quickly and
  // without growing the peak memory by more than 64 MiB.
  template <typename CallFn>
  void ExpectBudgetFailure(const char* what, CallFn&& call) {
    SCOPED_TRACE(what);
    const uint64_t before = ResidentBytes();
    ASSERT_TRUE(ResetPeakResident());
    const auto start = std::chrono::steady_clock::now();
    const Status status = call();
    const auto took = std::chrono::steady_clock::now() - start;
    const uint64_t peak = PeakResidentBytes();
    const uint64_t grown = peak > before ? peak - before : 0;
    std::cout << what << ": " << status.ToString() << "; peak growth "
              << grown / kMiB << " MiB\n";
    EXPECT_TRUE(status.IsIOError() || status.IsCorruption())
        << status.ToString();
    EXPECT_THAT(status.message(), HasSubstr("max-decoded-bytes"));
    EXPECT_LT(grown, 64 * kMiB);
    EXPECT_LT(took, std::chrono::seconds(5));
  }

  ScriptedThriftServer fake_{HugeClaimReply};
  std::shared_ptr<router::RegionClientFactory> factory_;
};

TEST_F(DecodeBudgetClientTest, RegionClientRefusesRepliesClaimingHugeLists) {
  auto client =
      factory_->Connect(1, "127.0.0.1:" + std::to_string(fake_.port()));
  ASSERT_TRUE(client.ok()) << client.status().ToString();
  router::RegionClient& c = **client;
  ExpectBudgetFailure("getMultiple", [&] {
    return c.Get({GetRequest{1, "row", {}}}, /*max_bytes=*/0).status();
  });
  ExpectBudgetFailure("scan", [&] {
    ScanRequest scan;
    scan.region_id = 1;
    scan.limit = 10;
    return c.Scan(scan).status();
  });
  ExpectBudgetFailure("lookup", [&] {
    IndexQuery query;
    query.table_id = 1;
    query.equals = {{"d:cc", "NO"}};
    query.limit = 10;
    return c.Lookup(query).status();
  });
  ExpectBudgetFailure("listRegions", [&] { return c.ListRegions().status(); });
  ExpectBudgetFailure("getFilterOpsSince",
                      [&] { return c.OpsSince(1, 0, 1, 0).status(); });
}

// The router over such a server: every read fails with the budget's error
// instead of answering (an empty answer would pass for an exact one), and a
// lookup that allows a partial answer still fails: the server answered, with
// something the router cannot take.
TEST_F(DecodeBudgetClientTest, RouterFailsReadsOfAServerWithHugeReplies) {
  TempDir dir;
  router::RouterOptions options;
  options.data_dir = dir.path();
  options.region_servers = {"127.0.0.1:" + std::to_string(fake_.port())};
  options.background_maintenance = false;
  auto opened = router::Router::Open(options, factory_);
  ASSERT_TRUE(opened.ok()) << opened.status().ToString();
  router::Router& r = **opened;
  auto table = r.CreateTable({"geo", {"d:cc"}, {}, 1});
  ASSERT_TRUE(table.ok()) << table.status().ToString();

  ExpectBudgetFailure("router get", [&] {
    return r.Get("geo", {GetRequest{0, "oslo", {}}}).status();
  });
  ExpectBudgetFailure("router scan",
                      [&] { return r.Scan("geo", {}, 10).status(); });
  ExpectBudgetFailure("router lookup", [&] {
    router::LookupSpec spec;
    spec.equals = {{"d:cc", "NO"}};
    spec.allow_partial = true;
    return r.Lookup("geo", spec).status();
  });
  // Catching up the replica fails the same way: it stays not current, so
  // lookups keep asking the server.
  r.RunMaintenance();
  const std::vector<router::ServerIndexStats> stats = r.IndexStats();
  ASSERT_EQ(stats.size(), 1u);
  EXPECT_FALSE(stats[0].replica.current);
}

}  // namespace
}  // namespace bloomroute
