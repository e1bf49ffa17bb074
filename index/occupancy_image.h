// OccupancyImage: the occupancy bits of a scalable split counting Bloom
// filter (SSCBF), without its counters.
//
// Routing reads a counter only as zero or non-zero, so a router's copy of a
// region server's filter needs one bit per counter where the server's DDCF
// counters need x >= 1 base bits plus planes (../shared/papers, DDCF). The
// server stays the authority: its counters decide when a bit changes, and
// each filter op tells the copy which probe bits changed (the `mask` of
// ApplyInsert / ApplyRemove: bit j <=> slice j's probed counter went 0 -> 1
// on an insert, 1 -> 0 on a remove). An image built by Of(filter) and one
// kept up to date with the ops of that filter are equal.
//
// Stages are ladder stages (StageGeometryFor), as in the SSCBF: stage i's
// slice j holds probe number first_probe_i + j, at ProbePosition(h, probe,
// m_i). Bits of slice j of a stage are words [j * W, (j + 1) * W) of the
// stage's `words`, W = ceil(m_i / 64), bit p at word p / 64, bit p % 64
// (the SCBF's own layout), and the bits past m_i are zero.
//
// Serialize: one frame (index/internal/frame.h) of kind kOccupancyImage,
// version 1: the config, the first stage, the stage count, then per stage
// its element count and words. Deserialize checks everything a copy relies
// on: the geometry of every stage, the word count, the padding bits, and
// that no slice holds more set bits than the stage has elements (each
// element sets at most one bit a slice) nor none while it has elements.
//
// Thread-safety: const methods may run concurrently; mutators need exclusive
// access.
#ifndef BLOOMROUTE_INDEX_OCCUPANCY_IMAGE_H_
#define BLOOMROUTE_INDEX_OCCUPANCY_IMAGE_H_

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "common/statusor.h"
#include "index/element_hash.h"
#include "index/scalable_split_counting_bloom_filter.h"

namespace bloomroute {

struct OccupancyStage {
  StageGeometry geometry;       // StageGeometryFor(config, stage)
  uint64_t elements = 0;        // insertions minus removals in this stage
  std::vector<uint64_t> words;  // k slices of ceil(m / 64) words

  uint64_t words_per_slice() const { return (geometry.slice_length + 63) / 64; }
  bool Test(uint32_t slice, uint64_t pos) const {
    return (words[slice * words_per_slice() + (pos >> 6)] >> (pos & 63)) & 1;
  }
  bool Contains(const ElementHash& h) const;
  friend bool operator==(const OccupancyStage& a, const OccupancyStage& b) {
    return a.geometry.stage == b.geometry.stage && a.elements == b.elements &&
           a.words == b.words;
  }
};

// The mean slice fill of a stage with `set_bits` bits set over all its
// slices, in the arithmetic of SplitCountingBloomFilter::Fill(): a bits-only
// copy that opens and closes stages by it does so at the server's ops.
double OccupancyFill(const StageGeometry& geometry, uint64_t set_bits);

// A stage's stats from its occupancy counts alone: `set[j]` bits set in
// slice j. Fill is their mean, the estimated FPR their product of fills (as
// SplitCountingBloomFilter computes them); planes are 0.
StageStats OccupancyStageStats(const StageGeometry& geometry, uint64_t elements,
                               const std::vector<uint64_t>& set,
                               uint64_t memory_bytes);
// The filter's stats from its stages': sums, and the estimated FPR and the
// compounded bound over the stages (as ScalableSplitCountingBloomFilter).
SscbfStats CombineStageStats(std::vector<StageStats> stages);

class OccupancyImage {
 public:
  // The occupancy bits and element counts of every open stage of `filter`.
  static OccupancyImage Of(const ScalableSplitCountingBloomFilter& filter);
  // One empty stage at ladder stage `first_stage`. InvalidArgument for an
  // invalid config or a stage that cannot be built.
  static StatusOr<OccupancyImage> Create(const SscbfConfig& config,
                                         uint32_t first_stage);

  // An image of `stages`, ladder stages first_stage, first_stage + 1, ...,
  // each with its geometry and words (e.g. gathered from a bit-sliced copy),
  // checked as Deserialize checks. Corruption otherwise.
  static StatusOr<OccupancyImage> FromStages(
      const SscbfConfig& config, uint32_t first_stage,
      std::vector<OccupancyStage> stages);

  // Applies an insert op: sets the probe bits of `h` in `stage` that `mask`
  // names and counts one element there, opening the stage when it is
  // end_stage() (an SSCBF opens one stage at a time). InvalidArgument,
  // changing nothing, when the stage is neither open nor end_stage() or
  // cannot be built, `mask` names a slice the stage
  // does not have, or a named bit is set already (the op does not follow
  // this image: it is not the server's).
  [[nodiscard]] Status ApplyInsert(const ElementHash& h, uint32_t stage,
                                   uint64_t mask);
  // Applies a remove op: clears the named probe bits and uncounts one
  // element. InvalidArgument, changing nothing, when the stage is not open,
  // holds no element, `mask` names a slice it does not have, or a probe bit
  // of `h` there is clear (named or not: the element was in the stage).
  [[nodiscard]] Status ApplyRemove(const ElementHash& h, uint32_t stage,
                                   uint64_t mask);

  // True if the element may be present in some stage.
  bool Contains(const ElementHash& h) const;

  const SscbfConfig& config() const { return config_; }
  uint32_t first_stage() const { return first_stage_; }
  uint32_t end_stage() const {
    return first_stage_ + static_cast<uint32_t>(stages_.size());
  }
  // The open stages, oldest first; never empty.
  const std::vector<OccupancyStage>& stages() const { return stages_; }
  uint64_t element_count() const;
  // Fill, estimated FPR and bounds as SscbfStats reports them for a filter;
  // planes are 0 and memory is that of the bits.
  SscbfStats Stats() const;
  // Bytes of the bits.
  uint64_t MemoryBytes() const;

  std::string Serialize() const;
  // Corruption for anything Serialize did not produce (see the header).
  static StatusOr<OccupancyImage> Deserialize(std::string_view bytes);

  void EncodeTo(std::string* dst) const;
  static StatusOr<OccupancyImage> DecodeFrom(ByteReader* in);

  friend bool operator==(const OccupancyImage& a, const OccupancyImage& b) {
    return a.config_ == b.config_ && a.first_stage_ == b.first_stage_ &&
           a.stages_ == b.stages_;
  }

 private:
  OccupancyImage(const SscbfConfig& config, uint32_t first_stage,
                 std::vector<OccupancyStage> stages)
      : config_(config),
        first_stage_(first_stage),
        stages_(std::move(stages)) {}
  static StatusOr<OccupancyStage> EmptyStage(const SscbfConfig& config,
                                             uint32_t stage);

  SscbfConfig config_;
  uint32_t first_stage_ = 0;
  std::vector<OccupancyStage> stages_;
};

}  // namespace bloomroute

#endif  // BLOOMROUTE_INDEX_OCCUPANCY_IMAGE_H_
