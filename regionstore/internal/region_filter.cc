#include "regionstore/internal/region_filter.h"

#include <algorithm>

#include "index/occupancy_image.h"
#include "regionstore/internal/keys.h"
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

// The value at `key` of `cf`; nullopt when there is none.
StatusOr<std::optional<std::string>> GetOptional(
    rocksdb::DB* db, rocksdb::ColumnFamilyHandle* cf, std::string_view key) {
  std::string bytes;
  rocksdb::Status s = db->Get(rocksdb::ReadOptions(), cf, key, &bytes);
  if (s.IsNotFound()) return std::optional<std::string>();
  BLOOMROUTE_RETURN_IF_ERROR(FromRocks(s));
  return std::optional<std::string>(std::move(bytes));
}

// What storage holds of the filter, read on Open.
struct StoredState {
  std::optional<std::string> checkpoint;
  std::optional<std::string> mark;
  bool has_values = false;   // some value record exists
  uint64_t last_logged = 0;  // the seq of the newest op in the log, or 0
  bool New() const {
    return !checkpoint && !mark && last_logged == 0 && !has_values;
  }
};

Status ReadStoredState(rocksdb::DB* db, const FilterColumnFamilies& cfs,
                       StoredState* stored) {
  BLOOMROUTE_ASSIGN_OR_RETURN(stored->checkpoint,
                              GetOptional(db, cfs.meta, kFilterCheckpointKey));
  BLOOMROUTE_ASSIGN_OR_RETURN(stored->mark,
                              GetOptional(db, cfs.meta, kFilterMarkKey));
  // Whether any value record exists; reading them all is only for a rebuild,
  // so a restart from a checkpoint stays independent of the value count.
  std::unique_ptr<rocksdb::Iterator> values(
      db->NewIterator(rocksdb::ReadOptions(), cfs.values));
  values->SeekToFirst();
  stored->has_values = values->Valid();
  BLOOMROUTE_RETURN_IF_ERROR(FromRocks(values->status()));
  std::unique_ptr<rocksdb::Iterator> ops(
      db->NewIterator(rocksdb::ReadOptions(), cfs.oplog));
  ops->SeekToLast();
  stored->last_logged =
      ops->Valid() ? ParseOpKey(ops->key().ToStringView()) : 0;
  return FromRocks(ops->status());
}

// 64 random bits, for the image ids (which only need to differ).
uint64_t RandomSeed() {
  std::random_device device;
  return (static_cast<uint64_t>(device()) << 32) ^ device();
}

}  // namespace

void AddDelta(ValueDeltas* deltas, uint64_t table, uint32_t column,
              const std::string& value, int64_t delta) {
  auto [it, added] = deltas->try_emplace(ValueKey(table, column, value));
  ValueDelta& d = it->second;
  if (added) {  // the value is copied once, not once per row holding it
    d.table_id = table;
    d.column_id = column;
    d.value = value;
  }
  d.delta += delta;
}

// ---- FilterImagePages

FilterImagePages::FilterImagePages(size_t page_bytes, uint64_t idle_ms)
    : page_bytes_(page_bytes), idle_(idle_ms), ids_(RandomSeed()) {}

StatusOr<FilterImagePage> FilterImagePages::Page(
    std::optional<FilterImage> fresh, uint64_t image_id, uint64_t offset) {
  std::lock_guard lock(mu_);
  const auto now = std::chrono::steady_clock::now();
  // Expiry is checked lazily: an image costs memory only until the next
  // call after its idle time, and a store serves one image at a time.
  if (kept_.has_value() && now - kept_->last_used > idle_) kept_.reset();
  if (fresh.has_value()) {
    uint64_t id = 0;
    while (id == 0) id = ids_();
    kept_ = KeptImage{std::move(*fresh), id, now};
  } else if (!kept_.has_value() || kept_->id != image_id) {
    return Status::NotFound("filter image " + std::to_string(image_id) +
                            " expired; start a new one");
  }
  const std::string& bytes = kept_->image.image;
  if (offset >= bytes.size()) {
    return Status::InvalidArgument(
        "filter image offset " + std::to_string(offset) +
        " is not below its size " + std::to_string(bytes.size()));
  }
  const size_t length = std::min<uint64_t>(page_bytes_, bytes.size() - offset);
  FilterImagePage page{kept_->image.incarnation,
                       kept_->image.epoch,
                       kept_->image.last_seq,
                       kept_->id,
                       bytes.size(),
                       offset,
                       bytes.substr(offset, length)};
  kept_->last_used = now;
  if (offset + length == bytes.size()) kept_.reset();  // the last page
  return page;
}

// ---- Open and recovery

RegionFilter::RegionFilter(rocksdb::DB* db, const FilterColumnFamilies& cfs,
                           const RegionStoreOptions& options,
                           uint64_t incarnation)
    : db_(db),
      cfs_(cfs),
      options_(options),
      incarnation_(incarnation),
      records_(options.value_record_cache_entries),
      pages_(options.filter_image_page_bytes, options.filter_image_idle_ms) {
  write_options_.sync = options.sync;
}

StatusOr<std::unique_ptr<RegionFilter>> RegionFilter::Open(
    rocksdb::DB* db, const FilterColumnFamilies& cfs,
    const RegionStoreOptions& options, uint64_t incarnation) {
  std::unique_ptr<RegionFilter> filter(
      new RegionFilter(db, cfs, options, incarnation));
  std::lock_guard lock(filter->mu_);
  BLOOMROUTE_RETURN_IF_ERROR(filter->ReplayCountJournalLocked());
  BLOOMROUTE_RETURN_IF_ERROR(filter->LoadLocked());
  return filter;
}

Status RegionFilter::LoadLocked() {
  BLOOMROUTE_RETURN_IF_ERROR(LoadConfigLocked());
  StoredState stored;
  BLOOMROUTE_RETURN_IF_ERROR(ReadStoredState(db_, cfs_, &stored));
  if (stored.New()) {
    BLOOMROUTE_ASSIGN_OR_RETURN(
        ScalableSplitCountingBloomFilter f,
        ScalableSplitCountingBloomFilter::Create(config_));
    filter_.emplace(std::move(f), /*epoch=*/1, /*last_seq=*/0);
    return WriteCheckpointLocked(0);
  }
  bool unmasked_ops = false;
  auto restored = stored.checkpoint
                      ? RestoreFromCheckpoint(*stored.checkpoint, &unmasked_ops)
                      : StatusOr<FilterLog>(Status::Corruption("none"));
  if (restored.ok()) return ResumeLocked(std::move(*restored), unmasked_ops);
  // The filter is derived data: rebuild it from the value records, under an
  // epoch and from a sequence number the store has never used.
  FilterMark mark;
  if (!stored.mark || !DecodeFilterMark(*stored.mark, &mark).ok()) {
    return Status::Corruption(
        "filter checkpoint and epoch mark unreadable: cannot choose an "
        "unused epoch (" +
        restored.status().ToString() + ")");
  }
  return CompactLocked(config_, mark.epoch + 1,
                       std::max(mark.seq, stored.last_logged), 0);
}

Status RegionFilter::LoadConfigLocked() {
  BLOOMROUTE_ASSIGN_OR_RETURN(std::optional<std::string> bytes,
                              GetOptional(db_, cfs_.meta, kFilterConfigKey));
  if (!bytes) {  // no router has configured this store yet
    config_ = options_.filter;
    config_persisted_ = false;
    return Status::OK();
  }
  StatusOr<SscbfConfig> config = DecodeFilterConfig(*bytes);
  if (!config.ok()) {
    return config.status().WithContext("the filter config a router set");
  }
  config_ = *config;
  config_persisted_ = true;
  return Status::OK();
}

StatusOr<FilterLog> RegionFilter::RestoreFromCheckpoint(
    const std::string& bytes, bool* unmasked_ops) const {
  *unmasked_ops = false;
  BLOOMROUTE_ASSIGN_OR_RETURN(Checkpoint c, DecodeCheckpoint(bytes));
  BLOOMROUTE_ASSIGN_OR_RETURN(FilterLog log, FilterLog::FromCheckpoint(c));
  if (!Compatible(log.filter().config(), config_)) {
    return Status::InvalidArgument("filter configuration changed");
  }
  std::unique_ptr<rocksdb::Iterator> it(
      db_->NewIterator(rocksdb::ReadOptions(), cfs_.oplog));
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

Status RegionFilter::ResumeLocked(FilterLog restored, bool unmasked_ops) {
  filter_.emplace(std::move(restored));
  std::unique_ptr<rocksdb::Iterator> ops(
      db_->NewIterator(rocksdb::ReadOptions(), cfs_.oplog));
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

// ---- Value records (the counts are in region_filter_counts.cc)

StatusOr<ScalableSplitCountingBloomFilter>
RegionFilter::RebuildAtRecordedStages(const SscbfConfig& config,
                                      uint32_t first_stage,
                                      const ValueRecords& records) {
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

RegionFilter::SnapshotAndFilter RegionFilter::TakeSnapshotAndFilter() const {
  SnapshotAndFilter out;
  std::lock_guard lock(mu_);
  out.snapshot = std::make_unique<rocksdb::ManagedSnapshot>(db_);
  out.filter = filter_->filter().Serialize();
  return out;
}

// ---- Commits

StatusOr<WriteResult> RegionFilter::CommitWithValueChanges(
    rocksdb::WriteBatch* batch, const ValueDeltas& deltas, uint64_t fence_token,
    const BatchWriter& write) {
  std::lock_guard lock(mu_);
  BLOOMROUTE_RETURN_IF_ERROR(CheckFenceLocked(fence_token));
  BLOOMROUTE_RETURN_IF_ERROR(RepairLocked());
  const uint64_t epoch = filter_->epoch();
  const uint64_t seq_before = filter_->last_seq();
  WriteResult result;
  Status s = AddValueChangesOrRebuildLocked(batch, deltas, &result.ops);
  if (s.ok()) s = write(batch);
  if (!s.ok()) {
    // Nothing of the batch is stored; the in-memory filter may have moved.
    // The cache forgets what it cannot be sure storage holds.
    pending_records_.clear();
    if (!ReplayCountJournalLocked().ok()) broken_ = true;
    if (filter_->last_seq() != seq_before) {
      RestoreLocked(filter_->epoch(), seq_before);
    }
    return s;
  }
  if (!pending_records_.empty()) {
    ++journal_next_seq_;
    journal_counts_ += pending_records_.size();
  }
  // The entries FindRecordsLocked found are updated in place: no second
  // hash of each value key (dirty_ is not changed between the two).
  for (const PendingRecord& p : pending_records_) {
    if (p.journaled != nullptr) {
      *p.journaled = p.record;
    } else {
      dirty_.emplace(*p.key, p.record);
    }
  }
  pending_records_.clear();
  MaintainLocked();
  result.incarnation = incarnation_;
  result.epoch = filter_->epoch();
  result.last_seq = filter_->last_seq();
  if (result.epoch != epoch) result.ops.clear();  // rebuilt: take a snapshot
  return result;
}

Status RegionFilter::CheckFenceLocked(uint64_t fence_token) const {
  // Under the lock that orders filter ops, so that after RaiseFence returns
  // no write with an older token commits (region_store.h, "Fencing").
  return fences_.Check(fence_token);
}

Status RegionFilter::AddValueChangesOrRebuildLocked(
    rocksdb::WriteBatch* batch, const ValueDeltas& deltas,
    std::vector<FilterOp>* ops) {
  const uint64_t epoch = filter_->epoch();
  const uint64_t seq_before = filter_->last_seq();
  batch->SetSavePoint();
  Status s = AddValueChangesLocked(batch, deltas, ops);
  if (!s.IsUnavailable()) return s;
  // The batch brings more new values than the filter's remaining stages
  // can take: rebuild it sized for them too, then apply the batch to it.
  RestoreLocked(epoch, seq_before);
  ops->clear();
  s = FromRocks(batch->RollbackToSavePoint());
  uint64_t arriving = 0;
  for (const auto& [key, d] : deltas) arriving += d.delta > 0;
  if (s.ok() && !broken_) {
    s = CompactLocked(config_, filter_->epoch() + 1, seq_before, arriving);
  }
  if (s.ok()) s = AddValueChangesLocked(batch, deltas, ops);
  if (s.IsUnavailable()) s = Status::IOError(s.message());
  return s;
}

// ---- Upkeep: checkpoints, compaction, repair

Status RegionFilter::WriteCheckpointLocked(uint64_t trim_through) {
  rocksdb::WriteBatch wb;
  const Checkpoint c = filter_->ToCheckpoint();
  Status s =
      FromRocks(wb.Put(cfs_.meta, kFilterCheckpointKey, EncodeCheckpoint(c)));
  if (s.ok()) {
    s = FromRocks(wb.Put(cfs_.meta, kFilterMarkKey,
                         EncodeFilterMark(FilterMark{c.epoch, c.seq})));
  }
  if (s.ok() && trim_through + 1 > first_retained_seq_) {
    s = FromRocks(
        wb.DeleteRange(cfs_.oplog, OpKey(0), OpKey(trim_through + 1)));
  }
  if (s.ok()) s = FromRocks(db_->Write(write_options_, &wb));
  if (!s.ok()) return s;
  first_retained_seq_ = std::max(first_retained_seq_, trim_through + 1);
  checkpoint_seq_ = filter_->last_seq();
  return Status::OK();
}

Status RegionFilter::CompactLocked(const SscbfConfig& config,
                                   uint64_t new_epoch, uint64_t last_seq,
                                   uint64_t extra_values) {
  ValueRecords records;
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
        wb.Put(cfs_.meta, kFilterConfigKey, EncodeFilterConfig(config))));
  }
  for (auto& [key, rec] : records) {
    ValueKeyParts v;
    BLOOMROUTE_RETURN_IF_ERROR(ParseValueKey(key, &v));
    BLOOMROUTE_ASSIGN_OR_RETURN(
        rec.stage, f.Insert(HashElement(v.table_id, v.column_id, v.value)));
    BLOOMROUTE_RETURN_IF_ERROR(
        FromRocks(wb.Put(cfs_.values, key, EncodeValueRecord(rec))));
  }
  FilterLog log(std::move(f), new_epoch, last_seq);
  BLOOMROUTE_RETURN_IF_ERROR(FromRocks(wb.Put(
      cfs_.meta, kFilterCheckpointKey, EncodeCheckpoint(log.ToCheckpoint()))));
  BLOOMROUTE_RETURN_IF_ERROR(
      FromRocks(wb.Put(cfs_.meta, kFilterMarkKey,
                       EncodeFilterMark(FilterMark{new_epoch, last_seq}))));
  // Every op so far belongs to an older epoch. The records now hold the
  // journal's counts: the journal is folded.
  BLOOMROUTE_RETURN_IF_ERROR(
      FromRocks(wb.DeleteRange(cfs_.oplog, OpKey(0), OpKey(last_seq + 1))));
  BLOOMROUTE_RETURN_IF_ERROR(FromRocks(
      wb.DeleteRange(cfs_.meta, kCountJournalPrefix,
                     PrefixSuccessor(std::string(kCountJournalPrefix)))));
  BLOOMROUTE_RETURN_IF_ERROR(FromRocks(db_->Write(write_options_, &wb)));
  // Every record's stage may have changed: the cache is refilled as
  // commits read.
  records_.Clear();
  dirty_.clear();
  journal_counts_ = 0;
  filter_.emplace(std::move(log));
  if (new_config) {
    config_ = config;
    config_persisted_ = true;
  }
  broken_ = false;
  checkpoint_seq_ = last_seq;
  first_retained_seq_ = last_seq + 1;
  return Status::OK();
}

void RegionFilter::RestoreLocked(uint64_t epoch, uint64_t last_seq) {
  // Same (epoch, seq), but perhaps other stages: check again.
  compaction_checked_ = {0, 0};
  // The value records are what the failed batch did not change; the filter
  // before the batch had each of them in its recorded stage.
  ValueRecords records;
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
  if (!CompactLocked(config_, epoch + 1, last_seq, 0).ok()) broken_ = true;
}

Status RegionFilter::RepairLocked() {
  if (!broken_) return Status::OK();
  Status s =
      CompactLocked(config_, filter_->epoch() + 1, filter_->last_seq(), 0);
  if (!s.ok()) return Status::IOError("filter unavailable: " + s.message());
  return Status::OK();
}

void RegionFilter::MaintainLocked() {
  // Failures here leave the committed write and the current filter intact;
  // the next write tries again.
  // dirty_ holds at most as many records as the journal holds counts.
  if (journal_counts_ >= options_.max_journaled_counts) {
    (void)FoldCountsLocked();
  }
  // Whether a compaction is due depends only on the filter's stages and
  // elements, which change only with an op or a new epoch (config_ changes
  // only with one): a commit that changed no count across zero -- most of
  // them -- skips the check. It summed every stage's geometry, ~1.5 % of a
  // put (perf, put_benchmark, 5 indexed columns).
  const std::pair<uint64_t, uint64_t> at{filter_->epoch(), filter_->last_seq()};
  const bool checked = at == compaction_checked_;
  if (!checked && filter_->NeedsCompaction(options_.max_filter_stages,
                                           options_.sparse_factor, config_)) {
    // compaction_checked_ stays: if this failed, the next commit checks
    // again.
    (void)CompactLocked(config_, filter_->epoch() + 1, filter_->last_seq(), 0);
    return;
  }
  compaction_checked_ = at;
  if (filter_->last_seq() - checkpoint_seq_ >= options_.checkpoint_interval) {
    // Keep the ops after the previous checkpoint: a reader up to one
    // interval behind catches up from them instead of a whole snapshot.
    (void)WriteCheckpointLocked(checkpoint_seq_);
  }
}

Status RegionFilter::Compact() {
  std::lock_guard lock(mu_);
  return CompactLocked(config_, filter_->epoch() + 1, filter_->last_seq(), 0);
}

Status RegionFilter::SetConfig(const SscbfConfig& config) {
  BLOOMROUTE_RETURN_IF_ERROR(config.Validate());
  std::lock_guard lock(mu_);
  if (broken_ || !(filter_->filter().config() == config)) {
    // As a compaction: readers of the old epoch take a snapshot. A config
    // other than config_ is persisted with the rebuilt filter.
    BLOOMROUTE_RETURN_IF_ERROR(
        CompactLocked(config, filter_->epoch() + 1, filter_->last_seq(), 0));
  }
  if (config_persisted_) return Status::OK();
  // The router set the config the store had of its own: only the record
  // that it is the router's is missing.
  BLOOMROUTE_RETURN_IF_ERROR(
      FromRocks(db_->Put(write_options_, cfs_.meta, kFilterConfigKey,
                         EncodeFilterConfig(config))));
  config_persisted_ = true;
  return Status::OK();
}

void RegionFilter::RaiseFence(uint64_t token) {
  std::lock_guard lock(mu_);
  fences_.Raise(token);
}

// ---- Readers: snapshots, images, ops, status

StatusOr<FilterSnapshot> RegionFilter::Snapshot() const {
  std::lock_guard lock(mu_);
  if (broken_) return Status::Unavailable("filter is being repaired");
  return FilterSnapshot{incarnation_, filter_->epoch(), filter_->last_seq(),
                        filter_->filter().Serialize()};
}

StatusOr<FilterImage> RegionFilter::TakeImage(uint64_t fence_token) {
  FilterImage out;
  std::optional<OccupancyImage> image;
  {
    std::lock_guard lock(mu_);
    // Fence first, under the lock that orders filter ops: the image then
    // holds every write an older token may ever commit ("Fencing").
    fences_.Raise(fence_token);
    if (broken_) return Status::Unavailable("filter is being repaired");
    image.emplace(OccupancyImage::Of(filter_->filter()));
    out = FilterImage{incarnation_, filter_->epoch(), filter_->last_seq(), ""};
  }
  out.image = image->Serialize();
  return out;
}

StatusOr<FilterImagePage> RegionFilter::SnapshotImagePage(uint64_t fence_token,
                                                          uint64_t image_id,
                                                          uint64_t offset) {
  std::optional<FilterImage> fresh;
  if (image_id == 0) {
    if (offset != 0) {
      return Status::InvalidArgument(
          "a new filter image starts at offset 0, "
          "not " +
          std::to_string(offset));
    }
    BLOOMROUTE_ASSIGN_OR_RETURN(fresh, TakeImage(fence_token));
  }
  return pages_.Page(std::move(fresh), image_id, offset);
}

StatusOr<FilterOpsSince> RegionFilter::OpsSince(uint64_t incarnation,
                                                uint64_t epoch,
                                                uint64_t seq) const {
  FilterOpsSince out;
  out.incarnation = incarnation_;
  uint64_t first_retained;
  const rocksdb::Snapshot* snapshot;
  {
    std::lock_guard lock(mu_);
    if (broken_) return Status::Unavailable("filter is being repaired");
    out.epoch = filter_->epoch();
    out.last_seq = filter_->last_seq();
    first_retained = first_retained_seq_;
    snapshot = db_->GetSnapshot();  // the log exactly as of last_seq
  }
  rocksdb::ManagedSnapshot release(db_, snapshot);
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
  std::unique_ptr<rocksdb::Iterator> it(db_->NewIterator(ro, cfs_.oplog));
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

FilterStatus RegionFilter::GetStatus() const {
  std::lock_guard lock(mu_);
  return FilterStatus{incarnation_, filter_->epoch(), filter_->last_seq(),
                      filter_->filter().Stats(), filter_->filter().config()};
}

}  // namespace bloomroute::regionstore_internal
