// PackedFields: n unsigned fields of w bits each (1 <= w <= 32), packed back to
// back in 64-bit words, field i at bit i * w. The storage of the fixed-width
// counter vectors of the baseline counting filters (standard CBF, DCF base and
// overflow vectors): exact memory, ceil(n * w / 64) words.
//
// No bounds checks: callers pass i < size() and values below 2^w.
#ifndef BLOOMROUTE_LAB_INTERNAL_PACKED_FIELDS_H_
#define BLOOMROUTE_LAB_INTERNAL_PACKED_FIELDS_H_

#include <cassert>
#include <cstdint>
#include <vector>

namespace bloomroute::internal {

class PackedFields {
 public:
  static constexpr uint32_t kMaxWidth = 32;

  PackedFields() = default;
  // Precondition: 1 <= width <= kMaxWidth.
  PackedFields(uint64_t size, uint32_t width)
      : size_(size),
        width_(width),
        mask_((uint64_t{1} << width) - 1),
        words_((size * width + 63) / 64, 0) {
    assert(width >= 1 && width <= kMaxWidth);
  }

  uint32_t Get(uint64_t i) const {
    assert(i < size_);
    const uint64_t bit = i * width_;
    const uint64_t word = bit >> 6;
    const uint32_t offset = static_cast<uint32_t>(bit & 63);
    uint64_t v = words_[word] >> offset;
    // A field straddles two words only when w does not divide 64.
    if (offset + width_ > 64) v |= words_[word + 1] << (64 - offset);
    return static_cast<uint32_t>(v & mask_);
  }

  void Set(uint64_t i, uint32_t value) {
    assert(i < size_ && value <= mask_);
    const uint64_t bit = i * width_;
    const uint64_t word = bit >> 6;
    const uint32_t offset = static_cast<uint32_t>(bit & 63);
    words_[word] = (words_[word] & ~(mask_ << offset)) |
                   (static_cast<uint64_t>(value) << offset);
    if (offset + width_ > 64) {
      const uint32_t low_bits = 64 - offset;  // bits already in `word`
      const uint64_t high_mask = mask_ >> low_bits;
      words_[word + 1] = (words_[word + 1] & ~high_mask) | (value >> low_bits);
    }
  }

  void Prefetch(uint64_t i) const {
    __builtin_prefetch(&words_[(i * width_) >> 6], 1);
  }

  uint64_t size() const { return size_; }
  uint32_t width() const { return width_; }
  uint32_t max_value() const { return static_cast<uint32_t>(mask_); }
  // Exact storage: ceil(n * w / 64) * 8 bytes.
  uint64_t MemoryBytes() const { return words_.size() * sizeof(uint64_t); }

 private:
  uint64_t size_ = 0;
  uint32_t width_ = 0;
  uint64_t mask_ = 0;
  std::vector<uint64_t> words_;
};

}  // namespace bloomroute::internal

#endif  // BLOOMROUTE_LAB_INTERNAL_PACKED_FIELDS_H_
