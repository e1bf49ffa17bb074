// The envelope of every serialized filter: magic, kind, version, length,
// checksum.
//
//   offset 0   "BRIX"                 magic
//          4   kind      : fixed8     which structure the payload holds
//          5   version   : fixed8     payload format version of that kind
//          6   reserved  : fixed16    zero
//          8   length    : fixed64    payload bytes
//         16   payload
//   16+length  checksum  : fixed64    XXH3-64 of every byte before it
//
// OpenFrame accepts exactly one frame: a wrong magic, kind, version or length,
// trailing bytes, or a checksum mismatch are Corruption. The payload length is
// checked against the input before anything is read, so no caller ever sizes an
// allocation from an unchecked length.
#ifndef BLOOMROUTE_INDEX_INTERNAL_FRAME_H_
#define BLOOMROUTE_INDEX_INTERNAL_FRAME_H_

#include <cstdint>
#include <string>
#include <string_view>

#include "common/coding.h"
#include "common/statusor.h"

namespace bloomroute::internal {

enum class FrameKind : uint8_t {
  kDdcfCounterVector = 1,
  kSplitCountingBloomFilter = 2,
  kScalableSplitCountingBloomFilter = 3,
  kOccupancyImage = 4,
};

inline constexpr size_t kFrameHeaderBytes = 16;
inline constexpr size_t kFrameTrailerBytes = 8;

// Appends a frame header to `dst` and returns the offset at which it starts;
// the caller then appends the payload and calls FinishFrame with that offset.
size_t StartFrame(FrameKind kind, uint8_t version, std::string* dst);
// Patches the payload length of the frame started at `start` and appends the
// checksum.
void FinishFrame(size_t start, std::string* dst);

// Validates a whole frame of the given kind whose version is in
// [1, max_version], and returns its payload and version.
[[nodiscard]] Status OpenFrame(std::string_view bytes, FrameKind kind,
                               uint8_t max_version, std::string_view* payload,
                               uint8_t* version);

// One frame holding `value`, for any T with `void EncodeTo(std::string*)
// const`.
template <typename T>
std::string EncodeFramed(FrameKind kind, uint8_t version, const T& value) {
  std::string out;
  const size_t start = StartFrame(kind, version, &out);
  value.EncodeTo(&out);
  FinishFrame(start, &out);
  return out;
}

// Opens one frame of `kind` (version <= max_version) and decodes its payload
// with `static StatusOr<T> T::DecodeFrom(ByteReader*)`, which must consume all
// of it. Corruption names `what` when bytes are left over.
template <typename T>
StatusOr<T> DecodeFramed(std::string_view bytes, FrameKind kind,
                         uint8_t max_version, const char* what) {
  std::string_view payload;
  uint8_t version;
  BLOOMROUTE_RETURN_IF_ERROR(
      OpenFrame(bytes, kind, max_version, &payload, &version));
  ByteReader in(payload);
  BLOOMROUTE_ASSIGN_OR_RETURN(T value, T::DecodeFrom(&in));
  if (!in.empty()) {
    return Status::Corruption(std::string("trailing bytes after ") + what);
  }
  return value;
}

}  // namespace bloomroute::internal

#endif  // BLOOMROUTE_INDEX_INTERNAL_FRAME_H_
