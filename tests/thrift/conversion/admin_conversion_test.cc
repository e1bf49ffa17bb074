#include "thrift/conversion/admin_conversion.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <limits>
#include <string>
#include <vector>

#include "tests/integration/router_client.h"
#include "tests/thrift/wire_util.h"

namespace bloomroute {
namespace {

namespace client = rpc::client;
using ::bloomroute::testing::MakeDelete;
using ::bloomroute::testing::MakeGet;
using ::bloomroute::testing::MakePut;
using ::bloomroute::testing::MakeQuery;
using ::bloomroute::testing::MakeScan;
using ::bloomroute::testing::MakeTableSpec;
using ::testing::ElementsAre;
using ::testing::HasSubstr;

class AdminConversionTest : public ::testing::Test {};

TEST_F(AdminConversionTest, IndexStatsReportTheNewestStagesFill) {
  router::ServerIndexStats s;
  s.server = {5, "127.0.0.1:9095"};
  s.replica.loaded = true;
  s.replica.current = false;
  s.replica.epoch = 2;
  s.replica.seq = 90;
  s.ops_behind = 10;
  s.replica.filter.elements = 1000;
  s.replica.filter.estimated_fpr = 0.01;
  s.replica.filter.compounded_bound = 0.02;
  s.replica.filter.memory_bytes = 4096;
  s.replica.filter.stages.resize(2);
  s.replica.filter.stages[0].fill = 0.5;
  s.replica.filter.stages[1].fill = 0.125;
  s.replica.filter.stages[1].geometry.stage = 1;
  s.replica.filter.stages[1].geometry.slices = 9;
  std::vector<client::TServerIndexStats> out;
  ASSERT_TRUE(ToThrift(std::vector<router::ServerIndexStats>{s}, &out).ok());
  out = ThroughWire(out);
  ASSERT_EQ(out.size(), 1u);
  EXPECT_EQ(out[0].server.id, 5);
  EXPECT_TRUE(out[0].loaded);
  EXPECT_FALSE(out[0].current);
  EXPECT_EQ(out[0].epoch, 2);
  EXPECT_EQ(out[0].seq, 90);
  EXPECT_EQ(out[0].opsBehind, 10);
  EXPECT_EQ(out[0].stages, 2);
  EXPECT_EQ(out[0].elements, 1000);
  EXPECT_DOUBLE_EQ(out[0].fill, 0.125);
  EXPECT_DOUBLE_EQ(out[0].estimatedFpr, 0.01);
  EXPECT_DOUBLE_EQ(out[0].compoundedBound, 0.02);
  EXPECT_EQ(out[0].memoryBytes, 4096);
  ASSERT_EQ(out[0].stageStats.size(), 2u);
  EXPECT_EQ(out[0].stageStats[1].stage, 1);
  EXPECT_EQ(out[0].stageStats[1].slices, 9);

  router::ServerIndexStats empty;  // never loaded: no stages, fill 0
  ASSERT_TRUE(
      ToThrift(std::vector<router::ServerIndexStats>{empty}, &out).ok());
  EXPECT_EQ(out[0].stages, 0);
  EXPECT_DOUBLE_EQ(out[0].fill, 0.0);
}

TEST_F(AdminConversionTest, IndexStatsCarryTheClusterFilterConfig) {
  router::ServerIndexStats s;
  s.server = {1, "127.0.0.1:9091"};
  s.target_false_routes = 0.05;
  s.cluster_config.target_fpr = 0.05 / 1024;
  s.cluster_config.tightening_ratio = 0.8;
  s.cluster_config.initial_capacity = 16384;
  s.has_cluster_config = true;
  std::vector<client::TServerIndexStats> out;
  ASSERT_TRUE(ToThrift(std::vector<router::ServerIndexStats>{s}, &out).ok());
  out = ThroughWire(out);
  ASSERT_TRUE(out[0].__isset.clusterFilter);
  EXPECT_DOUBLE_EQ(out[0].clusterFilter.targetFalseRoutes, 0.05);
  EXPECT_DOUBLE_EQ(out[0].clusterFilter.targetFpr, 0.05 / 1024);
  EXPECT_EQ(out[0].clusterFilter.initialCapacity, 16384);
  EXPECT_TRUE(out[0].hasClusterConfig);

  std::vector<router::ServerIndexStats> back;
  ASSERT_TRUE(thrift_internal::IndexStatsFromThrift(out, &back).ok());
  ASSERT_EQ(back.size(), 1u);
  EXPECT_TRUE(back[0].cluster_config == s.cluster_config);
  EXPECT_DOUBLE_EQ(back[0].target_false_routes, 0.05);
  EXPECT_TRUE(back[0].has_cluster_config);

  // An impossible config from a router is Corruption, not a crash.
  out[0].clusterFilter.__set_tighteningRatio(3);
  EXPECT_TRUE(thrift_internal::IndexStatsFromThrift(out, &back).IsCorruption());
  out[0].clusterFilter.__set_tighteningRatio(0.8);
  out[0].clusterFilter.__set_initialCapacity(-1);
  EXPECT_TRUE(thrift_internal::IndexStatsFromThrift(out, &back).IsCorruption());
}

TEST_F(AdminConversionTest, ClusterStatusSetsErrorOnlyWhenUnreachable) {
  router::ClusterStatus in;
  in.tables = 2;
  in.regions = 9;
  in.servers = {
      {{0, "127.0.0.1:1"}, true, "", 5, true, 2, "NotFound: no such region"},
      {{1, "127.0.0.1:2"}, false, "connection refused", 4, false, 0, ""}};
  client::TClusterStatus out;
  ASSERT_TRUE(ToThrift(in, &out).ok());
  out = ThroughWire(out);
  EXPECT_EQ(out.tables, 2);
  EXPECT_EQ(out.regions, 9);
  ASSERT_EQ(out.servers.size(), 2u);
  EXPECT_TRUE(out.servers[0].reachable);
  EXPECT_FALSE(out.servers[0].__isset.error);
  EXPECT_EQ(out.servers[0].regions, 5);
  EXPECT_TRUE(out.servers[0].replicaCurrent);
  EXPECT_EQ(out.servers[0].regionsNotServed, 2);
  EXPECT_EQ(out.servers[0].reopenError, "NotFound: no such region");
  EXPECT_FALSE(out.servers[1].__isset.reopenError);
  EXPECT_FALSE(out.servers[1].reachable);
  ASSERT_TRUE(out.servers[1].__isset.error);
  EXPECT_THAT(out.servers[1].error, HasSubstr("refused"));
}

}  // namespace
}  // namespace bloomroute
