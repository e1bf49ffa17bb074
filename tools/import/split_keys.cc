#include "tools/import/split_keys.h"

#include <algorithm>
#include <utility>

namespace bloomroute {

size_t KeySampler::CapacityFor(uint32_t regions) {
  return std::max<size_t>(1024, static_cast<size_t>(regions) * 64);
}

KeySampler::KeySampler(size_t capacity, uint64_t seed)
    : capacity_(std::max<size_t>(capacity, 1)), random_(seed) {}

void KeySampler::Add(std::string_view key) {
  ++seen_;
  const std::string_view kept = key.substr(0, kMaxKeyBytes);
  if (sample_.size() < capacity_) {
    sample_.emplace_back(kept);
    return;
  }
  // Algorithm R: keep the seen_-th key with probability capacity / seen_.
  const uint64_t slot =
      std::uniform_int_distribution<uint64_t>(0, seen_ - 1)(random_);
  if (slot < capacity_) sample_[slot].assign(kept);
}

std::vector<std::string> KeySampler::Take() {
  std::vector<std::string> out = std::move(sample_);
  sample_.clear();
  seen_ = 0;
  return out;
}

std::vector<std::string> ChooseSplitKeys(std::vector<std::string> sample,
                                         uint32_t regions) {
  std::vector<std::string> splits;
  if (regions <= 1 || sample.empty()) return splits;
  std::sort(sample.begin(), sample.end());
  for (uint32_t i = 1; i < regions; ++i) {
    const size_t rank =
        static_cast<size_t>(static_cast<uint64_t>(sample.size()) * i / regions);
    const std::string& key = sample[rank];
    // The first region starts at "": a split there would leave it empty.
    if (key.empty() || key == sample.front()) continue;
    if (splits.empty() || splits.back() < key) splits.push_back(key);
  }
  return splits;
}

}  // namespace bloomroute
