// Maintenance: the router's background threads, against fake duties.
#include "router/coordinator/maintenance.h"

#include <gtest/gtest.h>

#include <chrono>
#include <condition_variable>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

namespace bloomroute::router_internal {
namespace {

using std::chrono::milliseconds;

// Records each duty called, in order; Await waits for a count.
class FakeDuties : public MaintenanceDuties {
 public:
  void MaintainCatalog() override { Note("catalog"); }
  void ProbeServers() override { Note("probe"); }
  void CatchUpReplicas() override { Note("catch-up"); }
  void ExpireScanners() override {
    std::this_thread::sleep_for(pass_delay);
    Note("expire");
    std::lock_guard<std::mutex> lock(mu_);
    ++passes_;
    cv_.notify_all();
  }
  void RunBalancerPass(bool moves) override {
    std::lock_guard<std::mutex> lock(mu_);
    ++(moves ? balancer_runs_ : split_runs_);
    cv_.notify_all();
  }

  // Whether `*count` reached `n` within `within`.
  bool Await(const int* count, int n, milliseconds within) {
    std::unique_lock<std::mutex> lock(mu_);
    return cv_.wait_for(lock, within, [&] { return *count >= n; });
  }
  int Read(const int* count) {
    std::lock_guard<std::mutex> lock(mu_);
    return *count;
  }
  std::vector<std::string> Calls() {
    std::lock_guard<std::mutex> lock(mu_);
    return calls_;
  }

  milliseconds pass_delay{0};  // set before the threads start
  int passes_ = 0;             // guarded by mu_
  int balancer_runs_ = 0;      // guarded by mu_
  int split_runs_ = 0;         // guarded by mu_

 private:
  void Note(const char* duty) {
    std::lock_guard<std::mutex> lock(mu_);
    calls_.push_back(duty);
  }
  std::mutex mu_;
  std::condition_variable cv_;
  std::vector<std::string> calls_;  // guarded by mu_
};

Maintenance::Options Hourly() {
  Maintenance::Options options;
  options.interval = std::chrono::hours(1);
  options.probe_interval = std::chrono::hours(1);
  return options;
}

TEST(MaintenanceTest, APassCallsTheDutiesInOrderAndProbesOncePerInterval) {
  FakeDuties duties;
  Maintenance maintenance(Hourly(), &duties);
  maintenance.RunPass();
  maintenance.RunPass();
  EXPECT_EQ(duties.Calls(),
            (std::vector<std::string>{"catalog", "probe", "catch-up", "expire",
                                      "catalog", "catch-up", "expire"}));
}

TEST(MaintenanceTest, AWakeRunsAPassPromptly) {
  FakeDuties duties;
  Maintenance maintenance(Hourly(), &duties);
  maintenance.Start();
  EXPECT_EQ(duties.Read(&duties.passes_), 0);  // not before the interval
  const auto start = std::chrono::steady_clock::now();
  maintenance.Wake();
  ASSERT_TRUE(duties.Await(&duties.passes_, 1, milliseconds(10000)));
  EXPECT_LT(std::chrono::steady_clock::now() - start, milliseconds(5000));
}

// With the balancer thread waiting too, every wake must still reach the
// maintenance thread. Before the fix both threads waited on one condition
// and a wake notified one waiter: after the first pass the maintenance
// thread waits behind the balancer's, the balancer's was woken, slept again,
// and the second wake ran no pass until the interval (an hour here).
TEST(MaintenanceTest, EveryWakeRunsAPassWhileTheBalancerWaits) {
  FakeDuties duties;
  Maintenance::Options options = Hourly();
  options.balancer_interval = std::chrono::hours(1);
  Maintenance maintenance(options, &duties);
  maintenance.Start();
  for (int pass = 1; pass <= 3; ++pass) {
    // Past the pause after a pass: both threads wait on their intervals.
    std::this_thread::sleep_for(milliseconds(300));
    maintenance.Wake();
    ASSERT_TRUE(duties.Await(&duties.passes_, pass, milliseconds(10000)))
        << "wake " << pass << " ran no pass";
  }
}

TEST(MaintenanceTest, AWakeBeforeStartRunsTheFirstPassAtOnce) {
  FakeDuties duties;
  Maintenance maintenance(Hourly(), &duties);
  maintenance.Wake();
  maintenance.Start();
  EXPECT_TRUE(duties.Await(&duties.passes_, 1, milliseconds(10000)));
}

TEST(MaintenanceTest, TheIntervalRunsPasses) {
  FakeDuties duties;
  Maintenance::Options options = Hourly();
  options.interval = milliseconds(10);
  Maintenance maintenance(options, &duties);
  maintenance.Start();
  // 10 ms apart plus the 100 ms pause: three within ten seconds.
  EXPECT_TRUE(duties.Await(&duties.passes_, 3, milliseconds(10000)));
}

TEST(MaintenanceTest, StopWaitsForThePassUnderWayAndRunsNoMore) {
  FakeDuties duties;
  duties.pass_delay = milliseconds(200);
  Maintenance::Options options = Hourly();
  options.balancer_interval = milliseconds(10);
  Maintenance maintenance(options, &duties);
  maintenance.Wake();  // before Start: the balancer thread cannot take it
  maintenance.Start();
  // Inside the pass: the catalog duty ran, the pass has not ended.
  for (int i = 0; i < 1000 && duties.Calls().empty(); ++i) {
    std::this_thread::sleep_for(milliseconds(1));
  }
  ASSERT_FALSE(duties.Calls().empty());
  maintenance.Stop();
  EXPECT_EQ(duties.Read(&duties.passes_), 1);
  const int balancer_runs = duties.Read(&duties.balancer_runs_);
  std::this_thread::sleep_for(milliseconds(100));
  EXPECT_EQ(duties.Read(&duties.passes_), 1);
  EXPECT_EQ(duties.Read(&duties.balancer_runs_), balancer_runs);
  maintenance.Stop();  // again: a no-op
}

TEST(MaintenanceTest, TheBalancerRunsWithMovesAndTheSplitsWithout) {
  FakeDuties duties;
  Maintenance::Options options = Hourly();
  options.balancer_interval = milliseconds(20);
  options.split_check_interval = milliseconds(5);
  Maintenance maintenance(options, &duties);
  maintenance.Start();
  EXPECT_TRUE(duties.Await(&duties.balancer_runs_, 2, milliseconds(10000)));
  EXPECT_TRUE(duties.Await(&duties.split_runs_, 2, milliseconds(10000)));
}

TEST(MaintenanceTest, NoBalancerThreadWithoutItsIntervals) {
  FakeDuties duties;
  Maintenance maintenance(Hourly(), &duties);
  maintenance.Start();
  std::this_thread::sleep_for(milliseconds(50));
  EXPECT_EQ(duties.Read(&duties.balancer_runs_), 0);
  EXPECT_EQ(duties.Read(&duties.split_runs_), 0);
}

}  // namespace
}  // namespace bloomroute::router_internal
