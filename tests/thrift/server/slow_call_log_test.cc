// SlowCallLog: newest first, bounded in records and in bytes, strings cut.
#include "thrift/server/slow_call_log.h"

#include <gtest/gtest.h>

#include <string>

namespace bloomroute {
namespace {

SlowCall Named(const std::string& method, size_t table_bytes = 1) {
  SlowCall c;
  c.method = method;
  c.table = std::string(table_bytes, 't');
  return c;
}

TEST(SlowCallLogTest, KeepsTheLastCallsNewestFirst) {
  SlowCallLog log;
  for (size_t i = 0; i < SlowCallLog::kMaxCalls + 10; ++i) {
    log.Add(Named("m" + std::to_string(i)));
  }
  const std::vector<SlowCall> calls = log.Newest();
  ASSERT_EQ(calls.size(), SlowCallLog::kMaxCalls);
  EXPECT_EQ(calls.front().method,
            "m" + std::to_string(SlowCallLog::kMaxCalls + 9));
  EXPECT_EQ(calls.back().method, "m10");
  log.Clear();
  EXPECT_TRUE(log.Newest().empty());
}

TEST(SlowCallLogTest, BoundedInBytesAndFieldsAreCut) {
  SlowCallLog log;
  SlowCall huge = Named("big", 10000);
  huge.user = std::string(10000, 'u');
  huge.client = std::string(10000, 'c');
  huge.outcome = std::string(10000, 'o');
  huge.method = std::string(10000, 'm');
  for (size_t i = 0; i < SlowCallLog::kMaxCalls; ++i) log.Add(huge);
  const std::vector<SlowCall> calls = log.Newest();
  ASSERT_FALSE(calls.empty());
  EXPECT_EQ(calls[0].table.size(), SlowCallLog::kMaxFieldBytes);
  size_t bytes = 0;
  for (const SlowCall& c : calls) bytes += c.Bytes();
  EXPECT_LE(bytes, SlowCallLog::kMaxBytes);
  EXPECT_LT(calls.size(), SlowCallLog::kMaxCalls);  // the bytes bound bit
}

}  // namespace
}  // namespace bloomroute
