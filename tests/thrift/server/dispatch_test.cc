#include "thrift/server/internal/dispatch.h"

#include <gtest/gtest.h>
#include <thrift/TProcessor.h>
#include <thrift/protocol/TBinaryProtocol.h>
#include <thrift/transport/TBufferTransports.h>

#include <memory>
#include <string>

namespace bloomroute::thrift_internal {
namespace {

namespace at = apache::thrift;

// A request frame (without its length) calling `method` with no arguments.
std::vector<uint8_t> Frame(const std::string& method) {
  auto buffer = std::make_shared<at::transport::TMemoryBuffer>();
  at::protocol::TBinaryProtocol out(buffer);
  out.writeMessageBegin(method, at::protocol::T_CALL, 7);
  out.writeStructBegin("args");
  out.writeFieldStop();
  out.writeStructEnd();
  out.writeMessageEnd();
  const std::string bytes = buffer->getBufferAsString();
  return std::vector<uint8_t>(bytes.begin(), bytes.end());
}

// Reads the call and answers it with an empty reply; `result` is what
// process() returns.
class FakeProcessor : public at::TProcessor {
 public:
  bool process(std::shared_ptr<at::protocol::TProtocol> in,
               std::shared_ptr<at::protocol::TProtocol> out,
               void* /*context*/) override {
    ++calls;
    std::string name;
    at::protocol::TMessageType type;
    int32_t seqid = 0;
    in->readMessageBegin(name, type, seqid);
    in->skip(at::protocol::T_STRUCT);
    in->readMessageEnd();
    caller = CurrentCaller();
    out->writeMessageBegin(name, at::protocol::T_REPLY, seqid);
    out->writeStructBegin("result");
    out->writeFieldStop();
    out->writeStructEnd();
    out->writeMessageEnd();
    return result;
  }

  int calls = 0;
  bool result = true;
  const Identity* caller = nullptr;
};

// Admits or refuses every call; remembers what it was settled with.
class FakeThrottle : public CallThrottle {
 public:
  AccessControl::Verdict Admit(const uint8_t* /*frame*/, size_t /*size*/,
                               const Identity& /*caller*/,
                               at::protocol::TProtocol* /*out*/,
                               std::unique_ptr<Ticket>* ticket) override {
    if (verdict == AccessControl::Verdict::kPass) {
      *ticket = std::make_unique<Ticket>();
    }
    return verdict;
  }
  void Settle(Ticket& /*ticket*/, uint64_t reply_bytes) override {
    settled = reply_bytes;
  }

  AccessControl::Verdict verdict = AccessControl::Verdict::kPass;
  uint64_t settled = 0;
};

class CallDispatcherTest : public testing::Test {
 protected:
  CallDispatcherTest() {
    connection_.processor = processor_;
    connection_.transport = WireTransport::kFramed;  // 4 bytes of room
    connection_.frame = Frame("ping");
  }

  CallDispatcher Dispatcher(std::shared_ptr<const AccessControl> access,
                            std::shared_ptr<CallThrottle> throttle) {
    return CallDispatcher("TestServer", options_,
                          std::make_shared<at::TConfiguration>(),
                          std::move(access), std::move(throttle), &metrics_);
  }

  // The reply's bytes after the 4 left for its length.
  static std::string Body(const at::transport::TMemoryBuffer& reply) {
    std::string bytes =
        const_cast<at::transport::TMemoryBuffer&>(reply).getBufferAsString();
    EXPECT_GE(bytes.size(), 4u);
    EXPECT_EQ(bytes.substr(0, 4), std::string(4, '\0'));
    return bytes.substr(4);
  }

  std::string Rendered() const { return registry_.Render(); }

  ServerOptions options_;
  metrics::Registry registry_;
  ServerMetrics metrics_{"test", 0, nullptr, &registry_};
  std::shared_ptr<FakeProcessor> processor_ = std::make_shared<FakeProcessor>();
  Connection connection_;
};

TEST_F(CallDispatcherTest, APassedCallRunsTheProcessorAfterRoomForTheLength) {
  const CallDispatcher dispatcher = Dispatcher(nullptr, nullptr);
  const auto reply = dispatcher.Run(connection_);
  ASSERT_NE(reply, nullptr);
  EXPECT_EQ(processor_->calls, 1);
  // Without access control no handler sees a caller.
  EXPECT_EQ(processor_->caller, nullptr);
  EXPECT_NE(Body(*reply).find("ping"), std::string::npos);
  EXPECT_FALSE(connection_.close_after_reply);
  EXPECT_NE(Rendered().find("method=\"ping\",outcome=\"ok\""),
            std::string::npos);
}

TEST_F(CallDispatcherTest, ARefusedCallIsAnsweredWithoutRunningThenCloses) {
  const CallDispatcher dispatcher =
      Dispatcher(AccessControl::ForRegionService(), nullptr);
  EXPECT_TRUE(dispatcher.MayCallNothing(connection_.identity));
  const auto reply = dispatcher.Run(connection_);
  ASSERT_NE(reply, nullptr);
  EXPECT_EQ(processor_->calls, 0);
  EXPECT_NE(Body(*reply).find("PermissionDenied"), std::string::npos);
  // A caller that may call nothing gets one answer.
  EXPECT_TRUE(connection_.close_after_reply);
  EXPECT_NE(Rendered().find("outcome=\"permission_denied\""),
            std::string::npos);
}

TEST_F(CallDispatcherTest, AnAllowedCallerIsTheHandlersCaller) {
  const CallDispatcher dispatcher =
      Dispatcher(AccessControl::ForRegionService(), nullptr);
  connection_.identity = Identity{"node", Role::kRouter};
  EXPECT_FALSE(dispatcher.MayCallNothing(connection_.identity));
  ASSERT_NE(dispatcher.Run(connection_), nullptr);
  EXPECT_EQ(processor_->calls, 1);
  EXPECT_EQ(processor_->caller, &connection_.identity);
  EXPECT_EQ(CurrentCaller(), nullptr);  // only while the call runs
}

TEST_F(CallDispatcherTest, AnAdmittedCallIsSettledWithItsReplyBytes) {
  auto throttle = std::make_shared<FakeThrottle>();
  const CallDispatcher dispatcher = Dispatcher(nullptr, throttle);
  const auto reply = dispatcher.Run(connection_);
  ASSERT_NE(reply, nullptr);
  EXPECT_EQ(processor_->calls, 1);
  EXPECT_EQ(throttle->settled, Body(*reply).size());
}

TEST_F(CallDispatcherTest, AThrottledOnewayCallClosesWithoutRunning) {
  auto throttle = std::make_shared<FakeThrottle>();
  throttle->verdict = AccessControl::Verdict::kClose;
  const CallDispatcher dispatcher = Dispatcher(nullptr, throttle);
  EXPECT_EQ(dispatcher.Run(connection_), nullptr);
  EXPECT_EQ(processor_->calls, 0);
  EXPECT_NE(Rendered().find("outcome=\"throttled\""), std::string::npos);
}

TEST_F(CallDispatcherTest, BytesThatAreNoMessageCloseTheConnection) {
  connection_.frame = {1, 2, 3, 4, 5, 6, 7, 8};
  const CallDispatcher dispatcher = Dispatcher(nullptr, nullptr);
  EXPECT_EQ(dispatcher.Run(connection_), nullptr);
  EXPECT_NE(Rendered().find("outcome=\"malformed\""), std::string::npos);
}

TEST_F(CallDispatcherTest, AProcessorThatGivesUpClosesTheConnection) {
  processor_->result = false;
  const CallDispatcher dispatcher = Dispatcher(nullptr, nullptr);
  EXPECT_EQ(dispatcher.Run(connection_), nullptr);
  EXPECT_EQ(processor_->calls, 1);
}

}  // namespace
}  // namespace bloomroute::thrift_internal
