#include "common/coding.h"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>

namespace bloomroute {
namespace {

TEST(CodingTest, FixedWidthIsLittleEndian) {
  std::string buf;
  PutFixed32(&buf, 0x04030201u);
  PutFixed64(&buf, 0x0807060504030201ull);
  ASSERT_EQ(buf.size(), 12u);
  EXPECT_EQ(buf.substr(0, 4), std::string("\x01\x02\x03\x04", 4));
  EXPECT_EQ(buf.substr(4), std::string("\x01\x02\x03\x04\x05\x06\x07\x08", 8));
  EXPECT_EQ(DecodeFixed32(buf.data()), 0x04030201u);
  EXPECT_EQ(DecodeFixed64(buf.data() + 4), 0x0807060504030201ull);
}

TEST(CodingTest, RoundTripsEveryFieldType) {
  std::string buf;
  PutFixed8(&buf, 0xfe);
  PutFixed32(&buf, UINT32_MAX);
  PutFixed64(&buf, UINT64_MAX - 1);
  PutDouble(&buf, -0.125);
  PutDouble(&buf, std::numeric_limits<double>::infinity());
  buf += "tail";

  ByteReader in(buf);
  uint8_t a;
  uint32_t b;
  uint64_t c;
  double d, e;
  std::string_view tail;
  ASSERT_TRUE(in.ReadFixed8(&a, "a").ok());
  ASSERT_TRUE(in.ReadFixed32(&b, "b").ok());
  ASSERT_TRUE(in.ReadFixed64(&c, "c").ok());
  ASSERT_TRUE(in.ReadDouble(&d, "d").ok());
  ASSERT_TRUE(in.ReadDouble(&e, "e").ok());
  ASSERT_TRUE(in.ReadBytes(4, &tail, "tail").ok());
  EXPECT_EQ(a, 0xfe);
  EXPECT_EQ(b, UINT32_MAX);
  EXPECT_EQ(c, UINT64_MAX - 1);
  EXPECT_EQ(d, -0.125);
  EXPECT_TRUE(std::isinf(e));
  EXPECT_EQ(tail, "tail");
  EXPECT_TRUE(in.empty());
}

TEST(CodingTest, TruncationIsCorruptionAndConsumesNothing) {
  std::string buf = "abc";
  ByteReader in(buf);
  uint32_t v = 7;
  Status s = in.ReadFixed32(&v, "slice length");
  EXPECT_TRUE(s.IsCorruption());
  EXPECT_NE(s.message().find("slice length"), std::string::npos);
  EXPECT_EQ(v, 7u);
  EXPECT_EQ(in.remaining(), 3u);
  std::string_view out;
  EXPECT_TRUE(in.ReadBytes(4, &out, "bytes").IsCorruption());
  uint64_t w;
  EXPECT_TRUE(in.ReadFixed64(&w, "w").IsCorruption());
  EXPECT_TRUE(in.ReadBytes(3, &out, "bytes").ok());
  uint8_t b;
  EXPECT_TRUE(in.ReadFixed8(&b, "b").IsCorruption());
}

}  // namespace
}  // namespace bloomroute

namespace bloomroute {
namespace {

TEST(CodingTest, LengthPrefixedRoundTripsAndRejectsOverlongLength) {
  std::string buf;
  PutLengthPrefixed(&buf, std::string("a\0b", 3));
  PutLengthPrefixed(&buf, "");
  ByteReader in(buf);
  std::string_view a, b;
  ASSERT_TRUE(in.ReadLengthPrefixed(&a, "a").ok());
  ASSERT_TRUE(in.ReadLengthPrefixed(&b, "b").ok());
  EXPECT_EQ(a, std::string_view("a\0b", 3));
  EXPECT_TRUE(b.empty());
  EXPECT_TRUE(in.empty());

  std::string lying;
  PutFixed32(&lying, 1000);  // claims 1000 bytes, has 2
  lying += "xy";
  ByteReader bad(lying);
  std::string_view out;
  Status s = bad.ReadLengthPrefixed(&out, "value");
  EXPECT_TRUE(s.IsCorruption()) << s.ToString();
  EXPECT_NE(s.message().find("value"), std::string::npos);
}

TEST(CodingTest, BigEndianFollowsNumericOrder) {
  std::string a, b;
  PutBigEndian64(&a, 255);
  PutBigEndian64(&b, 256);
  EXPECT_LT(a, b);
  EXPECT_EQ(DecodeBigEndian(b.data(), 8), 256u);
  std::string c;
  PutBigEndian32(&c, 0x01020304u);
  EXPECT_EQ(c, std::string("\x01\x02\x03\x04", 4));
  EXPECT_EQ(DecodeBigEndian(c.data(), 4), 0x01020304u);
}

}  // namespace
}  // namespace bloomroute
