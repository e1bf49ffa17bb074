// HBase's TColumnFamilyDescriptor both ways (hbase_conversion.h): a family
// of createTable to the settings a table keeps (model/table_attributes.h,
// FamilySettings), and a kept family back as getTableDescriptor answers it.
#include <initializer_list>
#include <utility>

#include "thrift/conversion/hbase_conversion.h"
#include "thrift/internal/checked_conversion.h"

namespace bloomroute::thrift_internal {
namespace {

namespace client = rpc::client;

// The storage settings kept, by their field name in the IDL.
constexpr char kBlockSize[] = "blockSize";
constexpr char kBloomFilterType[] = "bloomnFilterType";  // HBase's spelling
constexpr char kCompressionType[] = "compressionType";
constexpr char kDfsReplication[] = "dfsReplication";
constexpr char kDataBlockEncoding[] = "dataBlockEncoding";
constexpr char kScope[] = "scope";
constexpr char kBlockCacheEnabled[] = "blockCacheEnabled";
constexpr char kCacheBloomsOnWrite[] = "cacheBloomsOnWrite";
constexpr char kCacheDataOnWrite[] = "cacheDataOnWrite";
constexpr char kCacheIndexesOnWrite[] = "cacheIndexesOnWrite";
constexpr char kCompressTags[] = "compressTags";
constexpr char kEvictBlocksOnClose[] = "evictBlocksOnClose";
constexpr char kInMemory[] = "inMemory";

// HBase 2.x's defaults (ColumnFamilyDescriptorBuilder's DEFAULT_* constants):
// DEFAULT_BLOCKSIZE is HConstants.DEFAULT_BLOCKSIZE (64 KiB),
// DEFAULT_REPLICATION_SCOPE HConstants.REPLICATION_SCOPE_LOCAL (0),
// DEFAULT_TTL HConstants.FOREVER (Integer.MAX_VALUE), DEFAULT_DFS_REPLICATION
// 0 (the file system's), DEFAULT_BLOCKCACHE and DEFAULT_COMPRESS_TAGS true;
// the other flags false. Those that change answers (versions, TTL, keeping
// deleted cells) are bloomroute's own behaviour and must be given as these.
constexpr int32_t kDefaultBlockSize = 64 << 10;
constexpr int32_t kForeverTtl = 2147483647;
constexpr int32_t kDefaultMaxVersions = 1;
constexpr int32_t kDefaultMinVersions = 0;

Status Refused(const std::string& field, const std::string& why) {
  return Status::InvalidArgument(field + ": " + why + " is not supported");
}

// An i32 on the wire that must be one of `values` of enum `type`.
Status CheckEnum(int32_t value, std::initializer_list<int32_t> values,
                 const std::string& field, const char* type) {
  for (int32_t v : values) {
    if (v == value) return Status::OK();
  }
  return Status::InvalidArgument(field + " " + std::to_string(value) +
                                 " is not a " + type);
}

Status CheckAtLeast(int64_t value, int64_t min, const std::string& field) {
  if (value >= min) return Status::OK();
  return Status::InvalidArgument(
      field + " " + std::to_string(value) +
      (min == 0 ? " is negative" : " is not positive"));
}

// The settings that would change answers: HBase's defaults only
// (bloomroute keeps one version of a cell, forever).
Status CheckAnswerSettings(const client::TColumnFamilyDescriptor& in,
                           const std::string& f) {
  if (in.__isset.maxVersions && in.maxVersions != kDefaultMaxVersions) {
    return Refused(f + ".maxVersions " + std::to_string(in.maxVersions),
                   "more than one version per cell");
  }
  if (in.__isset.minVersions && in.minVersions != kDefaultMinVersions) {
    return Refused(f + ".minVersions " + std::to_string(in.minVersions),
                   "a minimum number of versions");
  }
  if (in.__isset.timeToLive && in.timeToLive != kForeverTtl) {
    return Refused(f + ".timeToLive " + std::to_string(in.timeToLive),
                   "a cell time-to-live");
  }
  if (in.__isset.keepDeletedCells &&
      in.keepDeletedCells != client::TKeepDeletedCells::FALSE) {
    return Refused(
        f + ".keepDeletedCells " + std::to_string(in.keepDeletedCells),
        "keeping deleted cells");
  }
  return Status::OK();
}

// The numeric storage settings, checked, into `out`.
Status NumericSettingsFromThrift(const client::TColumnFamilyDescriptor& in,
                                 const std::string& f,
                                 std::map<std::string, int64_t>* out) {
  const auto& is = in.__isset;
  if (is.blockSize) {
    BLOOMROUTE_RETURN_IF_ERROR(CheckAtLeast(in.blockSize, 1, f + ".blockSize"));
    (*out)[kBlockSize] = in.blockSize;
  }
  if (is.bloomnFilterType) {
    BLOOMROUTE_RETURN_IF_ERROR(CheckEnum(in.bloomnFilterType, {0, 1, 2, 3},
                                         f + ".bloomnFilterType",
                                         "TBloomFilterType"));
    (*out)[kBloomFilterType] = in.bloomnFilterType;
  }
  if (is.compressionType) {
    BLOOMROUTE_RETURN_IF_ERROR(
        CheckEnum(in.compressionType, {0, 1, 2, 3, 4, 5, 6},
                  f + ".compressionType", "TCompressionAlgorithm"));
    (*out)[kCompressionType] = in.compressionType;
  }
  if (is.dfsReplication) {
    BLOOMROUTE_RETURN_IF_ERROR(
        CheckAtLeast(in.dfsReplication, 0, f + ".dfsReplication"));
    (*out)[kDfsReplication] = in.dfsReplication;
  }
  if (is.dataBlockEncoding) {
    BLOOMROUTE_RETURN_IF_ERROR(CheckEnum(in.dataBlockEncoding, {0, 2, 3, 4, 7},
                                         f + ".dataBlockEncoding",
                                         "TDataBlockEncoding"));
    (*out)[kDataBlockEncoding] = in.dataBlockEncoding;
  }
  if (is.scope) {
    BLOOMROUTE_RETURN_IF_ERROR(CheckAtLeast(in.scope, 0, f + ".scope"));
    (*out)[kScope] = in.scope;
  }
  return Status::OK();
}

// The flags, as 0 or 1, into `out`.
void FlagsFromThrift(const client::TColumnFamilyDescriptor& in,
                     std::map<std::string, int64_t>* out) {
  const auto& is = in.__isset;
  const std::pair<bool, std::pair<const char*, bool>> flags[] = {
      {is.blockCacheEnabled, {kBlockCacheEnabled, in.blockCacheEnabled}},
      {is.cacheBloomsOnWrite, {kCacheBloomsOnWrite, in.cacheBloomsOnWrite}},
      {is.cacheDataOnWrite, {kCacheDataOnWrite, in.cacheDataOnWrite}},
      {is.cacheIndexesOnWrite, {kCacheIndexesOnWrite, in.cacheIndexesOnWrite}},
      {is.compressTags, {kCompressTags, in.compressTags}},
      {is.evictBlocksOnClose, {kEvictBlocksOnClose, in.evictBlocksOnClose}},
      {is.inMemory, {kInMemory, in.inMemory}},
  };
  for (const auto& [isset, flag] : flags) {
    if (isset) (*out)[flag.first] = flag.second ? 1 : 0;
  }
}

}  // namespace

Status FamilyFromThrift(const client::TColumnFamilyDescriptor& in,
                        const std::string& f, FamilySettings* out) {
  BLOOMROUTE_RETURN_IF_ERROR(
      Require(in.__isset.name, kBadRequest, f + ".name"));
  BLOOMROUTE_RETURN_IF_ERROR(CheckAnswerSettings(in, f));
  *out = FamilySettings();
  BLOOMROUTE_RETURN_IF_ERROR(NumericSettingsFromThrift(in, f, &out->settings));
  FlagsFromThrift(in, &out->settings);
  out->attributes = in.attributes;
  out->configuration = in.configuration;
  return Status::OK();
}

client::TColumnFamilyDescriptor FamilyToThrift(const std::string& name,
                                               const FamilySettings& in) {
  // A kept value fits its field: FamilyFromThrift kept it from that field.
  auto get = [&in](const char* setting, int64_t hbase_default) {
    auto it = in.settings.find(setting);
    return it == in.settings.end() ? hbase_default : it->second;
  };
  client::TColumnFamilyDescriptor out;
  out.__set_name(name);
  out.__set_attributes(in.attributes);
  out.__set_configuration(in.configuration);
  out.__set_blockSize(static_cast<int32_t>(get(kBlockSize, kDefaultBlockSize)));
  out.__set_bloomnFilterType(static_cast<int32_t>(
      get(kBloomFilterType, client::TBloomFilterType::ROW)));
  out.__set_compressionType(static_cast<int32_t>(
      get(kCompressionType, client::TCompressionAlgorithm::NONE)));
  out.__set_dfsReplication(static_cast<int16_t>(get(kDfsReplication, 0)));
  out.__set_dataBlockEncoding(static_cast<int32_t>(
      get(kDataBlockEncoding, client::TDataBlockEncoding::NONE)));
  out.__set_keepDeletedCells(client::TKeepDeletedCells::FALSE);
  out.__set_maxVersions(kDefaultMaxVersions);
  out.__set_minVersions(kDefaultMinVersions);
  out.__set_scope(static_cast<int32_t>(get(kScope, 0)));
  out.__set_timeToLive(kForeverTtl);
  out.__set_blockCacheEnabled(get(kBlockCacheEnabled, 1) != 0);
  out.__set_cacheBloomsOnWrite(get(kCacheBloomsOnWrite, 0) != 0);
  out.__set_cacheDataOnWrite(get(kCacheDataOnWrite, 0) != 0);
  out.__set_cacheIndexesOnWrite(get(kCacheIndexesOnWrite, 0) != 0);
  out.__set_compressTags(get(kCompressTags, 1) != 0);
  out.__set_evictBlocksOnClose(get(kEvictBlocksOnClose, 0) != 0);
  out.__set_inMemory(get(kInMemory, 0) != 0);
  return out;
}

}  // namespace bloomroute::thrift_internal
