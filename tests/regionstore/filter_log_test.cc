#include "regionstore/internal/filter_log.h"

#include <gtest/gtest.h>

#include "index/occupancy_image.h"

namespace bloomroute::regionstore_internal {
namespace {

ElementHash H(uint64_t i) { return HashElement(1, 1, "v" + std::to_string(i)); }

SscbfConfig WithN0(uint64_t n0) {
  SscbfConfig c;
  c.initial_capacity = n0;
  return c;
}

FilterLog NewLog(uint64_t n0) {
  return FilterLog(
      std::move(ScalableSplitCountingBloomFilter::Create(WithN0(n0))).value(),
      1, 0);
}

TEST(FilterLogTest, ReplayingTheOpsReproducesTheFilter) {
  FilterLog live = NewLog(32);
  std::vector<FilterOp> ops;
  for (uint64_t i = 0; i < 200; ++i) ops.push_back(live.Insert(H(i)).value());
  for (uint64_t i = 0; i < 200; i += 3) {
    ops.push_back(live.Remove(H(i), ops[i].stage).value());
  }
  ASSERT_GE(live.filter().stage_count(), 3u);
  FilterLog replica = NewLog(32);
  for (const auto& op : ops) ASSERT_TRUE(replica.Replay(op).ok());
  EXPECT_EQ(replica.last_seq(), live.last_seq());
  EXPECT_EQ(replica.filter().Serialize(), live.filter().Serialize());

  auto restored = FilterLog::FromCheckpoint(live.ToCheckpoint());
  ASSERT_TRUE(restored.ok());
  EXPECT_EQ(restored->last_seq(), live.last_seq());
  EXPECT_TRUE(restored->filter().EquivalentTo(live.filter()));
}

TEST(FilterLogTest, ReplayRejectsGapsAndOpsThatLandElsewhere) {
  FilterLog live = NewLog(8);
  std::vector<FilterOp> ops;
  for (uint64_t i = 0; i < 40; ++i) ops.push_back(live.Insert(H(i)).value());
  FilterLog replica = NewLog(8);
  EXPECT_TRUE(replica.Replay(ops[1]).IsCorruption());  // gap
  FilterOp wrong = ops[0];
  wrong.stage = 1;
  EXPECT_TRUE(replica.Replay(wrong).IsCorruption());  // another filter made it
  FilterOp bad_remove{1, FilterOp::Kind::kRemove, H(999), 0};
  EXPECT_TRUE(replica.Replay(bad_remove).IsCorruption());
}

// The ops' masks, applied to the bits of the filter they started from, give
// the bits of the filter they ended at: what a bits-only replica relies on.
TEST(FilterLogTest, OpsCarryTheOccupancyBitsTheyChanged) {
  FilterLog live = NewLog(32);
  OccupancyImage image = OccupancyImage::Of(live.filter());
  std::vector<FilterOp> ops;
  for (uint64_t i = 0; i < 300; ++i) ops.push_back(live.Insert(H(i)).value());
  for (uint64_t i = 0; i < 300; i += 3) {
    ops.push_back(live.Remove(H(i), ops[i].stage).value());
  }
  ASSERT_GE(live.filter().stage_count(), 3u);
  size_t partial = 0;  // ops that changed fewer bits than the stage has slices
  for (const FilterOp& op : ops) {
    const uint32_t k =
        StageGeometryFor(live.filter().config(), op.stage).value().slices;
    ASSERT_EQ(op.mask >> k, 0u) << op.seq;
    if (op.mask != (uint64_t{1} << k) - 1) ++partial;
    const Status s = op.kind == FilterOp::Kind::kInsert
                         ? image.ApplyInsert(op.hash, op.stage, op.mask)
                         : image.ApplyRemove(op.hash, op.stage, op.mask);
    ASSERT_TRUE(s.ok()) << op.seq << ": " << s.ToString();
  }
  EXPECT_GT(partial, 0u);  // collisions happen at these fills
  EXPECT_EQ(image, OccupancyImage::Of(live.filter()));
}

TEST(FilterLogTest, ReplayChecksTheMaskWhenTheRecordCarriedOne) {
  FilterLog live = NewLog(8);
  std::vector<FilterOp> ops;
  for (uint64_t i = 0; i < 40; ++i) ops.push_back(live.Insert(H(i)).value());
  ops.push_back(live.Remove(H(3), ops[3].stage).value());
  FilterLog replica = NewLog(8);
  for (size_t i = 0; i + 1 < ops.size(); ++i) {
    ASSERT_TRUE(replica.Replay(ops[i]).ok()) << i;
  }
  FilterOp wrong = ops.back();
  wrong.mask ^= 1;
  FilterLog copy =
      std::move(FilterLog::FromCheckpoint(replica.ToCheckpoint())).value();
  EXPECT_TRUE(copy.Replay(wrong).IsCorruption());
  // A record written before masks carried none: the filter decides.
  EXPECT_TRUE(replica.Replay(wrong, /*mask_recorded=*/false).ok());
  EXPECT_EQ(replica.filter().Serialize(), live.filter().Serialize());
}

TEST(FilterLogTest, CompactionIsNeededForManyStagesOrSparseFilters) {
  FilterLog log = NewLog(16);
  EXPECT_FALSE(log.NeedsCompaction(4, 8, WithN0(16)));
  std::vector<FilterOp> ops;
  for (uint64_t i = 0; i < 500; ++i) ops.push_back(log.Insert(H(i)).value());
  ASSERT_GT(log.filter().stage_count(), 4u);
  EXPECT_TRUE(log.NeedsCompaction(4, 8, WithN0(16)));
  EXPECT_FALSE(log.NeedsCompaction(63, 1000, WithN0(16)));
  for (uint64_t i = 0; i < 495; ++i) {
    ASSERT_TRUE(log.Remove(H(i), ops[i].stage).ok());
  }
  EXPECT_TRUE(
      log.NeedsCompaction(63, 8, WithN0(16)));  // sized for ~500, holds 5
}

// A compacted filter starts on the first ladder stage that holds its
// elements, which may hold up to growth_factor times more; even with the
// smallest sparse_factor (2) it must not need compacting again at once, or
// every write would rebuild the filter. Not a larger stage: the router keeps
// every bit of it (issue 13: sized for twice the elements, a compacted
// filter of 100,000 values cost the router 68 bits a value instead of 34 at
// the cluster's default config).
TEST(FilterLogTest, AFilterCompactedOntoTheLadderIsNotCompactedAgain) {
  const SscbfConfig config = WithN0(16);
  // 300 elements: the ladder's first stage that holds them has 512
  // (16 x 2^5).
  FilterLog log(std::move(ScalableSplitCountingBloomFilter::CreateSized(
                              config, FilterLog::CompactionTarget(300)))
                    .value(),
                2, 0);
  ASSERT_EQ(log.filter().first_stage(), 5u);
  for (uint64_t i = 0; i < 300; ++i) ASSERT_TRUE(log.Insert(H(i)).ok());
  EXPECT_EQ(log.filter().stage_count(), 1u);
  EXPECT_FALSE(log.NeedsCompaction(63, 2, config));
  // Once most are removed a smaller stage would do: then it is worth it.
  std::vector<FilterOp> ops;
  for (uint64_t i = 0; i < 290; ++i) {
    ASSERT_TRUE(log.Remove(H(i), 5).ok());
  }
  EXPECT_TRUE(log.NeedsCompaction(63, 2, config));
}

}  // namespace
}  // namespace bloomroute::regionstore_internal
