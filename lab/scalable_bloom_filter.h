// ScalableBloomFilter (SBF): Almeida, Baquero, Preguiça and Hutchison's
// "Scalable Bloom Filters" (2007, ../shared/papers/001), the plain one-bit
// design the SSCBF (scalable_split_counting_bloom_filter.h) adds counters to.
//
// Stage i is a SplitBloomFilter with exactly the geometry the SSCBF gives its
// stage i (StageGeometryFor: error P0 r^i, k_i slices, capacity n0 s^i, the
// same probe numbers), so for the same config and elements both filters set
// the same bits and differ only in memory and in that this one cannot remove.
// A stage is full when its mean fill reaches config.full_fill; the next insert
// opens the next stage. The compounded FPR stays below P0 / (1 - r) = P.
//
// Config: SscbfConfig; base_bits is ignored (there are no counters).
//
// Thread-safety: const methods may run concurrently; Insert needs exclusive
// access. Movable, not copyable.
#ifndef BLOOMROUTE_LAB_SCALABLE_BLOOM_FILTER_H_
#define BLOOMROUTE_LAB_SCALABLE_BLOOM_FILTER_H_

#include <cstdint>
#include <vector>

#include "common/statusor.h"
#include "index/scalable_split_counting_bloom_filter.h"
#include "lab/membership_filter.h"
#include "lab/split_bloom_filter.h"

namespace bloomroute {

class ScalableBloomFilter final : public MembershipFilter {
 public:
  // A filter with one empty stage. InvalidArgument for an invalid config.
  static StatusOr<ScalableBloomFilter> Create(const SscbfConfig& config);

  ScalableBloomFilter(ScalableBloomFilter&&) noexcept = default;
  ScalableBloomFilter& operator=(ScalableBloomFilter&&) noexcept = default;

  const char* name() const override { return "SBF"; }
  // Inserts into the newest stage, opening one first when it is full.
  // InvalidArgument when a stage is needed beyond the geometry's limits;
  // nothing changes then.
  [[nodiscard]] Status Insert(const ElementHash& h) override;
  bool Contains(const ElementHash& h) const override {
    for (size_t i = stages_.size(); i-- > 0;) {
      if (stages_[i].Contains(h)) return true;
    }
    return false;
  }
  uint64_t MemoryBytes() const override;
  // parts = stages.
  FilterStats Stats() const override;

  const SscbfConfig& config() const { return config_; }
  uint32_t stage_count() const { return static_cast<uint32_t>(stages_.size()); }
  // Precondition: i < stage_count().
  const SplitBloomFilter& stage(uint32_t i) const { return stages_[i]; }
  // 1 - prod_i (1 - stage_i.EstimatedFpr()).
  double EstimatedFpr() const;

 private:
  ScalableBloomFilter(const SscbfConfig& config,
                      std::vector<SplitBloomFilter> stages)
      : config_(config), stages_(std::move(stages)) {}
  static StatusOr<SplitBloomFilter> CreateStage(const SscbfConfig& config,
                                                uint32_t stage);

  SscbfConfig config_;
  std::vector<SplitBloomFilter> stages_;  // never empty
  uint64_t elements_ = 0;
};

}  // namespace bloomroute

#endif  // BLOOMROUTE_LAB_SCALABLE_BLOOM_FILTER_H_
