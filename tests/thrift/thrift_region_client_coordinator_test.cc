// Coordinator epochs over the region service: every coordinator call of
// the RPC client carries its epoch to the store, a refusal comes back as
// the same recognizable Aborted, and the handler refuses a negative epoch.
#include <gtest/gtest.h>

#include <functional>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "tests/regionstore/region_store_test_util.h"
#include "tests/thrift/fake_region_store.h"
#include "tests/thrift/handler_test_util.h"
#include "thrift/region_server.h"
#include "thrift/region_service_handler.h"
#include "thrift/thrift_region_client.h"

namespace bloomroute {
namespace {

using ::bloomroute::testing::PlacesRegion;
using ::bloomroute::testing::PlacesTable;
using ::bloomroute::testing::TempDir;

class CoordinatorEpochThriftTest : public ::testing::Test {
 protected:
  // Serves `store` and connects a client to it.
  void Serve(std::shared_ptr<RegionStore> store) {
    RegionServerOptions options;
    options.port = 0;
    options.threads = 4;
    auto server = RegionServer::Start(std::move(store), options);
    ASSERT_TRUE(server.ok()) << server.status().ToString();
    server_ = std::move(server).value();
    ThriftClientOptions client_options;
    client_options.connect_timeout_ms = 5000;
    client_options.call_timeout_ms = 10000;
    auto client =
        NewThriftRegionClientFactory(client_options)
            ->Connect(1, "127.0.0.1:" + std::to_string(server_->port()));
    ASSERT_TRUE(client.ok()) << client.status().ToString();
    client_ = std::move(client).value();
  }

  // Every coordinator call of the client, with `epoch`, named.
  std::vector<std::pair<std::string, std::function<Status()>>> Calls(
      CoordinatorEpoch epoch) {
    router::RegionClient& c = *client_;
    TableDescriptor table = PlacesTable();
    return {
        {"OpenRegion",
         [&c, epoch] {
           return c.OpenRegion(PlacesRegion(1, "", "m"), 0, epoch);
         }},
        {"OpenStagedRegion",
         [&c, epoch] {
           return c.OpenStagedRegion(PlacesRegion(2, "m", ""), 0, epoch);
         }},
        {"UpdateTableIndexes",
         [&c, epoch, table] { return c.UpdateTableIndexes(table, epoch); }},
        {"BackfillIndex",
         [&c, epoch] {
           return c.BackfillIndex(1, 1, "", 10, 0, epoch).status();
         }},
        {"DropIndexEntries",
         [&c, epoch] {
           return c.DropIndexEntries(1, 9, 10, 0, epoch).status();
         }},
        {"SetFilterConfig",
         [&c, epoch] { return c.SetFilterConfig(SscbfConfig(), epoch); }},
        {"CloseRegion", [&c, epoch] { return c.CloseRegion(1, epoch); }},
        {"DropRegion", [&c, epoch] { return c.DropRegion(2, epoch); }},
    };
  }

  std::unique_ptr<RegionServer> server_;
  std::unique_ptr<router::RegionClient> client_;
};

// Each call's epoch reaches the store as sent; the overloads without one
// send 0.
TEST_F(CoordinatorEpochThriftTest, EveryCoordinatorCallCarriesItsEpoch) {
  auto store = std::make_shared<FakeRegionStore>();
  store->chunk_result.write.incarnation = 77;  // a reply the client takes
  store->chunk_result.write.epoch = 1;
  store->chunk_result.done = true;
  Serve(store);
  const uint64_t big = (uint64_t{1} << 40) + 3;
  size_t calls = 0;
  for (auto& [name, call] : Calls(CoordinatorEpoch{big})) {
    const Status s = call();
    EXPECT_TRUE(s.ok()) << name << ": " << s.ToString();
    ++calls;
    ASSERT_EQ(store->coordinator_epochs().size(), calls) << name;
    EXPECT_EQ(store->coordinator_epochs().back(), big) << name;
  }
  ASSERT_TRUE(client_->CloseRegion(1).ok());
  EXPECT_EQ(store->coordinator_epochs().back(), 0u);
}

// A real store behind the server: a newer epoch raises it, an older one
// comes back refused, naming both, with nothing done.
TEST_F(CoordinatorEpochThriftTest, OlderEpochIsRefusedOverTheWire) {
  TempDir dir;
  auto opened = RegionStore::Open(dir.path(), RegionStoreOptions());
  ASSERT_TRUE(opened.ok()) << opened.status().ToString();
  std::shared_ptr<RegionStore> store = std::move(opened).value();
  Serve(store);
  ASSERT_TRUE(
      client_->OpenRegion(PlacesRegion(1, "", "m"), 0, CoordinatorEpoch{7})
          .ok());
  EXPECT_EQ(store->CoordinatorEpochSeen(), 7u);
  for (auto& [name, call] : Calls(CoordinatorEpoch{6})) {
    const Status s = call();
    EXPECT_TRUE(IsCoordinatorEpochRefused(s)) << name << ": " << s.ToString();
    EXPECT_NE(s.message().find("coordinator epoch 6 is older than 7"),
              std::string::npos)
        << name << ": " << s.ToString();
  }
  ASSERT_EQ(store->ListRegions().size(), 1u);
  EXPECT_EQ(store->ListRegions()[0], PlacesRegion(1, "", "m"));
  EXPECT_EQ(store->CoordinatorEpochSeen(), 7u);
}

TEST_F(CoordinatorEpochThriftTest, HandlerRefusesANegativeEpoch) {
  auto store = std::make_shared<FakeRegionStore>();
  RegionServiceHandler handler(store);
  testing::ExpectIllegal([&] { handler.closeRegion(1, -2); },
                         "coordinatorEpoch is negative (-2)");
  testing::ExpectIllegal([&] { handler.dropRegion(1, -1); },
                         "coordinatorEpoch is negative (-1)");
  EXPECT_TRUE(store->coordinator_epochs().empty());
}

}  // namespace
}  // namespace bloomroute
