#include "regionstore/internal/bulk_table_check.h"

#include <functional>
#include <string>
#include <vector>

#include "common/coding.h"
#include "model/rows.h"

namespace bloomroute::regionstore_internal {
namespace {

// RocksDB's block-based table constants (table/format.h).
constexpr uint64_t kBlockBasedTableMagic = 0x88e241b785f4cff7ull;
constexpr size_t kFooterBytes =
    1 + 40 + 4 + 8;                       // type, handles, version, magic
constexpr size_t kBlockTrailerBytes = 5;  // compression type, checksum
constexpr uint8_t kCrc32c = 1;
constexpr uint8_t kNoCompression = 0;
constexpr uint32_t kHashIndexBit = 1u << 31;  // data block footer
constexpr const char* kPropertiesBlock = "rocksdb.properties";
constexpr const char* kIndexTypeProperty =
    "rocksdb.block.based.table.index.type";

using Handle = BulkTableBlock;

Status Bad(const std::string& what) {
  return Status::Corruption("bulk file table: " + what);
}

bool GetVarint(std::string_view* in, uint64_t* v, int max_bytes) {
  *v = 0;
  for (int shift = 0, i = 0; i < max_bytes && !in->empty(); ++i, shift += 7) {
    const uint8_t b = static_cast<uint8_t>(in->front());
    in->remove_prefix(1);
    *v |= static_cast<uint64_t>(b & 0x7f) << shift;
    if ((b & 0x80) == 0) return true;
  }
  return false;
}

bool GetHandle(std::string_view* in, Handle* h) {
  return GetVarint(in, &h->offset, 10) && GetVarint(in, &h->size, 10);
}

class TableCheck {
 public:
  TableCheck(std::string_view sst, std::vector<BulkTableBlock>* blocks)
      : sst_(sst), blocks_(blocks) {}

  Status Run() {
    if (sst_.size() < kFooterBytes) return Bad("shorter than its footer");
    end_ = sst_.size() - kFooterBytes;
    std::string_view footer = sst_.substr(end_);
    if (DecodeFixed64(footer.data() + kFooterBytes - 8) !=
        kBlockBasedTableMagic) {
      return Bad("no block-based table magic number");
    }
    const uint32_t version = DecodeFixed32(footer.data() + kFooterBytes - 12);
    if (version != kBulkTableFormatVersion) {
      return Bad("table format_version " + std::to_string(version));
    }
    if (static_cast<uint8_t>(footer[0]) != kCrc32c) {
      return Bad("block checksums are not CRC32c");
    }
    std::string_view handles = footer.substr(1, 40);
    Handle metaindex, index;
    if (!GetHandle(&handles, &metaindex) || !GetHandle(&handles, &index)) {
      return Bad("footer handles do not decode");
    }
    for (char c : handles) {
      if (c != 0) return Bad("footer padding is not zero");
    }
    Handle properties;
    BLOOMROUTE_RETURN_IF_ERROR(CheckMetaindex(metaindex, &properties));
    BLOOMROUTE_RETURN_IF_ERROR(CheckProperties(properties));
    return CheckIndex(index, std::min(metaindex.offset, properties.offset));
  }

 private:
  using EntryFn =
      std::function<Status(std::string_view key, std::string_view value)>;

  // The block's contents after checking its bounds and trailer.
  Status BlockAt(const Handle& h, uint64_t limit, std::string_view* block) {
    if (h.offset > limit || h.size > limit - h.offset ||
        kBlockTrailerBytes > limit - h.offset - h.size) {
      return Bad("block at " + std::to_string(h.offset) + " of " +
                 std::to_string(h.size) + " bytes is outside the table");
    }
    if (static_cast<uint8_t>(sst_[h.offset + h.size]) != kNoCompression) {
      return Bad("block at " + std::to_string(h.offset) + " is compressed");
    }
    *block = sst_.substr(h.offset, h.size);
    if (blocks_ != nullptr) blocks_->push_back(h);
    return Status::OK();
  }

  // Walks a block's entries (keys rebuilt from their shared prefixes).
  Status ForEachEntry(std::string_view block, bool data, size_t max_key,
                      const EntryFn& fn) {
    if (block.size() < 4) return Bad("block without a restart count");
    const uint32_t restarts = DecodeFixed32(block.data() + block.size() - 4);
    if ((restarts & kHashIndexBit) != 0) {
      return Bad(data ? "data block with a hash index"
                      : "restart count out of range");
    }
    if (restarts == 0 || restarts > (block.size() - 4) / 4) {
      return Bad("restart count out of range");
    }
    const size_t entries_end = block.size() - 4 - 4 * size_t{restarts};
    if (entries_end == 0) return Bad("empty block");
    const char* restart_array = block.data() + entries_end;
    uint32_t restart = 0;  // the next restart point to meet
    std::string_view in = block.substr(0, entries_end);
    std::string key;
    while (!in.empty()) {
      // Each restart point must be where an entry with a whole key starts,
      // in order: RocksDB seeks to them and parses from there.
      const size_t at = entries_end - in.size();
      const bool is_restart =
          restart < restarts &&
          DecodeFixed32(restart_array + 4 * size_t{restart}) == at;
      if (at == 0 && !is_restart) return Bad("first restart point is not 0");
      uint64_t shared, unshared, value_size;
      if (!GetVarint(&in, &shared, 5) || !GetVarint(&in, &unshared, 5) ||
          !GetVarint(&in, &value_size, 5) || shared > key.size() ||
          (is_restart && shared != 0) || unshared > in.size() ||
          value_size > in.size() - unshared || shared + unshared > max_key) {
        return Bad("block entry out of bounds");
      }
      restart += is_restart ? 1 : 0;
      key.resize(shared);
      key.append(in.substr(0, unshared));
      const std::string_view value = in.substr(unshared, value_size);
      in.remove_prefix(unshared + value_size);
      if (fn) BLOOMROUTE_RETURN_IF_ERROR(fn(key, value));
    }
    if (restart != restarts) return Bad("restart points off the entries");
    return Status::OK();
  }

  // A data entry's internal key: a row key after the previous one, then
  // sequence number 0 and the type of a put (SstFileWriter writes nothing
  // else; RocksDB asserts both the order and the sequence number).
  Status CheckEntry(std::string_view key) {
    constexpr uint64_t kPutOfSequenceZero = 1;  // (seqno << 8) | kTypeValue
    if (key.size() < 9 ||
        DecodeFixed64(key.data() + key.size() - 8) != kPutOfSequenceZero) {
      return Bad("data entry is not a put of sequence 0");
    }
    const std::string_view user_key = key.substr(0, key.size() - 8);
    if (rows_ > 0 && user_key <= last_key_) return Bad("keys out of order");
    last_key_.assign(user_key);
    ++rows_;
    return Status::OK();
  }

  Status CheckMetaindex(const Handle& h, Handle* properties) {
    std::string_view block;
    BLOOMROUTE_RETURN_IF_ERROR(BlockAt(h, end_, &block));
    bool found = false;
    BLOOMROUTE_RETURN_IF_ERROR(ForEachEntry(
        block, false, 256, [&](std::string_view key, std::string_view value) {
          if (key != kPropertiesBlock) {
            return Bad("unexpected meta block '" + std::string(key) + "'");
          }
          if (!GetHandle(&value, properties) || !value.empty()) {
            return Bad("metaindex handle does not decode");
          }
          found = true;
          return Status::OK();
        }));
    if (!found) return Bad("no properties block");
    if (properties->offset + properties->size > h.offset) {
      return Bad("properties block overlaps the metaindex");
    }
    return Status::OK();
  }

  Status CheckProperties(const Handle& h) {
    std::string_view block;
    BLOOMROUTE_RETURN_IF_ERROR(BlockAt(h, end_, &block));
    bool binary_search = false;
    BLOOMROUTE_RETURN_IF_ERROR(ForEachEntry(
        block, false, 1024, [&](std::string_view key, std::string_view value) {
          if (key == kIndexTypeProperty) {
            binary_search =
                value.size() == 4 && DecodeFixed32(value.data()) == 0;
          }
          return Status::OK();
        }));
    if (!binary_search) return Bad("index is not a binary-search index");
    return Status::OK();
  }

  // Every data block, before `data_end` (where the meta blocks start).
  Status CheckIndex(const Handle& h, uint64_t data_end) {
    std::string_view block;
    BLOOMROUTE_RETURN_IF_ERROR(BlockAt(h, end_, &block));
    uint64_t next = 0;  // data blocks are contiguous from the start
    std::string last_separator;
    BLOOMROUTE_RETURN_IF_ERROR(ForEachEntry(
        block, false, kMaxRowKeyBytes + 8,
        [&](std::string_view key, std::string_view value) {
          // Separators ascend, as the data blocks they bound.
          if (key.size() < 8) return Bad("index key too short");
          const std::string_view user_key = key.substr(0, key.size() - 8);
          if (next > 0 && user_key <= last_separator) {
            return Bad("index keys out of order");
          }
          last_separator.assign(user_key);
          Handle data;
          if (!GetHandle(&value, &data) || !value.empty()) {
            return Bad("index handle does not decode");
          }
          if (data.offset != next) return Bad("data blocks out of order");
          std::string_view contents;
          BLOOMROUTE_RETURN_IF_ERROR(BlockAt(data, data_end, &contents));
          next = data.offset + data.size + kBlockTrailerBytes;
          return ForEachEntry(contents, true, kMaxRowKeyBytes + 8,
                              [this](std::string_view k, std::string_view) {
                                return CheckEntry(k);
                              });
        }));
    if (next == 0) return Bad("no data block");
    return Status::OK();
  }

  const std::string_view sst_;
  std::vector<BulkTableBlock>* const blocks_;
  uint64_t end_ = 0;
  std::string last_key_;  // of the data entries so far
  uint64_t rows_ = 0;     // where the footer starts
};

}  // namespace

Status CheckBulkTable(std::string_view sst,
                      std::vector<BulkTableBlock>* blocks) {
  return TableCheck(sst, blocks).Run();
}

}  // namespace bloomroute::regionstore_internal
