#include "lab/scalable_bloom_filter.h"

namespace bloomroute {

StatusOr<SplitBloomFilter> ScalableBloomFilter::CreateStage(
    const SscbfConfig& config, uint32_t stage) {
  BLOOMROUTE_ASSIGN_OR_RETURN(StageGeometry g, StageGeometryFor(config, stage));
  return SplitBloomFilter::Create(g.slices, g.slice_length, g.first_probe);
}

StatusOr<ScalableBloomFilter> ScalableBloomFilter::Create(
    const SscbfConfig& config) {
  BLOOMROUTE_RETURN_IF_ERROR(config.Validate());
  BLOOMROUTE_ASSIGN_OR_RETURN(SplitBloomFilter first, CreateStage(config, 0));
  std::vector<SplitBloomFilter> stages;
  stages.push_back(std::move(first));
  return ScalableBloomFilter(config, std::move(stages));
}

Status ScalableBloomFilter::Insert(const ElementHash& h) {
  if (stages_.back().Fill() >= config_.full_fill) {
    BLOOMROUTE_ASSIGN_OR_RETURN(
        SplitBloomFilter next,
        CreateStage(config_, static_cast<uint32_t>(stages_.size())));
    stages_.push_back(std::move(next));
  }
  stages_.back().Insert(h);
  ++elements_;
  return Status::OK();
}

uint64_t ScalableBloomFilter::MemoryBytes() const {
  uint64_t bytes = 0;
  for (const auto& s : stages_) bytes += s.MemoryBytes();
  return bytes;
}

double ScalableBloomFilter::EstimatedFpr() const {
  double pass = 1.0;
  for (const auto& s : stages_) pass *= 1.0 - s.EstimatedFpr();
  return 1.0 - pass;
}

FilterStats ScalableBloomFilter::Stats() const {
  FilterStats s;
  s.elements = elements_;
  s.memory_bytes = MemoryBytes();
  s.estimated_fpr = EstimatedFpr();
  s.parts = stage_count();
  return s;
}

}  // namespace bloomroute
