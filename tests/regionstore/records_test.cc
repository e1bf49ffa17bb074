#include "regionstore/internal/records.h"

#include <gtest/gtest.h>

namespace bloomroute::regionstore_internal {
namespace {

TEST(RecordsTest, EveryRecordRoundTrips) {
  std::vector<Cell> cells = {{"d:a", std::string("\0x", 2)}, {"d:b", ""}};
  std::vector<Cell> decoded;
  ASSERT_TRUE(DecodeRowCells(EncodeRowCells(cells), &decoded).ok());
  EXPECT_EQ(decoded, cells);

  StoredRegion region{
      RegionDescriptor{5, {7, "t", {{1, "d:c"}, {4, "e:"}}}, "a", "q"}, true};
  auto r = DecodeRegion(EncodeRegion(region));
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_EQ(r->descriptor, region.descriptor);
  EXPECT_TRUE(r->open);

  FilterOp op{42, FilterOp::Kind::kRemove, ElementHash{1, 2}, 3};
  uint64_t epoch;
  FilterOp back;
  ASSERT_TRUE(DecodeOp(EncodeOp(9, op), 42, &epoch, &back).ok());
  EXPECT_EQ(epoch, 9u);
  EXPECT_EQ(back, op);

  ValueRecord v{17, 2}, vb;
  ASSERT_TRUE(DecodeValueRecord(EncodeValueRecord(v), &vb).ok());
  EXPECT_EQ(vb.count, 17u);
  EXPECT_EQ(vb.stage, 2u);

  FilterMark mark;
  ASSERT_TRUE(
      DecodeFilterMark(EncodeFilterMark(FilterMark{4, 77}), &mark).ok());
  EXPECT_EQ(mark.epoch, 4u);
  EXPECT_EQ(mark.seq, 77u);
  EXPECT_TRUE(DecodeFilterMark("\x01short", &mark).IsCorruption());

  auto c = DecodeCheckpoint(EncodeCheckpoint(Checkpoint{3, 99, "filter"}));
  ASSERT_TRUE(c.ok());
  EXPECT_EQ(c->epoch, 3u);
  EXPECT_EQ(c->seq, 99u);
  EXPECT_EQ(c->filter, "filter");
}

TEST(RecordsTest, EveryTruncationAndBadVersionIsCorruption) {
  const std::string row = EncodeRowCells({{"d:a", "v"}, {"d:b", "w"}});
  const std::string region = EncodeRegion(
      StoredRegion{RegionDescriptor{5, {7, "t", {{1, "d:c"}}}, "", ""}, false});
  const std::string op =
      EncodeOp(1, FilterOp{1, FilterOp::Kind::kInsert, {}, 0});
  for (size_t n = 0; n < row.size(); ++n) {
    std::vector<Cell> cells;
    EXPECT_TRUE(DecodeRowCells(row.substr(0, n), &cells).IsCorruption()) << n;
  }
  for (size_t n = 0; n < region.size(); ++n) {
    EXPECT_TRUE(DecodeRegion(region.substr(0, n)).status().IsCorruption()) << n;
  }
  for (size_t n = 0; n < op.size(); ++n) {
    uint64_t e;
    FilterOp o;
    EXPECT_TRUE(DecodeOp(op.substr(0, n), 1, &e, &o).IsCorruption()) << n;
  }
  std::string bad_version = row;
  bad_version[0] = 9;
  std::vector<Cell> cells;
  EXPECT_TRUE(DecodeRowCells(bad_version, &cells).IsCorruption());
  // Columns out of order are not something the encoder writes.
  const std::string unsorted = EncodeRowCells({{"d:b", "v"}, {"d:a", "w"}});
  EXPECT_TRUE(DecodeRowCells(unsorted, &cells).IsCorruption());
  std::string bad_kind = op;
  bad_kind[9] = 7;
  uint64_t e;
  FilterOp o;
  EXPECT_TRUE(DecodeOp(bad_kind, 1, &e, &o).IsCorruption());
}

TEST(RecordsTest, FilterConfigRoundTripsAndRejectsBadBytes) {
  SscbfConfig c;
  c.target_fpr = 0.05 / 1024;
  c.tightening_ratio = 0.8;
  c.initial_capacity = 16384;
  const std::string bytes = EncodeFilterConfig(c);
  auto back = DecodeFilterConfig(bytes);
  ASSERT_TRUE(back.ok()) << back.status().ToString();
  EXPECT_TRUE(*back == c);
  for (size_t n = 0; n < bytes.size(); ++n) {
    EXPECT_TRUE(DecodeFilterConfig(bytes.substr(0, n)).status().IsCorruption())
        << n;
  }
  EXPECT_TRUE(DecodeFilterConfig(bytes + "x").status().IsCorruption());
  std::string bad_version = bytes;
  bad_version[0] = 9;
  EXPECT_TRUE(DecodeFilterConfig(bad_version).status().IsCorruption());
  SscbfConfig invalid = c;
  invalid.tightening_ratio = 1.5;  // well-formed bytes, invalid config
  EXPECT_TRUE(
      DecodeFilterConfig(EncodeFilterConfig(invalid)).status().IsCorruption());
}

}  // namespace
}  // namespace bloomroute::regionstore_internal
