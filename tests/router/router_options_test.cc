// RouterOptions::Validate: the bounds of the router's options.
#include "router/router_options.h"

#include <gtest/gtest.h>

#include <string>

namespace bloomroute::router {
namespace {

TEST(RouterOptionsTest, ValidateNamesTheBadField) {
  RouterOptions o;
  o.data_dir = "d";
  o.region_servers = {"a:1", "a:1"};
  EXPECT_NE(o.Validate().message().find("twice"), std::string::npos);
  o.region_servers = {};  // Open checks the catalog's members instead
  EXPECT_TRUE(o.Validate().ok());
  o.region_servers.assign(RouterOptions::kMaxServers + 1, "a:1");
  EXPECT_TRUE(o.Validate().IsInvalidArgument());
  o.region_servers = {"a:1"};
  EXPECT_TRUE(o.Validate().ok());
  o.server_calls_per_request = 0;
  EXPECT_NE(o.Validate().message().find("server_calls_per_request"),
            std::string::npos);
  o.server_calls_per_request = 4;
  o.maintenance_interval_ms = 0;
  EXPECT_TRUE(o.Validate().IsInvalidArgument());
}

// The messages name the field (and the flag where one sets it) and its
// bounds, which are the FieldRange constants the router command also uses.
TEST(RouterOptionsTest, EachBoundHasItsMessage) {
  RouterOptions valid;
  valid.data_dir = "d";
  ASSERT_TRUE(valid.Validate().ok());
  const auto message = [&valid](void (*change)(RouterOptions&)) {
    RouterOptions o = valid;
    change(o);
    return o.Validate().message();
  };
  EXPECT_EQ(message([](RouterOptions& o) { o.fanout_threads = 1025; }),
            "fanout_threads is above 1024");
  EXPECT_EQ(message([](RouterOptions& o) { o.balancer_interval_ms = -1; }),
            "balancer_interval_ms (--balancer-interval) must be in [0, "
            "604800000]");
  EXPECT_EQ(message([](RouterOptions& o) { o.region_split_bytes = 5; }),
            "region_split_bytes (--region-split-bytes) must be 0 or at least "
            "1048576");
  EXPECT_EQ(message([](RouterOptions& o) { o.index_chunk_rows = 0; }),
            "index_chunk_rows must be in [1, 100000] (--index-chunk-rows)");
  EXPECT_EQ(message([](RouterOptions& o) { o.index_chunks_per_pass = 0; }),
            "index_chunks_per_pass must be >= 1");
  EXPECT_EQ(message([](RouterOptions& o) { o.scanner_idle_timeout_ms = 999; }),
            "scanner_idle_timeout_ms must be >= 1000");
  EXPECT_EQ(message([](RouterOptions& o) { o.max_table_bytes = 1; }),
            "max_table_bytes must be in [65536, 16777216]");
  EXPECT_EQ(
      message([](RouterOptions& o) { o.max_listed_descriptor_bytes = 0; }),
      "max_listed_descriptor_bytes must be in [65536, 50331648]");
  RouterOptions off = valid;
  off.region_split_bytes = 0;  // never split
  off.balancer_interval_ms = 0;
  off.fanout_threads = 0;  // the calling thread only
  off.region_split_bytes = ~uint64_t{0};
  EXPECT_TRUE(off.Validate().ok());
}

// A router's fence tokens are the epoch times 2^24 in 48 bits: the floor
// stays below 2^24.
TEST(RouterOptionsTest, MinCoordinatorEpochIsBounded) {
  RouterOptions o;
  o.data_dir = "d";
  o.min_coordinator_epoch = (uint64_t{1} << 24) - 1;
  EXPECT_TRUE(o.Validate().ok()) << o.Validate().ToString();
  o.min_coordinator_epoch = uint64_t{1} << 24;
  EXPECT_TRUE(o.Validate().IsInvalidArgument());
  EXPECT_NE(o.Validate().message().find("--min-coordinator-epoch"),
            std::string::npos)
      << o.Validate().ToString();
}

}  // namespace
}  // namespace bloomroute::router
