#include "index/occupancy_image.h"

#include <cmath>
#include <cstring>
#include <utility>

#include "index/internal/frame.h"

namespace bloomroute {

namespace {

constexpr uint8_t kFormatVersion = 1;

uint64_t Popcount(const uint64_t* words, uint64_t n) {
  uint64_t c = 0;
  for (uint64_t i = 0; i < n; ++i) c += __builtin_popcountll(words[i]);
  return c;
}

// The word and bit of probe slice j's slot for `h` in stage `s`.
struct BitRef {
  uint64_t word;
  uint64_t bit;
};

BitRef Locate(const OccupancyStage& s, const ElementHash& h, uint32_t j) {
  const uint64_t pos =
      ProbePosition(h, s.geometry.first_probe + j, s.geometry.slice_length);
  return {j * s.words_per_slice() + (pos >> 6), uint64_t{1} << (pos & 63)};
}

// Corruption unless `s` is a stage Serialize could have written: the words
// and padding of its geometry, and per slice at most `elements` set bits and
// at least one when it has any.
Status CheckStage(const OccupancyStage& s) {
  const uint64_t w = s.words_per_slice();
  const std::string name =
      "occupancy stage " + std::to_string(s.geometry.stage);
  if (s.words.size() != s.geometry.slices * w) {
    return Status::Corruption(name + " has the wrong number of words");
  }
  const uint64_t tail = s.geometry.slice_length % 64;
  for (uint32_t j = 0; j < s.geometry.slices; ++j) {
    const uint64_t* slice = s.words.data() + j * w;
    if (tail != 0 && (slice[w - 1] >> tail) != 0) {
      return Status::Corruption(name + " has bits past its slice length");
    }
    const uint64_t set = Popcount(slice, w);
    if (set > s.elements || (s.elements > 0 && set == 0)) {
      return Status::Corruption(name + " slice " + std::to_string(j) + " has " +
                                std::to_string(set) + " bits set for " +
                                std::to_string(s.elements) + " elements");
    }
  }
  return Status::OK();
}

}  // namespace

bool OccupancyStage::Contains(const ElementHash& h) const {
  for (uint32_t j = 0; j < geometry.slices; ++j) {
    const BitRef b = Locate(*this, h, j);
    if ((words[b.word] & b.bit) == 0) return false;
  }
  return true;
}

StatusOr<OccupancyStage> OccupancyImage::EmptyStage(const SscbfConfig& config,
                                                    uint32_t stage) {
  if (stage >= ScalableSplitCountingBloomFilter::kMaxStages) {
    return Status::InvalidArgument("occupancy stage " + std::to_string(stage) +
                                   " is beyond the last possible stage");
  }
  OccupancyStage s;
  BLOOMROUTE_ASSIGN_OR_RETURN(s.geometry, StageGeometryFor(config, stage));
  s.words.assign(s.geometry.slices * s.words_per_slice(), 0);
  return s;
}

OccupancyImage OccupancyImage::Of(
    const ScalableSplitCountingBloomFilter& filter) {
  std::vector<OccupancyStage> stages;
  for (uint32_t i = filter.first_stage(); i < filter.end_stage(); ++i) {
    const SplitCountingBloomFilter& f = filter.stage(i);
    OccupancyStage s;
    // The geometry of an open stage was valid when it was built.
    s.geometry = StageGeometryFor(filter.config(), i).value();
    s.elements = f.element_count();
    s.words = f.occupancy_words();
    stages.push_back(std::move(s));
  }
  return OccupancyImage(filter.config(), filter.first_stage(),
                        std::move(stages));
}

StatusOr<OccupancyImage> OccupancyImage::Create(const SscbfConfig& config,
                                                uint32_t first_stage) {
  BLOOMROUTE_RETURN_IF_ERROR(config.Validate());
  std::vector<OccupancyStage> stages;
  BLOOMROUTE_ASSIGN_OR_RETURN(OccupancyStage s,
                              EmptyStage(config, first_stage));
  stages.push_back(std::move(s));
  return OccupancyImage(config, first_stage, std::move(stages));
}

StatusOr<OccupancyImage> OccupancyImage::FromStages(
    const SscbfConfig& config, uint32_t first_stage,
    std::vector<OccupancyStage> stages) {
  Status valid = config.Validate();
  if (!valid.ok())
    return Status::Corruption("occupancy config: " + valid.message());
  if (stages.empty() ||
      first_stage >= ScalableSplitCountingBloomFilter::kMaxStages ||
      stages.size() >
          ScalableSplitCountingBloomFilter::kMaxStages - first_stage) {
    return Status::Corruption(
        "occupancy stages " + std::to_string(first_stage) + " + " +
        std::to_string(stages.size()) + " outside [0, 64)");
  }
  for (uint32_t i = 0; i < stages.size(); ++i) {
    StatusOr<StageGeometry> g = StageGeometryFor(config, first_stage + i);
    if (!g.ok()) return Status::Corruption("occupancy " + g.status().message());
    const StageGeometry& s = stages[i].geometry;
    if (s.stage != g->stage || s.slices != g->slices ||
        s.slice_length != g->slice_length || s.first_probe != g->first_probe) {
      return Status::Corruption("occupancy stage " +
                                std::to_string(first_stage + i) +
                                " geometry differs from its config");
    }
    stages[i].geometry = *g;
    BLOOMROUTE_RETURN_IF_ERROR(CheckStage(stages[i]));
  }
  return OccupancyImage(config, first_stage, std::move(stages));
}

Status OccupancyImage::ApplyInsert(const ElementHash& h, uint32_t stage,
                                   uint64_t mask) {
  // An SSCBF opens one stage at a time, above its newest: an op naming any
  // other stage does not come from the filter this image copies (and must
  // not make it allocate the stages in between).
  if (stage < first_stage_ || stage > end_stage()) {
    return Status::InvalidArgument(
        "occupancy insert into stage " + std::to_string(stage) +
        " outside the open stages " + std::to_string(first_stage_) + " to " +
        std::to_string(end_stage() - 1) + " and the next");
  }
  std::vector<OccupancyStage> opened;
  if (stage == end_stage()) {
    BLOOMROUTE_ASSIGN_OR_RETURN(OccupancyStage s, EmptyStage(config_, stage));
    opened.push_back(std::move(s));
  }
  const OccupancyStage& target =
      stage < end_stage() ? stages_[stage - first_stage_] : opened.back();
  const uint32_t k = target.geometry.slices;
  if (k < 64 && (mask >> k) != 0) {
    return Status::InvalidArgument("occupancy insert mask names slices past " +
                                   std::to_string(k));
  }
  for (uint32_t j = 0; j < k; ++j) {
    const BitRef b = Locate(target, h, j);
    if ((mask >> j & 1) != 0 && (target.words[b.word] & b.bit) != 0) {
      return Status::InvalidArgument(
          "occupancy insert sets a bit that is set already (stage " +
          std::to_string(stage) + ", slice " + std::to_string(j) + ")");
    }
  }
  for (auto& s : opened) stages_.push_back(std::move(s));
  OccupancyStage& s = stages_[stage - first_stage_];
  for (uint32_t j = 0; j < k; ++j) {
    const BitRef b = Locate(s, h, j);
    if ((mask >> j & 1) != 0) s.words[b.word] |= b.bit;
  }
  ++s.elements;
  return Status::OK();
}

Status OccupancyImage::ApplyRemove(const ElementHash& h, uint32_t stage,
                                   uint64_t mask) {
  if (stage < first_stage_ || stage >= end_stage()) {
    return Status::InvalidArgument("occupancy remove from stage " +
                                   std::to_string(stage) +
                                   ", which is not open");
  }
  OccupancyStage& s = stages_[stage - first_stage_];
  const uint32_t k = s.geometry.slices;
  if (s.elements == 0) {
    return Status::InvalidArgument("occupancy remove from empty stage " +
                                   std::to_string(stage));
  }
  if (k < 64 && (mask >> k) != 0) {
    return Status::InvalidArgument("occupancy remove mask names slices past " +
                                   std::to_string(k));
  }
  if (!s.Contains(h)) {
    return Status::InvalidArgument(
        "occupancy remove of an element not in stage " + std::to_string(stage));
  }
  for (uint32_t j = 0; j < k; ++j) {
    const BitRef b = Locate(s, h, j);
    if ((mask >> j & 1) != 0) s.words[b.word] &= ~b.bit;
  }
  --s.elements;
  // As the SSCBF: an empty newest stage goes once the one below has room.
  // (The op stream of a server's filter drops it at the same op, so a
  // bits-only copy keeps the same stages.)
  while (stages_.size() > 1 && stages_.back().elements == 0) {
    const OccupancyStage& below = stages_[stages_.size() - 2];
    const uint64_t set = Popcount(below.words.data(), below.words.size());
    if (OccupancyFill(below.geometry, set) >= config_.full_fill) break;
    stages_.pop_back();
  }
  return Status::OK();
}

bool OccupancyImage::Contains(const ElementHash& h) const {
  for (size_t i = stages_.size(); i-- > 0;) {
    if (stages_[i].Contains(h)) return true;
  }
  return false;
}

uint64_t OccupancyImage::element_count() const {
  uint64_t n = 0;
  for (const auto& s : stages_) n += s.elements;
  return n;
}

uint64_t OccupancyImage::MemoryBytes() const {
  uint64_t bytes = 0;
  for (const auto& s : stages_) bytes += s.words.size() * sizeof(uint64_t);
  return bytes;
}

double OccupancyFill(const StageGeometry& geometry, uint64_t set_bits) {
  return static_cast<double>(set_bits) /
         (static_cast<double>(geometry.slice_length) *
          static_cast<double>(geometry.slices));
}

StageStats OccupancyStageStats(const StageGeometry& geometry, uint64_t elements,
                               const std::vector<uint64_t>& set,
                               uint64_t memory_bytes) {
  StageStats st;
  st.geometry = geometry;
  st.elements = elements;
  const auto m = static_cast<double>(geometry.slice_length);
  double fpr = 1.0;
  uint64_t total = 0;
  for (uint64_t n : set) {
    total += n;
    fpr *= static_cast<double>(n) / m;
  }
  st.fill = OccupancyFill(geometry, total);
  st.estimated_fpr = fpr;
  st.memory_bytes = memory_bytes;
  return st;
}

SscbfStats CombineStageStats(std::vector<StageStats> stages) {
  SscbfStats stats;
  double log_pass_bound = 0.0;
  double log_pass_now = 0.0;
  for (const StageStats& st : stages) {
    stats.elements += st.elements;
    stats.memory_bytes += st.memory_bytes;
    log_pass_bound += std::log1p(-st.geometry.target_fpr);
    log_pass_now += std::log1p(-st.estimated_fpr);
  }
  stats.estimated_fpr = -std::expm1(log_pass_now);
  stats.compounded_bound = -std::expm1(log_pass_bound);
  stats.stages = std::move(stages);
  return stats;
}

SscbfStats OccupancyImage::Stats() const {
  std::vector<StageStats> stages;
  for (const OccupancyStage& s : stages_) {
    const uint64_t w = s.words_per_slice();
    std::vector<uint64_t> set;
    for (uint32_t j = 0; j < s.geometry.slices; ++j) {
      set.push_back(Popcount(s.words.data() + j * w, w));
    }
    stages.push_back(OccupancyStageStats(s.geometry, s.elements, set,
                                         s.words.size() * sizeof(uint64_t)));
  }
  return CombineStageStats(std::move(stages));
}

void OccupancyImage::EncodeTo(std::string* dst) const {
  EncodeSscbfConfig(config_, dst);
  PutFixed32(dst, first_stage_);
  PutFixed32(dst, static_cast<uint32_t>(stages_.size()));
  for (const OccupancyStage& s : stages_) {
    PutFixed64(dst, s.elements);
    for (uint64_t w : s.words) PutFixed64(dst, w);
  }
}

StatusOr<OccupancyImage> OccupancyImage::DecodeFrom(ByteReader* in) {
  SscbfConfig config;
  uint32_t first_stage;
  uint32_t count;
  BLOOMROUTE_RETURN_IF_ERROR(DecodeSscbfConfig(in, &config));
  BLOOMROUTE_RETURN_IF_ERROR(
      in->ReadFixed32(&first_stage, "occupancy first stage"));
  BLOOMROUTE_RETURN_IF_ERROR(in->ReadFixed32(&count, "occupancy stages"));
  if (count == 0 ||
      first_stage >= ScalableSplitCountingBloomFilter::kMaxStages ||
      count > ScalableSplitCountingBloomFilter::kMaxStages - first_stage) {
    return Status::Corruption("occupancy stages " +
                              std::to_string(first_stage) + " + " +
                              std::to_string(count) + " outside [0, 64)");
  }
  std::vector<OccupancyStage> stages;
  for (uint32_t i = first_stage; i < first_stage + count; ++i) {
    OccupancyStage s;
    StatusOr<StageGeometry> g = StageGeometryFor(config, i);
    if (!g.ok()) return Status::Corruption("occupancy " + g.status().message());
    s.geometry = *g;
    BLOOMROUTE_RETURN_IF_ERROR(
        in->ReadFixed64(&s.elements, "occupancy stage elements"));
    const uint64_t n = s.geometry.slices * s.words_per_slice();
    // Checked against the input before anything is allocated.
    std::string_view raw;
    if (n > in->remaining() / 8) {
      return Status::Corruption("occupancy stage " + std::to_string(i) +
                                " is truncated");
    }
    BLOOMROUTE_RETURN_IF_ERROR(in->ReadBytes(n * 8, &raw, "occupancy words"));
    s.words.resize(n);
    ByteReader words(raw);
    for (uint64_t& w : s.words) {
      BLOOMROUTE_RETURN_IF_ERROR(words.ReadFixed64(&w, "occupancy word"));
    }
    stages.push_back(std::move(s));
  }
  return FromStages(config, first_stage, std::move(stages));
}

std::string OccupancyImage::Serialize() const {
  return internal::EncodeFramed(internal::FrameKind::kOccupancyImage,
                                kFormatVersion, *this);
}

StatusOr<OccupancyImage> OccupancyImage::Deserialize(std::string_view bytes) {
  return internal::DecodeFramed<OccupancyImage>(
      bytes, internal::FrameKind::kOccupancyImage, kFormatVersion,
      "occupancy image");
}

}  // namespace bloomroute
