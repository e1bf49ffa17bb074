#include "index/internal/frame.h"

#include <xxhash.h>

#include "common/coding.h"

namespace bloomroute::internal {

namespace {
constexpr char kMagic[4] = {'B', 'R', 'I', 'X'};
}  // namespace

size_t StartFrame(FrameKind kind, uint8_t version, std::string* dst) {
  const size_t start = dst->size();
  dst->append(kMagic, sizeof(kMagic));
  PutFixed8(dst, static_cast<uint8_t>(kind));
  PutFixed8(dst, version);
  PutFixed8(dst, 0);
  PutFixed8(dst, 0);
  PutFixed64(dst, 0);  // payload length, patched by FinishFrame
  return start;
}

void FinishFrame(size_t start, std::string* dst) {
  const uint64_t length = dst->size() - start - kFrameHeaderBytes;
  EncodeFixed64(&(*dst)[start + 8], length);
  const uint64_t checksum =
      XXH3_64bits(dst->data() + start, dst->size() - start);
  PutFixed64(dst, checksum);
}

Status OpenFrame(std::string_view bytes, FrameKind kind, uint8_t max_version,
                 std::string_view* payload, uint8_t* version) {
  if (bytes.size() < kFrameHeaderBytes + kFrameTrailerBytes) {
    return Status::Corruption(
        "filter frame truncated: " + std::to_string(bytes.size()) + " bytes");
  }
  if (bytes.substr(0, 4) != std::string_view(kMagic, sizeof(kMagic))) {
    return Status::Corruption("not a bloomroute filter frame (bad magic)");
  }
  const uint64_t length = DecodeFixed64(bytes.data() + 8);
  if (length != bytes.size() - kFrameHeaderBytes - kFrameTrailerBytes) {
    return Status::Corruption("filter frame length " + std::to_string(length) +
                              " does not match " +
                              std::to_string(bytes.size()) + " bytes of input");
  }
  const uint64_t stored = DecodeFixed64(bytes.data() + bytes.size() - 8);
  if (XXH3_64bits(bytes.data(), bytes.size() - 8) != stored) {
    return Status::Corruption("filter frame checksum mismatch");
  }
  const auto got_kind = static_cast<uint8_t>(bytes[4]);
  if (got_kind != static_cast<uint8_t>(kind)) {
    return Status::Corruption("filter frame holds kind " +
                              std::to_string(got_kind) + ", expected " +
                              std::to_string(static_cast<int>(kind)));
  }
  const auto got_version = static_cast<uint8_t>(bytes[5]);
  if (got_version == 0 || got_version > max_version) {
    return Status::Corruption("unsupported filter format version " +
                              std::to_string(got_version));
  }
  if (bytes[6] != 0 || bytes[7] != 0) {
    return Status::Corruption("filter frame reserved bytes are not zero");
  }
  *payload = bytes.substr(kFrameHeaderBytes, length);
  *version = got_version;
  return Status::OK();
}

}  // namespace bloomroute::internal
