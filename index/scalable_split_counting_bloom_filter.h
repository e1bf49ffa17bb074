// ScalableSplitCountingBloomFilter (SSCBF): a growing series of SCBF stages.
//
// The per-region-server filter of the global index (../shared/DESIGN.md). It
// applies Almeida et al.'s Scalable Bloom Filters (2007, ../shared/papers/001)
// to split counting filters (../shared/papers/004):
//
//   P0  = P (1 - r)                    error of stage 0
//   P_i = P0 r^i                       error of stage i   (r: tightening ratio)
//   k_i = ceil(log2(1 / P_i))          slices of stage i  (at full_fill = 1/2)
//   n_i = n0 s^i                       capacity of stage i (s: growth factor)
//   m_i = ceil(n_i / ln 2)             slice length: n_i elements fill it to
//   1/2
//
// so the compounded false-positive rate of any number of stages stays below
// sum_i P_i = P0 / (1 - r) = P. (For another full_fill f the same derivation
// gives k_i = ceil(log(1/P_i) / log(1/f)) and m_i = ceil(n_i / -ln(1 - f)).)
// A stage's geometry is a pure function of (config, stage index): the same on
// every server, so replicas can be compared, shipped and merged.
//
// Insert puts an element into the newest stage and returns that stage's index;
// when the newest stage is full (mean fill >= full_fill) a new stage opens
// first. The caller records the stage with the element and passes it to Remove,
// which decrements exactly that stage. Contains asks the stages newest to
// oldest. An empty newest stage is dropped as soon as the stage below it is no
// longer full (dropping it earlier would only reopen it on the next insert), so
// removing every element returns the filter to one empty stage.
//
// Stage indexes are ladder indexes: stage i always has StageGeometryFor(
// config, i), on every server. A filter's open stages are a run
// [first_stage(), end_stage()) of that ladder.
//
// Compaction: CreateSized() makes a fresh filter that starts at the first
// ladder stage holding a given number of elements (DESIGN.md invariant 4: a
// compacted filter starts further up the same ladder, with the cluster's
// config unchanged), to be refilled from the exact distinct-value records.
// Starting at stage i costs nothing in the bound: its stages' errors sum to
// P r^i <= P.
//
// Thread-safety: const methods may run concurrently; mutators need exclusive
// access. Movable, not copyable.
#ifndef BLOOMROUTE_INDEX_SCALABLE_SPLIT_COUNTING_BLOOM_FILTER_H_
#define BLOOMROUTE_INDEX_SCALABLE_SPLIT_COUNTING_BLOOM_FILTER_H_

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "common/statusor.h"
#include "index/element_hash.h"
#include "index/split_counting_bloom_filter.h"
#include "index/sscbf_config.h"

namespace bloomroute {

class ScalableSplitCountingBloomFilter {
 public:
  static constexpr uint32_t kMaxStages = 64;

  // A filter with one empty stage. InvalidArgument for an invalid config.
  static StatusOr<ScalableSplitCountingBloomFilter> Create(
      const SscbfConfig& config);
  // A fresh filter for compaction: one empty stage, the first ladder stage
  // whose capacity n_i holds `elements` (stage 0 when n0 does). The config is
  // `config`, unchanged. When no ladder stage holds them (growth factor 1,
  // or stages beyond kMaxStages or 2^32 counters a slice), the filter is one
  // of its own instead: `config` with n0 raised to `elements`, from stage 0,
  // so that writes never fail for want of a stage; DESIGN.md invariant 4
  // then does not hold for it. InvalidArgument for an invalid config or
  // when even that stage cannot be built.
  static StatusOr<ScalableSplitCountingBloomFilter> CreateSized(
      const SscbfConfig& config, uint64_t elements);
  // A filter whose one empty stage is ladder stage `first_stage`: what a
  // rebuild of a compacted filter starts from. InvalidArgument as Create, or
  // when that stage cannot be built.
  static StatusOr<ScalableSplitCountingBloomFilter> CreateAtStage(
      const SscbfConfig& config, uint32_t first_stage);
  // The first ladder stage whose capacity holds `elements`: where
  // CreateSized starts. InvalidArgument as CreateSized.
  static StatusOr<uint32_t> FirstStageHolding(const SscbfConfig& config,
                                              uint64_t elements);

  ScalableSplitCountingBloomFilter(
      ScalableSplitCountingBloomFilter&&) noexcept = default;
  ScalableSplitCountingBloomFilter& operator=(
      ScalableSplitCountingBloomFilter&&) noexcept = default;
  ScalableSplitCountingBloomFilter(const ScalableSplitCountingBloomFilter&) =
      delete;
  ScalableSplitCountingBloomFilter& operator=(
      const ScalableSplitCountingBloomFilter&) = delete;

  // Adds the element to the newest stage (opening one if it is full) and
  // returns that stage's index. InvalidArgument when a new stage is needed but
  // kMaxStages are open or its geometry is out of range; nothing changes then.
  // `became_set`, when given, gets the occupancy bits the insert set in that
  // stage: bit j <=> slice j's probed counter went from 0 to 1.
  StatusOr<uint32_t> Insert(const ElementHash& h,
                            uint64_t* became_set = nullptr);
  // Removes one insertion of the element from `stage`, the index Insert
  // returned. InvalidArgument when the stage does not exist or the element's
  // counters there are not all non-zero; nothing changes then.
  // `became_clear`, when given, gets the occupancy bits the remove cleared in
  // `stage`: bit j <=> slice j's probed counter went from 1 to 0.
  [[nodiscard]] Status Remove(const ElementHash& h, uint32_t stage,
                              uint64_t* became_clear = nullptr);
  // Rebuilding from exact records: adds the element to `stage`, opening the
  // stages up to it (empty) when needed. InvalidArgument when `stage` is
  // below first_stage(), at or beyond kMaxStages, or its geometry is out of
  // range; nothing changes then.
  // Inserting every recorded (element, stage) into a fresh filter yields one
  // that is EquivalentTo() the filter Insert/Remove built.
  [[nodiscard]] Status InsertIntoStage(const ElementHash& h, uint32_t stage);
  // Same config and the same counters in every stage; stages only one of the
  // two has must be empty. (An empty newest stage above a full one is kept by
  // Remove but answers nothing, so it does not change behaviour.)
  bool EquivalentTo(const ScalableSplitCountingBloomFilter& other) const;

  // True if the element may be present; never false for an inserted element.
  bool Contains(const ElementHash& h) const {
    for (size_t i = stages_.size(); i-- > 0;) {
      if (stages_[i].Contains(h)) return true;
    }
    return false;
  }

  const SscbfConfig& config() const { return config_; }
  // How many stages are open.
  uint32_t stage_count() const { return static_cast<uint32_t>(stages_.size()); }
  // The ladder index of the oldest open stage, and one past the newest.
  uint32_t first_stage() const { return first_stage_; }
  uint32_t end_stage() const { return first_stage_ + stage_count(); }
  bool HasStage(uint32_t i) const {
    return i >= first_stage_ && i < end_stage();
  }
  // Ladder stage i. Precondition: HasStage(i).
  const SplitCountingBloomFilter& stage(uint32_t i) const {
    return stages_[i - first_stage_];
  }
  uint64_t element_count() const;
  uint64_t MemoryBytes() const;
  double EstimatedFpr() const;
  SscbfStats Stats() const;

  // Body encoding (no frame) of the config and stages, for formats that embed
  // a filter, and its decoder, which validates like Deserialize.
  void EncodeTo(std::string* dst) const;
  static StatusOr<ScalableSplitCountingBloomFilter> DecodeFrom(ByteReader* in);

  // Self-contained, versioned, checksummed encoding of the config, the first
  // stage and the stages. Version 2 carries the first stage; version 1 (before
  // the ladder) is still read, as a filter starting at stage 0.
  std::string Serialize() const;
  // Corruption for anything Serialize did not produce, including stages whose
  // geometry differs from StageGeometryFor(config, i).
  static StatusOr<ScalableSplitCountingBloomFilter> Deserialize(
      std::string_view bytes);

 private:
  ScalableSplitCountingBloomFilter(
      const SscbfConfig& config, uint32_t first_stage,
      std::vector<SplitCountingBloomFilter> stages);
  static StatusOr<ScalableSplitCountingBloomFilter> DecodeBody(ByteReader* in,
                                                               uint8_t version);
  static StatusOr<SplitCountingBloomFilter> CreateStage(
      const SscbfConfig& config, uint32_t stage);
  void DropEmptyNewestStages();

  SscbfConfig config_;
  uint32_t first_stage_ = 0;                      // ladder index of stages_[0]
  std::vector<SplitCountingBloomFilter> stages_;  // never empty
};

}  // namespace bloomroute

#endif  // BLOOMROUTE_INDEX_SCALABLE_SPLIT_COUNTING_BLOOM_FILTER_H_
