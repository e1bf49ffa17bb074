// The router owns the filter config, end to end: region server processes
// loaded under one router's cluster config, then a router with another one.
// After that router's first catch-up every server's filter has its config,
// and lookups are exact throughout (compared with a full scan).
#include <gtest/gtest.h>

#include <chrono>
#include <csignal>
#include <map>
#include <memory>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include "index/scalable_split_counting_bloom_filter.h"
#include "tests/integration/process_cluster.h"
#include "tests/integration/router_client.h"
#include "tests/integration/server_process.h"

namespace bloomroute::testing {
namespace {

namespace client = ::bloomroute::rpc::client;

constexpr int kRegionServers = 2;
constexpr int kRows = 400;

// Router B's options and the config they give each of two servers.
const std::vector<std::string> kRouterBFlags = {
    "--target-false-routes",     "0.01", "--filter-tightening-ratio", "0.7",
    "--filter-initial-capacity", "256"};
SscbfConfig RouterBConfig() {
  SscbfConfig c;
  c.target_fpr = 0.01 / 2;  // two servers
  c.tightening_ratio = 0.7;
  c.initial_capacity = 256;
  return c;
}

class ClusterFilterConfigTest : public ::testing::Test {
 protected:
  void SetUp() override {
    ASSERT_TRUE(cluster_.ok()) << cluster_.error();
    Connect(cluster_.router_port());
    client::TTableInfo info;
    (*client_)->createIndexedTable(
        info, MakeTableSpec("places", {"d:country"}, 0, {"k2"}));
    std::vector<client::TPut> puts;
    for (int i = 0; i < kRows; ++i) {
      puts.push_back(MakePut("k" + std::to_string(i),
                             {{"d:country", "C" + std::to_string(i % 97)}}));
    }
    (*client_)->putMultiple("places", puts);
    truth_ = ScanCountries();
    ASSERT_EQ(truth_.size(), 97u);
  }
  void Connect(int port) { client_ = std::make_unique<RouterClient>(port); }

  // country -> row keys, from a full scan.
  std::map<std::string, std::set<std::string>> ScanCountries() {
    std::map<std::string, std::set<std::string>> out;
    const int64_t id = (*client_)->openScanner("places", MakeScan());
    while (true) {
      std::vector<client::TResult> part;
      (*client_)->getScannerRows(part, id, 1000, 0);
      if (part.empty()) break;
      for (const auto& r : part) out[CellsOf(r)["d:country"]].insert(r.row);
    }
    (*client_)->closeScanner(id);
    return out;
  }
  // Every value's lookup returns exactly the rows the scan found.
  void ExpectExactLookups() {
    for (const auto& [country, rows] : truth_) {
      client::TIndexResult r;
      (*client_)->getByIndex(r, "places", MakeQuery({{"d:country", country}}));
      const std::vector<std::string> keys = RowKeys(r.rows);
      ASSERT_EQ(std::set<std::string>(keys.begin(), keys.end()), rows)
          << country;
      ASSERT_FALSE(r.partial);
    }
    client::TIndexResult none;
    (*client_)->getByIndex(none, "places", MakeQuery({{"d:country", "none"}}));
    EXPECT_TRUE(none.rows.empty());
  }
  // Every replica is current and was set `target_fpr` by this router.
  bool AllConfigured(double target_fpr,
                     std::vector<client::TServerIndexStats>* stats) {
    (*client_)->getIndexStats(*stats);
    if (stats->size() != static_cast<size_t>(kRegionServers)) return false;
    for (const auto& s : *stats) {
      if (!s.current || !s.hasClusterConfig ||
          s.clusterFilter.targetFpr != target_fpr) {
        return false;
      }
    }
    return true;
  }

  // Router A: P = 0.2 / 2 per server, r = 0.5, n0 = 64.
  ProcessCluster cluster_{
      kRegionServers,
      {},
      {"--target-false-routes", "0.2", "--filter-tightening-ratio", "0.5",
       "--filter-initial-capacity", "64"}};
  std::unique_ptr<RouterClient> client_;
  std::map<std::string, std::set<std::string>> truth_;
};

TEST_F(ClusterFilterConfigTest, ARouterWithAnotherConfigRebuildsTheServers) {
  std::vector<client::TServerIndexStats> stats;
  const auto deadline =
      std::chrono::steady_clock::now() + std::chrono::seconds(8);
  while (!AllConfigured(0.1, &stats) &&
         std::chrono::steady_clock::now() < deadline) {
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
  ASSERT_TRUE(AllConfigured(0.1, &stats));
  const int64_t a_slice_length = stats[0].stageStats.at(0).sliceLength;
  ExpectExactLookups();

  // Router B on the same catalog and port, with another config.
  client_.reset();
  ASSERT_TRUE(cluster_.StopRouter());
  StartedServer b = StartRouter(cluster_.dir() + "/router",
                                cluster_.region_server_addresses(),
                                cluster_.router_port(), kRouterBFlags);
  ASSERT_NE(b.port, 0) << b.line;
  Connect(b.port);
  // Lookups stay exact while B sets its config and catches up.
  const double b_fpr = RouterBConfig().target_fpr;
  const auto b_deadline =
      std::chrono::steady_clock::now() + std::chrono::seconds(8);
  while (!AllConfigured(b_fpr, &stats) &&
         std::chrono::steady_clock::now() < b_deadline) {
    ExpectExactLookups();
  }
  ASSERT_TRUE(AllConfigured(b_fpr, &stats));
  // The replicas B loaded are the servers' filters: on B's ladder.
  for (const auto& s : stats) {
    EXPECT_DOUBLE_EQ(s.clusterFilter.targetFalseRoutes, 0.01);
    EXPECT_EQ(s.clusterFilter.initialCapacity, 256);
    ASSERT_FALSE(s.stageStats.empty());
    for (const auto& st : s.stageStats) {
      const StageGeometry g =
          StageGeometryFor(RouterBConfig(), static_cast<uint32_t>(st.stage))
              .value();
      EXPECT_EQ(st.slices, static_cast<int32_t>(g.slices));
      EXPECT_EQ(st.sliceLength, static_cast<int64_t>(g.slice_length));
    }
  }
  EXPECT_NE(stats[0].stageStats.at(0).sliceLength, a_slice_length);
  ExpectExactLookups();
  client_.reset();
  b.process->Signal(SIGTERM);
  EXPECT_TRUE(b.process->Wait().has_value());
}

}  // namespace
}  // namespace bloomroute::testing
