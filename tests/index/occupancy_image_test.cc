#include "index/occupancy_image.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <random>
#include <string>

#include "index/scalable_split_counting_bloom_filter.h"
#include "tests/index/filter_test_util.h"

namespace bloomroute {
namespace {

using Sscbf = ScalableSplitCountingBloomFilter;
using testing::kAbsentBase;
using testing::Key;

SscbfConfig Config(double p, uint64_t n0) {
  SscbfConfig c;
  c.target_fpr = p;
  c.initial_capacity = n0;
  return c;
}

// Drives a filter and an image side by side: every op's mask applied to the
// image keeps it equal to the filter's own occupancy (OccupancyImage::Of).
class Mirror {
 public:
  explicit Mirror(const SscbfConfig& c)
      : filter_(std::move(Sscbf::Create(c)).value()),
        image_(OccupancyImage::Of(filter_)) {}

  void Insert(uint64_t key) {
    uint64_t mask = 0;
    StatusOr<uint32_t> stage = filter_.Insert(Key(key), &mask);
    ASSERT_TRUE(stage.ok()) << stage.status().ToString();
    ASSERT_TRUE(image_.ApplyInsert(Key(key), *stage, mask).ok());
    stage_of_.emplace(key, *stage);
  }
  void Remove(uint64_t key) {
    auto it = stage_of_.find(key);
    uint64_t mask = 0;
    ASSERT_TRUE(filter_.Remove(Key(key), it->second, &mask).ok());
    Status s = image_.ApplyRemove(Key(key), it->second, mask);
    ASSERT_TRUE(s.ok()) << s.ToString();
    stage_of_.erase(it);
  }
  const Sscbf& filter() const { return filter_; }
  const OccupancyImage& image() const { return image_; }
  const std::multimap<uint64_t, uint32_t>& stage_of() const {
    return stage_of_;
  }

 private:
  Sscbf filter_;
  OccupancyImage image_;
  std::multimap<uint64_t, uint32_t> stage_of_;
};

TEST(OccupancyImageTest, OpMasksKeepACopyEqualToTheFilter) {
  for (uint32_t seed : {1u, 2u, 3u}) {
    std::mt19937_64 rng(seed);
    Mirror m(Config(0.05, 16));
    uint64_t next = 0;
    uint32_t most_stages = 0;
    for (int step = 0; step < 4000; ++step) {
      const bool insert =
          m.stage_of().empty() || rng() % 100 < (step < 2000 ? 70 : 30);
      if (insert) {
        // Now and then the same element again (counted twice).
        const uint64_t key =
            (rng() % 8 == 0 && next > 0) ? rng() % next : next++;
        ASSERT_NO_FATAL_FAILURE(m.Insert(key));
      } else {
        auto it = m.stage_of().begin();
        std::advance(it, rng() % m.stage_of().size());
        ASSERT_NO_FATAL_FAILURE(m.Remove(it->first));
      }
      most_stages = std::max(most_stages, m.filter().stage_count());
      if (step % 97 == 0) {
        ASSERT_TRUE(m.image() == OccupancyImage::Of(m.filter()))
            << "seed " << seed << " step " << step;
      }
    }
    EXPECT_GT(most_stages, 2u);
    while (!m.stage_of().empty()) {
      ASSERT_NO_FATAL_FAILURE(m.Remove(m.stage_of().begin()->first));
    }
    EXPECT_TRUE(m.image() == OccupancyImage::Of(m.filter()));
    EXPECT_EQ(m.image().stages().size(), 1u);
    EXPECT_EQ(m.image().element_count(), 0u);
  }
}

TEST(OccupancyImageTest, AnswersAsTheFilterDoes) {
  Mirror m(Config(0.01, 64));
  for (uint64_t i = 0; i < 1000; ++i) ASSERT_NO_FATAL_FAILURE(m.Insert(i));
  for (uint64_t i = 0; i < 1000; ++i) ASSERT_TRUE(m.image().Contains(Key(i)));
  for (uint64_t i = 0; i < 50000; ++i) {
    ASSERT_EQ(m.image().Contains(Key(kAbsentBase + i)),
              m.filter().Contains(Key(kAbsentBase + i)));
  }
  const SscbfStats a = m.image().Stats();
  const SscbfStats b = m.filter().Stats();
  EXPECT_EQ(a.elements, b.elements);
  EXPECT_DOUBLE_EQ(a.estimated_fpr, b.estimated_fpr);
  EXPECT_DOUBLE_EQ(a.compounded_bound, b.compounded_bound);
  ASSERT_EQ(a.stages.size(), b.stages.size());
  for (size_t i = 0; i < a.stages.size(); ++i) {
    EXPECT_DOUBLE_EQ(a.stages[i].fill, b.stages[i].fill);
  }
}

// What a catch-up ships: the bits alone, against the counters (base bits
// x = 4 plus planes) of today's snapshot: a quarter (measured 64,273 vs
// 256,530 bytes here).
TEST(OccupancyImageTest, IsAFractionOfTheCountingFiltersBytes) {
  Mirror m(Config(0.01, 1024));
  for (uint64_t i = 0; i < 20000; ++i) ASSERT_NO_FATAL_FAILURE(m.Insert(i));
  const size_t bits = m.image().Serialize().size();
  const size_t counters = m.filter().Serialize().size();
  EXPECT_LT(bits * 3, counters) << bits << " vs " << counters;
}

TEST(OccupancyImageTest, SerializationRoundTrips) {
  Mirror m(Config(0.1, 8));
  for (uint64_t i = 0; i < 60; ++i) ASSERT_NO_FATAL_FAILURE(m.Insert(i));
  const std::string bytes = m.image().Serialize();
  StatusOr<OccupancyImage> back = OccupancyImage::Deserialize(bytes);
  ASSERT_TRUE(back.ok()) << back.status().ToString();
  EXPECT_TRUE(*back == m.image());
  EXPECT_EQ(back->Serialize(), bytes);
}

TEST(OccupancyImageTest, FlipsAndTruncationsAreDetected) {
  Mirror m(Config(0.1, 8));
  for (uint64_t i = 0; i < 40; ++i) ASSERT_NO_FATAL_FAILURE(m.Insert(i));
  ASSERT_GT(m.image().stages().size(), 1u);
  const std::string bytes = m.image().Serialize();
  for (size_t i = 0; i < bytes.size(); ++i) {
    std::string bad = bytes;
    bad[i] = static_cast<char>(bad[i] ^ (0x80 >> (i % 8)));
    ASSERT_TRUE(OccupancyImage::Deserialize(bad).status().IsCorruption()) << i;
  }
  for (size_t len = 0; len < bytes.size(); ++len) {
    ASSERT_TRUE(OccupancyImage::Deserialize(bytes.substr(0, len))
                    .status()
                    .IsCorruption())
        << len;
  }
}

// Behind a good checksum: more bits in a slice than the stage has elements,
// bits past the slice length, a huge stage count.
TEST(OccupancyImageTest, ContentIsCheckedBehindAGoodChecksum) {
  Mirror m(Config(0.1, 8));
  for (uint64_t i = 0; i < 3; ++i) ASSERT_NO_FATAL_FAILURE(m.Insert(i));
  const std::string payload = testing::PayloadOf(m.image().Serialize());
  // config (3 doubles, n0, x, fill = 41 bytes), first stage, stage count,
  // then stage 0's element count and words.
  const size_t elements_at = 41 + 4 + 4;
  auto decode = [](const std::string& p) {
    return OccupancyImage::Deserialize(
        testing::Framed(internal::FrameKind::kOccupancyImage, p));
  };
  ASSERT_TRUE(decode(payload).ok());
  std::string fewer = payload;
  EncodeFixed64(&fewer[elements_at], 1);  // 3 elements' bits, 1 element
  EXPECT_TRUE(decode(fewer).status().IsCorruption());
  std::string none = payload;
  EncodeFixed64(&none[elements_at], 0);
  EXPECT_TRUE(decode(none).status().IsCorruption());
  const StageGeometry g = m.image().stages()[0].geometry;
  ASSERT_NE(g.slice_length % 64, 0u);
  std::string padding = payload;
  const size_t last_word =
      elements_at + 8 + ((g.slice_length + 63) / 64 - 1) * 8;
  padding[last_word + 7] =
      static_cast<char>(0x80);  // bit 63 of slice 0's last word
  EXPECT_TRUE(decode(padding).status().IsCorruption());
  std::string many = payload;
  EncodeFixed32(&many[45], 0xffffffff);
  EXPECT_TRUE(decode(many).status().IsCorruption());
}

TEST(OccupancyImageTest, OpsThatDoNotFollowTheImageAreRefused) {
  Mirror m(Config(0.1, 64));
  for (uint64_t i = 0; i < 10; ++i) ASSERT_NO_FATAL_FAILURE(m.Insert(i));
  OccupancyImage image = m.image();
  const OccupancyImage before = image;
  const uint32_t k = image.stages()[0].geometry.slices;
  // Setting a bit that is set: Key(0)'s probes are all set.
  EXPECT_TRUE(image.ApplyInsert(Key(0), 0, 1).IsInvalidArgument());
  // A mask past the stage's slices.
  EXPECT_TRUE(image.ApplyInsert(Key(kAbsentBase), 0, uint64_t{1} << k)
                  .IsInvalidArgument());
  // Removes: a stage not open, an element not there.
  EXPECT_TRUE(image.ApplyRemove(Key(0), 5, 0).IsInvalidArgument());
  uint64_t absent = kAbsentBase;
  while (image.Contains(Key(absent))) ++absent;
  EXPECT_TRUE(image.ApplyRemove(Key(absent), 0, 1).IsInvalidArgument());
  EXPECT_TRUE(image == before);
  // A stage below the first, more than one past the newest, or past the
  // ladder.
  EXPECT_TRUE(image.ApplyInsert(Key(absent), 2, 0).IsInvalidArgument());
  EXPECT_TRUE(image.ApplyInsert(Key(absent), 64, 0).IsInvalidArgument());
  auto high = std::move(OccupancyImage::Create(Config(0.1, 64), 3)).value();
  EXPECT_TRUE(high.ApplyInsert(Key(absent), 2, 0).IsInvalidArgument());
  EXPECT_TRUE(image == before);
}

}  // namespace
}  // namespace bloomroute
