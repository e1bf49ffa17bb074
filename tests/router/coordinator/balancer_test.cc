// Balancer: the splits and moves it chooses, against a fake cluster.
#include "router/coordinator/balancer.h"

#include <gtest/gtest.h>

#include <map>
#include <memory>
#include <set>
#include <string>
#include <vector>

namespace bloomroute::router_internal {
namespace {

using router::BalanceReport;
using router::ServerId;
using Kind = BalanceReport::Step::Kind;

// One ready table whose regions sit where `server_of` says, with the bytes
// `bytes_of` says. A move re-points the region; a split adds a region of
// half the bytes on the same server. `fail` answers the next step on a
// region with its status instead.
class FakeCluster : public BalancerCluster {
 public:
  std::set<ServerId> Members() const override { return members; }
  bool Draining(ServerId id) const override { return draining.count(id); }
  std::shared_ptr<const CatalogStore::TableList> Tables() const override {
    auto tables = std::make_shared<CatalogStore::TableList>(1);
    CatalogTable& t = tables->front();
    t.descriptor.table_id = 1;
    t.state = CatalogTable::State::kReady;
    for (const auto& [region, server] : server_of) {
      CatalogRegion r;
      r.region_id = region;
      r.server = server;
      t.regions.push_back(r);
    }
    return tables;
  }
  router::ServerRef Ref(ServerId id) const override {
    return {id, "server-" + std::to_string(id)};
  }
  std::vector<StatusOr<std::map<uint64_t, uint64_t>>> RegionBytes(
      const std::vector<ServerId>& ids,
      const std::vector<size_t>& max_regions) override {
    std::vector<StatusOr<std::map<uint64_t, uint64_t>>> out;
    for (ServerId id : ids) {
      if (silent.count(id) != 0) {
        out.push_back(Status::Unavailable("server " + std::to_string(id)));
        continue;
      }
      std::map<uint64_t, uint64_t> bytes;
      for (const auto& [region, server] : server_of) {
        if (server == id) bytes[region] = bytes_of[region];
      }
      out.push_back(bytes);
    }
    EXPECT_EQ(max_regions.size(), ids.size());
    return out;
  }
  StatusOr<router::RegionOpResult> RunSplit(uint64_t region_id) override {
    ++ops;
    if (auto it = fail.find(region_id); it != fail.end()) return it->second;
    bytes_of[region_id] /= 2;
    server_of[next_region] = server_of[region_id];
    bytes_of[next_region++] = bytes_of[region_id];
    return router::RegionOpResult{};
  }
  StatusOr<router::RegionOpResult> RunMove(uint64_t region_id,
                                           ServerId to) override {
    ++ops;
    if (auto it = fail.find(region_id); it != fail.end()) return it->second;
    server_of[region_id] = to;
    return router::RegionOpResult{};
  }

  std::set<ServerId> members{1, 2};
  std::set<ServerId> draining;
  std::set<ServerId> silent;  // RegionBytes fails for these
  std::map<uint64_t, ServerId> server_of;
  std::map<uint64_t, uint64_t> bytes_of;
  std::map<uint64_t, Status> fail;
  uint64_t next_region = 100;
  int ops = 0;
};

Balancer::Options NoSplits() {
  Balancer::Options options;
  options.max_operations = 10;
  return options;
}

TEST(BalancerTest, MovesTheRegionThatEvensTheBytesUntilCountsAreEven) {
  FakeCluster cluster;
  cluster.server_of = {{1, 1}, {2, 1}, {3, 1}};
  // Half the 600 bytes' difference is 300: region 2 evens it best.
  cluster.bytes_of = {{1, 100}, {2, 290}, {3, 210}};
  Balancer balancer(NoSplits(), &cluster);
  const BalanceReport report = balancer.Run(0, /*moves=*/true);
  EXPECT_TRUE(report.balanced);
  EXPECT_FALSE(report.failed);
  ASSERT_EQ(report.steps.size(), 1u);
  EXPECT_EQ(report.steps[0].kind, Kind::kMove);
  EXPECT_EQ(report.steps[0].region_id, 2u);
  EXPECT_EQ(report.steps[0].from.address, "server-1");
  EXPECT_EQ(report.steps[0].to.address, "server-2");
  EXPECT_EQ(cluster.server_of[2], 2u);
}

TEST(BalancerTest, SplitsARegionPastItsSizeAndWithoutMovesOnlySplits) {
  FakeCluster cluster;
  cluster.server_of = {{1, 1}, {2, 1}, {3, 1}};
  cluster.bytes_of = {{1, 10}, {2, 1500}, {3, 10}};
  Balancer::Options options = NoSplits();
  options.split_bytes = 1000;
  Balancer balancer(options, &cluster);
  const BalanceReport report = balancer.Run(0, /*moves=*/false);
  EXPECT_TRUE(report.balanced);  // of splits
  ASSERT_EQ(report.steps.size(), 1u);
  EXPECT_EQ(report.steps[0].kind, Kind::kSplit);
  EXPECT_EQ(report.steps[0].region_id, 2u);
  EXPECT_EQ(cluster.server_of.size(), 4u);
  EXPECT_EQ(cluster.server_of[100], 1u);  // no move
}

TEST(BalancerTest, StopsAtTheOperationLimit) {
  FakeCluster cluster;
  cluster.server_of = {{1, 1}, {2, 1}, {3, 1}, {4, 1}, {5, 1}};
  Balancer balancer(NoSplits(), &cluster);
  const BalanceReport report = balancer.Run(1, /*moves=*/true);
  EXPECT_FALSE(report.balanced);
  EXPECT_EQ(report.steps.size(), 1u);
  EXPECT_NE(report.stopped.find("limit of 1 operations"), std::string::npos);
}

TEST(BalancerTest, SkipsARegionThatFailedForAReasonOfItsOwn) {
  FakeCluster cluster;
  cluster.server_of = {{1, 1}, {2, 1}, {3, 1}};
  cluster.bytes_of = {{1, 100}, {2, 290}, {3, 210}};
  cluster.fail[2] = Status::InvalidArgument("no");
  Balancer balancer(NoSplits(), &cluster);
  const BalanceReport report = balancer.Run(0, /*moves=*/true);
  EXPECT_TRUE(report.failed);
  ASSERT_EQ(report.failures.size(), 1u);
  EXPECT_NE(report.failures[0].find("skips it for 60 s"), std::string::npos);
  ASSERT_EQ(report.steps.size(), 1u);  // went on with region 3
  EXPECT_EQ(report.steps[0].region_id, 3u);
  router::RegionSummary skipped;
  skipped.region_id = 2;
  balancer.DescribeRegion(&skipped);
  EXPECT_FALSE(skipped.balancer_skipped.empty());
}

TEST(BalancerTest, StopsOnAFailureOfTheClustersAndSkipsNoRegion) {
  FakeCluster cluster;
  cluster.server_of = {{1, 1}, {2, 1}, {3, 1}};
  cluster.bytes_of = {{1, 100}, {2, 290}, {3, 210}};
  cluster.fail[2] = Status::Unavailable("busy");
  Balancer balancer(NoSplits(), &cluster);
  const BalanceReport report = balancer.Run(0, /*moves=*/true);
  EXPECT_TRUE(report.failed);
  EXPECT_TRUE(report.steps.empty());
  EXPECT_EQ(cluster.ops, 1);
  router::RegionSummary summary;
  summary.region_id = 2;
  balancer.DescribeRegion(&summary);
  EXPECT_TRUE(summary.balancer_skipped.empty());
}

TEST(BalancerTest, AServerThatDoesNotAnswerEndsTheRun) {
  FakeCluster cluster;
  cluster.server_of = {{1, 1}, {2, 1}, {3, 1}};
  cluster.silent = {2};
  Balancer balancer(NoSplits(), &cluster);
  const BalanceReport report = balancer.Run(0, /*moves=*/true);
  EXPECT_TRUE(report.failed);
  EXPECT_NE(report.stopped.find("did not answer"), std::string::npos);
  EXPECT_EQ(cluster.ops, 0);
}

TEST(BalancerTest, LeavesADrainingMemberAlone) {
  FakeCluster cluster;
  cluster.members = {1, 2, 3};
  cluster.draining = {3};
  cluster.server_of = {{1, 1}, {2, 1}, {3, 3}, {4, 3}, {5, 3}};
  Balancer balancer(NoSplits(), &cluster);
  const BalanceReport report = balancer.Run(0, /*moves=*/true);
  // Server 3's regions are the decommission's: only 1 and 2 are evened.
  EXPECT_TRUE(report.balanced);
  ASSERT_EQ(report.steps.size(), 1u);
  EXPECT_EQ(report.steps[0].from.id, 1u);
  EXPECT_EQ(report.steps[0].to.id, 2u);
  EXPECT_EQ(cluster.server_of[3], 3u);
}

}  // namespace
}  // namespace bloomroute::router_internal
