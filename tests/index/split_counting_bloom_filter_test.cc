#include "index/split_counting_bloom_filter.h"

#include <gtest/gtest.h>

#include <random>
#include <unordered_map>
#include <vector>

#include "index/internal/frame.h"
#include "lab/split_bloom_filter.h"
#include "tests/index/filter_test_util.h"

namespace bloomroute {
namespace {

using testing::AllCountersZero;
using testing::kAbsentBase;
using testing::Key;

SplitCountingBloomFilter MakeFilter(uint32_t k, uint64_t m,
                                    uint32_t base_bits = 4) {
  SplitCountingBloomFilter::Options o;
  o.slices = k;
  o.slice_length = m;
  o.base_bits = base_bits;
  return std::move(SplitCountingBloomFilter::Create(o)).value();
}

TEST(SplitCountingBloomFilterTest, InsertContainsRemove) {
  auto f = MakeFilter(7, 1000);
  EXPECT_FALSE(f.Contains(Key(1)));
  ASSERT_TRUE(f.Insert(Key(1)).ok());
  ASSERT_TRUE(f.Insert(Key(1)).ok());  // counted twice
  EXPECT_TRUE(f.Contains(Key(1)));
  EXPECT_EQ(f.element_count(), 2u);
  for (uint32_t j = 0; j < 7; ++j) EXPECT_EQ(f.slice(j).nonzero_count(), 1u);
  ASSERT_TRUE(f.Remove(Key(1)).ok());
  EXPECT_TRUE(f.Contains(Key(1)));
  ASSERT_TRUE(f.Remove(Key(1)).ok());
  EXPECT_FALSE(f.Contains(Key(1)));
  EXPECT_TRUE(AllCountersZero(f));
}

TEST(SplitCountingBloomFilterTest, RemovingAnAbsentElementChangesNothing) {
  auto f = MakeFilter(5, 100);
  ASSERT_TRUE(f.Insert(Key(1)).ok());
  const std::string before = f.Serialize();
  Status s = f.Remove(Key(kAbsentBase));
  EXPECT_TRUE(s.IsInvalidArgument()) << s.ToString();
  EXPECT_EQ(f.Serialize(), before);
  EXPECT_EQ(f.element_count(), 1u);
}

TEST(SplitCountingBloomFilterTest, CreateValidatesOptions) {
  SplitCountingBloomFilter::Options o;
  o.slices = 0;
  o.slice_length = 10;
  EXPECT_TRUE(SplitCountingBloomFilter::Create(o).status().IsInvalidArgument());
  o.slices = 65;
  EXPECT_TRUE(SplitCountingBloomFilter::Create(o).status().IsInvalidArgument());
  o.slices = 4;
  o.slice_length = 0;
  EXPECT_TRUE(SplitCountingBloomFilter::Create(o).status().IsInvalidArgument());
  o.slice_length = 10;
  o.full_fill = 1.0;
  EXPECT_TRUE(SplitCountingBloomFilter::Create(o).status().IsInvalidArgument());
  o.full_fill = 0.5;
  o.base_bits = 0;
  EXPECT_TRUE(SplitCountingBloomFilter::Create(o).status().IsInvalidArgument());
  o.base_bits = 4;
  o.first_probe = UINT32_MAX;
  EXPECT_TRUE(SplitCountingBloomFilter::Create(o).status().IsInvalidArgument());
  o.first_probe = 0;
  EXPECT_TRUE(SplitCountingBloomFilter::Create(o).ok());
}

TEST(SplitCountingBloomFilterTest, FillsToHalfAtCapacityMLn2) {
  // n = m ln 2 elements fill a slice to 1 - (1 - 1/m)^n ~ 1/2; the filter
  // reports full within a few standard deviations of that count.
  constexpr uint64_t kM = 20000;
  auto f = MakeFilter(8, kM);
  uint64_t n = 0;
  while (!f.IsFull()) ASSERT_TRUE(f.Insert(Key(n++)).ok());
  const double capacity = kM * std::log(2.0);  // 13863
  EXPECT_NEAR(static_cast<double>(n), capacity, 0.02 * capacity);
  EXPECT_GE(f.Fill(), 0.5);
  // AM-GM: the product of fills never exceeds the mean fill to the k.
  EXPECT_LE(f.EstimatedFpr(), std::pow(f.Fill(), 8) + 1e-15);
}

TEST(SplitCountingBloomFilterTest, AgreesWithThePlainSplitFilter) {
  // Same geometry and probes: the counting filter is non-zero exactly where
  // the one-bit filter has a bit set, so both answer every query alike.
  auto counting = MakeFilter(6, 5000);
  auto plain = std::move(SplitBloomFilter::Create(6, 5000)).value();
  for (uint64_t i = 0; i < 3000; ++i) {
    ASSERT_TRUE(counting.Insert(Key(i)).ok());
    plain.Insert(Key(i));
  }
  for (uint32_t j = 0; j < 6; ++j) {
    EXPECT_DOUBLE_EQ(counting.SliceFill(j), plain.SliceFill(j));
  }
  for (uint64_t i = 0; i < 200000; ++i) {
    ASSERT_EQ(counting.Contains(Key(kAbsentBase + i)),
              plain.Contains(Key(kAbsentBase + i)));
  }
}

TEST(SplitCountingBloomFilterTest, RandomizedModelHasNoFalseNegatives) {
  // 1,200,000 mixed inserts and removes against an exact multiset, seed fixed.
  // A few hot keys are inserted many times, so counters grow DDCF planes and
  // drop them again. Every op checks the touched key; every 100,000 ops every
  // present key is checked. At the end, removing everything leaves every
  // counter at zero and no plane.
  constexpr uint64_t kUniverse = 40000;
  auto f = MakeFilter(7, 30000);
  std::unordered_map<uint64_t, uint32_t> count;
  std::vector<uint64_t> present;  // keys with count > 0 (may hold stale ones)
  std::mt19937_64 rng(424242);
  uint64_t elements = 0;
  uint32_t max_planes = 0;
  for (int op = 0; op < 1200000; ++op) {
    const bool grow_phase = (op / 200000) % 2 == 0;
    const bool insert = elements == 0 || rng() % 100 < (grow_phase ? 60u : 40u);
    if (insert) {
      const uint64_t key = rng() % 50 == 0 ? rng() % 8 : rng() % kUniverse;
      ASSERT_TRUE(f.Insert(Key(key)).ok());
      if (count[key]++ == 0) present.push_back(key);
      ++elements;
      ASSERT_TRUE(f.Contains(Key(key)));
    } else {
      uint64_t key;
      size_t idx;
      do {
        idx = rng() % present.size();
        key = present[idx];
        if (count[key] == 0) {  // stale entry: drop it and draw again
          present[idx] = present.back();
          present.pop_back();
        }
      } while (count[key] == 0);
      ASSERT_TRUE(f.Remove(Key(key)).ok());
      --elements;
      if (--count[key] > 0) {
        ASSERT_TRUE(f.Contains(Key(key)));
      }
    }
    ASSERT_EQ(f.element_count(), elements);
    max_planes = std::max(max_planes, f.MaxPlaneCount());
    if (op % 100000 == 99999) {
      ASSERT_TRUE(f.VerifyInvariants().ok());
      for (const auto& [key, c] : count) {
        if (c > 0) {
          ASSERT_TRUE(f.Contains(Key(key))) << "false negative";
        }
      }
    }
  }
  // Hot keys reach a few hundred (x = 4: 16 and up need planes); each shrink
  // phase removes everything again, so planes were added and dropped.
  EXPECT_GE(max_planes, 4u);
  for (auto& [key, c] : count) {
    for (; c > 0; --c) ASSERT_TRUE(f.Remove(Key(key)).ok());
  }
  EXPECT_EQ(f.element_count(), 0u);
  EXPECT_TRUE(AllCountersZero(f));
  EXPECT_TRUE(f.VerifyInvariants().ok());
  // Counters with no planes (4 bits each) plus the one-bit occupancy view.
  EXPECT_EQ(f.MemoryBytes(),
            7 * ((30000 * 4 + 63) / 64 * 8) + 7 * ((30000 + 63) / 64 * 8));
  EXPECT_EQ(f.OccupancyBytes(), 7 * ((30000 + 63) / 64 * 8));
}

TEST(SplitCountingBloomFilterTest, MeasuredFprMatchesItsEstimate) {
  // For a fixed filter the false-positive probability of a random absent key
  // is exactly prod_j fill_j, so the number of positives among N absent keys is
  // Binomial(N, EstimatedFpr()); the test allows 6 standard deviations.
  auto f = MakeFilter(7, 50000);
  uint64_t n = 0;
  while (!f.IsFull()) ASSERT_TRUE(f.Insert(Key(n++)).ok());
  constexpr uint64_t kProbes = 1000000;
  uint64_t positives = 0;
  for (uint64_t i = 0; i < kProbes; ++i) {
    positives += f.Contains(Key(kAbsentBase + i));
  }
  const double measured = static_cast<double>(positives) / kProbes;
  const double estimate = f.EstimatedFpr();
  EXPECT_NEAR(measured, estimate, testing::RateTolerance(estimate, kProbes))
      << "estimate " << estimate;
  EXPECT_LE(estimate, std::pow(0.5, 7) * 1.01);
}

TEST(SplitCountingBloomFilterSerializationTest, RoundTripsExactly) {
  auto f = MakeFilter(5, 777, 3);
  for (uint64_t i = 0; i < 400; ++i) ASSERT_TRUE(f.Insert(Key(i)).ok());
  for (int i = 0; i < 50; ++i) ASSERT_TRUE(f.Insert(Key(1)).ok());
  const std::string bytes = f.Serialize();
  auto back = SplitCountingBloomFilter::Deserialize(bytes);
  ASSERT_TRUE(back.ok()) << back.status().ToString();
  EXPECT_EQ(back->Serialize(), bytes);
  EXPECT_EQ(back->element_count(), f.element_count());
  EXPECT_EQ(back->MaxPlaneCount(), f.MaxPlaneCount());
  EXPECT_DOUBLE_EQ(back->EstimatedFpr(), f.EstimatedFpr());
  for (uint64_t i = 0; i < 400; ++i) ASSERT_TRUE(back->Contains(Key(i)));
  // The decoded filter is fully usable: remove everything.
  for (uint64_t i = 0; i < 400; ++i) ASSERT_TRUE(back->Remove(Key(i)).ok());
  for (int i = 0; i < 50; ++i) ASSERT_TRUE(back->Remove(Key(1)).ok());
  EXPECT_TRUE(AllCountersZero(*back));
}

TEST(SplitCountingBloomFilterSerializationTest,
     FlipsAndTruncationsAreDetected) {
  auto f = MakeFilter(3, 100);
  for (uint64_t i = 0; i < 30; ++i) ASSERT_TRUE(f.Insert(Key(i)).ok());
  const std::string bytes = f.Serialize();
  for (size_t i = 0; i < bytes.size(); ++i) {
    std::string bad = bytes;
    bad[i] = static_cast<char>(bad[i] ^ (1 << (i % 8)));
    ASSERT_TRUE(
        SplitCountingBloomFilter::Deserialize(bad).status().IsCorruption())
        << "byte " << i;
  }
  for (size_t len = 0; len < bytes.size(); ++len) {
    ASSERT_TRUE(SplitCountingBloomFilter::Deserialize(bytes.substr(0, len))
                    .status()
                    .IsCorruption())
        << "length " << len;
  }
}

TEST(SplitCountingBloomFilterSerializationTest,
     CountsMustMatchBehindAGoodChecksum) {
  // A body whose element count disagrees with the counters is refused even
  // when the frame checksum is right.
  auto f = MakeFilter(3, 100);
  for (uint64_t i = 0; i < 10; ++i) ASSERT_TRUE(f.Insert(Key(i)).ok());
  std::string body;
  f.EncodeTo(&body);
  // Element count sits after k(4) m(8) x(1) fill(8) first_probe(4).
  EncodeFixed64(&body[25], 11);
  auto r = SplitCountingBloomFilter::Deserialize(
      testing::Framed(internal::FrameKind::kSplitCountingBloomFilter, body));
  EXPECT_TRUE(r.status().IsCorruption()) << r.status().ToString();
  // A DDCF frame is not an SCBF frame.
  EXPECT_TRUE(SplitCountingBloomFilter::Deserialize(f.slice(0).Serialize())
                  .status()
                  .IsCorruption());
}

}  // namespace
}  // namespace bloomroute
