#include "tools/bench/ycsb_generators.h"

#include <gtest/gtest.h>

#include <cmath>
#include <map>
#include <set>
#include <thread>
#include <vector>

namespace bloomroute::ycsb {
namespace {

constexpr uint64_t kSeed = 42;
constexpr int kDraws = 1'000'000;

// Five standard deviations of a frequency p estimated from n draws.
double FiveSd(double p, double n) { return 5 * std::sqrt(p * (1 - p) / n); }

template <typename Draw>
std::map<uint64_t, int> Histogram(int draws, Draw&& draw) {
  std::map<uint64_t, int> counts;
  for (int i = 0; i < draws; ++i) ++counts[draw()];
  return counts;
}

class YcsbGeneratorsTest : public ::testing::Test {
 protected:
  Rng rng_{kSeed};
};

TEST_F(YcsbGeneratorsTest, HashedKeysAreDistinctNonNegativeAndNamedUser) {
  std::set<std::string> keys;
  for (uint64_t r = 0; r < 100'000; ++r) {
    EXPECT_LE(FnvHash64(r), uint64_t{1} << 63);
    keys.insert(KeyName(r));
  }
  EXPECT_EQ(keys.size(), 100'000u);
  EXPECT_EQ(KeyName(7).rfind("user", 0), 0u);
  EXPECT_EQ(KeyName(7), "user" + std::to_string(FnvHash64(7)));
  // FNV-1a changes with every byte of the record number.
  EXPECT_NE(FnvHash64(1), FnvHash64(uint64_t{1} << 56));
}

// Uniform over 10 values: each within 5 sd of 1/10.
TEST_F(YcsbGeneratorsTest, UniformStaysInRangeAndIsFlat) {
  UniformGenerator uniform(5, 14);
  auto counts = Histogram(kDraws, [&] { return uniform.Next(rng_); });
  ASSERT_EQ(counts.size(), 10u);
  EXPECT_EQ(counts.begin()->first, 5u);
  EXPECT_EQ(counts.rbegin()->first, 14u);
  for (const auto& [value, n] : counts) {
    EXPECT_NEAR(n / double{kDraws}, 0.1, FiveSd(0.1, kDraws)) << value;
  }
}

// Gray et al.'s generator gives item 0 probability 1/zeta(n) and item 1
// 0.5^theta/zeta(n) exactly; the items below 100 of 1000 take
// zeta(100)/zeta(1000) of the draws up to the tail approximation (bound
// 1% absolute, measured 0.2%).
TEST_F(YcsbGeneratorsTest, ZipfianMatchesTheZipfLaw) {
  constexpr uint64_t kItems = 1000;
  ZipfianGenerator zipfian(0, kItems - 1);
  const double zetan = Zeta(kItems, kZipfianConstant);
  EXPECT_DOUBLE_EQ(zipfian.zetan(), zetan);
  int head = 0;
  auto counts = Histogram(kDraws, [&] {
    const uint64_t v = zipfian.Next(rng_);
    if (v < 100) ++head;
    return v;
  });
  EXPECT_LE(counts.rbegin()->first, kItems - 1);
  const double p0 = 1 / zetan;
  const double p1 = std::pow(0.5, kZipfianConstant) / zetan;
  EXPECT_NEAR(counts[0] / double{kDraws}, p0, FiveSd(p0, kDraws));
  EXPECT_NEAR(counts[1] / double{kDraws}, p1, FiveSd(p1, kDraws));
  EXPECT_NEAR(head / double{kDraws}, Zeta(100, kZipfianConstant) / zetan, 0.01);
  // Popularity falls with rank.
  EXPECT_GT(counts[0], counts[1]);
  EXPECT_GT(counts[1], counts[10]);
  EXPECT_GT(counts[10], counts[500]);
}

TEST_F(YcsbGeneratorsTest, ZipfianZetaGrowsAndShrinksWithTheItemCount) {
  ZipfianGenerator zipfian(0, 99);
  for (int i = 0; i < 1000; ++i) EXPECT_LT(zipfian.Next(rng_, 5000), 5000u);
  EXPECT_EQ(zipfian.items(), 5000u);
  EXPECT_NEAR(zipfian.zetan(), Zeta(5000, kZipfianConstant), 1e-9);
  for (int i = 0; i < 1000; ++i) EXPECT_LT(zipfian.Next(rng_, 3), 3u);
  EXPECT_NEAR(zipfian.zetan(), Zeta(3, kZipfianConstant), 1e-12);
  EXPECT_EQ(zipfian.Next(rng_, 1), 0u);
}

// YCSB's constant zeta(10^10, 0.99) against Zeta(10^6) extended to 10^10 by
// the Euler-Maclaurin integral and end-point terms (error ~1e-9 here).
TEST_F(YcsbGeneratorsTest, ScrambledZetaConstantIsZetaOfTenBillion) {
  const double theta = kZipfianConstant;
  const double a = 1e6;
  const double b = 1e10;
  const auto f = [&](double x) { return std::pow(x, -theta); };
  const double integral =
      (std::pow(b, 1 - theta) - std::pow(a, 1 - theta)) / (1 - theta);
  const double estimate = Zeta(1'000'000, theta) + integral + (f(b) - f(a)) / 2;
  EXPECT_NEAR(estimate, ScrambledZipfianGenerator::kScrambledZetan, 1e-4);
}

// The most popular record is the hash of the zipfian's item 0, drawn about
// 1/zeta(10^10) of the time (3.8%); collisions of the other items add
// their share of the rest, about 1/1000 here: bound 5 sd + 1%.
TEST_F(YcsbGeneratorsTest, ScrambledZipfianScattersTheHotItemsOverTheRange) {
  constexpr uint64_t kMin = 100;
  constexpr uint64_t kItems = 1000;
  ScrambledZipfianGenerator scrambled(kMin, kMin + kItems - 1);
  auto counts = Histogram(kDraws, [&] { return scrambled.Next(rng_); });
  EXPECT_GE(counts.begin()->first, kMin);
  EXPECT_LE(counts.rbegin()->first, kMin + kItems - 1);
  uint64_t hottest = 0;
  int most = 0;
  for (const auto& [value, n] : counts) {
    if (n > most) {
      most = n;
      hottest = value;
    }
  }
  EXPECT_EQ(hottest, kMin + FnvHash64(0) % kItems);
  const double p0 = 1 / ScrambledZipfianGenerator::kScrambledZetan;
  EXPECT_GT(most / double{kDraws}, p0 - FiveSd(p0, kDraws));
  EXPECT_LT(most / double{kDraws}, p0 + FiveSd(p0, kDraws) + 0.01);
  // Skewed, though less than a zipfian over the range (the draws come from
  // 10^10 items): the hottest tenth of the records take at least the share
  // of the zipfian's 100 hottest items, zeta(100)/zeta(10^10) (0.196), plus
  // a tenth of the rest (0.080); bound 0.03 below that, measured 0.296.
  std::vector<int> sorted;
  for (const auto& [value, n] : counts) sorted.push_back(n);
  std::sort(sorted.rbegin(), sorted.rend());
  int top_tenth = 0;
  for (size_t i = 0; i < kItems / 10; ++i) top_tenth += sorted[i];
  const double hot =
      Zeta(100, kZipfianConstant) / ScrambledZipfianGenerator::kScrambledZetan;
  EXPECT_GT(top_tenth / double{kDraws}, hot + (1 - hot) / 10 - 0.03);
}

TEST_F(YcsbGeneratorsTest, InsertSequenceCountsOnlyContiguousAcknowledgements) {
  InsertSequence inserted(1000);
  EXPECT_EQ(inserted.Last(), 999u);
  const uint64_t a = inserted.Next();
  const uint64_t b = inserted.Next();
  const uint64_t c = inserted.Next();
  EXPECT_EQ(a, 1000u);
  EXPECT_EQ(c, 1002u);
  inserted.Acknowledge(b);
  EXPECT_EQ(inserted.Last(), 999u);
  inserted.Acknowledge(a);
  EXPECT_EQ(inserted.Last(), 1001u);
  inserted.Acknowledge(c);
  EXPECT_EQ(inserted.Last(), 1002u);
}

TEST_F(YcsbGeneratorsTest, InsertSequenceIsSharedSafelyByThreads) {
  InsertSequence inserted(10);
  std::vector<std::thread> threads;
  for (int t = 0; t < 4; ++t) {
    threads.emplace_back([&] {
      for (int i = 0; i < 1000; ++i) inserted.Acknowledge(inserted.Next());
    });
  }
  for (std::thread& t : threads) t.join();
  EXPECT_EQ(inserted.Last(), 10u + 4000 - 1);
}

// The newest record is drawn 1/zeta(n) of the time, and the newest tenth
// about zeta(n/10)/zeta(n) (bound 1%); records inserted later take over.
TEST_F(YcsbGeneratorsTest, LatestFavoursTheMostRecentInserts) {
  InsertSequence inserted(1000);
  SkewedLatestGenerator latest(&inserted);
  int newest_tenth = 0;
  auto counts = Histogram(kDraws, [&] {
    const uint64_t v = latest.Next(rng_);
    if (v >= 900) ++newest_tenth;
    return v;
  });
  EXPECT_LE(counts.rbegin()->first, 999u);
  const double zetan = Zeta(1000, kZipfianConstant);
  EXPECT_NEAR(counts[999] / double{kDraws}, 1 / zetan,
              FiveSd(1 / zetan, kDraws));
  EXPECT_NEAR(newest_tenth / double{kDraws},
              Zeta(100, kZipfianConstant) / zetan, 0.01);

  for (int i = 0; i < 100; ++i) inserted.Acknowledge(inserted.Next());
  auto later = Histogram(100'000, [&] { return latest.Next(rng_); });
  EXPECT_EQ(later.rbegin()->first, 1099u);
  EXPECT_GT(later[1099], later[999]);
}

TEST_F(YcsbGeneratorsTest, DiscreteFollowsItsWeights) {
  DiscreteGenerator operation({0.95, 0, 0.05});
  auto counts = Histogram(kDraws, [&] { return operation.Next(rng_); });
  EXPECT_EQ(counts.count(1), 0u);
  EXPECT_NEAR(counts[0] / double{kDraws}, 0.95, FiveSd(0.95, kDraws));
  EXPECT_NEAR(counts[2] / double{kDraws}, 0.05, FiveSd(0.05, kDraws));
}

}  // namespace
}  // namespace bloomroute::ycsb
