#include "thrift/router_service_handler.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <functional>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "tests/integration/router_client.h"
#include "tests/thrift/fake_router.h"
#include "tests/thrift/wire_util.h"

namespace bloomroute {
namespace {

namespace client = rpc::client;
using ::bloomroute::testing::MakeDelete;
using ::bloomroute::testing::MakeGet;
using ::bloomroute::testing::MakePut;
using ::bloomroute::testing::MakeQuery;
using ::bloomroute::testing::MakeScan;
using ::bloomroute::testing::MakeTableSpec;
using ::testing::ElementsAre;
using ::testing::HasSubstr;

class RouterServiceHandlerTest : public ::testing::Test {
 protected:
  RouterServiceHandlerTest()
      : router_(std::make_shared<FakeRouter>()), handler_(router_) {}

  // Every RouterService call once, with valid arguments (as received from
  // the wire).
  std::vector<testing::HandlerCall> EveryCall() {
    const auto spec = ThroughWire(MakeTableSpec("t", {"d:a"}));
    const auto put = ThroughWire(MakePut("r", {{"d:a", "1"}}));
    const auto get = ThroughWire(MakeGet("r"));
    const auto del = ThroughWire(MakeDelete("r"));
    const auto scan = ThroughWire(MakeScan("a", "b"));
    const auto query = ThroughWire(MakeQuery({{"d:a", "1"}}));
    client::TTableInfo info;
    std::vector<client::TTableDescriptor> tables;
    client::TResult row;
    std::vector<client::TResult> rows;
    client::TIndexResult found;
    std::vector<client::TIndexResult> founds;
    std::vector<client::TServerIndexStats> stats;
    client::TClusterStatus status;
    return {
        {"createTable", [=]() mutable { handler_.createTable(info, spec); }},
        {"deleteTable", [=] { handler_.deleteTable("t"); }},
        {"listTables", [=]() mutable { handler_.listTables(tables); }},
        {"describeTable", [=]() mutable { handler_.describeTable(info, "t"); }},
        {"put", [=] { handler_.put("t", put); }},
        {"putMultiple", [=] { handler_.putMultiple("t", {put}); }},
        {"get", [=]() mutable { handler_.get(row, "t", get); }},
        {"getMultiple",
         [=]() mutable { handler_.getMultiple(rows, "t", {get}); }},
        {"deleteSingle", [=] { handler_.deleteSingle("t", del); }},
        {"deleteMultiple", [=] { handler_.deleteMultiple("t", {del}); }},
        {"openScanner", [=] { handler_.openScanner("t", scan); }},
        {"getScannerRows",
         [=]() mutable { handler_.getScannerRows(rows, 42, 10, 0); }},
        {"closeScanner", [=] { handler_.closeScanner(42); }},
        {"getByIndex",
         [=]() mutable { handler_.getByIndex(found, "t", query); }},
        {"getByIndexMultiple",
         [=]() mutable { handler_.getByIndexMultiple(founds, "t", {query}); }},
        {"getIndexStats", [=]() mutable { handler_.getIndexStats(stats); }},
        {"getClusterStatus",
         [=]() mutable { handler_.getClusterStatus(status); }},
        {"bulkLoad", [=] { handler_.bulkLoad("t", 3, "file"); }},
    };
  }

  // Expects `call` to throw TIllegalArgument containing `text`, without the
  // router having been called.
  void ExpectIllegal(const std::function<void()>& call,
                     const std::string& text) {
    const int before = router_->calls();
    testing::ExpectIllegal(call, text);
    EXPECT_EQ(router_->calls(), before) << text;
  }

  std::shared_ptr<FakeRouter> router_;
  mutable RouterServiceHandler handler_;
};

TEST_F(RouterServiceHandlerTest, ForwardsTableCalls) {
  router_->table_info.descriptor.table_id = 4;
  router_->table_info.descriptor.name = "geo";
  client::TTableInfo info;
  handler_.createTable(info, ThroughWire(MakeTableSpec("geo", {"d:cc"}, 3)));
  EXPECT_EQ(router_->spec.name, "geo");
  EXPECT_THAT(router_->spec.indexed_columns, ElementsAre("d:cc"));
  EXPECT_EQ(router_->spec.region_count, 3u);
  EXPECT_EQ(info.descriptor.tableId, 4);

  handler_.describeTable(info, "geo");
  EXPECT_EQ(router_->table, "geo");
  EXPECT_EQ(info.descriptor.name, "geo");

  router_->tables = {router_->table_info.descriptor};
  std::vector<client::TTableDescriptor> tables;
  handler_.listTables(tables);
  ASSERT_EQ(tables.size(), 1u);
  EXPECT_EQ(tables[0].tableId, 4);

  handler_.deleteTable("old");
  EXPECT_EQ(router_->table, "old");
}

TEST_F(RouterServiceHandlerTest, ForwardsRowCallsInRequestOrder) {
  handler_.putMultiple("geo", {ThroughWire(MakePut("b", {{"d:a", "1"}})),
                               ThroughWire(MakePut("a", {{"d:a", "2"}}))});
  EXPECT_EQ(router_->table, "geo");
  ASSERT_EQ(router_->mutations.size(), 2u);
  EXPECT_EQ(router_->mutations[0].row_key, "b");
  EXPECT_EQ(router_->mutations[1].cells[0].value, "2");

  handler_.deleteSingle("geo", ThroughWire(MakeDelete("b", {"d:a"})));
  ASSERT_EQ(router_->mutations.size(), 1u);
  EXPECT_EQ(router_->mutations[0].kind, Mutation::Kind::kDelete);
  EXPECT_THAT(router_->mutations[0].columns, ElementsAre("d:a"));

  router_->get_result = {std::nullopt, Row{"a", {{"d:a", "2"}}}};
  std::vector<client::TResult> rows;
  handler_.getMultiple(rows, "geo",
                       {ThroughWire(MakeGet("z")), ThroughWire(MakeGet("a"))});
  ASSERT_EQ(router_->gets.size(), 2u);
  EXPECT_EQ(router_->gets[0].row_key, "z");
  ASSERT_EQ(rows.size(), 2u);
  EXPECT_FALSE(rows[0].__isset.row);
  EXPECT_EQ(rows[1].row, "a");

  router_->get_result = {Row{"a", {{"d:a", "2"}}}};
  client::TResult row;
  handler_.get(row, "geo", ThroughWire(MakeGet("a", {"d"})));
  EXPECT_THAT(router_->gets[0].columns, ElementsAre("d"));
  EXPECT_EQ(row.row, "a");
  router_->get_result = {std::nullopt};
  handler_.get(row, "geo", ThroughWire(MakeGet("gone")));
  EXPECT_FALSE(row.__isset.row);
  EXPECT_TRUE(row.columnValues.empty());
}

TEST_F(RouterServiceHandlerTest, ForwardsBulkLoads) {
  const std::string file(
      "sst\0\xff"
      "bytes",
      10);
  handler_.bulkLoad("geo", 12, file);
  EXPECT_EQ(router_->table, "geo");
  EXPECT_EQ(router_->bulk_region, 12u);
  EXPECT_EQ(router_->bulk_file, file);
}

TEST_F(RouterServiceHandlerTest, ForwardsScannerCalls) {
  router_->opened_scanner = 77;
  EXPECT_EQ(handler_.openScanner("geo", ThroughWire(MakeScan("b", "k"))), 77);
  EXPECT_EQ(router_->scan.start_row, "b");
  EXPECT_EQ(router_->scan.stop_row, "k");
  router_->scanner_rows = {Row{"c", {{"d:a", "1"}}}};
  std::vector<client::TResult> rows;
  handler_.getScannerRows(rows, 77, 5, 3);
  EXPECT_EQ(router_->scanner, 77);
  EXPECT_EQ(router_->max_rows, 5u);
  EXPECT_EQ(router_->call_seq, 3u);
  EXPECT_EQ(testing::RowKeys(rows), (std::vector<std::string>{"c"}));
  handler_.closeScanner(78);
  EXPECT_EQ(router_->scanner, 78);
  ExpectIllegal([&] { handler_.getScannerRows(rows, 77, 5, -1); },
                "callSeq must not be negative");
}

// Each connection's handler is a scanner client of its own, and releasing
// it (the connection closed) closes that client's scanners.
TEST_F(RouterServiceHandlerTest, TheFactoryMakesAScannerClientPerConnection) {
  RouterServiceHandlerFactory factory(router_);
  apache::thrift::TConnectionInfo info;
  client::RouterServiceIf* first = factory.getHandler(info);
  client::RouterServiceIf* second = factory.getHandler(info);
  first->openScanner("geo", ThroughWire(MakeScan()));
  const router::ScannerClient a = router_->scanner_client;
  second->openScanner("geo", ThroughWire(MakeScan()));
  const router::ScannerClient b = router_->scanner_client;
  EXPECT_NE(a, b);
  EXPECT_NE(a, router::kLocalScannerClient);
  factory.releaseHandler(first);
  EXPECT_EQ(router_->closed_scanner_clients,
            std::vector<router::ScannerClient>{a});
  factory.releaseHandler(second);
}

TEST_F(RouterServiceHandlerTest, ForwardsLookupsAndAnswersInRequestOrder) {
  router_->lookup_result.rows = {Row{"oslo", {{"d:cc", "NO"}}}};
  router_->lookup_result.routing.servers_in_cluster = 3;
  router_->lookup_result.routing.asked = {{1, "127.0.0.1:2"}};
  client::TIndexResult found;
  handler_.getByIndex(found, "geo",
                      ThroughWire(MakeQuery({{"d:cc", "NO"}}, 5, true)));
  ASSERT_EQ(router_->lookups.size(), 1u);
  EXPECT_EQ(router_->lookups[0].limit, 5u);
  EXPECT_TRUE(router_->lookups[0].allow_partial);
  EXPECT_FALSE(router_->lookups[0].broadcast);
  EXPECT_EQ(testing::RowKeys(found.rows), (std::vector<std::string>{"oslo"}));
  EXPECT_EQ(found.routing.serversInCluster, 3);

  std::vector<client::TIndexResult> founds;
  handler_.getByIndexMultiple(
      founds, "geo",
      {ThroughWire(MakeQuery({{"d:cc", "SE"}})),
       ThroughWire(MakeQuery({{"d:cc", "DK"}}, std::nullopt, false, true))});
  ASSERT_EQ(router_->lookups.size(), 3u);
  EXPECT_EQ(router_->lookups[1].equals[0].value, "SE");
  EXPECT_EQ(router_->lookups[2].equals[0].value, "DK");
  EXPECT_TRUE(router_->lookups[2].broadcast);
  EXPECT_EQ(founds.size(), 2u);
}

TEST_F(RouterServiceHandlerTest, ReportsIndexStatsAndClusterStatus) {
  router::ServerIndexStats s;
  s.server = {2, "127.0.0.1:9093"};
  s.replica.current = true;
  router_->index_stats = {s};
  std::vector<client::TServerIndexStats> stats;
  handler_.getIndexStats(stats);
  ASSERT_EQ(stats.size(), 1u);
  EXPECT_EQ(stats[0].server.address, "127.0.0.1:9093");
  EXPECT_TRUE(stats[0].current);

  router_->cluster_status.tables = 1;
  router_->cluster_status.servers = {
      {{0, "127.0.0.1:1"}, true, "", 2, true, 1, "IOError: cannot open"}};
  client::TClusterStatus status;
  handler_.getClusterStatus(status);
  EXPECT_EQ(status.tables, 1);
  ASSERT_EQ(status.servers.size(), 1u);
  EXPECT_EQ(status.servers[0].regions, 2);
  EXPECT_EQ(status.servers[0].regionsNotServed, 1);
  EXPECT_EQ(status.servers[0].reopenError, "IOError: cannot open");
}

TEST_F(RouterServiceHandlerTest, EveryCallMapsEveryStatusCode) {
  // Calls whose Router method returns no Status cannot fail this way.
  const std::set<std::string> cannot_fail = {"listTables", "getIndexStats",
                                             "getClusterStatus"};
  std::vector<testing::HandlerCall> calls;
  for (auto& call : EveryCall()) {
    if (!cannot_fail.count(call.first)) calls.push_back(std::move(call));
  }
  for (const Status& failure : testing::EveryFailure()) {
    router_->FailWith(failure);
    testing::ExpectEveryCallFailsWith(calls, failure);
  }
}

TEST_F(RouterServiceHandlerTest, ExceptionsFromBelowBecomeTIOError) {
  router_->ThrowOnCall(true);
  testing::ExpectEveryCallThrowsTIOError(EveryCall(), "router exploded");
}

TEST_F(RouterServiceHandlerTest, BadArgumentsNeverReachTheRouter) {
  client::TPut no_row = MakePut("r", {{"d:a", "1"}});
  no_row.__isset.row = false;
  ExpectIllegal([&] { handler_.put("t", no_row); }, "tput.row is missing");
  ExpectIllegal(
      [&] {
        handler_.putMultiple(
            "t", {ThroughWire(MakePut("a", {{"d:a", "1"}})), no_row});
      },
      "puts[1].row is missing");
  ExpectIllegal([&] { handler_.deleteSingle("t", client::TDelete()); },
                "tdelete.row is missing");
  ExpectIllegal([&] { handler_.deleteMultiple("t", {client::TDelete()}); },
                "deletes[0].row is missing");
  client::TResult row;
  ExpectIllegal([&] { handler_.get(row, "t", client::TGet()); },
                "tget.row is missing");
  std::vector<client::TResult> rows;
  ExpectIllegal([&] { handler_.getMultiple(rows, "t", {client::TGet()}); },
                "gets[0].row is missing");
  ExpectIllegal([&] { handler_.bulkLoad("t", -1, "file"); },
                "regionId is negative (-1)");
  ExpectIllegal([&] { handler_.getScannerRows(rows, 1, -1, 0); },
                "numRows is negative (-1)");
  client::TTableInfo info;
  ExpectIllegal([&] { handler_.createTable(info, client::TTableSpec()); },
                "spec.name is missing");
  client::TIndexResult found;
  ExpectIllegal([&] { handler_.getByIndex(found, "t", client::TIndexQuery()); },
                "tquery.predicates is missing");
  std::vector<client::TIndexResult> founds;
  ExpectIllegal(
      [&] {
        handler_.getByIndexMultiple(
            founds, "t",
            {ThroughWire(MakeQuery({{"d:a", "1"}})),
             ThroughWire(MakeQuery({{"d:a", "1"}}, -2))});
      },
      "queries[1].limit is negative (-2)");
}

}  // namespace
}  // namespace bloomroute
