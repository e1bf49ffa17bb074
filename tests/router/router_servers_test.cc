// Router membership (coordinator/membership.cc): servers added to a running
// router, re-pointed to another address and removed, over in-process region
// stores (tests/router/store_cluster.h), and members surviving a restart
// without their region_servers flags.
#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <map>
#include <set>
#include <thread>

#include "common/sync_point.h"
#include "router/router.h"
#include "tests/router/router_test_util.h"

namespace bloomroute::router {
namespace {

using testing::Keys;
using testing::PutRow;
using testing::StoreCluster;
using testing::WhereEq;

TableSpec Places(std::string name, std::vector<std::string> splits) {
  TableSpec s;
  s.name = std::move(name);
  s.indexed_columns = {"d:country", "d:feature"};
  s.split_keys = std::move(splits);
  return s;
}

std::map<ServerId, int> RegionsPerServer(const TableInfo& t) {
  std::map<ServerId, int> out;
  for (const RegionLocation& r : t.regions) ++out[r.server.id];
  return out;
}

// StoreCluster's factory, plus addresses that reach stores the test opens
// itself (a server that came back on another address).
class MovedFactory : public RegionClientFactory {
 public:
  explicit MovedFactory(std::shared_ptr<RegionClientFactory> base)
      : base_(std::move(base)) {}
  void Add(std::shared_ptr<StoreCluster::Node> node) {
    std::lock_guard<std::mutex> lock(mu_);
    moved_[node->address] = std::move(node);
  }
  StatusOr<std::unique_ptr<RegionClient>> Connect(
      ServerId id, const std::string& address) override {
    {
      std::lock_guard<std::mutex> lock(mu_);
      auto it = moved_.find(address);
      if (it != moved_.end()) {
        return std::unique_ptr<RegionClient>(
            std::make_unique<testing::StoreRegionClient>(it->second));
      }
    }
    return base_->Connect(id, address);
  }

 private:
  const std::shared_ptr<RegionClientFactory> base_;
  std::mutex mu_;
  std::map<std::string, std::shared_ptr<StoreCluster::Node>> moved_;
};

class RouterServersTest : public ::testing::Test {
 protected:
  // A router of the first `n` servers of the cluster.
  std::unique_ptr<Router> OpenFirst(size_t n) {
    RouterOptions o = testing::RouterOptionsFor(cluster_);
    o.region_servers.resize(n);
    StatusOr<std::unique_ptr<Router>> r = Router::Open(o, factory_);
    EXPECT_TRUE(r.ok()) << r.status().ToString();
    return r.ok() ? std::move(r).value() : nullptr;
  }
  std::vector<std::string> Addresses(const Router& router) {
    std::vector<std::string> out;
    for (const ServerRef& s : router.Servers()) out.push_back(s.address);
    return out;
  }

  StoreCluster cluster_{4};
  std::shared_ptr<MovedFactory> factory_ =
      std::make_shared<MovedFactory>(cluster_.Factory());
};

TEST_F(RouterServersTest, AnAddedServerTakesRegionsOfNewTablesAndRows) {
  std::unique_ptr<Router> router = OpenFirst(2);
  ASSERT_NE(router, nullptr);
  const SscbfConfig config = router->filter_config();
  StatusOr<ServerRef> added = router->AddServer("server-2");
  ASSERT_TRUE(added.ok()) << added.status().ToString();
  EXPECT_EQ(added->id, 3u);
  EXPECT_EQ(added->address, "server-2");
  // Idempotent for a member's address.
  StatusOr<ServerRef> again = router->AddServer("server-2");
  ASSERT_TRUE(again.ok());
  EXPECT_EQ(*again, *added);
  EXPECT_EQ(Addresses(*router),
            (std::vector<std::string>{"server-0", "server-1", "server-2"}));
  // The config stays the one of the start (2 and 3 servers differ).
  EXPECT_TRUE(router->filter_config() == config);

  StatusOr<TableInfo> t = router->CreateTable(Places("places", {"h", "p"}));
  ASSERT_TRUE(t.ok()) << t.status().ToString();
  EXPECT_EQ(RegionsPerServer(*t),
            (std::map<ServerId, int>{{1, 1}, {2, 1}, {3, 1}}));
  ASSERT_TRUE(router
                  ->Mutate("places", {PutRow("apple", "NO", "PPL"),
                                      PutRow("kiwi", "NO", "PPL"),
                                      PutRow("zebra", "NO", "PPL")})
                  .ok());
  EXPECT_EQ(cluster_.store(2)->ListRegions().size(), 1u);
  StatusOr<LookupResult> found =
      router->Lookup("places", WhereEq({{"d:country", "NO"}}));
  ASSERT_TRUE(found.ok()) << found.status().ToString();
  EXPECT_EQ(Keys(found->rows),
            (std::vector<std::string>{"apple", "kiwi", "zebra"}));
  router->RunMaintenance();
  ASSERT_TRUE(testing::WaitAllCurrent(*router));
  EXPECT_EQ(router->IndexStats().size(), 3u);
  // The new server's filter got the cluster's config.
  EXPECT_TRUE(cluster_.store(2)->GetFilterStatus().config == config);
}

TEST_F(RouterServersTest, AServerThatDoesNotAnswerIsAddedAndCaughtUpLater) {
  std::unique_ptr<Router> router = OpenFirst(2);
  ASSERT_NE(router, nullptr);
  cluster_.Down(2);
  StatusOr<ServerRef> added = router->AddServer("server-2");
  ASSERT_TRUE(added.ok()) << added.status().ToString();
  EXPECT_EQ(router->Servers().size(), 3u);
  cluster_.Up(2);
  router->RunMaintenance();
  ASSERT_TRUE(testing::WaitAllCurrent(*router));

  EXPECT_TRUE(router->AddServer("").status().IsInvalidArgument());
  EXPECT_TRUE(
      router->AddServer(std::string(301, 'a')).status().IsInvalidArgument());
  // Connect refuses it: nothing is left behind in the catalog.
  Status unknown = router->AddServer("nowhere").status();
  EXPECT_TRUE(unknown.IsInvalidArgument()) << unknown.ToString();
  EXPECT_EQ(router->Servers().size(), 3u);
  router.reset();
  RouterOptions o = testing::RouterOptionsFor(cluster_);
  o.region_servers.clear();
  router = std::move(Router::Open(o, factory_)).value();
  EXPECT_EQ(Addresses(*router),
            (std::vector<std::string>{"server-0", "server-1", "server-2"}));
}

TEST_F(RouterServersTest, MembersAreServedAfterARestartWithoutTheirFlags) {
  std::unique_ptr<Router> router = OpenFirst(2);
  ASSERT_NE(router, nullptr);
  ASSERT_TRUE(router->AddServer("server-2").ok());
  ASSERT_TRUE(router->CreateTable(Places("places", {"h", "p"})).ok());
  ASSERT_TRUE(router
                  ->Mutate("places", {PutRow("apple", "NO", "PPL"),
                                      PutRow("kiwi", "NO", "PPL"),
                                      PutRow("zebra", "NO", "PPL")})
                  .ok());
  router.reset();
  // server-1 and server-2 are not named; server-3 is new.
  RouterOptions o = testing::RouterOptionsFor(cluster_);
  o.region_servers = {"server-0", "server-3"};
  StatusOr<std::unique_ptr<Router>> reopened = Router::Open(o, factory_);
  ASSERT_TRUE(reopened.ok()) << reopened.status().ToString();
  router = std::move(reopened).value();
  EXPECT_EQ(Addresses(*router),
            (std::vector<std::string>{"server-0", "server-1", "server-2",
                                      "server-3"}));
  StatusOr<LookupResult> found =
      router->Lookup("places", WhereEq({{"d:country", "NO"}}));
  ASSERT_TRUE(found.ok()) << found.status().ToString();
  EXPECT_EQ(Keys(found->rows),
            (std::vector<std::string>{"apple", "kiwi", "zebra"}));
  router.reset();
  // No flag at all: the members.
  o.region_servers.clear();
  reopened = Router::Open(o, factory_);
  ASSERT_TRUE(reopened.ok()) << reopened.status().ToString();
  EXPECT_EQ((*reopened)->Servers().size(), 4u);
}

TEST_F(RouterServersTest, OpenNeedsSomeServer) {
  RouterOptions o = testing::RouterOptionsFor(cluster_);
  o.region_servers.clear();
  StatusOr<std::unique_ptr<Router>> r = Router::Open(o, factory_);
  ASSERT_FALSE(r.ok());
  EXPECT_TRUE(r.status().IsInvalidArgument()) << r.status().ToString();
}

TEST_F(RouterServersTest, SetServerAddressFollowsAServerThatMoved) {
  std::unique_ptr<Router> router = OpenFirst(2);
  ASSERT_NE(router, nullptr);
  ASSERT_TRUE(router->CreateTable(Places("places", {"m"})).ok());
  ASSERT_TRUE(router
                  ->Mutate("places", {PutRow("apple", "NO", "PPL"),
                                      PutRow("zebra", "NO", "PPL")})
                  .ok());
  // server-1 (id 2, holding "zebra") stops, and its directory comes back
  // under another address.
  cluster_.Down(1);
  auto moved = std::make_shared<StoreCluster::Node>();
  moved->address = "moved-1";
  moved->path = cluster_.node(1).path;
  moved->options = cluster_.node(1).options;
  moved->Adopt(
      std::move(RegionStore::Open(moved->path, moved->options)).value());
  factory_->Add(moved);
  EXPECT_FALSE(router->Get("places", {{0, "zebra", {}}}).ok());

  EXPECT_TRUE(router->SetServerAddress(2, "server-0").IsInvalidArgument());
  EXPECT_TRUE(router->SetServerAddress(9, "moved-1").IsNotFound());
  ASSERT_TRUE(router->SetServerAddress(2, "moved-1").ok());
  // The client of the old address let go of its connections.
  EXPECT_EQ(cluster_.node(1).released.load(), 1);
  EXPECT_EQ(moved->released.load(), 0);
  EXPECT_EQ(Addresses(*router),
            (std::vector<std::string>{"server-0", "moved-1"}));
  StatusOr<std::vector<std::optional<Row>>> got =
      router->Get("places", {{0, "zebra", {}}});
  ASSERT_TRUE(got.ok()) << got.status().ToString();
  ASSERT_TRUE((*got)[0].has_value());
  StatusOr<LookupResult> found =
      router->Lookup("places", WhereEq({{"d:country", "NO"}}));
  ASSERT_TRUE(found.ok()) << found.status().ToString();
  EXPECT_EQ(Keys(found->rows), (std::vector<std::string>{"apple", "zebra"}));
  router->RunMaintenance();
  ASSERT_TRUE(testing::WaitAllCurrent(*router));
  EXPECT_EQ(router->DescribeTable("places")->regions[1].server.address,
            "moved-1");
  // Persisted: a restart without flags connects to the new address.
  router.reset();
  RouterOptions o = testing::RouterOptionsFor(cluster_);
  o.region_servers.clear();
  router = std::move(Router::Open(o, factory_)).value();
  EXPECT_EQ(Addresses(*router),
            (std::vector<std::string>{"server-0", "moved-1"}));
  got = router->Get("places", {{0, "zebra", {}}});
  ASSERT_TRUE(got.ok()) << got.status().ToString();
  EXPECT_TRUE((*got)[0].has_value());
}

TEST_F(RouterServersTest, RemoveServerRefusesAServerWithRegions) {
  std::unique_ptr<Router> router = OpenFirst(4);
  ASSERT_NE(router, nullptr);
  // Regions on ids 1 and 2.
  ASSERT_TRUE(router->CreateTable(Places("places", {"m"})).ok());
  Status refused = router->RemoveServer(1);
  EXPECT_TRUE(refused.IsInvalidArgument()) << refused.ToString();
  EXPECT_NE(refused.message().find("1 region"), std::string::npos)
      << refused.ToString();
  EXPECT_NE(refused.message().find("move"), std::string::npos);
  // A table being deleted still holds its regions on a server that is
  // down.
  ASSERT_TRUE(router->CreateTable(Places("other", {"c", "f"})).ok());
  ASSERT_EQ(router->DescribeTable("other")->regions[0].server.id, 3u);
  cluster_.Down(2);
  EXPECT_FALSE(router->DeleteTable("other").ok());
  refused = router->RemoveServer(3);
  EXPECT_TRUE(refused.IsInvalidArgument()) << refused.ToString();
  cluster_.Up(2);
  router->RunMaintenance();  // finishes the deletion
  EXPECT_TRUE(router->RemoveServer(3).ok());
  EXPECT_TRUE(router->RemoveServer(3).IsNotFound());
  EXPECT_TRUE(router->RemoveServer(42).IsNotFound());
  EXPECT_TRUE(router->SetServerAddress(3, "server-2").IsNotFound());
  EXPECT_EQ(Addresses(*router),
            (std::vector<std::string>{"server-0", "server-1", "server-3"}));
  EXPECT_EQ(router->ListServers().size(), 3u);
  EXPECT_EQ(router->IndexStats().size(), 3u);
}

TEST_F(RouterServersTest, ARemovedServerIsNeitherPlacedNorAsked) {
  std::unique_ptr<Router> router = OpenFirst(4);
  ASSERT_NE(router, nullptr);
  ASSERT_TRUE(router->RemoveServer(2).ok());
  TableSpec spec = Places("places", {});
  spec.region_count = 6;
  StatusOr<TableInfo> t = router->CreateTable(spec);
  ASSERT_TRUE(t.ok()) << t.status().ToString();
  EXPECT_EQ(RegionsPerServer(*t),
            (std::map<ServerId, int>{{1, 2}, {3, 2}, {4, 2}}));
  EXPECT_TRUE(cluster_.store(1)->ListRegions().empty());
  ASSERT_TRUE(router->Mutate("places", {PutRow("apple", "NO", "PPL")}).ok());
  const int64_t calls = cluster_.node(1).calls;
  StatusOr<LookupResult> found =
      router->Lookup("places", WhereEq({{"d:country", "NO"}}));
  ASSERT_TRUE(found.ok()) << found.status().ToString();
  EXPECT_EQ(found->rows.size(), 1u);
  for (const ServerRef& s : found->routing.asked) EXPECT_NE(s.id, 2u);
  router->RunMaintenance();
  EXPECT_EQ(cluster_.node(1).calls, calls);
  // Its address is free: adding it again makes a new member.
  StatusOr<ServerRef> back = router->AddServer("server-1");
  ASSERT_TRUE(back.ok());
  EXPECT_EQ(back->id, 5u);
}

// Writers and lookups on one thread each while another adds servers and
// creates tables: every acknowledged row is found by every later lookup.
TEST_F(RouterServersTest, AddingServersWhileWritingAndLookingUp) {
  StoreCluster cluster(6);
  RouterOptions o = testing::RouterOptionsFor(cluster);
  o.region_servers = {"server-0", "server-1"};
  std::unique_ptr<Router> router =
      std::move(Router::Open(o, cluster.Factory())).value();
  ASSERT_TRUE(router->CreateTable(Places("rows", {"m"})).ok());
  std::atomic<bool> done{false};
  std::atomic<int> acked{0};
  std::atomic<int> failures{0};
  std::thread writer([&] {
    for (int i = 0; !done; ++i) {
      const std::string key = "k" + std::to_string(1000000 + i);
      if (!router->Mutate("rows", {PutRow(key, "NO", "PPL")}).ok()) {
        ++failures;
        return;
      }
      acked = i + 1;
    }
  });
  std::thread reader([&] {
    while (!done) {
      const int before = acked;
      StatusOr<LookupResult> r =
          router->Lookup("rows", WhereEq({{"d:country", "NO"}}));
      if (!r.ok() || static_cast<int>(r->rows.size()) < before) ++failures;
      (void)router->Servers();
      (void)router->IndexStats();
    }
  });
  // The writer is under way before the servers come: on a loaded machine
  // the four adds could otherwise all finish before its first write, and
  // nothing would have raced them (the test then failed on acked > 0).
  for (int w = 0; w < 3000 && acked == 0 && failures == 0; ++w) {
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  for (int i = 2; i < 6; ++i) {
    StatusOr<ServerRef> added =
        router->AddServer("server-" + std::to_string(i));
    if (!added.ok()) {
      ADD_FAILURE() << added.status().ToString();
      break;
    }
    TableSpec spec = Places("t" + std::to_string(i), {});
    spec.region_count = static_cast<uint32_t>(i + 1);
    StatusOr<TableInfo> t = router->CreateTable(spec);
    if (!t.ok()) {
      ADD_FAILURE() << t.status().ToString();
      break;
    }
    EXPECT_EQ(RegionsPerServer(*t).count(added->id), 1u) << i;
  }
  done = true;
  writer.join();
  reader.join();
  EXPECT_EQ(failures, 0);
  EXPECT_GT(acked, 0);
  EXPECT_EQ(router->Servers().size(), 6u);
}

// A getIndexStats racing an addServer killed the router once under load
// (std::out_of_range from map::at): the index lists a new server before
// the server map has it. The sync point holds AddServer in that window.
TEST_F(RouterServersTest, IndexStatsDuringAnAddServerSeesEveryServerOnce) {
  StoreCluster cluster(3);
  RouterOptions o = testing::RouterOptionsFor(cluster);
  o.region_servers = {"server-0", "server-1"};
  std::unique_ptr<Router> router =
      std::move(Router::Open(o, cluster.Factory())).value();
  // Between publishing and indexing, and right after indexing (where the
  // index listed the server before the map had it).
  std::vector<ServerIndexStats> published, indexed;
  SyncPoints::Set("AddServer:Published",
                  [&](void*) { published = router->IndexStats(); });
  SyncPoints::Set("AddServer:Indexed",
                  [&](void*) { indexed = router->IndexStats(); });
  StatusOr<ServerRef> added = router->AddServer("server-2");
  SyncPoints::ClearAll();
  ASSERT_TRUE(added.ok()) << added.status().ToString();
  EXPECT_EQ(published.size(), 2u);
  ASSERT_EQ(indexed.size(), 3u);
  std::set<ServerId> ids;
  for (const ServerIndexStats& s : indexed) {
    EXPECT_FALSE(s.server.address.empty()) << s.server.id;
    ids.insert(s.server.id);
  }
  EXPECT_EQ(ids.size(), 3u);
  EXPECT_EQ(router->IndexStats().size(), 3u);
}

}  // namespace
}  // namespace bloomroute::router
