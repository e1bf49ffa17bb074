// FilterLog: the server's SSCBF with its epoch and op sequence. Every change
// goes through Insert/Remove, which return the op to persist; Replay applies a
// persisted op and checks it lands where it did originally. No I/O: the
// region store persists ops and checkpoints. Not thread-safe (the store's
// filter mutex guards it).
#ifndef BLOOMROUTE_REGIONSTORE_INTERNAL_FILTER_LOG_H_
#define BLOOMROUTE_REGIONSTORE_INTERNAL_FILTER_LOG_H_

#include <cstdint>

#include "common/statusor.h"
#include "index/scalable_split_counting_bloom_filter.h"
#include "model/region_protocol.h"
#include "regionstore/internal/records.h"

namespace bloomroute::regionstore_internal {

class FilterLog {
 public:
  FilterLog(ScalableSplitCountingBloomFilter filter, uint64_t epoch,
            uint64_t last_seq)
      : filter_(std::move(filter)), epoch_(epoch), last_seq_(last_seq) {}
  FilterLog(FilterLog&&) = default;
  FilterLog& operator=(FilterLog&&) = default;

  // Decodes a checkpoint. Corruption when the filter does not decode.
  static StatusOr<FilterLog> FromCheckpoint(const Checkpoint& c);
  Checkpoint ToCheckpoint() const;

  // Inserts the element; the op carries the next sequence number, the stage
  // and the occupancy bits the insert set (FilterOp::mask).
  StatusOr<FilterOp> Insert(const ElementHash& h);
  // Removes the element from `stage`; the op's mask is the bits it cleared.
  StatusOr<FilterOp> Remove(const ElementHash& h, uint32_t stage);
  // Applies a persisted op. Corruption unless op.seq == last_seq() + 1, the
  // op lands on op.stage and, when `mask_recorded` (the record carried a
  // mask; records.h), it changes exactly the occupancy bits op.mask names:
  // i.e. the filter is the one that produced it. Nothing is checked against
  // op.mask when !mask_recorded.
  [[nodiscard]] Status Replay(const FilterOp& op, bool mask_recorded = true);

  // More than `max_stages` stages, or stages sized for more than
  // `sparse_factor` times max(elements, configured.initial_capacity) when a
  // compaction (CompactionTarget, on the `configured` ladder) would open a
  // smaller one. A compacted
  // filter starts on a ladder stage, which may hold up to growth_factor
  // times what it was sized for; without the second condition a small
  // sparse_factor would compact it again at once, and again.
  bool NeedsCompaction(uint32_t max_stages, double sparse_factor,
                       const SscbfConfig& configured) const;
  // What a compaction sizes a filter of `elements` for: exactly them. The
  // first ladder stage holding them has room for up to growth_factor times
  // as many before the next stage opens; a larger one would cost the router,
  // which keeps every bit of it, twice the memory for an FPR far below the
  // stage's target (measured for 100,000 values at the cluster's default
  // config: 34 bits a value and FPR 1e-7, against 68 and 4e-12 when sized
  // for twice as many).
  static uint64_t CompactionTarget(uint64_t elements) { return elements; }

  const ScalableSplitCountingBloomFilter& filter() const { return filter_; }
  uint64_t epoch() const { return epoch_; }
  uint64_t last_seq() const { return last_seq_; }

 private:
  ScalableSplitCountingBloomFilter filter_;
  uint64_t epoch_;
  uint64_t last_seq_;
};

}  // namespace bloomroute::regionstore_internal

#endif  // BLOOMROUTE_REGIONSTORE_INTERNAL_FILTER_LOG_H_
