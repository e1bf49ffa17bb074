// RegionStore's filter: restore on open, checkpoints and op-log trimming,
// compaction, and the snapshot / ops-since interface the router reads.
#include <rocksdb/snapshot.h>

#include "regionstore/internal/keys.h"
#include "regionstore/internal/rocks_region_store.h"
#include "regionstore/internal/rocks_status.h"

namespace bloomroute::regionstore_internal {
namespace {

// A persisted filter can be kept when it was built with the configured
// parameters; compaction may only have raised n0.
bool Compatible(const SscbfConfig& stored, const SscbfConfig& configured) {
  SscbfConfig s = stored;
  if (s.initial_capacity < configured.initial_capacity) return false;
  s.initial_capacity = configured.initial_capacity;
  return s == configured;
}

}  // namespace

Status RocksRegionStore::ReadValueRecords(
    const rocksdb::Snapshot* snapshot,
    std::vector<std::pair<std::string, ValueRecord>>* records) const {
  rocksdb::ReadOptions ro;
  ro.snapshot = snapshot;
  std::unique_ptr<rocksdb::Iterator> it(db_->NewIterator(ro, values_cf_));
  for (it->SeekToFirst(); it->Valid(); it->Next()) {
    ValueRecord rec;
    BLOOMROUTE_RETURN_IF_ERROR(
        DecodeValueRecord(it->value().ToStringView(), &rec));
    records->emplace_back(it->key().ToString(), rec);
  }
  return FromRocks(it->status());
}

StatusOr<ScalableSplitCountingBloomFilter>
RocksRegionStore::RebuildAtRecordedStages(
    const SscbfConfig& config,
    const std::vector<std::pair<std::string, ValueRecord>>& records) const {
  BLOOMROUTE_ASSIGN_OR_RETURN(ScalableSplitCountingBloomFilter f,
                              ScalableSplitCountingBloomFilter::Create(config));
  for (const auto& [key, rec] : records) {
    ValueKeyParts v;
    BLOOMROUTE_RETURN_IF_ERROR(ParseValueKey(key, &v));
    Status s = f.InsertIntoStage(HashElement(v.table_id, v.column_id, v.value),
                                 rec.stage);
    if (!s.ok()) return Status::Corruption("value record: " + s.message());
  }
  return f;
}

Status RocksRegionStore::LoadFilter() {
  std::lock_guard lock(filter_mu_);
  std::string bytes;
  rocksdb::Status rs =
      db_->Get(rocksdb::ReadOptions(), meta_cf_, kFilterCheckpointKey, &bytes);
  if (!rs.IsNotFound()) BLOOMROUTE_RETURN_IF_ERROR(FromRocks(rs));

  // The newest op in the log, so that sequence numbers never repeat.
  uint64_t last_logged = 0;
  {
    std::unique_ptr<rocksdb::Iterator> it(
        db_->NewIterator(rocksdb::ReadOptions(), oplog_cf_));
    it->SeekToLast();
    if (it->Valid()) last_logged = ParseOpKey(it->key().ToStringView());
    BLOOMROUTE_RETURN_IF_ERROR(FromRocks(it->status()));
  }

  if (rs.IsNotFound() && last_logged == 0) {
    // A new store (or one whose writes never changed the filter).
    std::vector<std::pair<std::string, ValueRecord>> records;
    BLOOMROUTE_RETURN_IF_ERROR(ReadValueRecords(nullptr, &records));
    if (records.empty()) {
      BLOOMROUTE_ASSIGN_OR_RETURN(
          ScalableSplitCountingBloomFilter f,
          ScalableSplitCountingBloomFilter::Create(options_.filter));
      filter_.emplace(std::move(f), /*epoch=*/1, /*last_seq=*/0);
      return WriteCheckpointLocked();
    }
  }

  // Restore: checkpoint + the ops after it, all of the checkpoint's epoch.
  uint64_t epoch = 0;
  uint64_t checkpoint_seq = 0;
  Status restored = Status::Corruption("no filter checkpoint");
  if (rs.ok()) {
    restored = [&]() -> Status {
      BLOOMROUTE_ASSIGN_OR_RETURN(Checkpoint c, DecodeCheckpoint(bytes));
      epoch = c.epoch;
      checkpoint_seq = c.seq;
      BLOOMROUTE_ASSIGN_OR_RETURN(FilterLog log, FilterLog::FromCheckpoint(c));
      if (!Compatible(log.filter().config(), options_.filter)) {
        return Status::InvalidArgument("filter configuration changed");
      }
      std::unique_ptr<rocksdb::Iterator> it(
          db_->NewIterator(rocksdb::ReadOptions(), oplog_cf_));
      for (it->Seek(OpKey(c.seq + 1)); it->Valid(); it->Next()) {
        uint64_t op_epoch;
        FilterOp op;
        BLOOMROUTE_RETURN_IF_ERROR(
            DecodeOp(it->value().ToStringView(),
                     ParseOpKey(it->key().ToStringView()), &op_epoch, &op));
        if (op_epoch != c.epoch)
          return Status::Corruption("op of another epoch");
        BLOOMROUTE_RETURN_IF_ERROR(log.Replay(op));
      }
      BLOOMROUTE_RETURN_IF_ERROR(FromRocks(it->status()));
      filter_.emplace(std::move(log));
      checkpoint_seq_ = c.seq;
      return Status::OK();
    }();
  }
  if (restored.ok()) {
    std::unique_ptr<rocksdb::Iterator> it(
        db_->NewIterator(rocksdb::ReadOptions(), oplog_cf_));
    it->SeekToFirst();
    first_retained_seq_ = it->Valid() ? ParseOpKey(it->key().ToStringView())
                                      : filter_->last_seq() + 1;
    BLOOMROUTE_RETURN_IF_ERROR(FromRocks(it->status()));
    if (filter_->last_seq() != checkpoint_seq_) return WriteCheckpointLocked();
    return Status::OK();
  }
  // The filter is derived data: rebuild it from the value records.
  return CompactFilterLocked(epoch + 1, std::max(last_logged, checkpoint_seq));
}

Status RocksRegionStore::WriteCheckpointLocked() {
  // Keep the ops after the previous checkpoint: a reader up to one interval
  // behind catches up from them instead of a whole snapshot.
  rocksdb::WriteBatch wb;
  Status s = FromRocks(wb.Put(meta_cf_, kFilterCheckpointKey,
                              EncodeCheckpoint(filter_->ToCheckpoint())));
  if (s.ok() && checkpoint_seq_ + 1 > first_retained_seq_) {
    s = FromRocks(
        wb.DeleteRange(oplog_cf_, OpKey(0), OpKey(checkpoint_seq_ + 1)));
  }
  if (s.ok()) s = FromRocks(db_->Write(write_options_, &wb));
  if (!s.ok()) return s;
  first_retained_seq_ = std::max(first_retained_seq_, checkpoint_seq_ + 1);
  checkpoint_seq_ = filter_->last_seq();
  return Status::OK();
}

Status RocksRegionStore::CompactFilterLocked(uint64_t new_epoch,
                                             uint64_t last_seq) {
  std::vector<std::pair<std::string, ValueRecord>> records;
  BLOOMROUTE_RETURN_IF_ERROR(ReadValueRecords(nullptr, &records));
  // Room to double before a second stage opens.
  BLOOMROUTE_ASSIGN_OR_RETURN(ScalableSplitCountingBloomFilter f,
                              ScalableSplitCountingBloomFilter::CreateSized(
                                  options_.filter, 2 * records.size()));
  rocksdb::WriteBatch wb;
  for (auto& [key, rec] : records) {
    ValueKeyParts v;
    BLOOMROUTE_RETURN_IF_ERROR(ParseValueKey(key, &v));
    BLOOMROUTE_ASSIGN_OR_RETURN(
        rec.stage, f.Insert(HashElement(v.table_id, v.column_id, v.value)));
    BLOOMROUTE_RETURN_IF_ERROR(
        FromRocks(wb.Put(values_cf_, key, EncodeValueRecord(rec))));
  }
  FilterLog log(std::move(f), new_epoch, last_seq);
  BLOOMROUTE_RETURN_IF_ERROR(FromRocks(wb.Put(
      meta_cf_, kFilterCheckpointKey, EncodeCheckpoint(log.ToCheckpoint()))));
  // Every op so far belongs to an older epoch.
  BLOOMROUTE_RETURN_IF_ERROR(
      FromRocks(wb.DeleteRange(oplog_cf_, OpKey(0), OpKey(last_seq + 1))));
  BLOOMROUTE_RETURN_IF_ERROR(FromRocks(db_->Write(write_options_, &wb)));
  filter_.emplace(std::move(log));
  checkpoint_seq_ = last_seq;
  first_retained_seq_ = last_seq + 1;
  return Status::OK();
}

void RocksRegionStore::RestoreFilterLocked(uint64_t epoch, uint64_t last_seq) {
  // The value records are what the failed batch did not change; the filter
  // before the batch had each of them in its recorded stage.
  std::vector<std::pair<std::string, ValueRecord>> records;
  auto f = ReadValueRecords(nullptr, &records).ok()
               ? RebuildAtRecordedStages(filter_->filter().config(), records)
               : StatusOr<ScalableSplitCountingBloomFilter>(
                     Status::IOError("value records unreadable"));
  if (f.ok()) {
    filter_.emplace(std::move(*f), epoch, last_seq);
    return;
  }
  // Storage is failing; a new epoch makes every reader reload once it works.
  (void)CompactFilterLocked(epoch + 1, last_seq);
}

void RocksRegionStore::MaintainFilterLocked() {
  // Failures here leave the committed write and the current filter intact;
  // the next write tries again.
  if (filter_->NeedsCompaction(options_.max_filter_stages,
                               options_.sparse_factor,
                               options_.filter.initial_capacity)) {
    (void)CompactFilterLocked(filter_->epoch() + 1, filter_->last_seq());
  } else if (filter_->last_seq() - checkpoint_seq_ >=
             options_.checkpoint_interval) {
    (void)WriteCheckpointLocked();
  }
}

Status RocksRegionStore::CompactFilter() {
  std::lock_guard lock(filter_mu_);
  return CompactFilterLocked(filter_->epoch() + 1, filter_->last_seq());
}

StatusOr<FilterSnapshot> RocksRegionStore::Snapshot() const {
  std::lock_guard lock(filter_mu_);
  return FilterSnapshot{filter_->epoch(), filter_->last_seq(),
                        filter_->filter().Serialize()};
}

StatusOr<FilterOpsSince> RocksRegionStore::OpsSince(uint64_t epoch,
                                                    uint64_t seq) const {
  FilterOpsSince out;
  uint64_t first_retained;
  const rocksdb::Snapshot* snapshot;
  {
    std::lock_guard lock(filter_mu_);
    out.epoch = filter_->epoch();
    out.last_seq = filter_->last_seq();
    first_retained = first_retained_seq_;
    snapshot = db_->GetSnapshot();  // the log exactly as of last_seq
  }
  rocksdb::ManagedSnapshot release(db_.get(), snapshot);
  if (seq > out.last_seq && epoch == out.epoch) {
    return Status::InvalidArgument("ops since " + std::to_string(seq) +
                                   ", but the newest op is " +
                                   std::to_string(out.last_seq));
  }
  if (epoch != out.epoch || seq + 1 < first_retained) {
    out.too_old = true;
    return out;
  }
  rocksdb::ReadOptions ro;
  ro.snapshot = snapshot;
  std::unique_ptr<rocksdb::Iterator> it(db_->NewIterator(ro, oplog_cf_));
  for (it->Seek(OpKey(seq + 1));
       it->Valid() && out.ops.size() < options_.max_ops_per_call; it->Next()) {
    uint64_t op_epoch;
    FilterOp op;
    BLOOMROUTE_RETURN_IF_ERROR(DecodeOp(it->value().ToStringView(),
                                        ParseOpKey(it->key().ToStringView()),
                                        &op_epoch, &op));
    if (op_epoch != out.epoch || op.seq != seq + 1 + out.ops.size()) {
      return Status::Corruption("op log has a gap or a stale op at " +
                                std::to_string(op.seq));
    }
    out.ops.push_back(op);
  }
  BLOOMROUTE_RETURN_IF_ERROR(FromRocks(it->status()));
  return out;
}

FilterStatus RocksRegionStore::GetFilterStatus() const {
  std::lock_guard lock(filter_mu_);
  return FilterStatus{filter_->epoch(), filter_->last_seq(),
                      filter_->filter().Stats()};
}

}  // namespace bloomroute::regionstore_internal
