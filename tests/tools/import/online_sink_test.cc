// The online sink over a fake RouterClient: batches in flight, order of a
// row's writes, failures.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "tests/tools/import/unused_router_client.h"
#include "tools/import/row_sink.h"

namespace bloomroute {
namespace {

// Only Mutate does anything: it sleeps a little, records the batch and the
// most calls at once, and fails for a batch whose first key is `fail_key`.
class FakeRouterClient : public testing::UnusedRouterClient {
 public:
  Status Mutate(std::string_view table,
                const std::vector<Mutation>& batch) override {
    const int now = ++calls_;
    {
      std::lock_guard<std::mutex> lock(mu);
      max_calls = std::max(max_calls, now);
    }
    std::this_thread::sleep_for(
        std::chrono::milliseconds(batch.front().row_key == slow_key ? 50 : 5));
    --calls_;
    std::lock_guard<std::mutex> lock(mu);
    if (batch.front().row_key == fail_key) {
      return Status::InvalidArgument("router says no");
    }
    tables.emplace_back(table);
    for (const Mutation& m : batch) {
      applied.push_back(m.row_key + "=" + m.cells[0].value);
    }
    return Status::OK();
  }

  std::string fail_key;
  std::string slow_key;
  std::mutex mu;
  int max_calls = 0;                 // guarded by mu
  std::vector<std::string> applied;  // guarded by mu: "key=value"
  std::vector<std::string> tables;   // guarded by mu

 private:
  std::atomic<int> calls_{0};
};

std::vector<Mutation> Batch(const std::vector<std::string>& keys,
                            const std::string& value) {
  std::vector<Mutation> batch;
  for (const std::string& k : keys) {
    batch.push_back(Mutation::Put(0, k, {{"d:v", value}}));
  }
  return batch;
}

class OnlineSinkTest : public ::testing::Test {
 protected:
  FakeRouterClient client_;
};

TEST_F(OnlineSinkTest, KeepsSeveralBatchesInFlightAndCountsAcknowledgedRows) {
  auto sink = NewOnlineSink(&client_, "geo", 3);
  for (int i = 0; i < 12; ++i) {
    ASSERT_TRUE(
        sink->Write(
                Batch({"k" + std::to_string(i), "x" + std::to_string(i)}, "1"))
            .ok());
  }
  ASSERT_TRUE(sink->Finish().ok());
  EXPECT_EQ(sink->rows_written(), 24u);
  EXPECT_EQ(client_.applied.size(), 24u);
  EXPECT_EQ(client_.tables.front(), "geo");
  EXPECT_GT(client_.max_calls, 1);
  EXPECT_LE(client_.max_calls, 3);
}

TEST_F(OnlineSinkTest, ALaterBatchWithTheSameKeyWaitsForTheEarlierOne) {
  client_.slow_key = "same";
  auto sink = NewOnlineSink(&client_, "geo", 4);
  ASSERT_TRUE(sink->Write(Batch({"same", "a"}, "old")).ok());  // slow
  ASSERT_TRUE(sink->Write(Batch({"b", "same"}, "new")).ok());
  ASSERT_TRUE(sink->Finish().ok());
  const auto& applied = client_.applied;
  const auto old_at = std::find(applied.begin(), applied.end(), "same=old");
  const auto new_at = std::find(applied.begin(), applied.end(), "same=new");
  ASSERT_NE(old_at, applied.end());
  ASSERT_NE(new_at, applied.end());
  EXPECT_LT(old_at, new_at);
}

TEST_F(OnlineSinkTest, AFailedWriteFailsTheSinkWithTheRoutersMessage) {
  client_.fail_key = "bad";
  auto sink = NewOnlineSink(&client_, "geo", 1);
  ASSERT_TRUE(sink->Write(Batch({"a"}, "1")).ok());
  ASSERT_TRUE(sink->Write(Batch({"bad"}, "1")).ok());
  Status s;
  for (int i = 0; i < 100 && s.ok(); ++i) {
    s = sink->Write(Batch({"c" + std::to_string(i)}, "1"));
  }
  EXPECT_TRUE(s.IsInvalidArgument());
  const Status finished = sink->Finish();
  EXPECT_EQ(finished.message(), "router says no");
  EXPECT_EQ(sink->rows_written(), client_.applied.size());
  EXPECT_LT(sink->rows_written(), 101u);
}

}  // namespace
}  // namespace bloomroute
