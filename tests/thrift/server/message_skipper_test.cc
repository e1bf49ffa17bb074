// MessageSkipper over messages Thrift's own protocols write (binary strict
// and not, compact), split at every byte, and over bytes that are no
// message.
#include "thrift/server/internal/message_skipper.h"

#include <gtest/gtest.h>
#include <thrift/protocol/TBinaryProtocol.h>
#include <thrift/protocol/TCompactProtocol.h>
#include <thrift/transport/TBufferTransports.h>

#include <memory>
#include <string>

#include "thrift/gen-cpp/hbase_service_types.h"

namespace bloomroute::thrift_internal {
namespace {

namespace at = apache::thrift;
using at::protocol::TProtocol;
using Result = MessageSkipper::Result;

enum class Encoding { kBinary, kNonStrictBinary, kCompact };

std::shared_ptr<TProtocol> MakeProtocol(
    Encoding encoding, std::shared_ptr<at::transport::TTransport> buffer) {
  if (encoding == Encoding::kCompact) {
    return std::make_shared<at::protocol::TCompactProtocol>(buffer);
  }
  return std::make_shared<at::protocol::TBinaryProtocol>(
      buffer, 0, 0, false, encoding == Encoding::kBinary);
}

// Every kind of value: a generated struct with lists, a map and strings,
// booleans as fields and in a list, a double, a set, nested containers, an
// empty map, and field ids that compact cannot write as a delta.
void WriteEveryKind(TProtocol* out) {
  rpc::client::TPut put;
  put.__set_row("row");
  rpc::client::TColumnValue cell;
  cell.__set_family("d");
  cell.__set_qualifier("q");
  cell.__set_value(std::string(300, 'v'));  // a length of two varint bytes
  cell.__set_timestamp(-5);
  put.__set_columnValues({cell, cell});
  put.__set_attributes({{"a", "b"}, {"c", ""}});
  out->writeStructBegin("args");
  out->writeFieldBegin("put", at::protocol::T_STRUCT, 1);
  put.write(out);
  out->writeFieldEnd();
  out->writeFieldBegin("t", at::protocol::T_BOOL, 2);
  out->writeBool(true);
  out->writeFieldEnd();
  out->writeFieldBegin("f", at::protocol::T_BOOL, 3);
  out->writeBool(false);
  out->writeFieldEnd();
  out->writeFieldBegin("d", at::protocol::T_DOUBLE, 4);
  out->writeDouble(2.5);
  out->writeFieldEnd();
  out->writeFieldBegin("s", at::protocol::T_SET, 5);
  out->writeSetBegin(at::protocol::T_I16, 2);
  out->writeI16(1);
  out->writeI16(-300);
  out->writeSetEnd();
  out->writeFieldEnd();
  out->writeFieldBegin("bools", at::protocol::T_LIST, 6);
  out->writeListBegin(at::protocol::T_BOOL, 20);  // long form in compact
  for (int i = 0; i < 20; ++i) out->writeBool(i % 3 == 0);
  out->writeListEnd();
  out->writeFieldEnd();
  out->writeFieldBegin("nested", at::protocol::T_MAP, 40);
  out->writeMapBegin(at::protocol::T_I32, at::protocol::T_LIST, 1);
  out->writeI32(7);
  out->writeListBegin(at::protocol::T_STRING, 2);
  out->writeString("x");
  out->writeString("");
  out->writeListEnd();
  out->writeMapEnd();
  out->writeFieldEnd();
  out->writeFieldBegin("empty", at::protocol::T_MAP, 8);
  out->writeMapBegin(at::protocol::T_STRING, at::protocol::T_I64, 0);
  out->writeMapEnd();
  out->writeFieldEnd();
  out->writeFieldBegin("big", at::protocol::T_I64, 1000);
  out->writeI64(int64_t{1} << 40);
  out->writeFieldEnd();
  out->writeFieldStop();
  out->writeStructEnd();
}

std::string Message(Encoding encoding, int32_t seqid) {
  auto buffer = std::make_shared<at::transport::TMemoryBuffer>();
  auto out = MakeProtocol(encoding, buffer);
  out->writeMessageBegin("put", at::protocol::T_CALL, seqid);
  WriteEveryKind(out.get());
  out->writeMessageEnd();
  return buffer->getBufferAsString();
}

const uint8_t* Bytes(const std::string& s) {
  return reinterpret_cast<const uint8_t*>(s.data());
}

class MessageSkipperTest : public ::testing::TestWithParam<Encoding> {};

TEST_P(MessageSkipperTest, FindsTheEndHoweverTheBytesArrive) {
  const std::string message = Message(GetParam(), 9);
  // Whole at once, with the next message's first bytes behind it.
  const std::string two = message + Message(GetParam(), 10).substr(0, 7);
  MessageSkipper skipper;
  ASSERT_EQ(skipper.Resume(Bytes(two), two.size()), Result::kWhole);
  EXPECT_EQ(skipper.end(), message.size());
  // A byte at a time: never whole early, and needed() never more than the
  // message.
  skipper.Reset();
  for (size_t size = 0; size < message.size(); ++size) {
    ASSERT_EQ(skipper.Resume(Bytes(message), size), Result::kNeedMore) << size;
    EXPECT_GT(skipper.needed(), size);
    EXPECT_LE(skipper.needed(), message.size()) << size;
  }
  ASSERT_EQ(skipper.Resume(Bytes(message), message.size()), Result::kWhole);
  EXPECT_EQ(skipper.end(), message.size());
}

TEST_P(MessageSkipperTest, KnowsALongStringsEndFromItsLength) {
  auto buffer = std::make_shared<at::transport::TMemoryBuffer>();
  auto out = MakeProtocol(GetParam(), buffer);
  out->writeMessageBegin("get", at::protocol::T_CALL, 1);
  out->writeStructBegin("args");
  out->writeFieldBegin("table", at::protocol::T_STRING, 1);
  out->writeString(std::string(100000, 't'));
  out->writeFieldEnd();
  out->writeFieldStop();
  out->writeStructEnd();
  out->writeMessageEnd();
  const std::string message = buffer->getBufferAsString();
  MessageSkipper skipper;
  ASSERT_EQ(skipper.Resume(Bytes(message), 30), Result::kNeedMore);
  EXPECT_EQ(skipper.needed(), message.size() - 1);  // all but the stop
}

INSTANTIATE_TEST_SUITE_P(Protocols, MessageSkipperTest,
                         ::testing::Values(Encoding::kBinary,
                                           Encoding::kNonStrictBinary,
                                           Encoding::kCompact));

TEST(MessageSkipperInvalidTest, RefusesWhatIsNoMessage) {
  const std::string cases[] = {
      std::string("\x80\x02\x00\x01", 4),  // binary version
      std::string("\x82\x22\x01\x00", 4),  // compact version
      std::string("\xff\xff\xff\xff", 4),  // negative name
      std::string("\x80\x01\x00\x01\0\0\0\0\0\0\0\1\x07", 13),  // type 7
      std::string("\x82\x21\x01\x00\x0e", 5),  // compact type 14
      std::string("\x82\x21\x01\x00\x1b\xff\xff\xff\xff\xff\xff\xff\xff\xff"
                  "\xff\x01",
                  16),  // a varint of 11 bytes
  };
  for (const std::string& bytes : cases) {
    MessageSkipper skipper;
    EXPECT_EQ(skipper.Resume(Bytes(bytes), bytes.size()), Result::kInvalid)
        << ::testing::PrintToString(bytes);
  }
}

TEST(MessageSkipperInvalidTest, RefusesNestingDeeperThanTheLimit) {
  // Strict header, then structs in field 1 of structs.
  std::string bytes("\x80\x01\x00\x01\0\0\0\0\0\0\0\1", 12);
  for (size_t i = 0; i <= MessageSkipper::kMaxDepth; ++i) {
    bytes += std::string("\x0c\x00\x01", 3);
  }
  MessageSkipper skipper;
  EXPECT_EQ(skipper.Resume(Bytes(bytes), bytes.size()), Result::kInvalid);
}

}  // namespace
}  // namespace bloomroute::thrift_internal
