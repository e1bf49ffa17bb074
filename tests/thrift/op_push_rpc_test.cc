// Op subscriptions over RPC (invariant 1 across routers): two routers
// share one catalog (in a fake ZooKeeper ensemble) over three region
// servers on loopback. Each router serves an OpPushService; the region
// servers push it every op they commit and acknowledge a write only once
// each subscribed router holds its ops. So a lookup on one router that
// starts after another router's write was acknowledged finds the row,
// asking only the server that holds it -- and a router that dies delays
// the others' writes by at most its lease.
//
// Before subscribeOps existed on the wire, the Thrift client refused it
// (Unsupported): no router got a lease, every lookup asked every server
// (AllReplicasRouteOnceLeased failed: three servers asked for one row).
#include <gtest/gtest.h>

#include <chrono>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "coord/catalog/zk_catalog_store.h"
#include "coord/fake_znode_store.h"
#include "model/op_push.h"
#include "regionstore/region_store.h"
#include "router/router.h"
#include "tests/regionstore/region_store_test_util.h"
#include "tests/router/router_test_util.h"
#include "thrift/op_push_server.h"
#include "thrift/op_push_sink.h"
#include "thrift/region_server.h"
#include "thrift/thrift_region_client.h"

namespace bloomroute {
namespace {

using testing::TempDir;
using testing::WhereEq;

constexpr int kServers = 3;
constexpr int64_t kLeaseMs = 1000;

std::string Loopback(int port) { return "127.0.0.1:" + std::to_string(port); }

ThriftClientOptions ClientOptions() {
  ThriftClientOptions o;
  o.connect_timeout_ms = 2000;
  o.call_timeout_ms = 5000;
  return o;
}

// One router process: its Router and the push service in front of it.
struct RouterProcess {
  std::mutex mu;
  std::shared_ptr<router::Router> router;  // guarded by mu (pushes read it)
  std::unique_ptr<OpPushServer> pushes;

  Status Apply(const OpPush& push) {
    std::shared_ptr<router::Router> r;
    {
      std::lock_guard<std::mutex> lock(mu);
      r = router;
    }
    if (r == nullptr) return Status::Unavailable("the router is not open");
    return r->ApplyOpPush(push);
  }
  void Kill() {
    pushes->Stop();
    std::lock_guard<std::mutex> lock(mu);
    router.reset();
  }
};

class OpPushRpcTest : public ::testing::Test {
 protected:
  void SetUp() override {
    const auto started = std::chrono::steady_clock::now();
    std::vector<std::string> addresses;
    for (int i = 0; i < kServers; ++i) {
      RegionStoreOptions o;
      o.op_push_sinks = NewThriftOpPushSinkFactory(ClientOptions());
      o.max_op_lease_ms = kLeaseMs;
      StatusOr<std::unique_ptr<RegionStore>> store =
          RegionStore::Open(dirs_[i].path(), o);
      ASSERT_TRUE(store.ok()) << store.status().ToString();
      RegionServerOptions so;
      so.port = 0;
      StatusOr<std::unique_ptr<RegionServer>> server =
          RegionServer::Start(std::move(store).value(), so);
      ASSERT_TRUE(server.ok()) << server.status().ToString();
      servers_.push_back(std::move(server).value());
      addresses.push_back(Loopback(servers_.back()->port()));
    }
    ASSERT_TRUE(OpenRouter(0, addresses));
    ASSERT_TRUE(
        router(0).CreateTable({"t", {"d:country"}, {"i", "q"}, 0}).ok());
    ASSERT_TRUE(OpenRouter(1, {}));
    // Past the servers' start-up wait (OpSubscriptions, "Restarts"), so
    // that what a test times is its own.
    std::this_thread::sleep_until(
        started +
        std::chrono::milliseconds(kLeaseMs + LeaseMarginMs(kLeaseMs)));
  }

  bool OpenRouter(int i, std::vector<std::string> addresses) {
    auto process = std::make_unique<RouterProcess>();
    RouterProcess* p = process.get();
    ServerOptions po;
    po.port = 0;
    StatusOr<std::unique_ptr<OpPushServer>> pushes = OpPushServer::Start(
        [p](const OpPush& push) { return p->Apply(push); }, po);
    EXPECT_TRUE(pushes.ok()) << pushes.status().ToString();
    if (!pushes.ok()) return false;
    p->pushes = std::move(pushes).value();
    router::RouterOptions o;
    o.region_servers = std::move(addresses);
    o.router_id = static_cast<uint32_t>(i + 1);
    o.op_push_address = Loopback(p->pushes->port());
    o.op_lease_ms = kLeaseMs;
    o.maintenance_interval_ms = 20;
    o.balancer_interval_ms = 0;
    o.filter.initial_capacity = 64;
    coord::ZnodeCatalogOptions catalog;
    catalog.connect = [this] { return zk_.Connect("/bloomroute/t"); };
    StatusOr<std::unique_ptr<router::CatalogStore>> store =
        coord::OpenZnodeCatalog(std::move(catalog));
    EXPECT_TRUE(store.ok()) << store.status().ToString();
    if (!store.ok()) return false;
    StatusOr<std::unique_ptr<router::Router>> r =
        router::Router::Open(o, NewThriftRegionClientFactory(ClientOptions()),
                             std::move(store).value());
    EXPECT_TRUE(r.ok()) << r.status().ToString();
    if (!r.ok()) return false;
    p->router = std::move(r).value();
    processes_.push_back(std::move(process));
    return true;
  }

  router::Router& router(int i) { return *processes_[i]->router; }

  // Until a lookup of an absent value on router `i` asks no server: every
  // replica current, with a lease (up to 20 s).
  bool WaitRoutesNowhere(int i) {
    for (int n = 0; n < 2000; ++n) {
      StatusOr<router::LookupResult> r =
          router(i).Lookup("t", WhereEq({{"d:country", "absent"}}));
      if (r.ok() && r->routing.asked.empty()) return true;
      std::this_thread::sleep_for(std::chrono::milliseconds(10));
    }
    return false;
  }

  coord::FakeEnsemble zk_;
  TempDir dirs_[kServers];
  std::vector<std::unique_ptr<RegionServer>> servers_;
  std::vector<std::unique_ptr<RouterProcess>> processes_;
};

TEST_F(OpPushRpcTest, AllReplicasRouteOnceLeased) {
  ASSERT_TRUE(WaitRoutesNowhere(0));
  ASSERT_TRUE(WaitRoutesNowhere(1));
}

// Invariant 1 across routers: router 1 trusts its replicas (they route
// nowhere for an absent value), router 0 writes, and router 1's very next
// lookup finds each row, asking only its server.
TEST_F(OpPushRpcTest, AWriteOnOneRouterIsFoundOnTheOtherAtOnce) {
  ASSERT_TRUE(WaitRoutesNowhere(1));
  const char* rows[] = {"apple", "kiwi", "tomato"};  // one per server
  for (int i = 0; i < 3; ++i) {
    const std::string country = "c" + std::to_string(i);
    ASSERT_TRUE(
        router(0)
            .Mutate("t", {Mutation::Put(0, rows[i], {{"d:country", country}})})
            .ok());
    StatusOr<router::LookupResult> r =
        router(1).Lookup("t", WhereEq({{"d:country", country}}));
    ASSERT_TRUE(r.ok()) << r.status().ToString();
    EXPECT_EQ(testing::Keys(r->rows), std::vector<std::string>{rows[i]});
    EXPECT_EQ(r->routing.asked.size(), 1u) << country;
    EXPECT_TRUE(r->routing.asked_not_current.empty()) << country;
  }
}

// A router that dies holds the others' writes at most for its lease (the
// server's clock), and the survivors go on routing exactly.
TEST_F(OpPushRpcTest, ADeadRouterDelaysWritesAtMostItsLease) {
  ASSERT_TRUE(WaitRoutesNowhere(0));
  ASSERT_TRUE(WaitRoutesNowhere(1));
  processes_[1]->Kill();
  const auto start = std::chrono::steady_clock::now();
  ASSERT_TRUE(
      router(0)
          .Mutate("t", {Mutation::Put(0, "kiwi", {{"d:country", "NO"}})})
          .ok());
  const auto waited = std::chrono::steady_clock::now() - start;
  // The lease plus the server's margin, with room for a loaded machine.
  EXPECT_LT(waited, std::chrono::milliseconds(3 * kLeaseMs));
  StatusOr<router::LookupResult> r =
      router(0).Lookup("t", WhereEq({{"d:country", "NO"}}));
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_EQ(testing::Keys(r->rows), std::vector<std::string>{"kiwi"});
  // Later writes wait for no one: the dead router's subscription is gone.
  const auto again = std::chrono::steady_clock::now();
  ASSERT_TRUE(
      router(0)
          .Mutate("t", {Mutation::Put(0, "kiwi", {{"d:country", "SE"}})})
          .ok());
  EXPECT_LT(std::chrono::steady_clock::now() - again,
            std::chrono::milliseconds(kLeaseMs));
}

// A push is untrusted input: one naming no subscription is refused and
// nothing is applied; a malformed one is refused by the conversion.
TEST_F(OpPushRpcTest, APushNamingNoServerIsRefused) {
  OpPush push;
  push.tag = 987654321;
  push.result.incarnation = 1;
  push.result.epoch = 1;
  push.result.last_seq = 1;
  EXPECT_TRUE(processes_[0]->Apply(push).IsNotFound());
}

}  // namespace
}  // namespace bloomroute
