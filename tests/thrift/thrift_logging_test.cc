#include "thrift/thrift_logging.h"

#include <gtest/gtest.h>
#include <stdlib.h>
#include <thrift/TOutput.h>

#include <chrono>
#include <string>
#include <thread>

namespace bloomroute {
namespace {

namespace at = apache::thrift;

constexpr char kRefused[] =
    "TSocket::open() error on socket (after THRIFT_POLL) <Host: 127.0.0.1 "
    "Port: 9092>: Connection refused";

// How many lines of `text` hold `needle`.
int CountLines(const std::string& text, const std::string& needle) {
  int count = 0;
  size_t begin = 0;
  while (begin < text.size()) {
    size_t end = text.find('\n', begin);
    if (end == std::string::npos) end = text.size();
    if (text.substr(begin, end - begin).find(needle) != std::string::npos) {
      ++count;
    }
    begin = end + 1;
  }
  return count;
}

class ThriftLoggingTest : public ::testing::Test {
 protected:
  void TearDown() override {
    at::GlobalOutput.setOutputFunction(at::TOutput::errorTimeWrapper);
    unsetenv("BLOOMROUTE_LOG_INTERVAL_MS");
  }
};

TEST_F(ThriftLoggingTest, SourceIsThePeerAndTheMessageWithoutIt) {
  ThriftMessageSource s = SourceOfThriftMessage(kRefused);
  EXPECT_EQ(s.peer, "127.0.0.1:9092");
  EXPECT_EQ(s.kind,
            "TSocket::open() error on socket (after THRIFT_POLL): Connection "
            "refused");
  s = SourceOfThriftMessage("TSocket::open() error <Host: ::1 Port: 7>: x");
  EXPECT_EQ(s.peer, "[::1]:7");
  EXPECT_EQ(s.kind, "TSocket::open() error: x");
  s = SourceOfThriftMessage("router: a call failed: bad_alloc");
  EXPECT_EQ(s.peer, "");
  EXPECT_EQ(s.kind, "router: a call failed: bad_alloc");
  // A peer part that does not close is not one.
  s = SourceOfThriftMessage("x <Host: a Port: 1");
  EXPECT_EQ(s.peer, "");
  EXPECT_EQ(s.kind, "x <Host: a Port: 1");
}

TEST_F(ThriftLoggingTest, ClientModeShowsNothingByDefault) {
  RouteThriftOutputToLog(ThriftOutput::kClient);
  ::testing::internal::CaptureStderr();
  at::GlobalOutput.perror(
      "TSocket::open() error on socket (after THRIFT_POLL) <Host: 127.0.0.1 "
      "Port: 9092>",
      ECONNREFUSED);
  EXPECT_EQ(::testing::internal::GetCapturedStderr(), "");
}

TEST_F(ThriftLoggingTest, ServerModeWritesOneLinePerPeerAndKindPerInterval) {
  setenv("BLOOMROUTE_LOG_INTERVAL_MS", "300", 1);
  RouteThriftOutputToLog(ThriftOutput::kServer);
  ::testing::internal::CaptureStderr();
  for (int i = 0; i < 5; ++i) at::GlobalOutput(kRefused);
  at::GlobalOutput(
      "TSocket::open() error on socket (after THRIFT_POLL) <Host: 127.0.0.1 "
      "Port: 9093>: Connection refused");
  std::this_thread::sleep_for(std::chrono::milliseconds(400));
  at::GlobalOutput(kRefused);
  const std::string err = ::testing::internal::GetCapturedStderr();
  EXPECT_EQ(CountLines(err, "Port: 9092"), 2) << err;
  EXPECT_EQ(CountLines(err, "Port: 9093"), 1) << err;
  EXPECT_EQ(CountLines(err, " WARN thrift: TSocket::open() error"), 3) << err;
  EXPECT_EQ(CountLines(err,
                       "Connection refused (and 4 more like it in the "
                       "last "),
            1)
      << err;
  EXPECT_EQ(CountLines(err, "Thrift: "), 0) << err;
}

}  // namespace
}  // namespace bloomroute
