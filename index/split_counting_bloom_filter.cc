#include "index/split_counting_bloom_filter.h"

#include <cmath>

#include "index/internal/frame.h"

namespace bloomroute {

namespace {
constexpr uint8_t kFormatVersion = 1;
}  // namespace

SplitCountingBloomFilter::SplitCountingBloomFilter(
    const Options& options, std::vector<DdcfCounterVector> slices,
    uint64_t elements)
    : options_(options),
      slices_(std::move(slices)),
      occupancy_(options.slices, options.slice_length),
      elements_(elements) {}

void SplitCountingBloomFilter::RebuildOccupancy() {
  // The occupancy view is derived data: rebuilt from the counters, never
  // stored.
  for (uint32_t j = 0; j < options_.slices; ++j) {
    for (uint64_t i = 0; i < options_.slice_length; ++i) {
      if (slices_[j].IsNonZero(i)) occupancy_.Set(j, i);
    }
  }
}

Status SplitCountingBloomFilter::ValidateOptions(const Options& o) {
  if (o.slices == 0 || o.slices > kMaxSlices) {
    return Status::InvalidArgument(
        "SCBF slice count " + std::to_string(o.slices) + " outside [1, 64]");
  }
  if (o.slice_length == 0 || o.slice_length > DdcfCounterVector::kMaxCounters) {
    return Status::InvalidArgument("SCBF slice length " +
                                   std::to_string(o.slice_length) +
                                   " outside [1, 2^32]");
  }
  if (o.base_bits == 0 || o.base_bits > DdcfCounterVector::kMaxBaseBits) {
    return Status::InvalidArgument("SCBF counter base bits " +
                                   std::to_string(o.base_bits) +
                                   " outside [1, 16]");
  }
  if (!(o.full_fill > 0.0 && o.full_fill < 1.0)) {
    return Status::InvalidArgument("SCBF full fill must be in (0, 1)");
  }
  if (uint64_t{o.first_probe} + o.slices > UINT32_MAX) {
    return Status::InvalidArgument("SCBF probe numbers overflow");
  }
  return Status::OK();
}

StatusOr<SplitCountingBloomFilter> SplitCountingBloomFilter::Create(
    const Options& options) {
  BLOOMROUTE_RETURN_IF_ERROR(ValidateOptions(options));
  std::vector<DdcfCounterVector> slices;
  slices.reserve(options.slices);
  for (uint32_t j = 0; j < options.slices; ++j) {
    BLOOMROUTE_ASSIGN_OR_RETURN(
        DdcfCounterVector v,
        DdcfCounterVector::Create(options.slice_length, options.base_bits));
    slices.push_back(std::move(v));
  }
  return SplitCountingBloomFilter(options, std::move(slices), 0);
}

void SplitCountingBloomFilter::Positions(const ElementHash& h,
                                         uint64_t* pos) const {
  // Every slot an update touches is prefetched before any is read: the k
  // counter words and k occupancy words are independent cache misses that
  // overlap instead of being taken one after another.
  for (uint32_t j = 0; j < options_.slices; ++j) {
    pos[j] = ProbePosition(h, options_.first_probe + j, options_.slice_length);
    slices_[j].Prefetch(pos[j]);
    occupancy_.Prefetch(j, pos[j]);
  }
}

Status SplitCountingBloomFilter::Insert(const ElementHash& h,
                                        uint64_t* became_set) {
  uint64_t pos[kMaxSlices];
  Positions(h, pos);
  // Every slice is checked before any is changed, so a refused insert leaves
  // the filter untouched. Only a slice already grown to 32-bit counters can
  // refuse (2^32 insertions on one counter), so the check is free otherwise.
  for (uint32_t j = 0; j < slices_.size(); ++j) {
    if (slices_[j].value_bits() == DdcfCounterVector::kMaxValueBits &&
        slices_[j].Get(pos[j]) == UINT32_MAX) {
      return Status::InvalidArgument("SCBF counter limit reached in slice " +
                                     std::to_string(j));
    }
  }
  uint64_t changed = 0;
  for (uint32_t j = 0; j < slices_.size(); ++j) {
    BLOOMROUTE_RETURN_IF_ERROR(slices_[j].Increment(pos[j]));
    if (occupancy_.Set(j, pos[j])) changed |= uint64_t{1} << j;
  }
  ++elements_;
  if (became_set != nullptr) *became_set = changed;
  return Status::OK();
}

Status SplitCountingBloomFilter::Remove(const ElementHash& h,
                                        uint64_t* became_clear) {
  uint64_t pos[kMaxSlices];
  Positions(h, pos);
  for (uint32_t j = 0; j < slices_.size(); ++j) {
    if (!occupancy_.Test(j, pos[j])) {
      return Status::InvalidArgument("SCBF remove of element " + ToHex(h) +
                                     " that is not in the filter");
    }
  }
  uint64_t changed = 0;
  for (uint32_t j = 0; j < slices_.size(); ++j) {
    BLOOMROUTE_RETURN_IF_ERROR(slices_[j].Decrement(pos[j]));
    if (!slices_[j].IsNonZero(pos[j])) {
      occupancy_.Clear(j, pos[j]);
      changed |= uint64_t{1} << j;
    }
  }
  --elements_;
  if (became_clear != nullptr) *became_clear = changed;
  return Status::OK();
}

double SplitCountingBloomFilter::SliceFill(uint32_t j) const {
  return static_cast<double>(slices_[j].nonzero_count()) /
         static_cast<double>(options_.slice_length);
}

double SplitCountingBloomFilter::Fill() const {
  uint64_t nonzero = 0;
  for (const auto& s : slices_) nonzero += s.nonzero_count();
  return static_cast<double>(nonzero) /
         (static_cast<double>(options_.slice_length) * slices_.size());
}

double SplitCountingBloomFilter::EstimatedFpr() const {
  double fpr = 1.0;
  for (uint32_t j = 0; j < slices_.size(); ++j) fpr *= SliceFill(j);
  return fpr;
}

uint32_t SplitCountingBloomFilter::MaxPlaneCount() const {
  uint32_t planes = 0;
  for (const auto& s : slices_) planes = std::max(planes, s.plane_count());
  return planes;
}

uint64_t SplitCountingBloomFilter::MemoryBytes() const {
  uint64_t bytes = occupancy_.MemoryBytes();
  for (const auto& s : slices_) bytes += s.MemoryBytes();
  return bytes;
}

Status SplitCountingBloomFilter::VerifyInvariants() const {
  for (uint32_t j = 0; j < options_.slices; ++j) {
    // Every insertion adds exactly one to one counter of each slice.
    if (slices_[j].Sum() != elements_) {
      return Status::Corruption("SCBF slice " + std::to_string(j) +
                                " counters do not sum to the element count " +
                                std::to_string(elements_));
    }
    for (uint64_t i = 0; i < options_.slice_length; ++i) {
      if (occupancy_.Test(j, i) != slices_[j].IsNonZero(i)) {
        return Status::Corruption("SCBF occupancy bit " + std::to_string(i) +
                                  " of slice " + std::to_string(j) +
                                  " disagrees with its counter");
      }
    }
  }
  return Status::OK();
}

void SplitCountingBloomFilter::EncodeTo(std::string* dst) const {
  PutFixed32(dst, options_.slices);
  PutFixed64(dst, options_.slice_length);
  PutFixed8(dst, static_cast<uint8_t>(options_.base_bits));
  PutDouble(dst, options_.full_fill);
  PutFixed32(dst, options_.first_probe);
  PutFixed64(dst, elements_);
  for (const auto& s : slices_) s.EncodeTo(dst);
}

StatusOr<SplitCountingBloomFilter> SplitCountingBloomFilter::DecodeFrom(
    ByteReader* in) {
  Options o;
  uint8_t base_bits;
  uint64_t elements;
  BLOOMROUTE_RETURN_IF_ERROR(in->ReadFixed32(&o.slices, "SCBF slice count"));
  BLOOMROUTE_RETURN_IF_ERROR(
      in->ReadFixed64(&o.slice_length, "SCBF slice length"));
  BLOOMROUTE_RETURN_IF_ERROR(in->ReadFixed8(&base_bits, "SCBF base bits"));
  BLOOMROUTE_RETURN_IF_ERROR(in->ReadDouble(&o.full_fill, "SCBF full fill"));
  BLOOMROUTE_RETURN_IF_ERROR(
      in->ReadFixed32(&o.first_probe, "SCBF first probe"));
  BLOOMROUTE_RETURN_IF_ERROR(in->ReadFixed64(&elements, "SCBF element count"));
  o.base_bits = base_bits;
  Status valid = ValidateOptions(o);
  if (!valid.ok()) return Status::Corruption(valid.message());

  std::vector<DdcfCounterVector> slices;
  slices.reserve(o.slices);  // at most 64
  for (uint32_t j = 0; j < o.slices; ++j) {
    BLOOMROUTE_ASSIGN_OR_RETURN(DdcfCounterVector v,
                                DdcfCounterVector::DecodeFrom(in));
    if (v.size() != o.slice_length || v.base_bits() != o.base_bits) {
      return Status::Corruption("SCBF slice " + std::to_string(j) +
                                " does not match the filter geometry");
    }
    slices.push_back(std::move(v));
  }
  SplitCountingBloomFilter f(o, std::move(slices), elements);
  f.RebuildOccupancy();
  BLOOMROUTE_RETURN_IF_ERROR(f.VerifyInvariants());
  return f;
}

std::string SplitCountingBloomFilter::Serialize() const {
  return internal::EncodeFramed(internal::FrameKind::kSplitCountingBloomFilter,
                                kFormatVersion, *this);
}

StatusOr<SplitCountingBloomFilter> SplitCountingBloomFilter::Deserialize(
    std::string_view bytes) {
  return internal::DecodeFramed<SplitCountingBloomFilter>(
      bytes, internal::FrameKind::kSplitCountingBloomFilter, kFormatVersion,
      "SCBF");
}

}  // namespace bloomroute
