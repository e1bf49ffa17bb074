// SliceBits: k slices of m bits in one contiguous array, slice j at word
// j * ceil(m/64). The storage of the plain split Bloom filter and the lookup
// view (occupancy: bit set <=> counter non-zero) of the split counting filter,
// so both filters answer Contains with the same memory accesses.
//
// No bounds checks: callers pass j < slices and pos < slice_length (probe
// positions are in range by construction).
#ifndef BLOOMROUTE_INDEX_INTERNAL_SLICE_BITS_H_
#define BLOOMROUTE_INDEX_INTERNAL_SLICE_BITS_H_

#include <cassert>
#include <cstdint>
#include <vector>

namespace bloomroute::internal {

class SliceBits {
 public:
  SliceBits(uint32_t slices, uint64_t slice_length)
      : slices_(slices),
        slice_length_(slice_length),
        words_per_slice_((slice_length + 63) / 64),
        words_(slices * words_per_slice_, 0) {}

  bool Test(uint32_t j, uint64_t pos) const {
    assert(j < slices_ && pos < slice_length_);
    return (words_[j * words_per_slice_ + (pos >> 6)] >> (pos & 63)) & 1;
  }
  // Sets the bit; returns true if it was clear.
  bool Set(uint32_t j, uint64_t pos) {
    assert(j < slices_ && pos < slice_length_);
    uint64_t& w = words_[j * words_per_slice_ + (pos >> 6)];
    const uint64_t bit = uint64_t{1} << (pos & 63);
    const bool was_clear = (w & bit) == 0;
    w |= bit;
    return was_clear;
  }
  void Prefetch(uint32_t j, uint64_t pos) const {
    __builtin_prefetch(&words_[j * words_per_slice_ + (pos >> 6)], 1);
  }
  void Clear(uint32_t j, uint64_t pos) {
    assert(j < slices_ && pos < slice_length_);
    words_[j * words_per_slice_ + (pos >> 6)] &= ~(uint64_t{1} << (pos & 63));
  }

  uint32_t slices() const { return slices_; }
  uint64_t slice_length() const { return slice_length_; }
  const std::vector<uint64_t>& words() const { return words_; }
  // Exact storage: slices * ceil(m/64) * 8 bytes.
  uint64_t MemoryBytes() const { return words_.size() * sizeof(uint64_t); }

 private:
  uint32_t slices_;
  uint64_t slice_length_;
  uint64_t words_per_slice_;
  std::vector<uint64_t> words_;
};

}  // namespace bloomroute::internal

#endif  // BLOOMROUTE_INDEX_INTERNAL_SLICE_BITS_H_
