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

}  // namespace
}  // namespace bloomroute::router
