#include "thrift/server/internal/server_metrics.h"

#include <gtest/gtest.h>
#include <thrift/protocol/TBinaryProtocol.h>
#include <thrift/transport/TBufferTransports.h>

#include <memory>
#include <string>

#include "thrift/internal/serve_call.h"

namespace bloomroute::thrift_internal {
namespace {

namespace at = apache::thrift;

// A request frame (without its length) calling `method`.
std::string Frame(const std::string& method) {
  auto buffer = std::make_shared<at::transport::TMemoryBuffer>();
  at::protocol::TBinaryProtocol out(buffer);
  out.writeMessageBegin(method, at::protocol::T_CALL, 1);
  out.writeStructBegin("args");
  out.writeFieldStop();
  out.writeStructEnd();
  out.writeMessageEnd();
  return buffer->getBufferAsString();
}

class ServerMetricsTest : public testing::Test {
 protected:
  void Call(const std::string& method, const std::string& outcome = "",
            Status::Code handler = Status::Code::kOk) {
    const std::string frame = Frame(method);
    ServerMetrics::Call call(&metrics_,
                             reinterpret_cast<const uint8_t*>(frame.data()),
                             frame.size());
    EXPECT_EQ(CurrentCall(), &call.context());
    call.context().outcome = handler;
    call.Finish(outcome, nullptr, [] { return std::string("127.0.0.1:1"); });
  }

  metrics::Registry registry_;
  ServerMetrics metrics_{"router", 0, nullptr, &registry_};
};

TEST_F(ServerMetricsTest, CallsAreCountedByMethodAndOutcomeWithLatency) {
  Call("getByIndex");
  Call("getByIndex");
  Call("get", "", Status::Code::kNotFound);
  Call("put", "throttled");
  const std::string text = registry_.Render();
  EXPECT_NE(text.find("bloomroute_calls_total{method=\"getByIndex\",outcome="
                      "\"ok\",service=\"router\"} 2\n"),
            std::string::npos)
      << text;
  EXPECT_NE(text.find("bloomroute_calls_total{method=\"get\",outcome="
                      "\"not_found\",service=\"router\"} 1\n"),
            std::string::npos);
  EXPECT_NE(text.find("bloomroute_calls_total{method=\"put\",outcome="
                      "\"throttled\",service=\"router\"} 1\n"),
            std::string::npos);
  EXPECT_NE(text.find("bloomroute_call_duration_seconds_count{method="
                      "\"getByIndex\",service=\"router\"} 2\n"),
            std::string::npos);
  EXPECT_EQ(CurrentCall(), nullptr);
}

TEST_F(ServerMetricsTest, MethodNamesAreBoundedSoAClientCannotGrowTheLabels) {
  for (size_t i = 0; i < ServerMetrics::kMaxMethods + 10; ++i) {
    Call("m" + std::to_string(i));
  }
  Call(std::string(ServerMetrics::kMaxMethodBytes + 1, 'x'));  // no method
  const std::string text = registry_.Render();
  EXPECT_NE(text.find("bloomroute_calls_total{method=\"other\",outcome=\"ok\","
                      "service=\"router\"} 11\n"),
            std::string::npos)
      << text.substr(0, 2000);
  EXPECT_EQ(text.find("method=\"m" +
                      std::to_string(ServerMetrics::kMaxMethods) + "\""),
            std::string::npos);
}

TEST_F(ServerMetricsTest, RefusalsAndLoadAreReported) {
  metrics_.Refused("request_timeout");
  metrics_.Refused("request_timeout");
  metrics_.SetLoad(3, 1);
  const std::string text = registry_.Render();
  EXPECT_NE(text.find("bloomroute_thrift_refusals_total{limit="
                      "\"request_timeout\",service=\"router\"} 2\n"),
            std::string::npos)
      << text;
  EXPECT_NE(text.find("bloomroute_thrift_connections{service=\"router\"} 3\n"),
            std::string::npos);
  EXPECT_NE(text.find("bloomroute_thrift_queued_calls{service=\"router\"} 1\n"),
            std::string::npos);
}

TEST_F(ServerMetricsTest, ServeCallNotesTheHandlersOutcome) {
  const std::string frame = Frame("describeTable");
  ServerMetrics::Call call(
      &metrics_, reinterpret_cast<const uint8_t*>(frame.data()), frame.size());
  EXPECT_THROW(ServeCall("describeTable",
                         [] { return Status::InvalidArgument("no table"); }),
               std::exception);
  EXPECT_EQ(call.context().outcome, Status::Code::kInvalidArgument);
  call.Finish("", nullptr, [] { return std::string("?"); });
  EXPECT_NE(registry_.Render().find("outcome=\"invalid_argument\""),
            std::string::npos);
}

TEST(ServerMetricsOutcomeTest, NamesAreSnakeCase) {
  EXPECT_EQ(ServerMetrics::OutcomeName(Status::Code::kOk), "ok");
  EXPECT_EQ(ServerMetrics::OutcomeName(Status::Code::kIOError), "io_error");
  EXPECT_EQ(ServerMetrics::OutcomeName(Status::Code::kPermissionDenied),
            "permission_denied");
  EXPECT_EQ(ServerMetrics::OutcomeName(Status::Code::kInvalidArgument),
            "invalid_argument");
}

}  // namespace
}  // namespace bloomroute::thrift_internal
