#include "regionstore/internal/filter_log.h"

#include <algorithm>

namespace bloomroute::regionstore_internal {

StatusOr<FilterLog> FilterLog::FromCheckpoint(const Checkpoint& c) {
  BLOOMROUTE_ASSIGN_OR_RETURN(
      ScalableSplitCountingBloomFilter f,
      ScalableSplitCountingBloomFilter::Deserialize(c.filter));
  return FilterLog(std::move(f), c.epoch, c.seq);
}

Checkpoint FilterLog::ToCheckpoint() const {
  return Checkpoint{epoch_, last_seq_, filter_.Serialize()};
}

StatusOr<FilterOp> FilterLog::Insert(const ElementHash& h) {
  uint64_t mask = 0;
  BLOOMROUTE_ASSIGN_OR_RETURN(uint32_t stage, filter_.Insert(h, &mask));
  return FilterOp{++last_seq_, FilterOp::Kind::kInsert, h, stage, mask};
}

StatusOr<FilterOp> FilterLog::Remove(const ElementHash& h, uint32_t stage) {
  uint64_t mask = 0;
  BLOOMROUTE_RETURN_IF_ERROR(filter_.Remove(h, stage, &mask));
  return FilterOp{++last_seq_, FilterOp::Kind::kRemove, h, stage, mask};
}

Status FilterLog::Replay(const FilterOp& op, bool mask_recorded) {
  if (op.seq != last_seq_ + 1) {
    return Status::Corruption("filter op " + std::to_string(op.seq) +
                              " does not follow " + std::to_string(last_seq_));
  }
  uint64_t mask = 0;
  if (op.kind == FilterOp::Kind::kRemove) {
    Status s = filter_.Remove(op.hash, op.stage, &mask);
    if (!s.ok()) return Status::Corruption("replaying remove: " + s.message());
  } else {
    auto stage = filter_.Insert(op.hash, &mask);
    if (!stage.ok()) {
      return Status::Corruption("replaying insert: " +
                                stage.status().message());
    }
    if (*stage != op.stage) {
      return Status::Corruption("replayed insert " + std::to_string(op.seq) +
                                " landed in stage " + std::to_string(*stage) +
                                ", not " + std::to_string(op.stage));
    }
  }
  // The filter has changed by now; a mismatch means the log does not
  // describe this filter, and the caller rebuilds it from the value records.
  if (mask_recorded && mask != op.mask) {
    return Status::Corruption("replayed filter op " + std::to_string(op.seq) +
                              " changed occupancy bits " +
                              std::to_string(mask) + ", its record says " +
                              std::to_string(op.mask));
  }
  last_seq_ = op.seq;
  return Status::OK();
}

bool FilterLog::NeedsCompaction(uint32_t max_stages, double sparse_factor,
                                const SscbfConfig& configured) const {
  if (filter_.stage_count() > max_stages) return true;
  uint64_t capacity = 0;
  for (uint32_t i = filter_.first_stage(); i < filter_.end_stage(); ++i) {
    capacity += StageGeometryFor(filter_.config(), i).value().capacity;
  }
  const uint64_t elements = filter_.element_count();
  const double needed =
      static_cast<double>(std::max(elements, configured.initial_capacity));
  if (static_cast<double>(capacity) <= sparse_factor * needed) return false;
  StatusOr<uint32_t> target =
      ScalableSplitCountingBloomFilter::FirstStageHolding(
          filter_.config(), CompactionTarget(elements));
  if (!target.ok()) return false;
  // The ladder stage a compaction would open; only a smaller one is worth it.
  return StageGeometryFor(configured, *target).value().capacity < capacity;
}

}  // namespace bloomroute::regionstore_internal
