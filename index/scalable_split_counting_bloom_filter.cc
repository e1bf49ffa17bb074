#include "index/scalable_split_counting_bloom_filter.h"

#include <algorithm>
#include <cmath>

#include "index/internal/frame.h"
#include "index/theory.h"

namespace bloomroute {

namespace {

// 2: the first stage's ladder index follows the config.
constexpr uint8_t kFormatVersion = 2;
// A stage's geometry divides by log(1/full_fill) and -log(1 - full_fill); fills
// near 0 or 1 make either explode (and are useless filters anyway).
constexpr double kMinFullFill = 0.01;
constexpr double kMaxFullFill = 0.99;
// Capacities are computed in double precision; keep them exactly representable.
constexpr double kMaxCapacity = 9007199254740992.0;  // 2^53

// k_i and P_i for one stage; no other state, so StageGeometryFor can sum the
// slice counts of the stages below without building them.
Status SlicesForStage(const SscbfConfig& c, uint32_t stage, double* fpr,
                      uint32_t* slices) {
  const double p0 = c.target_fpr * (1.0 - c.tightening_ratio);
  *fpr = p0 * std::pow(c.tightening_ratio, stage);
  if (!(*fpr > 0.0)) {
    return Status::InvalidArgument("stage " + std::to_string(stage) +
                                   " error rate underflows");
  }
  *slices = theory::OptimalSliceCount(*fpr, c.full_fill);
  if (*slices == 0 || *slices > SplitCountingBloomFilter::kMaxSlices) {
    return Status::InvalidArgument("stage " + std::to_string(stage) +
                                   " would need " + std::to_string(*slices) +
                                   " slices (limit 64)");
  }
  return Status::OK();
}

}  // namespace

Status SscbfConfig::Validate() const {
  if (!(target_fpr > 0.0 && target_fpr < 1.0)) {
    return Status::InvalidArgument("target FPR must be in (0, 1)");
  }
  if (!(tightening_ratio > 0.0 && tightening_ratio < 1.0)) {
    return Status::InvalidArgument("tightening ratio r must be in (0, 1)");
  }
  if (!(growth_factor >= 1.0 && growth_factor <= 16.0)) {
    return Status::InvalidArgument("growth factor s must be in [1, 16]");
  }
  if (initial_capacity == 0) {
    return Status::InvalidArgument("initial capacity n0 must be at least 1");
  }
  if (base_bits == 0 || base_bits > DdcfCounterVector::kMaxBaseBits) {
    return Status::InvalidArgument("counter base bits x must be in [1, 16]");
  }
  if (!(full_fill >= kMinFullFill && full_fill <= kMaxFullFill)) {
    return Status::InvalidArgument("full fill must be in [0.01, 0.99]");
  }
  return StageGeometryFor(*this, 0).status();
}

StatusOr<StageGeometry> StageGeometryFor(const SscbfConfig& c, uint32_t stage) {
  // Range checks only: StageGeometryFor is called from Validate for stage 0.
  if (!(c.target_fpr > 0.0 && c.target_fpr < 1.0) ||
      !(c.tightening_ratio > 0.0 && c.tightening_ratio < 1.0) ||
      !(c.growth_factor >= 1.0 && c.growth_factor <= 16.0) ||
      c.initial_capacity == 0 ||
      !(c.full_fill >= kMinFullFill && c.full_fill <= kMaxFullFill)) {
    return Status::InvalidArgument("invalid SSCBF config");
  }
  if (stage >= ScalableSplitCountingBloomFilter::kMaxStages) {
    return Status::InvalidArgument("stage " + std::to_string(stage) +
                                   " beyond the limit of 64 stages");
  }
  StageGeometry g;
  g.stage = stage;
  uint64_t first_probe = 0;
  for (uint32_t t = 0; t <= stage; ++t) {
    double fpr = 0;
    uint32_t slices = 0;
    BLOOMROUTE_RETURN_IF_ERROR(SlicesForStage(c, t, &fpr, &slices));
    if (t < stage) {
      first_probe += slices;
    } else {
      g.target_fpr = fpr;
      g.slices = slices;
    }
  }
  g.first_probe = static_cast<uint32_t>(first_probe);  // <= 64 * 64
  const double capacity = std::ceil(static_cast<double>(c.initial_capacity) *
                                    std::pow(c.growth_factor, stage));
  if (!(capacity <= kMaxCapacity)) {
    return Status::InvalidArgument("stage " + std::to_string(stage) +
                                   " capacity overflows");
  }
  g.capacity = static_cast<uint64_t>(capacity);
  g.slice_length = theory::SliceLengthForCapacity(capacity, c.full_fill);
  if (g.slice_length == 0 || g.slice_length > DdcfCounterVector::kMaxCounters) {
    return Status::InvalidArgument(
        "stage " + std::to_string(stage) + " needs slices of " +
        std::to_string(g.slice_length) + " counters (limit 2^32)");
  }
  return g;
}

ScalableSplitCountingBloomFilter::ScalableSplitCountingBloomFilter(
    const SscbfConfig& config, uint32_t first_stage,
    std::vector<SplitCountingBloomFilter> stages)
    : config_(config), first_stage_(first_stage), stages_(std::move(stages)) {}

StatusOr<SplitCountingBloomFilter>
ScalableSplitCountingBloomFilter::CreateStage(const SscbfConfig& config,
                                              uint32_t stage) {
  BLOOMROUTE_ASSIGN_OR_RETURN(StageGeometry g, StageGeometryFor(config, stage));
  SplitCountingBloomFilter::Options o;
  o.slices = g.slices;
  o.slice_length = g.slice_length;
  o.base_bits = config.base_bits;
  o.full_fill = config.full_fill;
  o.first_probe = g.first_probe;
  return SplitCountingBloomFilter::Create(o);
}

StatusOr<ScalableSplitCountingBloomFilter>
ScalableSplitCountingBloomFilter::Create(const SscbfConfig& config) {
  return CreateAtStage(config, 0);
}

StatusOr<ScalableSplitCountingBloomFilter>
ScalableSplitCountingBloomFilter::CreateAtStage(const SscbfConfig& config,
                                                uint32_t first_stage) {
  BLOOMROUTE_RETURN_IF_ERROR(config.Validate());
  if (first_stage >= kMaxStages) {
    return Status::InvalidArgument("SSCBF first stage " +
                                   std::to_string(first_stage) +
                                   " is beyond the last possible stage");
  }
  std::vector<SplitCountingBloomFilter> stages;
  BLOOMROUTE_ASSIGN_OR_RETURN(SplitCountingBloomFilter first,
                              CreateStage(config, first_stage));
  stages.push_back(std::move(first));
  return ScalableSplitCountingBloomFilter(config, first_stage,
                                          std::move(stages));
}

StatusOr<ScalableSplitCountingBloomFilter>
ScalableSplitCountingBloomFilter::CreateSized(const SscbfConfig& config,
                                              uint64_t elements) {
  StatusOr<uint32_t> first = FirstStageHolding(config, elements);
  if (first.ok()) return CreateAtStage(config, *first);
  if (!first.status().IsInvalidArgument()) return first.status();
  BLOOMROUTE_RETURN_IF_ERROR(config.Validate());
  // No ladder stage holds them (growth factor 1, or the stages they need
  // pass kMaxStages or 2^32 counters a slice): a filter of its own, stage 0
  // sized for them. Writes must not fail for want of a stage.
  SscbfConfig sized = config;
  sized.initial_capacity = elements;
  return CreateAtStage(sized, 0);
}

StatusOr<uint32_t> ScalableSplitCountingBloomFilter::FirstStageHolding(
    const SscbfConfig& config, uint64_t elements) {
  BLOOMROUTE_RETURN_IF_ERROR(config.Validate());
  // n_i = n0 s^i grows geometrically, so this takes at most kMaxStages steps.
  for (uint32_t i = 0; i < kMaxStages; ++i) {
    StatusOr<StageGeometry> g = StageGeometryFor(config, i);
    if (!g.ok()) break;
    if (g->capacity >= elements) return i;
    if (config.growth_factor == 1.0) break;  // every stage holds n0
  }
  return Status::InvalidArgument(
      "no SSCBF stage holds " + std::to_string(elements) +
      " elements (the largest stage is limited by kMaxStages and 2^32 "
      "counters a slice)");
}

StatusOr<uint32_t> ScalableSplitCountingBloomFilter::Insert(
    const ElementHash& h, uint64_t* became_set) {
  if (stages_.back().IsFull()) {
    if (end_stage() >= kMaxStages) {
      return Status::InvalidArgument(
          "SSCBF would need a stage beyond the "
          "last possible one");
    }
    BLOOMROUTE_ASSIGN_OR_RETURN(SplitCountingBloomFilter next,
                                CreateStage(config_, end_stage()));
    stages_.push_back(std::move(next));
  }
  BLOOMROUTE_RETURN_IF_ERROR(stages_.back().Insert(h, became_set));
  return end_stage() - 1;
}

Status ScalableSplitCountingBloomFilter::Remove(const ElementHash& h,
                                                uint32_t stage,
                                                uint64_t* became_clear) {
  if (!HasStage(stage)) {
    return Status::InvalidArgument(
        "SSCBF remove from stage " + std::to_string(stage) +
        ", but the open stages are " + std::to_string(first_stage_) + " to " +
        std::to_string(end_stage() - 1));
  }
  BLOOMROUTE_RETURN_IF_ERROR(
      stages_[stage - first_stage_].Remove(h, became_clear));
  DropEmptyNewestStages();
  return Status::OK();
}

Status ScalableSplitCountingBloomFilter::InsertIntoStage(const ElementHash& h,
                                                         uint32_t stage) {
  if (stage >= kMaxStages) {
    return Status::InvalidArgument("SSCBF stage " + std::to_string(stage) +
                                   " is beyond the last possible stage");
  }
  if (stage < first_stage_) {
    return Status::InvalidArgument("SSCBF stage " + std::to_string(stage) +
                                   " is below the filter's first stage " +
                                   std::to_string(first_stage_));
  }
  std::vector<SplitCountingBloomFilter> opened;
  for (uint32_t i = end_stage(); i <= stage; ++i) {
    BLOOMROUTE_ASSIGN_OR_RETURN(SplitCountingBloomFilter s,
                                CreateStage(config_, i));
    opened.push_back(std::move(s));
  }
  for (auto& s : opened) stages_.push_back(std::move(s));
  return stages_[stage - first_stage_].Insert(h);
}

bool ScalableSplitCountingBloomFilter::EquivalentTo(
    const ScalableSplitCountingBloomFilter& other) const {
  if (!(config_ == other.config_) || first_stage_ != other.first_stage_) {
    return false;
  }
  const size_t common = std::min(stages_.size(), other.stages_.size());
  for (size_t i = 0; i < common; ++i) {
    std::string a, b;
    stages_[i].EncodeTo(&a);
    other.stages_[i].EncodeTo(&b);
    if (a != b) return false;
  }
  for (size_t i = common; i < stages_.size(); ++i) {
    if (stages_[i].element_count() != 0) return false;
  }
  for (size_t i = common; i < other.stages_.size(); ++i) {
    if (other.stages_[i].element_count() != 0) return false;
  }
  return true;
}

void ScalableSplitCountingBloomFilter::DropEmptyNewestStages() {
  while (stages_.size() > 1 && stages_.back().element_count() == 0 &&
         !stages_[stages_.size() - 2].IsFull()) {
    stages_.pop_back();
  }
}

uint64_t ScalableSplitCountingBloomFilter::element_count() const {
  uint64_t n = 0;
  for (const auto& s : stages_) n += s.element_count();
  return n;
}

uint64_t ScalableSplitCountingBloomFilter::MemoryBytes() const {
  uint64_t bytes = 0;
  for (const auto& s : stages_) bytes += s.MemoryBytes();
  return bytes;
}

double ScalableSplitCountingBloomFilter::EstimatedFpr() const {
  double log_pass = 0.0;  // log of the probability that every stage says no
  for (const auto& s : stages_) log_pass += std::log1p(-s.EstimatedFpr());
  return -std::expm1(log_pass);
}

SscbfStats ScalableSplitCountingBloomFilter::Stats() const {
  SscbfStats stats;
  for (uint32_t i = 0; i < stages_.size(); ++i) {
    const SplitCountingBloomFilter& s = stages_[i];
    StageStats st;
    // The geometry of an open stage was valid when it was built.
    st.geometry = StageGeometryFor(config_, first_stage_ + i).value();
    st.elements = s.element_count();
    st.fill = s.Fill();
    st.estimated_fpr = s.EstimatedFpr();
    st.planes = s.MaxPlaneCount();
    st.memory_bytes = s.MemoryBytes();
    stats.elements += st.elements;
    stats.memory_bytes += st.memory_bytes;
    stats.stages.push_back(st);
  }
  stats.estimated_fpr = EstimatedFpr();
  // 1 - prod (1 - P_i) over the open stages: from stage 0 this is
  // theory::SbfCompoundedBound; a compacted filter starts further up.
  double log_pass = 0.0;
  for (const StageStats& st : stats.stages) {
    log_pass += std::log1p(-st.geometry.target_fpr);
  }
  stats.compounded_bound = -std::expm1(log_pass);
  return stats;
}

void EncodeSscbfConfig(const SscbfConfig& c, std::string* dst) {
  PutDouble(dst, c.target_fpr);
  PutDouble(dst, c.tightening_ratio);
  PutDouble(dst, c.growth_factor);
  PutFixed64(dst, c.initial_capacity);
  PutFixed8(dst, static_cast<uint8_t>(c.base_bits));
  PutDouble(dst, c.full_fill);
}

Status DecodeSscbfConfig(ByteReader* in, SscbfConfig* c) {
  uint8_t base_bits;
  BLOOMROUTE_RETURN_IF_ERROR(
      in->ReadDouble(&c->target_fpr, "SSCBF target FPR"));
  BLOOMROUTE_RETURN_IF_ERROR(
      in->ReadDouble(&c->tightening_ratio, "SSCBF tightening ratio"));
  BLOOMROUTE_RETURN_IF_ERROR(
      in->ReadDouble(&c->growth_factor, "SSCBF growth factor"));
  BLOOMROUTE_RETURN_IF_ERROR(
      in->ReadFixed64(&c->initial_capacity, "SSCBF initial capacity"));
  BLOOMROUTE_RETURN_IF_ERROR(in->ReadFixed8(&base_bits, "SSCBF base bits"));
  BLOOMROUTE_RETURN_IF_ERROR(in->ReadDouble(&c->full_fill, "SSCBF full fill"));
  c->base_bits = base_bits;
  Status valid = c->Validate();
  if (!valid.ok()) {
    return Status::Corruption("SSCBF config: " + valid.message());
  }
  return Status::OK();
}

std::string ScalableSplitCountingBloomFilter::Serialize() const {
  return internal::EncodeFramed(
      internal::FrameKind::kScalableSplitCountingBloomFilter, kFormatVersion,
      *this);
}

StatusOr<ScalableSplitCountingBloomFilter>
ScalableSplitCountingBloomFilter::Deserialize(std::string_view bytes) {
  std::string_view payload;
  uint8_t version = 0;
  BLOOMROUTE_RETURN_IF_ERROR(internal::OpenFrame(
      bytes, internal::FrameKind::kScalableSplitCountingBloomFilter,
      kFormatVersion, &payload, &version));
  ByteReader in(payload);
  BLOOMROUTE_ASSIGN_OR_RETURN(ScalableSplitCountingBloomFilter f,
                              DecodeBody(&in, version));
  if (!in.empty()) return Status::Corruption("trailing bytes after SSCBF");
  return f;
}

void ScalableSplitCountingBloomFilter::EncodeTo(std::string* dst) const {
  EncodeSscbfConfig(config_, dst);
  PutFixed32(dst, first_stage_);
  PutFixed32(dst, stage_count());
  for (const auto& s : stages_) s.EncodeTo(dst);
}

StatusOr<ScalableSplitCountingBloomFilter>
ScalableSplitCountingBloomFilter::DecodeFrom(ByteReader* in) {
  return DecodeBody(in, kFormatVersion);
}

StatusOr<ScalableSplitCountingBloomFilter>
ScalableSplitCountingBloomFilter::DecodeBody(ByteReader* in, uint8_t version) {
  SscbfConfig c;
  uint32_t first_stage = 0;
  uint32_t stage_count;
  BLOOMROUTE_RETURN_IF_ERROR(DecodeSscbfConfig(in, &c));
  if (version >= 2) {
    BLOOMROUTE_RETURN_IF_ERROR(
        in->ReadFixed32(&first_stage, "SSCBF first stage"));
  }
  BLOOMROUTE_RETURN_IF_ERROR(in->ReadFixed32(&stage_count, "SSCBF stages"));
  if (stage_count == 0 || first_stage >= kMaxStages ||
      stage_count > kMaxStages - first_stage) {
    return Status::Corruption("SSCBF stages " + std::to_string(first_stage) +
                              " + " + std::to_string(stage_count) +
                              " outside [0, 64)");
  }
  std::vector<SplitCountingBloomFilter> stages;
  stages.reserve(stage_count);
  for (uint32_t i = first_stage; i < first_stage + stage_count; ++i) {
    auto g = StageGeometryFor(c, i);
    if (!g.ok()) return Status::Corruption("SSCBF " + g.status().message());
    BLOOMROUTE_ASSIGN_OR_RETURN(SplitCountingBloomFilter s,
                                SplitCountingBloomFilter::DecodeFrom(in));
    const auto& o = s.options();
    if (o.slices != g->slices || o.slice_length != g->slice_length ||
        o.first_probe != g->first_probe || o.base_bits != c.base_bits ||
        o.full_fill != c.full_fill) {
      return Status::Corruption("SSCBF stage " + std::to_string(i) +
                                " geometry differs from its config");
    }
    stages.push_back(std::move(s));
  }
  // Serialize never writes an empty newest stage above one that has room:
  // Remove would have dropped it.
  if (stages.size() > 1 && stages.back().element_count() == 0 &&
      !stages[stages.size() - 2].IsFull()) {
    return Status::Corruption("SSCBF has an empty newest stage it would drop");
  }
  return ScalableSplitCountingBloomFilter(c, first_stage, std::move(stages));
}

}  // namespace bloomroute
