#include "index/scalable_split_counting_bloom_filter.h"

#include <gtest/gtest.h>

#include <cmath>
#include <random>
#include <unordered_map>
#include <vector>

#include "index/internal/frame.h"
#include "index/theory.h"
#include "tests/index/filter_test_util.h"

namespace bloomroute {
namespace {

using testing::kAbsentBase;
using testing::Key;
using Sscbf = ScalableSplitCountingBloomFilter;

SscbfConfig Config(double p, uint64_t n0) {
  SscbfConfig c;
  c.target_fpr = p;
  c.initial_capacity = n0;
  return c;
}

bool AllCountersZero(const Sscbf& f) {
  for (uint32_t i = 0; i < f.stage_count(); ++i) {
    if (!testing::AllCountersZero(f.stage(i))) return false;
  }
  return true;
}

TEST(StageGeometryTest, FollowsTheScalableBloomFilterFormulas) {
  SscbfConfig c = Config(0.01, 1000);
  uint32_t first_probe = 0;
  for (uint32_t i = 0; i < 12; ++i) {
    auto g = StageGeometryFor(c, i);
    ASSERT_TRUE(g.ok()) << g.status().ToString();
    const double p_i = 0.01 * 0.5 * std::pow(0.5, i);
    EXPECT_DOUBLE_EQ(g->target_fpr, p_i);
    EXPECT_EQ(g->slices, static_cast<uint32_t>(std::ceil(std::log2(1 / p_i))));
    EXPECT_EQ(g->capacity, 1000u << i);
    EXPECT_EQ(g->slice_length,
              static_cast<uint64_t>(std::ceil((1000u << i) / std::log(2.0))));
    EXPECT_EQ(g->first_probe, first_probe);
    first_probe += g->slices;
    // r = 1/2 adds exactly one slice per stage.
    if (i > 0) {
      EXPECT_EQ(g->slices, StageGeometryFor(c, i - 1)->slices + 1);
    }
  }
  EXPECT_EQ(StageGeometryFor(c, 0)->slices, 8u);  // ceil(log2(200))
  EXPECT_EQ(StageGeometryFor(c, 0)->slice_length, 1443u);
}

TEST(StageGeometryTest, IsAPureFunctionOfConfigAndStage) {
  SscbfConfig c = Config(0.001, 5000);
  c.tightening_ratio = 0.8;
  c.growth_factor = 4;
  for (uint32_t i = 0; i < 8; ++i) {
    auto a = StageGeometryFor(c, i);
    auto b = StageGeometryFor(c, i);
    ASSERT_TRUE(a.ok() && b.ok());
    EXPECT_EQ(a->slices, b->slices);
    EXPECT_EQ(a->slice_length, b->slice_length);
    EXPECT_EQ(a->first_probe, b->first_probe);
  }
}

TEST(StageGeometryTest, OutOfRangeStagesAndConfigsAreRejected) {
  SscbfConfig c = Config(0.01, 1000);
  EXPECT_TRUE(
      StageGeometryFor(c, Sscbf::kMaxStages).status().IsInvalidArgument());
  c.growth_factor = 16;
  // 1000 * 16^8 elements need slices beyond 2^32.
  EXPECT_TRUE(StageGeometryFor(c, 8).status().IsInvalidArgument());

  auto invalid = [](SscbfConfig bad) {
    return bad.Validate().IsInvalidArgument() &&
           Sscbf::Create(bad).status().IsInvalidArgument();
  };
  SscbfConfig bad = Config(0.01, 1000);
  bad.target_fpr = 0;
  EXPECT_TRUE(invalid(bad));
  bad.target_fpr = 1;
  EXPECT_TRUE(invalid(bad));
  bad.target_fpr = std::nan("");
  EXPECT_TRUE(invalid(bad));
  bad = Config(0.01, 0);
  EXPECT_TRUE(invalid(bad));
  bad = Config(0.01, 1000);
  bad.tightening_ratio = 1;
  EXPECT_TRUE(invalid(bad));
  bad = Config(0.01, 1000);
  bad.growth_factor = 0.5;
  EXPECT_TRUE(invalid(bad));
  bad = Config(0.01, 1000);
  bad.base_bits = 0;
  EXPECT_TRUE(invalid(bad));
  bad = Config(0.01, 1000);
  bad.full_fill = 0;
  EXPECT_TRUE(invalid(bad));
  // Fills near 1 would need billions of slices, near 0 endless slices.
  bad.full_fill = 0.999999999;
  EXPECT_TRUE(invalid(bad));
  bad.full_fill = 1e-300;
  EXPECT_TRUE(invalid(bad));
  bad = Config(1e-30, 1000);  // stage 0 would need 100 slices
  EXPECT_TRUE(invalid(bad));
  bad = Config(0.01, uint64_t{1} << 40);  // slices beyond 2^32
  EXPECT_TRUE(invalid(bad));
}

TEST(ScalableSplitCountingBloomFilterTest,
     GrowsStagesAndRemovesFromTheGivenStage) {
  auto f = std::move(Sscbf::Create(Config(0.01, 100))).value();
  std::vector<uint32_t> stage_of;
  for (uint64_t i = 0; i < 1000; ++i) {
    auto stage = f.Insert(Key(i));
    ASSERT_TRUE(stage.ok());
    ASSERT_EQ(*stage, f.stage_count() - 1) << "inserts go to the newest stage";
    stage_of.push_back(*stage);
  }
  // 100 + 200 + 400 < 1000 <= 100 + 200 + 400 + 800.
  EXPECT_EQ(f.stage_count(), 4u);
  for (uint32_t i = 0; i + 1 < f.stage_count(); ++i) {
    EXPECT_TRUE(f.stage(i).IsFull());
    EXPECT_NEAR(static_cast<double>(f.stage(i).element_count()),
                100.0 * (1 << i), 0.1 * 100 * (1 << i) + 5);
  }
  // Removing from the wrong stage is refused and changes nothing.
  const std::string before = f.Serialize();
  const uint32_t wrong = stage_of[0] == 0 ? 3 : 0;
  EXPECT_FALSE(f.Remove(Key(0), wrong).ok());
  EXPECT_TRUE(f.Remove(Key(0), 99).IsInvalidArgument());
  EXPECT_EQ(f.Serialize(), before);
  for (uint64_t i = 0; i < 1000; ++i) {
    ASSERT_TRUE(f.Remove(Key(i), stage_of[i]).ok()) << i;
  }
  EXPECT_EQ(f.stage_count(), 1u);
  EXPECT_EQ(f.element_count(), 0u);
  EXPECT_TRUE(AllCountersZero(f));
}

TEST(ScalableSplitCountingBloomFilterTest,
     EmptyNewestStageStaysWhileTheOneBelowIsFull) {
  auto f = std::move(Sscbf::Create(Config(0.01, 50))).value();
  uint64_t n = 0;
  while (f.stage_count() == 1) ASSERT_TRUE(f.Insert(Key(n++)).ok());
  // Key(n-1) opened stage 1. Removing it leaves stage 1 empty, but stage 0 is
  // still full, so the next insert would reopen it: it is kept.
  ASSERT_TRUE(f.Remove(Key(n - 1), 1).ok());
  EXPECT_EQ(f.stage_count(), 2u);
  EXPECT_EQ(f.stage(1).element_count(), 0u);
  // Once stage 0 has room again the empty stage goes. (A remove lowers the
  // fill only when one of its counters reaches zero, hence the loop.)
  for (uint64_t i = 0; f.stage(0).IsFull(); ++i) {
    ASSERT_EQ(f.stage_count(), 2u);
    ASSERT_TRUE(f.Remove(Key(i), 0).ok());
  }
  EXPECT_EQ(f.stage_count(), 1u);
}

TEST(ScalableSplitCountingBloomFilterTest, RandomizedModelHasNoFalseNegatives) {
  // 1,000,000 mixed inserts and removes of distinct values (as a region server
  // issues them: a value enters once and leaves from the stage it entered),
  // against an exact set, seed fixed. Growth phases open stages, shrink phases
  // empty and drop them. Every op checks the touched key; every 100,000 ops
  // every present key. Removing everything leaves one all-zero stage.
  auto f = std::move(Sscbf::Create(Config(0.01, 1000))).value();
  std::unordered_map<uint64_t, uint32_t> stage_of;  // present key -> stage
  std::vector<uint64_t> present;
  std::mt19937_64 rng(777);
  uint64_t next_key = 0;
  uint32_t max_stages = 0;
  for (int op = 0; op < 1000000; ++op) {
    const bool grow_phase = (op / 125000) % 2 == 0;
    const bool insert =
        present.empty() || rng() % 100 < (grow_phase ? 65u : 35u);
    if (insert) {
      const uint64_t key = next_key++;
      auto stage = f.Insert(Key(key));
      ASSERT_TRUE(stage.ok()) << stage.status().ToString();
      stage_of[key] = *stage;
      present.push_back(key);
      ASSERT_TRUE(f.Contains(Key(key)));
    } else {
      const size_t idx = rng() % present.size();
      const uint64_t key = present[idx];
      present[idx] = present.back();
      present.pop_back();
      ASSERT_TRUE(f.Remove(Key(key), stage_of[key]).ok());
      stage_of.erase(key);
    }
    max_stages = std::max(max_stages, f.stage_count());
    if (op % 100000 == 99999) {
      ASSERT_EQ(f.element_count(), present.size());
      for (uint32_t i = 0; i < f.stage_count(); ++i) {
        ASSERT_TRUE(f.stage(i).VerifyInvariants().ok());
      }
      for (uint64_t key : present) {
        ASSERT_TRUE(f.Contains(Key(key))) << "false negative " << key;
      }
    }
  }
  EXPECT_GE(max_stages, 5u);
  for (uint64_t key : present)
    ASSERT_TRUE(f.Remove(Key(key), stage_of[key]).ok());
  EXPECT_EQ(f.stage_count(), 1u);
  EXPECT_EQ(f.element_count(), 0u);
  EXPECT_TRUE(AllCountersZero(f));
  auto fresh = std::move(Sscbf::Create(Config(0.01, 1000))).value();
  EXPECT_EQ(f.MemoryBytes(), fresh.MemoryBytes());
  EXPECT_EQ(f.Serialize(), fresh.Serialize());
}

TEST(ScalableSplitCountingBloomFilterTest, GrownToOneMillionStaysWithinTarget) {
  // n0 = 1,000 grown to 1,000,000 elements (10 stages at s = 2). The measured
  // FPR over 1,000,000 absent keys must be <= P, and within 6 standard
  // deviations of the filter's own estimate (Binomial(N, estimate)).
  constexpr double kP = 0.01;
  auto f = std::move(Sscbf::Create(Config(kP, 1000))).value();
  for (uint64_t i = 0; i < 1000000; ++i) ASSERT_TRUE(f.Insert(Key(i)).ok());
  const SscbfStats stats = f.Stats();
  EXPECT_EQ(stats.stages.size(), 10u);
  EXPECT_LE(stats.compounded_bound, kP);
  EXPECT_LE(stats.estimated_fpr, stats.compounded_bound);
  for (const StageStats& s : stats.stages) {
    EXPECT_LE(s.estimated_fpr, s.geometry.target_fpr);
  }
  constexpr uint64_t kProbes = 1000000;
  uint64_t positives = 0;
  for (uint64_t i = 0; i < kProbes; ++i) {
    positives += f.Contains(Key(kAbsentBase + i));
  }
  const double measured = static_cast<double>(positives) / kProbes;
  EXPECT_LE(measured, kP);
  EXPECT_NEAR(measured, stats.estimated_fpr,
              testing::RateTolerance(stats.estimated_fpr, kProbes))
      << "measured " << measured << " estimate " << stats.estimated_fpr;
  for (uint64_t i = 0; i < 1000000; i += 997) ASSERT_TRUE(f.Contains(Key(i)));
}

TEST(ScalableSplitCountingBloomFilterTest, StatsAddUp) {
  auto f = std::move(Sscbf::Create(Config(0.001, 500))).value();
  for (uint64_t i = 0; i < 5000; ++i) ASSERT_TRUE(f.Insert(Key(i)).ok());
  const SscbfStats stats = f.Stats();
  uint64_t elements = 0, memory = 0;
  for (uint32_t i = 0; i < stats.stages.size(); ++i) {
    const StageStats& s = stats.stages[i];
    EXPECT_EQ(s.geometry.stage, i);
    EXPECT_EQ(s.elements, f.stage(i).element_count());
    EXPECT_EQ(s.memory_bytes, f.stage(i).MemoryBytes());
    elements += s.elements;
    memory += s.memory_bytes;
  }
  EXPECT_EQ(stats.elements, 5000u);
  EXPECT_EQ(elements, 5000u);
  EXPECT_EQ(stats.memory_bytes, memory);
  EXPECT_EQ(f.MemoryBytes(), memory);
  EXPECT_DOUBLE_EQ(stats.compounded_bound,
                   theory::SbfCompoundedBound(0.0005, 0.5, f.stage_count()));
}

// DESIGN.md invariant 4: a compacted filter starts further up the same
// ladder of stages, so its config is the cluster's and every stage has the
// geometry StageGeometryFor(config, i) gives any server. (Before, the
// compacted filter raised n0 to 50,000: its stage 0 had a geometry no other
// server's stage had.)
TEST(ScalableSplitCountingBloomFilterTest,
     CreateSizedStartsOnTheLadderStageThatHoldsTheElements) {
  const SscbfConfig base = Config(0.01, 1000);
  auto f = std::move(Sscbf::CreateSized(base, 50000)).value();
  EXPECT_TRUE(f.config() == base);
  // n_i = 1000 * 2^i: stage 6 (64,000) is the first to hold 50,000.
  ASSERT_EQ(f.first_stage(), 6u);
  ASSERT_EQ(f.stage_count(), 1u);
  for (uint64_t i = 0; i < 60000; ++i) {
    auto stage = f.Insert(Key(i));
    ASSERT_TRUE(stage.ok());
    ASSERT_EQ(*stage, 6u);
  }
  while (f.stage_count() == 1)
    ASSERT_TRUE(f.Insert(Key(f.element_count())).ok());
  for (uint32_t i = f.first_stage(); i < f.end_stage(); ++i) {
    const StageGeometry g = StageGeometryFor(base, i).value();
    EXPECT_EQ(f.stage(i).options().slices, g.slices) << i;
    EXPECT_EQ(f.stage(i).options().slice_length, g.slice_length) << i;
    EXPECT_EQ(f.stage(i).options().first_probe, g.first_probe) << i;
    EXPECT_EQ(f.Stats().stages[i - 6].geometry.stage, i);
  }
  EXPECT_TRUE(f.Contains(Key(1)));
  // Its bound is that of the stages it has: below P.
  EXPECT_LT(f.Stats().compounded_bound, 0.01 * 0.5);

  // Stages below the first do not exist.
  EXPECT_TRUE(f.Remove(Key(1), 5).IsInvalidArgument());
  EXPECT_TRUE(f.InsertIntoStage(Key(1), 5).IsInvalidArgument());
  ASSERT_TRUE(f.Remove(Key(1), 6).ok());

  // It round-trips, first stage included, and a rebuild from the recorded
  // stages starting there is equivalent.
  auto back = Sscbf::Deserialize(f.Serialize());
  ASSERT_TRUE(back.ok()) << back.status().ToString();
  EXPECT_EQ(back->first_stage(), 6u);
  EXPECT_TRUE(back->EquivalentTo(f));
  auto other_start = std::move(Sscbf::CreateAtStage(base, 5)).value();
  EXPECT_FALSE(other_start.EquivalentTo(Sscbf::CreateAtStage(base, 6).value()));

  // n0 already holds a few: stage 0.
  EXPECT_EQ(Sscbf::CreateSized(base, 10)->first_stage(), 0u);
  EXPECT_EQ(Sscbf::CreateSized(base, 1000)->first_stage(), 0u);
  EXPECT_EQ(Sscbf::CreateSized(base, 1001)->first_stage(), 1u);
  EXPECT_TRUE(Sscbf::FirstStageHolding(base, ~uint64_t{0})
                  .status()
                  .IsInvalidArgument());
  // A ladder that cannot grow (s = 1) holds no more than n0 a stage: then
  // the filter is one of its own, stage 0 sized for the elements.
  SscbfConfig flat = base;
  flat.growth_factor = 1.0;
  auto own = Sscbf::CreateSized(flat, 5000);
  ASSERT_TRUE(own.ok()) << own.status().ToString();
  EXPECT_EQ(own->first_stage(), 0u);
  EXPECT_EQ(own->config().initial_capacity, 5000u);
}

TEST(ScalableSplitCountingBloomFilterSerializationTest, RoundTripsExactly) {
  SscbfConfig c = Config(0.02, 64);
  c.base_bits = 3;
  c.tightening_ratio = 0.8;
  auto f = std::move(Sscbf::Create(c)).value();
  std::vector<uint32_t> stage_of;
  for (uint64_t i = 0; i < 700; ++i) stage_of.push_back(*f.Insert(Key(i)));
  ASSERT_GT(f.stage_count(), 2u);
  const std::string bytes = f.Serialize();
  auto back = Sscbf::Deserialize(bytes);
  ASSERT_TRUE(back.ok()) << back.status().ToString();
  EXPECT_TRUE(back->config() == c);
  EXPECT_EQ(back->Serialize(), bytes);
  EXPECT_EQ(back->stage_count(), f.stage_count());
  EXPECT_DOUBLE_EQ(back->EstimatedFpr(), f.EstimatedFpr());
  for (uint64_t i = 0; i < 100000; ++i) {
    ASSERT_EQ(back->Contains(Key(kAbsentBase + i)),
              f.Contains(Key(kAbsentBase + i)));
  }
  for (uint64_t i = 0; i < 700; ++i) {
    ASSERT_TRUE(back->Remove(Key(i), stage_of[i]).ok());
  }
  EXPECT_TRUE(AllCountersZero(*back));
}

TEST(ScalableSplitCountingBloomFilterSerializationTest,
     FlipsAndTruncationsAreDetected) {
  auto f = std::move(Sscbf::Create(Config(0.1, 8))).value();
  for (uint64_t i = 0; i < 40; ++i) ASSERT_TRUE(f.Insert(Key(i)).ok());
  ASSERT_GT(f.stage_count(), 1u);
  const std::string bytes = f.Serialize();
  for (size_t i = 0; i < bytes.size(); ++i) {
    std::string bad = bytes;
    bad[i] = static_cast<char>(bad[i] ^ (0x80 >> (i % 8)));
    ASSERT_TRUE(Sscbf::Deserialize(bad).status().IsCorruption()) << i;
  }
  for (size_t len = 0; len < bytes.size(); ++len) {
    ASSERT_TRUE(
        Sscbf::Deserialize(bytes.substr(0, len)).status().IsCorruption())
        << len;
  }
}

TEST(ScalableSplitCountingBloomFilterSerializationTest,
     StageGeometryIsCheckedBehindAGoodChecksum) {
  // Re-frame a valid payload whose config says n0 = 9 while its stages were
  // built for n0 = 8: the checksum is right, the geometry is not.
  auto f = std::move(Sscbf::Create(Config(0.1, 8))).value();
  std::string payload = testing::PayloadOf(f.Serialize());
  EncodeFixed64(&payload[24], 9);  // after P, r, s (3 doubles)
  auto r = Sscbf::Deserialize(testing::Framed(
      internal::FrameKind::kScalableSplitCountingBloomFilter, payload));
  EXPECT_TRUE(r.status().IsCorruption()) << r.status().ToString();
}

// Format 1 (before the ladder) had no first stage: such a filter, as stored
// by a region server before, still reads, starting at stage 0.
TEST(ScalableSplitCountingBloomFilterSerializationTest, FormatOneStillReads) {
  auto f = std::move(Sscbf::Create(Config(0.05, 64))).value();
  for (uint64_t i = 0; i < 500; ++i) ASSERT_TRUE(f.Insert(Key(i)).ok());
  std::string payload = testing::PayloadOf(f.Serialize());
  payload.erase(41, 4);  // the first stage (0), after P, r, s, n0, x, fill
  auto r = Sscbf::Deserialize(testing::Framed(
      internal::FrameKind::kScalableSplitCountingBloomFilter, payload, 1));
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_EQ(r->first_stage(), 0u);
  EXPECT_TRUE(r->EquivalentTo(f));
}

// A first stage and stage count that pass the last ladder stage are refused.
TEST(ScalableSplitCountingBloomFilterSerializationTest,
     StagesBeyondTheLadderAreRefused) {
  auto f = std::move(Sscbf::Create(Config(0.05, 64))).value();
  std::string payload = testing::PayloadOf(f.Serialize());
  EncodeFixed32(&payload[41], Sscbf::kMaxStages);
  auto r = Sscbf::Deserialize(testing::Framed(
      internal::FrameKind::kScalableSplitCountingBloomFilter, payload, 2));
  EXPECT_TRUE(r.status().IsCorruption()) << r.status().ToString();
}

TEST(ScalableSplitCountingBloomFilterSerializationTest,
     EmptyNewestStageAboveRoomIsRefused) {
  // Two empty stages: Remove would have dropped the top one, so Serialize can
  // never write this; the decoder refuses it even behind a good checksum.
  auto f = std::move(Sscbf::Create(Config(0.1, 8))).value();
  std::string payload = testing::PayloadOf(f.Serialize());
  // Build the same filter with a second, empty stage by hand: stage count 2,
  // then stage 0's body twice with stage 1's geometry for the second.
  auto g1 = StageGeometryFor(Config(0.1, 8), 1);
  ASSERT_TRUE(g1.ok());
  SplitCountingBloomFilter::Options o;
  o.slices = g1->slices;
  o.slice_length = g1->slice_length;
  o.first_probe = g1->first_probe;
  auto empty_stage1 = SplitCountingBloomFilter::Create(o);
  ASSERT_TRUE(empty_stage1.ok());
  // Stage count after P, r, s, n0, x, fill and the first stage.
  EncodeFixed32(&payload[45], 2);
  empty_stage1->EncodeTo(&payload);
  auto r = Sscbf::Deserialize(testing::Framed(
      internal::FrameKind::kScalableSplitCountingBloomFilter, payload, 2));
  EXPECT_TRUE(r.status().IsCorruption()) << r.status().ToString();
  EXPECT_NE(r.status().message().find("empty newest stage"), std::string::npos)
      << r.status().ToString();
}

}  // namespace
}  // namespace bloomroute

namespace bloomroute {
namespace {

using testing::Key;

// What a region server does after a restart or in a scrutiny pass: rebuild
// from the exact (element, stage) records and compare with the live filter.
TEST(ScalableSplitCountingBloomFilterRebuildTest,
     RebuildFromRecordedStagesIsEquivalentAndDetectsADifference) {
  SscbfConfig config;
  config.initial_capacity = 200;
  auto live =
      std::move(ScalableSplitCountingBloomFilter::Create(config)).value();
  std::unordered_map<uint64_t, uint32_t> stage_of;
  std::mt19937_64 rng(4242);
  for (uint64_t key = 0; key < 3000; ++key) {
    stage_of[key] = live.Insert(Key(key)).value();
  }
  for (uint64_t key = 0; key < 3000; ++key) {
    if (rng() % 3 == 0) {
      ASSERT_TRUE(live.Remove(Key(key), stage_of[key]).ok());
      stage_of.erase(key);
    }
  }
  ASSERT_GE(live.stage_count(), 3u);

  auto rebuilt =
      std::move(ScalableSplitCountingBloomFilter::Create(config)).value();
  for (const auto& [key, stage] : stage_of) {
    ASSERT_TRUE(rebuilt.InsertIntoStage(Key(key), stage).ok());
  }
  EXPECT_TRUE(live.EquivalentTo(rebuilt));
  EXPECT_TRUE(rebuilt.EquivalentTo(live));

  // One element in the wrong stage, or one extra, is a difference.
  const auto [some_key, some_stage] = *stage_of.begin();
  auto moved =
      std::move(ScalableSplitCountingBloomFilter::Create(config)).value();
  for (const auto& [key, stage] : stage_of) {
    const uint32_t s = key == some_key ? (some_stage + 1) % 3 : stage;
    ASSERT_TRUE(moved.InsertIntoStage(Key(key), s).ok());
  }
  EXPECT_FALSE(live.EquivalentTo(moved));
  ASSERT_TRUE(rebuilt.InsertIntoStage(Key(99999), 0).ok());
  EXPECT_FALSE(live.EquivalentTo(rebuilt));

  // Another configuration is never equivalent, even when both are empty.
  SscbfConfig other = config;
  other.target_fpr = 0.001;
  auto a = std::move(ScalableSplitCountingBloomFilter::Create(config)).value();
  auto b = std::move(ScalableSplitCountingBloomFilter::Create(other)).value();
  EXPECT_FALSE(a.EquivalentTo(b));
}

TEST(ScalableSplitCountingBloomFilterRebuildTest,
     InsertIntoStageRejectsImpossibleStagesAndChangesNothing) {
  auto f = std::move(ScalableSplitCountingBloomFilter::Create(SscbfConfig()))
               .value();
  EXPECT_TRUE(
      f.InsertIntoStage(Key(1), ScalableSplitCountingBloomFilter::kMaxStages)
          .IsInvalidArgument());
  EXPECT_EQ(f.stage_count(), 1u);
  ASSERT_TRUE(f.InsertIntoStage(Key(1), 2).ok());
  EXPECT_EQ(f.stage_count(), 3u);
  EXPECT_EQ(f.stage(2).element_count(), 1u);
  EXPECT_TRUE(f.Contains(Key(1)));
}

}  // namespace
}  // namespace bloomroute
