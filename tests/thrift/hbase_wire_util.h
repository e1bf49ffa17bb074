// Helpers of the HBase Thrift2 wire tests (hbase_wire_test.cc and its
// neighbours): encoding calls as a client generated from HBase's own
// hbase.thrift writes them (strict binary protocol, framed transport),
// decoding replies by field id, and a fixture serving a RouterServer on
// 127.0.0.1 over in-process region stores. Nothing here uses bloomroute's
// generated code.
#ifndef BLOOMROUTE_TESTS_THRIFT_HBASE_WIRE_UTIL_H_
#define BLOOMROUTE_TESTS_THRIFT_HBASE_WIRE_UTIL_H_

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <map>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "tests/router/router_test_util.h"
#include "tests/thrift/raw_wire.h"
#include "thrift/router_server.h"

namespace bloomroute::hbase_wire {

namespace t = ::bloomroute::testing;

// Thrift type codes beyond raw_wire.h's.
constexpr char kTBool = 2, kTByte = 3, kTI16 = 6, kTI32 = 8, kTMap = 13,
               kTSet = 14;

// ---- Encoding, as HBase's generated client writes ----

inline std::string Bytes(const std::string& s) {
  return t::Be32(static_cast<uint32_t>(s.size())) + s;
}
inline std::string I32(int32_t v) { return t::Be32(static_cast<uint32_t>(v)); }
inline std::string BinaryField(int16_t id, const std::string& s) {
  return t::FieldHeader(t::kTString, id) + Bytes(s);
}
inline std::string I32Field(int16_t id, int32_t v) {
  return t::FieldHeader(kTI32, id) + I32(v);
}
inline std::string BoolField(int16_t id, bool v) {
  return t::FieldHeader(kTBool, id) + std::string(1, v ? 1 : 0);
}
inline std::string I16Field(int16_t id, int16_t v) {
  const auto u = static_cast<uint16_t>(v);
  return t::FieldHeader(kTI16, id) + std::string(1, static_cast<char>(u >> 8)) +
         std::string(1, static_cast<char>(u & 0xff));
}
// map<binary, binary> (or map<string, string>) with one entry.
inline std::string OneEntryMap(int16_t id, const std::string& key,
                               const std::string& value) {
  return t::FieldHeader(kTMap, id) + std::string(1, t::kTString) +
         std::string(1, t::kTString) + t::Be32(1) + Bytes(key) + Bytes(value);
}
inline std::string I64(int64_t v) {
  const auto u = static_cast<uint64_t>(v);
  return t::Be32(static_cast<uint32_t>(u >> 32)) +
         t::Be32(static_cast<uint32_t>(u));
}
inline std::string I64Field(int16_t id, int64_t v) {
  return t::FieldHeader(t::kTI64, id) + I64(v);
}
inline std::string StructField(int16_t id, const std::string& body) {
  return t::FieldHeader(t::kTStruct, id) + body + std::string(1, t::kTStop);
}
inline std::string StructList(int16_t id,
                              const std::vector<std::string>& bodies) {
  std::string out =
      t::FieldHeader(t::kTList, id) + t::ListHeader(t::kTStruct, bodies.size());
  for (const std::string& b : bodies) out += b + std::string(1, t::kTStop);
  return out;
}
inline std::string Call(const std::string& method, int32_t seqid,
                        const std::string& args) {
  return t::Framed(t::MessageHeader(method, seqid) + args +
                   std::string(1, t::kTStop));
}

// TColumnValue {1: family, 2: qualifier, 3: value}.
inline std::string CellValue(const std::string& family,
                             const std::string& qualifier,
                             const std::string& value) {
  return BinaryField(1, family) + BinaryField(2, qualifier) +
         BinaryField(3, value);
}
// The same with 4: timestamp.
inline std::string StampedCell(const std::string& family,
                               const std::string& qualifier,
                               const std::string& value, int64_t timestamp) {
  return CellValue(family, qualifier, value) + I64Field(4, timestamp);
}
// TPut {1: row, 2: list<TColumnValue>} with one cell d:cc = value.
inline std::string PutBody(const std::string& row, const std::string& value) {
  return BinaryField(1, row) + StructList(2, {CellValue("d", "cc", value)});
}

// checkAndPut's arguments {1 table, 2 row, 3 family, 4 qualifier,
// 5 value (omitted when `value` is nullopt), 6 tput} on geo's d:cc.
inline std::string CheckAndPutArgs(const std::string& row,
                                   const std::optional<std::string>& value,
                                   const std::string& put_value) {
  return BinaryField(1, "geo") + BinaryField(2, row) + BinaryField(3, "d") +
         BinaryField(4, "cc") + (value ? BinaryField(5, *value) : "") +
         StructField(6, PutBody(row, put_value));
}
// increment's arguments {1 table, 2 TIncrement {1 row, 2 [TColumnIncrement
// {1 family, 2 qualifier, 3 amount}]}} on geo's d:n.
inline std::string IncrementArgs(const std::string& row, int64_t amount) {
  const std::string column =
      BinaryField(1, "d") + BinaryField(2, "n") + I64Field(3, amount);
  return BinaryField(1, "geo") +
         StructField(2, BinaryField(1, row) + StructList(2, {column}));
}

// ---- Decoding by field id ----

// One decoded Thrift value: a number, bytes, a struct (fields by id) or a
// list.
struct Value {
  char type = t::kTStop;
  int64_t number = 0;
  std::string bytes;
  std::map<int16_t, Value> fields;
  std::vector<Value> elements;

  const Value& Field(int16_t id) const {
    static const Value kMissing;
    auto it = fields.find(id);
    return it == fields.end() ? kMissing : it->second;
  }
  bool Has(int16_t id) const { return fields.count(id) != 0; }
};

class Reader {
 public:
  explicit Reader(const std::string& in) : in_(in) {}
  bool ok() const { return ok_; }

  int64_t Int(size_t n) {
    if (pos_ + n > in_.size()) return Fail();
    uint64_t v = 0;
    for (size_t i = 0; i < n; ++i) {
      v = (v << 8) | static_cast<uint8_t>(in_[pos_++]);
    }
    if (n == 4) return static_cast<int32_t>(v);
    if (n == 2) return static_cast<int16_t>(v);
    if (n == 1) return static_cast<int8_t>(v);
    return static_cast<int64_t>(v);
  }
  std::string Str() {
    const int64_t n = Int(4);
    if (!ok_ || n < 0 || pos_ + n > in_.size()) return Fail(), std::string();
    std::string s = in_.substr(pos_, static_cast<size_t>(n));
    pos_ += static_cast<size_t>(n);
    return s;
  }
  Value Read(char type) {
    Value v;
    v.type = type;
    switch (type) {
      case kTBool:
      case kTByte:
        v.number = Int(1);
        break;
      case kTI16:
        v.number = Int(2);
        break;
      case kTI32:
        v.number = Int(4);
        break;
      case t::kTI64:
        v.number = Int(8);
        break;
      case t::kTString:
        v.bytes = Str();
        break;
      case t::kTStruct:
        ReadStruct(&v);
        break;
      case t::kTList: {
        const char elem = static_cast<char>(Int(1));
        const int64_t n = Int(4);
        for (int64_t i = 0; ok_ && i < n; ++i) v.elements.push_back(Read(elem));
        break;
      }
      case kTMap: {
        const char key = static_cast<char>(Int(1)),
                   val = static_cast<char>(Int(1));
        const int64_t n = Int(4);
        for (int64_t i = 0; ok_ && i < n; ++i) {
          v.elements.push_back(Read(key));
          v.elements.push_back(Read(val));
        }
        break;
      }
      default:
        Fail();
    }
    return v;
  }

 private:
  void ReadStruct(Value* v) {
    while (ok_) {
      const char type = static_cast<char>(Int(1));
      if (type == t::kTStop) return;
      const auto id = static_cast<int16_t>(Int(2));
      v->fields[id] = Read(type);
    }
  }
  int64_t Fail() {
    ok_ = false;
    return 0;
  }

  const std::string& in_;
  size_t pos_ = 0;
  bool ok_ = true;
};

// A reply message: its header and its result struct.
struct Reply {
  bool ok = false;
  int type = 0;  // 2 = REPLY, 3 = EXCEPTION
  std::string method;
  int32_t seqid = 0;
  Value result;
};

inline Reply Decode(const std::string& payload) {
  Reply reply;
  Reader in(payload);
  const int64_t version = in.Int(4);
  reply.type = static_cast<int>(version & 0xff);
  reply.method = in.Str();
  reply.seqid = static_cast<int32_t>(in.Int(4));
  if ((version & 0xffff0000) != 0x80010000) return reply;
  reply.result = in.Read(t::kTStruct);
  reply.ok = in.ok();
  return reply;
}

class HBaseWireTest : public ::testing::Test {
 protected:
  void SetUp() override {
    router_ = t::OpenRouter(cluster_);
    ASSERT_NE(router_, nullptr);
    RouterServerOptions options;
    options.port = 0;
    options.threads = 2;
    options.slow_call_ms = SlowCallMs();
    auto server = RouterServer::Start(router_, options);
    ASSERT_TRUE(server.ok()) << server.status().ToString();
    server_ = std::move(server).value();
    connection_ = std::make_unique<t::RawConnection>(server_->port());
    ASSERT_TRUE(connection_->connected());
  }

  virtual uint32_t SlowCallMs() const { return 1000; }

  // Sends one call and decodes its reply (a REPLY for `method`, same seqid).
  Reply Roundtrip(const std::string& method, const std::string& args) {
    const int32_t seqid = ++seqid_;
    EXPECT_TRUE(connection_->Send(Call(method, seqid, args))) << method;
    std::string payload;
    Reply reply;
    if (!connection_->Receive(&payload)) {
      ADD_FAILURE() << method << ": no reply (connection dropped)";
      return reply;
    }
    reply = Decode(payload);
    EXPECT_TRUE(reply.ok) << method << ": the reply does not decode";
    EXPECT_EQ(reply.type, 2) << method << ": not a REPLY";
    EXPECT_EQ(reply.method, method);
    EXPECT_EQ(reply.seqid, seqid);
    return reply;
  }

  // A call that must succeed: its result has no exception field.
  Value Success(const std::string& method, const std::string& args) {
    Reply reply = Roundtrip(method, args);
    EXPECT_FALSE(reply.result.Has(1))
        << method << " failed: " << reply.result.Field(1).Field(1).bytes;
    EXPECT_FALSE(reply.result.Has(2))
        << method << " failed: " << reply.result.Field(2).Field(1).bytes;
    return reply.result.Field(0);
  }

  // A call that must fail with the exception at field `id` (1: TIOError,
  // 2: TIllegalArgument), and nothing else: returns its message.
  std::string Failure(const std::string& method, const std::string& args,
                      int16_t id = 1) {
    Reply reply = Roundtrip(method, args);
    EXPECT_EQ(reply.result.fields.size(), 1u) << method;
    EXPECT_TRUE(reply.result.Has(id)) << method << ": no exception " << id;
    const Value& error = reply.result.Field(id);
    EXPECT_EQ(error.type, t::kTStruct) << method;
    EXPECT_EQ(error.Field(1).type, t::kTString) << method << ": no message";
    return error.Field(1).bytes;
  }

  // createTable(TTableDescriptor{geo, family d, bloomroute.index = d:cc},
  // splitKeys = ["m"]).
  void CreateGeo() {
    const std::string name = BinaryField(2, "geo");
    const std::string attributes = t::FieldHeader(kTMap, 3) +
                                   std::string(1, t::kTString) +
                                   std::string(1, t::kTString) + I32(1) +
                                   Bytes("bloomroute.index") + Bytes("d:cc");
    const std::string desc = StructField(1, name) +
                             StructList(2, {BinaryField(1, "d")}) + attributes;
    const std::string splits = t::FieldHeader(t::kTList, 2) +
                               t::ListHeader(t::kTString, 1) + Bytes("m");
    Success("createTable", StructField(1, desc) + splits);
    ASSERT_TRUE(t::WaitAllCurrent(*router_));
  }

  t::StoreCluster cluster_{2};
  std::shared_ptr<router::Router> router_;
  std::unique_ptr<RouterServer> server_;
  std::unique_ptr<t::RawConnection> connection_;
  int32_t seqid_ = 0;
};

}  // namespace bloomroute::hbase_wire

#endif  // BLOOMROUTE_TESTS_THRIFT_HBASE_WIRE_UTIL_H_
