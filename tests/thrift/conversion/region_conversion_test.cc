#include "thrift/conversion/region_conversion.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <limits>

#include "tests/thrift/wire_util.h"

namespace bloomroute {
namespace {

using ::testing::HasSubstr;

RegionDescriptor SampleRegion() {
  RegionDescriptor region;
  region.region_id = 42;
  region.table.table_id = 7;
  region.table.name = "geonames";
  region.table.indexed_columns = {{1, "f:country"}, {2, "f:feature"}};
  region.start_key = std::string("b\0x", 3);
  region.end_key = "m";
  return region;
}

Mutation Put(uint64_t region, std::string row, std::vector<Cell> cells) {
  Mutation m;
  m.kind = Mutation::Kind::kPut;
  m.region_id = region;
  m.row_key = std::move(row);
  m.cells = std::move(cells);
  return m;
}

Mutation Delete(uint64_t region, std::string row,
                std::vector<std::string> columns) {
  Mutation m;
  m.kind = Mutation::Kind::kDelete;
  m.region_id = region;
  m.row_key = std::move(row);
  m.columns = std::move(columns);
  return m;
}

rpc::TMutation WirePut(int64_t region, const std::string& row) {
  rpc::TMutation m;
  m.__set_type(rpc::TMutationType::PUT);
  m.__set_regionId(region);
  m.__set_row(row);
  rpc::TColumnValue cell;
  cell.__set_column("f:a");
  cell.__set_value("1");
  m.__set_columnValues({cell});
  return ThroughWire(m);
}

class RegionConversionTest : public ::testing::Test {
 protected:
  // The message of converting `wire` mutations, expected to fail.
  static std::string MutationError(const std::vector<rpc::TMutation>& wire) {
    std::vector<Mutation> out;
    Status s = FromThrift(wire, &out);
    EXPECT_TRUE(s.IsInvalidArgument()) << s.ToString();
    return s.message();
  }
};

TEST_F(RegionConversionTest, RegionRoundTrips) {
  const RegionDescriptor region = SampleRegion();
  rpc::TRegionDescriptor wire;
  ASSERT_TRUE(ToThrift(region, &wire).ok());
  RegionDescriptor back;
  ASSERT_TRUE(FromThrift(ThroughWire(wire), &back).ok());
  EXPECT_EQ(back, region);

  std::vector<rpc::TRegionDescriptor> list;
  ASSERT_TRUE(
      ToThrift(std::vector<RegionDescriptor>{region, region}, &list).ok());
  std::vector<RegionDescriptor> list_back;
  ASSERT_TRUE(FromThrift(ThroughWire(list), &list_back).ok());
  EXPECT_EQ(list_back, (std::vector<RegionDescriptor>{region, region}));
}

TEST_F(RegionConversionTest, MutationsRoundTripInOrder) {
  const std::vector<Mutation> batch = {
      Put(1, "r1", {{"f:a", std::string("\0\xff", 2)}, {"f:b", ""}}),
      Delete(1, "r2", {}), Delete(2, "r3", {"f:a", "g"})};
  std::vector<rpc::TMutation> wire;
  ASSERT_TRUE(ToThrift(batch, &wire).ok());
  std::vector<Mutation> back;
  ASSERT_TRUE(FromThrift(ThroughWire(wire), &back).ok());
  ASSERT_EQ(back.size(), batch.size());
  for (size_t i = 0; i < batch.size(); ++i) {
    EXPECT_EQ(back[i].kind, batch[i].kind);
    EXPECT_EQ(back[i].region_id, batch[i].region_id);
    EXPECT_EQ(back[i].row_key, batch[i].row_key);
    EXPECT_EQ(back[i].cells, batch[i].cells);
    EXPECT_EQ(back[i].columns, batch[i].columns);
  }
}

TEST_F(RegionConversionTest, ReadRequestsRoundTrip) {
  std::vector<GetRequest> gets(2);
  gets[0] = {3, "row", {"f"}};
  gets[1] = {4, "", {}};
  std::vector<rpc::TGet> wire_gets;
  ASSERT_TRUE(ToThrift(gets, &wire_gets).ok());
  std::vector<GetRequest> gets_back;
  ASSERT_TRUE(FromThrift(ThroughWire(wire_gets), &gets_back).ok());
  ASSERT_EQ(gets_back.size(), 2u);
  EXPECT_EQ(gets_back[0].region_id, 3u);
  EXPECT_EQ(gets_back[0].row_key, "row");
  EXPECT_EQ(gets_back[0].columns, Projection{"f"});
  EXPECT_EQ(gets_back[1].region_id, 4u);

  ScanRequest scan{9, "a", "z", 100, {"f:a"}, 12345};
  rpc::TScan wire_scan;
  ASSERT_TRUE(ToThrift(scan, &wire_scan).ok());
  ScanRequest scan_back;
  ASSERT_TRUE(FromThrift(ThroughWire(wire_scan), &scan_back).ok());
  EXPECT_EQ(scan_back.region_id, 9u);
  EXPECT_EQ(scan_back.start_row, "a");
  EXPECT_EQ(scan_back.stop_row, "z");
  EXPECT_EQ(scan_back.limit, 100u);
  EXPECT_EQ(scan_back.columns, Projection{"f:a"});
  EXPECT_EQ(scan_back.max_bytes, 12345u);

  IndexQuery query;
  query.table_id = 7;
  query.region_ids = {1, 2};
  query.equals = {{"f:country", "NO"}};
  query.range = RangePredicate{"f:feature", std::string("A"), std::nullopt};
  query.limit = 10;
  query.max_bytes = 777;
  rpc::TIndexQuery wire_query;
  ASSERT_TRUE(ToThrift(query, &wire_query).ok());
  IndexQuery query_back;
  ASSERT_TRUE(FromThrift(ThroughWire(wire_query), &query_back).ok());
  EXPECT_EQ(query_back.table_id, 7u);
  EXPECT_EQ(query_back.region_ids, (std::vector<uint64_t>{1, 2}));
  ASSERT_EQ(query_back.equals.size(), 1u);
  EXPECT_EQ(query_back.equals[0].value, "NO");
  ASSERT_TRUE(query_back.range.has_value());
  EXPECT_EQ(query_back.range->lower, std::optional<std::string>("A"));
  EXPECT_FALSE(query_back.range->upper.has_value());
  EXPECT_EQ(query_back.limit, 10u);
  EXPECT_EQ(query_back.max_bytes, 777u);
}

// A scan's filter text travels as is; no filter leaves the field unset
// (older servers see the request they know), and text over
// kMaxFilterTextBytes is refused on both sides, naming the limit.
TEST_F(RegionConversionTest, ScanFilterRoundTripsAndIsBounded) {
  ScanRequest scan{9, "a", "z", 100, {}, 0};
  rpc::TScan wire_scan;
  ASSERT_TRUE(ToThrift(scan, &wire_scan).ok());
  EXPECT_FALSE(wire_scan.__isset.filter);
  scan.filter = "PrefixFilter('a') AND KeyOnlyFilter()";
  ASSERT_TRUE(ToThrift(scan, &wire_scan).ok());
  ScanRequest back;
  ASSERT_TRUE(FromThrift(ThroughWire(wire_scan), &back).ok());
  EXPECT_EQ(back.filter, scan.filter);

  scan.filter = std::string(kMaxFilterTextBytes + 1, 'x');
  Status s = ToThrift(scan, &wire_scan);
  ASSERT_FALSE(s.ok());
  EXPECT_NE(s.message().find("filter"), std::string::npos) << s.ToString();
  wire_scan.__set_filter(scan.filter);
  s = FromThrift(ThroughWire(wire_scan), &back);
  ASSERT_TRUE(s.IsInvalidArgument()) << s.ToString();
  EXPECT_NE(s.message().find(std::to_string(kMaxFilterTextBytes)),
            std::string::npos)
      << s.ToString();
}

TEST_F(RegionConversionTest, ResultsRoundTrip) {
  WriteResult written;
  written.epoch = 3;
  written.last_seq = 9;
  // An incarnation is 64 random bits: the top one set travels as well.
  written.incarnation = (uint64_t{1} << 63) | 42;
  // A hash with the top bits set travels as negative i64s, bit for bit.
  written.ops = {{5, FilterOp::Kind::kInsert, {~uint64_t{0}, 1ull << 63}, 2},
                 {6, FilterOp::Kind::kRemove, {12345, 0}, 0}};
  rpc::TWriteResult wire_written;
  ASSERT_TRUE(ToThrift(written, &wire_written).ok());
  EXPECT_LT(wire_written.ops[0].hashHigh, 0);
  WriteResult written_back;
  ASSERT_TRUE(FromThrift(ThroughWire(wire_written), &written_back).ok());
  EXPECT_EQ(written_back.incarnation, written.incarnation);
  EXPECT_EQ(written_back.epoch, 3u);
  EXPECT_EQ(written_back.last_seq, 9u);
  EXPECT_EQ(written_back.ops, written.ops);
  // A result without its server's incarnation cannot be ordered: refused.
  wire_written.__set_incarnation(0);
  EXPECT_TRUE(
      FromThrift(ThroughWire(wire_written), &written_back).IsCorruption());

  const Row row{"k", {{"f:a", "1", 0}, {"f:b", "2", 1700000000000}}};
  std::vector<std::optional<Row>> rows = {row, std::nullopt};
  std::vector<rpc::TResult> wire_rows;
  ASSERT_TRUE(ToThrift(rows, &wire_rows).ok());
  EXPECT_FALSE(wire_rows[1].__isset.row);
  EXPECT_TRUE(wire_rows[1].columnValues.empty());
  std::vector<std::optional<Row>> rows_back;
  ASSERT_TRUE(FromThrift(ThroughWire(wire_rows), &rows_back).ok());
  EXPECT_EQ(rows_back, rows);

  ScanResult scan{{row}, std::string("l")};
  rpc::TScanResult wire_scan;
  ASSERT_TRUE(ToThrift(scan, &wire_scan).ok());
  ScanResult scan_back;
  ASSERT_TRUE(FromThrift(ThroughWire(wire_scan), &scan_back).ok());
  EXPECT_EQ(scan_back.rows, scan.rows);
  EXPECT_EQ(scan_back.resume_row, scan.resume_row);

  IndexQueryResult found{{row}, true, std::string("k")};
  rpc::TIndexQueryResult wire_found;
  ASSERT_TRUE(ToThrift(found, &wire_found).ok());
  IndexQueryResult found_back;
  ASSERT_TRUE(FromThrift(ThroughWire(wire_found), &found_back).ok());
  EXPECT_EQ(found_back.rows, found.rows);
  EXPECT_TRUE(found_back.truncated);
  EXPECT_EQ(found_back.resume_after, found.resume_after);
}

TEST_F(RegionConversionTest, FilterResultsRoundTrip) {
  FilterSnapshot snapshot{11, 4, 99, std::string("\x00\x01\x02", 3)};
  rpc::TFilterSnapshot wire_snapshot;
  ASSERT_TRUE(ToThrift(snapshot, &wire_snapshot).ok());
  FilterSnapshot snapshot_back;
  ASSERT_TRUE(FromThrift(ThroughWire(wire_snapshot), &snapshot_back).ok());
  EXPECT_EQ(snapshot_back.incarnation, 11u);
  EXPECT_EQ(snapshot_back.epoch, 4u);
  EXPECT_EQ(snapshot_back.last_seq, 99u);
  EXPECT_EQ(snapshot_back.filter, snapshot.filter);

  FilterOpsSince since;
  since.incarnation = 12;
  since.epoch = 4;
  since.too_old = true;
  since.last_seq = 120;
  rpc::TFilterOpsSince wire_since;
  ASSERT_TRUE(ToThrift(since, &wire_since).ok());
  FilterOpsSince since_back;
  ASSERT_TRUE(FromThrift(ThroughWire(wire_since), &since_back).ok());
  EXPECT_TRUE(since_back.too_old);
  EXPECT_EQ(since_back.incarnation, 12u);
  EXPECT_EQ(since_back.last_seq, 120u);
  EXPECT_TRUE(since_back.ops.empty());

  IndexReport report;
  report.rows = 10;
  report.index_entries_valid = 20;
  report.values = 5;
  report.filter_matches_rebuild = true;
  report.problems = {"none"};
  rpc::TIndexReport wire_report;
  ASSERT_TRUE(ToThrift(report, &wire_report).ok());
  EXPECT_TRUE(wire_report.ok);
  IndexReport report_back;
  ASSERT_TRUE(FromThrift(ThroughWire(wire_report), &report_back).ok());
  EXPECT_EQ(report_back.rows, 10u);
  EXPECT_EQ(report_back.index_entries_valid, 20u);
  EXPECT_EQ(report_back.values, 5u);
  EXPECT_TRUE(report_back.ok());
  EXPECT_EQ(report_back.problems, report.problems);

  report.index_entries_missing = 1;
  ASSERT_TRUE(ToThrift(report, &wire_report).ok());
  EXPECT_FALSE(wire_report.ok);
}

// Ops carry the occupancy bits they changed (a k-bit mask, k <= 64): bit
// 63 travels as a negative i64, bit for bit, in write results and in
// OpsSince; an op without its mask cannot be applied to a bits-only replica.
TEST_F(RegionConversionTest, OpMasksRoundTripAndAreRequired) {
  const std::vector<FilterOp> ops = {
      {5, FilterOp::Kind::kInsert, {1, 2}, 2, (uint64_t{1} << 63) | 5},
      {6, FilterOp::Kind::kRemove, {3, 4}, 0, 0},
      {7, FilterOp::Kind::kInsert, {5, 6}, 1, ~uint64_t{0}}};
  WriteResult written;
  written.incarnation = 1;
  written.epoch = 2;
  written.last_seq = 7;
  written.ops = ops;
  rpc::TWriteResult wire_written;
  ASSERT_TRUE(ToThrift(written, &wire_written).ok());
  EXPECT_LT(wire_written.ops[0].mask, 0);
  WriteResult written_back;
  ASSERT_TRUE(FromThrift(ThroughWire(wire_written), &written_back).ok());
  EXPECT_EQ(written_back.ops, ops);

  FilterOpsSince since;
  since.incarnation = 1;
  since.epoch = 2;
  since.last_seq = 7;
  since.ops = ops;
  rpc::TFilterOpsSince wire_since;
  ASSERT_TRUE(ToThrift(since, &wire_since).ok());
  FilterOpsSince since_back;
  ASSERT_TRUE(FromThrift(ThroughWire(wire_since), &since_back).ok());
  EXPECT_EQ(since_back.ops, ops);

  wire_since = ThroughWire(wire_since);
  wire_since.ops[2].__isset.mask = false;
  const Status s = FromThrift(wire_since, &since_back);
  EXPECT_TRUE(s.IsCorruption());
  EXPECT_EQ(s.message(), "result.ops[2].mask is missing");
}

TEST_F(RegionConversionTest, FilterImagePagesRoundTrip) {
  const FilterImagePage page{
      (uint64_t{1} << 63) | 3,   4, 99, ~uint64_t{6}, 5000, 4096,
      std::string("\x00\xff", 2)};
  rpc::TFilterImagePage wire;
  ASSERT_TRUE(ToThrift(page, &wire).ok());
  EXPECT_LT(wire.imageId, 0);  // bits
  FilterImagePage back;
  ASSERT_TRUE(FromThrift(ThroughWire(wire), &back).ok());
  EXPECT_EQ(back.incarnation, page.incarnation);
  EXPECT_EQ(back.epoch, 4u);
  EXPECT_EQ(back.last_seq, 99u);
  EXPECT_EQ(back.image_id, page.image_id);
  EXPECT_EQ(back.total_bytes, 5000u);
  EXPECT_EQ(back.offset, 4096u);
  EXPECT_EQ(back.bytes, page.bytes);

  rpc::TFilterImagePage missing = ThroughWire(wire);
  missing.__isset.bytes = false;
  Status s = FromThrift(missing, &back);
  EXPECT_TRUE(s.IsCorruption());
  EXPECT_EQ(s.message(), "page.bytes is missing");
  rpc::TFilterImagePage negative = ThroughWire(wire);
  negative.__set_totalBytes(-1);
  s = FromThrift(negative, &back);
  EXPECT_TRUE(s.IsCorruption());
  EXPECT_EQ(s.message(), "page.totalBytes is negative (-1)");
}

TEST_F(RegionConversionTest, FilterStatusCarriesEveryStage) {
  FilterStatus status;
  status.incarnation = 13;
  status.epoch = 2;
  status.last_seq = 17;
  StageStats stage;
  stage.geometry = {1, 0.0025, 9, 2955, 2048, 7};
  stage.elements = 100;
  stage.fill = 0.25;
  stage.estimated_fpr = 1e-5;
  stage.planes = 1;
  stage.memory_bytes = 4096;
  status.stats.stages = {stage, stage};
  status.stats.elements = 200;
  status.stats.memory_bytes = 8192;
  rpc::TFilterStatus wire;
  ASSERT_TRUE(ToThrift(status, &wire).ok());
  EXPECT_EQ(wire.epoch, 2);
  EXPECT_EQ(wire.lastSeq, 17);
  ASSERT_EQ(wire.stages.size(), 2u);
  EXPECT_EQ(wire.stages[1].stage, 1);
  EXPECT_EQ(wire.stages[1].slices, 9);
  EXPECT_EQ(wire.stages[1].sliceLength, 2955);
  EXPECT_EQ(wire.stages[1].capacity, 2048);
  EXPECT_EQ(wire.stages[1].firstProbe, 7);
  EXPECT_EQ(wire.stages[1].elements, 100);
  EXPECT_DOUBLE_EQ(wire.stages[1].fill, 0.25);
  EXPECT_EQ(wire.elements, 200);
  EXPECT_EQ(wire.memoryBytes, 8192);

  FilterStatus back;
  ASSERT_TRUE(FromThrift(ThroughWire(wire), &back).ok());
  EXPECT_EQ(back.epoch, 2u);
  EXPECT_EQ(back.last_seq, 17u);
  EXPECT_EQ(back.stats.elements, 200u);
  EXPECT_EQ(back.stats.memory_bytes, 8192u);
  ASSERT_EQ(back.stats.stages.size(), 2u);
  const StageStats& s = back.stats.stages[1];
  EXPECT_EQ(s.geometry.stage, 1u);
  EXPECT_DOUBLE_EQ(s.geometry.target_fpr, 0.0025);
  EXPECT_EQ(s.geometry.slices, 9u);
  EXPECT_EQ(s.geometry.slice_length, 2955u);
  EXPECT_EQ(s.geometry.capacity, 2048u);
  EXPECT_EQ(s.geometry.first_probe, 7u);
  EXPECT_EQ(s.elements, 100u);
  EXPECT_DOUBLE_EQ(s.fill, 0.25);
  EXPECT_DOUBLE_EQ(s.estimated_fpr, 1e-5);
  EXPECT_EQ(s.planes, 1u);
  EXPECT_EQ(s.memory_bytes, 4096u);
}

TEST_F(RegionConversionTest, FilterConfigRoundTripsAndIsValidated) {
  SscbfConfig config;
  config.target_fpr = 0.05 / 1024;
  config.tightening_ratio = 0.8;
  config.growth_factor = 4;
  config.initial_capacity = 16384;
  config.base_bits = 3;
  config.full_fill = 0.4;
  rpc::TFilterConfig wire;
  ASSERT_TRUE(ToThrift(config, &wire).ok());
  SscbfConfig back;
  ASSERT_TRUE(FromThrift(ThroughWire(wire), &back).ok());
  EXPECT_TRUE(back == config);

  // A request: every field named when missing, negative or invalid.
  for (const char* field : {"targetFpr", "tighteningRatio", "growthFactor",
                            "initialCapacity", "baseBits", "fullFill"}) {
    rpc::TFilterConfig missing = wire;
    const std::string f = field;
    if (f == "targetFpr") missing.__isset.targetFpr = false;
    if (f == "tighteningRatio") missing.__isset.tighteningRatio = false;
    if (f == "growthFactor") missing.__isset.growthFactor = false;
    if (f == "initialCapacity") missing.__isset.initialCapacity = false;
    if (f == "baseBits") missing.__isset.baseBits = false;
    if (f == "fullFill") missing.__isset.fullFill = false;
    SscbfConfig out = config;
    const Status s = FromThrift(missing, &out);
    EXPECT_TRUE(s.IsInvalidArgument()) << s.ToString();
    EXPECT_THAT(s.message(), HasSubstr("config." + f + " is missing"));
  }
  rpc::TFilterConfig negative = wire;
  negative.__set_initialCapacity(-5);
  EXPECT_THAT(FromThrift(negative, &back).message(),
              HasSubstr("config.initialCapacity is negative"));
  rpc::TFilterConfig invalid = wire;
  invalid.__set_targetFpr(1.5);
  const Status s = FromThrift(invalid, &back);
  EXPECT_TRUE(s.IsInvalidArgument()) << s.ToString();
  EXPECT_THAT(s.message(), HasSubstr("target FPR"));
  invalid.__set_targetFpr(std::nan(""));
  EXPECT_TRUE(FromThrift(invalid, &back).IsInvalidArgument());
  EXPECT_TRUE(back == config);  // untouched by the failures

  // In a status (a result): carried, and an invalid one is Corruption.
  FilterStatus status;
  status.incarnation = 1;
  status.config = config;
  rpc::TFilterStatus wire_status;
  ASSERT_TRUE(ToThrift(status, &wire_status).ok());
  FilterStatus status_back;
  ASSERT_TRUE(FromThrift(ThroughWire(wire_status), &status_back).ok());
  EXPECT_TRUE(status_back.config == config);
  wire_status.config.__set_baseBits(40);
  EXPECT_TRUE(FromThrift(wire_status, &status_back).IsCorruption());
  // A server before the field: the config stays as it was.
  wire_status.__isset.config = false;
  FilterStatus old_server;
  ASSERT_TRUE(FromThrift(ThroughWire(wire_status), &old_server).ok());
  EXPECT_TRUE(old_server.config == SscbfConfig());
}

TEST_F(RegionConversionTest, MissingFieldsAreNamed) {
  rpc::TMutation no_region = WirePut(1, "r");
  no_region.__isset.regionId = false;
  EXPECT_EQ(MutationError({WirePut(1, "a"), no_region}),
            "mutations[1].regionId is missing");
  rpc::TMutation no_row = WirePut(1, "r");
  no_row.__isset.row = false;
  EXPECT_EQ(MutationError({no_row}), "mutations[0].row is missing");
  rpc::TMutation no_type = WirePut(1, "r");
  no_type.__isset.type = false;
  EXPECT_EQ(MutationError({no_type}), "mutations[0].type is missing");
  rpc::TMutation no_value = WirePut(1, "r");
  no_value.columnValues[0].__isset.value = false;
  EXPECT_EQ(MutationError({no_value}),
            "mutations[0].columnValues[0].value is missing");

  rpc::TRegionDescriptor region;
  ASSERT_TRUE(ToThrift(SampleRegion(), &region).ok());
  region = ThroughWire(region);
  region.table.indexedColumns[1].__isset.columnId = false;
  RegionDescriptor out;
  Status s = FromThrift(region, &out);
  EXPECT_TRUE(s.IsInvalidArgument());
  EXPECT_EQ(s.message(), "region.table.indexedColumns[1].columnId is missing");
  region.__isset.table = false;
  EXPECT_EQ(FromThrift(region, &out).message(), "region.table is missing");

  rpc::TScan scan;
  scan.__set_regionId(1);
  scan.__set_limit(5);
  scan = ThroughWire(scan);
  scan.__isset.limit = false;
  ScanRequest scan_out;
  EXPECT_EQ(FromThrift(scan, &scan_out).message(), "scan.limit is missing");
  rpc::TIndexQuery query;
  query.__set_limit(1);
  query = ThroughWire(query);
  query.__isset.tableId = false;
  IndexQuery query_out;
  EXPECT_EQ(FromThrift(query, &query_out).message(),
            "query.tableId is missing");
}

TEST_F(RegionConversionTest, NegativeNumbersAreRejectedByName) {
  EXPECT_EQ(MutationError({WirePut(1, "a"), WirePut(-1, "b")}),
            "mutations[1].regionId is negative (-1)");

  rpc::TRegionDescriptor region;
  ASSERT_TRUE(ToThrift(SampleRegion(), &region).ok());
  region = ThroughWire(region);
  region.table.indexedColumns[0].columnId = -3;
  RegionDescriptor out;
  EXPECT_EQ(FromThrift(region, &out).message(),
            "region.table.indexedColumns[0].columnId is negative (-3)");
  region.table.indexedColumns[0].columnId = 1;
  region.table.tableId = std::numeric_limits<int64_t>::min();
  EXPECT_THAT(FromThrift(region, &out).message(),
              HasSubstr("region.table.tableId is negative"));

  rpc::TScan scan;
  scan.__set_regionId(1);
  scan.__set_limit(-5);
  scan = ThroughWire(scan);
  ScanRequest scan_out;
  EXPECT_EQ(FromThrift(scan, &scan_out).message(),
            "scan.limit is negative (-5)");

  rpc::TIndexQuery query;
  query.__set_tableId(1);
  query.__set_limit(1);
  query.__set_regionIds({1, -2});
  query = ThroughWire(query);
  IndexQuery query_out;
  EXPECT_EQ(FromThrift(query, &query_out).message(),
            "query.regionIds[1] is negative (-2)");

  std::vector<rpc::TGet> gets(1);
  gets[0].__set_regionId(-9);
  gets[0].__set_row("r");
  gets = ThroughWire(gets);
  std::vector<GetRequest> gets_out;
  EXPECT_EQ(FromThrift(gets, &gets_out).message(),
            "gets[0].regionId is negative (-9)");

  uint64_t value = 0;
  Status s = UnsignedFromThrift(-1, "seq", &value);
  EXPECT_TRUE(s.IsInvalidArgument());
  EXPECT_EQ(s.message(), "seq is negative (-1)");
  ASSERT_TRUE(
      UnsignedFromThrift(std::numeric_limits<int64_t>::max(), "seq", &value)
          .ok());
  EXPECT_EQ(value, uint64_t{std::numeric_limits<int64_t>::max()});
}

TEST_F(RegionConversionTest, MalformedMutationsAreRejected) {
  rpc::TMutation unknown = WirePut(1, "r");
  unknown.type = 7;
  EXPECT_EQ(MutationError({unknown}),
            "mutations[0].type has no such value (7)");

  rpc::TMutation put_with_columns = WirePut(1, "r");
  put_with_columns.__set_columns({"f:a"});
  EXPECT_EQ(MutationError({put_with_columns}),
            "mutations[0] is a PUT with columns to delete");

  rpc::TMutation delete_with_cells = WirePut(1, "r");
  delete_with_cells.__set_type(rpc::TMutationType::DELETE);
  EXPECT_EQ(MutationError({delete_with_cells}),
            "mutations[0] is a DELETE with cells to put");
}

TEST_F(RegionConversionTest, ServerValuesThatDoNotFitTheWireFail) {
  RegionDescriptor region = SampleRegion();
  region.region_id = uint64_t{1} << 63;
  rpc::TRegionDescriptor wire;
  Status s = ToThrift(region, &wire);
  EXPECT_TRUE(s.IsIOError()) << s.ToString();
  EXPECT_THAT(s.message(), HasSubstr("region_id"));

  region = SampleRegion();
  region.table.indexed_columns[0].column_id = 1u << 31;
  EXPECT_TRUE(ToThrift(region, &wire).IsIOError());

  WriteResult written;
  written.epoch = ~uint64_t{0};
  rpc::TWriteResult wire_written;
  EXPECT_TRUE(ToThrift(written, &wire_written).IsIOError());

  int64_t argument = 0;
  ASSERT_TRUE(UnsignedToThrift(uint64_t{1} << 62, "seq", &argument).ok());
  EXPECT_EQ(argument, int64_t{1} << 62);
  s = UnsignedToThrift(uint64_t{1} << 63, "seq", &argument);
  EXPECT_TRUE(s.IsIOError());
  EXPECT_THAT(s.message(), HasSubstr("seq"));
}

TEST_F(RegionConversionTest, ImpossibleResultsAreCorruption) {
  rpc::TWriteResult written;
  written.__set_incarnation(5);
  written.__set_epoch(-1);
  written = ThroughWire(written);
  WriteResult out;
  EXPECT_TRUE(FromThrift(written, &out).IsCorruption());

  written.__set_epoch(1);
  rpc::TFilterOp op;
  op.__set_seq(1);
  op.__set_kind(9);
  op.__set_hashLow(1);
  op.__set_hashHigh(2);
  op.__set_stage(0);
  op.__set_mask(1);
  written.__set_ops({op});
  written = ThroughWire(written);
  Status s = FromThrift(written, &out);
  EXPECT_TRUE(s.IsCorruption());
  EXPECT_EQ(s.message(), "result.ops[0].kind has no such value (9)");

  std::vector<rpc::TResult> rows(1);
  rpc::TColumnValue cell;
  cell.__set_column("f:a");
  cell.__set_value("v");
  rows[0].__set_columnValues({cell});
  rows = ThroughWire(rows);
  std::vector<std::optional<Row>> rows_out;
  EXPECT_TRUE(FromThrift(rows, &rows_out).IsCorruption());

  rpc::TFilterStatus status;
  status.__set_incarnation(5);
  status.__set_epoch(1);
  status.__set_stages(std::vector<rpc::TStageStats>(2));
  status.stages[1].__set_slices(-3);
  FilterStatus status_out;
  s = FromThrift(ThroughWire(status), &status_out);
  EXPECT_TRUE(s.IsCorruption());
  EXPECT_EQ(s.message(), "status.stages[1].slices is negative (-3)");
}

TEST_F(RegionConversionTest, AtomicMutationsRoundTrip) {
  std::vector<Mutation> batch = {
      Mutation::Increment(1, "r", {{"f:n", -3}, {"f:m", INT64_MIN}}),
      Mutation::Append(1, "r", {{"f:s", std::string("\0x", 2)}}),
      Put(1, "r", {{"f:a", "v"}}), Delete(1, "r", {"f:b"})};
  batch[2].condition = RowCondition{"f:a", CompareOp::kGreater, "b"};
  batch[3].condition = RowCondition{"f:a", CompareOp::kNotEqual, std::nullopt};
  batch[0].condition = RowCondition{"f:a", CompareOp::kLess, std::string()};
  std::vector<rpc::TMutation> wire;
  ASSERT_TRUE(ToThrift(batch, &wire).ok());
  std::vector<Mutation> back;
  Status s = FromThrift(ThroughWire(wire), &back);
  ASSERT_TRUE(s.ok()) << s.ToString();
  ASSERT_EQ(back.size(), batch.size());
  for (size_t i = 0; i < batch.size(); ++i) {
    EXPECT_EQ(back[i].kind, batch[i].kind) << i;
    EXPECT_EQ(back[i].cells, batch[i].cells) << i;
    EXPECT_EQ(back[i].columns, batch[i].columns) << i;
    EXPECT_EQ(back[i].increments, batch[i].increments) << i;
    EXPECT_EQ(back[i].condition, batch[i].condition) << i;
  }
  EXPECT_FALSE(back[1].condition.has_value());
}

TEST_F(RegionConversionTest, BadAtomicMutationsAreNamed) {
  std::vector<Mutation> batch = {Put(1, "r", {{"f:a", "v"}})};
  batch[0].condition = RowCondition{"f:a", CompareOp::kEqual, "v"};
  std::vector<rpc::TMutation> wire;
  ASSERT_TRUE(ToThrift(batch, &wire).ok());
  // Default-requiredness fields are marked set when read from the wire.
  wire = ThroughWire(wire);
  std::vector<rpc::TMutation> bad_op = wire;
  bad_op[0].condition.__set_compareOp(17);
  EXPECT_EQ(MutationError(bad_op),
            "mutations[0].condition.compareOp has no such value (17)");
  std::vector<rpc::TMutation> no_column = wire;
  no_column[0].condition.__isset.column = false;
  EXPECT_EQ(MutationError(no_column),
            "mutations[0].condition.column is missing");
  // An increment carries amounts only; a put no amounts.
  std::vector<rpc::TMutation> put_with_amounts = wire;
  rpc::TColumnIncrement inc;
  inc.__set_column("f:n");
  inc.__set_amount(1);
  put_with_amounts[0].__set_increments({inc});
  EXPECT_EQ(MutationError(put_with_amounts),
            "mutations[0] is a PUT with increments");
  std::vector<rpc::TMutation> increment = wire;
  increment[0].__set_type(rpc::TMutationType::INCREMENT);
  EXPECT_EQ(MutationError(increment),
            "mutations[0] is an INCREMENT with cells to put");
  increment[0].columnValues.clear();
  rpc::TColumnIncrement no_amount;
  no_amount.__set_column("f:n");
  no_amount.__isset.column = true;
  increment[0].__set_increments({no_amount});
  EXPECT_EQ(MutationError(increment),
            "mutations[0].increments[0].amount is missing");
}

TEST_F(RegionConversionTest, OutcomesRoundTrip) {
  WriteResult written;
  written.epoch = 1;
  written.last_seq = 2;
  written.incarnation = 3;
  // A returned cell always carries its stamped timestamp.
  written.outcomes = {
      MutationOutcome{false, {}},
      MutationOutcome{true, {{"f:n", "12345678", 1700000000001}}}};
  rpc::TWriteResult wire;
  ASSERT_TRUE(ToThrift(written, &wire).ok());
  WriteResult back;
  Status s = FromThrift(ThroughWire(wire), &back);
  ASSERT_TRUE(s.ok()) << s.ToString();
  EXPECT_EQ(back.outcomes, written.outcomes);
  // A plain batch's result carries none.
  written.outcomes.clear();
  rpc::TWriteResult plain;
  ASSERT_TRUE(ToThrift(written, &plain).ok());
  EXPECT_FALSE(plain.__isset.outcomes);
  ASSERT_TRUE(FromThrift(ThroughWire(plain), &back).ok());
  EXPECT_TRUE(back.outcomes.empty());
  // An outcome without `applied` is not one the server sent.
  rpc::TWriteResult read = ThroughWire(wire);
  read.outcomes[0].__isset.applied = false;
  s = FromThrift(read, &back);
  EXPECT_TRUE(s.IsCorruption()) << s.ToString();
}

}  // namespace
}  // namespace bloomroute

namespace bloomroute {
namespace {

// IN lists, more ranges and count_only travel in fields 10..12 of
// TIndexQuery, the count in field 4 of TIndexQueryResult.
TEST(RegionIndexQueryConversionTest, InListsRangesAndCountsRoundTrip) {
  IndexQuery query;
  query.table_id = 7;
  query.limit = 10;
  query.in = {InPredicate{"f:country", {"NO", "SE"}}};
  query.ranges = {RangePredicate{"f:feature", std::nullopt, std::string("P")},
                  RangePredicate{"f:pop", std::string("1"), std::nullopt}};
  query.count_only = true;
  rpc::TIndexQuery wire;
  ASSERT_TRUE(ToThrift(query, &wire).ok());
  IndexQuery back;
  ASSERT_TRUE(FromThrift(ThroughWire(wire), &back).ok());
  ASSERT_EQ(back.in.size(), 1u);
  EXPECT_EQ(back.in[0].column, "f:country");
  EXPECT_EQ(back.in[0].values, (std::vector<std::string>{"NO", "SE"}));
  ASSERT_EQ(back.ranges.size(), 2u);
  EXPECT_EQ(back.ranges[0].upper, std::optional<std::string>("P"));
  EXPECT_FALSE(back.ranges[0].lower.has_value());
  EXPECT_EQ(back.ranges[1].lower, std::optional<std::string>("1"));
  EXPECT_TRUE(back.count_only);

  IndexQueryResult result;
  result.truncated = true;
  result.resume_after = "k";
  result.count = 12345678901ull;
  rpc::TIndexQueryResult wire_result;
  ASSERT_TRUE(ToThrift(result, &wire_result).ok());
  IndexQueryResult result_back;
  ASSERT_TRUE(FromThrift(ThroughWire(wire_result), &result_back).ok());
  EXPECT_EQ(result_back.count, 12345678901ull);
  EXPECT_TRUE(result_back.truncated);
}

// A reply the region client gives up is moved into the model's rows, with
// the same checks as a copy: equal rows, and a row without its key or a
// cell without its column or value is Corruption naming the field.
TEST(RegionIndexQueryConversionTest, MovedRepliesAreCheckedAsCopiedOnes) {
  IndexQueryResult result;
  result.rows = {Row{"a", {{"f:x", std::string(100, 'x'), 5}, {"f:y", "", 6}}},
                 Row{"b", {{"f:x", "1", 7}}}};
  rpc::TIndexQueryResult wire;
  ASSERT_TRUE(ToThrift(result, &wire).ok());
  for (bool move : {false, true}) {
    SCOPED_TRACE(move ? "moved" : "copied");
    auto convert = [&](rpc::TIndexQueryResult in, IndexQueryResult* out) {
      return move ? FromThrift(std::move(in), out)
                  : FromThrift(static_cast<const rpc::TIndexQueryResult&>(in),
                               out);
    };
    IndexQueryResult back;
    ASSERT_TRUE(convert(wire, &back).ok());
    EXPECT_EQ(back.rows, result.rows);
    rpc::TIndexQueryResult bad = wire;
    bad.rows[1].__isset.row = false;
    Status s = convert(bad, &back);
    EXPECT_TRUE(s.IsCorruption()) << s.ToString();
    EXPECT_THAT(s.message(), HasSubstr("result.rows[1].row"));
    bad = wire;
    bad.rows[0].columnValues[1].__isset.value = false;
    s = convert(bad, &back);
    EXPECT_TRUE(s.IsCorruption()) << s.ToString();
    EXPECT_THAT(s.message(), HasSubstr("result.rows[0].columnValues[1].value"));
  }
}

// An old peer's query (no field 10..12) reads as before.
TEST(RegionIndexQueryConversionTest, OldQueriesReadWithoutTheNewFields) {
  rpc::TIndexQuery wire;
  wire.__set_tableId(1);
  wire.__set_limit(5);
  wire.__set_equals({rpc::TEqualityPredicate()});
  wire.equals[0].__set_column("f:a");
  wire.equals[0].__set_value("v");
  IndexQuery back;
  back.count_only = true;  // overwritten
  ASSERT_TRUE(FromThrift(ThroughWire(wire), &back).ok());
  EXPECT_TRUE(back.in.empty());
  EXPECT_TRUE(back.ranges.empty());
  EXPECT_FALSE(back.count_only);
  rpc::TIndexQueryResult old_result;
  old_result.__set_truncated(false);
  IndexQueryResult result;
  result.count = 9;
  ASSERT_TRUE(FromThrift(ThroughWire(old_result), &result).ok());
  EXPECT_EQ(result.count, 0u);
}

TEST(RegionIndexQueryConversionTest, HostilePredicatesAreRefusedByName) {
  rpc::TIndexQuery wire;
  wire.__set_tableId(1);
  wire.__set_limit(5);
  rpc::TInPredicate in;
  in.__set_column("f:a");
  for (size_t i = 0; i <= kMaxIndexPredicateValues; ++i) {
    in.values.push_back(std::to_string(i));
  }
  in.__isset.values = true;
  wire.__set_inLists({in});
  wire = ThroughWire(wire);
  IndexQuery out;
  Status s = FromThrift(wire, &out);
  EXPECT_TRUE(s.IsInvalidArgument());
  EXPECT_THAT(s.message(), HasSubstr("kMaxIndexPredicateValues"));

  in.__set_values({std::string(kMaxIndexPredicateBytes, 'x'), "y"});
  wire.__set_inLists({in});
  s = FromThrift(ThroughWire(wire), &out);
  EXPECT_THAT(s.message(), HasSubstr("kMaxIndexPredicateBytes"));

  in.__set_values({"x"});
  wire.__set_inLists({in});
  wire = ThroughWire(wire);
  wire.inLists[0].__isset.column = false;
  EXPECT_EQ(FromThrift(wire, &out).message(),
            "query.inLists[0].column is missing");

  wire.inLists.assign(kMaxIndexPredicates + 1, rpc::TInPredicate());
  s = FromThrift(ThroughWire(wire), &out);
  EXPECT_THAT(s.message(), HasSubstr("kMaxIndexPredicates"));

  wire.inLists.clear();
  wire.__set_ranges({rpc::TRangePredicate()});
  EXPECT_EQ(FromThrift(wire, &out).message(),
            "query.ranges[0].column is missing");

  rpc::TIndexQueryResult result;
  result.__set_count(-1);
  IndexQueryResult result_out;
  s = FromThrift(ThroughWire(result), &result_out);
  EXPECT_TRUE(s.IsCorruption()) << s.ToString();
  EXPECT_THAT(s.message(), HasSubstr("result.count is negative"));
}

}  // namespace
}  // namespace bloomroute
