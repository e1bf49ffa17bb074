// Cell timestamps, delete specs and time ranges on the RegionService wire
// (thrift/internal/region_timestamp_conversion.h, through the conversions
// of thrift/conversion/region_conversion.h): they round-trip, bad values are
// rejected naming the field, and a peer that does not send them gets the
// behaviour from before timestamps.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "tests/thrift/wire_util.h"
#include "thrift/conversion/region_conversion.h"

namespace bloomroute {
namespace {

using ::testing::HasSubstr;

class RegionTimestampConversionTest : public ::testing::Test {
 protected:
  static std::vector<Mutation> RoundTrip(const std::vector<Mutation>& in) {
    std::vector<rpc::TMutation> wire;
    EXPECT_TRUE(ToThrift(in, &wire).ok());
    std::vector<Mutation> back;
    const Status s = FromThrift(ThroughWire(wire), &back);
    EXPECT_TRUE(s.ok()) << s.ToString();
    return back;
  }
  // The message of converting `wire`, expected to be InvalidArgument.
  static std::string MutationError(const rpc::TMutation& wire) {
    std::vector<Mutation> out;
    const Status s =
        FromThrift(ThroughWire(std::vector<rpc::TMutation>{wire}), &out);
    EXPECT_TRUE(s.IsInvalidArgument()) << s.ToString();
    return s.message();
  }
};

TEST_F(RegionTimestampConversionTest, MutationTimestampsAndDeleteSpecsTravel) {
  Mutation put = Mutation::Put(1, "r", {{"f:a", "1", 5}, {"f:b", "2"}});
  put.timestamp = 9;
  Mutation del = Mutation::Delete(1, "r", {"f:c"});
  del.timestamp = 40;
  del.deletes = {{DeleteSpec::Kind::kColumn, "f:a", 7},
                 {DeleteSpec::Kind::kColumns, "f:b", kLatestTimestamp},
                 {DeleteSpec::Kind::kFamily, "g", 0}};
  const Mutation plain = Mutation::Delete(2, "s");
  const auto back = RoundTrip({put, del, plain});
  ASSERT_EQ(back.size(), 3u);
  EXPECT_EQ(back[0].cells, put.cells);  // kLatestTimestamp stays "now"
  EXPECT_EQ(back[0].timestamp, 9);
  EXPECT_EQ(back[1].columns, del.columns);
  EXPECT_EQ(back[1].deletes, del.deletes);
  EXPECT_EQ(back[1].timestamp, 40);
  EXPECT_EQ(back[2].timestamp, kLatestTimestamp);
  EXPECT_TRUE(back[2].deletes.empty());
}

TEST_F(RegionTimestampConversionTest, ReadRequestsCarryTheirTimeRange) {
  std::vector<GetRequest> gets(2);
  gets[0].region_id = 3;
  gets[0].row_key = "a";
  gets[0].time_range = {10, 20};
  gets[1].region_id = 3;
  gets[1].row_key = "b";
  std::vector<rpc::TGet> wire_gets;
  ASSERT_TRUE(ToThrift(gets, &wire_gets).ok());
  EXPECT_FALSE(wire_gets[1].__isset.timeRange) << "the default is not sent";
  std::vector<GetRequest> gets_back;
  ASSERT_TRUE(FromThrift(ThroughWire(wire_gets), &gets_back).ok());
  EXPECT_EQ(gets_back[0].time_range, (TimeRange{10, 20}));
  EXPECT_EQ(gets_back[1].time_range, TimeRange());

  ScanRequest scan;
  scan.region_id = 1;
  scan.limit = 5;
  scan.time_range = {0, 1};
  rpc::TScan wire_scan;
  ASSERT_TRUE(ToThrift(scan, &wire_scan).ok());
  ScanRequest scan_back;
  ASSERT_TRUE(FromThrift(ThroughWire(wire_scan), &scan_back).ok());
  EXPECT_EQ(scan_back.time_range, (TimeRange{0, 1}));

  IndexQuery query;
  query.table_id = 7;
  query.equals = {{"f:a", "x"}};
  query.limit = 3;
  query.time_range = {5, kLatestTimestamp};
  rpc::TIndexQuery wire_query;
  ASSERT_TRUE(ToThrift(query, &wire_query).ok());
  IndexQuery query_back;
  ASSERT_TRUE(FromThrift(ThroughWire(wire_query), &query_back).ok());
  EXPECT_EQ(query_back.time_range, (TimeRange{5, kLatestTimestamp}));
}

TEST_F(RegionTimestampConversionTest, BadValuesAreRejectedByName) {
  rpc::TMutation put;
  put.__set_type(rpc::TMutationType::PUT);
  put.__set_regionId(1);
  put.__set_row("r");
  rpc::TColumnValue cell;
  cell.__set_column("f:a");
  cell.__set_value("1");
  cell.__set_timestamp(-3);
  put.__set_columnValues({cell});
  EXPECT_THAT(MutationError(put),
              HasSubstr("mutations[0].columnValues[0].timestamp is negative"));
  put.columnValues[0].__set_timestamp(3);
  put.__set_timestamp(-1);
  EXPECT_THAT(MutationError(put), HasSubstr("mutations[0].timestamp"));

  rpc::TMutation del;
  del.__set_type(rpc::TMutationType::DELETE);
  del.__set_regionId(1);
  del.__set_row("r");
  rpc::TDeleteSpec spec;
  spec.__set_type(3);
  spec.__set_column("f:a");
  del.__set_deleteSpecs({spec});
  EXPECT_THAT(MutationError(del),
              HasSubstr("mutations[0].deleteSpecs[0].type has no such value"));
  del.deleteSpecs[0].__set_type(rpc::TDeleteSpecType::DELETE_COLUMNS);
  del.deleteSpecs[0].__set_timestamp(-2);
  EXPECT_THAT(MutationError(del),
              HasSubstr("mutations[0].deleteSpecs[0].timestamp is negative"));
  put.__set_timestamp(1);
  put.__set_deleteSpecs({spec});
  EXPECT_THAT(MutationError(put),
              HasSubstr("mutations[0] is not a DELETE but has deleteSpecs"));
  rpc::TMutation increment;
  increment.__set_type(rpc::TMutationType::INCREMENT);
  increment.__set_regionId(1);
  increment.__set_row("r");
  rpc::TColumnIncrement inc;
  inc.__set_column("f:n");
  inc.__set_amount(1);
  increment.__set_increments({inc});
  increment.__set_deleteSpecs({spec});
  EXPECT_THAT(MutationError(increment),
              HasSubstr("mutations[0] is not a DELETE but has deleteSpecs"));

  rpc::TGet get;
  get.__set_regionId(1);
  get.__set_row("r");
  rpc::TTimeRange range;
  range.__set_minStamp(-1);
  range.__set_maxStamp(5);
  get.__set_timeRange(range);
  std::vector<GetRequest> gets;
  Status s = FromThrift(ThroughWire(std::vector<rpc::TGet>{get}), &gets);
  EXPECT_TRUE(s.IsInvalidArgument());
  EXPECT_THAT(s.message(), HasSubstr("gets[0].timeRange.minStamp"));
  rpc::TScan scan;
  scan.__set_regionId(1);
  scan.__set_limit(1);
  range.__set_minStamp(6);
  scan.__set_timeRange(range);
  ScanRequest scan_out;
  s = FromThrift(ThroughWire(scan), &scan_out);
  EXPECT_TRUE(s.IsInvalidArgument());
  EXPECT_THAT(s.message(), HasSubstr("scan.timeRange.maxStamp"));
  rpc::TIndexQuery query;
  query.__set_tableId(1);
  query.__set_limit(1);
  range.__set_minStamp(-7);
  query.__set_timeRange(range);
  IndexQuery query_out;
  s = FromThrift(ThroughWire(query), &query_out);
  EXPECT_TRUE(s.IsInvalidArgument());
  EXPECT_THAT(s.message(), HasSubstr("query.timeRange.minStamp"));
}

TEST_F(RegionTimestampConversionTest, ResultCellsCarryTimestamps) {
  const Row row{"k", {{"f:a", "1", 0}, {"f:b", "2", 1700000000000}}};
  ScanResult scan{{row}, std::nullopt};
  rpc::TScanResult wire;
  ASSERT_TRUE(ToThrift(scan, &wire).ok());
  ASSERT_TRUE(wire.rows[0].columnValues[1].__isset.timestamp);
  ScanResult back;
  ASSERT_TRUE(FromThrift(ThroughWire(wire), &back).ok());
  EXPECT_EQ(back.rows, scan.rows);
  // An older server sends no timestamps: the cells read as timestamp 0.
  wire.rows[0].columnValues[1].__isset.timestamp = false;
  ASSERT_TRUE(FromThrift(ThroughWire(wire), &back).ok());
  EXPECT_EQ(back.rows[0].cells[1].timestamp, 0);
  // A timestamp no server stores is Corruption.
  for (int64_t bad : {int64_t{-1}, kLatestTimestamp}) {
    wire.rows[0].columnValues[1].__set_timestamp(bad);
    const Status s = FromThrift(ThroughWire(wire), &back);
    EXPECT_TRUE(s.IsCorruption()) << bad << " " << s.ToString();
    EXPECT_THAT(s.message(),
                HasSubstr("result.rows[0].columnValues[1].timestamp"));
  }
}

}  // namespace
}  // namespace bloomroute
