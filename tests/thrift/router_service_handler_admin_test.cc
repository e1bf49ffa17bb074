// RouterServiceHandler's HBase cluster calls (router_service_handler_admin.cc):
// tables by pattern, isTableAvailableWithSplit, the online slow log and the
// cluster id. Each failed before they were served (the generated interface
// had no such method: Thrift's unknown-method error on the wire).
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <functional>
#include <memory>
#include <set>
#include <string>
#include <vector>

#include "common/java_regex.h"
#include "tests/integration/router_client.h"
#include "tests/thrift/fake_router.h"
#include "tests/thrift/handler_test_util.h"
#include "thrift/router_service_handler.h"

namespace bloomroute {
namespace {

namespace client = rpc::client;
using ::bloomroute::testing::TableName;
using ::testing::ElementsAre;
using ::testing::HasSubstr;

class RouterServiceHandlerAdminTest : public ::testing::Test {
 protected:
  RouterServiceHandlerAdminTest()
      : router_(std::make_shared<FakeRouter>()),
        slow_calls_(std::make_shared<SlowCallLog>()),
        handler_(router_, router::kLocalScannerClient,
                 {slow_calls_, nullptr, nullptr}) {
    router_->tables = {{1, "geo", {}}, {2, "geo_eu", {}}, {3, "cities", {}}};
  }

  std::vector<std::string> Names(const std::string& regex) {
    std::vector<client::TTableName> names;
    handler_.getTableNamesByPattern(names, regex, false);
    std::vector<std::string> out;
    for (const client::TTableName& n : names) {
      EXPECT_EQ(n.ns, "default");
      out.push_back(n.qualifier);
    }
    return out;
  }

  // Expects the call to throw TIOError "InvalidArgument: ..." with `text`.
  static void ExpectRefused(const std::function<void()>& call,
                            const std::string& text) {
    try {
      call();
      ADD_FAILURE() << "no TIOError for " << text;
    } catch (const rpc::TIOError& e) {
      EXPECT_THAT(e.message, HasSubstr("InvalidArgument: "));
      EXPECT_THAT(e.message, HasSubstr(text));
    }
  }

  static SlowCall Call(const std::string& method, const std::string& table,
                       const std::string& user, const std::string& client) {
    SlowCall c;
    c.start_ms = 1700000000000;
    c.duration_ms = 1500;
    c.reply_bytes = 321;
    c.method = method;
    c.table = table;
    c.user = user;
    c.client = client;
    c.outcome = "ok";
    c.servers_asked = 2;
    c.rows = 7;
    return c;
  }

  std::vector<std::string> SlowMethods(const client::TLogQueryFilter& filter) {
    std::vector<client::TOnlineLogRecord> records;
    handler_.getSlowLogResponses(records, {Server()}, filter);
    std::vector<std::string> out;
    for (const auto& r : records) out.push_back(r.methodName);
    return out;
  }

  static client::TServerName Server(const std::string& host = "r1") {
    client::TServerName name;
    name.__set_hostName(host);
    name.__set_port(9090);
    return name;
  }

  std::shared_ptr<FakeRouter> router_;
  std::shared_ptr<SlowCallLog> slow_calls_;
  RouterServiceHandler handler_;
};

TEST_F(RouterServiceHandlerAdminTest, PatternsMatchWholeTableNames) {
  EXPECT_THAT(Names("geo.*"), ElementsAre("geo", "geo_eu"));
  EXPECT_THAT(Names("geo"), ElementsAre("geo"));  // not a search
  EXPECT_THAT(Names("eo"), ElementsAre());
  EXPECT_THAT(Names(""), ElementsAre("geo", "geo_eu", "cities"));
  EXPECT_THAT(Names("(?:geo|cit)[a-z_]*"),
              ElementsAre("geo", "geo_eu", "cities"));
  EXPECT_THAT(Names("\\w+_\\w{2}"), ElementsAre("geo_eu"));
  std::vector<client::TTableDescriptor> descriptors;
  handler_.getTableDescriptorsByPattern(descriptors, "c.*s", true);
  ASSERT_EQ(descriptors.size(), 1u);
  EXPECT_EQ(descriptors[0].tableName.qualifier, "cities");
}

TEST_F(RouterServiceHandlerAdminTest, JavaOnlyPatternsAreRefusedByName) {
  const std::vector<std::pair<std::string, std::string>> refused = {
      {"geo*+", "possessive quantifier *+"},
      {"g++", "possessive quantifier ++"},
      {"g?+", "possessive quantifier ?+"},
      {"g{2}+", "possessive quantifier }+"},
      {"\\p{Alpha}+", "\\p{..}"},
      {"(?<name>geo)", "(?<"},
      {"(?<=g)eo", "(?<"},
      {"(?>geo)", "atomic group"},
      {"(?i)GEO", "inline flag"},
      {"\\Qgeo\\E", "\\Q"},
      {"(g)\\1", "backreference"},
      {"[a[b]]", "class inside a class"},
      {"[a&&b]", "intersection"},
      {"\\Ageo", "\\A"},
      {"g{1000}", "count above"},
      {"(geo", "does not compile"},
      {std::string(1025, 'g'), "over the 1024"},
  };
  for (const auto& [regex, text] : refused) {
    SCOPED_TRACE(regex);
    ExpectRefused(
        [&] {
          std::vector<client::TTableName> names;
          handler_.getTableNamesByPattern(names, regex, false);
        },
        text);
  }
  EXPECT_THAT(Names(std::string(1024, '.')), ElementsAre());
}

TEST_F(RouterServiceHandlerAdminTest, AvailableWithSplitComparesRegionStarts) {
  router_->table_info.descriptor = {7, "geo", {}};
  router_->table_info.regions = {
      {RegionDescriptor{1, {}, "", "m"}, router::ServerRef{1, "h:1"}},
      {RegionDescriptor{2, {}, "m", "t"}, router::ServerRef{1, "h:1"}},
      {RegionDescriptor{3, {}, "t", ""}, router::ServerRef{2, "h:2"}}};
  const client::TTableName geo = TableName("geo");
  EXPECT_TRUE(handler_.isTableAvailableWithSplit(geo, {"m", "t"}));
  EXPECT_EQ(router_->table, "geo");
  EXPECT_TRUE(handler_.isTableAvailableWithSplit(geo, {"t", "m"}));
  // As HBase's compareRegionsWithSplitKeys: the first region and those
  // starting at a split key are counted, and must be splitKeys + 1; other
  // regions (a later split) are not counted.
  EXPECT_TRUE(handler_.isTableAvailableWithSplit(geo, {"m"}));
  EXPECT_TRUE(handler_.isTableAvailableWithSplit(geo, {}));
  EXPECT_FALSE(handler_.isTableAvailableWithSplit(geo, {"m", "t", "x"}));
  EXPECT_FALSE(handler_.isTableAvailableWithSplit(geo, {"m", "u"}));
  EXPECT_FALSE(handler_.isTableAvailableWithSplit(geo, {"m", "m"}));
  router_->table_info.enabled = false;
  EXPECT_FALSE(handler_.isTableAvailableWithSplit(geo, {}));
  router_->FailWith(Status::NotFound("no table"));
  EXPECT_FALSE(handler_.isTableAvailableWithSplit(geo, {}));
  router_->FailWith(Status::Unavailable("down"));
  EXPECT_THROW(handler_.isTableAvailableWithSplit(geo, {}), rpc::TIOError);
}

TEST_F(RouterServiceHandlerAdminTest, SlowLogAnswersNewestFirstWithFields) {
  slow_calls_->Add(Call("get", "geo", "alice", "10.0.0.1:5000"));
  slow_calls_->Add(Call("putMultiple", "cities", "bob", "10.0.0.2:5000"));
  slow_calls_->Add(Call("getClusterStatus", "", "", "10.0.0.1:5001"));
  std::vector<client::TOnlineLogRecord> records;
  handler_.getSlowLogResponses(records, {Server()}, client::TLogQueryFilter());
  ASSERT_EQ(records.size(), 3u);
  EXPECT_EQ(records[0].methodName, "getClusterStatus");
  const client::TOnlineLogRecord& r = records[2];
  EXPECT_EQ(r.methodName, "get");
  EXPECT_EQ(r.startTime, 1700000000000);
  EXPECT_EQ(r.processingTime, 1500);
  EXPECT_EQ(r.queueTime, 0);
  EXPECT_EQ(r.responseSize, 321);
  EXPECT_EQ(r.clientAddress, "10.0.0.1:5000");
  EXPECT_EQ(r.serverClass, "RouterServer");
  EXPECT_EQ(r.userName, "alice");
  EXPECT_EQ(r.param, "geo");
  EXPECT_EQ(r.callDetails,
            "get table geo: asked 2 servers, returned 7 rows: ok");
  EXPECT_FALSE(r.__isset.regionName);
  // No server named: nothing, as HBase's.
  handler_.getSlowLogResponses(records, {}, client::TLogQueryFilter());
  EXPECT_TRUE(records.empty());
}

TEST_F(RouterServiceHandlerAdminTest, SlowLogFiltersAsHBase) {
  slow_calls_->Add(Call("get", "geo", "alice", "10.0.0.1:5000"));
  slow_calls_->Add(Call("put", "cities", "alice", "10.0.0.2:5000"));
  slow_calls_->Add(Call("scan", "geo", "bob", "10.0.0.2:5000"));
  client::TLogQueryFilter f;
  f.__set_tableName("geo");
  EXPECT_THAT(SlowMethods(f), ElementsAre("scan", "get"));
  f.__set_userName("alice");  // OR (HBase's default): either
  EXPECT_THAT(SlowMethods(f), ElementsAre("scan", "put", "get"));
  f.__set_filterByOperator(client::TFilterByOperator::AND);
  EXPECT_THAT(SlowMethods(f), ElementsAre("get"));
  f.__set_clientAddress("10.0.0.2:5000");
  EXPECT_THAT(SlowMethods(f), ElementsAre());
  client::TLogQueryFilter limited;
  limited.__set_limit(2);
  EXPECT_THAT(SlowMethods(limited), ElementsAre("scan", "put"));
  client::TLogQueryFilter region;
  region.__set_regionName("geo,,1.abc.");
  EXPECT_THAT(SlowMethods(region), ElementsAre());
  client::TLogQueryFilter large;
  large.__set_logType(client::TLogType::LARGE_LOG);
  EXPECT_THAT(SlowMethods(large), ElementsAre());

  client::TLogQueryFilter bad;
  bad.__set_logType(7);
  ExpectRefused([&] { SlowMethods(bad); }, "logQueryFilter.logType");
  bad = client::TLogQueryFilter();
  bad.__set_filterByOperator(5);
  ExpectRefused([&] { SlowMethods(bad); }, "logQueryFilter.filterByOperator");
  bad = client::TLogQueryFilter();
  bad.__set_limit(-1);
  ExpectRefused([&] { SlowMethods(bad); }, "logQueryFilter.limit");
}

TEST_F(RouterServiceHandlerAdminTest, ClearAnswersOneTruePerServer) {
  slow_calls_->Add(Call("get", "geo", "alice", "10.0.0.1:5000"));
  std::vector<bool> cleared;
  handler_.clearSlowLogResponses(cleared, {});
  EXPECT_TRUE(cleared.empty());
  EXPECT_EQ(slow_calls_->Newest().size(), 1u);
  handler_.clearSlowLogResponses(cleared, {Server("r1"), Server("r2")});
  EXPECT_THAT(cleared, ElementsAre(true, true));
  EXPECT_TRUE(slow_calls_->Newest().empty());
}

TEST_F(RouterServiceHandlerAdminTest, WithoutALogThereAreNoSlowCalls) {
  RouterServiceHandler bare(router_);
  std::vector<client::TOnlineLogRecord> records;
  bare.getSlowLogResponses(records, {Server()}, client::TLogQueryFilter());
  EXPECT_TRUE(records.empty());
}

TEST_F(RouterServiceHandlerAdminTest, ClusterIdIsTheRouters) {
  std::string id;
  handler_.getClusterId(id);
  EXPECT_EQ(id, router_->cluster_id);
}

}  // namespace
}  // namespace bloomroute
