// Choosing where a new table's regions start, from a sample of its row keys
// (as HBase pre-splits a table before a bulk import), so that an import
// spreads over every region server from its first batch.
//
// The sample must cover the whole file: import files are often sorted by row
// key (GeoNames is sorted by geonameid), so the first lines would put every
// split in the first few percent of the key space. KeySampler keeps a uniform
// reservoir sample (Vitter's Algorithm R: the i-th key replaces a random slot
// with probability capacity / i) in one pass, with a fixed seed so that the
// same file gives the same regions.
//
// Example:
//   KeySampler sampler(KeySampler::CapacityFor(regions));
//   for (each row key k of the file) sampler.Add(k);
//   std::vector<std::string> splits = ChooseSplitKeys(sampler.Take(), regions);
//
// Thread-safety: none.
#ifndef BLOOMROUTE_TOOLS_IMPORT_SPLIT_KEYS_H_
#define BLOOMROUTE_TOOLS_IMPORT_SPLIT_KEYS_H_

#include <cstddef>
#include <cstdint>
#include <random>
#include <string>
#include <string_view>
#include <vector>

namespace bloomroute {

class KeySampler {
 public:
  // Sampled keys are cut to this many bytes: a prefix of a key is as good a
  // region boundary, and it bounds the sample's memory (capacity x 256 bytes)
  // whatever the keys' length.
  static constexpr size_t kMaxKeyBytes = 256;

  // Slots for choosing `regions` regions: 64 keys per region (at least
  // 1024), so that each boundary's rank is off by about 1/sqrt(64) of a
  // region's share at most.
  static size_t CapacityFor(uint32_t regions);

  explicit KeySampler(size_t capacity, uint64_t seed = 0x5eed);

  void Add(std::string_view key);
  uint64_t keys_seen() const { return seen_; }
  // The sample (unsorted); the sampler is empty afterwards.
  std::vector<std::string> Take();

 private:
  const size_t capacity_;
  std::mt19937_64 random_;
  uint64_t seen_ = 0;
  std::vector<std::string> sample_;
};

// Up to regions - 1 split keys, strictly ascending and non-empty, at the
// quantiles i / regions (i = 1 .. regions - 1) of the sample's byte order.
// Fewer when the sample has fewer distinct keys (none for an empty sample or
// regions <= 1): a table is then created with fewer regions.
std::vector<std::string> ChooseSplitKeys(std::vector<std::string> sample,
                                         uint32_t regions);

}  // namespace bloomroute

#endif  // BLOOMROUTE_TOOLS_IMPORT_SPLIT_KEYS_H_
