#include "tools/import/split_keys.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdio>
#include <string>
#include <vector>

namespace bloomroute {
namespace {

std::string Key(int i) {
  char buf[16];
  std::snprintf(buf, sizeof(buf), "%07d", i);
  return buf;
}

class KeySamplerTest : public ::testing::Test {};

TEST_F(KeySamplerTest, KeepsEveryKeyUpToItsCapacity) {
  KeySampler sampler(10);
  for (int i = 0; i < 7; ++i) sampler.Add(Key(i));
  std::vector<std::string> sample = sampler.Take();
  std::sort(sample.begin(), sample.end());
  EXPECT_EQ(sample.size(), 7u);
  EXPECT_EQ(sample.front(), Key(0));
  EXPECT_EQ(sample.back(), Key(6));
  EXPECT_TRUE(sampler.Take().empty());
}

// A sorted file of 100,000 keys: a reservoir of 1024 must cover all of it,
// not its start. With uniform sampling the median sample lies at rank
// 50,000 +- 1.6 % (one sd ~ 0.5/sqrt(1024)); the bound is 5 sd. Seeded.
TEST_F(KeySamplerTest, SamplesTheWholeInputUniformly) {
  EXPECT_EQ(KeySampler::CapacityFor(4), 1024u);
  EXPECT_EQ(KeySampler::CapacityFor(100), 6400u);
  KeySampler sampler(1024);
  for (int i = 0; i < 100000; ++i) sampler.Add(Key(i));
  EXPECT_EQ(sampler.keys_seen(), 100000u);
  std::vector<std::string> sample = sampler.Take();
  ASSERT_EQ(sample.size(), 1024u);
  std::sort(sample.begin(), sample.end());
  const int median = std::stoi(sample[512]);
  EXPECT_NEAR(median, 50000, 8000);
  EXPECT_GT(std::stoi(sample.back()), 95000);
}

TEST_F(KeySamplerTest, CutsLongKeysToAPrefix) {
  KeySampler sampler(4);
  sampler.Add(std::string(1000, 'k'));
  EXPECT_EQ(sampler.Take()[0], std::string(KeySampler::kMaxKeyBytes, 'k'));
}

TEST_F(KeySamplerTest, SplitKeysAreQuantilesStrictlyAscending) {
  std::vector<std::string> sample;
  for (int i = 0; i < 100; ++i) sample.push_back(Key(99 - i));
  EXPECT_EQ(ChooseSplitKeys(sample, 4),
            (std::vector<std::string>{Key(25), Key(50), Key(75)}));
  EXPECT_TRUE(ChooseSplitKeys(sample, 1).empty());
  EXPECT_TRUE(ChooseSplitKeys({}, 4).empty());
  // Few distinct keys give fewer splits, never a duplicate or the smallest.
  EXPECT_EQ(ChooseSplitKeys({"a", "a", "a", "b", "b", "b"}, 4),
            (std::vector<std::string>{"b"}));
  EXPECT_TRUE(ChooseSplitKeys({"x", "x", "x"}, 3).empty());
}

}  // namespace
}  // namespace bloomroute
