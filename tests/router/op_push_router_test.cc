// A Router with op subscriptions switched on (RouterOptions::
// op_push_address): its maintenance subscribes to every region server, a
// write another router sent is pushed to it before the server acknowledges
// it, and its lookups find the row while routing by the pushed op.
#include <gtest/gtest.h>

#include <memory>
#include <string>
#include <vector>

#include "model/op_push.h"
#include "router/router.h"
#include "tests/regionstore/op_push_test_sinks.h"
#include "tests/router/router_test_util.h"
#include "tests/router/store_cluster.h"

namespace bloomroute {
namespace {

using router::ServerId;
using router::ServerRef;

RegionStoreOptions PushingStores(std::shared_ptr<OpPushSinkFactory> sinks) {
  RegionStoreOptions o;
  o.op_push_sinks = std::move(sinks);
  // Short, so that the first write's start-up wait (the longest lease
  // plus its margin) takes 2.2 s of the test.
  o.max_op_lease_ms = 2000;
  return o;
}

class OpPushRouterTest : public ::testing::Test {
 protected:
  void SetUp() override {
    router::RouterOptions o = testing::RouterOptionsFor(cluster_);
    o.op_push_address = "router-1";
    o.router_id = 1;
    o.op_lease_ms = 2000;
    auto opened = router::Router::Open(o, cluster_.Factory());
    ASSERT_TRUE(opened.ok()) << opened.status().ToString();
    router_ = std::move(opened).value();
    std::shared_ptr<router::Router> r = router_;
    sinks_->SetHandler("router-1",
                       [r](const OpPush& p) { return r->ApplyOpPush(p); });
    router::TableSpec s;
    s.name = "places";
    s.indexed_columns = {"d:country", "d:feature"};
    s.split_keys = {"g", "n", "t"};
    StatusOr<router::TableInfo> t = router_->CreateTable(s);
    ASSERT_TRUE(t.ok()) << t.status().ToString();
    table_ = *t;
    ASSERT_TRUE(testing::WaitAllCurrent(*router_));
  }
  void TearDown() override {
    sinks_->SetHandler("router-1", [](const OpPush&) {
      return Status::Unavailable("router stopped");
    });
  }
  int NodeOf(ServerId id) const {
    const std::vector<ServerRef> s = router_->Servers();
    for (size_t i = 0; i < s.size(); ++i) {
      if (s[i].id == id) return static_cast<int>(i);
    }
    return -1;
  }

  std::shared_ptr<testing::OpPushTestSinks> sinks_ =
      std::make_shared<testing::OpPushTestSinks>();
  testing::StoreCluster cluster_{4, PushingStores(sinks_)};
  std::shared_ptr<router::Router> router_;
  router::TableInfo table_;
};

TEST_F(OpPushRouterTest, AnotherRoutersWriteIsPushedAndRoutedTo) {
  const router::RegionLocation& first = table_.regions.front();
  const int node = NodeOf(first.server.id);
  ASSERT_GE(node, 0);
  EXPECT_EQ(cluster_.store(node)->OpSubscriberCount(), 1u);
  // Router 2 (not this one) writes straight to the region's server.
  StatusOr<WriteResult> w = cluster_.store(node)->Apply(
      {Mutation::Put(first.region.region_id, "a1",
                     {{"d:country", "NO"}, {"d:feature", "PPL"}})},
      MakeFenceToken(2, 1));
  ASSERT_TRUE(w.ok()) << w.status().ToString();
  EXPECT_FALSE(sinks_->Delivered("router-1").empty());
  StatusOr<router::LookupResult> found =
      router_->Lookup("places", testing::WhereEq({{"d:country", "NO"}}));
  ASSERT_TRUE(found.ok()) << found.status().ToString();
  EXPECT_EQ(testing::Keys(found->rows), std::vector<std::string>{"a1"});
  ASSERT_EQ(found->routing.asked.size(), 1u) << "not routed by the push";
  EXPECT_EQ(found->routing.asked[0].id, first.server.id);
}

TEST_F(OpPushRouterTest, ARouterWithoutAPushAddressTakesNoPushes) {
  testing::StoreCluster plain(1);
  auto r =
      router::Router::Open(testing::RouterOptionsFor(plain), plain.Factory());
  ASSERT_TRUE(r.ok());
  EXPECT_TRUE((*r)->ApplyOpPush(OpPush{}).IsInvalidArgument());
  OpPush stray;
  stray.tag = 999999;  // no server of this router
  EXPECT_TRUE(router_->ApplyOpPush(stray).IsNotFound());
}

TEST(OpPushRouterOptionsTest, TheLeaseMustOutlastThreeMaintenancePasses) {
  router::RouterOptions o;
  o.data_dir = "unused";
  o.op_push_address = "router-1";
  o.maintenance_interval_ms = 1000;
  o.op_lease_ms = 3000;
  EXPECT_TRUE(o.Validate().IsInvalidArgument());
  o.op_lease_ms = 3001;
  EXPECT_TRUE(o.Validate().ok()) << o.Validate().ToString();
  o.op_lease_ms = 50;  // below the servers' minimum
  EXPECT_TRUE(o.Validate().IsInvalidArgument());
  o.op_push_address.clear();
  o.op_lease_ms = 10000;
  EXPECT_TRUE(o.Validate().ok());
}

}  // namespace
}  // namespace bloomroute
