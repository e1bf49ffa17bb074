#include "regionstore/internal/records.h"

#include <gtest/gtest.h>

#include "common/coding.h"

namespace bloomroute::regionstore_internal {
namespace {

TEST(RecordsTest, EveryRecordRoundTrips) {
  std::vector<Cell> cells = {{"d:a", std::string("\0x", 2), 0},
                             {"d:b", "", kLatestTimestamp - 1},
                             {"e:", "v", 1700000000000}};
  std::vector<Cell> decoded;
  ASSERT_TRUE(DecodeRowCells(EncodeRowCells(cells), &decoded).ok());
  EXPECT_EQ(decoded, cells);

  StoredRegion region{
      RegionDescriptor{5, {7, "t", {{1, "d:c"}, {4, "e:"}}}, "a", "q"}, true};
  auto r = DecodeRegion(EncodeRegion(region));
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_EQ(r->descriptor, region.descriptor);
  EXPECT_TRUE(r->open);

  FilterOp op{42, FilterOp::Kind::kRemove, ElementHash{1, 2}, 3, 0b1011};
  uint64_t epoch;
  FilterOp back;
  bool has_mask = false;
  ASSERT_TRUE(DecodeOp(EncodeOp(9, op), 42, &epoch, &back, &has_mask).ok());
  EXPECT_EQ(epoch, 9u);
  EXPECT_EQ(back, op);
  EXPECT_TRUE(has_mask);

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

// Format 3 carries the staged flag; a format 2 record (no flag byte)
// decodes as not staged.
TEST(RecordsTest, TheStagedFlagRoundTripsAndOldRegionsAreServing) {
  const RegionDescriptor d{5, {7, "t", {{1, "d:c"}}}, "a", "q"};
  for (bool open : {false, true}) {
    auto r = DecodeRegion(EncodeRegion(StoredRegion{d, open, true}));
    ASSERT_TRUE(r.ok()) << r.status().ToString();
    EXPECT_EQ(r->descriptor, d);
    EXPECT_EQ(r->open, open);
    EXPECT_TRUE(r->staging);
  }
  std::string v4 = EncodeRegion(StoredRegion{d, true, true});
  ASSERT_EQ(v4[0], 4);
  // Format 3 is format 4 without the families (a count of 0 here).
  std::string v3 = v4.substr(0, v4.size() - 4);
  v3[0] = 3;
  auto three = DecodeRegion(v3);
  ASSERT_TRUE(three.ok()) << three.status().ToString();
  EXPECT_EQ(three->descriptor, d);
  EXPECT_TRUE(three->staging);
  std::string v2 = v3;
  v2.erase(2, 1);  // version, open, [staged], ...
  v2[0] = 2;
  auto old = DecodeRegion(v2);
  ASSERT_TRUE(old.ok()) << old.status().ToString();
  EXPECT_EQ(old->descriptor, d);
  EXPECT_TRUE(old->open);
  EXPECT_FALSE(old->staging);
  std::string bad_flag = v3;
  bad_flag[2] = 2;
  EXPECT_TRUE(DecodeRegion(bad_flag).status().IsCorruption());
}

// Format 4 keeps the table's families (a region server checks bulk loads
// against them).
TEST(RecordsTest, TheTablesFamiliesRoundTrip) {
  RegionDescriptor d{5, {7, "t", {{1, "d:c"}}}, "a", "q"};
  d.table.families = {"d", "meta"};
  auto r = DecodeRegion(EncodeRegion(StoredRegion{d, true, false}));
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_EQ(r->descriptor, d);
  std::string truncated = EncodeRegion(StoredRegion{d, true, false});
  truncated.pop_back();
  EXPECT_TRUE(DecodeRegion(truncated).status().IsCorruption());
}

TEST(RecordsTest, EveryTruncationAndBadVersionIsCorruption) {
  const std::string row = EncodeRowCells({{"d:a", "v", 1}, {"d:b", "w", 2}});
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
  const std::string unsorted =
      EncodeRowCells({{"d:b", "v", 1}, {"d:a", "w", 1}});
  EXPECT_TRUE(DecodeRowCells(unsorted, &cells).IsCorruption());
  std::string bad_kind = op;
  bad_kind[9] = 7;
  uint64_t e;
  FilterOp o;
  EXPECT_TRUE(DecodeOp(bad_kind, 1, &e, &o).IsCorruption());
}

// A row as format 1 wrote it, before cells had timestamps.
std::string RowFormat1(const std::vector<Cell>& cells) {
  std::string out;
  PutFixed8(&out, 1);
  PutFixed32(&out, static_cast<uint32_t>(cells.size()));
  for (const Cell& c : cells) {
    PutLengthPrefixed(&out, c.column);
    PutLengthPrefixed(&out, c.value);
  }
  return out;
}

TEST(RecordsTest, RowsCarryTimestampsAndOldRowsStillDecode) {
  const std::vector<Cell> cells = {{"d:a", "v", 1234567}, {"d:b", "", 0}};
  const std::string row = EncodeRowCells(cells);
  EXPECT_EQ(row[0], 2) << "format version";
  std::vector<Cell> decoded;
  ASSERT_TRUE(DecodeRowCells(row, &decoded).ok());
  EXPECT_EQ(decoded, cells);
  // Format 1: the cells come back with timestamp 0.
  ASSERT_TRUE(
      DecodeRowCells(RowFormat1({{"d:a", "x"}, {"d:c", "y"}}), &decoded).ok());
  EXPECT_EQ(decoded, (std::vector<Cell>{{"d:a", "x", 0}, {"d:c", "y", 0}}));
  // A stored timestamp is never negative and never "now".
  for (int64_t bad : {int64_t{-1}, kLatestTimestamp}) {
    std::string b = row;
    const size_t ts_at = b.size() - 8;  // the last cell's timestamp
    for (int i = 0; i < 8; ++i) {
      b[ts_at + i] = static_cast<char>(static_cast<uint64_t>(bad) >> (8 * i));
    }
    EXPECT_TRUE(DecodeRowCells(b, &decoded).IsCorruption()) << bad;
  }
}

TEST(RecordsTest, FlippedRowBytesDecodeOnlyToWhatTheEncoderWrites) {
  const std::string row =
      EncodeRowCells({{"d:a", "val", 77}, {"d:b", "w", 1700000000000}});
  int corrupt = 0;
  for (size_t i = 0; i < row.size(); ++i) {
    for (int bit = 0; bit < 8; ++bit) {
      std::string flipped = row;
      flipped[i] = static_cast<char>(flipped[i] ^ (1 << bit));
      std::vector<Cell> decoded;
      const Status s = DecodeRowCells(flipped, &decoded);
      if (s.ok()) {
        // A flip the format cannot see (a byte of a value or a
        // timestamp): the result is what the encoder writes for it.
        EXPECT_EQ(EncodeRowCells(decoded), flipped) << i << " " << bit;
      } else {
        EXPECT_TRUE(s.IsCorruption()) << s.ToString();
        ++corrupt;
      }
    }
  }
  EXPECT_GT(corrupt, 0);
  // Truncated or extended by a byte.
  std::vector<Cell> decoded;
  EXPECT_TRUE(DecodeRowCells(row + "x", &decoded).IsCorruption());
  EXPECT_TRUE(
      DecodeRowCells(row.substr(0, row.size() - 1), &decoded).IsCorruption());
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

// An op record written before ops carried their occupancy mask (format 1:
// version, epoch, kind, hash, stage) still decodes, as an op whose mask the
// record did not carry.
TEST(RecordsTest, AnOpRecordWrittenBeforeMasksStillDecodes) {
  std::string v1;
  PutFixed8(&v1, 1);
  PutFixed64(&v1, 9);  // epoch
  PutFixed8(&v1, static_cast<uint8_t>(FilterOp::Kind::kInsert));
  PutFixed64(&v1, 5);  // hash low
  PutFixed64(&v1, 6);  // hash high
  PutFixed32(&v1, 2);  // stage
  uint64_t epoch = 0;
  FilterOp op;
  op.mask = 77;
  bool has_mask = true;
  ASSERT_TRUE(DecodeOp(v1, 12, &epoch, &op, &has_mask).ok());
  EXPECT_EQ(epoch, 9u);
  EXPECT_EQ(op, (FilterOp{12, FilterOp::Kind::kInsert, {5, 6}, 2, 0}));
  EXPECT_FALSE(has_mask);
  // The mask decodes the same without asking whether it was there.
  ASSERT_TRUE(
      DecodeOp(
          EncodeOp(
              9, FilterOp{3, FilterOp::Kind::kInsert, {5, 6}, 2, ~uint64_t{0}}),
          3, &epoch, &op)
          .ok());
  EXPECT_EQ(op.mask, ~uint64_t{0});
  // Format 1 with trailing bytes is not a format 2 record.
  EXPECT_TRUE(DecodeOp(v1 + "x", 12, &epoch, &op).IsCorruption());
}

TEST(CoordinatorEpochRecordTest, RoundTripsAndRefusesOtherBytes) {
  const std::string bytes = EncodeCoordinatorEpoch(uint64_t{1} << 40);
  StatusOr<uint64_t> decoded = DecodeCoordinatorEpoch(bytes);
  ASSERT_TRUE(decoded.ok()) << decoded.status().ToString();
  EXPECT_EQ(*decoded, uint64_t{1} << 40);
  EXPECT_TRUE(
      DecodeCoordinatorEpoch(bytes.substr(0, 5)).status().IsCorruption());
  EXPECT_TRUE(DecodeCoordinatorEpoch(bytes + "x").status().IsCorruption());
  std::string other_version = bytes;
  other_version[0] = 2;
  EXPECT_TRUE(DecodeCoordinatorEpoch(other_version).status().IsCorruption());
  EXPECT_TRUE(DecodeCoordinatorEpoch("").status().IsCorruption());
}

}  // namespace
}  // namespace bloomroute::regionstore_internal
