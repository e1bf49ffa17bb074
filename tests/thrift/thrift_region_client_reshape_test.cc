// The RegionService calls for region moves and splits, end to end: staged
// regions (openRegion's staging field) and splitPoint, through a real
// server on loopback, and the Thrift client's checks of hostile replies.
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <thrift/protocol/TBinaryProtocol.h>
#include <thrift/transport/TBufferTransports.h>

#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "tests/regionstore/region_store_test_util.h"
#include "tests/thrift/raw_wire.h"
#include "thrift/gen-cpp/RegionService.h"
#include "thrift/region_server.h"
#include "thrift/thrift_region_client.h"

namespace bloomroute {
namespace {

using ::bloomroute::testing::PlacesRegion;
using ::bloomroute::testing::PutPlace;
using ::bloomroute::testing::ScriptedThriftServer;
using ::bloomroute::testing::TempDir;
using ::testing::HasSubstr;

std::string Address(int port) { return "127.0.0.1:" + std::to_string(port); }

// One framed Thrift reply to `method` carrying `result`.
template <typename Result>
std::string ReplyPayload(const char* method, const Result& result) {
  auto buffer = std::make_shared<apache::thrift::transport::TMemoryBuffer>();
  apache::thrift::protocol::TBinaryProtocol protocol(buffer);
  protocol.writeMessageBegin(method, apache::thrift::protocol::T_REPLY, 0);
  result.write(&protocol);
  protocol.writeMessageEnd();
  return buffer->getBufferAsString();
}

std::unique_ptr<router::RegionClient> Connect(int port) {
  ThriftClientOptions options;
  options.connect_timeout_ms = 5000;
  options.call_timeout_ms = 10000;
  auto client =
      NewThriftRegionClientFactory(options)->Connect(1, Address(port));
  EXPECT_TRUE(client.ok()) << client.status().ToString();
  return client.ok() ? std::move(client).value() : nullptr;
}

class ThriftRegionClientReshapeTest : public ::testing::Test {
 protected:
  void SetUp() override {
    auto store = RegionStore::Open(dir_.path(), RegionStoreOptions());
    ASSERT_TRUE(store.ok()) << store.status().ToString();
    store_ = std::move(store).value();
    RegionServerOptions options;
    options.port = 0;
    auto server = RegionServer::Start(store_, options);
    ASSERT_TRUE(server.ok()) << server.status().ToString();
    server_ = std::move(server).value();
    client_ = Connect(server_->port());
    ASSERT_NE(client_, nullptr);
  }
  std::optional<RegionState> StateOf(uint64_t region_id) {
    auto page = client_->GetRegionStats(RegionStatsRequest());
    EXPECT_TRUE(page.ok()) << page.status().ToString();
    if (!page.ok()) return std::nullopt;
    for (const RegionStats& s : page->regions) {
      if (s.region_id == region_id) return s.state;
    }
    return std::nullopt;
  }

  TempDir dir_;
  std::shared_ptr<RegionStore> store_;
  std::unique_ptr<RegionServer> server_;
  std::unique_ptr<router::RegionClient> client_;
};

TEST_F(ThriftRegionClientReshapeTest, StagedRegionsRoundTrip) {
  ASSERT_TRUE(client_->OpenRegion(PlacesRegion(1, "", ""), 0).ok());
  // A daughter overlapping its serving parent: accepted staged only.
  ASSERT_TRUE(client_->OpenStagedRegion(PlacesRegion(2, "", "m"), 0).ok());
  EXPECT_EQ(StateOf(2), RegionState::kStaged);
  EXPECT_EQ(StateOf(1), RegionState::kOpen);
  auto ids = client_->OpenRegionIds();
  ASSERT_TRUE(ids.ok()) << ids.status().ToString();
  EXPECT_EQ(*ids, std::vector<uint64_t>{1});
  ASSERT_TRUE(client_->Apply({PutPlace(2, "bergen", "NO", "PPLA")}, 0).ok());

  // Promotion goes through openRegion without the flag: refused while the
  // parent serves.
  const Status refused = client_->OpenRegion(PlacesRegion(2, "", "m"), 0);
  EXPECT_TRUE(refused.IsInvalidArgument()) << refused.ToString();
  EXPECT_THAT(refused.message(), HasSubstr("region 1"));
  ASSERT_TRUE(client_->DropRegion(1).ok());
  ASSERT_TRUE(client_->OpenRegion(PlacesRegion(2, "", "m"), 0).ok());
  EXPECT_EQ(StateOf(2), RegionState::kOpen);
}

TEST_F(ThriftRegionClientReshapeTest, SplitPointRoundTrips) {
  ASSERT_TRUE(client_->OpenStagedRegion(PlacesRegion(1, "", ""), 0).ok());
  auto none = client_->SplitPoint(1);
  ASSERT_TRUE(none.ok()) << none.status().ToString();
  EXPECT_FALSE(none->has_value());
  ASSERT_TRUE(client_
                  ->Apply({PutPlace(1, "a", "NO", "PPLA"),
                           PutPlace(1, "b", "NO", "PPLA"),
                           PutPlace(1, "c", "NO", "PPLA")},
                          0)
                  .ok());
  auto split = client_->SplitPoint(1);
  ASSERT_TRUE(split.ok()) << split.status().ToString();
  EXPECT_EQ(*split, std::optional<std::string>("b"));
  const Status missing = client_->SplitPoint(9).status();
  EXPECT_TRUE(missing.IsNotFound()) << missing.ToString();
}

// A split point the server cannot have sent (longer than any row key, or
// empty: the empty key sorts before every row) is Corruption.
TEST(ThriftRegionClientReshapeRepliesTest, HostileSplitPointsAreCorruption) {
  for (const std::string& key :
       {std::string(kMaxRowKeyBytes + 1, 'k'), std::string()}) {
    rpc::RegionService_splitPoint_result result;
    rpc::TSplitPoint point;
    point.__set_key(key);
    result.success = point;
    result.__isset.success = true;
    ScriptedThriftServer server(
        ScriptedThriftServer::Always(ReplyPayload("splitPoint", result)));
    auto client = Connect(server.port());
    ASSERT_NE(client, nullptr);
    const Status s = client->SplitPoint(1).status();
    EXPECT_TRUE(s.IsCorruption()) << key.size() << ": " << s.ToString();
    EXPECT_THAT(s.message(), HasSubstr("split point"));
  }
  // The longest key a server may send is accepted.
  rpc::RegionService_splitPoint_result result;
  rpc::TSplitPoint point;
  point.__set_key(std::string(kMaxRowKeyBytes, 'k'));
  result.success = point;
  result.__isset.success = true;
  ScriptedThriftServer server(
      ScriptedThriftServer::Always(ReplyPayload("splitPoint", result)));
  auto client = Connect(server.port());
  ASSERT_NE(client, nullptr);
  auto ok = client->SplitPoint(1);
  ASSERT_TRUE(ok.ok()) << ok.status().ToString();
  EXPECT_EQ(ok->value().size(), kMaxRowKeyBytes);
}

TEST_F(ThriftRegionClientReshapeTest, ExportedRowsRoundTrip) {
  ASSERT_TRUE(client_->OpenRegion(PlacesRegion(1, "", ""), 0).ok());
  ASSERT_TRUE(client_
                  ->Apply({PutPlace(1, "a", "NO", "PPLA"),
                           PutPlace(1, "b", "SE", "PPLA"),
                           PutPlace(1, "c", "NO", "PPL")},
                          0)
                  .ok());
  ExportRequest request;
  request.region_id = 1;
  request.max_rows = 2;
  auto first = client_->ExportRows(request);
  ASSERT_TRUE(first.ok()) << first.status().ToString();
  EXPECT_EQ(first->rows, 2u);
  EXPECT_FALSE(first->file.empty());
  EXPECT_EQ(first->resume_row, std::optional<std::string>("c"));
  // It loads into a staged region (here on the same server, as a split's).
  ASSERT_TRUE(client_->OpenStagedRegion(PlacesRegion(2, "", "b"), 0).ok());
  request.stop_row = "b";
  auto part = client_->ExportRows(request);
  ASSERT_TRUE(part.ok()) << part.status().ToString();
  EXPECT_EQ(part->rows, 1u);
  EXPECT_FALSE(part->resume_row.has_value());
  ASSERT_TRUE(client_->BulkLoad(2, part->file, 0).ok());
  auto got = client_->Get({GetRequest{2, "a", {}}}, 0);
  ASSERT_TRUE(got.ok() && (*got)[0].has_value());
  request.region_id = 9;
  EXPECT_TRUE(client_->ExportRows(request).status().IsNotFound());
  request.region_id = 1;
  request.max_rows = 0;  // refused before sending
  EXPECT_TRUE(client_->ExportRows(request).status().IsInvalidArgument());
}

// Export replies that do not fit the request are Corruption: more rows than
// asked, a file without rows (or rows without a file), a resume row that is
// not after the start, past the stop, or longer than a row key.
TEST(ThriftRegionClientReshapeRepliesTest, HostileExportsAreCorruption) {
  struct Case {
    int64_t rows;
    std::string file;
    std::optional<std::string> resume;
  };
  const std::vector<Case> bad = {
      {11, "f", std::nullopt},
      {0, "f", std::nullopt},
      {2, "", std::nullopt},
      {-1, "", std::nullopt},
      {2, "f", std::string("a")},  // not after the start "b"
      {2, "f", std::string("q")},  // at or past the stop "q"
      {2, "f", std::string()},     // empty
      {0, "", std::string("c")},   // resumes without a row
      {2, "f", std::string(kMaxRowKeyBytes + 1, 'k')},
  };
  for (const Case& c : bad) {
    rpc::RegionService_exportRows_result result;
    rpc::TExportedRows exported;
    exported.__set_rows(c.rows);
    exported.__set_file(c.file);
    if (c.resume) exported.__set_resumeRow(*c.resume);
    result.success = exported;
    result.__isset.success = true;
    ScriptedThriftServer server(
        ScriptedThriftServer::Always(ReplyPayload("exportRows", result)));
    auto client = Connect(server.port());
    ASSERT_NE(client, nullptr);
    ExportRequest request;
    request.region_id = 1;
    request.start_row = "b";
    request.stop_row = "q";
    request.max_rows = 10;
    const Status s = client->ExportRows(request).status();
    EXPECT_TRUE(s.IsCorruption())
        << c.rows << " " << c.file.size() << ": " << s.ToString();
  }
}

}  // namespace
}  // namespace bloomroute
