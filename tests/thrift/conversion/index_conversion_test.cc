#include "thrift/conversion/index_conversion.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <functional>
#include <limits>
#include <string>
#include <vector>

#include "tests/integration/router_client.h"
#include "tests/thrift/wire_util.h"
#include "thrift/conversion/hbase_conversion.h"

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

class IndexConversionTest : public ::testing::Test {};

TEST_F(IndexConversionTest, TableSpecKeepsEveryFieldAndDefaults) {
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

TEST_F(IndexConversionTest, IndexQueryOptionsAndTheirDefaults) {
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

TEST_F(IndexConversionTest, PageTokensPassBothWays) {
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

TEST_F(IndexConversionTest, BadIndexQueriesAreNamed) {
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

TEST_F(IndexConversionTest, TableInfoNamesRegionsAndServers) {
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

TEST_F(IndexConversionTest, LookupResultCarriesRouting) {
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

// Compact rows carry the same rows as TResults: keys, every cell's column,
// value and timestamp, in HBase's cell order on the wire ("d" before "d0",
// where the model has "d0:..." first) and the model's after.
TEST_F(IndexConversionTest, CompactRowsCarryTheSameRows) {
  router::LookupResult in;
  in.rows = {Row{"a", {{"d0:z", "1", 5}, {"d:cc", "NO", 7}, {"d:x", "", 8}}},
             Row{"b", {{"d0:z", "2", 9}, {"d:cc", "SE", 10}}}, Row{"c", {}},
             Row{"d", {{"e:q:r", std::string(300, 'v'), 0}}}};
  in.routing.servers_in_cluster = 1;
  const std::vector<Row> rows = in.rows;
  client::TIndexResult out;
  ASSERT_TRUE(
      ToThrift(router::LookupResult(in), /*compact_rows=*/true, &out).ok());
  out = ThroughWire(out);
  EXPECT_TRUE(out.rows.empty());
  ASSERT_TRUE(out.__isset.compactRows);
  // Each column once, numbered as first met in HBase's order.
  EXPECT_THAT(out.compactRows.families, ElementsAre("d", "d", "d0", "e"));
  EXPECT_THAT(out.compactRows.qualifiers, ElementsAre("cc", "x", "z", "q:r"));
  ASSERT_EQ(out.compactRows.rows.size(), 4u);
  EXPECT_THAT(out.compactRows.rows[0].columns, ElementsAre(0, 1, 2));
  EXPECT_THAT(out.compactRows.rows[0].values, ElementsAre("NO", "", "1"));
  EXPECT_THAT(out.compactRows.rows[0].timestamps, ElementsAre(7, 8, 5));
  EXPECT_THAT(out.compactRows.rows[1].columns, ElementsAre(0, 2));
  router::LookupResult back;
  ASSERT_TRUE(thrift_internal::LookupResultFromThrift(out, &back).ok());
  EXPECT_EQ(back.rows, rows);
  // The same rows as the TResults of the same answer.
  client::TIndexResult plain;
  ASSERT_TRUE(ToThrift(router::LookupResult(in), &plain).ok());
  router::LookupResult plain_back;
  ASSERT_TRUE(
      thrift_internal::LookupResultFromThrift(ThroughWire(plain), &plain_back)
          .ok());
  EXPECT_EQ(plain_back.rows, back.rows);
}

// A router's compact rows are checked as its TResults are: Corruption
// naming the field.
TEST_F(IndexConversionTest, BadCompactRowsAreCorruption) {
  router::LookupResult in;
  in.rows = {Row{"a", {{"d:cc", "NO", 7}, {"d:x", "1", 8}}}};
  in.routing.servers_in_cluster = 1;
  client::TIndexResult good;
  ASSERT_TRUE(ToThrift(router::LookupResult(in), true, &good).ok());
  struct Case {
    std::function<void(client::TIndexResult*)> spoil;
    const char* field;
  };
  const Case cases[] = {
      {[](client::TIndexResult* r) { r->compactRows.rows[0].columns[1] = 2; },
       "result.compactRows.rows[0].columns[1] 2 names no column"},
      {[](client::TIndexResult* r) { r->compactRows.rows[0].columns[0] = -1; },
       "result.compactRows.rows[0].columns[0] -1"},
      {[](client::TIndexResult* r) {
         r->compactRows.rows[0].values.pop_back();
       },
       "result.compactRows.rows[0].columns, values and timestamps"},
      {[](client::TIndexResult* r) {
         r->compactRows.rows[0].timestamps[0] = -3;
       },
       "result.compactRows.rows[0].timestamps[0] -3 is negative"},
      {[](client::TIndexResult* r) { r->compactRows.qualifiers.pop_back(); },
       "result.compactRows.families and"},
      {[](client::TIndexResult* r) {
         r->compactRows.rows[0].__isset.row = false;
       },
       "result.compactRows.rows[0].row is missing"},
      {[](client::TIndexResult* r) { r->rows.emplace_back(); },
       "result.rows and result.compactRows are both set"},
      {[](client::TIndexResult* r) {
         r->compactRows.qualifiers[0] = std::string(1100, 'q');
       },
       "result.compactRows.families[0] and its qualifier are longer than"},
  };
  for (const Case& c : cases) {
    client::TIndexResult bad = good;
    c.spoil(&bad);
    router::LookupResult back;
    const Status s = thrift_internal::LookupResultFromThrift(bad, &back);
    EXPECT_TRUE(s.IsCorruption()) << c.field << ": " << s.ToString();
    EXPECT_THAT(s.message(), HasSubstr(c.field));
  }
}

}  // namespace
}  // namespace bloomroute
