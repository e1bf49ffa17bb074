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

#include "common/statusor.h"

namespace bloomroute::internal {

enum class FrameKind : uint8_t {
  kDdcfCounterVector = 1,
  kSplitCountingBloomFilter = 2,
  kScalableSplitCountingBloomFilter = 3,
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

}  // namespace bloomroute::internal

#endif  // BLOOMROUTE_INDEX_INTERNAL_FRAME_H_
