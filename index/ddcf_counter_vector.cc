#include "index/ddcf_counter_vector.h"

#include "index/internal/frame.h"

namespace bloomroute {

namespace {

constexpr uint8_t kFormatVersion = 1;

uint64_t WordsForBits(uint64_t bits) { return (bits + 63) / 64; }

// Bits past `used_bits` in the last of `words` must be zero: they are padding,
// and a set one means the input was not produced by EncodeTo.
bool PaddingIsZero(const std::vector<uint64_t>& words, uint64_t used_bits) {
  const uint32_t tail = static_cast<uint32_t>(used_bits & 63);
  if (tail == 0 || words.empty()) return true;
  return (words.back() >> tail) == 0;
}

Status ReadWords(ByteReader* in, std::vector<uint64_t>* words,
                 const char* what) {
  for (uint64_t& w : *words) {
    BLOOMROUTE_RETURN_IF_ERROR(in->ReadFixed64(&w, what));
  }
  return Status::OK();
}

}  // namespace

DdcfCounterVector::DdcfCounterVector(uint64_t counters, uint32_t base_bits)
    : size_(counters),
      base_bits_(base_bits),
      base_mask_((uint64_t{1} << base_bits) - 1),
      base_(WordsForBits(counters * base_bits), 0) {}

StatusOr<DdcfCounterVector> DdcfCounterVector::Create(uint64_t counters,
                                                      uint32_t base_bits) {
  if (counters == 0 || counters > kMaxCounters) {
    return Status::InvalidArgument("DDCF counter count " +
                                   std::to_string(counters) +
                                   " outside [1, 2^32]");
  }
  if (base_bits == 0 || base_bits > kMaxBaseBits) {
    return Status::InvalidArgument(
        "DDCF base bits " + std::to_string(base_bits) + " outside [1, 16]");
  }
  return DdcfCounterVector(counters, base_bits);
}

uint32_t DdcfCounterVector::Get(uint64_t i) const {
  assert(i < size_);
  uint32_t v = BaseField(i);
  for (uint32_t p = 0; p < planes_.size(); ++p) {
    v |= static_cast<uint32_t>((planes_[p][i >> 6] >> (i & 63)) & 1)
         << (base_bits_ + p);
  }
  return v;
}

void DdcfCounterVector::SetBaseField(uint64_t i, uint32_t value) {
  const uint64_t bit = i * base_bits_;
  const uint64_t word = bit >> 6;
  const uint32_t offset = static_cast<uint32_t>(bit & 63);
  base_[word] = (base_[word] & ~(base_mask_ << offset)) |
                (static_cast<uint64_t>(value) << offset);
  if (offset + base_bits_ > 64) {
    const uint32_t low_bits = 64 - offset;  // bits already in `word`
    const uint64_t high_mask = base_mask_ >> low_bits;
    base_[word + 1] = (base_[word + 1] & ~high_mask) | (value >> low_bits);
  }
}

void DdcfCounterVector::Write(uint64_t i, uint32_t from, uint32_t to) {
  if (from == 0) ++nonzero_;
  if (to == 0) --nonzero_;
  SetBaseField(i, static_cast<uint32_t>(to & base_mask_));
  // Only planes whose bit differs are touched: an increment without carry into
  // the planes costs one base write, like a plain counting filter.
  uint32_t changed = (from ^ to) >> base_bits_;
  const uint64_t bit = uint64_t{1} << (i & 63);
  for (uint32_t p = 0; changed != 0; ++p, changed >>= 1) {
    if ((changed & 1) == 0) continue;
    planes_[p][i >> 6] ^= bit;
    if ((to >> (base_bits_ + p)) & 1) {
      ++plane_population_[p];
    } else {
      --plane_population_[p];
    }
  }
}

Status DdcfCounterVector::Increment(uint64_t i) {
  if (i >= size_) {
    return Status::InvalidArgument("DDCF counter index " + std::to_string(i) +
                                   " >= " + std::to_string(size_));
  }
  if (planes_.empty()) {
    // Fast path (every counter of a filter at fill 1/2, with x = 4, until one
    // reaches 16): only the base field changes.
    const uint32_t b = BaseField(i);
    if (b < base_mask_) {
      SetBaseField(i, b + 1);
      nonzero_ += b == 0;
      return Status::OK();
    }
  }
  const uint32_t v = Get(i);
  if (v == max_value()) {
    if (value_bits() >= kMaxValueBits) {
      return Status::InvalidArgument("DDCF counter " + std::to_string(i) +
                                     " is at its limit 2^32-1");
    }
    // DDCF growth: a new zeroed top plane; nothing existing is copied.
    planes_.emplace_back(PlaneWords(), 0);
    plane_population_.push_back(0);
  }
  Write(i, v, v + 1);
  return Status::OK();
}

Status DdcfCounterVector::Decrement(uint64_t i) {
  if (i >= size_) {
    return Status::InvalidArgument("DDCF counter index " + std::to_string(i) +
                                   " >= " + std::to_string(size_));
  }
  if (planes_.empty()) {
    const uint32_t b = BaseField(i);
    if (b > 0) {
      SetBaseField(i, b - 1);
      nonzero_ -= b == 1;
      return Status::OK();
    }
  }
  const uint32_t v = Get(i);
  if (v == 0) {
    return Status::InvalidArgument("DDCF counter " + std::to_string(i) +
                                   " is zero and cannot be decremented");
  }
  Write(i, v, v - 1);
  DropUnusedTopPlanes();
  return Status::OK();
}

void DdcfCounterVector::DropUnusedTopPlanes() {
  // The top plane is unused exactly when every counter is below 2^(x+y-1).
  // A single decrement empties at most one plane (the counter that cleared the
  // top bit now has every lower bit set), but the loop keeps the invariant
  // "the top plane is non-empty" without relying on that.
  while (!planes_.empty() && plane_population_.back() == 0) {
    planes_.pop_back();
    plane_population_.pop_back();
  }
}

uint64_t DdcfCounterVector::Sum() const {
  uint64_t sum = 0;
  for (uint64_t i = 0; i < size_; ++i) sum += Get(i);
  return sum;
}

void DdcfCounterVector::EncodeTo(std::string* dst) const {
  PutFixed64(dst, size_);
  PutFixed8(dst, static_cast<uint8_t>(base_bits_));
  PutFixed8(dst, static_cast<uint8_t>(planes_.size()));
  dst->reserve(dst->size() + MemoryBytes());
  for (uint64_t w : base_) PutFixed64(dst, w);
  for (const auto& plane : planes_) {
    for (uint64_t w : plane) PutFixed64(dst, w);
  }
}

StatusOr<DdcfCounterVector> DdcfCounterVector::DecodeFrom(ByteReader* in) {
  uint64_t counters;
  uint8_t base_bits, planes;
  BLOOMROUTE_RETURN_IF_ERROR(in->ReadFixed64(&counters, "DDCF counter count"));
  BLOOMROUTE_RETURN_IF_ERROR(in->ReadFixed8(&base_bits, "DDCF base bits"));
  BLOOMROUTE_RETURN_IF_ERROR(in->ReadFixed8(&planes, "DDCF plane count"));
  if (counters == 0 || counters > kMaxCounters || base_bits == 0 ||
      base_bits > kMaxBaseBits ||
      uint32_t{base_bits} + planes > kMaxValueBits) {
    return Status::Corruption(
        "DDCF geometry out of range: m=" + std::to_string(counters) +
        " x=" + std::to_string(base_bits) + " y=" + std::to_string(planes));
  }
  const uint64_t base_words = WordsForBits(counters * base_bits);
  const uint64_t plane_words = WordsForBits(counters);
  const uint64_t needed = (base_words + planes * plane_words) * 8;
  if (in->remaining() < needed) {
    return Status::Corruption("DDCF body needs " + std::to_string(needed) +
                              " bytes, " + std::to_string(in->remaining()) +
                              " present");
  }
  DdcfCounterVector v(counters, base_bits);
  BLOOMROUTE_RETURN_IF_ERROR(ReadWords(in, &v.base_, "DDCF base vector"));
  if (!PaddingIsZero(v.base_, counters * base_bits)) {
    return Status::Corruption("DDCF base vector padding is not zero");
  }
  for (uint32_t p = 0; p < planes; ++p) {
    std::vector<uint64_t> plane(plane_words);
    BLOOMROUTE_RETURN_IF_ERROR(ReadWords(in, &plane, "DDCF plane"));
    if (!PaddingIsZero(plane, counters)) {
      return Status::Corruption("DDCF plane padding is not zero");
    }
    uint64_t population = 0;
    for (uint64_t w : plane) population += __builtin_popcountll(w);
    v.planes_.push_back(std::move(plane));
    v.plane_population_.push_back(population);
  }
  if (planes > 0 && v.plane_population_.back() == 0) {
    return Status::Corruption("DDCF top plane is empty");
  }
  for (uint64_t i = 0; i < counters; ++i) v.nonzero_ += v.IsNonZero(i);
  return v;
}

std::string DdcfCounterVector::Serialize() const {
  return internal::EncodeFramed(internal::FrameKind::kDdcfCounterVector,
                                kFormatVersion, *this);
}

StatusOr<DdcfCounterVector> DdcfCounterVector::Deserialize(
    std::string_view bytes) {
  return internal::DecodeFramed<DdcfCounterVector>(
      bytes, internal::FrameKind::kDdcfCounterVector, kFormatVersion,
      "DDCF counter vector");
}

}  // namespace bloomroute
