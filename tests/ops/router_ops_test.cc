// The router's readiness and status page over a router of four in-process
// region servers.
#include "ops/router_ops.h"

#include <gtest/gtest.h>

#include <memory>
#include <string>

#include "tests/router/router_test_util.h"

namespace bloomroute::ops {
namespace {

using bloomroute::testing::OpenRouter;
using bloomroute::testing::PutRow;
using bloomroute::testing::StoreCluster;
using bloomroute::testing::WhereEq;

class RouterOpsTest : public ::testing::Test {
 protected:
  void SetUp() override {
    router_ = OpenRouter(cluster_);
    ASSERT_NE(router_, nullptr);
    router::TableSpec s;
    s.name = "places";
    s.indexed_columns = {"d:country"};
    s.split_keys = {"g", "n", "t"};
    ASSERT_TRUE(router_->CreateTable(s).ok());
    ASSERT_TRUE(router_->Mutate(s.name, {PutRow("oslo", "NO", "P")}).ok());
    ASSERT_TRUE(router_->Lookup(s.name, WhereEq({{"d:country", "NO"}})).ok());
  }

  StoreCluster cluster_{4};
  std::unique_ptr<router::Router> router_;
};

TEST_F(RouterOpsTest, ReadyWhenServersAnswerAndSaysWhichDoNot) {
  Readiness ready = RouterReadiness(*router_);
  EXPECT_TRUE(ready.ready) << ready.reason;
  EXPECT_NE(ready.reason.find("4 of 4 region servers answered"),
            std::string::npos)
      << ready.reason;
  cluster_.Down(1);
  router_.reset();
  router_ = OpenRouter(cluster_);
  ready = RouterReadiness(*router_);
  EXPECT_TRUE(ready.ready) << ready.reason;
  EXPECT_NE(ready.reason.find("3 of 4"), std::string::npos) << ready.reason;
  EXPECT_NE(ready.reason.find("down: 2 ("), std::string::npos) << ready.reason;
}

TEST_F(RouterOpsTest, StatusPageShowsServersTablesAndRouting) {
  RouterPageInfo info;
  info.address = "127.0.0.1:9090";
  info.version = "test";
  info.started = std::chrono::system_clock::now();
  const std::string page = RouterStatusPage(*router_, info, 10);
  EXPECT_NE(page.find("<table id=\"servers\">"), std::string::npos);
  EXPECT_NE(page.find("<table id=\"tables\">"), std::string::npos);
  EXPECT_NE(page.find("<table id=\"region-ops\">"), std::string::npos);
  EXPECT_NE(page.find("<table id=\"fanout\">"), std::string::npos);
  EXPECT_NE(page.find("http-equiv=\"refresh\" content=\"10\""),
            std::string::npos);
  // Every server is listed, and the table with its index.
  for (const router::ServerRef& s : router_->Servers()) {
    EXPECT_NE(page.find("<td>" + s.address + "</td>"), std::string::npos)
        << s.address;
  }
  EXPECT_NE(page.find("<td>places</td>"), std::string::npos);
  EXPECT_NE(page.find("d:country (ready)"), std::string::npos);
  EXPECT_NE(page.find("False routes per lookup"), std::string::npos);
}

}  // namespace
}  // namespace bloomroute::ops
