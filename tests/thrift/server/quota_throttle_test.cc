// The router's quotas as its server enforces them (quota_throttle.h): token
// buckets per user and per user and table, refilled with the time (a clock
// the test steps), read from the request frame before its arguments are
// decoded, and HBase's throttling error for a refused call.
#include "thrift/server/quota_throttle.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <thrift/protocol/TBinaryProtocol.h>
#include <thrift/transport/TBufferTransports.h>

#include <memory>
#include <string>
#include <vector>

#include "thrift/gen-cpp/errors_types.h"

namespace bloomroute::thrift_internal {
namespace {

namespace at = apache::thrift;
using ::testing::HasSubstr;
using Verdict = AccessControl::Verdict;

// A request frame (without its length) of `method` whose arguments start
// with field 1 `first` (a string; none when empty) and carry `padding`
// more bytes in field 2.
std::string Frame(const std::string& method, const std::string& first,
                  size_t padding = 0, bool oneway = false) {
  auto buffer = std::make_shared<at::transport::TMemoryBuffer>();
  at::protocol::TBinaryProtocol out(buffer);
  out.writeMessageBegin(
      method, oneway ? at::protocol::T_ONEWAY : at::protocol::T_CALL, 7);
  out.writeStructBegin("args");
  if (!first.empty()) {
    out.writeFieldBegin("table", at::protocol::T_STRING, 1);
    out.writeString(first);
    out.writeFieldEnd();
  }
  if (padding > 0) {
    out.writeFieldBegin("pad", at::protocol::T_STRING, 2);
    out.writeString(std::string(padding, 'x'));
    out.writeFieldEnd();
  }
  out.writeFieldStop();
  out.writeStructEnd();
  out.writeMessageEnd();
  return buffer->getBufferAsString();
}

// A call on scanner `id` (field 1, an i32).
std::string ScannerFrame(const std::string& method, int32_t id) {
  auto buffer = std::make_shared<at::transport::TMemoryBuffer>();
  at::protocol::TBinaryProtocol out(buffer);
  out.writeMessageBegin(method, at::protocol::T_CALL, 7);
  out.writeStructBegin("args");
  out.writeFieldBegin("scannerId", at::protocol::T_I32, 1);
  out.writeI32(id);
  out.writeFieldEnd();
  out.writeFieldStop();
  out.writeStructEnd();
  out.writeMessageEnd();
  return buffer->getBufferAsString();
}

// A call of `method` whose arguments are `fields` (id, string), written in
// the order given: a generated reader takes any order and keeps the last of
// a field sent twice.
std::string FieldsFrame(
    const std::string& method,
    const std::vector<std::pair<int16_t, std::string>>& fields) {
  auto buffer = std::make_shared<at::transport::TMemoryBuffer>();
  at::protocol::TBinaryProtocol out(buffer);
  out.writeMessageBegin(method, at::protocol::T_CALL, 7);
  out.writeStructBegin("args");
  for (const auto& [id, value] : fields) {
    out.writeFieldBegin("f", at::protocol::T_STRING, id);
    out.writeString(value);
    out.writeFieldEnd();
  }
  // A nested struct and a list after them, skipped in place.
  out.writeFieldBegin("s", at::protocol::T_STRUCT, 9);
  out.writeStructBegin("s");
  out.writeFieldBegin("l", at::protocol::T_LIST, 1);
  out.writeListBegin(at::protocol::T_STRING, 2);
  out.writeString(std::string("a"));
  out.writeString(std::string(10000, 'b'));
  out.writeListEnd();
  out.writeFieldEnd();
  out.writeFieldStop();
  out.writeStructEnd();
  out.writeFieldEnd();
  out.writeFieldStop();
  out.writeStructEnd();
  out.writeMessageEnd();
  return buffer->getBufferAsString();
}

class QuotaThrottleTest : public ::testing::Test {
 protected:
  QuotaThrottleTest()
      : throttle_([this] { return quotas_; },
                  [](int64_t scanner) {
                    return scanner == 7 ? std::string("geo") : std::string();
                  },
                  [this] { return now_; }) {}

  void Set(std::vector<router::Quota> quotas) {
    quotas_ = std::make_shared<std::vector<router::Quota>>(std::move(quotas));
  }
  void Advance(double seconds) {
    now_ += std::chrono::duration_cast<QuotaThrottle::Clock::duration>(
        std::chrono::duration<double>(seconds));
  }

  // Admits `frame` of `user`; on a refusal, reply_ holds the TIOError.
  Verdict Call(const std::string& user, const std::string& frame,
               uint64_t reply_bytes = 0) {
    Identity caller;
    caller.user = user;
    caller.role = Role::kAdmin;
    auto buffer = std::make_shared<at::transport::TMemoryBuffer>();
    at::protocol::TBinaryProtocol out(buffer);
    std::unique_ptr<CallThrottle::Ticket> ticket;
    const Verdict v =
        throttle_.Admit(reinterpret_cast<const uint8_t*>(frame.data()),
                        frame.size(), caller, &out, &ticket);
    if (ticket != nullptr) throttle_.Settle(*ticket, reply_bytes);
    reply_ = rpc::TIOError();
    reply_method_.clear();
    if (v == Verdict::kAnswered) ReadReply(buffer);
    return v;
  }

  void ReadReply(const std::shared_ptr<at::transport::TMemoryBuffer>& buffer) {
    at::protocol::TBinaryProtocol in(buffer);
    at::protocol::TMessageType type;
    int32_t seqid = 0;
    in.readMessageBegin(reply_method_, type, seqid);
    EXPECT_EQ(type, at::protocol::T_REPLY);
    EXPECT_EQ(seqid, 7);
    std::string name;
    in.readStructBegin(name);
    at::protocol::TType field_type;
    int16_t id = 0;
    in.readFieldBegin(name, field_type, id);
    ASSERT_EQ(id, 1);
    ASSERT_EQ(field_type, at::protocol::T_STRUCT);
    reply_.read(&in);
  }

  std::shared_ptr<const std::vector<router::Quota>> quotas_ =
      std::make_shared<std::vector<router::Quota>>();
  QuotaThrottle::Clock::time_point now_ = QuotaThrottle::Clock::now();
  QuotaThrottle throttle_;
  rpc::TIOError reply_;
  std::string reply_method_;
};

router::Quota Requests(const std::string& user, const std::string& table,
                       uint64_t amount, uint32_t seconds) {
  router::Quota q;
  q.user = user;
  q.table = table;
  q.requests = {amount, seconds};
  return q;
}

router::Quota Bytes(const std::string& user, uint64_t amount,
                    uint32_t seconds) {
  router::Quota q;
  q.user = user;
  q.bytes = {amount, seconds};
  return q;
}

TEST_F(QuotaThrottleTest, WithoutQuotasOrAPrincipalEverythingPasses) {
  for (int i = 0; i < 100; ++i) {
    EXPECT_EQ(Call("alice", Frame("get", "t")), Verdict::kPass);
  }
  Set({Requests("alice", "", 1, 60)});
  for (int i = 0; i < 100; ++i) {
    EXPECT_EQ(Call("", Frame("get", "t")), Verdict::kPass);  // no TLS
  }
}

TEST_F(QuotaThrottleTest, RequestsPastTheQuotaWaitForTheBucketToRefill) {
  Set({Requests("alice", "", 2, 1)});
  EXPECT_EQ(Call("alice", Frame("get", "t")), Verdict::kPass);
  EXPECT_EQ(Call("alice", Frame("listTables", "")), Verdict::kPass);
  ASSERT_EQ(Call("alice", Frame("get", "t")), Verdict::kAnswered);
  EXPECT_EQ(reply_method_, "get");
  EXPECT_TRUE(reply_.__isset.canRetry && reply_.canRetry);
  EXPECT_EQ(reply_.message,
            "RpcThrottlingException: number of requests exceeded - wait "
            "500ms (quota of user alice: 2 requests per 1 s)");
  // Another user has no quota.
  EXPECT_EQ(Call("bob", Frame("get", "t")), Verdict::kPass);
  Advance(0.25);
  EXPECT_EQ(Call("alice", Frame("get", "t")), Verdict::kAnswered);
  EXPECT_THAT(reply_.message, HasSubstr("wait 250ms"));
  Advance(0.25);  // one request refilled (2 per second)
  EXPECT_EQ(Call("alice", Frame("get", "t")), Verdict::kPass);
  EXPECT_EQ(Call("alice", Frame("get", "t")), Verdict::kAnswered);
  // A long pause refills at most a period's amount: a burst of 2, no more.
  Advance(3600);
  EXPECT_EQ(Call("alice", Frame("get", "t")), Verdict::kPass);
  EXPECT_EQ(Call("alice", Frame("get", "t")), Verdict::kPass);
  EXPECT_EQ(Call("alice", Frame("get", "t")), Verdict::kAnswered);
}

TEST_F(QuotaThrottleTest, ATableQuotaCountsOnlyTheCallsNamingItsTable) {
  Set({Requests("alice", "geo", 1, 60)});
  EXPECT_EQ(Call("alice", Frame("put", "geo")), Verdict::kPass);
  ASSERT_EQ(Call("alice", Frame("getByIndex", "geo")), Verdict::kAnswered);
  EXPECT_THAT(reply_.message,
              HasSubstr("(quota of user alice on table geo: 1 requests per "
                        "60 s)"));
  EXPECT_EQ(Call("alice", Frame("put", "cities")), Verdict::kPass);
  EXPECT_EQ(Call("alice", Frame("listTables", "")), Verdict::kPass);
  // Field 1 of addServer is an address, not a table.
  EXPECT_EQ(Call("alice", Frame("addServer", "geo")), Verdict::kPass);
  // A call on a scanner counts against the table the scanner reads.
  EXPECT_EQ(Call("alice", ScannerFrame("getScannerRows", 7)),
            Verdict::kAnswered);
  EXPECT_EQ(Call("alice", ScannerFrame("closeScanner", 7)), Verdict::kAnswered);
  EXPECT_EQ(Call("alice", ScannerFrame("getScannerRows", 8)), Verdict::kPass);
}

// The table is read as the handler reads it, wherever field 1 comes: a
// table quota read only the first field, so a client could send field 2
// first, field 1 twice, or "default:geo", and be charged to no table.
TEST_F(QuotaThrottleTest, ATableIsReadAsTheHandlerReadsIt) {
  for (const auto& fields :
       std::vector<std::vector<std::pair<int16_t, std::string>>>{
           {{2, "row"}, {1, "geo"}},
           {{1, "cities"}, {1, "geo"}},
           {{1, "default:geo"}},
           {{3, std::string(100000, 'x')}, {1, "geo"}},
       }) {
    Set({Requests("alice", "geo", 1, 60)});
    Advance(60);  // the bucket is full again
    EXPECT_EQ(Call("alice", FieldsFrame("put", fields)), Verdict::kPass);
    EXPECT_EQ(Call("alice", FieldsFrame("put", fields)), Verdict::kAnswered)
        << fields.back().second;
  }
  // Another namespace is no table here (the handler refuses the call).
  Set({Requests("alice", "geo", 1, 60)});
  EXPECT_EQ(Call("alice", FieldsFrame("put", {{1, "ns:geo"}})), Verdict::kPass);
  EXPECT_EQ(Call("alice", FieldsFrame("put", {{1, "ns:geo"}})), Verdict::kPass);
}

TEST_F(QuotaThrottleTest, AUserAndATableQuotaMustBothHaveRoom) {
  Set({Requests("alice", "", 3, 60), Requests("alice", "geo", 1, 60)});
  EXPECT_EQ(Call("alice", Frame("get", "geo")), Verdict::kPass);
  EXPECT_EQ(Call("alice", Frame("get", "geo")), Verdict::kAnswered);
  // The refused call took nothing from the user's quota.
  EXPECT_EQ(Call("alice", Frame("get", "cities")), Verdict::kPass);
  EXPECT_EQ(Call("alice", Frame("get", "cities")), Verdict::kPass);
  ASSERT_EQ(Call("alice", Frame("get", "cities")), Verdict::kAnswered);
  EXPECT_THAT(reply_.message, HasSubstr("quota of user alice: 3 requests"));
}

TEST_F(QuotaThrottleTest, BytesCountRequestsAndRepliesAndMayGoIntoDebt) {
  const std::string small = Frame("get", "t", 100);
  Set({Bytes("alice", 1000, 1)});
  // 1000 bytes per second: the request, then its 2,000-byte reply.
  EXPECT_EQ(Call("alice", small, /*reply_bytes=*/2000), Verdict::kPass);
  ASSERT_EQ(Call("alice", small), Verdict::kAnswered);
  EXPECT_THAT(reply_.message, HasSubstr("request size limit exceeded - wait "));
  EXPECT_THAT(reply_.message, HasSubstr("1000 bytes per 1 s"));
  Advance(1.0);  // still in debt: 1000 - small - 2000 + 1000 < small
  EXPECT_EQ(Call("alice", small), Verdict::kAnswered);
  Advance(1.5);
  EXPECT_EQ(Call("alice", small), Verdict::kPass);
  // A request larger than the whole bucket passes once the bucket is full.
  const std::string large = Frame("put", "t", 5000);
  EXPECT_EQ(Call("alice", large), Verdict::kAnswered);
  Advance(10);
  EXPECT_EQ(Call("alice", large), Verdict::kPass);
  EXPECT_EQ(Call("alice", small), Verdict::kAnswered);
}

TEST_F(QuotaThrottleTest, AChangedQuotaAppliesAtOnceAndAnUnchangedOneKeeps) {
  Set({Requests("alice", "", 1, 60), Requests("bob", "", 1, 60)});
  EXPECT_EQ(Call("alice", Frame("get", "t")), Verdict::kPass);
  EXPECT_EQ(Call("bob", Frame("get", "t")), Verdict::kPass);
  // alice's quota changes (a fresh bucket); bob's stays (still empty).
  Set({Requests("alice", "", 5, 60), Requests("bob", "", 1, 60)});
  EXPECT_EQ(Call("alice", Frame("get", "t")), Verdict::kPass);
  EXPECT_EQ(Call("bob", Frame("get", "t")), Verdict::kAnswered);
  Set({});  // all removed
  EXPECT_EQ(Call("bob", Frame("get", "t")), Verdict::kPass);
}

TEST_F(QuotaThrottleTest, ARefusedOnewayCallClosesAndBadBytesPass) {
  Set({Requests("alice", "", 1, 60)});
  EXPECT_EQ(Call("alice", Frame("get", "t")), Verdict::kPass);
  EXPECT_EQ(Call("alice", Frame("put", "t", 0, /*oneway=*/true)),
            Verdict::kClose);
  // Bytes that are no message are left to the processor, which refuses
  // them (and closes the connection).
  EXPECT_EQ(Call("alice", std::string("\x01\x02\x03", 3)), Verdict::kPass);
  // A table name longer than any quota's is read as none.
  Set({Requests("alice", "geo", 1, 60)});
  EXPECT_EQ(Call("alice", Frame("get", std::string(5000, 'g'))),
            Verdict::kPass);
}

TEST(QuotaPeekTest, ReadsTheMethodAndTheTableOnly) {
  const std::string frame = Frame("getByIndex", "geo", 100);
  std::string method, table;
  bool oneway = true;
  int32_t seqid = 0;
  const QuotaThrottle throttle(
      [] { return std::make_shared<std::vector<router::Quota>>(); },
      [](int64_t) { return std::string("scanned"); });
  ASSERT_TRUE(throttle.PeekCall(reinterpret_cast<const uint8_t*>(frame.data()),
                                frame.size(), &method, &table, &oneway,
                                &seqid));
  EXPECT_EQ(method, "getByIndex");
  EXPECT_EQ(table, "geo");
  EXPECT_FALSE(oneway);
  EXPECT_EQ(seqid, 7);
}

}  // namespace
}  // namespace bloomroute::thrift_internal
