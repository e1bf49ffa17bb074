#include "thrift/region_server.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <functional>
#include <string>
#include <vector>

#include "tests/regionstore/region_store_test_util.h"
#include "tests/thrift/handler_test_util.h"
#include "tests/thrift/raw_wire.h"
#include "tests/thrift/region_client_util.h"

namespace bloomroute {
namespace {

using ::bloomroute::testing::Cells;
using ::bloomroute::testing::Delete;
using ::bloomroute::testing::ExpectIllegal;
using ::bloomroute::testing::FrameHeader;
using ::bloomroute::testing::Get;
using ::bloomroute::testing::Put;
using ::bloomroute::testing::RawConnection;
using ::bloomroute::testing::RegionClient;
using ::bloomroute::testing::TempDir;
using ::bloomroute::testing::WhereEquals;
using ::bloomroute::testing::WirePlacesRegion;
using ::testing::HasSubstr;

constexpr uint32_t kFrameBytes = RegionServerOptions::kMinFrameBytes * 4;

class RegionServerTest : public ::testing::Test {
 protected:
  void SetUp() override {
    RegionStoreOptions store_options;
    store_options.max_value_bytes = 1000;
    store_options.max_row_bytes = 4000;
    auto store = RegionStore::Open(dir_.path(), store_options);
    ASSERT_TRUE(store.ok()) << store.status().ToString();
    RegionServerOptions options;
    options.port = 0;
    options.threads = 4;
    options.max_frame_bytes = kFrameBytes;
    options.idle_timeout_ms = 1000;
    options.request_timeout_ms = 1000;
    auto server = RegionServer::Start(std::move(store).value(), options);
    ASSERT_TRUE(server.ok()) << server.status().ToString();
    server_ = std::move(server).value();
    ASSERT_GT(server_->port(), 0);
  }

  // The server still serves: a fresh connection answers and the index agrees
  // with the rows.
  void ExpectHealthy() {
    RegionClient client(server_->port());
    std::vector<rpc::TRegionDescriptor> regions;
    client->listRegions(regions);
    rpc::TIndexReport report;
    client->verifyIndex(report, 0);
    EXPECT_TRUE(report.ok);
  }

  TempDir dir_;
  std::unique_ptr<RegionServer> server_;
};

TEST_F(RegionServerTest, ParsesListenAddresses) {
  std::string host;
  int port = -1;
  ASSERT_TRUE(ParseListenAddress("127.0.0.1:9091", &host, &port).ok());
  EXPECT_EQ(host, "127.0.0.1");
  EXPECT_EQ(port, 9091);
  ASSERT_TRUE(ParseListenAddress("[::1]:0", &host, &port).ok());
  EXPECT_EQ(host, "::1");
  EXPECT_EQ(port, 0);
  ASSERT_TRUE(ParseListenAddress("localhost:65535", &host, &port).ok());
  EXPECT_EQ(host, "localhost");
  EXPECT_EQ(port, 65535);
  for (const char* bad :
       {"", "127.0.0.1", "127.0.0.1:", ":80", "127.0.0.1:65536", "127.0.0.1:-1",
        "127.0.0.1:80x", "127.0.0.1:123456", "::1:80", "[::zz]:80",
        "bad host:80", "a/b:80"}) {
    SCOPED_TRACE(bad);
    EXPECT_TRUE(ParseListenAddress(bad, &host, &port).IsInvalidArgument());
  }
}

TEST_F(RegionServerTest, ValidatesOptions) {
  EXPECT_TRUE(RegionServerOptions().Validate().ok());
  RegionServerOptions o;
  o.threads = 0;
  EXPECT_TRUE(o.Validate().IsInvalidArgument());
  o = RegionServerOptions();
  o.max_frame_bytes = 100;
  EXPECT_TRUE(o.Validate().IsInvalidArgument());
  o = RegionServerOptions();
  o.port = 70000;
  EXPECT_TRUE(o.Validate().IsInvalidArgument());
  o = RegionServerOptions();
  o.idle_timeout_ms = 0;
  EXPECT_TRUE(o.Validate().IsInvalidArgument());
  EXPECT_TRUE(RegionServer::Start(nullptr, RegionServerOptions())
                  .status()
                  .IsInvalidArgument());
}

TEST_F(RegionServerTest, ReportsABusyPortAndStopsIdempotently) {
  auto store = RegionStore::Open(dir_.path() + "/other", RegionStoreOptions());
  ASSERT_TRUE(store.ok());
  RegionServerOptions options;
  options.port = server_->port();
  auto second = RegionServer::Start(std::move(store).value(), options);
  EXPECT_TRUE(second.status().IsIOError()) << second.status().ToString();

  const int port = server_->port();
  server_->Stop();
  server_->Stop();
  EXPECT_THROW(RegionClient client(port, 1000),
               apache::thrift::transport::TTransportException);
}

TEST_F(RegionServerTest, ServesReadsAndWritesOverTheWire) {
  RegionClient client(server_->port());
  client->openRegion(WirePlacesRegion(1, "", "s"), 0, false, 0);
  std::vector<rpc::TRegionDescriptor> regions;
  client->listRegions(regions);
  ASSERT_EQ(regions.size(), 1u);
  EXPECT_EQ(regions[0].table.name, "places");

  rpc::TWriteResult written;
  client->mutateRows(
      written,
      {Put(1, "bergen", {{"d:country", "NO"}, {"d:feature", "PPLA"}}),
       Put(1, "aarhus", {{"d:country", "DK"}, {"d:feature", "PPL"}}),
       Put(1, "kiruna", {{"d:country", "SE"}, {"d:feature", "PPL"}})},
      0);
  EXPECT_FALSE(written.ops.empty());  // new values enter the filter

  std::vector<rpc::TResult> rows;
  client->getMultiple(rows, {Get(1, "bergen"), Get(1, "absent")}, 0);
  ASSERT_EQ(rows.size(), 2u);
  EXPECT_EQ(rows[0].row, "bergen");
  EXPECT_EQ(Cells(rows[0]).at("d:country"), "NO");
  EXPECT_FALSE(rows[1].__isset.row);

  client->mutateRows(written, {Delete(1, "kiruna")}, 0);
  rpc::TScan scan;
  scan.__set_regionId(1);
  scan.__set_limit(1);
  rpc::TScanResult page;
  client->scan(page, scan);
  ASSERT_EQ(page.rows.size(), 1u);
  EXPECT_EQ(page.rows[0].row, "aarhus");
  ASSERT_TRUE(page.__isset.resumeRow);
  scan.__set_startRow(page.resumeRow);
  scan.__set_limit(10);
  rpc::TScanResult last_page;  // results are read into the given struct
  client->scan(last_page, scan);
  ASSERT_EQ(last_page.rows.size(), 1u);
  EXPECT_EQ(last_page.rows[0].row, "bergen");
  EXPECT_FALSE(last_page.__isset.resumeRow);

  rpc::TIndexQueryResult found;
  client->lookup(found, WhereEquals("d:feature", "PPL"));
  ASSERT_EQ(found.rows.size(), 1u);
  EXPECT_EQ(found.rows[0].row, "aarhus");
  client->lookup(found, WhereEquals("d:country", "SE"));
  EXPECT_TRUE(found.rows.empty());

  rpc::TFilterStatus status;
  client->getFilterStatus(status);
  EXPECT_EQ(status.elements, 4);  // NO, DK, PPLA, PPL
  rpc::TFilterSnapshot snapshot;
  client->getFilterSnapshot(snapshot, 0);
  EXPECT_FALSE(snapshot.filter.empty());
  EXPECT_EQ(snapshot.lastSeq, status.lastSeq);
  rpc::TFilterOpsSince since;
  client->getFilterOpsSince(since, status.epoch, 0, status.incarnation, 0);
  EXPECT_FALSE(since.tooOld);
  EXPECT_EQ(since.lastSeq, status.lastSeq);
  rpc::TIndexReport report;
  client->verifyIndex(report, 0);
  EXPECT_TRUE(report.ok);
  EXPECT_EQ(report.rows, 2);
}

TEST_F(RegionServerTest, BadInputIsTIllegalArgumentAndWritesNothing) {
  RegionClient client(server_->port());
  client->openRegion(WirePlacesRegion(1, "", "s"), 0, false, 0);
  rpc::TWriteResult written;
  const auto mutate = [&](std::vector<rpc::TMutation> batch) {
    return
        [&client, &written, batch] { client->mutateRows(written, batch, 0); };
  };
  const rpc::TMutation good = Put(1, "oslo", {{"d:country", "NO"}});
  ExpectIllegal(mutate({good, Put(1, "", {{"d:country", "NO"}})}),
                "empty row key");
  ExpectIllegal(mutate({good, Put(99, "oslo", {{"d:country", "NO"}})}),
                "region 99 is not open");
  ExpectIllegal(mutate({good, Put(1, "zurich", {{"d:country", "CH"}})}),
                "outside region 1");
  ExpectIllegal(
      mutate({good, Put(1, "big", {{"d:name", std::string(1001, 'x')}})}),
      "the limit is 1000");
  ExpectIllegal(mutate({good, Put(1, "rich",
                                  {{"d:a", std::string(1000, 'x')},
                                   {"d:b", std::string(1000, 'x')},
                                   {"d:c", std::string(1000, 'x')},
                                   {"d:e", std::string(1000, 'x')}})}),
                "the limit is 4000");
  ExpectIllegal(mutate({good, Put(1, "oslo", {{"nocolon", "x"}})}),
                "is not family:qualifier");
  ExpectIllegal(mutate({good, Put(-1, "oslo", {{"d:country", "NO"}})}),
                "mutations[1].regionId is negative (-1)");
  rpc::TMutation unknown_type = good;
  unknown_type.type = 9;
  ExpectIllegal(mutate({good, unknown_type}),
                "mutations[1].type has no such value (9)");
  ExpectIllegal(
      [&] {
        rpc::TIndexQueryResult found;
        client->lookup(found, WhereEquals("d:name", "x"));
      },
      "column 'd:name' of table 'places' is not indexed");
  ExpectIllegal(
      [&] {
        rpc::TIndexQueryResult found;
        client->lookup(found, WhereEquals("d:country", "NO", -1));
      },
      "query.limit is negative (-1)");
  ExpectIllegal(
      [&] {
        std::vector<rpc::TResult> rows;
        client->getMultiple(rows, {Get(1, "")}, 0);
      },
      "empty row key");
  ExpectIllegal(
      [&] { client->openRegion(WirePlacesRegion(2, "k", "c"), 0, false, 0); },
      "region");
  ExpectIllegal([&] { client->closeRegion(-4, 0); }, "regionId is negative");

  // The same connection still works, and none of the rejected batches wrote
  // their good first mutation.
  std::vector<rpc::TResult> rows;
  client->getMultiple(rows, {Get(1, "oslo")}, 0);
  ASSERT_EQ(rows.size(), 1u);
  EXPECT_FALSE(rows[0].__isset.row);
  rpc::TFilterStatus status;
  client->getFilterStatus(status);
  EXPECT_EQ(status.lastSeq, 0);
  ExpectHealthy();
}

TEST_F(RegionServerTest, MalformedBytesCloseOnlyThatConnection) {
  {
    RawConnection garbage(server_->port());
    ASSERT_TRUE(garbage.connected());
    ASSERT_TRUE(garbage.Send(FrameHeader(16) + "GET / HTTP/1.1\r\n"));
    EXPECT_TRUE(garbage.ClosedByServer());
  }
  {
    RawConnection http(server_->port());
    ASSERT_TRUE(http.Send("GET / HTTP/1.1\r\nHost: x\r\n\r\n"));
    EXPECT_TRUE(http.ClosedByServer());  // "GET " is a 1.19 GB frame
  }
  {
    RawConnection huge(server_->port());
    ASSERT_TRUE(huge.Send(FrameHeader(kFrameBytes + 1)));
    EXPECT_TRUE(huge.ClosedByServer());
  }
  {
    RawConnection negative(server_->port());
    ASSERT_TRUE(negative.Send(FrameHeader(0x80000000u)));
    EXPECT_TRUE(negative.ClosedByServer());
  }
  {
    // A well-formed call header whose list claims 2^30 mutations.
    std::string payload = "\x80\x01\x00\x01";  // strict binary, CALL
    payload += std::string("\x00\x00\x00\x0a", 4) + "mutateRows";
    payload += std::string("\x00\x00\x00\x01", 4);      // seqid
    payload += std::string("\x0f\x00\x01", 3);          // list, field 1
    payload += std::string("\x0c\x40\x00\x00\x00", 5);  // of structs
    RawConnection big_list(server_->port());
    ASSERT_TRUE(big_list.Send(FrameHeader(payload.size()) + payload));
    EXPECT_TRUE(big_list.ClosedByServer());
  }
  {
    // A frame that never completes: the request timeout closes it.
    RawConnection truncated(server_->port());
    ASSERT_TRUE(truncated.Send(FrameHeader(100) + "0123456789"));
    EXPECT_TRUE(truncated.ClosedByServer());
  }
  {
    RawConnection early_close(server_->port());
    ASSERT_TRUE(early_close.Send(FrameHeader(100) + "01234"));
  }
  ExpectHealthy();
}

}  // namespace
}  // namespace bloomroute
