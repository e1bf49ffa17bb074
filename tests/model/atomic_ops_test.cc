#include "model/atomic_ops.h"

#include <gtest/gtest.h>

#include <limits>

namespace bloomroute {
namespace {

RowCondition If(CompareOp op, std::optional<std::string> value) {
  return RowCondition{"d:c", op, std::move(value)};
}

const std::vector<Cell> kCellB = {{"d:c", "b"}};

// HBase compares the GIVEN value against the cell's: LESS holds when the
// given value is smaller than the cell's.
TEST(AtomicOpsTest, LessHoldsWhenTheGivenValueIsBelowTheCell) {
  EXPECT_TRUE(ConditionHolds(If(CompareOp::kLess, "a"), kCellB));
  EXPECT_FALSE(ConditionHolds(If(CompareOp::kLess, "b"), kCellB));
  EXPECT_FALSE(ConditionHolds(If(CompareOp::kLess, "c"), kCellB));
}

TEST(AtomicOpsTest, LessOrEqualHoldsWhenTheGivenValueIsAtMostTheCell) {
  EXPECT_TRUE(ConditionHolds(If(CompareOp::kLessOrEqual, "a"), kCellB));
  EXPECT_TRUE(ConditionHolds(If(CompareOp::kLessOrEqual, "b"), kCellB));
  EXPECT_FALSE(ConditionHolds(If(CompareOp::kLessOrEqual, "c"), kCellB));
}

TEST(AtomicOpsTest, EqualHoldsOnEqualBytes) {
  EXPECT_FALSE(ConditionHolds(If(CompareOp::kEqual, "a"), kCellB));
  EXPECT_TRUE(ConditionHolds(If(CompareOp::kEqual, "b"), kCellB));
  EXPECT_FALSE(ConditionHolds(If(CompareOp::kEqual, "bb"), kCellB));
}

TEST(AtomicOpsTest, NotEqualHoldsOnDifferentBytes) {
  EXPECT_TRUE(ConditionHolds(If(CompareOp::kNotEqual, "a"), kCellB));
  EXPECT_FALSE(ConditionHolds(If(CompareOp::kNotEqual, "b"), kCellB));
  EXPECT_TRUE(ConditionHolds(If(CompareOp::kNotEqual, "c"), kCellB));
}

TEST(AtomicOpsTest, GreaterOrEqualHoldsWhenTheGivenValueIsAtLeastTheCell) {
  EXPECT_FALSE(ConditionHolds(If(CompareOp::kGreaterOrEqual, "a"), kCellB));
  EXPECT_TRUE(ConditionHolds(If(CompareOp::kGreaterOrEqual, "b"), kCellB));
  EXPECT_TRUE(ConditionHolds(If(CompareOp::kGreaterOrEqual, "c"), kCellB));
}

TEST(AtomicOpsTest, GreaterHoldsWhenTheGivenValueIsAboveTheCell) {
  EXPECT_FALSE(ConditionHolds(If(CompareOp::kGreater, "a"), kCellB));
  EXPECT_FALSE(ConditionHolds(If(CompareOp::kGreater, "b"), kCellB));
  EXPECT_TRUE(ConditionHolds(If(CompareOp::kGreater, "c"), kCellB));
}

TEST(AtomicOpsTest, BytesCompareUnsigned) {
  const std::vector<Cell> high = {{"d:c", "\xff"}};
  EXPECT_TRUE(ConditionHolds(If(CompareOp::kLess, "\x01"), high));
  EXPECT_TRUE(ConditionHolds(If(CompareOp::kLess, "b"), {{"d:c", "bb"}}));
}

TEST(AtomicOpsTest, AGivenValueNeverMatchesAnAbsentCell) {
  for (int op = 0; op < kCompareOpCount; ++op) {
    EXPECT_FALSE(
        ConditionHolds(If(static_cast<CompareOp>(op), "b"), {{"d:x", "b"}}))
        << op;
  }
}

TEST(AtomicOpsTest, UnsetValueMeansAbsentOrEmptyExceptForNotEqual) {
  const std::vector<Cell> absent = {{"d:x", "v"}};
  const std::vector<Cell> empty = {{"d:c", ""}};
  for (int op = 0; op < kCompareOpCount; ++op) {
    const CompareOp o = static_cast<CompareOp>(op);
    const bool not_equal = o == CompareOp::kNotEqual;
    for (const std::optional<std::string>& v :
         {std::optional<std::string>(), std::optional<std::string>("")}) {
      EXPECT_EQ(ConditionHolds(If(o, v), absent), !not_equal) << op;
      EXPECT_EQ(ConditionHolds(If(o, v), empty), !not_equal) << op;
      EXPECT_EQ(ConditionHolds(If(o, v), kCellB), not_equal) << op;
    }
  }
}

TEST(AtomicOpsTest, LongsAreEightBytesBigEndian) {
  EXPECT_EQ(EncodeLong(1), std::string("\0\0\0\0\0\0\0\x01", 8));
  EXPECT_EQ(EncodeLong(-1), std::string(8, '\xff'));
  EXPECT_EQ(*DecodeLong(EncodeLong(0x0102030405060708)), 0x0102030405060708);
  EXPECT_EQ(*DecodeLong(EncodeLong(-42)), -42);
  StatusOr<int64_t> bad = DecodeLong("abc");
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.status().message().find("Field is not a long, it's 3 bytes"),
            std::string::npos)
      << bad.status().ToString();
}

TEST(AtomicOpsTest, IncrementAddsAndCountsAMissingCellAsZero) {
  const std::vector<Cell> row = {{"d:a", EncodeLong(40)}};
  StatusOr<std::vector<Cell>> cells = NewCellsOf(
      Mutation::Increment(0, "r", {{"d:a", 2}, {"d:b", -5}, {"d:a", 1}}), row);
  ASSERT_TRUE(cells.ok()) << cells.status().ToString();
  EXPECT_EQ(*cells, (std::vector<Cell>{{"d:a", EncodeLong(42)},
                                       {"d:b", EncodeLong(-5)},
                                       {"d:a", EncodeLong(43)}}));
}

TEST(AtomicOpsTest, IncrementWrapsAsJavaLongs) {
  const int64_t max = std::numeric_limits<int64_t>::max();
  StatusOr<std::vector<Cell>> cells = NewCellsOf(
      Mutation::Increment(0, "r", {{"d:a", 1}}), {{"d:a", EncodeLong(max)}});
  ASSERT_TRUE(cells.ok());
  EXPECT_EQ((*cells)[0].value, EncodeLong(std::numeric_limits<int64_t>::min()));
}

TEST(AtomicOpsTest, IncrementOfANonLongNamesTheColumnAndWidth) {
  StatusOr<std::vector<Cell>> cells =
      NewCellsOf(Mutation::Increment(0, "r", {{"d:a", 1}}), {{"d:a", "1234"}});
  ASSERT_FALSE(cells.ok());
  EXPECT_TRUE(cells.status().IsInvalidArgument());
  EXPECT_NE(cells.status().message().find("Field is not a long, it's 4 bytes"),
            std::string::npos);
  EXPECT_NE(cells.status().message().find("d:a"), std::string::npos);
}

TEST(AtomicOpsTest, AppendConcatenatesAndStartsAMissingCell) {
  StatusOr<std::vector<Cell>> cells = NewCellsOf(
      Mutation::Append(0, "r", {{"d:a", "xy"}, {"d:b", "q"}, {"d:a", "z"}}),
      {{"d:a", "v"}});
  ASSERT_TRUE(cells.ok());
  EXPECT_EQ(*cells,
            (std::vector<Cell>{{"d:a", "vxy"}, {"d:b", "q"}, {"d:a", "vxyz"}}));
}

TEST(AtomicOpsTest, PutsAndDeletesHaveNoNewCells) {
  EXPECT_FALSE(NewCellsOf(Mutation::Put(0, "r", {{"d:a", "v"}}), {}).ok());
  EXPECT_FALSE(NewCellsOf(Mutation::Delete(0, "r"), {}).ok());
}

}  // namespace
}  // namespace bloomroute
