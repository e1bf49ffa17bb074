// The HBase Thrift2 conversions (thrift/conversion/hbase_conversion.h): the
// requests, with the fields wired to the model's cell timestamps, time
// ranges, filter strings, table families and attributes, and the replies'
// rows, timestamps and table descriptors.
#include "thrift/conversion/hbase_conversion.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <limits>
#include <string>
#include <vector>

#include "tests/integration/router_client.h"
#include "tests/thrift/wire_util.h"
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
using ::testing::AllOf;
using ::testing::ElementsAre;
using ::testing::HasSubstr;

using Kind = DeleteSpec::Kind;

// The attribute declaring indexed columns, as an HBase client spells it.
const std::string kIndex = "bloomroute.index";

client::TTimeRange Range(int64_t min, int64_t max) {
  client::TTimeRange r;
  r.__set_minStamp(min);
  r.__set_maxStamp(max);
  return r;
}

client::TColumn Column(const std::string& family,
                       const std::string& qualifier = "", int64_t ts = -1) {
  client::TColumn c;
  c.__set_family(family);
  if (!qualifier.empty()) c.__set_qualifier(qualifier);
  if (ts >= 0) c.__set_timestamp(ts);
  return c;
}

client::TDelete Delete(std::vector<client::TColumn> columns) {
  client::TDelete d;
  d.__set_row("r");
  if (!columns.empty()) d.__set_columns(std::move(columns));
  return d;
}

// The conversion of `in` as a server receives it.
template <typename In, typename Out>
Status Convert(const In& in, Out* out) {
  return FromThrift(ThroughWire(in), out);
}
template <typename In, typename Out>
std::string Error(const In& in, Out* out) {
  return Convert(in, out).ToString();
}

// InvalidArgument whose message contains `text`.
::testing::AssertionResult Rejects(const Status& s, const std::string& text) {
  if (s.IsInvalidArgument() && s.message().find(text) != std::string::npos) {
    return ::testing::AssertionSuccess();
  }
  return ::testing::AssertionFailure() << s.ToString();
}

class HBaseConversionTest : public ::testing::Test {};

TEST_F(HBaseConversionTest, PutCarriesCellAndPutTimestamps) {
  client::TPut put = MakePut("r", {{"d:a", "1"}, {"d:b", "2"}});
  put.columnValues[0].__set_timestamp(5);
  put.__set_timestamp(100);
  Mutation m;
  ASSERT_TRUE(Convert(put, &m).ok()) << Error(put, &m);
  EXPECT_EQ(m.timestamp, 100);
  ASSERT_EQ(m.cells.size(), 2u);
  EXPECT_EQ(m.cells[0].timestamp, 5);
  EXPECT_EQ(m.cells[1].timestamp, kLatestTimestamp);  // takes the put's

  put.columnValues[1].__set_timestamp(-1);
  EXPECT_THAT(Error(put, &m),
              HasSubstr("tput.columnValues[1].timestamp -1 is negative"));
  put.columnValues[1].__set_timestamp(0);
  put.__set_timestamp(-7);
  std::vector<Mutation> many;
  EXPECT_THAT(Error(std::vector<client::TPut>{put, put}, &many),
              HasSubstr("tputs[0].timestamp -7 is negative"));
}

TEST_F(HBaseConversionTest, DeleteColumnsBecomeDeleteSpecs) {
  client::TDelete del = Delete(
      {Column("d"), Column("e", "", 9), Column("d", "a"), Column("d", "b", 7)});
  Mutation m;
  ASSERT_TRUE(Convert(del, &m).ok()) << Error(del, &m);
  EXPECT_EQ(m.kind, Mutation::Kind::kDelete);
  EXPECT_TRUE(m.columns.empty());
  EXPECT_EQ(m.timestamp, kLatestTimestamp);
  // A column without qualifier is the empty qualifier's (HBase 2.x), with
  // DELETE_COLUMNS (the default) as with DELETE_COLUMN.
  EXPECT_THAT(m.deletes, ElementsAre(DeleteSpec{Kind::kColumns, "d:"},
                                     DeleteSpec{Kind::kColumns, "e:", 9},
                                     DeleteSpec{Kind::kColumns, "d:a"},
                                     DeleteSpec{Kind::kColumns, "d:b", 7}));

  del.__set_deleteType(client::TDeleteType::DELETE_COLUMN);
  del.__set_timestamp(50);
  ASSERT_TRUE(Convert(del, &m).ok()) << Error(del, &m);
  EXPECT_EQ(m.timestamp, 50);  // inherited by the specs without their own
  EXPECT_THAT(m.deletes, ElementsAre(DeleteSpec{Kind::kColumn, "d:"},
                                     DeleteSpec{Kind::kColumn, "e:", 9},
                                     DeleteSpec{Kind::kColumn, "d:a"},
                                     DeleteSpec{Kind::kColumn, "d:b", 7}));

  // DELETE_FAMILY: the families.
  client::TDelete families = Delete({Column("d"), Column("e", "", 9)});
  families.__set_deleteType(client::TDeleteType::DELETE_FAMILY);
  ASSERT_TRUE(Convert(families, &m).ok()) << Error(families, &m);
  EXPECT_THAT(m.deletes, ElementsAre(DeleteSpec{Kind::kFamily, "d"},
                                     DeleteSpec{Kind::kFamily, "e", 9}));

  // No columns: the whole row, cells <= the timestamp.
  client::TDelete row = Delete({});
  row.__set_timestamp(40);
  ASSERT_TRUE(Convert(row, &m).ok()) << Error(row, &m);
  EXPECT_TRUE(m.columns.empty());
  EXPECT_TRUE(m.deletes.empty());
  EXPECT_EQ(m.timestamp, 40);

  row.__set_timestamp(-1);
  EXPECT_THAT(Error(row, &m), HasSubstr("tdelete.timestamp -1 is negative"));
  client::TDelete bad = Delete({Column("d", "a")});
  bad.columns[0].__set_timestamp(-4);
  EXPECT_THAT(Error(bad, &m),
              HasSubstr("tdelete.columns[0].timestamp -4 is negative"));
  bad.columns[0].__set_timestamp(4);
  bad.__set_deleteType(client::TDeleteType::DELETE_FAMILY_VERSION);
  EXPECT_THAT(Error(bad, &m), HasSubstr("DELETE_FAMILY_VERSION"));
  EXPECT_THAT(Error(bad, &m), HasSubstr("is not supported"));
}

TEST_F(HBaseConversionTest, GetTimestampAndTimeRange) {
  HBaseGet get;
  client::TGet in = MakeGet("r");
  ASSERT_TRUE(Convert(in, &get).ok());
  EXPECT_TRUE(get.request.time_range.IsAllTime());
  EXPECT_TRUE(get.request.filter.empty());

  in.__set_timeRange(Range(2, 9));
  ASSERT_TRUE(Convert(in, &get).ok()) << Error(in, &get);
  EXPECT_EQ(get.request.time_range, (TimeRange{2, 9}));
  in.__set_timestamp(5);  // wins over timeRange
  ASSERT_TRUE(Convert(in, &get).ok()) << Error(in, &get);
  EXPECT_EQ(get.request.time_range, (TimeRange{5, 6}));

  in.__set_timestamp(-5);
  EXPECT_THAT(Error(in, &get), HasSubstr("tget.timestamp -5 is negative"));
  in.__set_timestamp(std::numeric_limits<int64_t>::max());
  EXPECT_THAT(Error(in, &get), HasSubstr("tget.timestamp"));
  in.__isset.timestamp = false;
  in.__set_timeRange(Range(9, 2));
  EXPECT_THAT(Error(in, &get),
              HasSubstr("tget.timeRange: minStamp 9 is above maxStamp 2"));
  in.__set_timeRange(Range(-1, 2));
  EXPECT_THAT(Error(in, &get), HasSubstr("tget.timeRange.minStamp -1"));
  std::vector<HBaseGet> gets;
  EXPECT_THAT(Error(std::vector<client::TGet>{MakeGet("a"), in}, &gets),
              HasSubstr("tgets[1].timeRange.minStamp -1 is negative"));
}

TEST_F(HBaseConversionTest, FilterStringsReachTheRequests) {
  HBaseGet get;
  client::TGet in = MakeGet("r");
  in.__set_filterString("PrefixFilter('a')");
  ASSERT_TRUE(Convert(in, &get).ok()) << Error(in, &get);
  EXPECT_EQ(get.request.filter, "PrefixFilter('a')");

  HBaseScan scan;
  client::TScan s = MakeScan("a", "m");
  s.__set_filterString("PageFilter(2)");
  s.__set_limit(5);
  s.__set_timeRange(Range(3, 4));
  ASSERT_TRUE(Convert(s, &scan).ok()) << Error(s, &scan);
  EXPECT_EQ(scan.spec.filter, "PageFilter(2)");
  EXPECT_EQ(scan.limit, 5u);
  EXPECT_EQ(scan.batch_cells, 0u);  // unset: whole rows
  EXPECT_EQ(scan.spec.time_range, (TimeRange{3, 4}));
  s.__set_batchSize(3);
  ASSERT_TRUE(Convert(s, &scan).ok()) << Error(s, &scan);
  EXPECT_EQ(scan.batch_cells, 3u);
  s.__set_batchSize(-1);  // HBase's Scan default, as its Thrift client sends
  ASSERT_TRUE(Convert(s, &scan).ok()) << Error(s, &scan);
  EXPECT_EQ(scan.batch_cells, 0u);
  s.__set_timeRange(Range(4, 3));
  EXPECT_THAT(Error(s, &scan), HasSubstr("tscan.timeRange: minStamp 4"));
}

TEST_F(HBaseConversionTest, IndexQueryTimeRange) {
  router::LookupSpec spec;
  client::TIndexQuery q = MakeQuery({{"d:a", "1"}});
  q.__set_timeRange(Range(10, 20));
  ASSERT_TRUE(Convert(q, &spec).ok()) << Convert(q, &spec).ToString();
  EXPECT_EQ(spec.time_range, (TimeRange{10, 20}));
  q.__set_timeRange(Range(0, -3));
  EXPECT_THAT(Convert(q, &spec).ToString(),
              HasSubstr("tquery.timeRange.maxStamp -3 is negative"));
}

TEST_F(HBaseConversionTest, CreateTableKeepsFamiliesAndAttributes) {
  client::TTableDescriptor desc;
  client::TTableName name;
  name.__set_qualifier("geo");
  desc.__set_tableName(name);
  std::vector<client::TColumnFamilyDescriptor> families(2);
  families[0].__set_name("d");
  families[1].__set_name("e");
  desc.__set_columns(families);
  desc.__set_attributes({{kIndex, "d:cc, e:f"}, {"owner", "maps"}});
  router::TableSpec spec;
  ASSERT_TRUE(FromThrift(ThroughWire(desc), {}, &spec).ok());
  EXPECT_EQ(spec.name, "geo");
  EXPECT_THAT(spec.families, ElementsAre("d", "e"));
  EXPECT_EQ(spec.attributes, desc.attributes);
  // The router takes the indexed columns from the attribute.
  EXPECT_TRUE(spec.indexed_columns.empty());

  desc.attributes[kIndex] = "d:cc,,e:f";
  EXPECT_THAT(FromThrift(ThroughWire(desc), {}, &spec).ToString(),
              HasSubstr("desc.attributes: bloomroute.index: entry 2 is empty"));
  desc.attributes = {{std::string(kFamilySettingsAttribute), "x"}};
  EXPECT_THAT(FromThrift(ThroughWire(desc), {}, &spec).ToString(),
              HasSubstr("'bloomroute.families' is reserved"));
}

// The storage settings of a family, its attributes and its configuration
// go to the settings attribute and come back by getTableDescriptor, every
// field set (HBase's defaults for what was not given).
TEST_F(HBaseConversionTest, FamilySettingsRoundTrip) {
  client::TTableDescriptor desc;
  desc.tableName.__set_qualifier("geo");
  std::vector<client::TColumnFamilyDescriptor> families(2);
  families[0].__set_name("d");
  families[0].__set_blockSize(8192);
  families[0].__set_bloomnFilterType(client::TBloomFilterType::ROWCOL);
  families[0].__set_dfsReplication(2);
  families[0].__set_inMemory(true);
  families[0].__set_compressTags(false);
  families[0].__set_maxVersions(1);  // the default: accepted
  families[0].__set_attributes({{"k", "v"}});
  families[0].__set_configuration({{"hbase.x", "y"}});
  families[1].__set_name("e");
  desc.__set_columns(families);
  router::TableSpec spec;
  ASSERT_TRUE(FromThrift(ThroughWire(desc), {}, &spec).ok());
  ASSERT_EQ(spec.attributes.count(std::string(kFamilySettingsAttribute)), 1u);

  TableDescriptor t{7, "geo", {}};
  t.families = spec.families;
  t.attributes = spec.attributes;
  client::TTableDescriptor out;
  ASSERT_TRUE(HBaseDescriptorToThrift(t, &out).ok());
  EXPECT_TRUE(out.attributes.empty());  // the settings do not show
  ASSERT_EQ(out.columns.size(), 2u);
  const client::TColumnFamilyDescriptor& d = out.columns[0];
  EXPECT_EQ(d.blockSize, 8192);
  EXPECT_EQ(d.bloomnFilterType, client::TBloomFilterType::ROWCOL);
  EXPECT_EQ(d.dfsReplication, 2);
  EXPECT_TRUE(d.inMemory);
  EXPECT_FALSE(d.compressTags);
  EXPECT_EQ(d.attributes, families[0].attributes);
  EXPECT_EQ(d.configuration, families[0].configuration);
  const client::TColumnFamilyDescriptor& e = out.columns[1];
  EXPECT_TRUE(e.__isset.blockSize && e.__isset.inMemory && e.__isset.scope);
  EXPECT_EQ(e.blockSize, 65536);
  EXPECT_EQ(e.bloomnFilterType, client::TBloomFilterType::ROW);
  EXPECT_EQ(e.compressionType, client::TCompressionAlgorithm::NONE);
  EXPECT_EQ(e.dataBlockEncoding, client::TDataBlockEncoding::NONE);
  EXPECT_EQ(e.maxVersions, 1);
  EXPECT_EQ(e.timeToLive, 2147483647);
  EXPECT_TRUE(e.blockCacheEnabled);
  EXPECT_TRUE(e.compressTags);
  EXPECT_FALSE(e.inMemory);

  t.attributes[std::string(kFamilySettingsAttribute)] = "garbage";
  EXPECT_THAT(HBaseDescriptorToThrift(t, &out).ToString(),
              AllOf(HasSubstr("Corruption"), HasSubstr("table 'geo'")));
}

TEST_F(HBaseConversionTest, BadFamilySettingsAreRefusedNamingTheField) {
  auto refused = [](client::TColumnFamilyDescriptor family) {
    client::TTableDescriptor desc;
    desc.tableName.__set_qualifier("geo");
    family.__set_name("d");
    desc.__set_columns({family});
    router::TableSpec spec;
    return FromThrift(ThroughWire(desc), {}, &spec).ToString();
  };
  client::TColumnFamilyDescriptor f;
  f.__set_bloomnFilterType(9);
  EXPECT_THAT(refused(f), HasSubstr("desc.columns[0].bloomnFilterType 9 is "
                                    "not a TBloomFilterType"));
  f = client::TColumnFamilyDescriptor();
  f.__set_dataBlockEncoding(1);  // reserved by HBase, not a value
  EXPECT_THAT(refused(f), HasSubstr("dataBlockEncoding 1 is not a"));
  f = client::TColumnFamilyDescriptor();
  f.__set_blockSize(0);
  EXPECT_THAT(refused(f), HasSubstr("blockSize 0 is not positive"));
  f = client::TColumnFamilyDescriptor();
  f.__set_scope(-1);
  EXPECT_THAT(refused(f), HasSubstr("scope -1 is negative"));
  f = client::TColumnFamilyDescriptor();
  f.__set_timeToLive(60);
  EXPECT_THAT(refused(f), HasSubstr("a cell time-to-live is not supported"));
}

TEST_F(HBaseConversionTest, DescriptorsShowFamiliesAndAttributes) {
  TableDescriptor t{7, "geo", {{1, "d:cc"}, {2, "e:f"}}};
  t.families = {"x", "d", "e"};
  t.attributes = {{"owner", "maps"}};
  client::TTableDescriptor out;
  ASSERT_TRUE(HBaseDescriptorToThrift(t, &out).ok());
  EXPECT_EQ(out.tableName.qualifier, "geo");
  ASSERT_EQ(out.columns.size(), 3u);
  EXPECT_EQ(out.columns[0].name, "x");
  EXPECT_EQ(out.columns[2].name, "e");
  EXPECT_EQ(out.attributes.at("owner"), "maps");
  EXPECT_EQ(out.attributes.at(kIndex), "d:cc,e:f");
  // Without declared families: those of the indexed columns.
  t.families.clear();
  ASSERT_TRUE(HBaseDescriptorToThrift(t, &out).ok());
  ASSERT_EQ(out.columns.size(), 2u);
  EXPECT_EQ(out.columns[1].name, "e");
}

TEST_F(HBaseConversionTest, ReplyCellsCarryTheirTimestamps) {
  const Row row{"r", {{"d:a", "1", 12}, {"d:b", "2", 0}}};
  client::TResult out = thrift_internal::RowToHBase(row);
  ASSERT_EQ(out.columnValues.size(), 2u);
  ASSERT_TRUE(out.columnValues[0].__isset.timestamp);
  EXPECT_EQ(out.columnValues[0].timestamp, 12);
  ASSERT_TRUE(out.columnValues[1].__isset.timestamp);
  EXPECT_EQ(out.columnValues[1].timestamp, 0);
}

// A reply's cells go out in HBase's order (family "d" before "d0") and
// come back, at a client of ours, in the model's, which Row::Find searches.
TEST_F(HBaseConversionTest, ReplyCellsGoOutInHBasesOrderAndComeBackInOurs) {
  const Row row{"r", {{"d0:x", "1", 1}, {"d:a", "2", 1}}};
  const client::TResult out = thrift_internal::RowToHBase(row);
  ASSERT_EQ(out.columnValues.size(), 2u);
  EXPECT_EQ(out.columnValues[0].family, "d");
  EXPECT_EQ(out.columnValues[1].family, "d0");
  Row back;
  const Status decoded =
      thrift_internal::RowFromHBase(ThroughWire(out), "result", &back);
  ASSERT_TRUE(decoded.ok()) << decoded.ToString();
  EXPECT_EQ(back, row);
  ASSERT_NE(back.Find("d0:x"), nullptr);
  EXPECT_EQ(back.Find("d0:x")->value, "1");
}

TEST_F(HBaseConversionTest, PutsDeletesAndGetsBecomeRouterRequests) {
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

TEST_F(HBaseConversionTest, MissingRowFieldsAreNamed) {
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

TEST_F(HBaseConversionTest, ScanBoundsDefaultToUnbounded) {
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

TEST_F(HBaseConversionTest, MissingRowsAreResultsWithoutARow) {
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

}  // namespace
}  // namespace bloomroute
