#include "lab/dcf_counter_vector.h"

#include <string>

namespace bloomroute {

DcfCounterVector::DcfCounterVector(uint64_t counters, uint32_t base_bits)
    : base_(counters, base_bits) {}

StatusOr<DcfCounterVector> DcfCounterVector::Create(uint64_t counters,
                                                    uint32_t base_bits) {
  if (counters == 0 || counters > kMaxCounters) {
    return Status::InvalidArgument(
        "DCF counter count " + std::to_string(counters) + " outside [1, 2^32]");
  }
  if (base_bits == 0 || base_bits > kMaxBaseBits) {
    return Status::InvalidArgument(
        "DCF base bits " + std::to_string(base_bits) + " outside [1, 16]");
  }
  return DcfCounterVector(counters, base_bits);
}

void DcfCounterVector::Write(uint64_t i, uint32_t from, uint32_t to) {
  if (from == 0) ++nonzero_;
  if (to == 0) --nonzero_;
  const uint32_t x = base_bits();
  base_.Set(i, to & base_.max_value());
  if (overflow_bits_ == 0) return;
  overflow_.Set(i, to >> x);
  const uint32_t top = value_bits() - 1;
  if (((from ^ to) >> top) & 1) {
    if ((to >> top) & 1) {
      ++top_bit_population_;
    } else {
      --top_bit_population_;
    }
  }
}

void DcfCounterVector::RebuildOverflow(uint32_t bits) {
  ++rebuilds_;
  const uint64_t m = size();
  top_bit_population_ = 0;
  if (bits == 0) {
    overflow_ = internal::PackedFields();
    overflow_bits_ = 0;
    return;
  }
  // The copy DDCF avoids: every counter's overflow field moves to the new
  // vector, whether or not it is non-zero.
  internal::PackedFields rebuilt(m, bits);
  const uint32_t keep = overflow_bits_ < bits ? overflow_bits_ : bits;
  for (uint64_t i = 0; i < m; ++i) {
    const uint32_t field = keep > 0 ? overflow_.Get(i) : 0;
    rebuilt.Set(i, field & ((uint32_t{1} << keep) - 1));
    top_bit_population_ += (field >> (bits - 1)) & 1;
  }
  overflow_ = std::move(rebuilt);
  overflow_bits_ = bits;
}

Status DcfCounterVector::Increment(uint64_t i) {
  if (i >= size()) {
    return Status::InvalidArgument("DCF counter index " + std::to_string(i) +
                                   " >= " + std::to_string(size()));
  }
  const uint32_t v = Get(i);
  if (v == max_value()) {
    if (value_bits() >= kMaxValueBits) {
      return Status::InvalidArgument("DCF counter " + std::to_string(i) +
                                     " is at its limit 2^32-1");
    }
    RebuildOverflow(overflow_bits_ + 1);
  }
  Write(i, v, v + 1);
  return Status::OK();
}

Status DcfCounterVector::Decrement(uint64_t i) {
  if (i >= size()) {
    return Status::InvalidArgument("DCF counter index " + std::to_string(i) +
                                   " >= " + std::to_string(size()));
  }
  const uint32_t v = Get(i);
  if (v == 0) {
    return Status::InvalidArgument("DCF counter " + std::to_string(i) +
                                   " is zero and cannot be decremented");
  }
  Write(i, v, v - 1);
  while (overflow_bits_ > 0 && top_bit_population_ == 0) {
    RebuildOverflow(overflow_bits_ - 1);
  }
  return Status::OK();
}

}  // namespace bloomroute
