#include "index/internal/frame.h"

#include <gtest/gtest.h>

namespace bloomroute::internal {
namespace {

std::string Framed(std::string_view payload, FrameKind kind, uint8_t version) {
  std::string out = "prefix";  // frames may be appended to existing bytes
  size_t start = StartFrame(kind, version, &out);
  out += payload;
  FinishFrame(start, &out);
  return out.substr(6);
}

TEST(FrameTest, OpensWhatWasFramed) {
  const std::string f = Framed("hello", FrameKind::kDdcfCounterVector, 1);
  EXPECT_EQ(f.size(), kFrameHeaderBytes + 5 + kFrameTrailerBytes);
  std::string_view payload;
  uint8_t version = 0;
  ASSERT_TRUE(
      OpenFrame(f, FrameKind::kDdcfCounterVector, 1, &payload, &version).ok());
  EXPECT_EQ(payload, "hello");
  EXPECT_EQ(version, 1);
}

TEST(FrameTest, RejectsWrongKindVersionAndLength) {
  std::string_view payload;
  uint8_t version;
  const std::string f = Framed("x", FrameKind::kSplitCountingBloomFilter, 2);
  EXPECT_TRUE(OpenFrame(f, FrameKind::kDdcfCounterVector, 2, &payload, &version)
                  .IsCorruption());
  EXPECT_TRUE(
      OpenFrame(f, FrameKind::kSplitCountingBloomFilter, 1, &payload, &version)
          .IsCorruption());
  EXPECT_TRUE(OpenFrame(Framed("x", FrameKind::kDdcfCounterVector, 0),
                        FrameKind::kDdcfCounterVector, 1, &payload, &version)
                  .IsCorruption());
  EXPECT_TRUE(OpenFrame(f + "!", FrameKind::kSplitCountingBloomFilter, 2,
                        &payload, &version)
                  .IsCorruption());
  EXPECT_TRUE(
      OpenFrame("", FrameKind::kDdcfCounterVector, 1, &payload, &version)
          .IsCorruption());
  std::string bad_magic = f;
  bad_magic[0] = 'X';
  EXPECT_TRUE(OpenFrame(bad_magic, FrameKind::kSplitCountingBloomFilter, 2,
                        &payload, &version)
                  .IsCorruption());
}

}  // namespace
}  // namespace bloomroute::internal
