// End to end over Thrift with real processes on loopback: four
// `bloomroute regionserver` processes and a `bloomroute router`, driven
// through the client API (thrift/router_service.thrift).
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/wait.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <map>
#include <memory>
#include <mutex>
#include <random>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include "tests/integration/process_cluster.h"
#include "tests/integration/router_client.h"

namespace bloomroute::testing {
namespace {

namespace rpc = ::bloomroute::rpc;
using rpc::client::TIndexResult;
using rpc::client::TResult;

constexpr int kRegionServers = 4;

class RouterEndToEndTest : public ::testing::Test {
 protected:
  void SetUp() override {
    ASSERT_TRUE(cluster_.ok()) << cluster_.error();
    client_ = std::make_unique<RouterClient>(cluster_.router_port());
    rpc::client::TTableInfo info;
    (*client_)->createIndexedTable(
        info, MakeTableSpec("places", {"d:country", "d:feature"}, 0,
                            {"g", "n", "t"}));
    ASSERT_EQ(info.regions.size(), 4u);
  }

  std::vector<std::string> Lookup(const CellMap& where,
                                  TIndexResult* out = nullptr) {
    TIndexResult result;
    (*client_)->getByIndex(result, "places", MakeQuery(where));
    if (out != nullptr) *out = result;
    return RowKeys(result.rows);
  }

  ProcessCluster cluster_{kRegionServers};
  std::unique_ptr<RouterClient> client_;
};

CellMap Place(const std::string& country, const std::string& feature) {
  return {{"d:country", country}, {"d:feature", feature}, {"d:name", "n"}};
}

TEST_F(RouterEndToEndTest, RowsAndLookupsOverFourServers) {
  (*client_)->putMultiple("places", {MakePut("apple", Place("NO", "PPL")),
                                     MakePut("house", Place("SE", "PPL")),
                                     MakePut("pear", Place("SE", "PPLA")),
                                     MakePut("zebra", Place("NO", "PPLA"))});
  TResult row;
  (*client_)->get(row, "places", MakeGet("pear"));
  EXPECT_EQ(CellsOf(row)["d:country"], "SE");

  TIndexResult r;
  EXPECT_EQ(Lookup({{"d:country", "NO"}}, &r),
            (std::vector<std::string>{"apple", "zebra"}));
  EXPECT_EQ(r.routing.serversInCluster, 4);
  EXPECT_EQ(r.routing.serversAsked.size(), 2u);  // apple's and zebra's
  EXPECT_EQ(r.routing.serversWithRows.size(), 2u);
  EXPECT_FALSE(r.partial);
  // AND of two predicates.
  EXPECT_EQ(Lookup({{"d:country", "SE"}, {"d:feature", "PPLA"}}),
            (std::vector<std::string>{"pear"}));
  // An update moves the row between index values.
  (*client_)->put("places", MakePut("pear", Place("DK", "PPLA")));
  EXPECT_EQ(Lookup({{"d:country", "SE"}}), (std::vector<std::string>{"house"}));
  EXPECT_EQ(Lookup({{"d:country", "DK"}}), (std::vector<std::string>{"pear"}));
  // A delete removes it from the index.
  (*client_)->deleteSingle("places", MakeDelete("pear"));
  EXPECT_TRUE(Lookup({{"d:country", "DK"}}).empty());
  TResult gone;  // a fresh one: Thrift's read keeps fields it does not see
  (*client_)->get(gone, "places", MakeGet("pear"));
  EXPECT_FALSE(gone.__isset.row);
  // A predicate on a column that is not indexed.
  EXPECT_THROW(Lookup({{"d:name", "n"}}), rpc::TIllegalArgument);
}

// Mixed puts, updates and deletes against an exact model; every lookup is
// compared with it, so one false negative fails the test.
TEST_F(RouterEndToEndTest, RandomizedAgainstAModel) {
  std::mt19937_64 rng(50000);
  std::map<std::string, CellMap> model;
  const auto check = [&](const std::string& column, const std::string& v) {
    std::vector<std::string> want;
    for (const auto& [key, cells] : model) {
      if (cells.at(column) == v) want.push_back(key);
    }
    ASSERT_EQ(Lookup({{column, v}}), want) << column << " = " << v;
  };
  int ops = 0;
  for (int batch = 0; ops < 50000; ++batch) {
    const int n = 1 + static_cast<int>(rng() % 8);
    if (rng() % 4 == 0) {
      std::vector<rpc::client::TDelete> deletes;
      for (int i = 0; i < n; ++i) {
        const std::string key =
            std::string(1, 'a' + rng() % 26) + std::to_string(rng() % 400);
        deletes.push_back(MakeDelete(key));
        model.erase(key);
      }
      std::vector<rpc::client::TDelete> failed;
      (*client_)->deleteMultiple(failed, "places", deletes);
      ASSERT_TRUE(failed.empty());
    } else {
      std::vector<rpc::client::TPut> puts;
      for (int i = 0; i < n; ++i) {
        const std::string key =
            std::string(1, 'a' + rng() % 26) + std::to_string(rng() % 400);
        CellMap cells = Place("c" + std::to_string(rng() % 500),
                              "f" + std::to_string(rng() % 30));
        puts.push_back(MakePut(key, cells));
        model[key] = cells;
      }
      (*client_)->putMultiple("places", puts);
    }
    ops += n;
    if (batch % 10 == 0) check("d:country", "c" + std::to_string(rng() % 500));
    if (batch % 50 == 0) check("d:feature", "f" + std::to_string(rng() % 30));
  }
  for (int v = 0; v < 500; ++v) check("d:country", "c" + std::to_string(v));
  for (int v = 0; v < 30; ++v) check("d:feature", "f" + std::to_string(v));
}

// The router is killed while a writer runs; after a restart on the same data
// every acknowledged row is found, and the cluster keeps working.
TEST_F(RouterEndToEndTest, RouterKilledAndRestartedLosesNothing) {
  std::mutex mu;
  std::vector<std::string> acked;  // guarded by mu
  std::atomic<bool> failed{false};
  std::thread writer([&] {
    RouterClient client(cluster_.router_port());
    for (int i = 0; !failed; ++i) {
      const std::string key = std::string(1, 'a' + i % 26) + std::to_string(i);
      try {
        client->put("places", MakePut(key, Place("NO", "PPL")));
      } catch (const std::exception&) {
        failed = true;
        break;
      }
      std::lock_guard<std::mutex> lock(mu);
      acked.push_back(key);
    }
  });
  // Let some writes land, then kill the router without warning.
  for (int i = 0; i < 500; ++i) {
    {
      std::lock_guard<std::mutex> lock(mu);
      if (acked.size() >= 300) break;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  ASSERT_TRUE(cluster_.StopRouter(SIGKILL));
  writer.join();
  ASSERT_FALSE(acked.empty());

  ASSERT_TRUE(cluster_.StartRouter()) << cluster_.error();
  client_ = std::make_unique<RouterClient>(cluster_.router_port());
  rpc::client::TTableInfo info;
  (*client_)->describeTable(info, "places");
  EXPECT_EQ(info.regions.size(), 4u);
  TIndexResult r;
  const std::vector<std::string> found = Lookup({{"d:country", "NO"}}, &r);
  std::set<std::string> found_set(found.begin(), found.end());
  for (const std::string& key : acked) {
    ASSERT_EQ(found_set.count(key), 1u) << "acknowledged row " << key;
  }
  // Writes and lookups go on after the restart.
  (*client_)->put("places", MakePut("zz-after", Place("IS", "PPL")));
  EXPECT_EQ(Lookup({{"d:country", "IS"}}),
            (std::vector<std::string>{"zz-after"}));
}

TEST_F(RouterEndToEndTest, StoppedRegionServerFailsOrGivesPartialResults) {
  (*client_)->putMultiple("places", {MakePut("apple", Place("NO", "PPL")),
                                     MakePut("zebra", Place("NO", "PPL"))});
  // "zebra" is in the last region, [t, ""): find its server.
  rpc::client::TTableInfo info;
  (*client_)->describeTable(info, "places");
  const std::string address = info.regions[3].server.address;
  int stopped = -1;
  for (int i = 0; i < kRegionServers; ++i) {
    if (address == cluster_.region_server_address(i)) stopped = i;
  }
  ASSERT_GE(stopped, 0);
  ASSERT_TRUE(cluster_.StopRegionServer(stopped));

  try {
    Lookup({{"d:country", "NO"}});
    FAIL() << "a lookup that needs a stopped server must fail";
  } catch (const rpc::TIOError& e) {
    EXPECT_NE(e.message.find(address), std::string::npos) << e.message;
  }
  TIndexResult r;
  (*client_)->getByIndex(r, "places",
                         MakeQuery({{"d:country", "NO"}}, std::nullopt, true));
  EXPECT_TRUE(r.partial);
  ASSERT_EQ(r.missingServers.size(), 1u);
  EXPECT_EQ(r.missingServers[0].address, address);
  EXPECT_EQ(RowKeys(r.rows), (std::vector<std::string>{"apple"}));

  // Back on the same port, it answers again with its rows.
  ASSERT_TRUE(cluster_.StartRegionServer(stopped)) << cluster_.error();
  std::vector<std::string> keys;
  for (int attempt = 0; attempt < 200; ++attempt) {
    try {
      keys = Lookup({{"d:country", "NO"}});
      break;
    } catch (const rpc::TIOError&) {
      std::this_thread::sleep_for(std::chrono::milliseconds(50));
    }
  }
  EXPECT_EQ(keys, (std::vector<std::string>{"apple", "zebra"}));
}

// One client's getMultiple of 17,000 keys on one region server (17 calls of
// 1,000 gets) while another client reads a row there: neither may wait for
// the other beyond a few calls' time. (With region-server workers tied to
// connections, the router's pooled connections held all 16 workers and the
// 17th call waited for the 30 s call timeout.)
TEST(RouterStarvationTest, AHugeGetOnOneServerLeavesRoomForOthers) {
  ProcessCluster cluster(1);
  ASSERT_TRUE(cluster.ok()) << cluster.error();
  RouterClient setup(cluster.router_port());
  rpc::client::TTableInfo info;
  setup->createIndexedTable(info, MakeTableSpec("one", {"d:c"}, 1));
  setup->put("one", MakePut("small", {{"d:c", "x"}}));
  // Rows of 600 bytes (the reply stays under the client's 16 MB frame), so that
  // the calls take long enough to overlap.
  std::vector<rpc::client::TGet> gets;
  std::vector<rpc::client::TPut> puts;
  for (int i = 0; i < 17000; ++i) {
    gets.push_back(MakeGet(std::to_string(i)));
    puts.push_back(
        MakePut(std::to_string(i), {{"d:v", std::string(600, 'v')}}));
    if (puts.size() == 1000) {
      setup->putMultiple("one", puts);
      puts.clear();
    }
  }

  using Clock = std::chrono::steady_clock;
  std::atomic<bool> huge_done{false};
  std::string huge_error;
  size_t huge_rows = 0;
  double huge_seconds = 0;
  std::thread huge([&] {
    const Clock::time_point start = Clock::now();
    try {
      RouterClient client("127.0.0.1", cluster.router_port(), 60000);
      for (int round = 0; round < 3; ++round) {
        std::vector<TResult> rows;
        client->getMultiple(rows, "one", gets);
        huge_rows += rows.size();
      }
    } catch (const std::exception& e) {
      huge_error = e.what();
    }
    huge_seconds = std::chrono::duration<double>(Clock::now() - start).count();
    huge_done = true;
  });
  int small_gets = 0;
  double slowest = 0;
  RouterClient other("127.0.0.1", cluster.router_port(), 10000);
  while (!huge_done || small_gets == 0) {
    const Clock::time_point start = Clock::now();
    TResult row;
    try {
      other->get(row, "one", MakeGet("small"));
    } catch (const std::exception& e) {
      ADD_FAILURE() << "the small get failed: " << e.what();
      break;
    }
    EXPECT_EQ(row.row, "small");
    slowest = std::max(
        slowest, std::chrono::duration<double>(Clock::now() - start).count());
    ++small_gets;
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  huge.join();
  EXPECT_EQ(huge_error, "");
  EXPECT_EQ(huge_rows, 3 * gets.size());
  EXPECT_LT(huge_seconds, 20.0);
  EXPECT_LT(slowest, 2.0) << small_gets << " small gets";
}

}  // namespace
}  // namespace bloomroute::testing
