#include "thrift/router_types_conversion.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <limits>
#include <string>
#include <vector>

#include "tests/integration/router_client.h"
#include "tests/thrift/wire_util.h"
#include "thrift/hbase_request_conversion.h"
#include "thrift/internal/router_client_conversion.h"

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

// InvalidArgument whose message contains `text`.
::testing::AssertionResult Rejects(const Status& s, const std::string& text) {
  if (s.IsInvalidArgument() && s.message().find(text) != std::string::npos) {
    return ::testing::AssertionSuccess();
  }
  return ::testing::AssertionFailure() << s.ToString();
}

class RouterTypesConversionTest : public ::testing::Test {};

TEST_F(RouterTypesConversionTest, TableSpecKeepsEveryFieldAndDefaults) {
  router::TableSpec spec;
  ASSERT_TRUE(
      FromThrift(ThroughWire(MakeTableSpec("geo", {"d:cc", "d:f"}, 0,
                                           {"g", std::string("m\0", 2)})),
                 &spec)
          .ok());
  EXPECT_EQ(spec.name, "geo");
  EXPECT_THAT(spec.indexed_columns, ElementsAre("d:cc", "d:f"));
  EXPECT_THAT(spec.split_keys, ElementsAre("g", std::string("m\0", 2)));
  EXPECT_EQ(spec.region_count, 0u);  // unset: one region per server

  ASSERT_TRUE(FromThrift(ThroughWire(MakeTableSpec("geo", {}, 8)), &spec).ok());
  EXPECT_EQ(spec.region_count, 8u);
  EXPECT_TRUE(spec.split_keys.empty());

  client::TTableSpec negative = ThroughWire(MakeTableSpec("geo", {}));
  negative.__set_regionCount(-3);
  EXPECT_TRUE(Rejects(FromThrift(negative, &spec),
                      "spec.regionCount is negative (-3)"));
  EXPECT_TRUE(
      Rejects(FromThrift(client::TTableSpec(), &spec), "spec.name is missing"));
}

TEST_F(RouterTypesConversionTest, PutsDeletesAndGetsBecomeRouterRequests) {
  std::vector<Mutation> m;
  ASSERT_TRUE(FromThrift(ThroughWire(std::vector<client::TPut>{
                             MakePut("r1", {{"d:a", "1"}, {"d:b", ""}}),
                             MakePut(std::string("r\0", 2), {{"d:a", "2"}})}),
                         &m)
                  .ok());
  ASSERT_EQ(m.size(), 2u);
  EXPECT_EQ(m[0].kind, Mutation::Kind::kPut);
  EXPECT_EQ(m[0].region_id, 0u);  // the router finds the region
  EXPECT_EQ(m[0].row_key, "r1");
  EXPECT_EQ(m[0].cells, (std::vector<Cell>{{"d:a", "1"}, {"d:b", ""}}));
  EXPECT_EQ(m[1].row_key, std::string("r\0", 2));

  Mutation del;
  ASSERT_TRUE(FromThrift(ThroughWire(MakeDelete("r1", {"d:a"})), &del).ok());
  EXPECT_EQ(del.kind, Mutation::Kind::kDelete);
  EXPECT_TRUE(del.columns.empty());
  EXPECT_THAT(del.deletes,
              ElementsAre(DeleteSpec{DeleteSpec::Kind::kColumns, "d:a"}));
  client::TDelete whole;
  whole.__set_row("r2");
  ASSERT_TRUE(FromThrift(ThroughWire(whole), &del).ok());
  EXPECT_TRUE(del.columns.empty());  // columns unset: the whole row

  std::vector<HBaseGet> gets;
  ASSERT_TRUE(FromThrift(ThroughWire(std::vector<client::TGet>{
                             MakeGet("a", {"d", "e:x"}), MakeGet("b")}),
                         &gets)
                  .ok());
  ASSERT_EQ(gets.size(), 2u);
  EXPECT_EQ(gets[0].request.row_key, "a");
  EXPECT_THAT(gets[0].request.columns, ElementsAre("d", "e:x"));
  EXPECT_TRUE(gets[1].request.columns.empty());
  EXPECT_FALSE(gets[1].existence_only);
}

TEST_F(RouterTypesConversionTest, MissingRowFieldsAreNamed) {
  Mutation m;
  std::vector<Mutation> batch;
  // Fields as a client that omits unset ones (not C++: it sends them all)
  // would send them.
  client::TPut no_cells;
  no_cells.__set_row("r");
  no_cells.__isset.row = true;
  EXPECT_TRUE(Rejects(FromThrift(client::TPut(), &m), "tput.row is missing"));
  EXPECT_TRUE(
      Rejects(FromThrift(no_cells, &m), "tput.columnValues is missing"));
  client::TPut half = ThroughWire(MakePut("r", {{"d:a", "1"}}));
  half.columnValues[0].__isset.value = false;
  EXPECT_TRUE(Rejects(FromThrift(
                          std::vector<client::TPut>{
                              ThroughWire(MakePut("q", {{"d:a", "1"}})), half},
                          &batch),
                      "tputs[1].columnValues[0].value is missing"));
  EXPECT_TRUE(
      Rejects(FromThrift(client::TDelete(), &m), "tdelete.row is missing"));
  client::TDelete unnamed = ThroughWire(MakeDelete("r", {"d:a", "d:b"}));
  unnamed.columns[1].__isset.family = false;
  EXPECT_TRUE(Rejects(FromThrift(std::vector<client::TDelete>{unnamed}, &batch),
                      "tdeletes[0].columns[1].family is missing"));
  HBaseGet get;
  std::vector<HBaseGet> gets;
  EXPECT_TRUE(Rejects(FromThrift(client::TGet(), &get), "tget.row is missing"));
  EXPECT_TRUE(Rejects(
      FromThrift(
          std::vector<client::TGet>{ThroughWire(MakeGet("a")), client::TGet()},
          &gets),
      "tgets[1].row is missing"));
}

TEST_F(RouterTypesConversionTest, ScanBoundsDefaultToUnbounded) {
  HBaseScan scan;
  ASSERT_TRUE(FromThrift(ThroughWire(MakeScan()), &scan).ok());
  EXPECT_EQ(scan.spec.start_row, "");
  EXPECT_EQ(scan.spec.stop_row, "");
  EXPECT_EQ(scan.limit, 0u);  // unset: every row
  client::TScan bounded = MakeScan("b", "k");
  bounded.__set_columns(testing::Columns({"d"}));
  bounded.__set_limit(7);
  ASSERT_TRUE(FromThrift(ThroughWire(bounded), &scan).ok());
  EXPECT_EQ(scan.spec.start_row, "b");
  EXPECT_EQ(scan.spec.stop_row, "k");
  EXPECT_THAT(scan.spec.columns, ElementsAre("d"));
  EXPECT_EQ(scan.limit, 7u);
}

TEST_F(RouterTypesConversionTest, IndexQueryOptionsAndTheirDefaults) {
  router::LookupSpec spec;
  client::TIndexQuery bare;
  bare.__set_predicates(MakeQuery({{"d:cc", "NO"}}).predicates);
  ASSERT_TRUE(FromThrift(ThroughWire(bare), &spec).ok());
  ASSERT_EQ(spec.equals.size(), 1u);
  EXPECT_EQ(spec.equals[0].column, "d:cc");
  EXPECT_EQ(spec.equals[0].value, "NO");
  EXPECT_EQ(spec.limit, 0u);  // unset: the router's maximum
  EXPECT_FALSE(spec.allow_partial);
  EXPECT_FALSE(spec.broadcast);

  std::vector<router::LookupSpec> specs;
  ASSERT_TRUE(FromThrift(std::vector<client::TIndexQuery>{ThroughWire(
                             MakeQuery({{"d:a", "1"}, {"d:b", "2"}}, 10,
                                       /*allow_partial=*/true,
                                       /*ask_all=*/true))},
                         &specs)
                  .ok());
  ASSERT_EQ(specs.size(), 1u);
  EXPECT_EQ(specs[0].equals.size(), 2u);
  EXPECT_EQ(specs[0].limit, 10u);
  EXPECT_TRUE(specs[0].allow_partial);
  EXPECT_TRUE(specs[0].broadcast);
}

TEST_F(RouterTypesConversionTest, PageTokensPassBothWays) {
  router::LookupSpec spec;
  client::TIndexQuery query = MakeQuery({{"d:cc", "NO"}});
  ASSERT_TRUE(FromThrift(ThroughWire(query), &spec).ok());
  EXPECT_FALSE(spec.page_token.has_value());
  query.__set_pageToken(std::string("\0tok\xff", 5));
  ASSERT_TRUE(FromThrift(ThroughWire(query), &spec).ok());
  EXPECT_EQ(spec.page_token, std::string("\0tok\xff", 5));

  router::LookupResult result;
  result.truncated = true;
  result.resume_after = "k";
  result.next_page_token = "token";
  client::TIndexResult out;
  ASSERT_TRUE(ToThrift(result, &out).ok());
  EXPECT_TRUE(out.__isset.nextPageToken);
  EXPECT_EQ(out.nextPageToken, "token");
  result = router::LookupResult();
  out = client::TIndexResult();
  ASSERT_TRUE(ToThrift(result, &out).ok());
  EXPECT_FALSE(out.__isset.nextPageToken);
}

TEST_F(RouterTypesConversionTest, BadIndexQueriesAreNamed) {
  router::LookupSpec spec;
  std::vector<router::LookupSpec> specs;
  EXPECT_TRUE(Rejects(FromThrift(client::TIndexQuery(), &spec),
                      "tquery.predicates is missing"));
  EXPECT_TRUE(
      Rejects(FromThrift(ThroughWire(MakeQuery({{"d:a", "1"}}, -1)), &spec),
              "tquery.limit is negative (-1)"));
  EXPECT_TRUE(
      Rejects(FromThrift(ThroughWire(MakeQuery({{"d:a", "1"}}, 0)), &spec),
              "tquery.limit is 0"));
  client::TIndexQuery no_value = ThroughWire(MakeQuery({{"d:a", "1"}}));
  no_value.predicates[0].__isset.value = false;
  EXPECT_TRUE(Rejects(FromThrift(
                          std::vector<client::TIndexQuery>{
                              ThroughWire(MakeQuery({{"d:a", "1"}})), no_value},
                          &specs),
                      "queries[1].predicates[0].value is missing"));
  uint32_t n = 0;
  EXPECT_TRUE(
      Rejects(CountFromThrift(-5, "numRows", &n), "numRows is negative (-5)"));
  ASSERT_TRUE(CountFromThrift(7, "numRows", &n).ok());
  EXPECT_EQ(n, 7u);
}

router::TableInfo SampleTable() {
  router::TableInfo info;
  info.descriptor.table_id = 3;
  info.descriptor.name = "geo";
  info.descriptor.indexed_columns = {{1, "d:cc"}, {2, "d:f"}};
  RegionDescriptor region;
  region.region_id = 11;
  region.table = info.descriptor;
  region.end_key = "m";
  info.regions.push_back({region, {0, "127.0.0.1:9091"}});
  region.region_id = 12;
  region.start_key = "m";
  region.end_key = "";
  info.regions.push_back({region, {1, "127.0.0.1:9092"}});
  return info;
}

TEST_F(RouterTypesConversionTest, TableInfoNamesRegionsAndServers) {
  client::TTableInfo out;
  ASSERT_TRUE(ToThrift(SampleTable(), &out).ok());
  out = ThroughWire(out);
  EXPECT_EQ(out.descriptor.tableId, 3);
  EXPECT_EQ(out.descriptor.name, "geo");
  ASSERT_EQ(out.descriptor.indexedColumns.size(), 2u);
  EXPECT_EQ(out.descriptor.indexedColumns[1].columnId, 2);
  EXPECT_EQ(out.descriptor.indexedColumns[1].name, "d:f");
  ASSERT_EQ(out.regions.size(), 2u);
  EXPECT_EQ(out.regions[0].regionId, 11);
  EXPECT_EQ(out.regions[0].startKey, "");
  EXPECT_EQ(out.regions[0].endKey, "m");
  EXPECT_EQ(out.regions[1].server.id, 1);
  EXPECT_EQ(out.regions[1].server.address, "127.0.0.1:9092");

  std::vector<client::TIndexedTable> listed;
  ASSERT_TRUE(
      ToThrift(std::vector<TableDescriptor>{SampleTable().descriptor}, &listed)
          .ok());
  ASSERT_EQ(listed.size(), 1u);
  EXPECT_EQ(listed[0].name, "geo");

  router::TableInfo huge = SampleTable();
  huge.descriptor.table_id = std::numeric_limits<uint64_t>::max();
  const Status s = ToThrift(huge, &out);
  EXPECT_TRUE(s.IsIOError()) << s.ToString();
}

TEST_F(RouterTypesConversionTest, MissingRowsAreResultsWithoutARow) {
  std::vector<client::TResult> out;
  ASSERT_TRUE(
      ToThrift(std::vector<std::optional<Row>>{Row{"a", {{"d:x", "1", 4}}},
                                               std::nullopt},
               &out)
          .ok());
  out = ThroughWire(out);
  ASSERT_EQ(out.size(), 2u);
  EXPECT_TRUE(out[0].__isset.row);
  EXPECT_EQ(out[0].row, "a");
  ASSERT_EQ(out[0].columnValues.size(), 1u);
  EXPECT_EQ(out[0].columnValues[0].family, "d");
  EXPECT_EQ(out[0].columnValues[0].qualifier, "x");
  ASSERT_TRUE(out[0].columnValues[0].__isset.timestamp);
  EXPECT_EQ(out[0].columnValues[0].timestamp, 4);  // the cell's
  EXPECT_FALSE(out[1].__isset.row);
  EXPECT_TRUE(out[1].columnValues.empty());
}

TEST_F(RouterTypesConversionTest, LookupResultCarriesRouting) {
  router::LookupResult in;
  in.rows = {Row{"a", {{"d:cc", "NO"}}}, Row{"b", {{"d:cc", "NO"}}}};
  in.truncated = true;
  in.partial = true;
  in.missing = {{2, "127.0.0.1:3"}};
  in.routing.servers_in_cluster = 4;
  in.routing.asked = {{0, "127.0.0.1:1"}, {2, "127.0.0.1:3"}};
  in.routing.asked_not_current = {{2, "127.0.0.1:3"}};
  in.routing.with_rows = {{0, "127.0.0.1:1"}};
  client::TIndexResult out;
  ASSERT_TRUE(ToThrift(in, &out).ok());
  out = ThroughWire(out);
  EXPECT_EQ(testing::RowKeys(out.rows), (std::vector<std::string>{"a", "b"}));
  EXPECT_TRUE(out.truncated);
  EXPECT_TRUE(out.partial);
  EXPECT_THAT(testing::ServerIds(out.missingServers), ElementsAre(2));
  EXPECT_EQ(out.missingServers[0].address, "127.0.0.1:3");
  EXPECT_EQ(out.routing.serversInCluster, 4);
  EXPECT_THAT(testing::ServerIds(out.routing.serversAsked), ElementsAre(0, 2));
  EXPECT_THAT(testing::ServerIds(out.routing.serversAskedNotCurrent),
              ElementsAre(2));
  EXPECT_THAT(testing::ServerIds(out.routing.serversWithRows), ElementsAre(0));
}

TEST_F(RouterTypesConversionTest, IndexStatsReportTheNewestStagesFill) {
  router::ServerIndexStats s;
  s.server = {5, "127.0.0.1:9095"};
  s.replica.loaded = true;
  s.replica.current = false;
  s.replica.epoch = 2;
  s.replica.seq = 90;
  s.ops_behind = 10;
  s.replica.filter.elements = 1000;
  s.replica.filter.estimated_fpr = 0.01;
  s.replica.filter.compounded_bound = 0.02;
  s.replica.filter.memory_bytes = 4096;
  s.replica.filter.stages.resize(2);
  s.replica.filter.stages[0].fill = 0.5;
  s.replica.filter.stages[1].fill = 0.125;
  s.replica.filter.stages[1].geometry.stage = 1;
  s.replica.filter.stages[1].geometry.slices = 9;
  std::vector<client::TServerIndexStats> out;
  ASSERT_TRUE(ToThrift(std::vector<router::ServerIndexStats>{s}, &out).ok());
  out = ThroughWire(out);
  ASSERT_EQ(out.size(), 1u);
  EXPECT_EQ(out[0].server.id, 5);
  EXPECT_TRUE(out[0].loaded);
  EXPECT_FALSE(out[0].current);
  EXPECT_EQ(out[0].epoch, 2);
  EXPECT_EQ(out[0].seq, 90);
  EXPECT_EQ(out[0].opsBehind, 10);
  EXPECT_EQ(out[0].stages, 2);
  EXPECT_EQ(out[0].elements, 1000);
  EXPECT_DOUBLE_EQ(out[0].fill, 0.125);
  EXPECT_DOUBLE_EQ(out[0].estimatedFpr, 0.01);
  EXPECT_DOUBLE_EQ(out[0].compoundedBound, 0.02);
  EXPECT_EQ(out[0].memoryBytes, 4096);
  ASSERT_EQ(out[0].stageStats.size(), 2u);
  EXPECT_EQ(out[0].stageStats[1].stage, 1);
  EXPECT_EQ(out[0].stageStats[1].slices, 9);

  router::ServerIndexStats empty;  // never loaded: no stages, fill 0
  ASSERT_TRUE(
      ToThrift(std::vector<router::ServerIndexStats>{empty}, &out).ok());
  EXPECT_EQ(out[0].stages, 0);
  EXPECT_DOUBLE_EQ(out[0].fill, 0.0);
}

TEST_F(RouterTypesConversionTest, IndexStatsCarryTheClusterFilterConfig) {
  router::ServerIndexStats s;
  s.server = {1, "127.0.0.1:9091"};
  s.target_false_routes = 0.05;
  s.cluster_config.target_fpr = 0.05 / 1024;
  s.cluster_config.tightening_ratio = 0.8;
  s.cluster_config.initial_capacity = 16384;
  s.has_cluster_config = true;
  std::vector<client::TServerIndexStats> out;
  ASSERT_TRUE(ToThrift(std::vector<router::ServerIndexStats>{s}, &out).ok());
  out = ThroughWire(out);
  ASSERT_TRUE(out[0].__isset.clusterFilter);
  EXPECT_DOUBLE_EQ(out[0].clusterFilter.targetFalseRoutes, 0.05);
  EXPECT_DOUBLE_EQ(out[0].clusterFilter.targetFpr, 0.05 / 1024);
  EXPECT_EQ(out[0].clusterFilter.initialCapacity, 16384);
  EXPECT_TRUE(out[0].hasClusterConfig);

  std::vector<router::ServerIndexStats> back;
  ASSERT_TRUE(thrift_internal::IndexStatsFromThrift(out, &back).ok());
  ASSERT_EQ(back.size(), 1u);
  EXPECT_TRUE(back[0].cluster_config == s.cluster_config);
  EXPECT_DOUBLE_EQ(back[0].target_false_routes, 0.05);
  EXPECT_TRUE(back[0].has_cluster_config);

  // An impossible config from a router is Corruption, not a crash.
  out[0].clusterFilter.__set_tighteningRatio(3);
  EXPECT_TRUE(thrift_internal::IndexStatsFromThrift(out, &back).IsCorruption());
  out[0].clusterFilter.__set_tighteningRatio(0.8);
  out[0].clusterFilter.__set_initialCapacity(-1);
  EXPECT_TRUE(thrift_internal::IndexStatsFromThrift(out, &back).IsCorruption());
}

TEST_F(RouterTypesConversionTest, ClusterStatusSetsErrorOnlyWhenUnreachable) {
  router::ClusterStatus in;
  in.tables = 2;
  in.regions = 9;
  in.servers = {
      {{0, "127.0.0.1:1"}, true, "", 5, true, 2, "NotFound: no such region"},
      {{1, "127.0.0.1:2"}, false, "connection refused", 4, false, 0, ""}};
  client::TClusterStatus out;
  ASSERT_TRUE(ToThrift(in, &out).ok());
  out = ThroughWire(out);
  EXPECT_EQ(out.tables, 2);
  EXPECT_EQ(out.regions, 9);
  ASSERT_EQ(out.servers.size(), 2u);
  EXPECT_TRUE(out.servers[0].reachable);
  EXPECT_FALSE(out.servers[0].__isset.error);
  EXPECT_EQ(out.servers[0].regions, 5);
  EXPECT_TRUE(out.servers[0].replicaCurrent);
  EXPECT_EQ(out.servers[0].regionsNotServed, 2);
  EXPECT_EQ(out.servers[0].reopenError, "NotFound: no such region");
  EXPECT_FALSE(out.servers[1].__isset.reopenError);
  EXPECT_FALSE(out.servers[1].reachable);
  ASSERT_TRUE(out.servers[1].__isset.error);
  EXPECT_THAT(out.servers[1].error, HasSubstr("refused"));
}

}  // namespace
}  // namespace bloomroute
