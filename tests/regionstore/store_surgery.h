// StoreSurgery: edits a CLOSED region store's RocksDB directly, the way only
// a bug or a disk fault could, so that tests can check that VerifyIndex (and
// everything built on it) notices. Each function opens the database, makes
// one change and closes it; the store is then reopened by the test (or the
// region server process restarted on the same directory).
#ifndef BLOOMROUTE_TESTS_REGIONSTORE_STORE_SURGERY_H_
#define BLOOMROUTE_TESTS_REGIONSTORE_STORE_SURGERY_H_

#include <rocksdb/db.h>

#include <algorithm>
#include <memory>
#include <string>
#include <vector>

#include "common/coding.h"
#include "common/statusor.h"
#include "index/scalable_split_counting_bloom_filter.h"
#include "regionstore/internal/keys.h"
#include "regionstore/internal/records.h"

namespace bloomroute::testing {

class StoreSurgery {
 public:
  // Opens the store's database at `path`. The store must not be open.
  static StatusOr<std::unique_ptr<StoreSurgery>> Open(const std::string& path) {
    std::vector<rocksdb::ColumnFamilyDescriptor> cfs = {
        {rocksdb::kDefaultColumnFamilyName, {}},
        {"rows", {}},
        {"index", {}},
        {"values", {}},
        {"oplog", {}},
        {"meta", {}}};
    auto out = std::unique_ptr<StoreSurgery>(new StoreSurgery);
    rocksdb::DB* db = nullptr;
    rocksdb::Status s =
        rocksdb::DB::Open(rocksdb::DBOptions(), path, cfs, &out->handles_, &db);
    if (!s.ok()) return Status::IOError("open " + path + ": " + s.ToString());
    out->db_.reset(db);
    return out;
  }
  ~StoreSurgery() {
    for (auto* h : handles_) (void)db_->DestroyColumnFamilyHandle(h);
  }

  // Deletes the first index entry; returns its row key.
  StatusOr<std::string> DropFirstIndexEntry() {
    std::unique_ptr<rocksdb::Iterator> it(
        db_->NewIterator(rocksdb::ReadOptions(), cf(kIndex)));
    it->SeekToFirst();
    if (!it->Valid()) return Status::NotFound("no index entry");
    regionstore_internal::IndexKeyParts e;
    BLOOMROUTE_RETURN_IF_ERROR(
        regionstore_internal::ParseIndexKey(it->key().ToStringView(), &e));
    const std::string row(e.row);
    return Put(kIndex, it->key().ToString(), nullptr).ok()
               ? StatusOr<std::string>(row)
               : Status::IOError("delete failed");
  }

  // Adds an index entry for a row that does not exist: a copy of the first
  // entry with another row key.
  [[nodiscard]] Status AddIndexEntryForRow(const std::string& row) {
    std::unique_ptr<rocksdb::Iterator> it(
        db_->NewIterator(rocksdb::ReadOptions(), cf(kIndex)));
    it->SeekToFirst();
    if (!it->Valid()) return Status::NotFound("no index entry");
    regionstore_internal::IndexKeyParts e;
    BLOOMROUTE_RETURN_IF_ERROR(
        regionstore_internal::ParseIndexKey(it->key().ToStringView(), &e));
    const std::string value = it->value().ToString();
    return Put(
        kIndex,
        regionstore_internal::IndexKey(e.region_id, e.column_id, e.value, row),
        &value);
  }

  // Rewrites the filter checkpoint as the filter the value records describe
  // minus the element of (table, column, value), at the newest sequence
  // number of the op log and the checkpoint's epoch: reopening restores it as
  // it is (no op left to replay), a filter that misses a stored value.
  [[nodiscard]] Status DropFromFilter(uint64_t table_id, uint32_t column_id,
                                      const std::string& value) {
    using namespace regionstore_internal;  // NOLINT: test helper
    std::string bytes;
    if (!db_->Get(rocksdb::ReadOptions(), cf(kMeta), kFilterCheckpointKey,
                  &bytes)
             .ok()) {
      return Status::NotFound("no checkpoint");
    }
    BLOOMROUTE_ASSIGN_OR_RETURN(Checkpoint c, DecodeCheckpoint(bytes));
    BLOOMROUTE_ASSIGN_OR_RETURN(
        ScalableSplitCountingBloomFilter old,
        ScalableSplitCountingBloomFilter::Deserialize(c.filter));
    BLOOMROUTE_ASSIGN_OR_RETURN(
        ScalableSplitCountingBloomFilter f,
        ScalableSplitCountingBloomFilter::Create(old.config()));
    const std::string target = ValueKey(table_id, column_id, value);
    bool dropped = false;
    std::unique_ptr<rocksdb::Iterator> it(
        db_->NewIterator(rocksdb::ReadOptions(), cf(kValues)));
    for (it->SeekToFirst(); it->Valid(); it->Next()) {
      if (it->key().ToString() == target) {
        dropped = true;
        continue;
      }
      ValueKeyParts v;
      ValueRecord rec;
      BLOOMROUTE_RETURN_IF_ERROR(ParseValueKey(it->key().ToStringView(), &v));
      BLOOMROUTE_RETURN_IF_ERROR(
          DecodeValueRecord(it->value().ToStringView(), &rec));
      BLOOMROUTE_RETURN_IF_ERROR(f.InsertIntoStage(
          HashElement(v.table_id, v.column_id, v.value), rec.stage));
    }
    if (!dropped) return Status::NotFound("no such value record");
    std::unique_ptr<rocksdb::Iterator> ops(
        db_->NewIterator(rocksdb::ReadOptions(), cf(kOplog)));
    ops->SeekToLast();
    if (ops->Valid()) {
      c.seq = std::max(c.seq, ParseOpKey(ops->key().ToStringView()));
    }
    c.filter = f.Serialize();
    const std::string encoded = EncodeCheckpoint(c);
    return Put(kMeta, std::string(kFilterCheckpointKey), &encoded);
  }

  // Deletes the filter checkpoint: reopening then rebuilds the filter from
  // the value records (under a new epoch).
  [[nodiscard]] Status DropFilterCheckpoint() {
    return Put(kMeta, std::string(regionstore_internal::kFilterCheckpointKey),
               nullptr);
  }

  // Rewrites every op record in format 1, as a store wrote them before ops
  // carried their occupancy mask (epoch, kind, hash, stage); returns how
  // many there were.
  StatusOr<size_t> RewriteOpsWithoutMasks() {
    std::unique_ptr<rocksdb::Iterator> it(
        db_->NewIterator(rocksdb::ReadOptions(), cf(kOplog)));
    size_t n = 0;
    for (it->SeekToFirst(); it->Valid(); it->Next(), ++n) {
      uint64_t epoch = 0;
      FilterOp op;
      const uint64_t seq =
          regionstore_internal::ParseOpKey(it->key().ToStringView());
      BLOOMROUTE_RETURN_IF_ERROR(regionstore_internal::DecodeOp(
          it->value().ToStringView(), seq, &epoch, &op));
      std::string v1 = regionstore_internal::EncodeOp(epoch, op);
      v1[0] = 1;
      v1.resize(v1.size() - 8);  // no mask
      BLOOMROUTE_RETURN_IF_ERROR(Put(kOplog, it->key().ToString(), &v1));
    }
    if (!it->status().ok()) return Status::IOError(it->status().ToString());
    return n;
  }

  // Rewrites every row in format 1, as a store wrote them before cells had
  // timestamps (column, value); returns how many there were.
  StatusOr<size_t> RewriteRowsWithoutTimestamps() {
    std::unique_ptr<rocksdb::Iterator> it(
        db_->NewIterator(rocksdb::ReadOptions(), cf(kRows)));
    size_t n = 0;
    for (it->SeekToFirst(); it->Valid(); it->Next(), ++n) {
      std::vector<Cell> cells;
      BLOOMROUTE_RETURN_IF_ERROR(regionstore_internal::DecodeRowCells(
          it->value().ToStringView(), &cells));
      std::string v1;
      PutFixed8(&v1, 1);
      PutFixed32(&v1, static_cast<uint32_t>(cells.size()));
      for (const Cell& c : cells) {
        PutLengthPrefixed(&v1, c.column);
        PutLengthPrefixed(&v1, c.value);
      }
      BLOOMROUTE_RETURN_IF_ERROR(Put(kRows, it->key().ToString(), &v1));
    }
    if (!it->status().ok()) return Status::IOError(it->status().ToString());
    return n;
  }

 private:
  enum Cf { kRows = 1, kIndex = 2, kValues = 3, kOplog = 4, kMeta = 5 };
  StoreSurgery() = default;
  rocksdb::ColumnFamilyHandle* cf(Cf c) const { return handles_[c]; }
  // Puts `value` at `key`, or deletes `key` when `value` is null; synced.
  Status Put(Cf c, const std::string& key, const std::string* value) {
    rocksdb::WriteOptions wo;
    wo.sync = true;
    rocksdb::Status s = value != nullptr ? db_->Put(wo, cf(c), key, *value)
                                         : db_->Delete(wo, cf(c), key);
    return s.ok() ? Status::OK() : Status::IOError(s.ToString());
  }

  std::unique_ptr<rocksdb::DB> db_;
  std::vector<rocksdb::ColumnFamilyHandle*> handles_;
};

}  // namespace bloomroute::testing

#endif  // BLOOMROUTE_TESTS_REGIONSTORE_STORE_SURGERY_H_
