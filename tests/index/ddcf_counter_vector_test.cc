#include "index/ddcf_counter_vector.h"

#include <gtest/gtest.h>

#include <random>
#include <vector>

#include "common/coding.h"
#include "index/internal/frame.h"
#include "tests/index/filter_test_util.h"

namespace bloomroute {
namespace {

// Planes a counter of value v needs on top of x base bits: bit_width(v) - x.
uint32_t PlanesFor(uint64_t v, uint32_t x) {
  uint32_t width = 0;
  while (v >> width) ++width;
  return width > x ? width - x : 0;
}

uint64_t ExpectedMemory(uint64_t m, uint32_t x, uint32_t y) {
  return (m * x + 63) / 64 * 8 + y * ((m + 63) / 64) * 8;
}

class DdcfCounterVectorTest : public ::testing::TestWithParam<uint32_t> {};

TEST_P(DdcfCounterVectorTest, PlanesAppearExactlyAtPowersOfTwo) {
  const uint32_t x = GetParam();
  auto v = DdcfCounterVector::Create(100, x);
  ASSERT_TRUE(v.ok());
  const uint64_t limit = uint64_t{1} << (x + 4);
  for (uint64_t value = 1; value <= limit; ++value) {
    ASSERT_TRUE(v->Increment(37).ok());
    ASSERT_EQ(v->Get(37), value);
    // A plane is added by exactly the increment that reaches 2^(x+p).
    ASSERT_EQ(v->plane_count(), PlanesFor(value, x)) << "value " << value;
    ASSERT_EQ(v->MemoryBytes(), ExpectedMemory(100, x, v->plane_count()));
  }
  EXPECT_EQ(v->plane_count(), 5u);  // 2^(x+4) needs x+5 bits
  // ... and dropped by exactly the decrement that goes below it.
  for (uint64_t value = limit; value-- > 0;) {
    ASSERT_TRUE(v->Decrement(37).ok());
    ASSERT_EQ(v->Get(37), value);
    ASSERT_EQ(v->plane_count(), PlanesFor(value, x)) << "value " << value;
  }
  EXPECT_EQ(v->nonzero_count(), 0u);
  EXPECT_EQ(v->MemoryBytes(), ExpectedMemory(100, x, 0));
}

TEST_P(DdcfCounterVectorTest, RandomOpsMatchAnExactModel) {
  // Counters of all sizes, including fields that straddle 64-bit words when
  // x does not divide 64, checked against plain integers after every plane
  // change and at the end. Seed fixed.
  const uint32_t x = GetParam();
  constexpr uint64_t kCounters = 515;  // not a multiple of 64
  auto v = DdcfCounterVector::Create(kCounters, x);
  ASSERT_TRUE(v.ok());
  std::vector<uint32_t> model(kCounters, 0);
  std::mt19937_64 rng(20261121 + x);
  uint32_t last_planes = 0;
  for (int op = 0; op < 200000; ++op) {
    // Hot counters reach a few hundred, so planes come and go.
    const uint64_t i = (rng() % 8 == 0) ? rng() % 4 : rng() % kCounters;
    const bool increment =
        model[i] == 0 || rng() % 100 < (op < 100000 ? 55 : 45);
    if (increment) {
      ASSERT_TRUE(v->Increment(i).ok());
      ++model[i];
    } else {
      ASSERT_TRUE(v->Decrement(i).ok());
      --model[i];
    }
    ASSERT_EQ(v->Get(i), model[i]);
    if (v->plane_count() != last_planes) {
      last_planes = v->plane_count();
      for (uint64_t j = 0; j < kCounters; ++j) ASSERT_EQ(v->Get(j), model[j]);
    }
  }
  uint32_t max_value = 0;
  uint64_t nonzero = 0, sum = 0;
  for (uint64_t j = 0; j < kCounters; ++j) {
    ASSERT_EQ(v->Get(j), model[j]);
    ASSERT_EQ(v->IsNonZero(j), model[j] != 0);
    max_value = std::max(max_value, model[j]);
    nonzero += model[j] != 0;
    sum += model[j];
  }
  EXPECT_EQ(v->plane_count(), PlanesFor(max_value, x));
  EXPECT_EQ(v->nonzero_count(), nonzero);
  EXPECT_EQ(v->Sum(), sum);
  EXPECT_EQ(v->MemoryBytes(),
            ExpectedMemory(kCounters, x, PlanesFor(max_value, x)));
}

INSTANTIATE_TEST_SUITE_P(BaseBits, DdcfCounterVectorTest,
                         ::testing::Values(1u, 3u, 4u, 5u, 7u, 8u, 16u));

TEST(DdcfCounterVectorPlanesTest, TopPlaneDropsOnlyWhenNoCounterNeedsIt) {
  auto v = DdcfCounterVector::Create(64 * 3, 4);
  ASSERT_TRUE(v.ok());
  for (int i = 0; i < 40; ++i) ASSERT_TRUE(v->Increment(10).ok());
  for (int i = 0; i < 20; ++i) ASSERT_TRUE(v->Increment(150).ok());
  EXPECT_EQ(v->plane_count(), 2u);  // 40 needs 6 bits
  EXPECT_EQ(v->plane_population(1), 1u);
  EXPECT_EQ(v->plane_population(0), 1u);  // 40 = 0b101000: bit 4 clear, 20 set
  for (int i = 0; i < 9; ++i) ASSERT_TRUE(v->Decrement(10).ok());  // 31
  EXPECT_EQ(v->plane_count(), 1u);
  EXPECT_EQ(v->Get(10), 31u);
  EXPECT_EQ(v->Get(150), 20u);
  for (int i = 0; i < 31; ++i) ASSERT_TRUE(v->Decrement(10).ok());
  EXPECT_EQ(v->plane_count(), 1u);  // counter 150 still needs the plane
  for (int i = 0; i < 4; ++i) ASSERT_TRUE(v->Decrement(150).ok());  // 16
  EXPECT_EQ(v->plane_count(), 1u);
  ASSERT_TRUE(v->Decrement(150).ok());  // 15 fits in 4 bits
  EXPECT_EQ(v->plane_count(), 0u);
  EXPECT_EQ(v->Get(150), 15u);
  EXPECT_EQ(v->MemoryBytes(), v->BaseBytes());
}

TEST(DdcfCounterVectorErrorsTest, DecrementingZeroIsAnErrorAndChangesNothing) {
  auto v = DdcfCounterVector::Create(10, 4);
  ASSERT_TRUE(v.ok());
  ASSERT_TRUE(v->Increment(3).ok());
  Status s = v->Decrement(4);
  EXPECT_TRUE(s.IsInvalidArgument()) << s.ToString();
  EXPECT_EQ(v->Get(4), 0u);
  EXPECT_EQ(v->Get(3), 1u);
  EXPECT_EQ(v->nonzero_count(), 1u);
}

TEST(DdcfCounterVectorErrorsTest, OutOfRangeIndexIsRejected) {
  auto v = DdcfCounterVector::Create(10, 4);
  ASSERT_TRUE(v.ok());
  EXPECT_TRUE(v->Increment(10).IsInvalidArgument());
  EXPECT_TRUE(v->Decrement(10).IsInvalidArgument());
  EXPECT_EQ(v->nonzero_count(), 0u);
}

TEST(DdcfCounterVectorErrorsTest, CreateValidatesItsArguments) {
  EXPECT_TRUE(DdcfCounterVector::Create(0, 4).status().IsInvalidArgument());
  EXPECT_TRUE(DdcfCounterVector::Create((uint64_t{1} << 32) + 1, 4)
                  .status()
                  .IsInvalidArgument());
  EXPECT_TRUE(DdcfCounterVector::Create(10, 0).status().IsInvalidArgument());
  EXPECT_TRUE(DdcfCounterVector::Create(10, 17).status().IsInvalidArgument());
  EXPECT_TRUE(DdcfCounterVector::Create(1, 16).ok());
}

// A frame around a hand-written body, with a valid checksum, so that the
// decoder's own validation is what is tested.
std::string FrameBody(const std::string& body) {
  return testing::Framed(internal::FrameKind::kDdcfCounterVector, body);
}

std::string Body(uint64_t m, uint8_t x, uint8_t y,
                 const std::vector<uint64_t>& words) {
  std::string b;
  PutFixed64(&b, m);
  PutFixed8(&b, x);
  PutFixed8(&b, y);
  for (uint64_t w : words) PutFixed64(&b, w);
  return b;
}

TEST(DdcfCounterVectorErrorsTest, CounterAtTheThirtyTwoBitLimitIsRefused) {
  // One counter, 16 base bits and 16 planes, every bit set: 2^32 - 1.
  std::vector<uint64_t> words(17, 0);
  words[0] = 0xffff;
  for (int p = 1; p <= 16; ++p) words[p] = 1;
  auto v = DdcfCounterVector::Deserialize(FrameBody(Body(1, 16, 16, words)));
  ASSERT_TRUE(v.ok()) << v.status().ToString();
  EXPECT_EQ(v->Get(0), UINT32_MAX);
  EXPECT_TRUE(v->Increment(0).IsInvalidArgument());
  EXPECT_EQ(v->Get(0), UINT32_MAX);
  EXPECT_TRUE(v->Decrement(0).ok());
  EXPECT_EQ(v->Get(0), UINT32_MAX - 1);
}

TEST(DdcfCounterVectorSerializationTest, RoundTripsExactly) {
  auto v = DdcfCounterVector::Create(1000, 3);
  ASSERT_TRUE(v.ok());
  std::mt19937_64 rng(7);
  for (int i = 0; i < 5000; ++i) ASSERT_TRUE(v->Increment(rng() % 1000).ok());
  for (int i = 0; i < 100; ++i) ASSERT_TRUE(v->Increment(999).ok());
  ASSERT_GT(v->plane_count(), 0u);
  const std::string bytes = v->Serialize();
  auto back = DdcfCounterVector::Deserialize(bytes);
  ASSERT_TRUE(back.ok()) << back.status().ToString();
  EXPECT_EQ(back->Serialize(), bytes);
  EXPECT_EQ(back->plane_count(), v->plane_count());
  EXPECT_EQ(back->nonzero_count(), v->nonzero_count());
  for (uint64_t i = 0; i < 1000; ++i) ASSERT_EQ(back->Get(i), v->Get(i));
  for (uint32_t p = 0; p < v->plane_count(); ++p) {
    EXPECT_EQ(back->plane_population(p), v->plane_population(p));
  }
}

TEST(DdcfCounterVectorSerializationTest, EveryFlippedBitIsDetected) {
  auto v = DdcfCounterVector::Create(100, 4);
  ASSERT_TRUE(v.ok());
  for (int i = 0; i < 40; ++i) ASSERT_TRUE(v->Increment(i % 7).ok());
  const std::string bytes = v->Serialize();
  for (size_t i = 0; i < bytes.size(); ++i) {
    for (int bit = 0; bit < 8; ++bit) {
      std::string bad = bytes;
      bad[i] = static_cast<char>(bad[i] ^ (1 << bit));
      auto r = DdcfCounterVector::Deserialize(bad);
      ASSERT_FALSE(r.ok()) << "byte " << i << " bit " << bit;
      ASSERT_TRUE(r.status().IsCorruption()) << r.status().ToString();
    }
  }
}

TEST(DdcfCounterVectorSerializationTest, EveryTruncationIsDetected) {
  auto v = DdcfCounterVector::Create(100, 4);
  ASSERT_TRUE(v.ok());
  ASSERT_TRUE(v->Increment(5).ok());
  const std::string bytes = v->Serialize();
  for (size_t len = 0; len < bytes.size(); ++len) {
    auto r = DdcfCounterVector::Deserialize(bytes.substr(0, len));
    ASSERT_TRUE(r.status().IsCorruption()) << "length " << len;
  }
  EXPECT_TRUE(
      DdcfCounterVector::Deserialize(bytes + "x").status().IsCorruption());
}

TEST(DdcfCounterVectorSerializationTest, InvalidBodiesBehindAGoodChecksum) {
  auto corrupt = [](const std::string& body) {
    return DdcfCounterVector::Deserialize(FrameBody(body)).status();
  };
  // 2^32 counters claimed, no data: refused before anything is allocated.
  EXPECT_TRUE(corrupt(Body(uint64_t{1} << 32, 4, 0, {})).IsCorruption());
  EXPECT_TRUE(corrupt(Body((uint64_t{1} << 32) + 1, 4, 0, {})).IsCorruption());
  EXPECT_TRUE(corrupt(Body(0, 4, 0, {})).IsCorruption());
  EXPECT_TRUE(corrupt(Body(10, 0, 0, {0})).IsCorruption());
  EXPECT_TRUE(corrupt(Body(10, 17, 0, {0, 0, 0})).IsCorruption());
  EXPECT_TRUE(corrupt(Body(1, 16, 17, std::vector<uint64_t>(18, 1)))
                  .IsCorruption());  // x + y > 32
  // 10 counters of 4 bits use 40 bits; bit 40 is padding.
  EXPECT_TRUE(corrupt(Body(10, 4, 0, {uint64_t{1} << 40})).IsCorruption());
  EXPECT_TRUE(corrupt(Body(10, 4, 1, {0, uint64_t{1} << 10})).IsCorruption());
  // A top plane with no bit set would never have been kept.
  EXPECT_TRUE(corrupt(Body(10, 4, 1, {0, 0})).IsCorruption());
  // Trailing bytes after a valid body.
  EXPECT_TRUE(corrupt(Body(10, 4, 0, {1, 0})).IsCorruption());
  // And the valid one for contrast.
  EXPECT_TRUE(corrupt(Body(10, 4, 1, {1, 1})).ok());
}

}  // namespace
}  // namespace bloomroute
