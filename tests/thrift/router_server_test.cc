// RouterServer: the client API through a real Thrift connection on loopback,
// over a FakeRouter (what reaches the router, failures) and over the real
// Router with in-process region stores (the calls end to end).
#include "thrift/router_server.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <functional>
#include <memory>
#include <random>
#include <set>
#include <string>
#include <vector>

#include "router/page_token.h"
#include "tests/integration/router_client.h"
#include "tests/router/router_test_util.h"
#include "tests/thrift/fake_router.h"
#include "tests/thrift/handler_test_util.h"

namespace bloomroute {
namespace {

namespace client = rpc::client;
using ::bloomroute::testing::ExpectIllegal;
using ::bloomroute::testing::MakeDelete;
using ::bloomroute::testing::MakeGet;
using ::bloomroute::testing::MakePut;
using ::bloomroute::testing::MakeQuery;
using ::bloomroute::testing::MakeScan;
using ::bloomroute::testing::MakeTableSpec;
using ::bloomroute::testing::RouterClient;
using ::bloomroute::testing::TableName;
using ::testing::HasSubstr;

class RouterServerTest : public ::testing::Test {
 protected:
  void SetUp() override {
    RouterServerOptions options;
    options.port = 0;
    options.threads = 4;
    options.idle_timeout_ms = 2000;
    auto server = RouterServer::Start(router_, options);
    ASSERT_TRUE(server.ok()) << server.status().ToString();
    server_ = std::move(server).value();
    ASSERT_GT(server_->port(), 0);
  }

  std::shared_ptr<FakeRouter> router_ = std::make_shared<FakeRouter>();
  std::unique_ptr<RouterServer> server_;
};

TEST_F(RouterServerTest, DefaultsAndBadOptions) {
  EXPECT_EQ(RouterServerOptions().port, 9090);
  EXPECT_EQ(RouterServerOptions().host, "127.0.0.1");
  EXPECT_TRUE(RouterServerOptions().Validate().ok());
  RouterServerOptions options;
  options.threads = 0;
  EXPECT_TRUE(
      RouterServer::Start(router_, options).status().IsInvalidArgument());
  EXPECT_TRUE(RouterServer::Start(nullptr, RouterServerOptions())
                  .status()
                  .IsInvalidArgument());
}

TEST_F(RouterServerTest, ServesTheClientApiOverTheWire) {
  router_->table_info.descriptor.table_id = 1;
  router_->table_info.descriptor.name = "geo";
  router_->lookup_result.rows = {Row{"oslo", {{"d:cc", "NO"}}}};
  router_->lookup_result.routing.servers_in_cluster = 2;
  router_->lookup_result.routing.asked = {{1, "127.0.0.1:2"}};
  router_->lookup_result.routing.with_rows = {{1, "127.0.0.1:2"}};

  RouterClient client(server_->port());
  client::TTableInfo info;
  client->createIndexedTable(info, MakeTableSpec("geo", {"d:cc"}));
  EXPECT_EQ(info.descriptor.name, "geo");
  EXPECT_EQ(router_->spec.name, "geo");

  client->putMultiple("geo", {MakePut("oslo", {{"d:cc", "NO"}}),
                              MakePut("lund", {{"d:cc", "SE"}})});
  ASSERT_EQ(router_->mutations.size(), 2u);
  EXPECT_EQ(router_->mutations[1].row_key, "lund");

  client::TIndexResult found;
  client->getByIndex(found, "geo", MakeQuery({{"d:cc", "NO"}}, 10));
  EXPECT_EQ(testing::RowKeys(found.rows), (std::vector<std::string>{"oslo"}));
  EXPECT_EQ(found.routing.serversInCluster, 2);
  EXPECT_EQ(testing::ServerIds(found.routing.serversWithRows),
            (std::vector<int32_t>{1}));
  EXPECT_EQ(router_->lookups.at(0).limit, 10u);
}

TEST_F(RouterServerTest, BadRequestsAreDeclaredErrorsOnAnOpenConnection) {
  RouterClient client(server_->port());
  // A C++ client always sends default-requiredness fields, so what it can
  // get wrong is a value: here a negative limit.
  try {
    client::TIndexResult found;
    client->getByIndex(found, "geo", MakeQuery({{"d:cc", "NO"}}, -1));
    ADD_FAILURE() << "no TIllegalArgument";
  } catch (const rpc::TIllegalArgument& e) {
    EXPECT_THAT(e.message, HasSubstr("tquery.limit is negative (-1)"));
  }
  EXPECT_EQ(router_->calls(), 0);
  // HBase's get declares TIOError alone: NotFound is one, named.
  router_->FailWith(Status::NotFound("table 'nope' does not exist"));
  try {
    client::TResult row;
    client->get(row, "nope", MakeGet("r"));
    ADD_FAILURE() << "no TIOError";
  } catch (const rpc::TIOError& e) {
    EXPECT_EQ(e.message, "NotFound: table 'nope' does not exist");
    EXPECT_FALSE(e.canRetry);
  }
  router_->FailWith(Status::Unavailable("region server 127.0.0.1:1: down"));
  try {
    client->put("geo", MakePut("r", {{"d:a", "1"}}));
    ADD_FAILURE() << "no TIOError";
  } catch (const rpc::TIOError& e) {
    EXPECT_THAT(e.message, HasSubstr("region server 127.0.0.1:1"));
    EXPECT_TRUE(e.canRetry);
  }
  router_->FailWith(Status::OK());
  std::vector<client::TIndexedTable> tables;
  client->listTables(tables);  // the same connection still serves
  EXPECT_TRUE(tables.empty());
}

TEST_F(RouterServerTest, BusyPortStopAndRelease) {
  RouterServerOptions options;
  options.port = server_->port();
  auto second = RouterServer::Start(router_, options);
  EXPECT_TRUE(second.status().IsIOError()) << second.status().ToString();

  const int port = server_->port();
  EXPECT_GT(router_.use_count(), 1);  // the handler shares it
  server_->Stop();
  server_->Stop();
  EXPECT_EQ(router_.use_count(), 1);
  EXPECT_THROW(RouterClient client("127.0.0.1", port, 1000),
               apache::thrift::transport::TTransportException);
}

// The real Router over in-process region stores, served by RouterServer: the
// whole client API through Thrift, bad input and a region server that stops
// answering.
class RouterServerOverStoresTest : public ::testing::Test {
 protected:
  void SetUp() override {
    router_ = testing::OpenRouter(cluster_);
    ASSERT_NE(router_, nullptr);
    RouterServerOptions options;
    options.port = 0;
    options.threads = 4;
    auto server = RouterServer::Start(router_, options);
    ASSERT_TRUE(server.ok()) << server.status().ToString();
    server_ = std::move(server).value();
    client_ = std::make_unique<RouterClient>(server_->port());
    client::TTableInfo info;
    (*client_)->createIndexedTable(
        info,
        MakeTableSpec("places", {"d:country", "d:feature"}, 0, {"g", "n"}));
    ASSERT_EQ(info.regions.size(), 3u);
    ASSERT_TRUE(testing::WaitAllCurrent(*router_));
    (*client_)->putMultiple(
        "places", {MakePut("bergen", {{"d:country", "NO"}, {"d:feature", "A"}}),
                   MakePut("kiruna", {{"d:country", "SE"}, {"d:feature", "B"}}),
                   MakePut("oslo", {{"d:country", "NO"}, {"d:feature", "B"}}),
                   MakePut("umea", {{"d:country", "SE"}, {"d:feature", "A"}})});
  }

  testing::StoreCluster cluster_{3};
  std::shared_ptr<router::Router> router_;
  std::unique_ptr<RouterServer> server_;
  std::unique_ptr<RouterClient> client_;
};

TEST_F(RouterServerOverStoresTest, TablesAreDescribedWithTheirRegions) {
  client::TTableInfo info;
  (*client_)->describeTable(info, "places");
  EXPECT_EQ(info.descriptor.name, "places");
  ASSERT_EQ(info.descriptor.indexedColumns.size(), 2u);
  EXPECT_EQ(info.descriptor.indexedColumns[0].name, "d:country");
  ASSERT_EQ(info.regions.size(), 3u);
  EXPECT_EQ(info.regions[1].startKey, "g");
  EXPECT_EQ(info.regions[1].endKey, "n");
  std::set<std::string> addresses;
  for (const auto& r : info.regions) addresses.insert(r.server.address);
  EXPECT_EQ(addresses.size(), 3u);  // one region per server

  std::vector<client::TIndexedTable> tables;
  (*client_)->listTables(tables);
  ASSERT_EQ(tables.size(), 1u);
  EXPECT_EQ(tables[0].tableId, info.descriptor.tableId);

  ExpectIllegal(
      [&] {
        (*client_)->createIndexedTable(info, MakeTableSpec("places", {}));
      },
      "places");
  ExpectIllegal(
      [&] {
        (*client_)->createIndexedTable(info, MakeTableSpec("bad/name", {}));
      },
      "bad/name");
  ExpectIllegal([&] { (*client_)->describeTable(info, "nope"); }, "NotFound");
  // HBase's deleteTable: the table must be disabled first.
  testing::ExpectIOError([&] { (*client_)->deleteTable(TableName("places")); },
                         "InvalidArgument: table 'places' is not disabled");
  EXPECT_TRUE((*client_)->isTableEnabled(TableName("places")));
  (*client_)->disableTable(TableName("places"));
  EXPECT_TRUE((*client_)->isTableDisabled(TableName("places")));
  EXPECT_FALSE((*client_)->isTableAvailable(TableName("places")));
  testing::ExpectIOError([&] { (*client_)->disableTable(TableName("places")); },
                         "table 'places' is not enabled");
  (*client_)->deleteTable(TableName("places"));
  (*client_)->listTables(tables);
  EXPECT_TRUE(tables.empty());
  EXPECT_FALSE((*client_)->isTableAvailable(TableName("places")));
}

TEST_F(RouterServerOverStoresTest, RowsReadWriteDeleteAndScan) {
  client::TResult row;
  (*client_)->get(row, "places", MakeGet("oslo", {"d:country"}));
  EXPECT_EQ(row.row, "oslo");
  EXPECT_EQ(testing::CellsOf(row), (testing::CellMap{{"d:country", "NO"}}));

  (*client_)->deleteSingle("places", MakeDelete("oslo", {"d:feature"}));
  std::vector<client::TDelete> failed;
  (*client_)->deleteMultiple(failed, "places", {MakeDelete("umea")});
  EXPECT_TRUE(failed.empty());
  std::vector<client::TResult> rows;
  (*client_)->getMultiple(rows, "places",
                          {MakeGet("umea"), MakeGet("oslo"), MakeGet("zz")});
  ASSERT_EQ(rows.size(), 3u);
  EXPECT_FALSE(rows[0].__isset.row);
  EXPECT_EQ(testing::CellsOf(rows[1]), (testing::CellMap{{"d:country", "NO"}}));
  EXPECT_FALSE(rows[2].__isset.row);

  // A scanner crosses the regions in key order, two rows at a time.
  const int64_t scanner = (*client_)->openScanner("places", MakeScan("b"));
  std::vector<std::string> keys;
  for (int i = 0; i < 10; ++i) {
    (*client_)->getScannerRows(rows, scanner, 2, 0);
    if (rows.empty()) break;
    EXPECT_LE(rows.size(), 2u);
    for (const std::string& k : testing::RowKeys(rows)) keys.push_back(k);
  }
  EXPECT_EQ(keys, (std::vector<std::string>{"bergen", "kiruna", "oslo"}));
  (*client_)->closeScanner(scanner);
  ExpectIllegal([&] { (*client_)->getScannerRows(rows, scanner, 2, 0); },
                "NotFound");

  testing::ExpectIOError(
      [&] {
        (*client_)->put("places", MakePut("", {{"d:a", "1"}}));
      },
      "InvalidArgument: ");
  testing::ExpectIOError(
      [&] {
        (*client_)->put("nope", MakePut("r", {{"d:a", "1"}}));
      },
      "NotFound: ");
}

TEST_F(RouterServerOverStoresTest, LookupsAreExactAndSayHowTheyWereRouted) {
  client::TIndexResult found;
  (*client_)->getByIndex(found, "places", MakeQuery({{"d:country", "SE"}}));
  EXPECT_EQ(testing::RowKeys(found.rows),
            (std::vector<std::string>{"kiruna", "umea"}));
  EXPECT_EQ(found.routing.serversInCluster, 3);
  EXPECT_EQ(found.routing.serversWithRows.size(), 2u);
  EXPECT_FALSE(found.partial);

  std::vector<client::TIndexResult> founds;
  (*client_)->getByIndexMultiple(
      founds, "places",
      {MakeQuery({{"d:country", "NO"}, {"d:feature", "B"}}),
       MakeQuery({{"d:country", "NO"}}, 1),
       MakeQuery({{"d:country", "DK"}}, std::nullopt, false,
                 /*ask_all=*/true)});
  ASSERT_EQ(founds.size(), 3u);
  EXPECT_EQ(testing::RowKeys(founds[0].rows),
            (std::vector<std::string>{"oslo"}));
  EXPECT_EQ(founds[1].rows.size(), 1u);
  EXPECT_TRUE(founds[1].truncated);
  EXPECT_TRUE(founds[2].rows.empty());
  EXPECT_EQ(founds[2].routing.serversAsked.size(), 3u);  // broadcast

  ExpectIllegal(
      [&] {
        (*client_)->getByIndex(found, "places", MakeQuery({{"d:name", "x"}}));
      },
      "d:name");
  ExpectIllegal(
      [&] {
        (*client_)->getByIndex(found, "nope", MakeQuery({{"d:country", "x"}}));
      },
      "NotFound");
}

TEST_F(RouterServerOverStoresTest, LookupsPageWithTokens) {
  std::vector<std::string> keys;
  client::TIndexQuery query = MakeQuery(
      {
          {"d:feature", "A"},
      },
      1);
  for (int page = 0; page < 10; ++page) {
    client::TIndexResult found;
    (*client_)->getByIndex(found, "places", query);
    for (const std::string& k : testing::RowKeys(found.rows)) keys.push_back(k);
    EXPECT_EQ(found.__isset.nextPageToken, found.truncated);
    if (!found.__isset.nextPageToken) break;
    EXPECT_LE(found.nextPageToken.size(), router::kMaxPageTokenBytes);
    query.__set_pageToken(found.nextPageToken);
  }
  EXPECT_EQ(keys, (std::vector<std::string>{"bergen", "umea"}));

  // getByIndexMultiple: each query carries its own token.
  client::TIndexResult first;
  (*client_)->getByIndex(first, "places", MakeQuery({{"d:country", "NO"}}, 1));
  ASSERT_TRUE(first.__isset.nextPageToken);
  client::TIndexQuery next = MakeQuery({{"d:country", "NO"}}, 1);
  next.__set_pageToken(first.nextPageToken);
  std::vector<client::TIndexResult> founds;
  (*client_)->getByIndexMultiple(founds, "places",
                                 {next, MakeQuery({{"d:country", "SE"}}, 1)});
  ASSERT_EQ(founds.size(), 2u);
  EXPECT_EQ(testing::RowKeys(founds[0].rows),
            (std::vector<std::string>{"oslo"}));
  EXPECT_EQ(testing::RowKeys(founds[1].rows),
            (std::vector<std::string>{"kiruna"}));
}

TEST_F(RouterServerOverStoresTest, HostileTokensAreIllegalArguments) {
  client::TIndexResult first;
  (*client_)->getByIndex(first, "places", MakeQuery({{"d:country", "NO"}}, 1));
  ASSERT_TRUE(first.__isset.nextPageToken);
  std::mt19937_64 rng(9);  // fixed seed
  std::string random(200, '\0');
  for (char& c : random) c = static_cast<char>(rng());
  std::string flipped = first.nextPageToken;
  flipped[flipped.size() / 2] ^= 0x20;
  for (const std::string& bad :
       {random, flipped, std::string(1 << 20, 'x'), std::string()}) {
    client::TIndexQuery query = MakeQuery({{"d:country", "NO"}}, 1);
    query.__set_pageToken(bad);
    client::TIndexResult found;
    ExpectIllegal([&] { (*client_)->getByIndex(found, "places", query); },
                  "page token is not valid (forged or corrupted)");
    std::vector<client::TIndexResult> founds;
    ExpectIllegal(
        [&] { (*client_)->getByIndexMultiple(founds, "places", {query}); },
        "page token is not valid (forged or corrupted)");
  }
  client::TIndexQuery other = MakeQuery({{"d:country", "SE"}}, 1);
  other.__set_pageToken(first.nextPageToken);
  ExpectIllegal([&] { (*client_)->getByIndex(first, "places", other); },
                "issued for a different query");
  other.__set_afterRow("a");
  ExpectIllegal([&] { (*client_)->getByIndex(first, "places", other); },
                "page_token and after_row");
}

TEST_F(RouterServerOverStoresTest, ReportsIndexStatsAndClusterStatus) {
  std::vector<client::TServerIndexStats> stats;
  (*client_)->getIndexStats(stats);
  ASSERT_EQ(stats.size(), 3u);
  int64_t elements = 0;
  for (const auto& s : stats) {
    EXPECT_TRUE(s.loaded);
    EXPECT_GE(s.stages, 1);
    EXPECT_EQ(s.stageStats.size(), static_cast<size_t>(s.stages));
    elements += s.elements;
  }
  EXPECT_GE(elements, 4);  // distinct (column, value) pairs per server

  client::TClusterStatus status;
  (*client_)->getClusterStatus(status);
  EXPECT_EQ(status.tables, 1);
  EXPECT_EQ(status.regions, 3);
  ASSERT_EQ(status.servers.size(), 3u);
  for (const auto& s : status.servers) EXPECT_TRUE(s.reachable);
}

TEST_F(RouterServerOverStoresTest, AServerThatDoesNotAnswerIsNamed) {
  cluster_.Down(1);
  const std::string down = cluster_.node(1).address;
  try {
    client::TIndexResult found;
    (*client_)->getByIndex(found, "places",
                           MakeQuery({{"d:country", "SE"}}, std::nullopt, false,
                                     /*ask_all=*/true));
    ADD_FAILURE() << "no TIOError";
  } catch (const rpc::TIOError& e) {
    EXPECT_THAT(e.message, HasSubstr(down));
  }
  client::TIndexResult partial;
  (*client_)->getByIndex(partial, "places",
                         MakeQuery({{"d:country", "SE"}}, std::nullopt,
                                   /*allow_partial=*/true, /*ask_all=*/true));
  EXPECT_TRUE(partial.partial);
  ASSERT_EQ(partial.missingServers.size(), 1u);
  EXPECT_EQ(partial.missingServers[0].address, down);
  client::TClusterStatus status;
  (*client_)->getClusterStatus(status);
  int unreachable = 0;
  for (const auto& s : status.servers) {
    if (!s.reachable) {
      ++unreachable;
      EXPECT_EQ(s.server.address, down);
      EXPECT_TRUE(s.__isset.error);
    }
  }
  EXPECT_EQ(unreachable, 1);
}

}  // namespace
}  // namespace bloomroute
