#include "thrift/router_service_handler.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <functional>
#include <set>
#include <string>
#include <utility>
#include <variant>
#include <vector>

#include "model/atomic_ops.h"
#include "model/table_attributes.h"
#include "tests/integration/router_client.h"
#include "tests/thrift/fake_router.h"
#include "tests/thrift/handler_test_util.h"
#include "tests/thrift/wire_util.h"
#include "thrift/conversion/admin_conversion.h"
#include "thrift/conversion/hbase_conversion.h"
#include "thrift/conversion/index_conversion.h"

namespace bloomroute {
namespace {

namespace client = rpc::client;
using ::bloomroute::testing::MakeDelete;
using ::bloomroute::testing::MakeGet;
using ::bloomroute::testing::MakePut;
using ::bloomroute::testing::MakeQuery;
using ::bloomroute::testing::MakeScan;
using ::bloomroute::testing::MakeTableSpec;
using ::bloomroute::testing::TableName;
using ::testing::ElementsAre;
using ::testing::HasSubstr;

class RouterServiceHandlerTest : public ::testing::Test {
 protected:
  RouterServiceHandlerTest()
      : router_(std::make_shared<FakeRouter>()), handler_(router_) {}

  // Every call that declares TIllegalArgument (bloomroute's own, and
  // HBase's getScannerRows and closeScanner) once, with valid arguments (as
  // received from the wire).
  std::vector<testing::HandlerCall> EveryOwnCall() {
    const auto spec = ThroughWire(MakeTableSpec("t", {"d:a"}));
    const auto query = ThroughWire(MakeQuery({{"d:a", "1"}}));
    client::TTableInfo info;
    std::vector<client::TIndexedTable> tables;
    std::vector<client::TResult> rows;
    client::TIndexResult found;
    std::vector<client::TIndexResult> founds;
    client::TIndexCount count;
    std::vector<client::TServerIndexStats> stats;
    client::TClusterStatus status;
    std::vector<client::TIndexStatus> index_status;
    std::vector<client::TServerSummary> servers;
    std::vector<client::TRegionSummary> regions;
    client::TServerRef ref;
    client::TRegionOpResult op;
    client::TBalanceReport balanced;
    std::vector<client::TBalanceStep> steps;
    return {
        {"createIndexedTable",
         [=]() mutable { handler_.createIndexedTable(info, spec); }},
        {"listTables", [=]() mutable { handler_.listTables(tables); }},
        {"describeTable", [=]() mutable { handler_.describeTable(info, "t"); }},
        {"getScannerRows",
         [=]() mutable { handler_.getScannerRows(rows, 42, 10, 0); }},
        {"closeScanner", [=] { handler_.closeScanner(42); }},
        {"getByIndex",
         [=]() mutable { handler_.getByIndex(found, "t", query); }},
        {"getByIndexMultiple",
         [=]() mutable { handler_.getByIndexMultiple(founds, "t", {query}); }},
        {"countByIndex",
         [=]() mutable { handler_.countByIndex(count, "t", query); }},
        {"getIndexStats", [=]() mutable { handler_.getIndexStats(stats); }},
        {"getClusterStatus",
         [=]() mutable { handler_.getClusterStatus(status); }},
        {"bulkLoad", [=] { handler_.bulkLoad("t", 3, "file"); }},
        {"addIndex", [=] { handler_.addIndex("t", "d:cc"); }},
        {"dropIndex", [=] { handler_.dropIndex("t", "d:cc"); }},
        {"getIndexStatus",
         [=]() mutable { handler_.getIndexStatus(index_status, "t"); }},
        {"listServers", [=]() mutable { handler_.listServers(servers); }},
        {"listRegions", [=]() mutable { handler_.listRegions(regions, "t"); }},
        {"addServer", [=]() mutable { handler_.addServer(ref, "h:1"); }},
        {"setServerAddress", [=] { handler_.setServerAddress(2, "h:1"); }},
        {"removeServer", [=] { handler_.removeServer(2); }},
        {"moveRegion", [=]() mutable { handler_.moveRegion(op, 5, 2); }},
        {"splitRegion", [=]() mutable { handler_.splitRegion(op, 5, "m"); }},
        {"mergeRegions", [=]() mutable { handler_.mergeRegions(op, 5, 6); }},
        {"balance", [=]() mutable { handler_.balance(balanced, 0); }},
        {"decommissionServer",
         [=]() mutable { handler_.decommissionServer(steps, 2); }},
    };
  }

  // Every HBase call that reaches the router and declares TIOError alone,
  // once, with valid arguments.
  std::vector<testing::HandlerCall> EveryHBaseCall() {
    const auto put = ThroughWire(MakePut("r", {{"d:a", "1"}}));
    const auto get = ThroughWire(MakeGet("r"));
    const auto del = ThroughWire(MakeDelete("r"));
    const auto scan = ThroughWire(MakeScan("a", "b"));
    const auto desc = ThroughWire(MakeDescriptor("t", "d:a"));
    const auto name = ThroughWire(TableName("t"));
    client::TResult row;
    std::vector<client::TResult> rows;
    std::vector<bool> flags;
    std::vector<client::TDelete> failed;
    client::THRegionLocation location;
    std::vector<client::THRegionLocation> locations;
    client::TTableDescriptor descriptor;
    std::vector<client::TTableDescriptor> descriptors;
    const auto mutations = ThroughWire(RowMutations("r", {put}));
    client::TIncrement increment;
    increment.__set_row("r");
    client::TColumnIncrement column;
    column.__set_family("d");
    column.__set_qualifier("n");
    increment.__set_columns({column});
    increment = ThroughWire(increment);
    client::TAppend append;
    append.__set_row("r");
    append.__set_columns(put.columnValues);
    append = ThroughWire(append);
    return {
        {"exists", [=] { handler_.exists("t", get); }},
        {"existsAll", [=]() mutable { handler_.existsAll(flags, "t", {get}); }},
        {"get", [=]() mutable { handler_.get(row, "t", get); }},
        {"getMultiple",
         [=]() mutable { handler_.getMultiple(rows, "t", {get}); }},
        {"put", [=] { handler_.put("t", put); }},
        {"putMultiple", [=] { handler_.putMultiple("t", {put}); }},
        {"deleteSingle", [=] { handler_.deleteSingle("t", del); }},
        {"deleteMultiple",
         [=]() mutable { handler_.deleteMultiple(failed, "t", {del}); }},
        {"openScanner", [=] { handler_.openScanner("t", scan); }},
        {"getScannerResults",
         [=]() mutable { handler_.getScannerResults(rows, "t", scan, 5); }},
        {"getRegionLocation",
         [=]() mutable { handler_.getRegionLocation(location, "t", "r", 0); }},
        {"getAllRegionLocations",
         [=]() mutable { handler_.getAllRegionLocations(locations, "t"); }},
        {"getTableDescriptor",
         [=]() mutable { handler_.getTableDescriptor(descriptor, name); }},
        {"getTableDescriptors",
         [=]() mutable { handler_.getTableDescriptors(descriptors, {name}); }},
        {"createTable", [=] { handler_.createTable(desc, {}); }},
        {"deleteTable", [=] { handler_.deleteTable(name); }},
        {"isTableEnabled", [=] { handler_.isTableEnabled(name); }},
        {"isTableDisabled", [=] { handler_.isTableDisabled(name); }},
        {"checkAndPut",
         [=] { handler_.checkAndPut("t", "r", "d", "a", "1", put); }},
        {"checkAndDelete",
         [=] { handler_.checkAndDelete("t", "r", "d", "a", "", del); }},
        {"checkAndMutate",
         [=] {
           handler_.checkAndMutate("t", "r", "d", "a",
                                   client::TCompareOperator::GREATER, "1",
                                   mutations);
         }},
        {"mutateRow", [=] { handler_.mutateRow("t", mutations); }},
        {"increment",
         [=]() mutable { handler_.increment(row, "t", increment); }},
        {"append", [=]() mutable { handler_.append(row, "t", append); }},
        {"truncateTable", [=] { handler_.truncateTable(name, true); }},
        {"enableTable", [=] { handler_.enableTable(name); }},
        {"disableTable", [=] { handler_.disableTable(name); }},
    };
  }

  // A TRowMutations of `row`: each entry a TPut or a TDelete.
  static client::TRowMutations RowMutations(
      const std::string& row,
      const std::vector<std::variant<client::TPut, client::TDelete>>& parts) {
    client::TRowMutations out;
    out.__set_row(row);
    std::vector<client::TMutation> mutations(parts.size());
    for (size_t i = 0; i < parts.size(); ++i) {
      if (const auto* p = std::get_if<client::TPut>(&parts[i])) {
        mutations[i].__set_put(*p);
      } else {
        mutations[i].__set_deleteSingle(std::get<client::TDelete>(parts[i]));
      }
    }
    out.__set_mutations(mutations);
    return out;
  }

  // A table descriptor as an HBase client sends it, indexing `index`.
  static client::TTableDescriptor MakeDescriptor(const std::string& table,
                                                 const std::string& index) {
    client::TTableDescriptor desc;
    desc.__set_tableName(TableName(table));
    client::TColumnFamilyDescriptor family;
    family.__set_name("d");
    desc.__set_columns({family});
    desc.__set_attributes({{std::string(kIndexAttribute), index}});
    return desc;
  }

  // Expects `call` to throw TIllegalArgument containing `text`, without the
  // router having been called.
  void ExpectIllegal(const std::function<void()>& call,
                     const std::string& text) {
    const int before = router_->calls();
    testing::ExpectIllegal(call, text);
    EXPECT_EQ(router_->calls(), before) << text;
  }

  // Expects `call` (an HBase call) to throw TIOError "InvalidArgument: ..."
  // containing `text`, without the router having been called.
  void ExpectRefused(const std::function<void()>& call,
                     const std::string& text) {
    const int before = router_->calls();
    try {
      call();
      ADD_FAILURE() << "no TIOError for " << text;
    } catch (const rpc::TIOError& e) {
      EXPECT_THAT(e.message, HasSubstr("InvalidArgument: "));
      EXPECT_THAT(e.message, HasSubstr(text));
      EXPECT_FALSE(e.canRetry);
    }
    EXPECT_EQ(router_->calls(), before) << text;
  }

  std::shared_ptr<FakeRouter> router_;
  mutable RouterServiceHandler handler_;
};

TEST_F(RouterServiceHandlerTest, ForwardsTableCalls) {
  router_->table_info.descriptor.table_id = 4;
  router_->table_info.descriptor.name = "geo";
  client::TTableInfo info;
  handler_.createIndexedTable(info,
                              ThroughWire(MakeTableSpec("geo", {"d:cc"}, 3)));
  EXPECT_EQ(router_->spec.name, "geo");
  EXPECT_THAT(router_->spec.indexed_columns, ElementsAre("d:cc"));
  EXPECT_EQ(router_->spec.region_count, 3u);
  EXPECT_EQ(info.descriptor.tableId, 4);

  handler_.describeTable(info, "geo");
  EXPECT_EQ(router_->table, "geo");
  EXPECT_EQ(info.descriptor.name, "geo");

  router_->tables = {router_->table_info.descriptor};
  std::vector<client::TIndexedTable> tables;
  handler_.listTables(tables);
  ASSERT_EQ(tables.size(), 1u);
  EXPECT_EQ(tables[0].tableId, 4);

  handler_.deleteTable(TableName("old"));
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
  EXPECT_THAT(router_->mutations[0].deletes,
              ElementsAre(DeleteSpec{DeleteSpec::Kind::kColumns, "d:a"}));

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

TEST_F(RouterServiceHandlerTest, ForwardsIndexLifecycleCalls) {
  handler_.addIndex("cities", "d:cc");
  EXPECT_EQ(router_->table, "cities");
  EXPECT_EQ(router_->index_column, "d:cc");
  handler_.dropIndex("towns", "d:x");
  EXPECT_EQ(router_->table, "towns");
  EXPECT_EQ(router_->index_column, "d:x");
  using State = router::IndexState::State;
  router_->index_status = {{"d:a", 1, State::kReady, 4, 4, 0},
                           {"d:cc", 3, State::kBuilding, 1, 4, 1234},
                           {"d:old", 2, State::kDropping, 2, 4, 77}};
  std::vector<client::TIndexStatus> status;
  handler_.getIndexStatus(status, "cities");
  status = ThroughWire(status);
  ASSERT_EQ(status.size(), 3u);
  EXPECT_EQ(status[1].column, "d:cc");
  EXPECT_EQ(status[1].columnId, 3);
  EXPECT_EQ(status[1].state, "building");
  EXPECT_EQ(status[1].regionsDone, 1);
  EXPECT_EQ(status[1].regionsTotal, 4);
  EXPECT_EQ(status[1].rowsBackfilled, 1234);
  EXPECT_EQ(status[2].state, "dropping");
  // The client's conversion gives the router's states back.
  std::vector<router::IndexState> back;
  ASSERT_TRUE(thrift_internal::IndexStatusFromThrift(status, &back).ok());
  EXPECT_EQ(back, router_->index_status);
  status[0].state = "sideways";
  EXPECT_TRUE(
      thrift_internal::IndexStatusFromThrift(status, &back).IsCorruption());
  status[0].state = "ready";
  status[0].regionsDone = -1;
  EXPECT_TRUE(
      thrift_internal::IndexStatusFromThrift(status, &back).IsCorruption());
}

TEST_F(RouterServiceHandlerTest, ForwardsScannerCalls) {
  router_->opened_scanner = 77;
  EXPECT_EQ(
      handler_.openScanner("default:geo", ThroughWire(MakeScan("b", "k"))), 77);
  EXPECT_EQ(router_->table, "geo");
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

  // A query asking for compact rows gets them, each query its own way.
  client::TIndexQuery compact = MakeQuery({{"d:cc", "NO"}});
  compact.__set_compactRows(true);
  handler_.getByIndex(found, "geo", ThroughWire(compact));
  EXPECT_TRUE(found.rows.empty());
  ASSERT_EQ(found.compactRows.rows.size(), 1u);
  EXPECT_EQ(found.compactRows.rows[0].row, "oslo");
  EXPECT_THAT(found.compactRows.rows[0].values, ElementsAre("NO"));
  handler_.getByIndexMultiple(
      founds, "geo",
      {ThroughWire(MakeQuery({{"d:cc", "NO"}})), ThroughWire(compact)});
  ASSERT_EQ(founds.size(), 2u);
  EXPECT_EQ(testing::RowKeys(founds[0].rows),
            (std::vector<std::string>{"oslo"}));
  EXPECT_FALSE(founds[0].__isset.compactRows);
  EXPECT_TRUE(founds[1].rows.empty());
  EXPECT_EQ(founds[1].compactRows.rows.size(), 1u);
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

TEST_F(RouterServiceHandlerTest, ListsServersAndRegions) {
  router::ServerSummary up;
  up.server = {1, "127.0.0.1:9091"};
  up.reachable = true;
  up.regions = 3;
  up.regions_not_served = 1;
  up.rows = 5000000000;  // past 32 bits
  up.bytes = 123456789;
  up.replica_current = true;
  router::ServerSummary down;
  down.server = {2, "127.0.0.1:9092"};
  down.error = "Unavailable: region server 127.0.0.1:9092: refused";
  router_->server_summaries = {up, down};
  std::vector<client::TServerSummary> servers;
  handler_.listServers(servers);
  std::vector<router::ServerSummary> back;
  ASSERT_TRUE(
      thrift_internal::ServerSummariesFromThrift(ThroughWire(servers), &back)
          .ok());
  ASSERT_EQ(back.size(), 2u);
  EXPECT_EQ(back[0].server, up.server);
  EXPECT_TRUE(back[0].reachable);
  EXPECT_EQ(back[0].regions, 3u);
  EXPECT_EQ(back[0].regions_not_served, 1u);
  EXPECT_EQ(back[0].rows, 5000000000u);
  EXPECT_EQ(back[0].bytes, 123456789u);
  EXPECT_TRUE(back[0].replica_current);
  EXPECT_FALSE(back[1].reachable);
  EXPECT_EQ(back[1].error, down.error);

  router::RegionSummary region;
  region.region_id = 12;
  region.start_key = std::string("a\0b", 3);
  region.end_key = "m";
  region.server = up.server;
  region.serving = router::RegionServing::kNotServed;
  region.rows = 7;
  region.row_bytes = 700;
  region.index_bytes = 70;
  router_->region_summaries = {region};
  std::vector<client::TRegionSummary> regions;
  handler_.listRegions(regions, "cities");
  EXPECT_EQ(router_->table, "cities");
  std::vector<router::RegionSummary> regions_back;
  ASSERT_TRUE(thrift_internal::RegionSummariesFromThrift(ThroughWire(regions),
                                                         &regions_back)
                  .ok());
  ASSERT_EQ(regions_back.size(), 1u);
  EXPECT_EQ(regions_back[0].region_id, 12u);
  EXPECT_EQ(regions_back[0].start_key, region.start_key);
  EXPECT_EQ(regions_back[0].end_key, "m");
  EXPECT_EQ(regions_back[0].server, up.server);
  EXPECT_EQ(regions_back[0].serving, router::RegionServing::kNotServed);
  EXPECT_EQ(regions_back[0].rows, 7u);
  EXPECT_EQ(regions_back[0].row_bytes, 700u);
  EXPECT_EQ(regions_back[0].index_bytes, 70u);

  // Replies are checked: a negative count, an unknown state, too many.
  regions = ThroughWire(regions);  // a field is set once it was on the wire
  ASSERT_TRUE(
      thrift_internal::RegionSummariesFromThrift(regions, &regions_back).ok());
  regions[0].__set_rows(-1);
  EXPECT_TRUE(thrift_internal::RegionSummariesFromThrift(regions, &regions_back)
                  .IsCorruption());
  regions[0].__set_rows(1);
  // Declared i32 on the wire: any value arrives, and is refused.
  regions[0].__set_serving(7);
  EXPECT_TRUE(thrift_internal::RegionSummariesFromThrift(regions, &regions_back)
                  .IsCorruption());
  std::vector<client::TServerSummary> many(
      router::RouterOptions::kMaxServers + 1, servers[0]);
  EXPECT_TRUE(
      thrift_internal::ServerSummariesFromThrift(many, &back).IsCorruption());
}

TEST_F(RouterServiceHandlerTest, MembershipCallsReachTheRouter) {
  client::TServerRef added;
  handler_.addServer(added, "127.0.0.1:9093");
  EXPECT_EQ(router_->server_address, "127.0.0.1:9093");
  router::ServerRef back;
  ASSERT_TRUE(
      thrift_internal::ServerFromThrift(ThroughWire(added), "server", &back)
          .ok());
  EXPECT_EQ(back, (router::ServerRef{7, "127.0.0.1:9093"}));
  handler_.setServerAddress(3, "127.0.0.1:9094");
  EXPECT_EQ(router_->server_id, 3u);
  EXPECT_EQ(router_->server_address, "127.0.0.1:9094");
  handler_.removeServer(4);
  EXPECT_EQ(router_->server_id, 4u);
  // Ids start at 1: a negative or zero id never reaches the router.
  ExpectIllegal([&] { handler_.removeServer(-1); }, "serverId -1");
  ExpectIllegal([&] { handler_.setServerAddress(0, "h:1"); }, "serverId 0");
}

TEST_F(RouterServiceHandlerTest, RegionOperationsReachTheRouter) {
  router::RegionOpResult done;
  done.regions = {
      {RegionDescriptor{21, {}, "", "m"}, router::ServerRef{2, "h:2"}},
      {RegionDescriptor{22, {}, "m", ""}, router::ServerRef{2, "h:2"}}};
  done.rows_copied = 5000000000;  // past 32 bits
  done.bytes_copied = 7;
  done.catch_up_rounds = 3;
  done.switch_micros = 1500;
  done.switched_micros = 80000;
  done.total_micros = 90000;
  router_->region_op_result = done;
  auto expect_done = [&](const client::TRegionOpResult& wire) {
    router::RegionOpResult back;
    ASSERT_TRUE(
        thrift_internal::RegionOpResultFromThrift(ThroughWire(wire), "r", &back)
            .ok());
    ASSERT_EQ(back.regions.size(), 2u);
    EXPECT_EQ(back.regions[1].region.region_id, 22u);
    EXPECT_EQ(back.regions[1].region.start_key, "m");
    EXPECT_EQ(back.regions[1].server, (router::ServerRef{2, "h:2"}));
    EXPECT_EQ(back.rows_copied, 5000000000u);
    EXPECT_EQ(back.bytes_copied, 7u);
    EXPECT_EQ(back.catch_up_rounds, 3u);
    EXPECT_EQ(back.switch_micros, 1500u);
    EXPECT_EQ(back.total_micros, 90000u);
    EXPECT_EQ(back.switched_micros, 80000u);
  };
  client::TRegionOpResult wire;
  handler_.moveRegion(wire, 5, 2);
  EXPECT_EQ(router_->region_op, "move");
  EXPECT_EQ(router_->region_a, 5u);
  EXPECT_EQ(router_->move_to, 2u);
  expect_done(wire);
  handler_.splitRegion(wire, 6, std::string("k\0", 2));
  EXPECT_EQ(router_->region_op, "split");
  EXPECT_EQ(router_->region_a, 6u);
  EXPECT_EQ(router_->split_key,
            std::optional<std::string>(std::string("k\0", 2)));
  // An empty split row asks for the median (row keys are never empty).
  handler_.splitRegion(wire, 6, "");
  EXPECT_EQ(router_->split_key, std::nullopt);
  handler_.mergeRegions(wire, 8, 9);
  EXPECT_EQ(router_->region_op, "merge");
  EXPECT_EQ(router_->region_a, 8u);
  EXPECT_EQ(router_->region_b, 9u);
  expect_done(wire);

  router::BalanceReport report;
  router::BalanceReport::Step split;
  split.kind = router::BalanceReport::Step::Kind::kSplit;
  split.region_id = 5;
  split.from = split.to = {1, "h:1"};
  split.result = done;
  router::BalanceReport::Step move = split;
  move.kind = router::BalanceReport::Step::Kind::kMove;
  move.to = {3, "h:3"};
  report.steps = {split, move};
  report.stopped = "the limit of 2 operations per run was reached";
  report.failed = true;  // not so, but it must travel
  router_->balance_report = report;
  client::TBalanceReport balanced;
  handler_.balance(balanced, 2);
  EXPECT_EQ(router_->balance_max, 2u);
  router::BalanceReport back;
  ASSERT_TRUE(
      thrift_internal::BalanceReportFromThrift(ThroughWire(balanced), &back)
          .ok());
  ASSERT_EQ(back.steps.size(), 2u);
  EXPECT_EQ(back.steps[0].kind, router::BalanceReport::Step::Kind::kSplit);
  EXPECT_EQ(back.steps[1].kind, router::BalanceReport::Step::Kind::kMove);
  EXPECT_EQ(back.steps[1].to, (router::ServerRef{3, "h:3"}));
  EXPECT_EQ(back.steps[1].result.rows_copied, 5000000000u);
  EXPECT_FALSE(back.balanced);
  EXPECT_EQ(back.stopped, report.stopped);
  EXPECT_TRUE(back.failed);
  std::vector<client::TBalanceStep> drained;
  handler_.decommissionServer(drained, 4);
  EXPECT_EQ(router_->region_op, "decommission");
  EXPECT_EQ(router_->move_to, 4u);
  EXPECT_EQ(drained.size(), 2u);

  // Arguments are checked before the router is asked.
  router_->region_op.clear();
  ExpectIllegal([&] { handler_.moveRegion(wire, -5, 2); }, "regionId");
  ExpectIllegal([&] { handler_.moveRegion(wire, 5, 0); }, "serverId 0");
  ExpectIllegal([&] { handler_.mergeRegions(wire, 5, -1); }, "regionB");
  ExpectIllegal([&] { handler_.balance(balanced, -1); }, "maxOperations -1");
  ExpectIllegal([&] { handler_.balance(balanced, 1001); }, "maxOperations");
  ExpectIllegal([&] { handler_.decommissionServer(drained, -2); },
                "serverId -2");
  EXPECT_EQ(router_->region_op, "");
}

// What a client takes from a router: an operation makes one or two
// regions; counts are not negative; a step has a known kind.
TEST_F(RouterServiceHandlerTest, HostileRegionOperationRepliesAreCorruption) {
  router::RegionOpResult done;
  done.regions = {
      {RegionDescriptor{21, {}, "", ""}, router::ServerRef{2, "h:2"}}};
  client::TRegionOpResult good;
  ASSERT_TRUE(thrift_internal::RegionOpResultToThrift(done, &good).ok());
  good = ThroughWire(good);  // a field is set once it was on the wire
  router::RegionOpResult back;
  const Status good_back =
      thrift_internal::RegionOpResultFromThrift(good, "r", &back);
  ASSERT_TRUE(good_back.ok()) << good_back.ToString();
  client::TRegionOpResult bad = good;
  bad.regions.clear();
  EXPECT_TRUE(thrift_internal::RegionOpResultFromThrift(bad, "r", &back)
                  .IsCorruption());
  bad.regions.assign(3, good.regions[0]);
  EXPECT_TRUE(thrift_internal::RegionOpResultFromThrift(bad, "r", &back)
                  .IsCorruption());
  bad = good;
  bad.__set_rowsCopied(-1);
  EXPECT_TRUE(thrift_internal::RegionOpResultFromThrift(bad, "r", &back)
                  .IsCorruption());
  bad = good;
  bad.regions[0].__isset.server = false;
  EXPECT_TRUE(thrift_internal::RegionOpResultFromThrift(bad, "r", &back)
                  .IsCorruption());

  router::BalanceReport::Step step;
  step.region_id = 21;
  step.from = {1, "h:1"};
  step.to = {2, "h:2"};
  step.result = done;
  std::vector<client::TBalanceStep> steps;
  ASSERT_TRUE(thrift_internal::BalanceStepsToThrift({step}, &steps).ok());
  steps = ThroughWire(steps);
  std::vector<router::BalanceReport::Step> steps_back;
  ASSERT_TRUE(
      thrift_internal::BalanceStepsFromThrift(steps, "s", &steps_back).ok());
  // Declared i32 on the wire: any value arrives, and is refused.
  steps[0].__set_kind(9);
  EXPECT_TRUE(thrift_internal::BalanceStepsFromThrift(steps, "s", &steps_back)
                  .IsCorruption());
  steps[0].__set_kind(client::TBalanceStepKind::MOVE);  // a valid kind again
  steps[0].__set_regionId(-3);
  EXPECT_TRUE(thrift_internal::BalanceStepsFromThrift(steps, "s", &steps_back)
                  .IsCorruption());
  steps[0].__set_regionId(3);
  steps[0].__isset.result = false;
  EXPECT_TRUE(thrift_internal::BalanceStepsFromThrift(steps, "s", &steps_back)
                  .IsCorruption());
}

TEST_F(RouterServiceHandlerTest, EveryOwnCallMapsEveryStatusCode) {
  // Calls whose Router method returns no Status cannot fail this way.
  const std::set<std::string> cannot_fail = {"listTables", "getIndexStats",
                                             "getClusterStatus", "listServers"};
  std::vector<testing::HandlerCall> calls;
  for (auto& call : EveryOwnCall()) {
    if (!cannot_fail.count(call.first)) calls.push_back(std::move(call));
  }
  for (const Status& failure : testing::EveryFailure()) {
    router_->FailWith(failure);
    testing::ExpectEveryCallFailsWith(calls, failure);
  }
}

// HBase's calls declare TIOError alone: every failure is one, its message
// the status with its code name, canRetry set exactly for Unavailable.
TEST_F(RouterServiceHandlerTest, EveryHBaseCallAnswersEveryFailureAsTIOError) {
  router_->table_info.regions = {router::RegionLocation{
      RegionDescriptor{5, {}, "", ""}, router::ServerRef{1, "127.0.0.1:9091"}}};
  const std::vector<testing::HandlerCall> calls = EveryHBaseCall();
  for (const auto& [name, call] : calls) {
    SCOPED_TRACE(name);
    EXPECT_NO_THROW(call());
  }
  for (const Status& failure : testing::EveryFailure()) {
    router_->FailWith(failure);
    for (const auto& [name, call] : calls) {
      SCOPED_TRACE(name + " with " + failure.ToString());
      // A missing table is left out of the answer, not an error
      // (GetTableDescriptorsLeavesOutMissingTables).
      if (name == "getTableDescriptors" && failure.IsNotFound()) continue;
      try {
        call();
        ADD_FAILURE() << "nothing thrown";
      } catch (const rpc::TIOError& e) {
        EXPECT_EQ(e.message, failure.ToString());
        EXPECT_EQ(e.__isset.canRetry, true);
        EXPECT_EQ(e.canRetry, failure.code() == Status::Code::kUnavailable);
      }
    }
  }
}

TEST_F(RouterServiceHandlerTest, ExceptionsFromBelowBecomeTIOError) {
  router_->ThrowOnCall(true);
  testing::ExpectEveryCallThrowsTIOError(EveryOwnCall(), "router exploded");
  testing::ExpectEveryCallThrowsTIOError(EveryHBaseCall(), "router exploded");
}

TEST_F(RouterServiceHandlerTest, BadArgumentsNeverReachTheRouter) {
  client::TPut no_row = MakePut("r", {{"d:a", "1"}});
  no_row.__isset.row = false;
  ExpectRefused([&] { handler_.put("t", no_row); }, "tput.row is missing");
  ExpectRefused(
      [&] {
        handler_.putMultiple(
            "t", {ThroughWire(MakePut("a", {{"d:a", "1"}})), no_row});
      },
      "tputs[1].row is missing");
  ExpectRefused([&] { handler_.deleteSingle("t", client::TDelete()); },
                "tdelete.row is missing");
  std::vector<client::TDelete> failed;
  ExpectRefused(
      [&] { handler_.deleteMultiple(failed, "t", {client::TDelete()}); },
      "tdeletes[0].row is missing");
  client::TResult row;
  ExpectRefused([&] { handler_.get(row, "t", client::TGet()); },
                "tget.row is missing");
  std::vector<client::TResult> rows;
  ExpectRefused([&] { handler_.getMultiple(rows, "t", {client::TGet()}); },
                "tgets[0].row is missing");
  ExpectIllegal([&] { handler_.bulkLoad("t", -1, "file"); },
                "regionId is negative (-1)");
  ExpectIllegal([&] { handler_.getScannerRows(rows, 1, -1, 0); },
                "numRows is negative (-1)");
  client::TTableInfo info;
  ExpectIllegal(
      [&] { handler_.createIndexedTable(info, client::TTableSpec()); },
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

// HBase features bloomroute does not have are refused naming the field and
// the feature. Nothing reaches the router.
TEST_F(RouterServiceHandlerTest, UnsupportedHBaseFeaturesAreRefusedByName) {
  client::TResult row;
  auto get = [&](client::TGet g) { handler_.get(row, "t", ThroughWire(g)); };
  client::TGet versions = MakeGet("r");
  versions.__set_maxVersions(3);
  ExpectRefused([&] { get(versions); },
                "tget.maxVersions 3: more than one version per cell is not "
                "supported");
  client::TGet timeline = MakeGet("r");
  timeline.__set_consistency(client::TConsistency::TIMELINE);
  ExpectRefused([&] { get(timeline); }, "TIMELINE consistency");
  client::TGet labels = MakeGet("r");
  labels.authorizations.__set_labels({"secret"});
  labels.__isset.authorizations = true;
  ExpectRefused([&] { get(labels); }, "visibility labels is not supported");
  client::TGet stamped = MakeGet("r");
  stamped.__set_timestamp(-5);
  ExpectRefused([&] { get(stamped); }, "tget.timestamp -5 is negative");

  // A reversed scan is served: HBase's startRow (the largest key,
  // inclusive) and stopRow (exclusive) become the range [stop + 0, start
  // + 0) read downward.
  client::TScan reversed = MakeScan("k", "c");
  reversed.__set_reversed(true);
  handler_.openScanner("t", ThroughWire(reversed));
  EXPECT_TRUE(router_->scan.reversed);
  EXPECT_EQ(router_->scan.start_row, std::string("c\0", 2));
  EXPECT_EQ(router_->scan.stop_row, std::string("k\0", 2));
  client::TScan ranged = MakeScan();
  client::TTimeRange range;
  range.__set_minStamp(7);
  range.__set_maxStamp(3);
  ranged.__set_timeRange(range);
  ExpectRefused([&] { handler_.openScanner("t", ThroughWire(ranged)); },
                "tscan.timeRange: minStamp 7 is above maxStamp 3");

  client::TPut put = MakePut("r", {{"d:a", "1"}});
  put.columnValues[0].__set_timestamp(-7);
  ExpectRefused([&] { handler_.put("t", ThroughWire(put)); },
                "tput.columnValues[0].timestamp -7 is negative");
  client::TPut tagged = MakePut("r", {{"d:a", "1"}});
  tagged.columnValues[0].__set_tags("t");
  ExpectRefused([&] { handler_.put("t", ThroughWire(tagged)); },
                "cell tags is not supported");
  client::TDelete version = MakeDelete("r", {"d:a"});
  version.__set_deleteType(client::TDeleteType::DELETE_FAMILY_VERSION);
  ExpectRefused([&] { handler_.deleteSingle("t", ThroughWire(version)); },
                "DELETE_FAMILY_VERSION");
  client::TDelete labelled = MakeDelete("r", {"d:a"});
  labelled.cellVisibility.__set_expression("secret");
  labelled.__isset.cellVisibility = true;
  ExpectRefused([&] { handler_.deleteSingle("t", ThroughWire(labelled)); },
                "tdelete.cellVisibility: visibility labels is not supported");
  // Namespaces are real (no longer refused): "ns:t" reaches the router as
  // that table.
  handler_.put("ns:t", ThroughWire(MakePut("r", {{"d:a", "1"}})));
  EXPECT_EQ(router_->table, "ns:t");

  client::TTableDescriptor desc = MakeDescriptor("t", "d:a");
  desc.columns[0].__set_maxVersions(3);
  ExpectRefused([&] { handler_.createTable(ThroughWire(desc), {}); },
                "desc.columns[0].maxVersions 3");
  desc = MakeDescriptor("t", "d:a,,d:b");
  ExpectRefused([&] { handler_.createTable(ThroughWire(desc), {}); },
                "desc.attributes: bloomroute.index: entry 2 is empty");
}

// The atomic calls check their arguments in full before reaching the router.
TEST_F(RouterServiceHandlerTest, AtomicCallsCheckArgumentsFirst) {
  const auto put = ThroughWire(MakePut("r", {{"d:a", "1"}}));
  const auto del = ThroughWire(MakeDelete("r", {"d:a"}));
  ExpectRefused([&] { handler_.checkAndPut("t", "q", "d", "a", "1", put); },
                "tput.row 'r' is not the row of the call");
  ExpectRefused([&] { handler_.checkAndPut("t", "r", "", "a", "1", put); },
                "family is empty");
  ExpectRefused([&] { handler_.checkAndDelete("t", "q", "d", "a", "", del); },
                "tdelete.row 'r' is not the row of the call");
  client::TRowMutations mutations = RowMutations("r", {put});
  ExpectRefused(
      [&] {
        handler_.checkAndMutate("t", "r", "d", "a", 9, "1",
                                ThroughWire(mutations));
      },
      "compareOperator 9 is not a TCompareOperator");
  // NO_OP compares nothing: HBase fails it ("Unknown Compare op") whenever
  // there is a value to compare.
  ExpectRefused(
      [&] {
        handler_.checkAndMutate("t", "r", "d", "a",
                                client::TCompareOperator::NO_OP, "1",
                                ThroughWire(mutations));
      },
      "compareOperator NO_OP");
  client::TMutation both;
  both.__set_put(put);
  both.__set_deleteSingle(del);
  mutations.__set_mutations({both});
  ExpectRefused([&] { handler_.mutateRow("t", ThroughWire(mutations)); },
                "trowMutations.mutations[0] must have exactly one of put");
  client::TResult row;
  ExpectRefused([&] { handler_.increment(row, "t", client::TIncrement()); },
                "tincrement.row is missing");
  ExpectRefused([&] { handler_.append(row, "t", client::TAppend()); },
                "tappend.row is missing");
}

// checkAndPut / checkAndDelete: EQUAL on the column; an empty (or unset)
// value checks that the column is absent or empty.
TEST_F(RouterServiceHandlerTest, CheckAndPutAndDeleteReachTheRouter) {
  const auto put = ThroughWire(MakePut("r", {{"d:b", "2"}}));
  EXPECT_TRUE(handler_.checkAndPut("geo", "r", "d", "a", "1", put));
  EXPECT_EQ(router_->table, "geo");
  EXPECT_EQ(router_->atomic_row, "r");
  EXPECT_EQ(router_->condition,
            (RowCondition{"d:a", CompareOp::kEqual, std::string("1")}));
  ASSERT_EQ(router_->mutations.size(), 1u);
  EXPECT_EQ(router_->mutations[0].kind, Mutation::Kind::kPut);
  EXPECT_EQ(router_->mutations[0].cells[0].column, "d:b");
  router_->check_result = false;
  EXPECT_FALSE(handler_.checkAndPut("geo", "r", "d", "a", "", put));
  EXPECT_EQ(router_->condition,
            (RowCondition{"d:a", CompareOp::kEqual, std::nullopt}));

  router_->check_result = true;
  EXPECT_TRUE(handler_.checkAndDelete("geo", "r", "d", "a", "x",
                                      ThroughWire(MakeDelete("r", {"d:b"}))));
  EXPECT_EQ(router_->condition,
            (RowCondition{"d:a", CompareOp::kEqual, std::string("x")}));
  ASSERT_EQ(router_->mutations.size(), 1u);
  EXPECT_EQ(router_->mutations[0].kind, Mutation::Kind::kDelete);
  // A TDelete column is a DELETE_COLUMNS spec (TDelete's default type).
  EXPECT_THAT(router_->mutations[0].deletes,
              ElementsAre(DeleteSpec{DeleteSpec::Kind::kColumns, "d:b"}));
}

// Every TCompareOperator but NO_OP is the CompareOp of the same name (the
// GIVEN value is compared with the cell's: model/atomic_ops.h).
TEST_F(RouterServiceHandlerTest, CheckAndMutateMapsEveryOperator) {
  const std::vector<std::pair<client::TCompareOperator::type, CompareOp>>
      operators = {
          {client::TCompareOperator::LESS, CompareOp::kLess},
          {client::TCompareOperator::LESS_OR_EQUAL, CompareOp::kLessOrEqual},
          {client::TCompareOperator::EQUAL, CompareOp::kEqual},
          {client::TCompareOperator::NOT_EQUAL, CompareOp::kNotEqual},
          {client::TCompareOperator::GREATER_OR_EQUAL,
           CompareOp::kGreaterOrEqual},
          {client::TCompareOperator::GREATER, CompareOp::kGreater}};
  const auto mutations = ThroughWire(
      RowMutations("r", {MakePut("r", {{"d:b", "2"}}), MakeDelete("r")}));
  for (const auto& [op, want] : operators) {
    SCOPED_TRACE(op);
    EXPECT_TRUE(
        handler_.checkAndMutate("geo", "r", "d", "a", op, "5", mutations));
    EXPECT_EQ(router_->condition,
              (RowCondition{"d:a", want, std::string("5")}));
    ASSERT_EQ(router_->mutations.size(), 2u);
    EXPECT_EQ(router_->mutations[1].kind, Mutation::Kind::kDelete);
  }
  // NO_OP without a value: HBase's rule for a missing value (absent or
  // empty), which every operator but NOT_EQUAL shares.
  router_->check_result = false;
  EXPECT_FALSE(handler_.checkAndMutate(
      "geo", "r", "d", "a", client::TCompareOperator::NO_OP, "", mutations));
  EXPECT_EQ(router_->condition,
            (RowCondition{"d:a", CompareOp::kEqual, std::nullopt}));
}

TEST_F(RouterServiceHandlerTest, MutateRowReachesTheRouter) {
  handler_.mutateRow(
      "geo", ThroughWire(RowMutations("r", {MakePut("r", {{"d:b", "2"}}),
                                            MakeDelete("r", {"d:a"})})));
  EXPECT_EQ(router_->table, "geo");
  EXPECT_EQ(router_->atomic_row, "r");
  ASSERT_EQ(router_->mutations.size(), 2u);
  EXPECT_EQ(router_->mutations[0].kind, Mutation::Kind::kPut);
  EXPECT_EQ(router_->mutations[1].kind, Mutation::Kind::kDelete);
}

// increment / append return the new cells unless returnResults is false
// (unset is HBase's default, true).
TEST_F(RouterServiceHandlerTest, IncrementAndAppendReturnTheNewCells) {
  router_->row_result = Row{"r", {{"d:n", EncodeLong(5)}}};
  client::TIncrement increment;
  increment.__set_row("r");
  client::TColumnIncrement column;
  column.__set_family("d");
  column.__set_qualifier("n");
  column.__set_amount(3);
  increment.__set_columns({column});
  client::TResult result;
  handler_.increment(result, "geo", ThroughWire(increment));
  EXPECT_EQ(router_->atomic_row, "r");
  ASSERT_EQ(router_->mutations.size(), 1u);
  EXPECT_THAT(router_->mutations[0].increments,
              ElementsAre(ColumnIncrement{"d:n", 3}));
  EXPECT_EQ(result.row, "r");
  ASSERT_EQ(result.columnValues.size(), 1u);
  EXPECT_EQ(result.columnValues[0].qualifier, "n");
  EXPECT_EQ(result.columnValues[0].value, EncodeLong(5));
  increment.__set_returnResults(false);
  handler_.increment(result, "geo", ThroughWire(increment));
  EXPECT_FALSE(result.__isset.row);
  EXPECT_TRUE(result.columnValues.empty());

  router_->row_result = Row{"r", {{"d:s", "ab"}}};
  client::TAppend append;
  append.__set_row("r");
  append.__set_columns(MakePut("r", {{"d:s", "b"}}).columnValues);
  handler_.append(result, "geo", ThroughWire(append));
  ASSERT_EQ(router_->mutations.size(), 1u);
  EXPECT_EQ(router_->mutations[0].cells[0].value, "b");
  ASSERT_EQ(result.columnValues.size(), 1u);
  EXPECT_EQ(result.columnValues[0].value, "ab");
  append.__set_returnResults(false);
  handler_.append(result, "geo", ThroughWire(append));
  EXPECT_TRUE(result.columnValues.empty());
}

// Table state: enable / disable / truncate reach the router; deleteTable
// is HBase's (the table must be disabled).
TEST_F(RouterServiceHandlerTest, TableStateCallsReachTheRouter) {
  handler_.disableTable(TableName("geo"));
  EXPECT_EQ(router_->table, "geo");
  handler_.enableTable(TableName("old"));
  EXPECT_EQ(router_->table, "old");
  handler_.truncateTable(TableName("geo"), true);
  EXPECT_TRUE(router_->preserve_splits);
  handler_.truncateTable(TableName("geo"), false);
  EXPECT_FALSE(router_->preserve_splits);
  router_->table_info.enabled = false;
  router_->tables = {TableDescriptor{1, "geo", {}}};
  EXPECT_FALSE(handler_.isTableEnabled(TableName("geo")));
  EXPECT_TRUE(handler_.isTableDisabled(TableName("geo")));
  EXPECT_FALSE(handler_.isTableAvailable(TableName("geo")));
  router_->table_info.enabled = true;
  EXPECT_TRUE(handler_.isTableAvailable(TableName("geo")));
  router_->FailWith(Status::NotFound("table 'nope'"));
  EXPECT_FALSE(handler_.isTableAvailable(TableName("nope")));
  testing::ExpectIOError([&] { handler_.isTableEnabled(TableName("nope")); },
                         "NotFound: table 'nope'");
  router_->FailWith(Status::OK());
  handler_.deleteTable(TableName("geo"));
  EXPECT_TRUE(router_->deleted_if_disabled);
}

// createTable passes the families and every attribute to the router, which
// reads the indexed columns from bloomroute.index; without split keys it
// makes one region (HBase's rule).
TEST_F(RouterServiceHandlerTest, CreateTableReadsTheIndexAttribute) {
  handler_.createTable(ThroughWire(MakeDescriptor("geo", "d:cc,e:f")), {});
  EXPECT_EQ(router_->spec.name, "geo");
  EXPECT_THAT(router_->spec.families, ElementsAre("d"));
  EXPECT_EQ(router_->spec.attributes.at(std::string(kIndexAttribute)),
            "d:cc,e:f");
  EXPECT_TRUE(router_->spec.split_keys.empty());
  EXPECT_EQ(router_->spec.region_count, 1u);
  client::TTableDescriptor plain = MakeDescriptor("geo", "");
  plain.attributes.clear();
  handler_.createTable(ThroughWire(plain), {"g", "p"});
  EXPECT_TRUE(router_->spec.attributes.empty());
  EXPECT_THAT(router_->spec.split_keys, ElementsAre("g", "p"));
  EXPECT_EQ(router_->spec.region_count, 0u);
}

TEST_F(RouterServiceHandlerTest, TableMetadataComesFromTheCatalog) {
  router_->table_info.descriptor = {7, "geo", {{1, "d:cc"}, {2, "e:f"}}};
  router_->table_info.regions = {
      {RegionDescriptor{11, {}, "", "m"}, router::ServerRef{1, "10.0.0.1:91"}},
      {RegionDescriptor{12, {}, "m", ""}, router::ServerRef{2, "[::1]:92"}}};
  client::TTableDescriptor desc;
  handler_.getTableDescriptor(desc, TableName("geo"));
  EXPECT_EQ(router_->table, "geo");
  EXPECT_EQ(desc.tableName.qualifier, "geo");
  EXPECT_EQ(desc.tableName.ns, "default");
  EXPECT_EQ(desc.attributes.at(std::string(kIndexAttribute)), "d:cc,e:f");
  ASSERT_EQ(desc.columns.size(), 2u);
  EXPECT_EQ(desc.columns[0].name, "d");
  EXPECT_EQ(desc.columns[1].name, "e");

  client::THRegionLocation location;
  // The router locates the row (the fake answers with the first region).
  handler_.getRegionLocation(location, "geo", "q", false);
  EXPECT_EQ(router_->located_row, "q");
  EXPECT_EQ(location.regionInfo.regionId, 11);
  EXPECT_EQ(location.regionInfo.endKey, "m");
  EXPECT_EQ(location.serverName.hostName, "10.0.0.1");
  EXPECT_EQ(location.serverName.port, 91);
  std::vector<client::THRegionLocation> locations;
  handler_.getAllRegionLocations(locations, "default:geo");
  ASSERT_EQ(locations.size(), 2u);
  EXPECT_EQ(locations[0].serverName.hostName, "10.0.0.1");
  EXPECT_EQ(locations[0].regionInfo.tableName, "geo");

  router_->tables = {router_->table_info.descriptor};
  EXPECT_TRUE(handler_.tableExists(TableName("geo")));
  EXPECT_FALSE(handler_.tableExists(TableName("other")));
  EXPECT_TRUE(handler_.isTableAvailable(TableName("geo")));
  EXPECT_TRUE(handler_.isTableEnabled(TableName("geo")));
  EXPECT_FALSE(handler_.isTableDisabled(TableName("geo")));
  EXPECT_EQ(handler_.getThriftServerType(), client::TThriftServerType::TWO);
}

// HBase's tableExists answers for any name: hbase:meta exists (the
// router's catalog plays its part), a table of a namespace that does not
// exist here does not.
TEST_F(RouterServiceHandlerTest, TableExistsAnswersForOtherNamespaces) {
  client::TTableName meta = TableName("meta");
  meta.__set_ns("hbase");
  EXPECT_TRUE(handler_.tableExists(ThroughWire(meta)));
  client::TTableName other = TableName("geo");
  other.__set_ns("analytics");
  EXPECT_FALSE(handler_.tableExists(ThroughWire(other)));
}

// HBase's getTableDescriptors (Admin.listTableDescriptors) leaves out the
// tables that do not exist instead of failing the call.
TEST_F(RouterServiceHandlerTest, GetTableDescriptorsLeavesOutMissingTables) {
  std::vector<client::TTableDescriptor> out;
  handler_.getTableDescriptors(out, {TableName("geo")});
  ASSERT_EQ(out.size(), 1u);
  router_->FailWith(Status::NotFound("table geo does not exist"));
  handler_.getTableDescriptors(out, {TableName("geo"), TableName("other")});
  EXPECT_TRUE(out.empty());
  router_->FailWith(Status::Unavailable("server down"));
  EXPECT_THROW(handler_.getTableDescriptors(out, {TableName("geo")}),
               rpc::TIOError);
}

TEST_F(RouterServiceHandlerTest, ExistsAndExistenceOnlyGets) {
  router_->get_result = {Row{"a", {{"d:a", "1"}}}, std::nullopt};
  std::vector<bool> found;
  handler_.existsAll(found, "t",
                     {ThroughWire(MakeGet("a")), ThroughWire(MakeGet("b"))});
  EXPECT_EQ(found, (std::vector<bool>{true, false}));
  router_->get_result = {Row{"a", {{"d:a", "1"}}}};
  EXPECT_TRUE(handler_.exists("t", ThroughWire(MakeGet("a"))));
  client::TGet only = MakeGet("a");
  only.__set_existence_only(true);
  client::TResult row;
  handler_.get(row, "t", ThroughWire(only));
  EXPECT_EQ(row.row, "a");
  EXPECT_TRUE(row.columnValues.empty());
}

// TScan.limit caps the rows a scanner returns across its calls; a repeated
// callSeq gets its rows back.
TEST_F(RouterServiceHandlerTest, ScanLimitCapsTheScannersRows) {
  router_->opened_scanner = 5;
  client::TScan scan = MakeScan();
  scan.__set_limit(3);
  ASSERT_EQ(handler_.openScanner("t", ThroughWire(scan)), 5);
  router_->scanner_rows = {Row{"a", {}}, Row{"b", {}}};
  std::vector<client::TResult> rows;
  handler_.getScannerRows(rows, 5, 100, 1);
  EXPECT_EQ(router_->max_rows, 3u);
  handler_.getScannerRows(rows, 5, 100, 1);  // a retry of the same call
  EXPECT_EQ(router_->max_rows, 3u);
  handler_.getScannerRows(rows, 5, 100, 2);
  EXPECT_EQ(router_->max_rows, 1u);
  router_->scanner_rows = {Row{"c", {}}};
  handler_.getScannerRows(rows, 5, 100, 3);
  const int calls = router_->calls();
  handler_.getScannerRows(rows, 5, 100, 4);  // the limit is used up
  EXPECT_TRUE(rows.empty());
  EXPECT_EQ(router_->calls(), calls);
  router_->opened_scanner = int64_t{1} << 40;  // does not fit i32
  testing::ExpectIOError([&] { handler_.openScanner("t", ThroughWire(scan)); },
                         "does not fit the wire's i32");
}

}  // namespace
}  // namespace bloomroute
