#include "regionstore/internal/records.h"

#include "common/coding.h"

namespace bloomroute::regionstore_internal {
namespace {

// Rows: format 1 before cells carried timestamps (column, value), format 2
// with them (column, value, fixed64 timestamp).
constexpr uint8_t kRowVersionNoTimestamps = 1;
constexpr uint8_t kRowVersion = 2;
// Version 2 added each indexed column's building flag; version 1 records
// (no flag: every column ready) still read.
constexpr uint8_t kRegionVersionV1 = 1;
constexpr uint8_t kRegionVersionV2 = 2;  // adds a column's building flag
constexpr uint8_t kRegionVersionV3 = 3;  // adds the staged flag
constexpr uint8_t kRegionVersion = 4;    // adds the table's families
// Op records: format 1 before ops carried their occupancy mask, format 2
// with it (the same fields, then the mask).
constexpr uint8_t kOpVersionNoMask = 1;
constexpr uint8_t kOpVersion = 2;
constexpr uint8_t kValueVersion = 1;
constexpr uint8_t kCountJournalVersion = 1;
constexpr uint8_t kCheckpointVersion = 1;
constexpr uint8_t kMarkVersion = 1;
constexpr uint8_t kConfigVersion = 1;
constexpr uint8_t kCoordinatorEpochVersion = 1;

Status ReadVersion(ByteReader* in, uint8_t expected, const char* what) {
  uint8_t v;
  BLOOMROUTE_RETURN_IF_ERROR(in->ReadFixed8(&v, what));
  if (v != expected) {
    return Status::Corruption(std::string(what) + " has unknown version " +
                              std::to_string(v));
  }
  return Status::OK();
}

Status ExpectEnd(const ByteReader& in, const char* what) {
  if (!in.empty()) {
    return Status::Corruption(std::string(what) + " has trailing bytes");
  }
  return Status::OK();
}

}  // namespace

std::string EncodeRowCells(const std::vector<Cell>& cells) {
  std::string out;
  PutFixed8(&out, kRowVersion);
  PutFixed32(&out, static_cast<uint32_t>(cells.size()));
  for (const auto& c : cells) {
    PutLengthPrefixed(&out, c.column);
    PutLengthPrefixed(&out, c.value);
    PutFixed64(&out, static_cast<uint64_t>(c.timestamp));
  }
  return out;
}

Status DecodeRowCells(std::string_view bytes, std::vector<Cell>* cells) {
  ByteReader in(bytes);
  uint8_t version;
  BLOOMROUTE_RETURN_IF_ERROR(in.ReadFixed8(&version, "row"));
  if (version != kRowVersion && version != kRowVersionNoTimestamps) {
    return Status::Corruption("row has unknown version " +
                              std::to_string(version));
  }
  const bool timed = version == kRowVersion;
  uint32_t n;
  BLOOMROUTE_RETURN_IF_ERROR(in.ReadFixed32(&n, "row cell count"));
  // Each cell takes at least 8 bytes (16 with a timestamp): bound n before
  // reserving.
  if (n > in.remaining() / (timed ? 16 : 8)) {
    return Status::Corruption("row cell count");
  }
  cells->clear();
  cells->reserve(n);
  for (uint32_t i = 0; i < n; ++i) {
    std::string_view col, val;
    uint64_t ts = 0;
    BLOOMROUTE_RETURN_IF_ERROR(in.ReadLengthPrefixed(&col, "row column"));
    BLOOMROUTE_RETURN_IF_ERROR(in.ReadLengthPrefixed(&val, "row value"));
    if (timed) {
      BLOOMROUTE_RETURN_IF_ERROR(in.ReadFixed64(&ts, "cell timestamp"));
      // Stored timestamps are the server's or a client's, never negative
      // and never "now".
      if (ts >= static_cast<uint64_t>(kLatestTimestamp)) {
        return Status::Corruption("cell timestamp " + std::to_string(ts));
      }
    }
    if (!cells->empty() && !(cells->back().column < col)) {
      return Status::Corruption("row columns not sorted and unique");
    }
    cells->push_back(
        Cell{std::string(col), std::string(val), static_cast<int64_t>(ts)});
  }
  return ExpectEnd(in, "row");
}

std::string EncodeRegion(const StoredRegion& stored) {
  const RegionDescriptor& r = stored.descriptor;
  std::string out;
  PutFixed8(&out, kRegionVersion);
  PutFixed8(&out, stored.open ? 1 : 0);
  PutFixed8(&out, stored.staging ? 1 : 0);
  PutFixed64(&out, r.region_id);
  PutFixed64(&out, r.table.table_id);
  PutLengthPrefixed(&out, r.table.name);
  PutFixed32(&out, static_cast<uint32_t>(r.table.indexed_columns.size()));
  for (const auto& c : r.table.indexed_columns) {
    PutFixed32(&out, c.column_id);
    PutLengthPrefixed(&out, c.name);
    PutFixed8(&out, c.building ? 1 : 0);
  }
  PutLengthPrefixed(&out, r.start_key);
  PutLengthPrefixed(&out, r.end_key);
  PutFixed32(&out, static_cast<uint32_t>(r.table.families.size()));
  for (const std::string& f : r.table.families) PutLengthPrefixed(&out, f);
  return out;
}

StatusOr<StoredRegion> DecodeRegion(std::string_view bytes) {
  ByteReader in(bytes);
  StoredRegion stored;
  RegionDescriptor& r = stored.descriptor;
  std::string_view s;
  uint32_t n;
  uint8_t open;
  uint8_t version;
  BLOOMROUTE_RETURN_IF_ERROR(in.ReadFixed8(&version, "region"));
  if (version < kRegionVersionV1 || version > kRegionVersion) {
    return Status::Corruption("region has unknown version " +
                              std::to_string(version));
  }
  BLOOMROUTE_RETURN_IF_ERROR(in.ReadFixed8(&open, "region state"));
  if (open > 1) return Status::Corruption("region state");
  stored.open = open == 1;
  if (version >= kRegionVersionV3) {
    uint8_t staging;
    BLOOMROUTE_RETURN_IF_ERROR(in.ReadFixed8(&staging, "region staged flag"));
    if (staging > 1) return Status::Corruption("region staged flag");
    stored.staging = staging == 1;
  }
  BLOOMROUTE_RETURN_IF_ERROR(in.ReadFixed64(&r.region_id, "region id"));
  BLOOMROUTE_RETURN_IF_ERROR(in.ReadFixed64(&r.table.table_id, "table id"));
  BLOOMROUTE_RETURN_IF_ERROR(in.ReadLengthPrefixed(&s, "table name"));
  r.table.name = s;
  BLOOMROUTE_RETURN_IF_ERROR(in.ReadFixed32(&n, "indexed column count"));
  if (n > in.remaining() / 8) return Status::Corruption("indexed columns");
  for (uint32_t i = 0; i < n; ++i) {
    IndexedColumn c;
    BLOOMROUTE_RETURN_IF_ERROR(in.ReadFixed32(&c.column_id, "column id"));
    BLOOMROUTE_RETURN_IF_ERROR(in.ReadLengthPrefixed(&s, "column name"));
    c.name = s;
    if (version >= kRegionVersionV2) {
      uint8_t building;
      BLOOMROUTE_RETURN_IF_ERROR(in.ReadFixed8(&building, "column state"));
      if (building > 1) return Status::Corruption("column state");
      c.building = building == 1;
    }
    r.table.indexed_columns.push_back(std::move(c));
  }
  BLOOMROUTE_RETURN_IF_ERROR(in.ReadLengthPrefixed(&s, "region start"));
  r.start_key = s;
  BLOOMROUTE_RETURN_IF_ERROR(in.ReadLengthPrefixed(&s, "region end"));
  r.end_key = s;
  if (version >= kRegionVersion) {
    BLOOMROUTE_RETURN_IF_ERROR(in.ReadFixed32(&n, "family count"));
    if (n > in.remaining() / 4) return Status::Corruption("families");
    for (uint32_t i = 0; i < n; ++i) {
      BLOOMROUTE_RETURN_IF_ERROR(in.ReadLengthPrefixed(&s, "family"));
      r.table.families.emplace_back(s);
    }
  }
  BLOOMROUTE_RETURN_IF_ERROR(ExpectEnd(in, "region"));
  if (Status v = ValidateRegion(r); !v.ok()) {
    return Status::Corruption("stored region: " + v.message());
  }
  return stored;
}

std::string EncodeOp(uint64_t epoch, const FilterOp& op) {
  std::string out;
  PutFixed8(&out, kOpVersion);
  PutFixed64(&out, epoch);
  PutFixed8(&out, static_cast<uint8_t>(op.kind));
  PutFixed64(&out, op.hash.low);
  PutFixed64(&out, op.hash.high);
  PutFixed32(&out, op.stage);
  PutFixed64(&out, op.mask);
  return out;
}

Status DecodeOp(std::string_view bytes, uint64_t seq, uint64_t* epoch,
                FilterOp* op, bool* has_mask) {
  ByteReader in(bytes);
  uint8_t version, kind;
  BLOOMROUTE_RETURN_IF_ERROR(in.ReadFixed8(&version, "filter op"));
  if (version != kOpVersion && version != kOpVersionNoMask) {
    return Status::Corruption("filter op has unknown version " +
                              std::to_string(version));
  }
  BLOOMROUTE_RETURN_IF_ERROR(in.ReadFixed64(epoch, "op epoch"));
  BLOOMROUTE_RETURN_IF_ERROR(in.ReadFixed8(&kind, "op kind"));
  BLOOMROUTE_RETURN_IF_ERROR(in.ReadFixed64(&op->hash.low, "op hash"));
  BLOOMROUTE_RETURN_IF_ERROR(in.ReadFixed64(&op->hash.high, "op hash"));
  BLOOMROUTE_RETURN_IF_ERROR(in.ReadFixed32(&op->stage, "op stage"));
  op->mask = 0;
  if (version == kOpVersion) {
    BLOOMROUTE_RETURN_IF_ERROR(in.ReadFixed64(&op->mask, "op mask"));
  }
  if (has_mask != nullptr) *has_mask = version == kOpVersion;
  BLOOMROUTE_RETURN_IF_ERROR(ExpectEnd(in, "filter op"));
  if (kind != static_cast<uint8_t>(FilterOp::Kind::kInsert) &&
      kind != static_cast<uint8_t>(FilterOp::Kind::kRemove)) {
    return Status::Corruption("filter op kind " + std::to_string(kind));
  }
  op->kind = static_cast<FilterOp::Kind>(kind);
  op->seq = seq;
  return Status::OK();
}

std::string EncodeValueRecord(const ValueRecord& v) {
  std::string out;
  PutFixed8(&out, kValueVersion);
  PutFixed64(&out, v.count);
  PutFixed32(&out, v.stage);
  return out;
}

Status DecodeValueRecord(std::string_view bytes, ValueRecord* v) {
  ByteReader in(bytes);
  BLOOMROUTE_RETURN_IF_ERROR(ReadVersion(&in, kValueVersion, "value record"));
  BLOOMROUTE_RETURN_IF_ERROR(in.ReadFixed64(&v->count, "value count"));
  BLOOMROUTE_RETURN_IF_ERROR(in.ReadFixed32(&v->stage, "value stage"));
  return ExpectEnd(in, "value record");
}

std::string EncodeCountJournalEntry(const std::vector<const std::string*>& keys,
                                    const std::vector<uint64_t>& counts) {
  std::string out;
  PutFixed8(&out, kCountJournalVersion);
  PutFixed32(&out, static_cast<uint32_t>(keys.size()));
  for (size_t i = 0; i < keys.size(); ++i) {
    PutLengthPrefixed(&out, *keys[i]);
    PutFixed64(&out, counts[i]);
  }
  return out;
}

Status DecodeCountJournalEntry(std::string_view bytes, CountChanges* changes) {
  ByteReader in(bytes);
  BLOOMROUTE_RETURN_IF_ERROR(
      ReadVersion(&in, kCountJournalVersion, "count journal entry"));
  uint32_t n;
  BLOOMROUTE_RETURN_IF_ERROR(in.ReadFixed32(&n, "count journal size"));
  for (uint32_t i = 0; i < n; ++i) {
    std::string_view key;
    uint64_t count;
    BLOOMROUTE_RETURN_IF_ERROR(in.ReadLengthPrefixed(&key, "journaled value"));
    BLOOMROUTE_RETURN_IF_ERROR(in.ReadFixed64(&count, "journaled count"));
    changes->emplace_back(std::string(key), count);
  }
  return ExpectEnd(in, "count journal entry");
}

std::string EncodeFilterMark(const FilterMark& m) {
  std::string out;
  PutFixed8(&out, kMarkVersion);
  PutFixed64(&out, m.epoch);
  PutFixed64(&out, m.seq);
  return out;
}

Status DecodeFilterMark(std::string_view bytes, FilterMark* m) {
  ByteReader in(bytes);
  BLOOMROUTE_RETURN_IF_ERROR(ReadVersion(&in, kMarkVersion, "filter mark"));
  BLOOMROUTE_RETURN_IF_ERROR(in.ReadFixed64(&m->epoch, "mark epoch"));
  BLOOMROUTE_RETURN_IF_ERROR(in.ReadFixed64(&m->seq, "mark seq"));
  return ExpectEnd(in, "filter mark");
}

std::string EncodeFilterConfig(const SscbfConfig& config) {
  std::string out;
  PutFixed8(&out, kConfigVersion);
  PutDouble(&out, config.target_fpr);
  PutDouble(&out, config.tightening_ratio);
  PutDouble(&out, config.growth_factor);
  PutFixed64(&out, config.initial_capacity);
  PutFixed32(&out, config.base_bits);
  PutDouble(&out, config.full_fill);
  return out;
}

StatusOr<SscbfConfig> DecodeFilterConfig(std::string_view bytes) {
  ByteReader in(bytes);
  SscbfConfig c;
  BLOOMROUTE_RETURN_IF_ERROR(ReadVersion(&in, kConfigVersion, "filter config"));
  BLOOMROUTE_RETURN_IF_ERROR(in.ReadDouble(&c.target_fpr, "config fpr"));
  BLOOMROUTE_RETURN_IF_ERROR(
      in.ReadDouble(&c.tightening_ratio, "config tightening ratio"));
  BLOOMROUTE_RETURN_IF_ERROR(
      in.ReadDouble(&c.growth_factor, "config growth factor"));
  BLOOMROUTE_RETURN_IF_ERROR(
      in.ReadFixed64(&c.initial_capacity, "config initial capacity"));
  BLOOMROUTE_RETURN_IF_ERROR(in.ReadFixed32(&c.base_bits, "config base bits"));
  BLOOMROUTE_RETURN_IF_ERROR(in.ReadDouble(&c.full_fill, "config full fill"));
  BLOOMROUTE_RETURN_IF_ERROR(ExpectEnd(in, "filter config"));
  const Status valid = c.Validate();
  if (!valid.ok()) {
    return Status::Corruption("filter config: " + valid.message());
  }
  return c;
}

std::string EncodeCoordinatorEpoch(uint64_t epoch) {
  std::string out;
  PutFixed8(&out, kCoordinatorEpochVersion);
  PutFixed64(&out, epoch);
  return out;
}

StatusOr<uint64_t> DecodeCoordinatorEpoch(std::string_view bytes) {
  ByteReader in(bytes);
  uint64_t epoch = 0;
  BLOOMROUTE_RETURN_IF_ERROR(
      ReadVersion(&in, kCoordinatorEpochVersion, "coordinator epoch"));
  BLOOMROUTE_RETURN_IF_ERROR(in.ReadFixed64(&epoch, "coordinator epoch"));
  BLOOMROUTE_RETURN_IF_ERROR(ExpectEnd(in, "coordinator epoch"));
  return epoch;
}

std::string EncodeCheckpoint(const Checkpoint& c) {
  std::string out;
  PutFixed8(&out, kCheckpointVersion);
  PutFixed64(&out, c.epoch);
  PutFixed64(&out, c.seq);
  out.append(c.filter);
  return out;
}

StatusOr<Checkpoint> DecodeCheckpoint(std::string_view bytes) {
  ByteReader in(bytes);
  Checkpoint c;
  BLOOMROUTE_RETURN_IF_ERROR(
      ReadVersion(&in, kCheckpointVersion, "checkpoint"));
  BLOOMROUTE_RETURN_IF_ERROR(in.ReadFixed64(&c.epoch, "checkpoint epoch"));
  BLOOMROUTE_RETURN_IF_ERROR(in.ReadFixed64(&c.seq, "checkpoint seq"));
  std::string_view rest;
  BLOOMROUTE_RETURN_IF_ERROR(in.ReadBytes(in.remaining(), &rest, "filter"));
  c.filter = rest;
  return c;
}

}  // namespace bloomroute::regionstore_internal
