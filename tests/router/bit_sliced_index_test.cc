#include "router/internal/bit_sliced_index.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <atomic>
#include <map>
#include <memory>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include "index/occupancy_image.h"
#include "index/scalable_split_counting_bloom_filter.h"

namespace bloomroute::router::internal {
namespace {

using Sscbf = ScalableSplitCountingBloomFilter;

// Small stages, so that a few hundred elements climb several of them.
SscbfConfig SmallConfig() {
  SscbfConfig c;
  c.target_fpr = 0.05;
  c.tightening_ratio = 0.8;
  c.initial_capacity = 16;
  return c;
}

ElementHash Element(int i) { return HashElement(1, 2, std::to_string(i)); }

bool Has(const std::vector<uint64_t>& bitset, uint32_t slot) {
  return slot / 64 < bitset.size() && ((bitset[slot / 64] >> (slot % 64)) & 1);
}

// One server slot of the model: the server's filter (the authority), the
// stage of each of its distinct values, and whether the replica is current.
struct ModelSlot {
  Sscbf filter;
  std::map<int, uint32_t> stage_of;
  bool current = false;
};

class BitSlicedIndexTest : public ::testing::Test {
 protected:
  void SetUp() override {
    index_ = std::move(BitSlicedIndex::Create(SmallConfig())).value();
  }
  void AddSlots(uint32_t n) {
    ASSERT_TRUE(index_->EnsureSlots(n).ok());
    while (model_.size() < n) {
      model_.push_back({Sscbf::Create(SmallConfig()).value(), {}, false});
    }
  }
  void Insert(uint32_t slot, int e) {
    ModelSlot& m = model_[slot];
    if (m.stage_of.count(e)) return;
    uint64_t mask = 0;
    const uint32_t stage = m.filter.Insert(Element(e), &mask).value();
    m.stage_of[e] = stage;
    ASSERT_TRUE(index_->SetBits(slot, stage, Element(e), mask).ok());
  }
  void Remove(uint32_t slot, std::mt19937_64& rng) {
    ModelSlot& m = model_[slot];
    if (m.stage_of.empty()) return;
    auto it = m.stage_of.begin();
    std::advance(it, rng() % m.stage_of.size());
    uint64_t mask = 0;
    ASSERT_TRUE(m.filter.Remove(Element(it->first), it->second, &mask).ok());
    ASSERT_TRUE(
        index_->ClearBits(slot, it->second, Element(it->first), mask).ok());
    m.stage_of.erase(it);
  }
  // What a compaction does: a fresh filter further up (or down) the ladder,
  // refilled with the slot's values, installed whole.
  void Compact(uint32_t slot, std::mt19937_64& rng) {
    ModelSlot& m = model_[slot];
    const uint32_t first = static_cast<uint32_t>(rng() % 4);
    m.filter = Sscbf::CreateAtStage(SmallConfig(), first).value();
    for (auto& [e, stage] : m.stage_of) {
      stage = m.filter.Insert(Element(e)).value();
    }
    ASSERT_TRUE(index_->Install(slot, OccupancyImage::Of(m.filter)).ok());
  }
  std::vector<uint64_t> Expected(const std::vector<ElementHash>& conj) const {
    std::vector<uint64_t> want((model_.size() + 63) / 64, 0);
    for (uint32_t s = 0; s < model_.size(); ++s) {
      bool all = true;
      for (const ElementHash& h : conj)
        all = all && model_[s].filter.Contains(h);
      if (!model_[s].current || all) want[s / 64] |= uint64_t{1} << (s % 64);
    }
    return want;
  }
  void CheckQueries(std::mt19937_64& rng, int universe) {
    for (int q = 0; q < 20; ++q) {
      std::vector<ElementHash> conj;
      const int n = static_cast<int>(rng() % 3);
      for (int i = 0; i < n; ++i) conj.push_back(Element(rng() % universe));
      std::vector<uint64_t> got;
      index_->Candidates(conj, &got);
      ASSERT_EQ(got, Expected(conj)) << "query " << q << " of " << n;
    }
  }
  void CheckExtract(uint32_t slot) {
    const OccupancyImage want = OccupancyImage::Of(model_[slot].filter);
    std::vector<uint64_t> counts;
    for (const OccupancyStage& st : want.stages())
      counts.push_back(st.elements);
    StatusOr<OccupancyImage> got =
        index_->Extract(slot, want.first_stage(), want.end_stage(), counts);
    ASSERT_TRUE(got.ok()) << got.status().ToString();
    EXPECT_TRUE(*got == want) << "slot " << slot;
  }

  void RunModel(uint64_t seed, const std::array<uint32_t, 3>& growth);
  void RunInstallRace(uint32_t slots);

  std::unique_ptr<BitSlicedIndex> index_;
  std::vector<ModelSlot> model_;
};

// Random inserts, removes, compactions (installs moving every element to
// other stages), current flips, clears and growths, checked against the
// servers' own filters after every step: Candidates must be exactly {slots
// in use: not current, or every element Contains}. `growth` is the slot
// count from the start and after each third of the steps.
void BitSlicedIndexTest::RunModel(uint64_t seed,
                                  const std::array<uint32_t, 3>& growth) {
  SCOPED_TRACE("seed " + std::to_string(seed) + ", slots " +
               std::to_string(growth[0]) + " -> " + std::to_string(growth[1]) +
               " -> " + std::to_string(growth[2]));
  SetUp();
  model_.clear();
  std::mt19937_64 rng(seed);
  constexpr int kUniverse = 600;
  constexpr int kSteps = 1200;
  for (int step = 0; step < kSteps; ++step) {
    if (step % (kSteps / 3) == 0) AddSlots(growth[step / (kSteps / 3)]);
    if (HasFatalFailure()) return;
    const uint32_t slot = static_cast<uint32_t>(rng() % model_.size());
    const uint32_t op = static_cast<uint32_t>(rng() % 100);
    if (op < 55) {
      Insert(slot, static_cast<int>(rng() % kUniverse));
    } else if (op < 80) {
      Remove(slot, rng);
    } else if (op < 85) {
      Compact(slot, rng);
    } else if (op < 97) {
      model_[slot].current = !model_[slot].current;
      index_->SetCurrent(slot, model_[slot].current);
    } else {
      index_->ClearSlot(slot);
      model_[slot] = {Sscbf::Create(SmallConfig()).value(), {}, false};
    }
    if (HasFatalFailure()) return;
    if (step % 10 == 0) CheckQueries(rng, kUniverse);
    if (HasFatalFailure()) return;
  }
  for (uint32_t s = 0; s < model_.size(); ++s) CheckExtract(s);
}

// Wide and narrow layouts (a column of 1 to 32 slots packed in a word, or
// whole words), each growth crossing one or more layout boundaries (1, 2,
// 4, 8, 16, 32, 64 and 128 slots) with bits in every stage in use.
TEST_F(BitSlicedIndexTest, MatchesServerFiltersExactly) {
  const std::array<uint32_t, 3> kGrowths[] = {
      {5, 70, 70},  {1, 2, 5},    {3, 9, 17},   {8, 16, 33},
      {17, 40, 70}, {32, 33, 64}, {33, 64, 65}, {70, 128, 129},
  };
  uint64_t seed = 1;
  for (const std::array<uint32_t, 3>& growth : kGrowths) {
    RunModel(seed++, growth);
    if (HasFatalFailure()) return;
  }
}

// Adds slots one at a time from 1 to 130, crossing every layout boundary
// (1 -> 2 -> 4 -> 8 -> 16 -> 32 -> 64 -> 128 -> 192 slots); after each
// growth every slot's bits, current flags and lookups must be unchanged.
TEST_F(BitSlicedIndexTest, GrowthKeepsEveryBit) {
  constexpr uint32_t kSlots = 130;
  std::mt19937_64 rng(7);
  uint64_t memory = 0;
  int relays = 0;
  for (uint32_t n = 1; n <= kSlots; ++n) {
    AddSlots(n);
    EXPECT_EQ(index_->slot_count(), n);
    if (index_->MemoryBytes() != memory) {  // a new layout: check it all
      ++relays;
      memory = index_->MemoryBytes();
      for (uint32_t s = 0; s < n; ++s) {
        CheckExtract(s);
        EXPECT_EQ(index_->IsCurrent(s), model_[s].current) << "slot " << s;
      }
      CheckQueries(rng, 400);
      if (HasFatalFailure()) return;
    }
    const uint32_t s = n - 1;
    for (int e = 0; e < 60; ++e) Insert(s, e * 5 + static_cast<int>(s % 5));
    model_[s].current = s % 3 != 0;
    index_->SetCurrent(s, model_[s].current);
    memory = index_->MemoryBytes();  // stages allocated by the inserts
  }
  EXPECT_EQ(relays, 9);
  for (uint32_t s = 0; s < kSlots; ++s) CheckExtract(s);
  CheckQueries(rng, 400);
}

TEST_F(BitSlicedIndexTest, EmptyConjunctionIsEverySlotInUse) {
  AddSlots(70);
  for (uint32_t s = 0; s < 70; ++s) index_->SetCurrent(s, true);
  std::vector<uint64_t> got;
  index_->Candidates({}, &got);
  EXPECT_EQ(got, (std::vector<uint64_t>{~uint64_t{0}, (uint64_t{1} << 6) - 1}));
  index_->Candidates({Element(1)}, &got);  // nothing inserted anywhere
  EXPECT_EQ(got, (std::vector<uint64_t>{0, 0}));
}

TEST_F(BitSlicedIndexTest, RejectsBadArgumentsChangingNothing) {
  AddSlots(2);
  index_->SetCurrent(0, true);
  index_->SetCurrent(1, true);
  const uint32_t k0 = StageGeometryFor(SmallConfig(), 0)->slices;
  const ElementHash h = Element(5);
  EXPECT_TRUE(index_->SetBits(2, 0, h, 1).IsInvalidArgument());
  EXPECT_TRUE(index_->ClearBits(2, 0, h, 1).IsInvalidArgument());
  EXPECT_TRUE(index_->SetBits(0, 64, h, 1).IsInvalidArgument());
  EXPECT_TRUE(index_->SetBits(0, 0, h, uint64_t{1} << k0).IsInvalidArgument());
  // Every slice's bit but one beyond k0: nothing may be set.
  const uint64_t all = (uint64_t{1} << k0) - 1;
  EXPECT_TRUE(
      index_->SetBits(0, 0, h, all | (uint64_t{1} << k0)).IsInvalidArgument());
  std::vector<uint64_t> got;
  index_->Candidates({h}, &got);
  EXPECT_EQ(got, std::vector<uint64_t>{0});
  ASSERT_TRUE(index_->SetBits(0, 0, h, all).ok());
  index_->Candidates({h}, &got);
  EXPECT_EQ(got, std::vector<uint64_t>{1});

  SscbfConfig other = SmallConfig();
  other.target_fpr = 0.01;
  Sscbf f = Sscbf::Create(other).value();
  EXPECT_TRUE(index_->Install(0, OccupancyImage::Of(f)).IsInvalidArgument());
  Sscbf same = Sscbf::Create(SmallConfig()).value();
  EXPECT_TRUE(index_->Install(2, OccupancyImage::Of(same)).IsInvalidArgument());
  index_->Candidates({h}, &got);
  EXPECT_EQ(got, std::vector<uint64_t>{1});

  EXPECT_TRUE(index_->Extract(2, 0, 1, {0}).status().IsInvalidArgument());
  EXPECT_TRUE(index_->Extract(0, 1, 1, {}).status().IsInvalidArgument());
  EXPECT_TRUE(index_->Extract(0, 0, 1, {0, 0}).status().IsInvalidArgument());
  EXPECT_TRUE(index_->Extract(0, 0, 1, {0}).status().IsCorruption());
  EXPECT_TRUE(index_->Extract(0, 0, 1, {1}).ok());

  Status too_many = index_->EnsureSlots(BitSlicedIndex::kMaxSlots + 1);
  EXPECT_TRUE(too_many.IsInvalidArgument());
  EXPECT_NE(too_many.message().find("kMaxSlots"), std::string::npos);
  EXPECT_EQ(index_->slot_count(), 2u);

  SscbfConfig bad = SmallConfig();
  bad.target_fpr = 2;
  EXPECT_TRUE(BitSlicedIndex::Create(bad).status().IsInvalidArgument());
}

TEST_F(BitSlicedIndexTest, MaxBytesBoundsStagesAndGrowth) {
  // 64 slots: a word per column; stage 0 alone is k0 * m0 words.
  const StageGeometry g0 = StageGeometryFor(SmallConfig(), 0).value();
  const uint64_t stage0 = uint64_t{g0.slices} * g0.slice_length * 8;
  const uint64_t slot_bytes = 64 / 8 + 64 * (4 + 8);  // per-slot arrays
  const uint64_t max_bytes = stage0 + slot_bytes + 64;
  index_ = std::move(BitSlicedIndex::Create(SmallConfig(), max_bytes)).value();
  ASSERT_TRUE(index_->EnsureSlots(64).ok());
  ASSERT_TRUE(index_->SetBits(0, 0, Element(1), 1).ok());
  Status st = index_->SetBits(0, 1, Element(1), 1);
  EXPECT_TRUE(st.IsInvalidArgument());
  EXPECT_NE(st.message().find("max_bytes"), std::string::npos);
  st = index_->EnsureSlots(65);  // would double the columns
  EXPECT_TRUE(st.IsInvalidArgument());
  EXPECT_NE(st.message().find("max_bytes"), std::string::npos);
  EXPECT_EQ(index_->slot_count(), 64u);
  EXPECT_GE(index_->MemoryBytes(), stage0 + slot_bytes);
}

// Installing one slot's snapshot while lookups run. Images A and B both hold
// element E, A in ladder stage 0, B in stage 3 (a compaction moves it), and
// other elements that differ. One thread installs A, B, A, ... into slot 0;
// two readers ask Candidates({E}) and must always get slot 0; another thread
// sets and clears bits of the other slots, which share slot 0's words (and,
// in a narrow layout, words holding several of slot 0's columns).
void BitSlicedIndexTest::RunInstallRace(uint32_t slots) {
  SCOPED_TRACE(std::to_string(slots) + " slots");
  SscbfConfig config = SmallConfig();
  config.initial_capacity = 256;
  index_ = std::move(BitSlicedIndex::Create(config)).value();
  ASSERT_TRUE(index_->EnsureSlots(slots).ok());
  const ElementHash e = Element(-1);
  Sscbf a = Sscbf::CreateAtStage(config, 0).value();
  Sscbf b = Sscbf::CreateAtStage(config, 3).value();
  ASSERT_EQ(a.Insert(e).value(), 0u);
  ASSERT_EQ(b.Insert(e).value(), 3u);
  for (int i = 0; i < 200; ++i) {
    (void)a.Insert(Element(i)).value();
    (void)b.Insert(Element(1000 + i)).value();
  }
  const OccupancyImage images[2] = {OccupancyImage::Of(a),
                                    OccupancyImage::Of(b)};
  ASSERT_TRUE(index_->Install(0, images[0]).ok());
  index_->SetCurrent(0, true);
  // The other slots are current and hold nothing of E (unless the toggler's
  // bits happen to cover it), so a torn read of slot 0 would show.
  for (uint32_t s = 1; s < slots; ++s) index_->SetCurrent(s, true);

  std::atomic<bool> stop{false};
  std::atomic<uint64_t> misses{0}, reads{0};
  auto reader = [&] {
    std::vector<uint64_t> got;
    while (!stop.load(std::memory_order_relaxed)) {
      index_->Candidates({e}, &got);
      if (!Has(got, 0)) misses.fetch_add(1);
      reads.fetch_add(1, std::memory_order_relaxed);
    }
  };
  auto toggler = [&] {
    std::mt19937_64 rng(11);
    while (!stop.load(std::memory_order_relaxed)) {
      const uint32_t slot = 1 + static_cast<uint32_t>(rng() % (slots - 1));
      const ElementHash h = Element(5000 + static_cast<int>(rng() % 50));
      const uint32_t stage = static_cast<uint32_t>(rng() % 4);
      (void)index_->SetBits(slot, stage, h, 0x7);
      (void)index_->ClearBits(slot, stage, h, 0x7);
    }
  };
  std::vector<std::thread> threads;
  threads.emplace_back(reader);
  threads.emplace_back(reader);
  threads.emplace_back(toggler);
  constexpr int kInstalls = 3000;
  for (int i = 1; i <= kInstalls; ++i) {
    ASSERT_TRUE(index_->Install(0, images[i % 2]).ok());
  }
  stop = true;
  for (std::thread& t : threads) t.join();
  EXPECT_EQ(misses.load(), 0u) << "of " << reads.load() << " lookups";
  EXPECT_GT(reads.load(), 0u);
  // After the last install (A), the slot equals A exactly.
  std::vector<uint64_t> counts;
  for (const OccupancyStage& st : images[0].stages()) {
    counts.push_back(st.elements);
  }
  StatusOr<OccupancyImage> got = index_->Extract(0, images[0].first_stage(),
                                                 images[0].end_stage(), counts);
  ASSERT_TRUE(got.ok()) << got.status().ToString();
  EXPECT_TRUE(*got == images[0]);
}

TEST_F(BitSlicedIndexTest, InstallNeverExposesHalfInstalledColumn) {
  RunInstallRace(128);  // wide: two words a column
}

TEST_F(BitSlicedIndexTest, InstallNeverExposesHalfInstalledNarrowColumn) {
  RunInstallRace(8);  // narrow: 8-bit columns, 8 of them to a word
}

// A small cluster pays for the slots it has: at 1 slot a column is 1 bit,
// not the 64 of a 64-slot column. Sizes are deterministic (stages of 2^16
// elements and up dwarf the fixed bookkeeping).
TEST_F(BitSlicedIndexTest, NarrowColumnsCostTheirBits) {
  SscbfConfig config = SmallConfig();
  config.initial_capacity = 1 << 16;
  auto bytes_at = [&](uint32_t slots) {
    auto index = std::move(BitSlicedIndex::Create(config)).value();
    EXPECT_TRUE(index->EnsureSlots(slots).ok());
    for (uint32_t stage = 0; stage < 2; ++stage) {
      EXPECT_TRUE(index->SetBits(0, stage, Element(1), 1).ok());
    }
    return index->MemoryBytes();
  };
  uint64_t bits = 0;  // one server's occupancy bits in stages 0 and 1
  for (uint32_t stage = 0; stage < 2; ++stage) {
    const StageGeometry g = StageGeometryFor(config, stage).value();
    bits += uint64_t{g.slices} * g.slice_length;
  }
  const uint64_t at64 = bytes_at(64);
  EXPECT_GE(at64, bits * 64 / 8);
  const uint64_t at1 = bytes_at(1);
  EXPECT_GE(at1, bits / 8);  // MemoryBytes reports the real allocation
  EXPECT_LE(at1 * 32, at64) << "1 slot: " << at1 << ", 64 slots: " << at64;
  EXPECT_GE(bytes_at(8), bits);      // 8-bit columns
  EXPECT_LE(bytes_at(8) * 7, at64);  // ~1/8 of the 64-slot layout
  EXPECT_EQ(bytes_at(33), at64);     // 33 slots take the 64-slot layout
}

}  // namespace
}  // namespace bloomroute::router::internal
