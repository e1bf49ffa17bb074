// RegionStore's filter: restore on open, checkpoints and op-log trimming,
// compaction, and the snapshot / ops-since interface the router reads.
#include <rocksdb/snapshot.h>

#include <algorithm>

#include "index/occupancy_image.h"
#include "regionstore/internal/keys.h"
#include "regionstore/internal/rocks_region_store.h"
#include "regionstore/internal/rocks_status.h"

namespace bloomroute::regionstore_internal {
namespace {

// A persisted filter can be kept when it was built with the configured
// parameters. Compactions before the ladder (SSCBF format 1) raised n0
// instead of starting further up the ladder; such a filter is kept until its
// next compaction, which starts on the ladder with the configured n0.
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
    const SscbfConfig& config, uint32_t first_stage,
    const std::vector<std::pair<std::string, ValueRecord>>& records) const {
  BLOOMROUTE_ASSIGN_OR_RETURN(
      ScalableSplitCountingBloomFilter f,
      ScalableSplitCountingBloomFilter::CreateAtStage(config, first_stage));
  for (const auto& [key, rec] : records) {
    ValueKeyParts v;
    BLOOMROUTE_RETURN_IF_ERROR(ParseValueKey(key, &v));
    Status s = f.InsertIntoStage(HashElement(v.table_id, v.column_id, v.value),
                                 rec.stage);
    if (!s.ok()) return Status::Corruption("value record: " + s.message());
  }
  return f;
}

StatusOr<FilterLog> RocksRegionStore::RestoreFromCheckpoint(
    const std::string& bytes, bool* unmasked_ops) const {
  *unmasked_ops = false;
  BLOOMROUTE_ASSIGN_OR_RETURN(Checkpoint c, DecodeCheckpoint(bytes));
  BLOOMROUTE_ASSIGN_OR_RETURN(FilterLog log, FilterLog::FromCheckpoint(c));
  if (!Compatible(log.filter().config(), config_)) {
    return Status::InvalidArgument("filter configuration changed");
  }
  std::unique_ptr<rocksdb::Iterator> it(
      db_->NewIterator(rocksdb::ReadOptions(), oplog_cf_));
  for (it->Seek(OpKey(c.seq + 1)); it->Valid(); it->Next()) {
    uint64_t op_epoch;
    FilterOp op;
    bool has_mask = false;
    BLOOMROUTE_RETURN_IF_ERROR(DecodeOp(it->value().ToStringView(),
                                        ParseOpKey(it->key().ToStringView()),
                                        &op_epoch, &op, &has_mask));
    if (op_epoch != c.epoch) return Status::Corruption("op of another epoch");
    BLOOMROUTE_RETURN_IF_ERROR(log.Replay(op, has_mask));
    *unmasked_ops = *unmasked_ops || !has_mask;
  }
  BLOOMROUTE_RETURN_IF_ERROR(FromRocks(it->status()));
  return log;
}

Status RocksRegionStore::LoadConfigLocked() {
  std::string bytes;
  rocksdb::Status s =
      db_->Get(rocksdb::ReadOptions(), meta_cf_, kFilterConfigKey, &bytes);
  if (s.IsNotFound()) {  // no router has configured this store yet
    config_ = options_.filter;
    config_persisted_ = false;
    return Status::OK();
  }
  BLOOMROUTE_RETURN_IF_ERROR(FromRocks(s));
  StatusOr<SscbfConfig> config = DecodeFilterConfig(bytes);
  if (!config.ok()) {
    return config.status().WithContext("the filter config a router set");
  }
  config_ = *config;
  config_persisted_ = true;
  return Status::OK();
}

Status RocksRegionStore::LoadFilter() {
  std::lock_guard lock(filter_mu_);
  BLOOMROUTE_RETURN_IF_ERROR(LoadConfigLocked());
  std::string checkpoint, mark_bytes;
  rocksdb::Status cs = db_->Get(rocksdb::ReadOptions(), meta_cf_,
                                kFilterCheckpointKey, &checkpoint);
  if (!cs.IsNotFound()) BLOOMROUTE_RETURN_IF_ERROR(FromRocks(cs));
  rocksdb::Status ms =
      db_->Get(rocksdb::ReadOptions(), meta_cf_, kFilterMarkKey, &mark_bytes);
  if (!ms.IsNotFound()) BLOOMROUTE_RETURN_IF_ERROR(FromRocks(ms));
  // Whether any value record exists; reading them all is only for a rebuild,
  // so a restart from a checkpoint stays independent of the value count.
  std::unique_ptr<rocksdb::Iterator> values(
      db_->NewIterator(rocksdb::ReadOptions(), values_cf_));
  values->SeekToFirst();
  const bool has_values = values->Valid();
  BLOOMROUTE_RETURN_IF_ERROR(FromRocks(values->status()));
  std::unique_ptr<rocksdb::Iterator> ops(
      db_->NewIterator(rocksdb::ReadOptions(), oplog_cf_));
  ops->SeekToLast();
  const uint64_t last_logged =
      ops->Valid() ? ParseOpKey(ops->key().ToStringView()) : 0;
  BLOOMROUTE_RETURN_IF_ERROR(FromRocks(ops->status()));

  if (cs.IsNotFound() && ms.IsNotFound() && last_logged == 0 &&
      !has_values) {  // a new store
    BLOOMROUTE_ASSIGN_OR_RETURN(
        ScalableSplitCountingBloomFilter f,
        ScalableSplitCountingBloomFilter::Create(config_));
    filter_.emplace(std::move(f), /*epoch=*/1, /*last_seq=*/0);
    return WriteCheckpointLocked(0);
  }
  bool unmasked_ops = false;
  auto restored = cs.ok() ? RestoreFromCheckpoint(checkpoint, &unmasked_ops)
                          : StatusOr<FilterLog>(Status::Corruption("none"));
  if (restored.ok()) {
    filter_.emplace(std::move(*restored));
    ops->SeekToFirst();
    first_retained_seq_ = ops->Valid() ? ParseOpKey(ops->key().ToStringView())
                                       : filter_->last_seq() + 1;
    BLOOMROUTE_RETURN_IF_ERROR(FromRocks(ops->status()));
    // Without sync a power loss can drop acknowledged ops that a reader has
    // already applied; their sequence numbers are then handed out again for
    // other ops. No epoch of this store can rule that out (the record of a
    // new one can be lost as well): the incarnation of this run, which
    // every reply carries, tells readers to take a snapshot.
    // Ops recorded before ops carried masks cannot be served to a bits-only
    // reader: the new checkpoint covers them and they are trimmed.
    return WriteCheckpointLocked(unmasked_ops ? filter_->last_seq()
                                              : first_retained_seq_ - 1);
  }
  // The filter is derived data: rebuild it from the value records, under an
  // epoch and from a sequence number the store has never used.
  FilterMark mark;
  if (!ms.ok() || !DecodeFilterMark(mark_bytes, &mark).ok()) {
    return Status::Corruption(
        "filter checkpoint and epoch mark unreadable: cannot choose an "
        "unused epoch (" +
        restored.status().ToString() + ")");
  }
  return CompactFilterLocked(config_, mark.epoch + 1,
                             std::max(mark.seq, last_logged), 0);
}

Status RocksRegionStore::WriteCheckpointLocked(uint64_t trim_through) {
  rocksdb::WriteBatch wb;
  const Checkpoint c = filter_->ToCheckpoint();
  Status s =
      FromRocks(wb.Put(meta_cf_, kFilterCheckpointKey, EncodeCheckpoint(c)));
  if (s.ok()) {
    s = FromRocks(wb.Put(meta_cf_, kFilterMarkKey,
                         EncodeFilterMark(FilterMark{c.epoch, c.seq})));
  }
  if (s.ok() && trim_through + 1 > first_retained_seq_) {
    s = FromRocks(wb.DeleteRange(oplog_cf_, OpKey(0), OpKey(trim_through + 1)));
  }
  if (s.ok()) s = FromRocks(db_->Write(write_options_, &wb));
  if (!s.ok()) return s;
  first_retained_seq_ = std::max(first_retained_seq_, trim_through + 1);
  checkpoint_seq_ = filter_->last_seq();
  return Status::OK();
}

Status RocksRegionStore::CompactFilterLocked(const SscbfConfig& config,
                                             uint64_t new_epoch,
                                             uint64_t last_seq,
                                             uint64_t extra_values) {
  std::vector<std::pair<std::string, ValueRecord>> records;
  BLOOMROUTE_RETURN_IF_ERROR(ReadValueRecords(nullptr, &records));
  // On the cluster's ladder (DESIGN.md invariant 4): the first stage
  // holding them.
  BLOOMROUTE_ASSIGN_OR_RETURN(
      ScalableSplitCountingBloomFilter f,
      ScalableSplitCountingBloomFilter::CreateSized(
          config, FilterLog::CompactionTarget(records.size() + extra_values)));
  rocksdb::WriteBatch wb;
  // A new config and the filter built with it land together: a store never
  // restarts with one and a checkpoint of the other.
  const bool new_config = !(config == config_);
  if (new_config) {
    BLOOMROUTE_RETURN_IF_ERROR(FromRocks(
        wb.Put(meta_cf_, kFilterConfigKey, EncodeFilterConfig(config))));
  }
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
  BLOOMROUTE_RETURN_IF_ERROR(
      FromRocks(wb.Put(meta_cf_, kFilterMarkKey,
                       EncodeFilterMark(FilterMark{new_epoch, last_seq}))));
  // Every op so far belongs to an older epoch.
  BLOOMROUTE_RETURN_IF_ERROR(
      FromRocks(wb.DeleteRange(oplog_cf_, OpKey(0), OpKey(last_seq + 1))));
  BLOOMROUTE_RETURN_IF_ERROR(FromRocks(db_->Write(write_options_, &wb)));
  filter_.emplace(std::move(log));
  if (new_config) {
    config_ = config;
    config_persisted_ = true;
  }
  filter_broken_ = false;
  checkpoint_seq_ = last_seq;
  first_retained_seq_ = last_seq + 1;
  return Status::OK();
}

void RocksRegionStore::RestoreFilterLocked(uint64_t epoch, uint64_t last_seq) {
  // The value records are what the failed batch did not change; the filter
  // before the batch had each of them in its recorded stage.
  std::vector<std::pair<std::string, ValueRecord>> records;
  auto f =
      ReadValueRecords(nullptr, &records).ok()
          ? RebuildAtRecordedStages(filter_->filter().config(),
                                    filter_->filter().first_stage(), records)
          : StatusOr<ScalableSplitCountingBloomFilter>(
                Status::IOError("value records unreadable"));
  if (f.ok()) {
    filter_.emplace(std::move(*f), epoch, last_seq);
    return;
  }
  // Storage is failing. Until a rebuild succeeds the filter in memory holds
  // changes that were never stored: serve no snapshot or op from it.
  if (!CompactFilterLocked(config_, epoch + 1, last_seq, 0).ok())
    filter_broken_ = true;
}

Status RocksRegionStore::RepairFilterLocked() {
  if (!filter_broken_) return Status::OK();
  Status s = CompactFilterLocked(config_, filter_->epoch() + 1,
                                 filter_->last_seq(), 0);
  if (!s.ok()) return Status::IOError("filter unavailable: " + s.message());
  return Status::OK();
}

void RocksRegionStore::MaintainFilterLocked() {
  // Failures here leave the committed write and the current filter intact;
  // the next write tries again.
  if (filter_->NeedsCompaction(options_.max_filter_stages,
                               options_.sparse_factor, config_)) {
    (void)CompactFilterLocked(config_, filter_->epoch() + 1,
                              filter_->last_seq(), 0);
  } else if (filter_->last_seq() - checkpoint_seq_ >=
             options_.checkpoint_interval) {
    // Keep the ops after the previous checkpoint: a reader up to one
    // interval behind catches up from them instead of a whole snapshot.
    (void)WriteCheckpointLocked(checkpoint_seq_);
  }
}

Status RocksRegionStore::CompactFilter() {
  std::lock_guard lock(filter_mu_);
  return CompactFilterLocked(config_, filter_->epoch() + 1, filter_->last_seq(),
                             0);
}

Status RocksRegionStore::SetFilterConfig(const SscbfConfig& config) {
  BLOOMROUTE_RETURN_IF_ERROR(config.Validate());
  std::lock_guard lock(filter_mu_);
  if (filter_broken_ || !(filter_->filter().config() == config)) {
    // As a compaction: readers of the old epoch take a snapshot. A config
    // other than config_ is persisted with the rebuilt filter.
    BLOOMROUTE_RETURN_IF_ERROR(CompactFilterLocked(config, filter_->epoch() + 1,
                                                   filter_->last_seq(), 0));
  }
  if (config_persisted_) return Status::OK();
  // The router set the config the store had of its own: only the record
  // that it is the router's is missing.
  BLOOMROUTE_RETURN_IF_ERROR(FromRocks(db_->Put(
      write_options_, meta_cf_, kFilterConfigKey, EncodeFilterConfig(config))));
  config_persisted_ = true;
  return Status::OK();
}

StatusOr<FilterSnapshot> RocksRegionStore::Snapshot() const {
  std::lock_guard lock(filter_mu_);
  if (filter_broken_) return Status::Unavailable("filter is being repaired");
  return FilterSnapshot{incarnation_, filter_->epoch(), filter_->last_seq(),
                        filter_->filter().Serialize()};
}

StatusOr<FilterImage> RocksRegionStore::TakeFilterImage(uint64_t fence_token) {
  FilterImage out;
  std::optional<OccupancyImage> image;
  {
    std::lock_guard lock(filter_mu_);
    // Fence first, under the lock that orders filter ops: the image then
    // holds every write an older token may ever commit ("Fencing").
    fence_ = std::max(fence_, fence_token);
    if (filter_broken_) return Status::Unavailable("filter is being repaired");
    image.emplace(OccupancyImage::Of(filter_->filter()));
    out = FilterImage{incarnation_, filter_->epoch(), filter_->last_seq(), ""};
  }
  out.image = image->Serialize();
  return out;
}

StatusOr<FilterImagePage> RocksRegionStore::SnapshotImagePage(
    uint64_t fence_token, uint64_t image_id, uint64_t offset) {
  std::optional<FilterImage> fresh;
  if (image_id == 0) {
    if (offset != 0) {
      return Status::InvalidArgument(
          "a new filter image starts at offset 0, "
          "not " +
          std::to_string(offset));
    }
    BLOOMROUTE_ASSIGN_OR_RETURN(fresh, TakeFilterImage(fence_token));
  }
  std::lock_guard lock(image_mu_);
  const auto now = std::chrono::steady_clock::now();
  // Expiry is checked lazily: an image costs memory only until the next
  // call after its idle time, and a store serves one image at a time.
  if (image_.has_value() &&
      now - image_->last_used >
          std::chrono::milliseconds(options_.filter_image_idle_ms)) {
    image_.reset();
  }
  if (fresh.has_value()) {
    uint64_t id = 0;
    while (id == 0) id = image_ids_();
    image_ = CachedImage{std::move(*fresh), id, now};
  } else if (!image_.has_value() || image_->id != image_id) {
    return Status::NotFound("filter image " + std::to_string(image_id) +
                            " expired; start a new one");
  }
  const std::string& bytes = image_->image.image;
  if (offset >= bytes.size()) {
    return Status::InvalidArgument(
        "filter image offset " + std::to_string(offset) +
        " is not below its size " + std::to_string(bytes.size()));
  }
  const size_t length = std::min<uint64_t>(options_.filter_image_page_bytes,
                                           bytes.size() - offset);
  FilterImagePage page{image_->image.incarnation,
                       image_->image.epoch,
                       image_->image.last_seq,
                       image_->id,
                       bytes.size(),
                       offset,
                       bytes.substr(offset, length)};
  image_->last_used = now;
  if (offset + length == bytes.size()) image_.reset();  // the last page
  return page;
}

StatusOr<FilterOpsSince> RocksRegionStore::OpsSince(uint64_t incarnation,
                                                    uint64_t epoch,
                                                    uint64_t seq) const {
  FilterOpsSince out;
  out.incarnation = incarnation_;
  uint64_t first_retained;
  const rocksdb::Snapshot* snapshot;
  {
    std::lock_guard lock(filter_mu_);
    if (filter_broken_) return Status::Unavailable("filter is being repaired");
    out.epoch = filter_->epoch();
    out.last_seq = filter_->last_seq();
    first_retained = first_retained_seq_;
    snapshot = db_->GetSnapshot();  // the log exactly as of last_seq
  }
  rocksdb::ManagedSnapshot release(db_.get(), snapshot);
  // The caller's (epoch, seq) from another run may name ops this run never
  // had, or other ops under the same numbers.
  if (incarnation != incarnation_) {
    out.too_old = true;
    return out;
  }
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
  return FilterStatus{incarnation_, filter_->epoch(), filter_->last_seq(),
                      filter_->filter().Stats(), filter_->filter().config()};
}

void RocksRegionStore::RaiseFence(uint64_t token) {
  std::lock_guard lock(filter_mu_);
  fence_ = std::max(fence_, token);
}

}  // namespace bloomroute::regionstore_internal
